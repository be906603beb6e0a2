//! Floating-point instructions (ISA 8.7.3, and the half-precision forms of 9.7.4 in newer ISA
//! versions): syntax, type and target rules.
//!
//! Every float form of `add sub mul mad fma div abs neg min max` and the float-only instructions
//! (`testp copysign rcp sqrt rsqrt sin cos lg2 ex2 tanh`) decode to one [`Float`]. Modifiers are
//! read first and judged per instruction and type, so that an error points at the modifier that
//! is wrong (`add.ftz.f64`: the `.ftz`).

use super::float_rules::Seen;
use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Float, FloatOp, Op, Precision, TestOp};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType::{self, *};

const FLOAT_TYPES: &[ScalarType] = &[F16, F16x2, Bf16, Bf16x2, F32, F64];

/// Whether the instruction names a floating-point type (so that `add.f32` comes here and
/// `add.s32` goes to the integer decoder).
pub fn has_float_type(i: &ast::Instruction<'_>) -> bool {
    i.modifiers
        .iter()
        .any(|m| ScalarType::from_name(m.node).is_some_and(|t| FLOAT_TYPES.contains(&t)))
}

/// Decodes a floating-point instruction.
pub fn decode(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Op> {
    let name = i.opcode.node;
    // `mul.wide.f32` and friends: the integer modes are not float modifiers.
    for mode in ["lo", "hi", "wide"] {
        if let Some(s) = m.flag_span(mode) {
            m.error_at(
                s,
                format!("`.{mode}` applies to integer `{name}` only"),
                "remove it",
            );
        }
    }
    let test = if name == "testp" {
        let t = m.pick(&[
            ("finite", TestOp::Finite),
            ("infinite", TestOp::Infinite),
            ("number", TestOp::Number),
            ("notanumber", TestOp::NotANumber),
            ("normal", TestOp::Normal),
            ("subnormal", TestOp::Subnormal),
        ]);
        if t.is_none() {
            m.error(
                "`testp` needs a property such as `.finite` or `.notanumber`",
                "add one",
            );
            return None;
        }
        t
    } else {
        None
    };
    let seen = Seen::read(m);
    let (op, allowed): (FloatOp, &[ScalarType]) = match name {
        "add" => (FloatOp::Add, FLOAT_TYPES),
        "sub" => (FloatOp::Sub, FLOAT_TYPES),
        "mul" => (FloatOp::Mul, FLOAT_TYPES),
        "fma" => (FloatOp::Fma, FLOAT_TYPES),
        "mad" => (FloatOp::Fma, &[F32, F64]),
        "div" => (FloatOp::Div, &[F32, F64]),
        "abs" => (FloatOp::Abs, FLOAT_TYPES),
        "neg" => (FloatOp::Neg, FLOAT_TYPES),
        "min" => (FloatOp::Min, FLOAT_TYPES),
        "max" => (FloatOp::Max, FLOAT_TYPES),
        "copysign" => (FloatOp::Copysign, &[F32, F64]),
        "rcp" => (FloatOp::Rcp, &[F32, F64]),
        "sqrt" => (FloatOp::Sqrt, &[F32, F64]),
        "rsqrt" => (FloatOp::Rsqrt, &[F32, F64]),
        "sin" => (FloatOp::Sin, &[F32]),
        "cos" => (FloatOp::Cos, &[F32]),
        "lg2" => (FloatOp::Lg2, &[F32]),
        "ex2" => (FloatOp::Ex2, FLOAT_TYPES_NO_F64),
        "tanh" => (FloatOp::Tanh, FLOAT_TYPES_NO_F64),
        "testp" => (FloatOp::Testp(test?), &[F32, F64]),
        _ => return None,
    };
    let ty = m.ty(allowed)?;
    let n_src = match op {
        FloatOp::Fma => 3,
        FloatOp::Add
        | FloatOp::Sub
        | FloatOp::Mul
        | FloatOp::Div
        | FloatOp::Min
        | FloatOp::Max
        | FloatOp::Copysign => 2,
        _ => 1,
    };
    // `min`/`max` take a third input since PTX 8.8 (`.f32` only).
    let n_src = if matches!(op, FloatOp::Min | FloatOp::Max) && i.operands.len() == 4 {
        3
    } else {
        n_src
    };
    let mut f = Float {
        op,
        ty,
        dst: Dst::Sink,
        src: Srcs::new(),
        precision: Precision::Exact,
        ftz: seen.ftz.is_some(),
        sat: seen.sat.is_some(),
        relu: seen.relu.is_some(),
        nan: seen.nan.is_some(),
        xorsign: seen.xorsign.is_some(),
        abs: seen.abs.is_some(),
    };
    let ok = super::float_rules::rules(cx, m, &seen, &mut f, n_src, i);
    let ops = operands(cx, i, n_src + 1)?;
    let dst_ty = if matches!(op, FloatOp::Testp(_)) {
        Pred
    } else {
        ty
    };
    let dst = cx.dst(&ops[0], dst_ty, TypeRule::Strict);
    let src: Option<Srcs> = ops[1..]
        .iter()
        .map(|o| cx.src(o, ty, TypeRule::Strict))
        .collect();
    f.dst = dst?;
    f.src = src?;
    ok.then_some(Op::Float(f))
}

const FLOAT_TYPES_NO_F64: &[ScalarType] = &[F16, F16x2, Bf16, Bf16x2, F32];
