//! One statement of a program as PTX instructions.

use super::printer::Printer;
use crate::ptxgen::narrow::{print_half, reg};
use crate::ptxgen::*;

/// `%t0` = the parity of the thread's warp in its block, `%tid.x / 32 % 2`.
const WARP_PARITY: [&str; 3] = [
    "mov.u32 %t0, %tid.x;",
    "shr.u32 %t0, %t0, 5;",
    "and.b32 %t0, %t0, 1;",
];

fn src(s: Src) -> String {
    match s {
        Src::Reg(r) => format!("%r{r}"),
        Src::Imm(v) => format!("{v}"),
    }
}

impl Printer {
    /// A do-while loop on the counter `%lc{depth}`: `entry` after the counter is zeroed, the
    /// body, the counter stepped, then `test`, which sets `pred` where another iteration is due.
    fn do_while(
        &mut self,
        depth: usize,
        body: &[Stmt],
        entry: &[String],
        test: &[String],
        pred: &str,
    ) {
        let (top, end) = (self.label("loop"), self.label("endloop"));
        let counter = format!("%lc{depth}");
        self.line(&format!("mov.u32 {counter}, 0;"));
        for l in entry {
            self.line(l);
        }
        self.out.push_str(&format!("{top}:\n"));
        self.loops.push(end.clone());
        self.block(body, depth + 1);
        self.loops.pop();
        self.line(&format!("add.u32 {counter}, {counter}, 1;"));
        for l in test {
            self.line(l);
        }
        self.line(&format!("@{pred} bra {top};"));
        self.out.push_str(&format!("{end}:\n"));
    }

    pub(super) fn stmt(&mut self, s: &Stmt, depth: usize) {
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
            Stmt::Handoff { odd, v, sel, d, i } => {
                let (consumer, end) = (self.label("consumer"), self.label("handoff"));
                WARP_PARITY.iter().for_each(|l| self.line(l));
                self.line(&format!("setp.ne.u32 %pl, %t0, {};", u32::from(*odd)));
                self.line(&format!("@%pl bra {consumer};"));
                self.own_addr(*sel);
                self.line(&format!("st.shared.u32 [%ts], %r{v};"));
                self.line(&format!("bar.arrive 1, {DIFF_BLOCK};"));
                self.line(&format!("bra {end};"));
                self.out.push_str(&format!("{consumer}:\n"));
                self.line(&format!("bar.sync 1, {DIFF_BLOCK};"));
                self.shared_addr(*i);
                self.line(&format!("ld.shared.u32 %r{d}, [%ts];"));
                self.out.push_str(&format!("{end}:\n"));
                // The producers may not store again before the consumers have loaded.
                "bar.sync 0;".to_string()
            }
            Stmt::CpAsync {
                sel,
                src,
                d,
                i,
                group,
            } => {
                self.any_offset(*src);
                self.region_addr(true);
                self.line("mov.u64 %tg, %ts;");
                self.own_addr(*sel);
                self.line("cp.async.ca.shared.global [%ts], [%tg], 4;");
                if *group {
                    self.line("cp.async.commit_group;");
                    self.line("cp.async.wait_group 0;");
                } else {
                    self.line("cp.async.wait_all;");
                }
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
            Stmt::If { .. } | Stmt::BlockIf { .. } | Stmt::WarpIf { .. } => {
                let (else_l, end_l) = (self.label("else"), self.label("endif"));
                // Branch around `then` when the condition is false.
                let (then, els) = match s {
                    Stmt::If { p, neg, then, els } => {
                        let skip = if *neg { "" } else { "!" };
                        self.line(&format!("@{skip}%p{p} bra {else_l};"));
                        (then, els)
                    }
                    Stmt::BlockIf { odd, then, els } | Stmt::WarpIf { odd, then, els } => {
                        if matches!(s, Stmt::BlockIf { .. }) {
                            self.line("mov.u32 %t0, %ctaid.x;");
                            self.line("and.b32 %t0, %t0, 1;");
                        } else {
                            WARP_PARITY.iter().for_each(|l| self.line(l));
                        }
                        self.line(&format!("setp.ne.u32 %pl, %t0, {};", u32::from(*odd)));
                        self.line(&format!("@%pl bra {else_l};"));
                        (then, els)
                    }
                    _ => return,
                };
                self.block(then, depth);
                if !els.is_empty() {
                    self.line(&format!("bra {end_l};"));
                }
                self.out.push_str(&format!("{else_l}:\n"));
                self.block(els, depth);
                self.out.push_str(&format!("{end_l}:\n"));
                return;
            }
            Stmt::Loop { trips, body, .. } => {
                let test = format!("setp.lt.u32 %pl, %lc{depth}, {trips};");
                self.do_while(depth, body, &[], &[test], "%pl");
                return;
            }
            Stmt::WarpLoop {
                trips,
                extra,
                odd,
                body,
            } => {
                // The bound is worked out at the back edge, since the body may use `%t0`.
                let more = u32::from(*trips) + u32::from(*extra);
                let mut test = WARP_PARITY.map(String::from).to_vec();
                test.extend([
                    format!("setp.eq.u32 %pl, %t0, {};", u32::from(*odd)),
                    format!("selp.u32 %t0, {more}, {trips}, %pl;"),
                    format!("setp.lt.u32 %pl, %lc{depth}, %t0;"),
                ]);
                self.do_while(depth, body, &[], &test, "%pl");
                return;
            }
            Stmt::VoteLoop { r, body } => {
                let limit = format!("%vl{depth}");
                let entry = [
                    format!("and.b32 {limit}, %r{r}, 3;"),
                    format!("add.u32 {limit}, {limit}, 1;"),
                ];
                let test = [
                    format!("setp.lt.u32 %pv, %lc{depth}, {limit};"),
                    "vote.sync.any.pred %pv, %pv, 0xffffffff;".to_string(),
                ];
                self.do_while(depth, body, &entry, &test, "%pv");
                return;
            }
            Stmt::Local { op, r, i, generic } => {
                let (store, bytes, n) = op.shape();
                self.line(&format!("and.b32 %t0, %r{i}, {};", op.index_mask()));
                self.line(&format!("shl.b32 %t0, %t0, {};", bytes.trailing_zeros()));
                self.line("cvt.u64.u32 %ts, %t0;");
                self.line("mov.u64 %tsb, lm;");
                self.line("add.s64 %ts, %tsb, %ts;");
                let space = if *generic {
                    self.line("cvta.local.u64 %ts, %ts;");
                    ""
                } else {
                    ".local"
                };
                let regs: Vec<String> = (0..n as u8)
                    .map(|k| format!("%r{}", (r + k) % NR))
                    .collect();
                let (vec, operand) = match n {
                    1 => (String::new(), regs[0].clone()),
                    _ => (format!(".v{n}"), format!("{{{}}}", regs.join(", "))),
                };
                let ty = op.ptx_type();
                if store {
                    format!("st{space}{vec}.{ty} [%ts], {operand};")
                } else {
                    format!("ld{space}{vec}.{ty} {operand}, [%ts];")
                }
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
            Stmt::CrossRed { op, i, v } => {
                let at = self.cross + cross_group(*op) * 4;
                self.line(&format!("and.b32 %t0, %r{i}, {};", CROSS_PER_OP - 1));
                self.line("mul.wide.u32 %ts, %t0, 4;");
                self.line("add.s64 %ts, %tcross, %ts;");
                format!("red.global.{} [%ts+{at}], %r{v};", redux_name(*op))
            }
            Stmt::BarRed { op, d, p, neg } => {
                let n = if *neg { "!" } else { "" };
                match op {
                    BarRed::Popc => format!("bar.red.popc.u32 %r{d}, 0, {n}%p{p};"),
                    BarRed::And => format!("bar.red.and.pred %p{}, 0, {n}%p{p};", d % NP),
                    BarRed::Or => format!("bar.red.or.pred %p{}, 0, {n}%p{p};", d % NP),
                }
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
