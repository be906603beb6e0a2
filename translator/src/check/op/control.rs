//! The decoded forms of the instructions that `check/inst/control.rs` reads.

use crate::check::operand::{FuncId, LabelId, LocalId, Src};
use crate::types::ScalarType;

#[derive(Clone, Debug)]
pub struct Bra {
    pub target: LabelId,
    /// `.uni`: the compiler promises the branch is not divergent.
    pub uni: bool,
}

/// A call argument or result: a `.param` variable the caller declared, or (for `.reg`
/// parameters) a register or value.
#[derive(Clone, Debug)]
pub enum CallArg {
    Param(LocalId),
    Value(Src, ScalarType),
}

#[derive(Clone, Debug)]
pub struct Call {
    pub func: FuncId,
    pub uni: bool,
    pub rets: Vec<CallArg>,
    pub args: Vec<CallArg>,
}

/// `brx.idx{.uni} index, tlist;` (ISA 9.7.13.4 in later numbering): a jump to the `index`th
/// label of the `.branchtargets` list labelled `tlist`.
#[derive(Clone, Debug)]
pub struct BrxIdx {
    pub index: Src,
    pub targets: Vec<LabelId>,
    pub uni: bool,
}

/// A call through a function pointer (ISA 9.7.13.5 in later numbering):
/// `call{.uni} (rets), fptr, (args), flist|fproto;`.
#[derive(Clone, Debug)]
pub struct CallIndirect {
    /// The register holding the function's address ([`FuncId::address`]).
    pub target: Src,
    pub target_ty: ScalarType,
    /// The functions it may call: the `.calltargets` list or call table, or (for a
    /// `.callprototype`) every function whose address the module takes and whose signature
    /// matches, filled in once the whole module is checked.
    pub candidates: Vec<FuncId>,
    /// The signature the call was checked against (of the prototype or the listed functions).
    pub signature: Signature,
    pub uni: bool,
    pub rets: Vec<CallArg>,
    pub args: Vec<CallArg>,
}

/// The shape of a function's parameters, as calls see it: `.param` byte sizes and `.reg` types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub returns: Vec<ParamShape>,
    pub params: Vec<ParamShape>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamShape {
    Param(u64),
    Reg(ScalarType),
}
