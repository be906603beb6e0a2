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
    pub src: Vec<Src>,
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
struct Seen {
    rnd: Option<(Rounding, Span)>,
    approx: Option<Span>,
    full: Option<Span>,
    ftz: Option<Span>,
    sat: Option<Span>,
    relu: Option<Span>,
    nan: Option<Span>,
    xorsign: Option<Span>,
    abs: Option<Span>,
    oob: Option<Span>,
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
struct Rules<'m, 'a, 'b> {
    m: &'m mut Mods<'a, 'b>,
    ty: ScalarType,
}

impl Rules<'_, '_, '_> {
    fn forbid(&mut self, span: Option<Span>, name: &str, why: &str) {
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
        src: Vec::new(),
        precision: Precision::Exact,
        ftz: seen.ftz.is_some(),
        sat: seen.sat.is_some(),
        relu: seen.relu.is_some(),
        nan: seen.nan.is_some(),
        xorsign: seen.xorsign.is_some(),
        abs: seen.abs.is_some(),
    };
    let ok = rules(cx, m, &seen, &mut f, n_src, i);
    let ops = operands(cx, i, n_src + 1)?;
    let dst_ty = if matches!(op, FloatOp::Testp(_)) {
        Pred
    } else {
        ty
    };
    let dst = cx.dst(&ops[0], dst_ty, TypeRule::Strict);
    let src: Option<Vec<Src>> = ops[1..]
        .iter()
        .map(|o| cx.src(o, ty, TypeRule::Strict))
        .collect();
    f.dst = dst?;
    f.src = src?;
    ok.then_some(Op::Float(f))
}

const FLOAT_TYPES_NO_F64: &[ScalarType] = &[F16, F16x2, Bf16, Bf16x2, F32];

/// The target and PTX version an instruction form needs.
fn require(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    span: Span,
    sm: u32,
    ptx: (u32, u32),
    what: &str,
) {
    if cx.m.sm != 0 && cx.m.sm < sm {
        m.error_at(
            span,
            format!(
                "{what} requires sm_{sm} or higher (the module targets sm_{})",
                cx.m.sm
            ),
            "not available on this target",
        );
    }
    if cx.m.version < ptx {
        m.error_at(
            span,
            format!(
                "{what} requires PTX ISA {}.{} or later (the module is {}.{})",
                ptx.0, ptx.1, cx.m.version.0, cx.m.version.1
            ),
            "not available in this PTX version",
        );
    }
}

/// The ISA's rules for each instruction and type; fills `f.precision`. Returns whether the
/// form is valid (errors are on `m`).
fn rules(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    s: &Seen,
    f: &mut Float,
    n_src: usize,
    i: &ast::Instruction<'_>,
) -> bool {
    let before = m.errors.len();
    let ty = f.ty;
    let half = matches!(ty, F16 | F16x2 | Bf16 | Bf16x2);
    let bf = matches!(ty, Bf16 | Bf16x2);
    let whole = m.span();
    let name = i.opcode.node;
    let sm = cx.m.sm;
    let version = cx.m.version;
    let rnd = s.rnd.map(|r| r.0);
    let mut r = Rules { m, ty };
    // Modifiers that only some instructions take at all.
    if !matches!(f.op, FloatOp::Min | FloatOp::Max) {
        r.forbid(s.nan, "NaN", "only `min` and `max` take it");
        r.forbid(s.xorsign, "xorsign", "only `min` and `max` take it");
        r.forbid(s.abs, "abs", "only `min` and `max` take it");
    }
    if f.op != FloatOp::Fma || !half {
        r.forbid(s.relu, "relu", "only half-precision `fma` takes it");
    }
    if f.op != FloatOp::Div {
        r.forbid(s.full, "full", "only `div.f32` takes it");
    }
    let takes_sat = matches!(
        f.op,
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
    ) && matches!(ty, F32 | F16 | F16x2);
    if !takes_sat {
        r.forbid(
            s.sat,
            "sat",
            "saturation applies to .f32, .f16 and .f16x2 add, sub, mul, fma and mad",
        );
    }
    // `.ftz` exists for .f32 (and .f16/.f16x2 forms) except where noted.
    let takes_ftz = match f.op {
        FloatOp::Copysign | FloatOp::Testp(_) | FloatOp::Tanh => false,
        FloatOp::Ex2 => matches!(ty, F32 | Bf16 | Bf16x2),
        FloatOp::Rcp | FloatOp::Rsqrt => matches!(ty, F32 | F64),
        _ => matches!(ty, F32 | F16 | F16x2),
    };
    if !takes_ftz {
        let why = if ty == F64 {
            "double precision has no flush-to-zero form"
        } else {
            "this form has no flush-to-zero modifier"
        };
        r.forbid(s.ftz, "ftz", why);
    }
    let has_rounding = matches!(
        f.op,
        FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Fma
            | FloatOp::Div
            | FloatOp::Rcp
            | FloatOp::Sqrt
    );
    if !has_rounding {
        if let Some((_, sp)) = s.rnd {
            let msg = format!("`{name}{ty}` takes no rounding modifier");
            r.m.error_at(sp, msg, "remove it");
        }
    } else if half {
        if let Some((rm, sp)) = s.rnd.filter(|(rm, _)| *rm != Rounding::Rn) {
            let msg = format!(
                "half-precision `{name}` rounds to nearest even only; `.{}` is not allowed",
                format!("{rm:?}").to_lowercase()
            );
            r.m.error_at(sp, msg, "use .rn");
        }
    }
    let takes_approx = match f.op {
        FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt => {
            ty == F32 || (f.op == FloatOp::Rcp && ty == F64)
        }
        FloatOp::Rsqrt
        | FloatOp::Sin
        | FloatOp::Cos
        | FloatOp::Lg2
        | FloatOp::Ex2
        | FloatOp::Tanh => true,
        _ => false,
    };
    if !takes_approx {
        r.forbid(s.approx, "approx", "this form is exact or IEEE-rounded");
    }
    let m = r.m;
    match f.op {
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul => {
            f.precision = rnd.map_or(Precision::Default, Precision::Round);
            if matches!(rnd, Some(Rounding::Rm | Rounding::Rp)) && ty == F32 {
                if let Some((_, sp)) = s.rnd {
                    require(cx, m, sp, 20, (1, 0), &format!("`{name}.rm/.rp.f32`"));
                }
            }
        }
        FloatOp::Fma => {
            let is_mad = name == "mad";
            match rnd {
                Some(r) => f.precision = Precision::Round(r),
                None if half || !is_mad => {
                    m.error_at(
                        whole,
                        format!("`{name}{ty}` needs a rounding modifier"),
                        if half {
                            "add .rn"
                        } else {
                            "add .rn, .rz, .rm or .rp"
                        },
                    );
                }
                None if ty == F64 && version >= (1, 4) => {
                    m.error_at(
                        whole,
                        "`mad.f64` needs a rounding modifier in PTX ISA 1.4 and later",
                        "add .rn, .rz, .rm or .rp",
                    );
                }
                None if ty == F32 && sm >= 20 && version >= (3, 2) => {
                    m.error_at(
                        whole,
                        "`mad.f32` needs a rounding modifier on sm_20 and later",
                        "add .rn (mad.rn.f32 is fma.rn.f32)",
                    );
                }
                None => {
                    // Legacy forms: `mad.f64` is `mad.rn.f64`; `mad.f32` runs as
                    // `fma.rn.ftz.f32` on sm_20 and later (ISA 8.7.3.7).
                    f.precision = Precision::Round(Rounding::Rn);
                    if ty == F32 {
                        f.ftz = true;
                    }
                }
            }
            if let (Some(sat), Some(_)) = (s.sat, s.relu) {
                m.error_at(sat, "`.sat` and `.relu` cannot both be given", "pick one");
            }
            if let Some(sp) = s.oob {
                m.error_at(
                    sp,
                    "`fma.oob` (out-of-bounds tensor NaNs) is not supported by ptxvk yet",
                    "not supported",
                );
            }
            if half {
                require(cx, m, whole, 53, (4, 2), "half-precision `fma`");
                if let Some(sp) = s.relu {
                    require(cx, m, sp, 80, (7, 0), "`fma.relu`");
                }
                if bf {
                    require(cx, m, whole, 80, (7, 0), "`fma.bf16`");
                }
            } else if ty == F32 && !is_mad {
                require(cx, m, whole, 20, (2, 0), "`fma.f32`");
            }
        }
        FloatOp::Div => {
            let modes = usize::from(s.approx.is_some())
                + usize::from(s.full.is_some())
                + usize::from(rnd.is_some());
            if modes > 1 {
                let sp = s.full.or(s.approx).unwrap_or(whole);
                m.error_at(
                    sp,
                    "`div` takes one of `.approx`, `.full` or a rounding modifier",
                    "conflicting modes",
                );
            }
            if ty == F64 {
                if let Some(sp) = s.full {
                    m.error_at(
                        sp,
                        "`.full` applies to `div.f32` only",
                        "use a rounding modifier",
                    );
                }
            }
            f.precision = if s.approx.is_some() {
                Precision::Approx
            } else if s.full.is_some() {
                Precision::Full
            } else if let Some(r) = rnd {
                if ty == F32 {
                    if let Some((_, sp)) = s.rnd {
                        require(cx, m, sp, 20, (1, 4), "`div.rnd.f32`");
                    }
                }
                Precision::Round(r)
            } else if version >= (1, 4) {
                m.error_at(
                    whole,
                    format!("`div{ty}` needs `.approx`, `.full` or a rounding modifier"),
                    "add one",
                );
                Precision::Exact
            } else if ty == F32 {
                f.ftz = true;
                Precision::Approx
            } else {
                Precision::Round(Rounding::Rn)
            };
        }
        FloatOp::Rcp | FloatOp::Sqrt => {
            if let (Some(a), Some(_)) = (s.approx, s.rnd) {
                m.error_at(
                    a,
                    format!("`{name}` takes `.approx` or a rounding modifier, not both"),
                    "conflicting modes",
                );
            }
            f.precision = if s.approx.is_some() {
                if ty == F64 && s.ftz.is_none() {
                    m.error_at(
                        whole,
                        "`rcp.approx.f64` exists only as `rcp.approx.ftz.f64`",
                        "add .ftz",
                    );
                }
                if ty == F64 {
                    require(cx, m, whole, 20, (2, 1), "`rcp.approx.ftz.f64`");
                }
                Precision::Approx
            } else if let Some(r) = rnd {
                if ty == F64 {
                    if let Some(sp) = s.ftz {
                        m.error_at(
                            sp,
                            format!("`.ftz` is not allowed on `{name}.rnd.f64`"),
                            "remove it",
                        );
                    }
                }
                Precision::Round(r)
            } else if version >= (1, 4) {
                m.error_at(
                    whole,
                    format!("`{name}{ty}` needs `.approx` or a rounding modifier"),
                    "add .approx or .rn",
                );
                Precision::Exact
            } else if ty == F32 {
                f.ftz = true;
                Precision::Approx
            } else {
                Precision::Round(Rounding::Rn)
            };
        }
        FloatOp::Rsqrt
        | FloatOp::Sin
        | FloatOp::Cos
        | FloatOp::Lg2
        | FloatOp::Ex2
        | FloatOp::Tanh => {
            if s.approx.is_none() {
                if version >= (1, 4) || matches!(f.op, FloatOp::Tanh) || half {
                    m.error_at(
                        whole,
                        format!("`{name}{ty}` needs `.approx`"),
                        "add .approx",
                    );
                } else if ty == F32 {
                    f.ftz = true;
                }
            }
            f.precision = Precision::Approx;
            if f.op == FloatOp::Ex2 && bf && s.ftz.is_none() {
                m.error_at(
                    whole,
                    "`ex2.approx.bf16` exists only with `.ftz`",
                    "add .ftz",
                );
            }
            if f.op == FloatOp::Rsqrt && ty == F64 && s.ftz.is_some() {
                require(cx, m, whole, 20, (4, 0), "`rsqrt.approx.ftz.f64`");
            }
            if f.op == FloatOp::Tanh {
                require(cx, m, whole, 75, (7, 0), "`tanh`");
            }
            if f.op == FloatOp::Ex2 && half {
                require(cx, m, whole, 75, (7, 0), "half-precision `ex2`");
            }
            if bf && matches!(f.op, FloatOp::Ex2 | FloatOp::Tanh) {
                require(cx, m, whole, 90, (7, 8), &format!("`{name}.bf16`"));
            }
        }
        FloatOp::Min | FloatOp::Max => {
            if let (Some(x), None) = (s.xorsign, s.abs) {
                m.error_at(
                    x,
                    "`.xorsign` must be followed by `.abs`",
                    "write .xorsign.abs",
                );
            }
            if n_src == 3 {
                if ty != F32 {
                    m.error_at(
                        whole,
                        format!("three-input `{name}` takes .f32 only"),
                        "here",
                    );
                }
                if let Some(x) = s.xorsign {
                    m.error_at(
                        x,
                        "`.xorsign` is not allowed with three inputs",
                        "remove it",
                    );
                }
                require(cx, m, whole, 100, (8, 8), &format!("three-input `{name}`"));
            } else if let (Some(a), None) = (s.abs, s.xorsign) {
                m.error_at(
                    a,
                    "`.abs` alone needs three inputs; with two write `.xorsign.abs`",
                    "here",
                );
            }
            if ty == F64 {
                let rules = &mut Rules { m: &mut *m, ty };
                rules.forbid(s.nan, "NaN", "double precision has no `.NaN` form");
                rules.forbid(
                    s.xorsign,
                    "xorsign",
                    "double precision has no `.xorsign` form",
                );
                if n_src == 2 {
                    rules.forbid(s.abs, "abs", "double precision has no `.abs` form");
                }
            }
            if let Some(sp) = s.nan {
                require(cx, m, sp, 80, (7, 0), &format!("`{name}.NaN`"));
            }
            if let Some(sp) = s.xorsign {
                require(cx, m, sp, 86, (7, 2), &format!("`{name}.xorsign.abs`"));
            }
            if half {
                require(
                    cx,
                    m,
                    whole,
                    80,
                    (7, 0),
                    &format!("half-precision `{name}`"),
                );
            }
        }
        FloatOp::Abs | FloatOp::Neg => {
            if half {
                let need = if bf { (80, (7, 0)) } else { (53, (4, 2)) };
                require(
                    cx,
                    m,
                    whole,
                    need.0,
                    need.1,
                    &format!("half-precision `{name}`"),
                );
            }
        }
        FloatOp::Copysign | FloatOp::Testp(_) => {
            require(cx, m, whole, 20, (2, 0), &format!("`{name}`"));
        }
    }
    if half && matches!(f.op, FloatOp::Add | FloatOp::Sub | FloatOp::Mul) {
        if bf {
            require(cx, m, whole, 90, (7, 8), &format!("`{name}.bf16`"));
        } else {
            require(
                cx,
                m,
                whole,
                53,
                (4, 2),
                &format!("half-precision `{name}`"),
            );
        }
    }
    m.errors.len() == before
}
