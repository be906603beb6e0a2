//! PTX text of a [`Program`], alone or many in one kernel.

use std::fmt::Write as _;

use super::narrow::{print_half, reg};
use super::*;

fn src(s: Src) -> String {
    match s {
        Src::Reg(r) => format!("%r{r}"),
        Src::Imm(v) => format!("{v}"),
    }
}

struct Printer {
    out: String,
    /// Names the program's functions apart from other programs' in the same module.
    fprefix: String,
    labels: u32,
    /// The end label of each enclosing loop.
    loops: Vec<String>,
    /// The member mask of the warp operations being printed.
    member: u32,
}

impl Printer {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}{}", self.labels)
    }

    fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn block(&mut self, body: &[Stmt], depth: usize) {
        for s in body {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        let line = match s {
            Stmt::Bin {
                op,
                signed,
                d,
                a,
                b,
            } => {
                let b = src(*b);
                let s_or_u = if *signed { "s32" } else { "u32" };
                let (name, ty) = match op {
                    Bin::Add => ("add", s_or_u),
                    Bin::Sub => ("sub", s_or_u),
                    Bin::MulLo => ("mul.lo", s_or_u),
                    Bin::MulHiU => ("mul.hi", "u32"),
                    Bin::MulHiS => ("mul.hi", "s32"),
                    Bin::And => ("and", "b32"),
                    Bin::Or => ("or", "b32"),
                    Bin::Xor => ("xor", "b32"),
                    Bin::Shl => ("shl", "b32"),
                    Bin::ShrU => ("shr", "u32"),
                    Bin::ShrS => ("shr", "s32"),
                    Bin::MinU => ("min", "u32"),
                    Bin::MinS => ("min", "s32"),
                    Bin::MaxU => ("max", "u32"),
                    Bin::MaxS => ("max", "s32"),
                    Bin::DivU | Bin::RemU => {
                        let name = if *op == Bin::DivU { "div" } else { "rem" };
                        self.line(&format!("or.b32 %t0, {b}, 1;"));
                        self.line(&format!("{name}.u32 %r{d}, %r{a}, %t0;"));
                        return;
                    }
                    Bin::AddSatS => ("add.sat", "s32"),
                    Bin::Mul24LoU => ("mul24.lo", "u32"),
                };
                format!("{name}.{ty} %r{d}, %r{a}, {b};")
            }
            Stmt::Un { op, d, a } => {
                let (name, ty) = match op {
                    Un::Not => ("not", "b32"),
                    Un::Neg => ("neg", "s32"),
                    Un::Popc => ("popc", "b32"),
                    Un::Clz => ("clz", "b32"),
                    Un::Brev => ("brev", "b32"),
                    Un::AbsS => ("abs", "s32"),
                    Un::Cnot => ("cnot", "b32"),
                };
                format!("{name}.{ty} %r{d}, %r{a};")
            }
            Stmt::Tern { op, d, a, b, c } => {
                let (b, c) = (src(*b), src(*c));
                match op {
                    Tern::MadLo => format!("mad.lo.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::MadHiU => format!("mad.hi.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::BfeU => format!("bfe.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::BfeS => format!("bfe.s32 %r{d}, %r{a}, {b}, {c};"),
                    // bfi's insert field comes from a register: the fourth operand is the length.
                    Tern::Bfi => format!("bfi.b32 %r{d}, %r{a}, %r{d}, {b}, {c};"),
                    Tern::Prmt => format!("prmt.b32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::SadU => format!("sad.u32 %r{d}, %r{a}, {b}, {c};"),
                }
            }
            Stmt::Wide { op, d, a, b } => match op {
                Wide::MulWideU => format!("mul.wide.u32 %rd{d}, %r{a}, %r{b};"),
                Wide::MulWideS => format!("mul.wide.s32 %rd{d}, %r{a}, %r{b};"),
                Wide::Add64 => format!("add.u64 %rd{d}, %rd{a}, %rd{b};"),
                Wide::Xor64 => format!("xor.b64 %rd{d}, %rd{a}, %rd{b};"),
                Wide::Shl64 => format!("shl.b64 %rd{d}, %rd{a}, %r{b};"),
                Wide::ShrU64 => format!("shr.u64 %rd{d}, %rd{a}, %r{b};"),
                Wide::CvtU => format!("cvt.u64.u32 %rd{d}, %r{a};"),
                Wide::CvtS => format!("cvt.s64.s32 %rd{d}, %r{a};"),
                Wide::Trunc => format!("cvt.u32.u64 %r{d}, %rd{a};"),
            },
            Stmt::Mov { d, s } => format!("mov.u32 %r{d}, {};", src(*s)),
            Stmt::Selp { d, a, b, p } => format!("selp.b32 %r{d}, %r{a}, {}, %p{p};", src(*b)),
            Stmt::Setp {
                cmp,
                signed,
                p,
                a,
                b,
            } => {
                let c = match cmp {
                    Cmp::Eq => "eq",
                    Cmp::Ne => "ne",
                    Cmp::Lt => "lt",
                    Cmp::Le => "le",
                    Cmp::Gt => "gt",
                    Cmp::Ge => "ge",
                };
                let ty = if *signed { "s32" } else { "u32" };
                format!("setp.{c}.{ty} %p{p}, %r{a}, {};", src(*b))
            }
            Stmt::Pred { op, p, a, b } => match op {
                PredOp::And => format!("and.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Or => format!("or.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Xor => format!("xor.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Not => format!("not.pred %p{p}, %p{a};"),
            },
            Stmt::Float { op, d, a, b, c } => {
                self.float(*op, *d, *a, *b, *c);
                return;
            }
            Stmt::MovF { d, bits } => format!("mov.b32 %f{d}, 0f{bits:08X};"),
            Stmt::SetpF { cmp, p, a, b } => {
                let c = match cmp {
                    FCmp::Eq => "eq",
                    FCmp::Ne => "ne",
                    FCmp::Lt => "lt",
                    FCmp::Le => "le",
                    FCmp::Gt => "gt",
                    FCmp::Ge => "ge",
                    FCmp::Equ => "equ",
                    FCmp::Neu => "neu",
                    FCmp::Ltu => "ltu",
                    FCmp::Leu => "leu",
                    FCmp::Gtu => "gtu",
                    FCmp::Geu => "geu",
                    FCmp::Num => "num",
                    FCmp::Nan => "nan",
                };
                format!("setp.{c}.f32 %p{p}, %f{a}, %f{b};")
            }
            Stmt::Dbl { op, d, a, b, c } => {
                self.double(*op, *d, *a, *b, *c);
                return;
            }
            Stmt::Special { d, reg } => {
                let name = match reg {
                    Special::Laneid => "laneid",
                    Special::TidX => "tid.x",
                    Special::NtidX => "ntid.x",
                    Special::CtaidX => "ctaid.x",
                    Special::LanemaskEq => "lanemask_eq",
                    Special::LanemaskLt => "lanemask_lt",
                    Special::LanemaskLe => "lanemask_le",
                    Special::LanemaskGt => "lanemask_gt",
                    Special::LanemaskGe => "lanemask_ge",
                };
                format!("mov.u32 %r{d}, %{name};")
            }
            Stmt::Redux { op, d, a } => {
                let m = self.member;
                format!("redux.sync.{} %r{d}, %r{a}, {m:#010x};", redux_name(*op))
            }
            Stmt::Match { all, d, a } => {
                let m = if *all { "all" } else { "any" };
                let mask = self.member;
                format!("match.{m}.sync.b32 %r{d}, %r{a}, {mask:#010x};")
            }
            Stmt::ShRound { v, sel, d, i } => {
                self.own_addr(*sel);
                self.line(&format!("st.shared.u32 [%ts], %r{v};"));
                self.line("bar.sync 0;");
                self.shared_addr(*i);
                self.line(&format!("ld.shared.u32 %r{d}, [%ts];"));
                "bar.sync 0;".to_string()
            }
            Stmt::AtomOwn { op, d, sel, v, w } => {
                self.own_addr(*sel);
                let op = own_atom_name(*op);
                let w = if op == "cas.b32" {
                    format!(", %r{w}")
                } else {
                    String::new()
                };
                self.line(&format!("atom.shared.{op} %r{d}, [%ts], %r{v}{w};"));
                "bar.sync 0;".to_string()
            }
            Stmt::RedAny { op, d, i, v } => {
                self.shared_addr(*i);
                self.line(&format!("red.shared.{} [%ts], %r{v};", redux_name(*op)));
                self.line("bar.sync 0;");
                self.line(&format!("ld.shared.u32 %r{d}, [%ts];"));
                "bar.sync 0;".to_string()
            }
            Stmt::If { p, neg, then, els } => {
                let (else_l, end_l) = (self.label("else"), self.label("endif"));
                // Branch around `then` when the condition is false.
                let skip = if *neg { "" } else { "!" };
                self.line(&format!("@{skip}%p{p} bra {else_l};"));
                self.block(then, depth);
                if !els.is_empty() {
                    self.line(&format!("bra {end_l};"));
                }
                self.out.push_str(&format!("{else_l}:\n"));
                self.block(els, depth);
                self.out.push_str(&format!("{end_l}:\n"));
                return;
            }
            Stmt::Loop { trips, body } => {
                let (top, end) = (self.label("loop"), self.label("endloop"));
                let counter = format!("%lc{depth}");
                self.line(&format!("mov.u32 {counter}, 0;"));
                self.out.push_str(&format!("{top}:\n"));
                self.loops.push(end.clone());
                self.block(body, depth + 1);
                self.loops.pop();
                self.line(&format!("add.u32 {counter}, {counter}, 1;"));
                self.line(&format!("setp.lt.u32 %pl, {counter}, {trips};"));
                self.line(&format!("@%pl bra {top};"));
                self.out.push_str(&format!("{end}:\n"));
                return;
            }
            Stmt::Break { p, neg } => {
                let Some(end) = self.loops.last().cloned() else {
                    return;
                };
                let n = if *neg { "!" } else { "" };
                format!("@{n}%p{p} bra {end};")
            }
            Stmt::Call { f, d, a, b } => {
                format!("call (%r{d}), f{}{f}, (%r{a}, %r{b});", self.fprefix)
            }
            Stmt::Shfl {
                mode,
                d,
                a,
                lane,
                c,
            } => {
                let m = match mode {
                    ShflMode::Idx => "idx",
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                };
                format!(
                    "shfl.sync.{m}.b32 %r{d}, %r{a}, {}, {c}, {:#010x};",
                    src(*lane),
                    self.member
                )
            }
            Stmt::Vote { op, d, p } => {
                let (m, dp) = (self.member, d % NP);
                match op {
                    Vote::Ballot => format!("vote.sync.ballot.b32 %r{d}, %p{p}, {m:#010x};"),
                    Vote::Any => format!("vote.sync.any.pred %p{dp}, %p{p}, {m:#010x};"),
                    Vote::All => format!("vote.sync.all.pred %p{dp}, %p{p}, {m:#010x};"),
                    Vote::Uni => format!("vote.sync.uni.pred %p{dp}, %p{p}, {m:#010x};"),
                }
            }
            Stmt::Masked { mask, pre, op } => {
                let skip = self.label("nonmember");
                self.line("mov.u32 %t0, %laneid;");
                self.line(&format!("mov.u32 %t1, {mask:#010x};"));
                self.line("shr.u32 %t1, %t1, %t0;");
                self.line("and.b32 %t1, %t1, 1;");
                self.line("setp.eq.u32 %pl, %t1, 0;");
                self.line(&format!("@%pl bra {skip};"));
                self.block(pre, depth);
                let outer = std::mem::replace(&mut self.member, *mask);
                self.stmt(op, depth);
                self.member = outer;
                self.out.push_str(&format!("{skip}:\n"));
                return;
            }
            Stmt::GAtomOwn { op, d, sel, v, w } => {
                self.own_offset(*sel);
                self.region_addr(true);
                let op = own_atom_name(*op);
                let w = if op == "cas.b32" {
                    format!(", %r{w}")
                } else {
                    String::new()
                };
                self.line(&format!("atom.global.{op} %r{d}, [%ts], %r{v}{w};"));
                "bar.sync 0;".to_string()
            }
            Stmt::GRedAny { op, d, i, v } => {
                self.any_offset(*i);
                self.region_addr(true);
                self.line(&format!("red.global.{} [%ts], %r{v};", redux_name(*op)));
                self.line("bar.sync 0;");
                self.line(&format!("ld.global.u32 %r{d}, [%ts];"));
                "bar.sync 0;".to_string()
            }
            Stmt::GAtomBit { op, d, v } => {
                // The warp's word, after the four words of each thread.
                self.line("mov.u32 %t0, %tid.x;");
                self.line("shr.u32 %t0, %t0, 5;");
                self.line(&format!("add.u32 %t0, %t0, {SHARED_WORDS};"));
                self.line("shl.b32 %t0, %t0, 2;");
                self.region_addr(true);
                self.line("mov.u32 %t1, %laneid;");
                self.line("mov.u32 %t2, 1;");
                self.line("shl.b32 %t2, %t2, %t1;");
                if *op == Redux::And {
                    self.line("not.b32 %t1, %t2;");
                    self.line(&format!("or.b32 %t1, %r{v}, %t1;"));
                } else {
                    self.line(&format!("and.b32 %t1, %r{v}, %t2;"));
                }
                self.line(&format!(
                    "atom.global.{} %r{d}, [%ts], %t1;",
                    redux_name(*op)
                ));
                self.line(&format!("and.b32 %r{d}, %r{d}, %t2;"));
                "bar.sync 0;".to_string()
            }
            Stmt::NarrowRound {
                global,
                ty,
                load,
                to32,
                v,
                sel,
                d,
                i,
            } => {
                let space = if *global { "global" } else { "shared" };
                let half = ty.bytes() == 2;
                // A byte or half-word of the thread's own 16 bytes.
                self.line(&format!(
                    "and.b32 %t0, %r{sel}, {};",
                    if half { 7 } else { 15 }
                ));
                if half {
                    self.line("shl.b32 %t0, %t0, 1;");
                }
                self.line("mov.u32 %t1, %tid.x;");
                self.line("shl.b32 %t1, %t1, 4;");
                self.line("add.u32 %t0, %t0, %t1;");
                self.region_addr(*global);
                self.line(&format!("st.{space}.{} [%ts], %rs{};", ty.name(), v % NH));
                self.line("bar.sync 0;");
                self.line(&format!(
                    "and.b32 %t0, %r{i}, {};",
                    if half { 511 } else { 1023 }
                ));
                if half {
                    self.line("shl.b32 %t0, %t0, 1;");
                }
                self.region_addr(*global);
                let dst = if *to32 {
                    format!("%r{d}")
                } else {
                    format!("%rs{}", d % NH)
                };
                self.line(&format!("ld.{space}.{} {dst}, [%ts];", load.name()));
                "bar.sync 0;".to_string()
            }
            Stmt::Half { op, d, a, b } => print_half(*op, *d, *a, *b),
            Stmt::CvtN { op, d, a } => {
                let (name, dk, sk) = op.parts();
                format!("cvt.{name} {}, {};", reg(dk, *d), reg(sk, *a))
            }
            Stmt::Bar => "bar.sync 0;".to_string(),
            Stmt::StShared { i, v } => {
                self.shared_addr(*i);
                format!("st.shared.u32 [%ts], %r{v};")
            }
            Stmt::LdShared { d, i } => {
                self.shared_addr(*i);
                format!("ld.shared.u32 %r{d}, [%ts];")
            }
            Stmt::AtomShared { op, d, i, v, w } => {
                self.shared_addr(*i);
                match op {
                    Atom::Add => format!("atom.shared.add.u32 %r{d}, [%ts], %r{v};"),
                    Atom::Max => format!("atom.shared.max.s32 %r{d}, [%ts], %r{v};"),
                    Atom::Exch => format!("atom.shared.exch.b32 %r{d}, [%ts], %r{v};"),
                    Atom::Cas => format!("atom.shared.cas.b32 %r{d}, [%ts], %r{v}, %r{w};"),
                }
            }
        };
        self.line(&line);
    }

    /// `%ts` = the address of `sh[%r{i} % SHARED_WORDS]`.
    fn shared_addr(&mut self, i: u8) {
        self.any_offset(i);
        self.region_addr(false);
    }

    /// `%t0` = the byte offset of word `%r{i} % SHARED_WORDS`.
    fn any_offset(&mut self, i: u8) {
        self.line(&format!("and.b32 %t0, %r{i}, {};", SHARED_WORDS - 1));
        self.line("shl.b32 %t0, %t0, 2;");
    }

    /// `%ts` = the address of the thread's own word `sh[%tid.x * 4 + %r{sel} % 4]`.
    fn own_addr(&mut self, sel: u8) {
        self.own_offset(sel);
        self.region_addr(false);
    }

    /// `%t0` = the byte offset of the thread's own word `%tid.x * 4 + %r{sel} % 4`.
    fn own_offset(&mut self, sel: u8) {
        self.line(&format!("and.b32 %t0, %r{sel}, 3;"));
        self.line("mov.u32 %t1, %tid.x;");
        self.line("shl.b32 %t1, %t1, 2;");
        self.line("add.u32 %t0, %t0, %t1;");
        self.line("shl.b32 %t0, %t0, 2;");
    }

    /// `%ts` = the address of byte `%t0` of `sh`, or of the block's region of `gm`.
    fn region_addr(&mut self, global: bool) {
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

    fn float(&mut self, op: FloatOp, d: u8, a: u8, b: u8, c: u8) {
        let r = d % NR;
        let line = match op {
            FloatOp::Add => format!("add.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Sub => format!("sub.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Mul => format!("mul.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Div => format!("div.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Sqrt => format!("sqrt.rn.f32 %f{d}, %f{a};"),
            FloatOp::Fma => format!("fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{c};"),
            FloatOp::Min => format!("min.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Max => format!("max.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Abs => format!("abs.f32 %f{d}, %f{a};"),
            FloatOp::Neg => format!("neg.f32 %f{d}, %f{a};"),
            FloatOp::FromInt => format!("cvt.rn.f32.u32 %f{d}, %r{a};"),
            FloatOp::FromS => format!("cvt.rn.f32.s32 %f{d}, %r{a};"),
            FloatOp::ToInt => format!("cvt.rzi.u32.f32 %r{r}, %f{a};"),
            FloatOp::ToS => format!("cvt.rzi.s32.f32 %r{r}, %f{a};"),
            FloatOp::ToSRni => format!("cvt.rni.s32.f32 %r{r}, %f{a};"),
            FloatOp::Floor => format!("cvt.rmi.f32.f32 %f{d}, %f{a};"),
            FloatOp::Ceil => format!("cvt.rpi.f32.f32 %f{d}, %f{a};"),
            FloatOp::Trunc => format!("cvt.rzi.f32.f32 %f{d}, %f{a};"),
            FloatOp::RoundEven => format!("cvt.rni.f32.f32 %f{d}, %f{a};"),
            FloatOp::FromBits => format!("mov.b32 %f{d}, %r{a};"),
            FloatOp::ToBits => {
                self.line(&format!("testp.notanumber.f32 %pl, %f{a};"));
                self.line(&format!("mov.b32 %r{r}, %f{a};"));
                format!("selp.b32 %r{r}, {CANON_F32}, %r{r}, %pl;")
            }
            FloatOp::Selp => format!("selp.f32 %f{d}, %f{a}, %f{b}, %p{};", c % NP),
        };
        self.line(&line);
    }

    fn double(&mut self, op: DblOp, d: u8, a: u8, b: u8, c: u8) {
        let (d, a, b, c) = (d % NFD, a % NFD, b % NFD, c % NFD);
        let line = match op {
            DblOp::Add => format!("add.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Mul => format!("mul.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Fma => format!("fma.rn.f64 %fd{d}, %fd{a}, %fd{b}, %fd{c};"),
            DblOp::Div => format!("div.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Sqrt => format!("sqrt.rn.f64 %fd{d}, %fd{a};"),
            DblOp::FromF => format!("cvt.f64.f32 %fd{d}, %f{};", b % NF),
            DblOp::ToF => format!("cvt.rn.f32.f64 %f{}, %fd{a};", b % NF),
            DblOp::FromBits => format!("mov.b64 %fd{d}, %rd{};", b % ND),
            DblOp::ToBits => {
                let r = b % ND;
                self.line(&format!("testp.notanumber.f64 %pl, %fd{a};"));
                self.line(&format!("mov.b64 %rd{r}, %fd{a};"));
                format!("selp.b64 %rd{r}, {CANON_F64}, %rd{r}, %pl;")
            }
        };
        self.line(&line);
    }

    fn decls(&mut self) {
        self.line(&format!(".reg .b32 %r<{NR}>;"));
        self.line(&format!(".reg .b64 %rd<{ND}>;"));
        self.line(&format!(".reg .f32 %f<{NF}>;"));
        self.line(&format!(".reg .f64 %fd<{NFD}>;"));
        self.line(&format!(".reg .pred %p<{NP}>;"));
        self.line(&format!(".reg .b16 %rs<{NH}>, %hd;"));
        self.line(".reg .pred %pl;");
        self.line(&format!(".reg .b32 %lc<{}>;", MAX_DEPTH + 2));
        self.line(".reg .b32 %t<4>;");
        self.line(".reg .b32 %gt;");
        self.line(".reg .f32 %ft;");
        self.line(".reg .f64 %fdt;");
        self.line(".reg .b64 %ts, %tsb, %tout;");
    }

    /// `%rd`, `%f`, `%fd` and `%p` from the `%r` values, so that nothing is read before it is
    /// written.
    fn derived_init(&mut self) {
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

    fn funcs(&mut self, program: &Program) {
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
    fn kernel_part(&mut self, program: &Program, first_word: u64) {
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

/// The NaN every NaN output is made: the ISA leaves payloads open.
pub(super) const CANON_F32: u32 = 0x7fff_ffff;
pub(super) const CANON_F64: u64 = 0x7fff_ffff_ffff_ffff;
/// Shared word `i` starts as `i * SHARED_SEED`.
pub(super) const SHARED_SEED: u32 = 0x9e37_79b1;
/// Word `i` of `gm` starts as `i * GLOBAL_SEED`.
pub(super) const GLOBAL_SEED: u32 = 0x85eb_ca77;

/// One module holding every program of `programs` in one kernel `k(.param .u64 out)`, run one
/// after the other by every thread; program `n`'s words for thread `t` start at word
/// `(n * threads + t) * OUT_WORDS` of `out`. One module and one pipeline for many programs:
/// the driver's compile is paid once.
pub fn batch_ptx(programs: &[Program], threads: u32) -> String {
    let mut p = Printer {
        out: String::new(),
        fprefix: String::new(),
        labels: 0,
        loops: Vec::new(),
        member: u32::MAX,
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
    p.line("ld.param.u64 %tout, [out];");
    p.line("cvta.to.global.u64 %tout, %tout;");
    p.line("mov.u32 %t0, %tid.x;");
    p.line("mov.u32 %t1, %ctaid.x;");
    p.line("mov.u32 %t2, %ntid.x;");
    p.line("mad.lo.u32 %gt, %t1, %t2, %t0;");
    for (n, program) in programs.iter().enumerate() {
        p.fprefix = if programs.len() == 1 {
            String::new()
        } else {
            format!("p{n}_")
        };
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

fn own_atom_name(op: OwnAtom) -> &'static str {
    match op {
        OwnAtom::Add => "add.u32",
        OwnAtom::MinU => "min.u32",
        OwnAtom::MaxS => "max.s32",
        OwnAtom::And => "and.b32",
        OwnAtom::Or => "or.b32",
        OwnAtom::Xor => "xor.b32",
        OwnAtom::Exch => "exch.b32",
        OwnAtom::Cas => "cas.b32",
        OwnAtom::Inc => "inc.u32",
        OwnAtom::Dec => "dec.u32",
    }
}

fn redux_name(op: Redux) -> &'static str {
    match op {
        Redux::Add => "add.u32",
        Redux::MinU => "min.u32",
        Redux::MinS => "min.s32",
        Redux::MaxU => "max.u32",
        Redux::MaxS => "max.s32",
        Redux::And => "and.b32",
        Redux::Or => "or.b32",
        Redux::Xor => "xor.b32",
    }
}
