//! The checked module: names resolved, instructions decoded into typed operations, and every
//! implicit conversion of ISA 9.4 (Tables 26-28) written out on the operand it applies to.

use crate::ast::{Component, FunctionKind};
use crate::check::inst::Op;
use crate::diag::Span;
use crate::types::{ScalarType, StateSpace};

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

#[derive(Clone, Debug)]
pub struct Module {
    pub version: (u32, u32),
    /// The `sm_XX` number of `.target`.
    pub sm: u32,
    pub address_size: u32,
    /// `.target texmode_independent`: samplers are separate `.samplerref`s (ISA 8.7.7.1).
    pub texmode_independent: bool,
    pub globals: Vec<Variable>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    pub fn global(&self, id: GlobalId) -> &Variable {
        &self.globals[id.0 as usize]
    }

    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FunctionKind::Entry && f.body.is_some())
            .map(|(i, f)| (FuncId(i as u32), f))
    }
}

/// A variable in an addressable state space (not a register).
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub space: StateSpace,
    pub ty: ScalarType,
    /// 1 for scalars, 2/4/8 for `.v2/.v4/.v8`.
    pub vector: u32,
    /// Number of elements (product of array dimensions); `None` for an unsized `[]` array.
    pub count: Option<u64>,
    pub align: u32,
    pub init: Option<Vec<InitElem>>,
    pub external: bool,
    /// `.ptr .global .align N` on a kernel parameter.
    pub ptr_space: Option<StateSpace>,
    /// `.texref`, `.samplerref`, `.surfref` (held as a 64-bit handle; see `crate::texture`).
    pub opaque: Option<crate::texture::Opaque>,
    /// The members a `.samplerref`'s initializer gives.
    pub sampler_init: Option<crate::texture::SamplerState>,
    pub span: Span,
}

impl Variable {
    pub fn elem_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()) * u64::from(self.vector)
    }

    /// Size in bytes; 0 for an unsized array.
    pub fn size(&self) -> u64 {
        self.elem_bytes() * self.count.unwrap_or(0)
    }
}

/// One scalar of an initializer, already converted to the variable's type.
#[derive(Clone, Debug, PartialEq)]
pub enum InitElem {
    Bits(u64),
    /// The address of a variable plus a byte offset; `generic` if written `generic(var)`.
    Address {
        var: GlobalId,
        offset: i64,
        generic: bool,
    },
    /// A function's address (call tables: `.global .u64 tbl[2] = {f, g};`).
    Function(FuncId),
}

#[derive(Clone, Debug)]
pub struct Register {
    /// Shared with the IR variable lowering makes for the register.
    pub name: std::sync::Arc<str>,
    pub ty: ScalarType,
    pub vector: u32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub returns: Vec<FnParam>,
    pub params: Vec<FnParam>,
    pub regs: Vec<Register>,
    /// Parameters and function-scope variables.
    pub vars: Vec<Variable>,
    pub labels: Vec<Label>,
    /// `None` for a declaration without body.
    pub body: Option<Vec<Statement>>,
    /// How many instructions of the body have a guard (lowering sizes its tables by it).
    pub guarded: u32,
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    pub noreturn: bool,
    /// Module-scope variables the body refers to (for per-kernel shared memory layout).
    pub global_uses: Vec<GlobalId>,
    /// Functions the body calls, directly or through a function-pointer `mov`.
    pub calls: Vec<FuncId>,
    pub span: Span,
}

impl Function {
    /// A declared function with nothing in it yet: no parameters, registers, body or uses.
    pub fn declared(name: &str, kind: FunctionKind, noreturn: bool, span: Span) -> Function {
        Function {
            name: name.to_string(),
            kind,
            returns: Vec::new(),
            params: Vec::new(),
            regs: Vec::new(),
            vars: Vec::new(),
            labels: Vec::new(),
            body: None,
            guarded: 0,
            reqntid: None,
            maxntid: None,
            noreturn,
            global_uses: Vec::new(),
            calls: Vec::new(),
            span,
        }
    }

    pub fn reg(&self, r: RegId) -> &Register {
        &self.regs[r.0 as usize]
    }

    pub fn var(&self, v: LocalId) -> &Variable {
        &self.vars[v.0 as usize]
    }
}

/// A function parameter: a `.param` variable, or (in `.func`) a `.reg` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnParam {
    Var(LocalId),
    Reg(RegId),
}

#[derive(Clone, Debug)]
pub struct Label {
    pub name: String,
    pub span: Span,
    /// For `L: .branchtargets a, b;`, the labels listed.
    pub targets: Option<Vec<LabelId>>,
}

#[derive(Clone, Debug)]
pub enum Statement {
    Label(LabelId),
    Inst(Inst),
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub guard: Option<Guard>,
    pub op: Op,
    pub span: Span,
}

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
