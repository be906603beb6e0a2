//! Data movement (ISA 8.7.6): `mov`, `cvta`, `isspacep`, `prefetch`/`prefetchu`: syntax and type
//! rules. Loads and stores are in `ldst.rs`, conversions in `convert.rs`.

use super::convert::mod_span;
use super::shared::{operands, space_modifier};
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::mods::Mods;
use crate::check::op::{Cvta, Isspacep, Mov};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::check::{FnCx, Symbol};
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, StateSpace, TypeKind};

use ScalarType::*;

/// The ISA's `mov` types, plus `.f16` (which compilers emit for half values in `.f16` registers).
const MOV_TYPES: &[ScalarType] = &[
    Pred, B16, B32, B64, B128, U16, U32, U64, S16, S32, S64, F16, F32, F64,
];

fn err(m: &mut Mods<'_, '_>, span: Span, msg: impl Into<String>, label: impl Into<String>) {
    m.errors
        .push(Diagnostic::error(span, msg).with_label(label));
}

/// A name operand that is a label: `mov` of its address is not translated (Vulkan has no
/// computed jumps to take it for). A function's address is an ordinary operand
/// (`check/operands.rs`, for indirect calls).
fn code_address(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> bool {
    let OperandKind::Imm(ast::Expr {
        kind: ExprKind::Name(n),
        ..
    }) = &op.kind
    else {
        return false;
    };
    if cx.lookup(n).is_some() || cx.m.global_names.contains_key(*n) {
        return false;
    }
    if cx.m.function_names.contains_key(*n) || !cx.label_names.contains_key(*n) {
        return false;
    }
    cx.error(
        Diagnostic::error(
            op.span,
            "the address of a label is not supported by ptxvk yet",
        )
        .with_label("taken here"),
    );
    true
}

/// `mov.type d, a` (register, immediate, special register, address of a variable with an
/// optional offset or index); `mov.bN d, {a, b..}` packs and `mov.bN {a, b..}, s` unpacks
/// (ISA 8.7.6.2-3).
pub fn mov(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Mov> {
    let vec = m.pick(&[("v2", 2u32), ("v4", 4u32)]).unwrap_or(1);
    let ty = m.ty(MOV_TYPES)?;
    let ops = operands(cx, i, 2)?;
    if code_address(cx, &ops[1]) {
        return None;
    }
    if vec > 1 {
        let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
        let src = cx.src(&ops[1], ty, TypeRule::Strict);
        let (dst, src) = (dst?, src?);
        let (nd, ns) = (count_dst(&dst), count_src(&src));
        if nd != vec || ns != vec {
            let (span, n) = if nd != vec {
                (ops[0].span, nd)
            } else {
                (ops[1].span, ns)
            };
            cx.error(
                Diagnostic::error(span, format!("expected {vec} elements, found {n}"))
                    .with_label("vector size does not match the .vN modifier"),
            );
            return None;
        }
        return Some(Mov { ty, dst, src });
    }
    let packed_d = elements(cx, &ops[0]);
    let packed_s = elements(cx, &ops[1]);
    if packed_d.is_some() && packed_s.is_some() {
        cx.error(
            Diagnostic::error(
                ops[1].span,
                "`mov` packs into or unpacks from a scalar, not both",
            )
            .with_label("expected a scalar register"),
        );
        return None;
    }
    let pack_elem = |m: &mut Mods<'_, '_>, op: &ast::Operand<'_>, n: u32| -> Option<ScalarType> {
        let elem = (ty.kind() == TypeKind::Bits && ty.bits() >= 16 && matches!(n, 2 | 4))
            .then(|| ScalarType::bits_of(ty.bits() / n))
            .flatten();
        if elem.is_none() {
            err(
                m,
                op.span,
                format!("`mov{ty}` cannot pack or unpack {n} elements"),
                "ISA 8.7.6.3: .b16 holds 2 bytes, .b32 2 or 4 elements, .b64 2 or 4, .b128 2 or 4",
            );
        }
        elem
    };
    let dst = if let Some(n) = packed_d {
        let e = pack_elem(m, &ops[0], n)?;
        cx.dst(&ops[0], e, TypeRule::Strict)
    } else {
        cx.dst(&ops[0], ty, TypeRule::Strict)
    };
    let src = if let Some(n) = packed_s {
        let e = pack_elem(m, &ops[1], n)?;
        cx.src(&ops[1], e, TypeRule::Strict)
    } else if let OperandKind::Index(name, idx) = &ops[1].kind {
        // `mov.u32 ptr, A[5]`: the address of element 5.
        let var = cx.var_ref(name.node, name.span)?;
        let n = cx.const_int(idx)?;
        let elem = cx.var(var).elem_bytes() as i64;
        if ty.is_float() || ty.bits() < 32 || ty == Pred {
            cx.error(
                Diagnostic::error(
                    ops[1].span,
                    format!("the address of a variable is an integer; it cannot be used as {ty}"),
                )
                .with_label("an indexed variable here means the element's address"),
            );
            return None;
        }
        Some(Src::AddressOf(Box::new((var, n * elem))))
    } else {
        cx.src(&ops[1], ty, TypeRule::Strict)
    };
    Some(Mov {
        ty,
        dst: dst?,
        src: src?,
    })
}

/// The element count of a vector operand of `mov`'s pack and unpack forms: `{a, b, ..}`, or a
/// vector register named whole (`.reg .v2 .u32 %v; mov.b64 %rd, %v;`), which stands for its
/// components in order.
fn elements(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<u32> {
    match &op.kind {
        OperandKind::Vector(items) => Some(items.len() as u32),
        OperandKind::Imm(ast::Expr {
            kind: ExprKind::Name(n),
            ..
        }) => match cx.lookup(n) {
            Some(Symbol::Reg(r)) => Some(cx.func.reg(r).vector).filter(|&v| v > 1),
            _ => None,
        },
        _ => None,
    }
}

fn count_dst(d: &Dst) -> u32 {
    match d {
        Dst::Vector(v) => v.len() as u32,
        _ => 1,
    }
}

fn count_src(s: &Src) -> u32 {
    match s {
        Src::Vector(v) => v.len() as u32,
        _ => 1,
    }
}

/// The generic-address windows: `.const`, `.global`, `.local`, `.shared` and kernel `.param`
/// (ISA 8.7.6.11-12 in their current editions).
fn window_space(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>, what: &str) -> Option<StateSpace> {
    if i.modifiers.iter().any(|x| x.node == "param::func") {
        m.flag("param::func");
        err(
            m,
            mod_span(i, "param::func"),
            format!("`{what}` takes kernel parameters (.param::entry), not .param::func"),
            "ISA: .param{::entry}",
        );
        return None;
    }
    let Some(space) = space_modifier(m) else {
        m.error(
            format!("`{what}` needs a state space"),
            "add .global, .shared, .local, .const or .param",
        );
        return None;
    };
    Some(space)
}

/// The width of an address operand: a 32-bit register's, otherwise 64 bits.
fn address_width(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> ScalarType {
    if let OperandKind::Imm(ast::Expr {
        kind: ExprKind::Name(n),
        ..
    }) = &op.kind
        && let Some(Symbol::Reg(r)) = cx.lookup(n)
        && cx.func.reg(r).ty.bits() == 32
    {
        return U32;
    }
    U64
}

/// `cvta.space.size p, a` / `p, var{+imm}` and `cvta.to.space.size p, a`.
pub fn cvta(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Cvta> {
    let to = m.flag("to");
    let space = window_space(i, m, "cvta")?;
    let size = m.ty(&[U32, U64])?;
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], size, TypeRule::Strict);
    let src = cx.src(&ops[1], size, TypeRule::Strict)?;
    if let Src::AddressOf(a) = &src {
        let vs = cx.var(a.0).space;
        if to {
            cx.error(
                Diagnostic::error(
                    ops[1].span,
                    "`cvta.to` converts a generic address in a register, not a variable",
                )
                .with_label("expected a register"),
            );
            return None;
        }
        if vs != space {
            cx.error(
                Diagnostic::error(
                    ops[1].span,
                    format!("the variable is in {vs}, but `cvta` converts {space} addresses"),
                )
                .with_label("state spaces differ"),
            );
            return None;
        }
    }
    Some(Cvta {
        to_generic: !to,
        space,
        size,
        dst: dst?,
        src,
    })
}

/// `isspacep.space p, a` (a generic address in a `.u32` or `.u64` register).
pub fn isspacep(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Isspacep> {
    let space = window_space(i, m, "isspacep")?;
    let ops = operands(cx, i, 2)?;
    let size = address_width(cx, &ops[1]);
    let dst = cx.dst(&ops[0], Pred, TypeRule::Strict);
    let src = cx.src(&ops[1], size, TypeRule::Strict);
    Some(Isspacep {
        space,
        size,
        dst: dst?,
        src: src?,
    })
}

/// `prefetch{.space}.level [a]` and `prefetchu.L1 [a]` (ISA 8.7.6.10): cache hints, checked and
/// then dropped (nothing in Vulkan expresses them, and they change no value).
pub fn prefetch(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    uniform: bool,
) -> Option<()> {
    if uniform {
        if !m.flag("L1") {
            m.error("`prefetchu` needs `.L1`", "ISA: prefetchu.L1 [a]");
        }
    } else {
        let space = m.pick(&[("global", StateSpace::Global), ("local", StateSpace::Local)]);
        let level = m.pick(&[
            ("L1", ()),
            ("L2", ()),
            ("L2::evict_last", ()),
            ("L2::evict_normal", ()),
        ]);
        if level.is_none() {
            m.error(
                "`prefetch` needs a cache level",
                "add .L1 or .L2 (ISA 8.7.6.10)",
            );
        }
        let ops = operands(cx, i, 1)?;
        let addr = cx.address(&ops[0])?;
        if let (Some(s), Some(vs)) = (space, cx.address_space(&addr))
            && s != vs
        {
            cx.error(
                Diagnostic::error(
                    ops[0].span,
                    format!("the variable is in {vs}, but the prefetch names {s}"),
                )
                .with_label("state spaces differ"),
            );
            return None;
        }
        return Some(());
    }
    let ops = operands(cx, i, 1)?;
    cx.address(&ops[0])?;
    Some(())
}
