//! The reference interpreter: PTX semantics from the ISA's text, on the host's IEEE arithmetic.
//! Statements that are not collective run thread by thread; the collective ones (only where
//! the whole block or warp is present, in lockstep programs) see the whole warp or block; a
//! uniform loop runs its iterations for all threads in step, a per-block branch each block's
//! arm for its threads, a per-warp branch or loop each warp's for its lanes, and a function
//! whose top level is collective its body for all its callers at once.

use super::narrow::{HOut, Kind, half};
use super::print::{CANON_F32, CANON_F64, GLOBAL_SEED, LOCAL_SEED, SHARED_SEED};
use super::*;
use ops::{bfe, bfi, bin, double, float, identity, prmt, reduce, un};
use warp::warp_op;

mod collective;
mod ops;
mod warp;

/// One thread's registers.
#[derive(Clone)]
struct Regs {
    r: [u32; NR as usize],
    rd: [u64; ND as usize],
    f: [f32; NF as usize],
    fd: [f64; NFD as usize],
    p: [bool; NP as usize],
    h: [u16; NH as usize],
    /// `%tid.x`, `%ntid.x`, `%ctaid.x`.
    tid: u32,
    ntid: u32,
    ctaid: u32,
    /// What the thread's reductions across blocks add to each shared word, from the
    /// operation's identity: the words' final values are these folded over all threads.
    cross: [u32; CROSS_WORDS as usize],
    /// The thread's `.local` array `lm`.
    local: [u32; LOCAL_WORDS as usize],
}

impl Regs {
    fn new(r: [u32; NR as usize], tid: u32, ntid: u32, ctaid: u32) -> Regs {
        // As `derived_init` prints it.
        let n = NR as usize;
        let rd = std::array::from_fn(|i| u64::from(r[i % n]));
        let f = std::array::from_fn(|i| r[(i + 1) % n] as f32);
        let fd = std::array::from_fn(|i| f64::from(r[(i + 2) % n]));
        let p = std::array::from_fn(|i| r[i % n] < r[(i + 3) % n]);
        let h = std::array::from_fn(|i| r[(i + 4) % n] as u16);
        Regs {
            r,
            rd,
            f,
            fd,
            p,
            h,
            tid,
            ntid,
            ctaid,
            cross: std::array::from_fn(|w| identity(cross_op(w))),
            local: [0; LOCAL_WORDS as usize],
        }
    }

    /// The registers of a call of `func` with arguments `a` and `b` by this thread.
    fn frame(&self, func: &Func, a: u32, b: u32) -> Regs {
        let mut r = func.init;
        r[0] = a;
        r[1] = b;
        Regs::new(r, self.tid, self.ntid, self.ctaid)
    }

    fn lane(&self) -> u32 {
        self.tid % 32
    }

    fn src(&self, s: Src) -> u32 {
        match s {
            Src::Reg(r) => self.r[r as usize],
            Src::Imm(v) => v,
        }
    }
}

/// The outcome of a block: fall through, or leave the innermost loop.
#[derive(PartialEq, Eq)]
enum Flow {
    Next,
    Break,
}

impl Program {
    /// Every thread's output words (`OUT_WORDS` per thread, threads in order), then the
    /// [`CROSS_WORDS`] of the reductions across blocks, for a launch of `blocks` blocks of
    /// `block` threads, or `None` where the program has what the interpreter does not model
    /// (collectives outside lockstep, shared memory in blocks other than `DIFF_BLOCK`).
    pub fn eval(&self, blocks: u32, block: u32) -> Option<Vec<u32>> {
        let f = self.features;
        if (f.warps || f.shared || f.global) && !f.lockstep
            || (f.shared || f.global) && block != DIFF_BLOCK
            || f.global && blocks > GLOBAL_BLOCKS
            || f.warps && !block.is_multiple_of(32)
        {
            return None;
        }
        let threads = blocks * block;
        let mut regs: Vec<Regs> = (0..threads)
            .map(|t| {
                let r =
                    std::array::from_fn(|i| t.wrapping_mul(self.mul[i]).wrapping_add(self.add[i]));
                let mut g = Regs::new(r, t % block, block, t / block);
                // As `kernel_part` prints it.
                g.local =
                    std::array::from_fn(|k| (t * LOCAL_WORDS + k as u32).wrapping_mul(LOCAL_SEED));
                g
            })
            .collect();
        let mut shared: Vec<Vec<u32>> = (0..blocks)
            .map(|_| {
                (0..SHARED_WORDS)
                    .map(|i| i.wrapping_mul(SHARED_SEED))
                    .collect()
            })
            .collect();
        let mut global: Vec<Vec<u32>> = (0..blocks)
            .map(|b| {
                (0..GLOBAL_WORDS)
                    .map(|i| (b * GLOBAL_WORDS + i).wrapping_mul(GLOBAL_SEED))
                    .collect()
            })
            .collect();
        let mut mem = Mem {
            shared: &mut shared,
            global: &mut global,
        };
        for s in &self.body {
            self.exec(s, &mut regs, &mut mem, block);
        }
        // The words start at 0 (the host zeroes `out`); each operation is associative and
        // commutative, so any order of the blocks gives these values.
        let mut cross = [0u32; CROSS_WORDS as usize];
        for g in &regs {
            for (w, c) in cross.iter_mut().enumerate() {
                *c = reduce(cross_op(w), *c, g.cross[w]);
            }
        }
        let mut out = Vec::with_capacity((threads * OUT_WORDS + CROSS_WORDS) as usize);
        for g in regs {
            out.extend_from_slice(&g.r);
            for v in g.rd {
                out.push(v as u32);
                out.push((v >> 32) as u32);
            }
            for v in g.f {
                out.push(if v.is_nan() { CANON_F32 } else { v.to_bits() });
            }
            for v in g.fd {
                let v = if v.is_nan() { CANON_F64 } else { v.to_bits() };
                out.push(v as u32);
                out.push((v >> 32) as u32);
            }
            for pair in g.h.chunks(2) {
                out.push(u32::from(pair[0]) | u32::from(pair[1]) << 16);
            }
        }
        out.extend_from_slice(&cross);
        Some(out)
    }

    fn call(&self, g: &Regs, f: usize, a: u32, b: u32) -> u32 {
        let mut frame = g.frame(&self.funcs[f], a, b);
        self.run(&self.funcs[f].body, &mut frame);
        frame.r[0]
    }

    fn run(&self, body: &[Stmt], g: &mut Regs) -> Flow {
        for s in body {
            if self.step(s, g) == Flow::Break {
                return Flow::Break;
            }
        }
        Flow::Next
    }

    fn step(&self, s: &Stmt, g: &mut Regs) -> Flow {
        match s {
            Stmt::Bin { op, d, a, b, .. } => {
                g.r[*d as usize] = bin(*op, g.r[*a as usize], g.src(*b));
            }
            Stmt::Un { op, d, a } => g.r[*d as usize] = un(*op, g.r[*a as usize]),
            Stmt::Tern { op, d, a, b, c } => {
                let (a, b, c) = (g.r[*a as usize], g.src(*b), g.src(*c));
                let old = g.r[*d as usize];
                g.r[*d as usize] = match op {
                    Tern::MadLo => a.wrapping_mul(b).wrapping_add(c),
                    Tern::MadHiU => (((u64::from(a) * u64::from(b)) >> 32) as u32).wrapping_add(c),
                    Tern::BfeU => bfe(a, b, c, false),
                    Tern::BfeS => bfe(a, b, c, true),
                    Tern::Bfi => bfi(a, old, b, c),
                    Tern::Prmt => prmt(a, b, c),
                    Tern::SadU => c.wrapping_add(a.abs_diff(b)),
                };
            }
            Stmt::Wide { op, d, a, b } => {
                let (d, a, b) = (*d as usize, *a as usize, *b as usize);
                match op {
                    Wide::MulWideU => g.rd[d] = u64::from(g.r[a]) * u64::from(g.r[b]),
                    Wide::MulWideS => {
                        g.rd[d] = (i64::from(g.r[a] as i32) * i64::from(g.r[b] as i32)) as u64
                    }
                    Wide::Add64 => g.rd[d] = g.rd[a].wrapping_add(g.rd[b]),
                    Wide::Xor64 => g.rd[d] = g.rd[a] ^ g.rd[b],
                    Wide::Shl64 => g.rd[d] = g.rd[a].checked_shl(g.r[b]).unwrap_or(0),
                    Wide::ShrU64 => g.rd[d] = g.rd[a].checked_shr(g.r[b]).unwrap_or(0),
                    Wide::CvtU => g.rd[d] = u64::from(g.r[a]),
                    Wide::CvtS => g.rd[d] = i64::from(g.r[a] as i32) as u64,
                    Wide::Trunc => g.r[d] = g.rd[a] as u32,
                }
            }
            Stmt::Mov { d, s } => g.r[*d as usize] = g.src(*s),
            Stmt::Selp { d, a, b, p } => {
                g.r[*d as usize] = if g.p[*p as usize] {
                    g.r[*a as usize]
                } else {
                    g.src(*b)
                };
            }
            Stmt::Setp {
                cmp,
                signed,
                p,
                a,
                b,
            } => {
                let (a, b) = (g.r[*a as usize], g.src(*b));
                let ord = if *signed {
                    (a as i32).cmp(&(b as i32))
                } else {
                    a.cmp(&b)
                };
                g.p[*p as usize] = match cmp {
                    Cmp::Eq => ord.is_eq(),
                    Cmp::Ne => ord.is_ne(),
                    Cmp::Lt => ord.is_lt(),
                    Cmp::Le => ord.is_le(),
                    Cmp::Gt => ord.is_gt(),
                    Cmp::Ge => ord.is_ge(),
                };
            }
            Stmt::Pred { op, p, a, b } => {
                let (a, b) = (g.p[*a as usize], g.p[*b as usize]);
                g.p[*p as usize] = match op {
                    PredOp::And => a && b,
                    PredOp::Or => a || b,
                    PredOp::Xor => a != b,
                    PredOp::Not => !a,
                };
            }
            Stmt::If { .. } | Stmt::BlockIf { .. } | Stmt::WarpIf { .. } => {
                return self.run(arm(s, g), g);
            }
            Stmt::Loop { trips, body, .. } => {
                for _ in 0..*trips {
                    if self.run(body, g) == Flow::Break {
                        break;
                    }
                }
            }
            Stmt::WarpLoop {
                trips,
                extra,
                odd,
                body,
            } => {
                for _ in 0..warp_trips(*trips, *extra, *odd, g) {
                    self.run(body, g);
                }
            }
            Stmt::Local { op, r, i, .. } => {
                let (store, bytes, n) = op.shape();
                let at = op.offset(g.r[*i as usize]);
                for k in 0..n {
                    let reg = (*r as usize + k as usize) % NR as usize;
                    let at = at + k * bytes;
                    if store {
                        store_bytes(&mut g.local, at, bytes, g.r[reg]);
                    } else {
                        let v = load_bytes(&g.local, at, bytes);
                        g.r[reg] = match op {
                            LocalOp::LdS8 => v as u8 as i8 as u32,
                            LocalOp::LdS16 => v as u16 as i16 as u32,
                            _ => v,
                        };
                    }
                }
            }
            Stmt::Break { p, neg } => {
                if g.p[*p as usize] != *neg {
                    return Flow::Break;
                }
            }
            Stmt::Call { f, d, a, b } => {
                g.r[*d as usize] = self.call(g, *f as usize, g.r[*a as usize], g.r[*b as usize]);
            }
            Stmt::Float { op, d, a, b, c } => float(g, *op, *d, *a, *b, *c),
            Stmt::MovF { d, bits } => g.f[*d as usize] = f32::from_bits(*bits),
            Stmt::SetpF { cmp, p, a, b } => {
                let (a, b) = (g.f[*a as usize], g.f[*b as usize]);
                let nan = a.is_nan() || b.is_nan();
                g.p[*p as usize] = match cmp {
                    FCmp::Eq => a == b,
                    FCmp::Ne => !nan && a != b,
                    FCmp::Lt => a < b,
                    FCmp::Le => a <= b,
                    FCmp::Gt => a > b,
                    FCmp::Ge => a >= b,
                    FCmp::Equ => nan || a == b,
                    FCmp::Neu => a != b,
                    FCmp::Ltu => nan || a < b,
                    FCmp::Leu => nan || a <= b,
                    FCmp::Gtu => nan || a > b,
                    FCmp::Geu => nan || a >= b,
                    FCmp::Num => !nan,
                    FCmp::Nan => nan,
                };
            }
            Stmt::Dbl { op, d, a, b, c } => double(g, *op, *d, *a, *b, *c),
            Stmt::Half { op, d, a, b } => {
                let shift = matches!(op, HOp::Shl | HOp::ShrU | HOp::ShrS);
                let b = match *b {
                    Src::Imm(v) if shift => v,
                    Src::Imm(v) => v & 0xffff,
                    Src::Reg(r) if shift => g.r[r as usize],
                    Src::Reg(r) => u32::from(g.h[(r % NH) as usize]),
                };
                match half(*op, g.h[*a as usize % NH as usize], b) {
                    HOut::H(v) => g.h[*d as usize % NH as usize] = v,
                    HOut::R(v) => g.r[*d as usize] = v,
                    HOut::P(v) => g.p[(*d % NP) as usize] = v,
                }
            }
            Stmt::CvtN { op, d, a } => cvt_narrow(g, *op, *d, *a),
            Stmt::CrossRed { op, i, v } => {
                let w = (cross_group(*op) + g.r[*i as usize] % CROSS_PER_OP) as usize;
                g.cross[w] = reduce(*op, g.cross[w], g.r[*v as usize]);
            }
            Stmt::Special { d, reg } => {
                let lane = g.lane();
                let eq = 1u32 << lane;
                g.r[*d as usize] = match reg {
                    Special::Laneid => lane,
                    Special::TidX => g.tid,
                    Special::NtidX => g.ntid,
                    Special::CtaidX => g.ctaid,
                    Special::LanemaskEq => eq,
                    Special::LanemaskLt => eq - 1,
                    Special::LanemaskLe => eq | (eq - 1),
                    Special::LanemaskGt => !(eq | (eq - 1)),
                    Special::LanemaskGe => !(eq - 1),
                };
            }
            // Collective: run by `collective` where the whole block is; never generated
            // elsewhere for programs `eval` accepts.
            Stmt::Shfl { .. }
            | Stmt::VoteLoop { .. }
            | Stmt::Vote { .. }
            | Stmt::Redux { .. }
            | Stmt::Match { .. }
            | Stmt::Bar
            | Stmt::BarRed { .. }
            | Stmt::ShRound { .. }
            | Stmt::Handoff { .. }
            | Stmt::CpAsync { .. }
            | Stmt::AtomOwn { .. }
            | Stmt::RedAny { .. }
            | Stmt::StShared { .. }
            | Stmt::LdShared { .. }
            | Stmt::AtomShared { .. }
            | Stmt::Masked { .. }
            | Stmt::GAtomOwn { .. }
            | Stmt::GRedAny { .. }
            | Stmt::GAtomBit { .. }
            | Stmt::NarrowRound { .. } => {}
        }
        Flow::Next
    }
}

/// The arm of the branch `s` that thread `g` takes (an empty one for other statements).
fn arm<'s>(s: &'s Stmt, g: &Regs) -> &'s [Stmt] {
    let (taken, then, els) = match s {
        Stmt::If { p, neg, then, els } => (g.p[*p as usize] != *neg, then, els),
        Stmt::BlockIf { odd, then, els } => ((g.ctaid % 2 == 1) == *odd, then, els),
        Stmt::WarpIf { odd, then, els } => ((g.tid / 32 % 2 == 1) == *odd, then, els),
        _ => return &[],
    };
    if taken { then } else { els }
}

/// The iterations of a per-warp loop ([`Stmt::WarpLoop`]) in thread `g`'s warp.
fn warp_trips(trips: u8, extra: u8, odd: bool, g: &Regs) -> u8 {
    if (g.tid / 32 % 2 == 1) == odd {
        trips + extra
    } else {
        trips
    }
}

/// A block's shared words and its region of `gm`, for each block.
struct Mem<'a> {
    shared: &'a mut [Vec<u32>],
    global: &'a mut [Vec<u32>],
}

/// The new value of a word after an atomic `op` with operands `b` and `c` on `old`.
fn own_atom(op: OwnAtom, old: u32, b: u32, c: u32) -> u32 {
    match op {
        OwnAtom::Add => old.wrapping_add(b),
        OwnAtom::MinU => old.min(b),
        OwnAtom::MaxS => (old as i32).max(b as i32) as u32,
        OwnAtom::And => old & b,
        OwnAtom::Or => old | b,
        OwnAtom::Xor => old ^ b,
        OwnAtom::Exch => b,
        OwnAtom::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        OwnAtom::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        OwnAtom::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
    }
}

/// `n` bytes at byte `at` of little-endian words.
fn load_bytes(m: &[u32], at: u32, n: u32) -> u32 {
    (0..n).fold(0u32, |v, k| {
        let b = at + k;
        v | ((m[(b / 4) as usize] >> (8 * (b % 4))) & 0xff) << (8 * k)
    })
}

fn store_bytes(m: &mut [u32], at: u32, n: u32, v: u32) {
    for k in 0..n {
        let b = at + k;
        let (w, shift) = ((b / 4) as usize, 8 * (b % 4));
        m[w] = (m[w] & !(0xff << shift)) | ((v >> (8 * k)) & 0xff) << shift;
    }
}

/// `Stmt::CvtN`: the source read and the result written as the conversion's kinds say.
fn cvt_narrow(g: &mut Regs, op: NCvt, d: u8, a: u8) {
    let (_, dk, sk) = op.parts();
    let (d, a) = (d as usize, a as usize);
    let (h, dd, f) = (NH as usize, ND as usize, NF as usize);
    match (dk, sk) {
        (_, Kind::F) => g.h[d % h] = op.float_to(g.f[a % f]),
        (Kind::F, _) => g.f[d % f] = op.to_float(g.h[a % h]),
        _ => {
            let x = match sk {
                Kind::R => u64::from(g.r[a]),
                Kind::H => u64::from(g.h[a % h]),
                _ => g.rd[a % dd],
            };
            let v = op.int(x);
            match dk {
                Kind::R => g.r[d] = v as u32,
                Kind::H => g.h[d % h] = v as u16,
                _ => g.rd[d % dd] = v,
            }
        }
    }
}

/// `sh` index of the thread's own word `%r{sel} % 4`.
fn own(g: &Regs, sel: u8) -> usize {
    (g.tid * (SHARED_WORDS / DIFF_BLOCK) + (g.r[sel as usize] & 3)) as usize
}

/// `sh` index `%r{i} % SHARED_WORDS`.
fn any(g: &Regs, i: u8) -> usize {
    (g.r[i as usize] % SHARED_WORDS) as usize
}
