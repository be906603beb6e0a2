//! PTX text of a [`Program`], alone or many in one kernel.
//!
//! The `Printer` and its address helpers live in `print/printer.rs`, statements in
//! `print/stmt.rs` and `print/float.rs`, declarations and each program's kernel part in
//! `print/kernel.rs`.

mod float;
mod kernel;
mod printer;
mod stmt;
mod values;

use std::fmt::Write as _;

use self::printer::Printer;
pub(super) use self::values::{CANON_F32, CANON_F64, GLOBAL_SEED, LOCAL_SEED, SHARED_SEED};
use super::*;

/// One module holding every program of `programs` in one kernel `k(.param .u64 out)`, run one
/// after the other by every thread; program `n`'s words for thread `t` start at word
/// `(n * threads + t) * OUT_WORDS` of `out`, and its [`CROSS_WORDS`] after every program's
/// threads' words, at `programs.len() * T * OUT_WORDS + n * CROSS_WORDS` for the `T` threads
/// the launch has (so that [`Program::to_ptx`], which does not know them, places them right
/// too). One module and one pipeline for many programs: the driver's compile is paid once.
pub fn batch_ptx(programs: &[Program], threads: u32) -> String {
    let mut p = Printer {
        out: String::new(),
        fprefix: String::new(),
        labels: 0,
        loops: Vec::new(),
        member: u32::MAX,
        cross: 0,
    };
    p.out
        .push_str(".version 7.8\n.target sm_80\n.address_size 64\n\n");
    if programs.iter().any(|q| q.features.shared) {
        let _ = writeln!(p.out, ".shared .align 4 .b32 sh[{SHARED_WORDS}];\n");
    }
    if programs.iter().any(|q| q.features.global) {
        let _ = writeln!(
            p.out,
            ".global .align 4 .b32 gm[{}];\n",
            GLOBAL_BLOCKS * GLOBAL_WORDS
        );
    }
    for (n, program) in programs.iter().enumerate() {
        p.fprefix = if programs.len() == 1 {
            String::new()
        } else {
            format!("p{n}_")
        };
        p.funcs(program);
    }
    p.out.push_str(".visible .entry k(.param .u64 out)\n{\n");
    p.decls();
    if programs.iter().any(|q| q.features.local) {
        p.line(&format!(".local .align 16 .b32 lm[{LOCAL_WORDS}];"));
    }
    p.line("ld.param.u64 %tout, [out];");
    p.line("cvta.to.global.u64 %tout, %tout;");
    p.line("mov.u32 %t0, %tid.x;");
    p.line("mov.u32 %t1, %ctaid.x;");
    p.line("mov.u32 %t2, %ntid.x;");
    p.line("mad.lo.u32 %gt, %t1, %t2, %t0;");
    if programs.iter().any(|q| q.features.global) {
        p.line("mov.u32 %t3, %nctaid.x;");
        p.line("mul.lo.u32 %t3, %t3, %t2;");
        p.line(&format!(
            "mul.wide.u32 %tcross, %t3, {};",
            programs.len() as u64 * u64::from(OUT_WORDS) * 4
        ));
        p.line("add.s64 %tcross, %tout, %tcross;");
    }
    for (n, program) in programs.iter().enumerate() {
        p.fprefix = if programs.len() == 1 {
            String::new()
        } else {
            format!("p{n}_")
        };
        p.cross = n as u32 * CROSS_WORDS * 4;
        p.kernel_part(
            program,
            n as u64 * u64::from(threads) * u64::from(OUT_WORDS),
        );
    }
    p.line("ret;");
    p.out.push_str("}\n");
    p.out
}

impl Program {
    /// The PTX module: the functions, then the kernel `k`.
    pub fn to_ptx(&self) -> String {
        batch_ptx(std::slice::from_ref(self), 0)
    }
}
