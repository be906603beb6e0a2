//! Miscellaneous instructions (ISA 9.7.19 in later numbering): `nanosleep`, `griddepcontrol`,
//! `setmaxnreg`, `createpolicy`; and the cluster queries `mapa` and `getctarank`.

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{ClusterQuery, NoEffect};
use crate::check::operands::TypeRule;
use crate::check::typed::{Dst, Src};
use crate::types::ScalarType;

/// `nanosleep.u32 t;`: suspend the thread for about `t` nanoseconds (at most 1 ms).
pub fn nanosleep(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Src> {
    m.ty(&[ScalarType::U32])?;
    let ops = operands(cx, i, 1)?;
    cx.src(&ops[0], ScalarType::U32, TypeRule::Strict)
}

/// `griddepcontrol.launch_dependents;` and `griddepcontrol.wait;`
pub fn griddepcontrol(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<NoEffect> {
    if m.pick(&[("launch_dependents", ()), ("wait", ())]).is_none() {
        m.error(
            "`griddepcontrol` needs an action",
            "add .launch_dependents or .wait",
        );
        return None;
    }
    operands(cx, i, 0)?;
    Some(NoEffect::GridDepControl)
}

/// `setmaxnreg.action.sync.aligned.u32 imm-reg-count;`: the count a constant in 24..=256, a
/// multiple of 8 (ISA).
pub fn setmaxnreg(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<NoEffect> {
    if m.pick(&[("inc", ()), ("dec", ())]).is_none() {
        m.error("`setmaxnreg` needs `.inc` or `.dec`", "add one");
    }
    for required in ["sync", "aligned"] {
        if !m.flag(required) {
            m.error(
                format!("`setmaxnreg` needs `.{required}`"),
                "write setmaxnreg.inc.sync.aligned.u32",
            );
        }
    }
    m.ty(&[ScalarType::U32])?;
    let ops = operands(cx, i, 1)?;
    let count = cx.src(&ops[0], ScalarType::U32, TypeRule::Strict)?;
    match count {
        Src::Imm(n) if (24..=256).contains(&n) && n % 8 == 0 => Some(NoEffect::SetMaxNreg),
        _ => {
            m.error_at(
                ops[0].span,
                "the register count of `setmaxnreg` is a constant multiple of 8 in 24..=256",
                "here",
            );
            None
        }
    }
}

/// `createpolicy` in its three forms; the destination gets an opaque 64-bit cache policy.
///
/// ```text
/// createpolicy.fractional.L2::primary{.L2::secondary}.b64 policy{, fraction};
/// createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 policy, [a], primary-size, total-size;
/// createpolicy.cvt.L2.b64 policy, access-property;
/// ```
pub fn createpolicy(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Dst> {
    let form = m.pick(&[("fractional", 0), ("range", 1), ("cvt", 2)]);
    let Some(form) = form else {
        m.error(
            "`createpolicy` needs a form",
            "add .fractional, .range or .cvt",
        );
        return None;
    };
    if form == 2 {
        if !m.flag("L2") {
            m.error(
                "`createpolicy.cvt` needs `.L2`",
                "write createpolicy.cvt.L2.b64",
            );
        }
    } else {
        if form == 1 {
            m.flag("global");
        }
        priorities(i, m);
    }
    m.ty(&[ScalarType::B64])?;
    let ops = &i.operands;
    match (form, ops.len()) {
        (0, 1 | 2) => {
            if let Some(f) = ops.get(1) {
                cx.src(f, ScalarType::F32, TypeRule::Strict)?;
            }
        }
        (1, 4) => {
            cx.address(&ops[1])?;
            cx.src(&ops[2], ScalarType::B32, TypeRule::Strict)?;
            cx.src(&ops[3], ScalarType::B32, TypeRule::Strict)?;
        }
        (2, 2) => {
            cx.src(&ops[1], ScalarType::B64, TypeRule::Strict)?;
        }
        _ => {
            operands(cx, i, [2, 4, 2][form])?;
            return None;
        }
    }
    cx.dst(&ops[0], ScalarType::B64, TypeRule::Strict)
}

/// The primary priority and the optional secondary one, in written order (both may name
/// `.L2::evict_first`).
fn priorities(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) {
    const PRIMARY: [&str; 4] = [
        "L2::evict_last",
        "L2::evict_normal",
        "L2::evict_first",
        "L2::evict_unchanged",
    ];
    const SECONDARY: [&str; 2] = ["L2::evict_first", "L2::evict_unchanged"];
    let mut written = i
        .modifiers
        .iter()
        .filter(|x| x.node.starts_with("L2::evict"));
    match written.next() {
        Some(p) if PRIMARY.contains(&p.node) => {
            m.flag(p.node);
        }
        _ => {
            m.error(
                "`createpolicy` needs a primary priority",
                "add .L2::evict_last, .L2::evict_normal, .L2::evict_first or .L2::evict_unchanged",
            );
            return;
        }
    }
    if let Some(s) = written.next()
        && SECONDARY.contains(&s.node)
    {
        m.flag(s.node);
    }
}

/// `mapa{.shared::cluster}.type d, a, b;` and `getctarank{.shared::cluster}.type d, a;`
/// (`.u32` or `.u64`).
pub fn cluster_query(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    mapa: bool,
) -> Option<ClusterQuery> {
    m.flag("shared::cluster");
    let ty = m.ty(&[ScalarType::U32, ScalarType::U64])?;
    let ops = operands(cx, i, if mapa { 3 } else { 2 })?;
    let dst = cx.dst(
        &ops[0],
        if mapa { ty } else { ScalarType::U32 },
        TypeRule::Strict,
    );
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    if mapa {
        cx.src(&ops[2], ScalarType::U32, TypeRule::Strict)?;
    }
    Some(ClusterQuery {
        mapa,
        ty,
        dst: dst?,
        a: a?,
    })
}
