//! Well-typed PTX from fuzzer bytes: a small program AST drawn from [`Unstructured`], printed as
//! a PTX module (`print.rs`), and run by [`Program::eval`] (`eval.rs`), an interpreter written
//! from the PTX ISA's definitions, so that the differential fuzzer can compare it bit for bit
//! with the translated kernel. Programs for the interpreter ([`Features::DIFF`]) keep warp
//! operations, barriers and shared memory at the kernel's top level, where every thread of the
//! block runs them together, and touch shared memory only in patterns without races.
//!
//! Every program is valid PTX by construction: registers are declared once per function and
//! written before they are read, loops count to a bound, calls go to functions defined earlier
//! (no recursion). Random text rarely gets past the checker; these reach lowering, the
//! structurizer, the SIMT pass and emission.

#[cfg(test)]
mod construct_tests;
mod eval;
mod narrow;
mod print;
mod shrink;

use arbitrary::{Result, Unstructured};

pub use narrow::{HOp, NCvt, NarrowTy};
pub use print::batch_ptx;

/// 32-bit registers `%r0..` per function.
pub const NR: u8 = 8;
/// 64-bit registers `%rd0..`.
pub const ND: u8 = 4;
/// f32 registers `%f0..`.
pub const NF: u8 = 4;
/// Predicates `%p0..`.
pub const NP: u8 = 4;
/// f64 registers `%fd0..`.
pub const NFD: u8 = 2;
/// 16-bit registers `%rs0..` (an even number: two are stored to a word).
pub const NH: u8 = 4;
/// Words the kernel stores per thread: every `%r`, every `%rd` as two words, every `%f`, every
/// `%fd` as two words (floats with any NaN made the canonical one: the ISA leaves payloads open),
/// every two `%rs` as one word.
pub const OUT_WORDS: u32 = NR as u32 + 2 * ND as u32 + NF as u32 + 2 * NFD as u32 + NH as u32 / 2;
/// Words of the `.shared` array.
const SHARED_WORDS: u32 = 256;
/// Words of each block's region of the `.global` array `gm`: a copy of the shared layout (four
/// words a thread), then one word per warp for the contended bit atomics.
pub const GLOBAL_WORDS: u32 = SHARED_WORDS + DIFF_BLOCK / 32;
/// Blocks `gm` has a region for.
pub const GLOBAL_BLOCKS: u32 = 4;
/// Threads per block the shared-memory patterns of [`Features::DIFF`] need: each thread owns
/// `SHARED_WORDS / DIFF_BLOCK` words.
pub const DIFF_BLOCK: u32 = 64;
/// Nesting of ifs and loops.
const MAX_DEPTH: u32 = 4;
/// Most statements in all of a program.
const MAX_STMTS: u32 = 96;
/// Most `.func`s.
const MAX_FUNCS: u8 = 3;

/// What a generated program may contain.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub control: bool,
    pub calls: bool,
    pub floats: bool,
    /// Shuffles, votes and barriers.
    pub warps: bool,
    /// `.shared` loads, stores and atomics.
    pub shared: bool,
    /// `.global` loads, stores and atomics on the array `gm` (in rounds, like shared memory).
    pub global: bool,
    /// Warp operations with member masks of fewer than all lanes, in a branch only the members
    /// take.
    pub masked: bool,
    /// 16-bit registers, their arithmetic, conversions among 8-, 16-, 32- and 64-bit types.
    pub narrow: bool,
    /// Warp operations, barriers and shared memory only at the kernel's top level and shared
    /// memory only in race-free rounds (what [`Program::eval`] models).
    pub lockstep: bool,
}

impl Features {
    /// Everything: for translation.
    pub const ALL: Features = Features {
        control: true,
        calls: true,
        floats: true,
        warps: true,
        shared: true,
        global: true,
        masked: true,
        narrow: true,
        lockstep: false,
    };
    /// Integer code, branches, loops and calls, each thread on its own.
    pub const THREAD_LOCAL: Features = Features {
        control: true,
        calls: true,
        floats: false,
        warps: false,
        shared: false,
        global: false,
        masked: false,
        narrow: true,
        lockstep: true,
    };
    /// Everything [`Program::eval`] runs: [`Features::ALL`] with warp operations, barriers and
    /// shared memory in lockstep (blocks of [`DIFF_BLOCK`] threads).
    pub const DIFF: Features = Features {
        lockstep: true,
        ..Features::ALL
    };
}

#[derive(Clone, Copy, Debug)]
pub enum Src {
    Reg(u8),
    Imm(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    MulLo,
    MulHiU,
    MulHiS,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    /// The divisor is `b | 1`: PTX leaves division by zero unspecified.
    DivU,
    RemU,
    AddSatS,
    Mul24LoU,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Not,
    Neg,
    Popc,
    Clz,
    Brev,
    AbsS,
    Cnot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tern {
    MadLo,
    MadHiU,
    BfeU,
    BfeS,
    Bfi,
    Prmt,
    SadU,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wide {
    /// `mul.wide.u32 %rd, %r, %r`
    MulWideU,
    MulWideS,
    /// `add.u64 %rd, %rd, %rd`
    Add64,
    Xor64,
    /// `shl.b64 %rd, %rd, %r`
    Shl64,
    ShrU64,
    /// `cvt.u64.u32 %rd, %r`
    CvtU,
    /// `cvt.s64.s32 %rd, %r`
    CvtS,
    /// `cvt.u32.u64 %r, %rd` (the only one writing a 32-bit register)
    Trunc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredOp {
    And,
    Or,
    Xor,
    Not,
}

/// f32 operations on `%f`; those naming `%r` or `%p` say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    Fma,
    Min,
    Max,
    Abs,
    Neg,
    /// `cvt.rn.f32.u32 %f, %r`
    FromInt,
    /// `cvt.rn.f32.s32 %f, %r`
    FromS,
    /// `cvt.rzi.u32.f32 %r, %f`
    ToInt,
    /// `cvt.rzi.s32.f32 %r, %f`
    ToS,
    /// `cvt.rni.s32.f32 %r, %f`
    ToSRni,
    /// `cvt.rmi.f32.f32`, `cvt.rpi`, `cvt.rzi`, `cvt.rni`: rounding to an integral value.
    Floor,
    Ceil,
    Trunc,
    RoundEven,
    /// `mov.b32 %f, %r`
    FromBits,
    /// `mov.b32 %r, %f`, any NaN made canonical
    ToBits,
    /// `selp.f32 %f, %f, %f, %p`
    Selp,
}

pub const FLOAT_OPS: [FloatOp; 22] = [
    FloatOp::Add,
    FloatOp::Sub,
    FloatOp::Mul,
    FloatOp::Div,
    FloatOp::Sqrt,
    FloatOp::Fma,
    FloatOp::Min,
    FloatOp::Max,
    FloatOp::Abs,
    FloatOp::Neg,
    FloatOp::FromInt,
    FloatOp::FromS,
    FloatOp::ToInt,
    FloatOp::ToS,
    FloatOp::ToSRni,
    FloatOp::Floor,
    FloatOp::Ceil,
    FloatOp::Trunc,
    FloatOp::RoundEven,
    FloatOp::FromBits,
    FloatOp::ToBits,
    FloatOp::Selp,
];

/// f64 operations on `%fd`; those naming other registers say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DblOp {
    Add,
    Mul,
    Fma,
    Div,
    Sqrt,
    /// `cvt.f64.f32 %fd, %f`
    FromF,
    /// `cvt.rn.f32.f64 %f, %fd`
    ToF,
    /// `mov.b64 %fd, %rd`
    FromBits,
    /// `mov.b64 %rd, %fd`, any NaN made canonical
    ToBits,
}

/// `setp.CMP.f32`: ordered comparisons are false and unordered ones true where an operand is
/// NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// Special registers that depend only on the thread's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Laneid,
    TidX,
    NtidX,
    CtaidX,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
}

/// `redux.sync.OP`
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redux {
    Add,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
}

/// Atomic operations on a word each thread owns: every result is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnAtom {
    Add,
    MinU,
    MaxS,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    Ballot,
    Any,
    All,
    Uni,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atom {
    Add,
    Max,
    Exch,
    Cas,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Bin {
        op: Bin,
        signed: bool,
        d: u8,
        a: u8,
        b: Src,
    },
    Un {
        op: Un,
        d: u8,
        a: u8,
    },
    Tern {
        op: Tern,
        d: u8,
        a: u8,
        b: Src,
        c: Src,
    },
    Wide {
        op: Wide,
        d: u8,
        a: u8,
        b: u8,
    },
    Mov {
        d: u8,
        s: Src,
    },
    Selp {
        d: u8,
        a: u8,
        b: Src,
        p: u8,
    },
    Setp {
        cmp: Cmp,
        signed: bool,
        p: u8,
        a: u8,
        b: Src,
    },
    Pred {
        op: PredOp,
        p: u8,
        a: u8,
        b: u8,
    },
    Float {
        op: FloatOp,
        d: u8,
        a: u8,
        b: u8,
        c: u8,
    },
    /// `if (p != neg) { then } else { els }`, written with branches.
    If {
        p: u8,
        neg: bool,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// A do-while loop of `trips` (at least 1) iterations on its own counter.
    Loop {
        trips: u8,
        body: Vec<Stmt>,
    },
    /// `@p bra` to the end of the innermost loop.
    Break {
        p: u8,
        neg: bool,
    },
    /// `%r{d} = f{f}(%r{a}, %r{b})`
    Call {
        f: u8,
        d: u8,
        a: u8,
        b: u8,
    },
    /// `%f{d} = bits` (`mov.b32 %f, 0fXXXXXXXX`)
    MovF {
        d: u8,
        bits: u32,
    },
    SetpF {
        cmp: FCmp,
        p: u8,
        a: u8,
        b: u8,
    },
    Dbl {
        op: DblOp,
        d: u8,
        a: u8,
        b: u8,
        c: u8,
    },
    Special {
        d: u8,
        reg: Special,
    },
    /// `c` is the clamp and segment mask operand.
    Shfl {
        mode: ShflMode,
        d: u8,
        a: u8,
        lane: Src,
        c: u32,
    },
    Redux {
        op: Redux,
        d: u8,
        a: u8,
    },
    /// `match.any.sync.b32` or `match.all.sync.b32`
    Match {
        all: bool,
        d: u8,
        a: u8,
    },
    /// Every thread stores `%r{v}` to its own word `sel & 3`, a barrier, every thread loads
    /// `sh[%r{i} % 256]` into `%r{d}`, a barrier.
    ShRound {
        v: u8,
        sel: u8,
        d: u8,
        i: u8,
    },
    /// An atomic on the thread's own word `sel & 3`, returning the old value; a barrier.
    AtomOwn {
        op: OwnAtom,
        d: u8,
        sel: u8,
        v: u8,
        w: u8,
    },
    /// `red.shared.OP [sh + %r{i} % 256], %r{v}` by every thread (an operation whose result
    /// does not depend on the order), a barrier, the word loaded into `%r{d}`, a barrier.
    RedAny {
        op: Redux,
        d: u8,
        i: u8,
        v: u8,
    },
    Vote {
        op: Vote,
        d: u8,
        p: u8,
    },
    Bar,
    /// `sh[%r{i} % 256] = %r{v}`
    StShared {
        i: u8,
        v: u8,
    },
    LdShared {
        d: u8,
        i: u8,
    },
    AtomShared {
        op: Atom,
        d: u8,
        i: u8,
        v: u8,
        w: u8,
    },
    /// Lanes in `mask` (a constant) branch into a block that runs `pre` (thread-local code,
    /// which may diverge further) and then the warp operation `op` with `mask` as its member
    /// mask; the other lanes skip both. Every lane the mask names reaches `op`, as the ISA
    /// requires, and a shuffle's mask is a union of its segments (for a butterfly, with every
    /// segment below a member one), so that every source lane is a member.
    Masked {
        mask: u32,
        pre: Vec<Stmt>,
        op: Box<Stmt>,
    },
    /// [`Stmt::AtomOwn`] on the thread's own word of its block's region of `gm`.
    GAtomOwn {
        op: OwnAtom,
        d: u8,
        sel: u8,
        v: u8,
        w: u8,
    },
    /// [`Stmt::RedAny`] with `red.global` on the block's region of `gm`.
    GRedAny {
        op: Redux,
        d: u8,
        i: u8,
        v: u8,
    },
    /// `atom.global.{and,or,xor}.b32` by every lane of a warp on the warp's word, the operand
    /// limited to the lane's own bit (`and`: every other bit set), so that the old value's own
    /// bit, kept in `%r{d}`, does not depend on the order; a barrier.
    GAtomBit {
        op: Redux,
        d: u8,
        v: u8,
    },
    /// Every thread stores `%rs{v}` as `ty` to a byte or half-word of its own words in shared
    /// memory or `gm`, picked by `%r{sel}`; a barrier; a load as `load` of any byte or
    /// half-word, picked by `%r{i}`, into `%rs{d}` (or `%r{d}` when `to32`); a barrier.
    NarrowRound {
        global: bool,
        ty: NarrowTy,
        load: NarrowTy,
        to32: bool,
        v: u8,
        sel: u8,
        d: u8,
        i: u8,
    },
    /// 16-bit arithmetic on `%rs`: `%rs{d} = %rs{a} op b`, where a register `b` is `%rs{b %
    /// NH}`, or `%r{b}` for the shifts' amount.
    Half {
        op: HOp,
        d: u8,
        a: u8,
        b: Src,
    },
    /// `cvt` among 8-, 16-, 32- and 64-bit integers and f32; the registers' kinds follow `op`.
    CvtN {
        op: NCvt,
        d: u8,
        a: u8,
    },
}

/// A `.func (.reg .b32 ret) fN(.reg .b32 a, .reg .b32 b)`: `%r0 = a`, `%r1 = b`, the other
/// registers the constants, its body, and `%r0` returned.
#[derive(Clone, Debug)]
pub struct Func {
    pub init: [u32; NR as usize],
    pub body: Vec<Stmt>,
}

/// A kernel `k(.param .u64 out)`: each thread starts with `%r{i} = gtid * mul[i] + add[i]`,
/// runs the body, and stores its registers to `out[gtid * OUT_WORDS ..]`.
#[derive(Clone, Debug)]
pub struct Program {
    pub funcs: Vec<Func>,
    pub mul: [u32; NR as usize],
    pub add: [u32; NR as usize],
    pub body: Vec<Stmt>,
    pub features: Features,
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    features: Features,
    /// Generating a function's body (no collectives there in lockstep mode).
    in_func: bool,
    stmts: u32,
    /// Functions a call may name (those defined before the one being generated).
    callable: u8,
}

impl Gen<'_, '_> {
    fn reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NR - 1)
    }
    fn wide_reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=ND - 1)
    }
    fn pred(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NP - 1)
    }
    fn src(&mut self) -> Result<Src> {
        Ok(if self.u.ratio(1, 3)? {
            Src::Imm(self.imm()?)
        } else {
            Src::Reg(self.reg()?)
        })
    }
    /// Mostly the values where integer instructions have edges.
    fn imm(&mut self) -> Result<u32> {
        const EDGES: [u32; 12] = [
            0,
            1,
            2,
            7,
            31,
            32,
            33,
            0xff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            0xffff_ffff,
        ];
        Ok(if self.u.ratio(1, 2)? {
            *self.u.choose(&EDGES)?
        } else {
            self.u.arbitrary()?
        })
    }

    fn block(&mut self, depth: u32, in_loop: bool) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        while self.stmts < MAX_STMTS && !self.u.is_empty() && self.u.ratio(7, 8)? {
            self.stmts += 1;
            out.push(self.stmt(depth, in_loop)?);
        }
        Ok(out)
    }

    fn stmt(&mut self, depth: u32, in_loop: bool) -> Result<Stmt> {
        let f = self.features;
        let nest = f.control && depth < MAX_DEPTH;
        // Where every thread of the block is sure to be: the kernel's top level.
        let collective = depth == 0 && !in_loop && !self.in_func;
        // The top level is a small part of a program: collectives get a larger share there.
        if f.lockstep && collective && (f.warps || f.shared || f.global) && self.u.ratio(1, 2)? {
            return self.collective_stmt(depth);
        }
        loop {
            let s = match self.u.int_in_range(0..=24u8)? {
                0..=3 => Stmt::Bin {
                    op: *self.u.choose(&[
                        Bin::Add,
                        Bin::Sub,
                        Bin::MulLo,
                        Bin::MulHiU,
                        Bin::MulHiS,
                        Bin::And,
                        Bin::Or,
                        Bin::Xor,
                        Bin::Shl,
                        Bin::ShrU,
                        Bin::ShrS,
                        Bin::MinU,
                        Bin::MinS,
                        Bin::MaxU,
                        Bin::MaxS,
                        Bin::DivU,
                        Bin::RemU,
                        Bin::AddSatS,
                        Bin::Mul24LoU,
                    ])?,
                    signed: self.u.arbitrary()?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                },
                4 => Stmt::Un {
                    op: *self.u.choose(&[
                        Un::Not,
                        Un::Neg,
                        Un::Popc,
                        Un::Clz,
                        Un::Brev,
                        Un::AbsS,
                        Un::Cnot,
                    ])?,
                    d: self.reg()?,
                    a: self.reg()?,
                },
                5 => Stmt::Tern {
                    op: *self.u.choose(&[
                        Tern::MadLo,
                        Tern::MadHiU,
                        Tern::BfeU,
                        Tern::BfeS,
                        Tern::Bfi,
                        Tern::Prmt,
                        Tern::SadU,
                    ])?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                    c: self.src()?,
                },
                6 => {
                    let op = *self.u.choose(&[
                        Wide::MulWideU,
                        Wide::MulWideS,
                        Wide::Add64,
                        Wide::Xor64,
                        Wide::Shl64,
                        Wide::ShrU64,
                        Wide::CvtU,
                        Wide::CvtS,
                        Wide::Trunc,
                    ])?;
                    // Operand and result kinds follow the operation (see `print_stmt`).
                    let (d, a, b) = match op {
                        Wide::MulWideU | Wide::MulWideS => {
                            (self.wide_reg()?, self.reg()?, self.reg()?)
                        }
                        Wide::Add64 | Wide::Xor64 => {
                            (self.wide_reg()?, self.wide_reg()?, self.wide_reg()?)
                        }
                        Wide::Shl64 | Wide::ShrU64 => {
                            (self.wide_reg()?, self.wide_reg()?, self.reg()?)
                        }
                        Wide::CvtU | Wide::CvtS => (self.wide_reg()?, self.reg()?, 0),
                        Wide::Trunc => (self.reg()?, self.wide_reg()?, 0),
                    };
                    Stmt::Wide { op, d, a, b }
                }
                7 => Stmt::Mov {
                    d: self.reg()?,
                    s: self.src()?,
                },
                8 => Stmt::Selp {
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                    p: self.pred()?,
                },
                9 | 10 => Stmt::Setp {
                    cmp: *self
                        .u
                        .choose(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])?,
                    signed: self.u.arbitrary()?,
                    p: self.pred()?,
                    a: self.reg()?,
                    b: self.src()?,
                },
                11 => Stmt::Pred {
                    op: *self
                        .u
                        .choose(&[PredOp::And, PredOp::Or, PredOp::Xor, PredOp::Not])?,
                    p: self.pred()?,
                    a: self.pred()?,
                    b: self.pred()?,
                },
                12 if f.floats => self.float()?,
                13 | 14 if nest => Stmt::If {
                    p: self.pred()?,
                    neg: self.u.arbitrary()?,
                    then: self.block(depth + 1, in_loop)?,
                    els: if self.u.arbitrary()? {
                        self.block(depth + 1, in_loop)?
                    } else {
                        Vec::new()
                    },
                },
                15 if nest => Stmt::Loop {
                    trips: self.u.int_in_range(1..=5)?,
                    body: self.block(depth + 1, true)?,
                },
                16 if in_loop => Stmt::Break {
                    p: self.pred()?,
                    neg: self.u.arbitrary()?,
                },
                17 if f.calls && self.callable > 0 => Stmt::Call {
                    f: self.u.int_in_range(0..=self.callable - 1)?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.reg()?,
                },
                18 if f.warps && (!f.lockstep || collective) => self.warp()?,
                19 if f.shared && !f.lockstep => match self.u.int_in_range(0..=2u8)? {
                    0 => Stmt::StShared {
                        i: self.reg()?,
                        v: self.reg()?,
                    },
                    1 => Stmt::LdShared {
                        d: self.reg()?,
                        i: self.reg()?,
                    },
                    _ => Stmt::AtomShared {
                        op: *self
                            .u
                            .choose(&[Atom::Add, Atom::Max, Atom::Exch, Atom::Cas])?,
                        d: self.reg()?,
                        i: self.reg()?,
                        v: self.reg()?,
                        w: self.reg()?,
                    },
                },
                19 if f.shared && collective => self.shared_round()?,
                20 if f.floats => self.float()?,
                21 => Stmt::Special {
                    d: self.reg()?,
                    reg: *self.u.choose(&[
                        Special::Laneid,
                        Special::TidX,
                        Special::NtidX,
                        Special::CtaidX,
                        Special::LanemaskEq,
                        Special::LanemaskLt,
                        Special::LanemaskLe,
                        Special::LanemaskGt,
                        Special::LanemaskGe,
                    ])?,
                },
                22 if (f.warps || f.shared || f.global) && (!f.lockstep || collective) => {
                    self.collective_stmt(depth)?
                }
                23 | 24 if f.narrow => self.narrow()?,
                _ => continue,
            };
            return Ok(s);
        }
    }

    fn fidx(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NF - 1)
    }

    /// Float bits: mostly the values where float operations have edges.
    fn fbits(&mut self) -> Result<u32> {
        const EDGES: [u32; 20] = [
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x3f80_0000, // 1
            0xbf80_0000, // -1
            0x3f00_0000, // 0.5
            0x3fc0_0000, // 1.5
            0x4020_0000, // 2.5
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // NaN
            0x0000_0001, // smallest subnormal
            0x807f_ffff, // largest negative subnormal
            0x0080_0000, // smallest normal
            0x7f7f_ffff, // largest finite
            0x4f80_0000, // 2^32
            0x4f00_0000, // 2^31
            0xcf00_0000, // -2^31
            0x4b00_0000, // 2^23
            0x3eff_ffff, // just below 0.5
            0x3400_0000, // 2^-23
        ];
        Ok(if self.u.ratio(2, 3)? {
            *self.u.choose(&EDGES)?
        } else {
            self.u.arbitrary()?
        })
    }

    fn float(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=5u8)? {
            0 => Stmt::MovF {
                d: self.fidx()?,
                bits: self.fbits()?,
            },
            1 => Stmt::SetpF {
                cmp: *self.u.choose(&[
                    FCmp::Eq,
                    FCmp::Ne,
                    FCmp::Lt,
                    FCmp::Le,
                    FCmp::Gt,
                    FCmp::Ge,
                    FCmp::Equ,
                    FCmp::Neu,
                    FCmp::Ltu,
                    FCmp::Leu,
                    FCmp::Gtu,
                    FCmp::Geu,
                    FCmp::Num,
                    FCmp::Nan,
                ])?,
                p: self.pred()?,
                a: self.fidx()?,
                b: self.fidx()?,
            },
            2 => Stmt::Dbl {
                op: *self.u.choose(&[
                    DblOp::Add,
                    DblOp::Mul,
                    DblOp::Fma,
                    DblOp::Div,
                    DblOp::Sqrt,
                    DblOp::FromF,
                    DblOp::ToF,
                    DblOp::FromBits,
                    DblOp::ToBits,
                ])?,
                d: self.u.arbitrary()?,
                a: self.u.arbitrary()?,
                b: self.u.arbitrary()?,
                c: self.u.arbitrary()?,
            },
            _ => Stmt::Float {
                op: *self.u.choose(&FLOAT_OPS)?,
                d: self.fidx()?,
                a: self.fidx()?,
                b: self.fidx()?,
                c: self.fidx()?,
            },
        })
    }

    fn warp(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=4u8)? {
            0 => {
                let mode = *self.u.choose(&[
                    ShflMode::Idx,
                    ShflMode::Up,
                    ShflMode::Down,
                    ShflMode::Bfly,
                ])?;
                // Whole warp (31, or 0 for up), segments of 8, 16 and 4 lanes.
                let c = *self.u.choose(&[0x1f, 0x0, 0x1807, 0x100f, 0x1c03])?;
                Stmt::Shfl {
                    mode,
                    d: self.reg()?,
                    a: self.reg()?,
                    lane: match self.src()? {
                        Src::Imm(v) => Src::Imm(v & 31),
                        r => r,
                    },
                    c,
                }
            }
            1 => Stmt::Vote {
                op: *self
                    .u
                    .choose(&[Vote::Ballot, Vote::Any, Vote::All, Vote::Uni])?,
                d: self.reg()?,
                p: self.pred()?,
            },
            2 => Stmt::Redux {
                op: self.redux_op()?,
                d: self.reg()?,
                a: self.reg()?,
            },
            3 => Stmt::Match {
                all: self.u.arbitrary()?,
                d: self.reg()?,
                a: self.reg()?,
            },
            _ => Stmt::Bar,
        })
    }

    /// A statement for where the whole block is present, of a kind `features` allows.
    fn collective_stmt(&mut self, depth: u32) -> Result<Stmt> {
        let f = self.features;
        let mut kinds = Vec::new();
        if f.shared {
            kinds.push(0u8);
        }
        if f.warps {
            kinds.push(1);
            if f.masked {
                kinds.push(2);
            }
        }
        if f.global {
            kinds.push(3);
        }
        if f.narrow && (f.shared || f.global) {
            kinds.push(4);
        }
        match self.u.choose(&kinds).copied().unwrap_or(1) {
            0 => self.shared_round(),
            2 => self.masked(depth),
            3 => self.global_round(),
            4 => {
                let global = f.global && (!f.shared || self.u.arbitrary()?);
                self.narrow_round(global)
            }
            _ => self.warp(),
        }
    }

    /// A warp operation in a branch that only the lanes of its member mask take.
    fn masked(&mut self, depth: u32) -> Result<Stmt> {
        let mut op = self.warp()?;
        if matches!(op, Stmt::Bar) {
            op = Stmt::Vote {
                op: Vote::Ballot,
                d: self.reg()?,
                p: self.pred()?,
            };
        }
        let mask = if let Stmt::Shfl { mode, c, .. } = &mut op {
            // Whole segments of 4, 8 or 16 lanes, so that every source lane is a member (the
            // ISA leaves a read from a lane outside the mask undefined).
            let (seg, width) = *self.u.choose(&[(0x1cu32, 4u32), (0x18, 8), (0x10, 16)])?;
            *c = (seg << 8) | if *mode == ShflMode::Up { 0 } else { width - 1 };
            let segments = 32 / width;
            let pick = self.u.arbitrary::<u32>()? & ((1 << segments) - 1);
            let pick = if pick == 0 { 1 } else { pick };
            // A butterfly may also read from any lower segment (its only bound is the
            // segment's top lane): every segment below a member one is a member too.
            let pick = if *mode == ShflMode::Bfly {
                u32::MAX >> pick.leading_zeros()
            } else {
                pick
            };
            (0..segments)
                .filter(|s| pick >> s & 1 == 1)
                .fold(0u32, |m, s| {
                    m | (((1u64 << width) - 1) as u32) << (s * width)
                })
        } else if self.u.arbitrary()? {
            *self.u.choose(&[
                0x5555_5555,
                0xaaaa_aaaa,
                0x0000_ffff,
                0xffff_0000,
                0x8000_0001,
                0x0f0f_00ff,
                0x0000_0001,
                0x8000_0000,
                0x7fff_ffff,
                0xffff_fffe,
            ])?
        } else {
            self.u.arbitrary::<u32>()? | 1 << self.u.int_in_range(0..=31u32)?
        };
        let pre = if self.u.arbitrary()? {
            self.block(depth + 1, false)?
        } else {
            Vec::new()
        };
        Ok(Stmt::Masked {
            mask,
            pre,
            op: Box::new(op),
        })
    }

    fn own_atom_op(&mut self) -> Result<OwnAtom> {
        Ok(*self.u.choose(&[
            OwnAtom::Add,
            OwnAtom::MinU,
            OwnAtom::MaxS,
            OwnAtom::And,
            OwnAtom::Or,
            OwnAtom::Xor,
            OwnAtom::Exch,
            OwnAtom::Cas,
            OwnAtom::Inc,
            OwnAtom::Dec,
        ])?)
    }

    fn global_round(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=2u8)? {
            0 => Stmt::GAtomOwn {
                op: self.own_atom_op()?,
                d: self.reg()?,
                sel: self.reg()?,
                v: self.reg()?,
                w: self.reg()?,
            },
            1 => Stmt::GRedAny {
                op: self.redux_op()?,
                d: self.reg()?,
                i: self.reg()?,
                v: self.reg()?,
            },
            _ => Stmt::GAtomBit {
                op: *self.u.choose(&[Redux::And, Redux::Or, Redux::Xor])?,
                d: self.reg()?,
                v: self.reg()?,
            },
        })
    }

    fn redux_op(&mut self) -> Result<Redux> {
        Ok(*self.u.choose(&[
            Redux::Add,
            Redux::MinU,
            Redux::MinS,
            Redux::MaxU,
            Redux::MaxS,
            Redux::And,
            Redux::Or,
            Redux::Xor,
        ])?)
    }

    fn shared_round(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=2u8)? {
            0 => Stmt::ShRound {
                v: self.reg()?,
                sel: self.reg()?,
                d: self.reg()?,
                i: self.reg()?,
            },
            1 => Stmt::AtomOwn {
                op: self.own_atom_op()?,
                d: self.reg()?,
                sel: self.reg()?,
                v: self.reg()?,
                w: self.reg()?,
            },
            _ => Stmt::RedAny {
                op: self.redux_op()?,
                d: self.reg()?,
                i: self.reg()?,
                v: self.reg()?,
            },
        })
    }
}

impl Program {
    /// A program with what `features` allows, drawn from `u`.
    pub fn generate(u: &mut Unstructured<'_>, features: Features) -> Result<Program> {
        let nfuncs = if features.calls {
            u.int_in_range(0..=MAX_FUNCS)?
        } else {
            0
        };
        let mut g = Gen {
            u,
            features,
            in_func: true,
            stmts: 0,
            callable: 0,
        };
        let mut funcs = Vec::new();
        for i in 0..nfuncs {
            g.callable = i;
            // Functions hold no barriers or warp operations: a call from divergent code would
            // make them divergent too.
            let saved = g.features;
            g.features.warps = false;
            g.features.global = false;
            let mut init = [0u32; NR as usize];
            for v in &mut init {
                *v = g.imm()?;
            }
            if features.lockstep {
                g.features.shared = false;
            }
            let body = g.block(1, false)?;
            g.features = saved;
            funcs.push(Func { init, body });
        }
        g.in_func = false;
        g.callable = nfuncs;
        let (mut mul, mut add) = ([0u32; NR as usize], [0u32; NR as usize]);
        for (m, a) in mul.iter_mut().zip(&mut add) {
            *m = g.imm()?;
            *a = g.imm()?;
        }
        let body = g.block(0, false)?;
        Ok(Program {
            funcs,
            mul,
            add,
            body,
            features,
        })
    }
}

/// `n` pseudo-random bytes from `seed` (xorshift64*), for drawing programs without libFuzzer.
pub fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(text: &str) -> ptxvk_translator::Program {
        use ptxvk_translator::SourceFile;
        ptxvk_translator::Program::parse(SourceFile::new("g.ptx", text.to_string()))
            .unwrap_or_else(|d| panic!("{}\n{text}", d.short()))
    }

    /// Every program is valid PTX that translates for lavapipe, the larger ones too, and the
    /// interpreter runs exactly the lockstep ones.
    #[test]
    fn generated_programs_check_and_translate() {
        use ptxvk_translator::DeviceProfile;
        let mut lines = 0;
        for seed in 0..150 {
            let data = seeded_bytes(seed, 4096);
            let features = match seed % 3 {
                0 => Features::ALL,
                1 => Features::THREAD_LOCAL,
                _ => Features::DIFF,
            };
            let p = Program::generate(&mut Unstructured::new(&data), features).unwrap();
            let text = p.to_ptx();
            lines += text.lines().count();
            checked(&text)
                .translate_kernel("k", &DeviceProfile::lavapipe())
                .unwrap_or_else(|d| panic!("seed {seed}:\n{}\n{text}", d.short()));
            assert_eq!(p.eval(2, DIFF_BLOCK).is_some(), seed % 3 != 0);
        }
        // Programs of some size, not just the kernel's frame (about 60 lines).
        assert!(lines > 150 * 80, "{lines}");
    }

    /// Many programs in one kernel, each with its own functions, still check and translate.
    #[test]
    fn batches_translate() {
        use ptxvk_translator::DeviceProfile;
        let programs: Vec<Program> = (0..12)
            .map(|seed| {
                let data = seeded_bytes(seed, 4096);
                Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap()
            })
            .collect();
        let text = batch_ptx(&programs, 128);
        checked(&text)
            .translate_kernel("k", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{}\n{text}", d.short()));
    }

    /// Every candidate is smaller or simpler, and still valid PTX.
    #[test]
    fn shrinking_keeps_programs_valid() {
        let data = seeded_bytes(7, 4096);
        let p = Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap();
        let candidates = p.shrink_candidates();
        assert!(!candidates.is_empty());
        for c in &candidates {
            assert!(c.size() <= p.size());
            checked(&c.to_ptx());
            assert!(c.eval(2, DIFF_BLOCK).is_some());
        }
    }
}
