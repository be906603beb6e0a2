//! The syntax tree of a PTX module, as written, with spans.
//!
//! Instructions are kept generic here (opcode, modifiers, operands): which modifiers and operand
//! forms an instruction accepts is an ISA rule, decided by the checker with a diagnostic that
//! names the instruction, rather than by the grammar.

use crate::diag::{Span, Spanned};
use crate::types::{ScalarType, StateSpace};

#[derive(Clone, Debug, PartialEq)]
pub struct Module<'a> {
    pub items: Vec<Item<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    /// `.version 7.0`
    Version {
        major: u32,
        minor: u32,
        span: Span,
    },
    /// `.target sm_70, texmode_independent, debug`
    Target(Vec<Spanned<&'a str>>),
    /// `.address_size 64`
    AddressSize(Spanned<u32>),
    Var(VarDecl<'a>),
    Function(Box<Function<'a>>),
    /// Debug information and other directives that are parsed and ignored (`.file`, `.section`, ...).
    Ignored(Span),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    pub kind: FunctionKind,
    pub name: Spanned<&'a str>,
    /// `.func (.reg .b32 r) name(...)`: the return parameters.
    pub returns: Vec<VarDecl<'a>>,
    pub params: Vec<VarDecl<'a>>,
    /// Performance-tuning and other directives between the signature and the body.
    pub directives: Vec<FunctionDirective>,
    /// `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Vec<Statement<'a>>>,
    /// Every label of the body, nested blocks included, in source order: labels are visible
    /// in the whole function, and the parser collecting them spares the checker a walk over
    /// the (large) body before it checks it.
    pub labels: Vec<Spanned<&'a str>>,
    pub span: Span,
}

impl<'a> Function<'a> {
    /// The labels of `body` in source order (what [`Function::labels`] holds).
    pub fn collect_labels(body: &[Statement<'a>], out: &mut Vec<Spanned<&'a str>>) {
        for s in body {
            match s {
                Statement::Label(l) => out.push(l.clone()),
                Statement::Block(inner, _) => Self::collect_labels(inner, out),
                _ => {}
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionDirective {
    MaxNtid(Vec<u32>, Span),
    ReqNtid(Vec<u32>, Span),
    MinNctaPerSm(u32, Span),
    MaxNctaPerSm(u32, Span),
    MaxNreg(u32, Span),
    NoReturn(Span),
    /// `.reqnctapercluster x{, y{, z}}`: the blocks of each cluster.
    ReqNctaPerCluster(Vec<u32>, Span),
    Pragma(String, Span),
    /// Cluster directives and others that do not change the translation.
    Other(Span),
}

/// `.attribute(.managed)` and friends on a variable.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    pub space: Spanned<StateSpace>,
    pub align: Option<Spanned<u32>>,
    /// `.v2`, `.v4`, `.v8`
    pub vector: Option<Spanned<u32>>,
    pub ty: Spanned<VarType>,
    /// Kernel pointer-parameter attributes: `.ptr .global .align 16`.
    pub ptr: Option<PtrAttr>,
    pub attributes: Vec<Spanned<&'a str>>,
    pub names: Vec<DeclName<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PtrAttr {
    pub space: Option<Spanned<StateSpace>>,
    pub align: Option<Spanned<u32>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Scalar(ScalarType),
    TexRef,
    SamplerRef,
    SurfRef,
}

/// One declared name: `%r<100>`, `a[4][8]`, `x = 5`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclName<'a> {
    pub name: Spanned<&'a str>,
    /// Parameterized name count: `%r<100>` declares `%r0` .. `%r99`.
    pub count: Option<Spanned<u32>>,
    /// Array dimensions; `None` for an unsized `[]`.
    pub dims: Vec<Option<Expr<'a>>>,
    pub init: Option<Initializer<'a>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer<'a> {
    Expr(Expr<'a>),
    /// `{ ... }`, possibly nested for multi-dimensional arrays and vectors.
    List(Vec<Initializer<'a>>, Span),
    /// `member = value` inside the `{ ... }` of an opaque variable (ISA 5.3:
    /// `.samplerref s = { filter_mode = nearest }`).
    Member(Spanned<&'a str>, Expr<'a>),
}

#[expect(
    clippy::large_enum_variant,
    reason = "instructions are nearly every statement; boxing them measured slower"
)]
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    Label(Spanned<&'a str>),
    /// Boxed: declarations are rare in bodies, and unboxed they would make every statement
    /// their size.
    Var(Box<VarDecl<'a>>),
    Instruction(Instruction<'a>),
    /// A nested `{ ... }` scope.
    Block(Vec<Statement<'a>>, Span),
    /// `.branchtargets L1, L2, N<3>;` (follows a label naming the list); `N<3>` stands for
    /// `N0, N1, N2`.
    BranchTargets(Vec<(Spanned<&'a str>, Option<Spanned<u32>>)>, Span),
    /// `.calltargets f, g;`
    CallTargets(Vec<Spanned<&'a str>>, Span),
    /// `.callprototype (.param .b32 _) _ (.param .b32 _);`
    CallPrototype {
        returns: Vec<VarDecl<'a>>,
        params: Vec<VarDecl<'a>>,
        /// `.noreturn` after the parameter list.
        noreturn: Option<Span>,
        span: Span,
    },
    /// `.pragma "nounroll";`
    Pragma(String, Span),
    /// `.loc` and other statements kept only for their position.
    Ignored(Span),
    /// A statement the parser could not read; its error was reported.
    Error(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Guard<'a> {
    pub negated: bool,
    pub pred: Spanned<&'a str>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    pub guard: Option<Guard<'a>>,
    pub opcode: Spanned<&'a str>,
    /// Modifiers without their dot: `add.rn.f32` has `["rn", "f32"]`. Inline up to four (nearly
    /// every instruction): one allocation less per instruction to make and to free.
    pub modifiers: Modifiers<'a>,
    /// Inline up to three (nearly every instruction); the vector of four a parser would
    /// otherwise allocate per instruction is bigger than the operands themselves.
    pub operands: Operands<'a>,
    pub span: Span,
}

pub type Modifiers<'a> = smallvec::SmallVec<[Spanned<&'a str>; 4]>;
pub type Operands<'a> = smallvec::SmallVec<[Operand<'a>; 3]>;

#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    pub kind: OperandKind<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind<'a> {
    /// `%tid.x`, `%r1.y`: a vector component.
    Component(&'a str, Component),
    /// An immediate or a name, as an expression; `-x` and `!p` are unary expressions here.
    Imm(Expr<'a>),
    /// `{%r1, %r2}`
    Vector(Vec<Operand<'a>>),
    /// `[addr]` in any of the forms of ISA 6.4.1.
    Address(Expr<'a>),
    /// `var[imm]`: an array element (ISA 6.4.2). The index is boxed: this form is rare, and
    /// inline it would make every operand half as large again.
    Index(Spanned<&'a str>, Box<Expr<'a>>),
    /// `%p|%q`: the two destinations of `setp` and similar.
    Pair(Box<Operand<'a>>, Box<Operand<'a>>),
    /// `[a, b, ...]`: the bracketed tuples of texture and surface instructions.
    Tuple(Vec<Operand<'a>>),
    /// `(a, b)`: call argument and return lists.
    List(Vec<Operand<'a>>),
    /// `_`: the sink.
    Sink,
    /// `%r1.b0`, `%r2.h10`, `%r3.b7654`: a register with the byte or half-word selector of the
    /// video instructions (without its dot); `-%r1.h0` (`vmad`'s negated operand) when the flag
    /// is set.
    Select(&'a str, &'a str, bool),
}

/// Whether `s` (without its dot) is written like a video selector or mask: `b` or `h` and
/// digits. Which ones an instruction takes is the decoder's to say.
pub fn is_video_selector(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('b' | 'h')) && s.len() > 1 && chars.all(|c| c.is_ascii_digit())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    X,
    Y,
    Z,
    W,
}

impl Component {
    pub fn from_name(name: &str) -> Option<Component> {
        Some(match name {
            "x" | "r" => Component::X,
            "y" | "g" => Component::Y,
            "z" | "b" => Component::Z,
            "w" | "a" => Component::W,
            _ => return None,
        })
    }

    pub fn index(self) -> usize {
        match self {
            Component::X => 0,
            Component::Y => 1,
            Component::Z => 2,
            Component::W => 3,
        }
    }
}

/// A constant expression (ISA 4.6) or address expression (ISA 6.4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr<'a> {
    pub kind: ExprKind<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind<'a> {
    /// An integer literal; `unsigned` when written with a `U` suffix or too large for `.s64`.
    Int {
        value: u64,
        unsigned: bool,
    },
    /// A decimal floating-point literal (always `.f64` in PTX).
    Float(f64),
    /// `0fXXXXXXXX`: the bits of an `.f32`.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an `.f64`.
    F64Bits(u64),
    /// A symbol: register, variable, label, `WARP_SZ`.
    Name(&'a str),
    Unary(UnaryOp, Box<Expr<'a>>),
    Binary(BinaryOp, Box<Expr<'a>>, Box<Expr<'a>>),
    Cond(Box<Expr<'a>>, Box<Expr<'a>>, Box<Expr<'a>>),
    /// `(.s64) e` and `(.u64) e`
    Cast(ScalarType, Box<Expr<'a>>),
    /// `generic(var)` in initializers.
    Generic(Spanned<&'a str>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Neg,
    Not,
    LogicalNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogicalAnd,
    LogicalOr,
}
