//! Floating-point instructions (ISA 8.7.3, and the half-precision forms of 9.7.4 in newer ISA
//! versions): syntax, type and target rules.
//!
//! Every float form of `add sub mul mad fma div abs neg min max` and the float-only instructions
//! (`testp copysign rcp sqrt rsqrt sin cos lg2 ex2 tanh`) decode to one [`Float`]. Modifiers are
//! read first and judged per instruction and type, so that an error points at the modifier that
//! is wrong (`add.ftz.f64`: the `.ftz`).

use super::{FLOAT_ROUNDING, Op, Rounding, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::Span;
use crate::types::ScalarType::{self, *};

/// What a [`Float`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    /// `fma`, and `mad` (the same instruction since sm_20).
    Fma,
    Div,
    Abs,
    Neg,
    Min,
    Max,
    Copysign,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Testp(TestOp),
}

/// The properties `testp` tests (ISA 8.7.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// How the result is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// No modifier on `add/sub/mul` (and the half forms): round to nearest even, but the
    /// optimizer may contract it into a multiply-add.
    Default,
    /// An explicit IEEE rounding mode (`.rn .rz .rm .rp`).
    Round(Rounding),
    /// `.approx`: the ISA states an error bound instead.
    Approx,
    /// `.full` of `div.f32`.
    Full,
    /// Operations with no rounding at all (`abs neg min max copysign testp`).
    Exact,
}

#[derive(Clone, Debug)]
pub struct Float {
    pub op: FloatOp,
    /// `.f16 .f16x2 .bf16 .bf16x2 .f32 .f64`.
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Srcs,
    pub precision: Precision,
    pub ftz: bool,
    /// `.sat`: clamp to [0, 1], NaN to +0.
    pub sat: bool,
    /// `.relu` of half `fma`: negative results become +0, NaN the canonical NaN.
    pub relu: bool,
    /// `.NaN` of `min`/`max`.
    pub nan: bool,
    /// `.xorsign.abs` of `min`/`max` (two inputs).
    pub xorsign: bool,
    /// `.abs` of `min`/`max` (with `.xorsign`, or alone with three inputs).
    pub abs: bool,
}

impl Float {
    pub fn is_packed(&self) -> bool {
        matches!(self.ty, F16x2 | Bf16x2)
    }
}

const FLOAT_TYPES: &[ScalarType] = &[F16, F16x2, Bf16, Bf16x2, F32, F64];

/// Whether the instruction names a floating-point type (so that `add.f32` comes here and
/// `add.s32` goes to the integer decoder).
pub fn has_float_type(i: &ast::Instruction<'_>) -> bool {
    i.modifiers
        .iter()
        .any(|m| ScalarType::from_name(m.node).is_some_and(|t| FLOAT_TYPES.contains(&t)))
}

/// The modifiers a float instruction may carry, with where they were written.
#[derive(Default)]
pub(super) struct Seen {
    pub rnd: Option<(Rounding, Span)>,
    pub approx: Option<Span>,
    pub full: Option<Span>,
    pub ftz: Option<Span>,
    pub sat: Option<Span>,
    pub relu: Option<Span>,
    pub nan: Option<Span>,
    pub xorsign: Option<Span>,
    pub abs: Option<Span>,
    pub oob: Option<Span>,
}

impl Seen {
    fn read(m: &mut Mods<'_, '_>) -> Self {
        Seen {
            rnd: m.pick_span(&FLOAT_ROUNDING),
            approx: m.flag_span("approx"),
            full: m.flag_span("full"),
            ftz: m.flag_span("ftz"),
            sat: m.flag_span("sat"),
            relu: m.flag_span("relu"),
            nan: m.flag_span("NaN"),
            xorsign: m.flag_span("xorsign"),
            abs: m.flag_span("abs"),
            oob: m.flag_span("oob"),
        }
    }
}

/// Errors for modifiers that `ty` or the instruction does not take.
pub(super) struct Rules<'m, 'a, 'b> {
    pub m: &'m mut Mods<'a, 'b>,
    pub ty: ScalarType,
}

impl Rules<'_, '_, '_> {
    pub fn forbid(&mut self, span: Option<Span>, name: &str, why: &str) {
        if let Some(s) = span {
            let msg = format!(
                "`.{name}` is not allowed on `{}{}`: {why}",
                self.m.opcode(),
                self.ty
            );
            self.m.error_at(s, msg, "remove this modifier");
        }
    }
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
