//! The operands of typed instructions: register, variable and function ids, sources,
//! destinations and addresses.

use crate::ast::Component;
use crate::types::ScalarType;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

impl FuncId {
    /// The value `mov.u64 %rd, f;` puts in a register: the function's index plus one (never 0,
    /// so a null function pointer stays distinguishable). Indirect calls compare against it.
    pub fn address(self) -> u64 {
        u64::from(self.0) + 1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// A variable declared inside a function (or a parameter), indexed in `Function::vars`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub pred: RegId,
    pub negated: bool,
}

/// The conversion ISA Tables 27/28 apply between a register and the instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// Same size: reinterpret the bits.
    None,
    /// Source register wider than the instruction type: keep the low bits.
    Chop,
    /// Destination register wider: zero-extend.
    Zext,
    /// Destination register wider: sign-extend.
    Sext,
}

/// A special register of ISA Table 3 (and later ISA versions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    Tid,
    Ntid,
    Ctaid,
    Nctaid,
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    EnvReg(u8),
    Pm(u8),
    /// `%pm0_64` .. `%pm7_64`
    Pm64(u8),
    DynamicSmemSize,
    TotalSmemSize,
    WarpSize,
    // Thread block clusters, each one block (docs/decisions/0102-clusters-are-one-block.md).
    ClusterId,
    NClusterId,
    ClusterCtaId,
    ClusterNCtaId,
    ClusterCtaRank,
    ClusterNCtaRank,
    IsExplicitCluster,
}

/// The source operands of an arithmetic or float instruction, in the instruction itself: up to
/// three take no allocation of their own, and lowering reads them without following a pointer
/// into memory the parser left long ago.
pub type Srcs = smallvec::SmallVec<[Src; 3]>;

/// The operands as an array of exactly `N` (`None` for another count).
pub(crate) fn exactly<const N: usize>(s: Srcs) -> Option<[Src; N]> {
    if s.len() != N {
        return None;
    }
    let mut it = s.into_iter();
    // Never `Imm(0)`: the length was checked.
    Some(std::array::from_fn(|_| it.next().unwrap_or(Src::Imm(0))))
}

/// A source operand, as the instruction sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Src {
    Reg {
        reg: RegId,
        /// Component of a vector register.
        comp: Option<Component>,
        conv: Conv,
        /// The register's own type (the instruction type is the decoder's).
        ty: ScalarType,
    },
    /// An immediate, already converted to the instruction type: the low `bits` of `value`.
    Imm(u64),
    Special(SpecialReg, Option<Component>),
    /// The address of a variable plus a byte offset (`mov.u64 %rd, var;`). Boxed, as the
    /// vectors: every payload fits in a word, so an operand takes 16 bytes (see [`Srcs`]).
    AddressOf(Box<(VarRef, i64)>),
    /// `{a, b, ...}`
    Vector(Box<Vec<Src>>),
    /// A function's address (`mov.u64 %rd, f;`): [`FuncId::address`].
    FuncAddr(FuncId),
    /// A predicate source written `!p`.
    NotPred(Box<Src>),
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Dst {
    Reg {
        reg: RegId,
        comp: Option<Component>,
        conv: Conv,
        ty: ScalarType,
    },
    /// Boxed: a destination takes 16 bytes.
    Vector(Box<Vec<Dst>>),
    /// `_`: the result is discarded.
    Sink,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRef {
    Global(GlobalId),
    Local(LocalId),
}

/// A memory operand `[base+offset]` (ISA 6.4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AddrBase {
    /// A register holding an address (`.u32` or `.u64`).
    Reg(RegId, ScalarType),
    /// A variable's own address.
    Var(VarRef),
    /// `[imm]`: an absolute address.
    Absolute,
}
