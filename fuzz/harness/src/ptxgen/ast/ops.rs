//! Operand sources and the operators of each instruction group.

use crate::ptxgen::LOCAL_WORDS;

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

/// `bar.red.OP`: a barrier that also combines a predicate over the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRed {
    /// `.popc.u32`: how many threads' predicate is true, into `%r`.
    Popc,
    /// `.and.pred` / `.or.pred`, into a predicate.
    And,
    Or,
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

/// What a [`Stmt::Local`](super::Stmt::Local) moves: `%r{r}` (and the registers after it,
/// modulo their count, for a vector) to or from `lm`. Words are at `%r{i} % 16` rounded down to
/// the vector's length, bytes at `%r{i} % 64`, half-words at `%r{i} % 32`; narrow loads extend
/// to 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalOp {
    St,
    Ld,
    St2,
    Ld2,
    St4,
    Ld4,
    StU8,
    LdU8,
    LdS8,
    StU16,
    LdS16,
}

impl LocalOp {
    /// Whether it stores, and the bytes of each element and the elements it moves.
    pub fn shape(self) -> (bool, u32, u32) {
        match self {
            LocalOp::St => (true, 4, 1),
            LocalOp::Ld => (false, 4, 1),
            LocalOp::St2 => (true, 4, 2),
            LocalOp::Ld2 => (false, 4, 2),
            LocalOp::St4 => (true, 4, 4),
            LocalOp::Ld4 => (false, 4, 4),
            LocalOp::StU8 => (true, 1, 1),
            LocalOp::LdU8 | LocalOp::LdS8 => (false, 1, 1),
            LocalOp::StU16 => (true, 2, 1),
            LocalOp::LdS16 => (false, 2, 1),
        }
    }

    /// The PTX type of each element: the width, and for loads how it extends to 32 bits.
    pub fn ptx_type(self) -> &'static str {
        match self {
            LocalOp::StU8 | LocalOp::LdU8 => "u8",
            LocalOp::LdS8 => "s8",
            LocalOp::StU16 => "u16",
            LocalOp::LdS16 => "s16",
            _ => "u32",
        }
    }

    /// The byte offset in `lm` for index value `i`.
    pub fn offset(self, i: u32) -> u32 {
        (i & self.index_mask()) * self.shape().1
    }

    /// The mask that takes an index value to the element the access starts at: the array's
    /// elements of its size, rounded down to the vector's length (all powers of two).
    pub fn index_mask(self) -> u32 {
        let (_, bytes, n) = self.shape();
        (LOCAL_WORDS * 4 / bytes - 1) & !(n - 1)
    }
}
