//! Declarations: variables (ISA 5.4), function signatures (ISA 7.1), and their rules.

use super::consteval::{self, Const};
use super::{FnCx, ModuleCx, RegRange, Symbol};
use crate::ast::{self, ExprKind, FunctionDirective, FunctionKind, Initializer, VarType};
use crate::check::typed::*;
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, StateSpace};

/// A variable in an addressable state space, as declared by one name of `d`.
pub(super) fn variable(
    m: &mut ModuleCx<'_>,
    d: &ast::VarDecl<'_>,
    name: &ast::DeclName<'_>,
) -> Option<Variable> {
    if let Some(kind) = super::opaque::kind_of(d) {
        return super::opaque::variable(m, d, name, kind);
    }
    let ty = scalar_type(m.diags, d)?;
    if ty == ScalarType::Pred {
        m.diags.push(
            Diagnostic::error(d.ty.span, "only registers can have type `.pred`")
                .with_label("not allowed in this state space"),
        );
        return None;
    }
    if let Some(c) = &name.count {
        m.diags.push(
            Diagnostic::error(
                c.span,
                "parameterized names `<N>` are only allowed for registers",
            )
            .with_label("here"),
        );
    }
    let vector = d.vector.as_ref().map_or(1, |v| v.node);
    let elem = ty.bytes() * vector;
    let align = match &d.align {
        Some(a) => {
            if !a.node.is_power_of_two() {
                m.diags.push(
                    Diagnostic::error(a.span, "alignment must be a power of two")
                        .with_label("here"),
                );
            }
            a.node
        }
        None => elem.max(1),
    };
    let mut count: Option<u64> = Some(1);
    let mut unsized_dim = false;
    for (i, dim) in name.dims.iter().enumerate() {
        match dim {
            Some(e) => match consteval::eval(e) {
                Ok(c @ (Const::S64(0..) | Const::U64(_))) => {
                    // Sizes past 4 GiB exist in no state space (and would overflow offsets).
                    let n = c.as_bits_u64();
                    let total = count.and_then(|c| c.checked_mul(n)).filter(|t| {
                        t.checked_mul(u64::from(elem))
                            .is_some_and(|b| b <= u64::from(u32::MAX))
                    });
                    if total.is_none() {
                        m.diags.push(
                            Diagnostic::error(e.span, "array is larger than 4 GiB")
                                .with_label("too large"),
                        );
                        return None;
                    }
                    count = total;
                }
                Ok(_) => {
                    m.diags.push(
                        Diagnostic::error(e.span, "array size must be a non-negative integer")
                            .with_label("here"),
                    );
                }
                Err(err) => m.diags.push(err),
            },
            None if i == 0 => unsized_dim = true,
            None => m.diags.push(Diagnostic::error(
                name.name.span,
                "only the first array dimension may be left unsized",
            )),
        }
    }
    let external = d
        .linkage
        .as_ref()
        .is_some_and(|l| l.node == ast::Linkage::Extern);
    let init = match &name.init {
        Some(init) => {
            if !matches!(d.space.node, StateSpace::Global | StateSpace::Const) {
                m.diags.push(
                    Diagnostic::error(
                        name.name.span,
                        format!("{} variables cannot have initializers", d.space.node),
                    )
                    .with_label("only .global and .const variables are initialized"),
                );
            }
            let mut elems = Vec::new();
            flatten_init(m, init, ty, &mut elems);
            Some(elems)
        }
        None => None,
    };
    if unsized_dim {
        let inner = count.unwrap_or(1).max(1);
        count = init
            .as_ref()
            .map(|e| (e.len() as u64 / u64::from(vector)).div_ceil(inner) * inner);
        if count.is_none() && !external && d.space.node != StateSpace::Param {
            m.diags.push(
                Diagnostic::error(
                    name.name.span,
                    "an unsized array needs an initializer or `.extern`",
                )
                .with_label("size unknown"),
            );
        }
    }
    if let (Some(init), Some(c)) = (&init, count) {
        let cap = c * u64::from(vector);
        if init.len() as u64 > cap {
            m.diags.push(
                Diagnostic::error(
                    name.name.span,
                    format!(
                        "initializer has {} elements but `{}` holds {cap}",
                        init.len(),
                        name.name.node
                    ),
                )
                .with_label("too many initializers"),
            );
        }
    }
    let ptr_space = d
        .ptr
        .as_ref()
        .and_then(|p| p.space.as_ref().map(|s| s.node));
    Some(Variable {
        name: name.name.node.to_string(),
        space: d.space.node,
        ty,
        vector,
        count,
        align,
        init,
        external,
        ptr_space,
        opaque: None,
        sampler_init: None,
        span: name.name.span,
    })
}

fn scalar_type(diags: &mut Vec<Diagnostic>, d: &ast::VarDecl<'_>) -> Option<ScalarType> {
    match d.ty.node {
        // The alternate formats are instruction types, held in bit-size registers; NVIDIA's
        // ptxas rejects them in declarations ("Parsing error near '.bf16'").
        VarType::Scalar(t @ (ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32)) => {
            let bits = if t == ScalarType::Bf16 { 16 } else { 32 };
            diags.push(
                Diagnostic::error(d.ty.span, format!("`{t}` is not a register type"))
                    .with_label(format!("declare the register as .b{bits}")),
            );
            None
        }
        VarType::Scalar(t) => Some(t),
        _ => {
            diags.push(
                Diagnostic::error(
                    d.ty.span,
                    "texture, sampler and surface references cannot be registers",
                )
                .with_label("declare them at module scope or as kernel parameters"),
            );
            None
        }
    }
}

fn flatten_init(
    m: &mut ModuleCx<'_>,
    init: &Initializer<'_>,
    ty: ScalarType,
    out: &mut Vec<InitElem>,
) {
    match init {
        Initializer::List(items, _) => {
            for i in items {
                flatten_init(m, i, ty, out);
            }
        }
        Initializer::Expr(e) => {
            if let Some(elem) = init_elem(m, e, ty) {
                out.push(elem);
            }
        }
        Initializer::Member(n, _) => m.diags.push(
            Diagnostic::error(
                n.span,
                format!(
                    "`{} = ...` initializes a member of an opaque variable",
                    n.node
                ),
            )
            .with_label("only .texref, .samplerref and .surfref variables have members"),
        ),
    }
}

fn init_elem(m: &mut ModuleCx<'_>, e: &ast::Expr<'_>, ty: ScalarType) -> Option<InitElem> {
    // Addresses: `var`, `generic(var)`, `var+4`.
    let (name, offset, generic) = match &e.kind {
        ExprKind::Name(n) if consteval::named_constant(n).is_none() => {
            (Some((*n, e.span)), 0, false)
        }
        ExprKind::Generic(n) => (Some((n.node, n.span)), 0, true),
        ExprKind::Binary(op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), a, b) => {
            let base = match &a.kind {
                ExprKind::Name(n) if consteval::named_constant(n).is_none() => {
                    Some((*n, a.span, false))
                }
                ExprKind::Generic(n) => Some((n.node, n.span, true)),
                _ => None,
            };
            match (base, consteval::eval(b)) {
                (Some((n, s, g)), Ok(c @ (Const::S64(_) | Const::U64(_)))) => {
                    let off = c.as_bits_u64() as i64;
                    (
                        Some((n, s)),
                        if *op == ast::BinaryOp::Sub {
                            off.wrapping_neg()
                        } else {
                            off
                        },
                        g,
                    )
                }
                _ => (None, 0, false),
            }
        }
        _ => (None, 0, false),
    };
    if let Some((n, span)) = name {
        // Call tables: `.global .u64 tbl[2] = { f, g };` (ISA 8.7.9, `call`).
        if let Some(&f) = m.function_names.get(n)
            && !m.global_names.contains_key(n)
        {
            if offset != 0 || generic || !matches!(ty.bits(), 32 | 64) || ty.is_float() {
                m.diags.push(
                    Diagnostic::error(
                        e.span,
                        "a function name initializes a .u32 or .u64 element by itself",
                    )
                    .with_label("not a call-table entry"),
                );
                return None;
            }
            if !m.address_taken.contains(&f) {
                m.address_taken.push(f);
            }
            return Some(InitElem::Function(f));
        }
        let Some(&var) = m.global_names.get(n) else {
            m.diags.push(
                Diagnostic::error(span, format!("unknown variable `{n}` in initializer"))
                    .with_label("not declared before this point"),
            );
            return None;
        };
        if ty.bits() < 32 {
            m.diags.push(Diagnostic::error(
                e.span,
                "an address needs a 32- or 64-bit variable",
            ));
        }
        return Some(InitElem::Address {
            var,
            offset,
            generic,
        });
    }
    match consteval::eval(e) {
        Ok(c) => match super::operands::convert_const(c, ty) {
            Ok(bits) => Some(InitElem::Bits(bits)),
            Err(msg) => {
                m.diags
                    .push(Diagnostic::error(e.span, msg).with_label("here"));
                None
            }
        },
        Err(d) => {
            m.diags.push(d);
            None
        }
    }
}

/// A function's signature; the body is checked later.
pub(super) fn signature(m: &mut ModuleCx<'_>, f: &ast::Function<'_>) -> Function {
    let mut func = Function::declared(f.name.node, f.kind, false, f.span);
    if f.kind == FunctionKind::Entry && !f.returns.is_empty() {
        m.diags.push(Diagnostic::error(
            f.name.span,
            "a kernel (`.entry`) cannot return values",
        ));
    }
    let mut params = Vec::new();
    for p in &f.params {
        params.extend(param(m, &mut func, p, f.kind));
    }
    let mut returns = Vec::new();
    for p in &f.returns {
        returns.extend(param(m, &mut func, p, f.kind));
    }
    func.params = params;
    func.returns = returns;
    for d in &f.directives {
        match d {
            FunctionDirective::ReqNtid(v, s) => func.reqntid = dims3(m, v, *s),
            FunctionDirective::MaxNtid(v, s) => func.maxntid = dims3(m, v, *s),
            FunctionDirective::ReqNctaPerCluster(v, s) => {
                // Each block runs as a cluster of one
                // (docs/decisions/0102-clusters-are-one-block.md): a kernel that needs more would
                // read other blocks' shared memory that is not there.
                let blocks: u64 = v.iter().map(|&n| u64::from(n)).product();
                if blocks > 1 {
                    m.diags.push(
                        Diagnostic::error(
                            *s,
                            format!("clusters of {blocks} blocks are not supported by ptxvk yet"),
                        )
                        .with_label("ptxvk runs each block as a cluster of one"),
                    );
                }
            }
            FunctionDirective::NoReturn(s) => {
                if f.kind == FunctionKind::Entry {
                    m.diags
                        .push(Diagnostic::error(*s, "`.noreturn` applies to `.func` only"));
                }
                func.noreturn = true;
            }
            _ => {}
        }
    }
    func
}

/// The function type a `.callprototype` declares (ISA 9.7.13.5 directives), as a nameless
/// declaration so calls check their operands against it as against a function.
pub(super) fn prototype(
    m: &mut ModuleCx<'_>,
    name: &str,
    returns: &[ast::VarDecl<'_>],
    params: &[ast::VarDecl<'_>],
    noreturn: bool,
    span: Span,
) -> Function {
    let mut func = Function::declared(name, FunctionKind::Func, noreturn, span);
    let mut ps = Vec::new();
    for p in params {
        ps.extend(param(m, &mut func, p, FunctionKind::Func));
    }
    let mut rs = Vec::new();
    for p in returns {
        rs.extend(param(m, &mut func, p, FunctionKind::Func));
    }
    if noreturn && !rs.is_empty() {
        m.diags.push(Diagnostic::error(
            span,
            "a `.noreturn` prototype cannot have return parameters",
        ));
    }
    func.params = ps;
    func.returns = rs;
    func
}

fn dims3(m: &mut ModuleCx<'_>, v: &[u32], span: Span) -> Option<[u32; 3]> {
    if v.contains(&0) {
        m.diags
            .push(Diagnostic::error(span, "thread counts must be positive"));
        return None;
    }
    Some([
        v.first().copied().unwrap_or(1),
        v.get(1).copied().unwrap_or(1),
        v.get(2).copied().unwrap_or(1),
    ])
}

fn param(
    m: &mut ModuleCx<'_>,
    func: &mut Function,
    d: &ast::VarDecl<'_>,
    kind: FunctionKind,
) -> Vec<FnParam> {
    let mut out = Vec::new();
    match d.space.node {
        StateSpace::Param => {}
        StateSpace::Reg if kind == FunctionKind::Func => {
            let Some(ty) = scalar_type(m.diags, d) else {
                return out;
            };
            for n in &d.names {
                let id = RegId(func.regs.len() as u32);
                func.regs.push(Register {
                    name: n.name.node.into(),
                    ty,
                    vector: d.vector.as_ref().map_or(1, |v| v.node),
                    span: n.name.span,
                });
                out.push(FnParam::Reg(id));
            }
            return out;
        }
        other => {
            m.diags.push(
                Diagnostic::error(
                    d.space.span,
                    format!("a parameter cannot be in the {other} space"),
                )
                .with_label(if kind == FunctionKind::Entry {
                    "kernel parameters are .param"
                } else {
                    "expected .param or .reg"
                }),
            );
            return out;
        }
    }
    if super::opaque::kind_of(d).is_some() && kind != FunctionKind::Entry {
        m.diags.push(
            Diagnostic::error(
                d.ty.span,
                "texture, sampler and surface parameters are allowed for kernels only",
            )
            .with_label("ISA 5.3: module scope or kernel parameter lists"),
        );
        return out;
    }
    if d.ptr.is_some() && kind != FunctionKind::Entry {
        m.diags.push(Diagnostic::error(
            d.span,
            "`.ptr` attributes are only allowed on kernel parameters",
        ));
    }
    for n in &d.names {
        if let Some(v) = variable(m, d, n) {
            let id = LocalId(func.vars.len() as u32);
            func.vars.push(v);
            out.push(FnParam::Var(id));
        }
    }
    out
}

/// A declaration inside a function body.
pub(super) fn local(cx: &mut FnCx<'_, '_>, d: &ast::VarDecl<'_>) {
    if d.space.node == StateSpace::Reg {
        let Some(ty) = scalar_type(cx.m.diags, d) else {
            return;
        };
        let vector = d.vector.as_ref().map_or(1, |v| v.node);
        if vector > 4 {
            cx.error(Diagnostic::error(
                d.span,
                "registers can be vectors of at most 4 elements",
            ));
        }
        for n in &d.names {
            if !n.dims.is_empty() || n.init.is_some() {
                cx.error(
                    Diagnostic::error(n.name.span, "registers cannot be arrays or initialized")
                        .with_label("here"),
                );
            }
            let sym = match &n.count {
                Some(c) => {
                    let idx = cx.ranges.len() as u32;
                    cx.ranges.push(RegRange {
                        count: c.node,
                        ty,
                        vector,
                        span: n.name.span,
                        created: super::Created::default(),
                    });
                    Symbol::RegRange(idx)
                }
                None => {
                    let id = RegId(cx.func.regs.len() as u32);
                    cx.func.regs.push(Register {
                        name: n.name.node.into(),
                        ty,
                        vector,
                        span: n.name.span,
                    });
                    Symbol::Reg(id)
                }
            };
            declare(cx, n.name.node, n.name.span, sym);
        }
        return;
    }
    if !matches!(
        d.space.node,
        StateSpace::Local
            | StateSpace::Shared
            | StateSpace::Param
            | StateSpace::Const
            | StateSpace::Global
    ) {
        cx.error(Diagnostic::error(
            d.space.span,
            format!(
                "a {} variable cannot be declared inside a function",
                d.space.node
            ),
        ));
        return;
    }
    if super::opaque::kind_of(d).is_some() {
        cx.error(
            Diagnostic::error(
                d.ty.span,
                "texture, sampler and surface variables cannot be declared inside a function",
            )
            .with_label("ISA 5.3: module scope or kernel parameter lists"),
        );
        return;
    }
    if matches!(d.space.node, StateSpace::Global | StateSpace::Const) {
        // Static storage that every thread and launch shares, as at module scope: such a
        // variable lives with the module's variables (and their initial values), under a name
        // that no module-scope declaration can spell.
        for n in &d.names {
            if let Some(mut v) = variable(cx.m, d, n) {
                v.name = format!("{}::{}", cx.func.name, v.name);
                let id = GlobalId(cx.m.globals.len() as u32);
                cx.m.globals.push(v);
                declare(cx, n.name.node, n.name.span, Symbol::Global(id));
            }
        }
        return;
    }
    for n in &d.names {
        if let Some(v) = variable(cx.m, d, n) {
            let id = LocalId(cx.func.vars.len() as u32);
            cx.func.vars.push(v);
            declare(cx, n.name.node, n.name.span, Symbol::Var(id));
        }
    }
}

/// The number of `base<N>`'s member `name` (`%r12` of `%r`), if `name` is one.
fn member_index(name: &str, base: &str) -> Option<u32> {
    let digits = name.strip_prefix(base)?;
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    digits.parse().ok()
}

fn declare(cx: &mut FnCx<'_, '_>, name: &str, span: Span, sym: Symbol) {
    let scope = cx.scopes.len() - 1;
    // `%r<4>` declares `%r0` .. `%r3` (ISA 5.4.5): those names clash with single declarations.
    // A range whose members include `name` has a base that is `name` without some of its
    // trailing digits: a lookup per digit, not a walk over the scope per declaration.
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let in_range = (name.len() - digits..name.len()).any(|at| {
        let base = &name[..at];
        matches!(cx.scopes[scope].get(base), Some(Symbol::RegRange(ri))
            if member_index(name, base).is_some_and(|n| n < cx.ranges[*ri as usize].count))
    });
    // A new range against the single names already declared (ranges are few: a walk is fine).
    let covers = match sym {
        Symbol::RegRange(ri) => cx.scopes[scope].iter().any(|(other, s)| {
            !matches!(s, Symbol::RegRange(_))
                && member_index(other, name).is_some_and(|n| n < cx.ranges[ri as usize].count)
        }),
        _ => false,
    };
    let clash = in_range || covers;
    if cx.scopes[scope].contains_key(name) || clash {
        cx.error(
            Diagnostic::error(span, format!("`{name}` is already declared in this scope"))
                .with_label("redeclared here"),
        );
        return;
    }
    cx.scopes[scope].insert(name.to_string(), sym);
}
