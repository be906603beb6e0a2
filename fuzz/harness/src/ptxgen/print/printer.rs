//! The `Printer` a program's PTX text is written through: labels, lines, blocks, and the
//! address arithmetic that shared and global accesses share.

use crate::ptxgen::{GLOBAL_WORDS, SHARED_WORDS, Stmt};

/// PTX text being written, with what the statement being printed needs of its context.
pub(super) struct Printer {
    pub(super) out: String,
    /// Names the program's functions apart from other programs' in the same module.
    pub(super) fprefix: String,
    pub(super) labels: u32,
    /// The end label of each enclosing loop.
    pub(super) loops: Vec<String>,
    /// The member mask of the warp operations being printed.
    pub(super) member: u32,
    /// Where the program's words of the reductions across blocks start, in bytes past
    /// `%tcross`.
    pub(super) cross: u32,
}

impl Printer {
    pub(super) fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}{}", self.labels)
    }

    pub(super) fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub(super) fn block(&mut self, body: &[Stmt], depth: usize) {
        for s in body {
            self.stmt(s, depth);
        }
    }

    /// `%ts` = the address of `sh[%r{i} % SHARED_WORDS]`.
    pub(super) fn shared_addr(&mut self, i: u8) {
        self.any_offset(i);
        self.region_addr(false);
    }

    /// `%t0` = the byte offset of word `%r{i} % SHARED_WORDS`.
    pub(super) fn any_offset(&mut self, i: u8) {
        self.line(&format!("and.b32 %t0, %r{i}, {};", SHARED_WORDS - 1));
        self.line("shl.b32 %t0, %t0, 2;");
    }

    /// `%ts` = the address of the thread's own word `sh[%tid.x * 4 + %r{sel} % 4]`.
    pub(super) fn own_addr(&mut self, sel: u8) {
        self.own_offset(sel);
        self.region_addr(false);
    }

    /// `%t0` = the byte offset of the thread's own word `%tid.x * 4 + %r{sel} % 4`.
    pub(super) fn own_offset(&mut self, sel: u8) {
        self.line(&format!("and.b32 %t0, %r{sel}, 3;"));
        self.line("mov.u32 %t1, %tid.x;");
        self.line("shl.b32 %t1, %t1, 2;");
        self.line("add.u32 %t0, %t0, %t1;");
        self.line("shl.b32 %t0, %t0, 2;");
    }

    /// `%ts` = the address of byte `%t0` of `sh`, or of the block's region of `gm`.
    pub(super) fn region_addr(&mut self, global: bool) {
        if global {
            self.line("mov.u32 %t3, %ctaid.x;");
            self.line(&format!("mad.lo.u32 %t0, %t3, {}, %t0;", GLOBAL_WORDS * 4));
        }
        self.line("cvt.u64.u32 %ts, %t0;");
        self.line(&format!(
            "mov.u64 %tsb, {};",
            if global { "gm" } else { "sh" }
        ));
        self.line("add.s64 %ts, %tsb, %ts;");
    }
}
