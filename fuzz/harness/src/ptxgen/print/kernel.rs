//! The parts of the module around the statements: register declarations, the registers'
//! starting values, the functions, and each program's part of the kernel with its stores.

use std::fmt::Write as _;

use super::printer::Printer;
use super::values::{CANON_F32, CANON_F64, GLOBAL_SEED, LOCAL_SEED, SHARED_SEED};
use crate::ptxgen::*;

impl Printer {
    pub(super) fn decls(&mut self) {
        self.line(&format!(".reg .b32 %r<{NR}>;"));
        self.line(&format!(".reg .b64 %rd<{ND}>;"));
        self.line(&format!(".reg .f32 %f<{NF}>;"));
        self.line(&format!(".reg .f64 %fd<{NFD}>;"));
        self.line(&format!(".reg .pred %p<{NP}>;"));
        self.line(&format!(".reg .b16 %rs<{NH}>, %hd;"));
        self.line(".reg .pred %pl;");
        self.line(&format!(
            ".reg .b32 %lc<{}>, %vl<{}>;",
            MAX_DEPTH + 2,
            MAX_DEPTH + 2
        ));
        self.line(".reg .pred %pv;");
        self.line(".reg .b32 %t<4>;");
        self.line(".reg .b32 %gt;");
        self.line(".reg .f32 %ft;");
        self.line(".reg .f64 %fdt;");
        self.line(".reg .b64 %ts, %tsb, %tout, %tcross, %tg;");
    }

    /// `%rd`, `%f`, `%fd` and `%p` from the `%r` values, so that nothing is read before it is
    /// written.
    pub(super) fn derived_init(&mut self) {
        for i in 0..ND {
            self.line(&format!("cvt.u64.u32 %rd{i}, %r{};", i % NR));
        }
        for i in 0..NF {
            self.line(&format!("cvt.rn.f32.u32 %f{i}, %r{};", (i + 1) % NR));
        }
        for i in 0..NFD {
            self.line(&format!("cvt.rn.f64.u32 %fd{i}, %r{};", (i + 2) % NR));
        }
        for i in 0..NP {
            self.line(&format!(
                "setp.lt.u32 %p{i}, %r{}, %r{};",
                i % NR,
                (i + 3) % NR
            ));
        }
        for i in 0..NH {
            self.line(&format!("cvt.u16.u32 %rs{i}, %r{};", (i + 4) % NR));
        }
    }

    pub(super) fn funcs(&mut self, program: &Program) {
        for (i, f) in program.funcs.iter().enumerate() {
            let _ = writeln!(
                self.out,
                ".func (.reg .b32 %ret) f{}{i}(.reg .b32 %a, .reg .b32 %b)\n{{",
                self.fprefix
            );
            self.decls();
            self.line("mov.u32 %r0, %a;");
            self.line("mov.u32 %r1, %b;");
            for (r, v) in f.init.iter().enumerate().skip(2) {
                self.line(&format!("mov.u32 %r{r}, {v};"));
            }
            self.derived_init();
            self.block(&f.body, 0);
            self.line("mov.u32 %ret, %r0;");
            self.line("ret;");
            self.out.push_str("}\n\n");
        }
    }

    /// One program's part of the kernel: its registers from `%gt`, its body, its registers
    /// stored at `%tout + first_word * 4`, where the thread's words start.
    pub(super) fn kernel_part(&mut self, program: &Program, first_word: u64) {
        if program.features.lockstep && program.features.shared {
            // The block's shared words as `eval` starts them; barriers around, since the
            // previous program in the kernel may still be reading them.
            self.line("bar.sync 0;");
            for j in 0..SHARED_WORDS / DIFF_BLOCK {
                self.line("mov.u32 %t1, %tid.x;");
                self.line(&format!(
                    "mad.lo.u32 %t1, %t1, {}, {j};",
                    SHARED_WORDS / DIFF_BLOCK
                ));
                self.line(&format!("mul.lo.u32 %t2, %t1, {SHARED_SEED};"));
                self.line("shl.b32 %t1, %t1, 2;");
                self.line("cvt.u64.u32 %ts, %t1;");
                self.line("mov.u64 %tsb, sh;");
                self.line("add.s64 %ts, %tsb, %ts;");
                self.line("st.shared.u32 [%ts], %t2;");
            }
            self.line("bar.sync 0;");
        }
        if program.features.lockstep && program.features.global {
            // The block's region of `gm` as `eval` starts it: each thread its four words, the
            // first threads the warps' words.
            self.line("bar.sync 0;");
            self.line("mov.u32 %t3, %tid.x;");
            for j in 0..=SHARED_WORDS / DIFF_BLOCK {
                if j == SHARED_WORDS / DIFF_BLOCK {
                    self.line(&format!("setp.lt.u32 %pl, %t3, {};", DIFF_BLOCK / 32));
                    self.line(&format!("add.u32 %t0, %t3, {SHARED_WORDS};"));
                } else {
                    self.line(&format!(
                        "mad.lo.u32 %t0, %t3, {}, {j};",
                        SHARED_WORDS / DIFF_BLOCK
                    ));
                }
                // The word's index in all of `gm` gives its value.
                self.line("mov.u32 %t1, %ctaid.x;");
                self.line(&format!("mad.lo.u32 %t1, %t1, {GLOBAL_WORDS}, %t0;"));
                self.line(&format!("mul.lo.u32 %t2, %t1, {GLOBAL_SEED};"));
                self.line("shl.b32 %t1, %t1, 2;");
                self.line("cvt.u64.u32 %ts, %t1;");
                self.line("mov.u64 %tsb, gm;");
                self.line("add.s64 %ts, %tsb, %ts;");
                let guard = if j == SHARED_WORDS / DIFF_BLOCK {
                    "@%pl "
                } else {
                    ""
                };
                self.line(&format!("{guard}st.global.u32 [%ts], %t2;"));
            }
            self.line("bar.sync 0;");
        }
        if program.features.local {
            // The thread's `lm` as `eval` starts it.
            for k in 0..LOCAL_WORDS {
                self.line(&format!("mad.lo.u32 %t2, %gt, {LOCAL_WORDS}, {k};"));
                self.line(&format!("mul.lo.u32 %t2, %t2, {LOCAL_SEED};"));
                self.line(&format!("st.local.u32 [lm+{}], %t2;", 4 * k));
            }
        }
        for i in 0..NR as usize {
            self.line(&format!(
                "mad.lo.u32 %r{i}, %gt, {}, {};",
                program.mul[i], program.add[i]
            ));
        }
        self.derived_init();
        self.block(&program.body, 0);
        self.line(&format!("mul.wide.u32 %ts, %gt, {};", OUT_WORDS * 4));
        self.line(&format!("add.s64 %ts, %ts, {};", first_word * 4));
        self.line("add.s64 %tsb, %tout, %ts;");
        let mut at = 0u32;
        for i in 0..NR {
            self.line(&format!("st.global.u32 [%tsb+{at}], %r{i};"));
            at += 4;
        }
        for i in 0..ND {
            self.line(&format!("st.global.u64 [%tsb+{at}], %rd{i};"));
            at += 8;
        }
        for i in 0..NF {
            self.line(&format!("testp.notanumber.f32 %pl, %f{i};"));
            self.line(&format!("selp.f32 %ft, 0f{CANON_F32:08X}, %f{i}, %pl;"));
            self.line(&format!("st.global.f32 [%tsb+{at}], %ft;"));
            at += 4;
        }
        for i in 0..NFD {
            self.line(&format!("testp.notanumber.f64 %pl, %fd{i};"));
            self.line(&format!("selp.f64 %fdt, 0d{CANON_F64:016X}, %fd{i}, %pl;"));
            self.line(&format!("st.global.f64 [%tsb+{at}], %fdt;"));
            at += 8;
        }
        for i in 0..NH {
            self.line(&format!("st.global.u16 [%tsb+{at}], %rs{i};"));
            at += 2;
        }
    }
}
