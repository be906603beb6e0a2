//! The ISA's rules for each floating-point instruction, type and modifier (ISA 8.7.3 and the
//! half-precision forms). The target and PTX version each form needs are in the gating table
//! (`check/gating/table.rs`), applied before these rules run.

use super::shared::FLOAT_ROUNDING;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Float, FloatOp, Precision, Rounding};
use crate::diag::Span;
use crate::float_format::RoundMode;
use crate::types::ScalarType::{self, *};

/// The ISA's rules for each instruction and type; fills `f.precision`. Returns whether the
/// form is valid (errors are on `m`).
pub(super) fn rules(
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
            f.precision = rnd.map_or(Precision::Default, |r| Precision::Round(r.direction()));
        }
        FloatOp::Fma => {
            let is_mad = name == "mad";
            match rnd {
                Some(r) => f.precision = Precision::Round(r.direction()),
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
                    f.precision = Precision::Round(RoundMode::NearestEven);
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
                    "`fma.oob` is not supported by ptxvk: the ISA does not give the encoding of \
                     the OOB-NaN it tests for (5.5.3.3), and no NVIDIA measurement of it is \
                     recorded yet",
                    "not supported",
                );
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
                Precision::Round(r.direction())
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
                Precision::Round(RoundMode::NearestEven)
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
                Precision::Round(r.direction())
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
                Precision::Round(RoundMode::NearestEven)
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
        }
        FloatOp::Abs | FloatOp::Neg | FloatOp::Copysign | FloatOp::Testp(_) => {}
    }
    m.errors.len() == before
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
    pub(super) fn read(m: &mut Mods<'_, '_>) -> Self {
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
