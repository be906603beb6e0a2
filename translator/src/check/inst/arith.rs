//! Integer and floating-point arithmetic (ISA 8.7.1, 8.7.3): syntax and type rules.

use super::{FLOAT_ROUNDING, FLOATS, INTS, Rounding, SIGNED, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType;

/// The common shape of arithmetic instructions: `op.mods.type d, a, b, ...`.
#[derive(Clone, Debug)]
pub struct Arith {
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Vec<Src>,
    pub rnd: Option<Rounding>,
    pub ftz: bool,
    pub sat: bool,
    /// `.lo/.hi/.wide` of `mul` and `mad`.
    pub mode: MulMode,
    /// `.approx` (or `.full` for `div`).
    pub approx: bool,
    pub full: bool,
    /// `.NaN` of `min`/`max`.
    pub nan: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

impl Arith {
    pub(super) fn new(ty: ScalarType, dst: Dst, src: Vec<Src>) -> Self {
        Arith {
            ty,
            dst,
            src,
            rnd: None,
            ftz: false,
            sat: false,
            mode: MulMode::Lo,
            approx: false,
            full: false,
            nan: false,
        }
    }
}

const ADD_TYPES: &[ScalarType] = &[
    ScalarType::U16,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::S16,
    ScalarType::S32,
    ScalarType::S64,
    ScalarType::F32,
    ScalarType::F64,
];

/// Reads `d, a, b[, c]` with every operand of type `ty` (Table 26).
fn plain(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    ty: ScalarType,
    n: usize,
) -> Option<(Dst, Vec<Src>)> {
    let ops = operands(cx, i, n)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let src: Option<Vec<Src>> = ops[1..]
        .iter()
        .map(|o| cx.src(o, ty, TypeRule::Strict))
        .collect();
    Some((dst?, src?))
}

/// Float modifiers shared by add/sub/mul/fma: `.rnd`, `.ftz` (f32 only), `.sat` (f32 only).
fn float_mods(m: &mut Mods<'_, '_>, a: &mut Arith) {
    a.rnd = m.pick(&FLOAT_ROUNDING);
    if a.ty == ScalarType::F32 {
        a.ftz = m.flag("ftz");
        a.sat = m.flag("sat");
    }
}

/// `add` and `sub`.
pub fn add(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let sat = m.flag("sat");
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    let mut a = Arith::new(ty, dst, src);
    if ty.is_float() {
        float_mods(m, &mut a);
        a.sat |= sat && ty == ScalarType::F32;
        if sat && ty == ScalarType::F64 {
            m.error("`.sat` is not allowed with .f64", "remove .sat");
        }
    } else {
        if sat && ty != ScalarType::S32 {
            m.error_on(
                "sat",
                format!("`.sat` applies only to .s32, not {ty}"),
                "remove .sat",
            );
        }
        a.sat = sat;
    }
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

/// `mul.{lo,hi,wide}.int` and `mul{.rnd}{.ftz}{.sat}.float`.
pub fn mul(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let mode = int_mode(m);
    let ty = m.ty(ADD_TYPES)?;
    if ty.is_float() {
        if mode.is_some() {
            m.error("`.lo/.hi/.wide` apply to integer `mul` only", "remove it");
        }
        let (dst, src) = plain(cx, i, ty, 3)?;
        let mut a = Arith::new(ty, dst, src);
        float_mods(m, &mut a);
        return Some(a);
    }
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
    let mut out = Arith::new(ty, dst?, vec![a?, b?]);
    out.mode = mode;
    Some(out)
}

/// `mad.{lo,hi,wide}{.sat}.int` and `mad.rnd{.ftz}{.sat}.float`.
pub fn mad(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let mode = int_mode(m);
    let sat = m.flag("sat");
    let ty = m.ty(ADD_TYPES)?;
    if ty.is_float() {
        let (dst, src) = plain(cx, i, ty, 4)?;
        let mut a = Arith::new(ty, dst, src);
        float_mods(m, &mut a);
        a.sat |= sat;
        if a.rnd.is_none() && cx.m.sm >= 20 {
            m.error(
                format!("`mad{}` needs a rounding modifier on sm_20 and later", ty),
                "add .rn (mad.rn is fma)",
            );
        }
        return Some(a);
    }
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
    let mut out = Arith::new(ty, dst?, vec![a?, b?, c?]);
    out.mode = mode;
    out.sat = sat;
    Some(out)
}

/// `fma.rnd{.ftz}{.sat}.f32`, `fma.rnd.f64`.
pub fn fma(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(FLOATS)?;
    let (dst, src) = plain(cx, i, ty, 4)?;
    let mut a = Arith::new(ty, dst, src);
    float_mods(m, &mut a);
    if a.rnd.is_none() {
        m.error(
            "`fma` needs a rounding modifier",
            "add .rn, .rz, .rm or .rp",
        );
    }
    Some(a)
}

/// `div.int`, `div.approx/.full{.ftz}.f32`, `div.rnd{.ftz}.f32`, `div.rnd.f64`.
pub fn div(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let approx = m.flag("approx");
    let full = m.flag("full");
    let rnd = m.pick(&FLOAT_ROUNDING);
    let ftz = m.flag("ftz");
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    let mut a = Arith::new(ty, dst, src);
    if ty.is_float() {
        let modes = usize::from(approx) + usize::from(full) + usize::from(rnd.is_some());
        if modes > 1 {
            m.error(
                "`div` takes one of `.approx`, `.full` or a rounding modifier",
                "conflicting modes",
            );
        }
        if ty == ScalarType::F64 && (approx || full) {
            m.error(
                "`.approx` and `.full` apply to `div.f32` only",
                "use a rounding modifier",
            );
        }
        if modes == 0 && cx.m.version >= (1, 4) {
            m.error(
                format!("`div{ty}` needs `.approx`, `.full` or a rounding modifier"),
                "add one",
            );
        }
        a.approx = approx;
        a.full = full;
        a.rnd = rnd;
        a.ftz = ftz && ty == ScalarType::F32;
        if ftz && ty == ScalarType::F64 {
            m.error("`.ftz` is not allowed with .f64", "remove it");
        }
    } else {
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
    }
    Some(a)
}

pub fn rem(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(INTS)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    Some(Arith::new(ty, dst, src))
}

/// `abs` and `neg`: signed integers, floats (`.ftz` on f32).
pub fn abs_neg(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    _neg: bool,
) -> Option<Arith> {
    let ftz = m.flag("ftz");
    let mut allowed = SIGNED.to_vec();
    allowed.extend_from_slice(FLOATS);
    let ty = m.ty(&allowed)?;
    let (dst, src) = plain(cx, i, ty, 2)?;
    let mut a = Arith::new(ty, dst, src);
    if ftz && ty != ScalarType::F32 {
        m.error(
            format!("`.ftz` applies to .f32 only, not {ty}"),
            "remove it",
        );
    }
    a.ftz = ftz;
    Some(a)
}

/// `min`/`max`: integers, `{.ftz}{.NaN}.f32`, `.f64`.
pub fn min_max(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ftz = m.flag("ftz");
    let nan = m.flag("NaN");
    let ty = m.ty(ADD_TYPES)?;
    let (dst, src) = plain(cx, i, ty, 3)?;
    let mut a = Arith::new(ty, dst, src);
    if (ftz || nan) && ty != ScalarType::F32 {
        m.error(
            format!("`.ftz` and `.NaN` apply to .f32 only, not {ty}"),
            "remove it",
        );
    }
    a.ftz = ftz;
    a.nan = nan;
    Some(a)
}
