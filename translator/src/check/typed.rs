//! The checked module: names resolved, instructions decoded into typed operations, and every
//! implicit conversion of ISA 9.4 (Tables 26-28) written out on the operand it applies to.

use super::op::{Op, ParamShape, Signature};
use crate::ast::FunctionKind;
use crate::diag::Span;
use crate::types::{ScalarType, StateSpace};

pub use super::operand::*;

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

// Beside `Function` rather than with the decoded forms: the shape is read from a function.
impl Signature {
    pub fn of(f: &Function) -> Signature {
        let shape = |p: &FnParam| match p {
            FnParam::Var(v) => ParamShape::Param(f.var(*v).size()),
            FnParam::Reg(r) => ParamShape::Reg(f.reg(*r).ty),
        };
        Signature {
            returns: f.returns.iter().map(shape).collect(),
            params: f.params.iter().map(shape).collect(),
        }
    }
}
