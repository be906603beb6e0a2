//! Data movement and conversion (ISA 8.7.6): syntax and type rules.

use super::{FLOAT_ROUNDING, INT_ROUNDING, Rounding, operands, space_modifier};
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace, TypeKind};

use ScalarType::*;

#[derive(Clone, Debug)]
pub struct Mov {
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Src,
}

/// Memory-ordering qualifiers of `ld`/`st` (ISA 8.7.6.6/8.7.6.9 and the memory model chapter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSem {
    Weak,
    Volatile,
    Relaxed(Scope),
    Acquire(Scope),
    Release(Scope),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

#[derive(Clone, Debug)]
pub struct Ld {
    pub space: StateSpace,
    pub ty: ScalarType,
    /// 1, 2, 4 or 8 elements.
    pub vec: u32,
    pub sem: MemSem,
    /// `ld.global.nc`: through the non-coherent (read-only) path.
    pub nc: bool,
    pub dst: Dst,
    pub addr: Address,
}

#[derive(Clone, Debug)]
pub struct St {
    pub space: StateSpace,
    pub ty: ScalarType,
    pub vec: u32,
    pub sem: MemSem,
    pub addr: Address,
    pub src: Src,
}

#[derive(Clone, Debug)]
pub struct Cvta {
    /// `cvta.space` (space -> generic) or `cvta.to.space` (generic -> space).
    pub to_generic: bool,
    pub space: StateSpace,
    /// `.u32` or `.u64`.
    pub size: ScalarType,
    pub dst: Dst,
    pub src: Src,
}

#[derive(Clone, Debug)]
pub struct Cvt {
    pub dst_ty: ScalarType,
    pub src_ty: ScalarType,
    pub rnd: Option<Rounding>,
    pub ftz: bool,
    pub sat: bool,
    pub dst: Dst,
    pub src: Src,
}

const MOV_TYPES: &[ScalarType] = &[
    Pred, B16, B32, B64, B128, U16, U32, U64, S16, S32, S64, F16, F32, F64,
];

const MEM_TYPES: &[ScalarType] = &[
    B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32,
    F64,
];

fn vector_mod(m: &mut Mods<'_, '_>) -> u32 {
    m.pick(&[("v2", 2u32), ("v4", 4u32), ("v8", 8u32)])
        .unwrap_or(1)
}

/// `mov.type d, a`; `mov.bN d, {a, b}` packs and `mov.bN {a, b}, s` unpacks (ISA 8.7.6.3).
pub fn mov(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Mov> {
    let vec = vector_mod(m);
    let ty = m.ty(MOV_TYPES)?;
    let ops = operands(cx, i, 2)?;
    let elem = |n: usize| -> Option<ScalarType> {
        (n > 1 && ty.kind() == TypeKind::Bits && ty.bits() as usize % n == 0)
            .then(|| ScalarType::bits_of(ty.bits() / n as u32))
            .flatten()
    };
    if vec > 1 {
        let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
        let src = cx.src(&ops[1], ty, TypeRule::Strict);
        return Some(Mov {
            ty,
            dst: dst?,
            src: src?,
        });
    }
    let dst = match &ops[0].kind {
        OperandKind::Vector(items) => match elem(items.len()) {
            Some(e) => cx.dst(&ops[0], e, TypeRule::Strict),
            None => {
                m.error(
                    format!("`mov{ty}` cannot unpack into {} elements", items.len()),
                    "unpacking needs a .bN type divisible into the elements",
                );
                return None;
            }
        },
        _ => cx.dst(&ops[0], ty, TypeRule::Strict),
    };
    let src = match &ops[1].kind {
        OperandKind::Vector(items) => match elem(items.len()) {
            Some(e) => cx.src(&ops[1], e, TypeRule::Strict),
            None => {
                m.error(
                    format!("`mov{ty}` cannot pack {} elements", items.len()),
                    "packing needs a .bN type divisible into the elements",
                );
                return None;
            }
        },
        _ => cx.src(&ops[1], ty, TypeRule::Strict),
    };
    Some(Mov {
        ty,
        dst: dst?,
        src: src?,
    })
}

fn scope(m: &mut Mods<'_, '_>) -> Option<Scope> {
    m.pick(&[
        ("cta", Scope::Cta),
        ("cluster", Scope::Cluster),
        ("gpu", Scope::Gpu),
        ("sys", Scope::Sys),
    ])
}

/// `.weak`, `.volatile`, `.relaxed.scope`, `.acquire.scope` / `.release.scope`.
fn mem_sem(m: &mut Mods<'_, '_>, store: bool) -> MemSem {
    let order = if store { "release" } else { "acquire" };
    let kind = m.pick(&[("weak", 0u8), ("volatile", 1), ("relaxed", 2), (order, 3)]);
    let sc = scope(m);
    let sem = match kind {
        None | Some(0) => MemSem::Weak,
        Some(1) => MemSem::Volatile,
        Some(k) => {
            let Some(s) = sc else {
                m.error(
                    "`.relaxed`, `.acquire` and `.release` need a scope",
                    "add .cta, .gpu or .sys",
                );
                return MemSem::Weak;
            };
            if k == 2 {
                MemSem::Relaxed(s)
            } else if store {
                MemSem::Release(s)
            } else {
                MemSem::Acquire(s)
            }
        }
    };
    if sc.is_some() && matches!(sem, MemSem::Weak | MemSem::Volatile) {
        m.error(
            "a scope needs `.relaxed`, `.acquire` or `.release`",
            "scope without ordering",
        );
    }
    sem
}

/// Cache operators and eviction hints: accepted and ignored (they do not change results).
fn cache_hints(m: &mut Mods<'_, '_>) {
    for h in ["ca", "cg", "cs", "lu", "cv", "wb", "wt", "unified", "mmio"] {
        m.flag(h);
    }
    for h in [
        "L1::evict_normal",
        "L1::evict_unchanged",
        "L1::evict_first",
        "L1::evict_last",
        "L1::no_allocate",
        "L2::evict_normal",
        "L2::evict_first",
        "L2::evict_last",
        "L2::cache_hint",
        "L2::64B",
        "L2::128B",
        "L2::256B",
    ] {
        m.flag(h);
    }
}

fn check_space(cx: &mut FnCx<'_, '_>, space: StateSpace, addr: &Address, span: crate::diag::Span) {
    if let Some(vs) = cx.address_space(addr)
        && space != StateSpace::Generic
        && vs != space
    {
        cx.error(
            Diagnostic::error(
                span,
                format!("the variable is in {vs}, but the instruction accesses {space}"),
            )
            .with_label("state spaces differ"),
        );
    }
}

/// `ld{.sem}{.space}{.cop}{.vec}.type d, [a]`.
pub fn ld(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Ld> {
    let sem = mem_sem(m, false);
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    let nc = m.flag("nc");
    cache_hints(m);
    let vec = vector_mod(m);
    let ty = m.ty(MEM_TYPES)?;
    if nc && space != StateSpace::Global {
        m.error("`.nc` applies to `ld.global` only", "remove .nc");
    }
    if i.operands.len() == 3 {
        // The optional cache-policy operand of `.L2::cache_hint`.
    } else {
        operands(cx, i, 2)?;
    }
    let dst = cx.dst(&i.operands[0], ty, TypeRule::Relaxed)?;
    if !vector_shape_ok(cx, &dst, vec, &i.operands[0]) {
        return None;
    }
    let addr = cx.address(&i.operands[1])?;
    check_space(cx, space, &addr, i.operands[1].span);
    Some(Ld {
        space,
        ty,
        vec,
        sem,
        nc,
        dst,
        addr,
    })
}

fn vector_shape_ok(cx: &mut FnCx<'_, '_>, d: &Dst, vec: u32, op: &ast::Operand<'_>) -> bool {
    let n = match d {
        Dst::Vector(v) => v.len() as u32,
        _ => 1,
    };
    if n != vec {
        cx.error(
            Diagnostic::error(
                op.span,
                format!(
                    "expected {vec} element{}, found {n}",
                    if vec == 1 { "" } else { "s" }
                ),
            )
            .with_label("vector size does not match the .vN modifier"),
        );
        return false;
    }
    true
}

/// `st{.sem}{.space}{.cop}{.vec}.type [a], b`.
pub fn st(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<St> {
    let sem = mem_sem(m, true);
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    cache_hints(m);
    let vec = vector_mod(m);
    let ty = m.ty(MEM_TYPES)?;
    if space == StateSpace::Const {
        m.error(
            "`st` cannot write to the .const space",
            "constant memory is read-only",
        );
        return None;
    }
    if i.operands.len() != 3 {
        operands(cx, i, 2)?;
    }
    let addr = cx.address(&i.operands[0])?;
    check_space(cx, space, &addr, i.operands[0].span);
    let src = cx.src(&i.operands[1], ty, TypeRule::Relaxed)?;
    let n = match &src {
        Src::Vector(v) => v.len() as u32,
        _ => 1,
    };
    if n != vec {
        cx.error(
            Diagnostic::error(
                i.operands[1].span,
                format!("expected {vec} elements, found {n}"),
            )
            .with_label("vector size does not match the .vN modifier"),
        );
        return None;
    }
    Some(St {
        space,
        ty,
        vec,
        sem,
        addr,
        src,
    })
}

/// `cvta.space.size p, a` and `cvta.to.space.size p, a`.
pub fn cvta(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Cvta> {
    let to = m.flag("to");
    let Some(space) = space_modifier(m) else {
        m.error(
            "`cvta` needs a state space",
            "add .global, .shared, .local, .const or .param",
        );
        return None;
    };
    let size = m.ty(&[U32, U64])?;
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], size, TypeRule::Strict);
    let src = cx.src(&ops[1], size, TypeRule::Strict);
    Some(Cvta {
        to_generic: !to,
        space,
        size,
        dst: dst?,
        src: src?,
    })
}

#[derive(Clone, Debug)]
pub struct Isspacep {
    pub space: StateSpace,
    pub dst: Dst,
    pub src: Src,
}

/// `isspacep.space p, a` (a generic address, `.u32` or `.u64` register or variable).
pub fn isspacep(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Isspacep> {
    let Some(space) = space_modifier(m) else {
        m.error(
            "`isspacep` needs a state space",
            "add .global, .shared, .local, .const or .param",
        );
        return None;
    };
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], Pred, TypeRule::Strict);
    let src = cx.src(&ops[1], U64, TypeRule::Strict);
    Some(Isspacep {
        space,
        dst: dst?,
        src: src?,
    })
}

const CVT_TYPES: &[ScalarType] = &[U8, U16, U32, U64, S8, S16, S32, S64, F16, Bf16, F32, F64];

/// `cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a` with ISA 8.7.6.13's rounding rules.
pub fn cvt(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Cvt> {
    let irnd = m.pick(&INT_ROUNDING);
    let frnd = m.pick(&FLOAT_ROUNDING);
    let ftz = m.flag("ftz");
    let sat = m.flag("sat");
    let dst_ty = m.ty(CVT_TYPES)?;
    let src_ty = m.ty(CVT_TYPES)?;
    if irnd.is_some() && frnd.is_some() {
        m.error(
            "`cvt` takes one rounding modifier",
            "conflicting rounding modifiers",
        );
    }
    let rnd = irnd.or(frnd);
    let (df, sf) = (dst_ty.is_float(), src_ty.is_float());
    let rule = match (sf, df) {
        (true, false) => {
            if irnd.is_none() {
                Some(
                    "a float-to-integer `cvt` needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)",
                )
            } else {
                None
            }
        }
        (false, true) => {
            if frnd.is_none() {
                Some("an integer-to-float `cvt` needs a rounding modifier (.rn, .rz, .rm, .rp)")
            } else {
                None
            }
        }
        (true, true) if dst_ty.bits() < src_ty.bits() => {
            if frnd.is_none() {
                Some("a narrowing float `cvt` needs a rounding modifier (.rn, .rz, .rm, .rp)")
            } else {
                None
            }
        }
        (true, true) if dst_ty.bits() > src_ty.bits() => {
            if rnd.is_some() {
                Some("a widening float `cvt` is exact; it takes no rounding modifier")
            } else {
                None
            }
        }
        (true, true) => {
            if frnd.is_some() {
                Some("a same-size float `cvt` takes only integer rounding (.rni, .rzi, .rmi, .rpi)")
            } else {
                None
            }
        }
        (false, false) => {
            if rnd.is_some() {
                Some("an integer-to-integer `cvt` takes no rounding modifier")
            } else {
                None
            }
        }
    };
    if let Some(msg) = rule {
        m.error(msg, "ISA 8.7.6.13");
    }
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], dst_ty, TypeRule::Relaxed);
    let src = cx.src(&ops[1], src_ty, TypeRule::Relaxed);
    Some(Cvt {
        dst_ty,
        src_ty,
        rnd,
        ftz,
        sat,
        dst: dst?,
        src: src?,
    })
}
