//! Integer arithmetic (ISA 8.7.1): syntax and type rules. The floating-point forms are in
//! `float.rs`.

use super::shared::{FLOAT_ROUNDING, INTS, SIGNED, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Arith, MulMode};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType;

const ADD_TYPES: &[ScalarType] = &[
    ScalarType::U16,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::S16,
    ScalarType::S32,
    ScalarType::S64,
];

/// Reads `d, a, b[, c]` with every operand of type `ty` (Table 26).
fn plain(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    ty: ScalarType,
    n: usize,
) -> Option<(Dst, Srcs)> {
    let ops = operands(cx, i, n)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let src: Option<Srcs> = ops[1..]
        .iter()
        .map(|o| cx.src(o, ty, TypeRule::Strict))
        .collect();
    Some((dst?, src?))
}

/// `add` and `sub`.
pub fn add(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let sat = m.flag("sat");
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    let mut a = Arith::new(ty, dst, src);
    if sat && ty != ScalarType::S32 {
        m.error_on(
            "sat",
            format!("`.sat` applies only to .s32, not {ty}"),
            "remove .sat",
        );
    }
    a.sat = sat;
    Some(a)
}

fn int_mode(m: &mut Mods<'_, '_>) -> Option<MulMode> {
    m.pick(&[
        ("lo", MulMode::Lo),
        ("hi", MulMode::Hi),
        ("wide", MulMode::Wide),
    ])
}

fn wide_type(ty: ScalarType) -> Option<ScalarType> {
    let bits = ty.bits() * 2;
    if ty.is_signed() {
        ScalarType::signed_of_bits(bits)
    } else {
        ScalarType::unsigned_of_bits(bits)
    }
}

/// `mul.{lo,hi,wide}.int`.
pub fn mul(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let mode = int_mode(m);
    let ty = m.ty(ADD_TYPES)?;
    let Some(mode) = mode else {
        m.error_on_opcode(
            format!(
                "integer `mul` needs `.lo`, `.hi` or `.wide` (`{}`)",
                m.full_name()
            ),
            "add .lo, .hi or .wide",
        );
        return None;
    };
    let dst_ty = match mode {
        MulMode::Wide => match wide_type(ty).filter(|_| ty.bits() <= 32) {
            Some(t) => t,
            None => {
                m.error_on(
                    "wide",
                    format!("`mul.wide` takes 16- or 32-bit types, not {ty}"),
                    "use .lo or .hi for 64-bit operands",
                );
                return None;
            }
        },
        _ => ty,
    };
    let ops = operands(cx, i, 3)?;
    let dst = cx.dst(&ops[0], dst_ty, TypeRule::Strict);
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], ty, TypeRule::Strict);
    let mut out = Arith::new(ty, dst?, smallvec::smallvec![a?, b?]);
    out.mode = mode;
    Some(out)
}

/// `mad.{lo,hi,wide}{.sat}.int`.
pub fn mad(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let mode = int_mode(m);
    let sat = m.flag("sat");
    let ty = m.ty(ADD_TYPES)?;
    let Some(mode) = mode else {
        m.error_on_opcode(
            format!(
                "integer `mad` needs `.lo`, `.hi` or `.wide` (`{}`)",
                m.full_name()
            ),
            "add .lo, .hi or .wide",
        );
        return None;
    };
    if sat && !(mode == MulMode::Hi && ty == ScalarType::S32) {
        m.error_on(
            "sat",
            "`.sat` applies only to `mad.hi.sat.s32`",
            "remove .sat",
        );
    }
    let wide = match mode {
        MulMode::Wide => match wide_type(ty).filter(|_| ty.bits() <= 32) {
            Some(t) => t,
            None => {
                m.error_on(
                    "wide",
                    format!("`mad.wide` takes 16- or 32-bit types, not {ty}"),
                    "use .lo or .hi for 64-bit operands",
                );
                return None;
            }
        },
        _ => ty,
    };
    let ops = operands(cx, i, 4)?;
    let dst = cx.dst(&ops[0], wide, TypeRule::Strict);
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], ty, TypeRule::Strict);
    let c = cx.src(&ops[3], wide, TypeRule::Strict);
    let mut out = Arith::new(ty, dst?, smallvec::smallvec![a?, b?, c?]);
    out.mode = mode;
    out.sat = sat;
    Some(out)
}

/// `div.int`: integer division takes none of the float modifiers.
pub fn div(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let approx = m.flag("approx");
    let full = m.flag("full");
    let rnd = m.pick(&FLOAT_ROUNDING);
    let ftz = m.flag("ftz");
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    let rounding = FLOAT_ROUNDING.iter().filter(|(_, r)| Some(*r) == rnd);
    let written = [("approx", approx), ("full", full), ("ftz", ftz)]
        .into_iter()
        .filter(|(_, on)| *on)
        .chain(rounding.map(|(name, _)| (*name, true)));
    for (name, _) in written {
        m.error_on(
            name,
            "integer `div` takes no rounding or precision modifiers",
            "remove it",
        );
    }
    Some(Arith::new(ty, dst, src))
}

pub fn rem(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(INTS)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    Some(Arith::new(ty, dst, src))
}

/// `abs` and `neg` of signed integers.
pub fn abs_neg(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    _neg: bool,
) -> Option<Arith> {
    let ty = m.ty(SIGNED)?;
    let (dst, src) = plain(cx, i, ty, 2)?;
    Some(Arith::new(ty, dst, src))
}

/// `min`/`max` of integers.
pub fn min_max(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    Some(Arith::new(ty, dst, src))
}
