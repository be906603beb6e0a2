//! `cvt` to and from the narrow float formats of the current ISA's "Alternate Floating Point
//! Data Formats": `.e4m3x2 .e5m2x2` (fp8), `.e2m3x2 .e3m2x2` (fp6), `.e2m1x2` (fp4) and
//! `.ue8m0x2` (a power of two). The formats are defined here, once; the lowering reads them.
//!
//! ```text
//! cvt.rn.satfinite{.relu}.f8x2type.f32     d, a, b;   cvt.rn.satfinite{.relu}.f8x2type.f16x2 d, a;
//! cvt.rn{.relu}.f16x2.f8x2type             d, a;
//! cvt.rn.satfinite{.relu}.f6x2type.f32     d, a, b;   cvt.rn{.relu}.f16x2.f6x2type           d, a;
//! cvt.rn.satfinite{.relu}.e2m1x2.f32       d, a, b;   cvt.rn{.relu}.f16x2.e2m1x2             d, a;
//! cvt.frnd3{.satfinite}.ue8m0x2.f32        d, a, b;   cvt.frnd3{.satfinite}.ue8m0x2.bf16x2   d, a;
//! cvt.rn.bf16x2.ue8m0x2                    d, a;      .frnd3 = { .rz, .rp }
//! ```

use super::convert::mod_span;
use super::shared::{FLOAT_ROUNDING, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{CvtNarrow, NARROW_TYPES, Narrow, Rounding};
use crate::check::operands::TypeRule;
use crate::float_format::RoundMode;
use crate::types::ScalarType;

/// Whether a `cvt` names a narrow format.
pub fn is_narrow(i: &ast::Instruction<'_>) -> bool {
    i.modifiers
        .iter()
        .any(|m| NARROW_TYPES.iter().any(|(n, _)| *n == m.node))
}

pub fn cvt_narrow(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<CvtNarrow> {
    let rnd = m.pick(&FLOAT_ROUNDING);
    let relu = m.flag("relu");
    let satfinite = m.flag("satfinite");
    let fmt = m.pick(&NARROW_TYPES)?;
    let name = fmt.name();
    let at = |n: &str| i.modifiers.iter().position(|x| x.node == n);
    let fmt_at = at(name);
    let wide = if fmt == Narrow::Ue8m0 {
        m.ty(&[ScalarType::F32, ScalarType::Bf16x2])
    } else {
        m.ty(&[ScalarType::F32, ScalarType::F16x2])
    };
    let Some(wide) = wide else {
        m.error(
            format!("`cvt` with .{name} converts to or from another type"),
            if fmt == Narrow::Ue8m0 {
                "expected .f32 or .bf16x2 beside it"
            } else {
                "expected .f32 or .f16x2 beside it"
            },
        );
        return None;
    };
    // The destination type comes first.
    let to_narrow = fmt_at < at(wide.name());
    let form = if to_narrow {
        format!("cvt.{name}{wide}")
    } else {
        format!("cvt{wide}.{name}")
    };
    if !to_narrow && wide == ScalarType::F32 {
        m.error(
            format!("`{form}` is not a conversion of the ISA"),
            format!(".{name} values convert to .f16x2 (.bf16x2 for .ue8m0x2)"),
        );
        return None;
    }
    if to_narrow
        && fmt != Narrow::Ue8m0
        && wide == ScalarType::F16x2
        && fmt != Narrow::E4m3
        && fmt != Narrow::E5m2
    {
        m.error(
            format!("`{form}` is not a conversion of the ISA"),
            "only the fp8 formats convert from .f16x2",
        );
        return None;
    }
    // Rounding: `.rn` everywhere but `.ue8m0x2` results, which take `.rz` or `.rp`.
    let rnd_ok = match (fmt, to_narrow) {
        (Narrow::Ue8m0, true) => matches!(rnd, Some(Rounding::Rz | Rounding::Rp)),
        _ => rnd == Some(Rounding::Rn),
    };
    if !rnd_ok {
        let want = if fmt == Narrow::Ue8m0 && to_narrow {
            ".rz or .rp"
        } else {
            ".rn"
        };
        m.error(
            format!("`{form}` needs rounding {want}"),
            "ISA: cvt rounding modifiers",
        );
    }
    if to_narrow && fmt != Narrow::Ue8m0 && !satfinite {
        m.error(
            format!("`{form}` needs `.satfinite`"),
            "ISA: cvt.rn.satfinite{.relu}",
        );
    }
    if !to_narrow && satfinite {
        m.error_at(
            mod_span(i, "satfinite"),
            format!("`.satfinite` is not a modifier of `{form}`"),
            "the result is exact",
        );
    }
    if relu && fmt == Narrow::Ue8m0 {
        m.error_at(
            mod_span(i, "relu"),
            format!("`.relu` is not a modifier of `{form}`"),
            "unexpected modifier",
        );
    }
    // `.version`/`.target`: the gating table's cvt rows, and for fp8 on sm_89 PTX ISA 8.1
    // (the ISA added fp8 `cvt` for sm_90 in 7.8 and for sm_89 in 8.1; NVIDIA's ptxas agrees).
    if matches!(fmt, Narrow::E4m3 | Narrow::E5m2)
        && cx.m.sm != 0
        && cx.m.sm < 90
        && cx.m.version < (8, 1)
    {
        m.error_at(
            mod_span(i, name),
            format!("`{form}` on sm_{} requires PTX ISA 8.1 or later", cx.m.sm),
            format!(
                "the module declares .version {}.{}",
                cx.m.version.0, cx.m.version.1
            ),
        );
    }

    let packed = fmt.packed_type();
    let pair = to_narrow && wide == ScalarType::F32;
    let ops = operands(cx, i, if pair { 3 } else { 2 })?;
    let (dst, a, b) = if to_narrow {
        let dst = cx.dst(&ops[0], packed, TypeRule::Relaxed);
        let a = cx.src(&ops[1], wide, TypeRule::Relaxed);
        let b = if pair {
            Some(cx.src(&ops[2], wide, TypeRule::Relaxed)?)
        } else {
            None
        };
        (dst, a, b)
    } else {
        let dst = cx.dst(&ops[0], wide, TypeRule::Relaxed);
        let a = cx.src(&ops[1], packed, TypeRule::Relaxed);
        (dst, a, None)
    };
    Some(CvtNarrow {
        fmt,
        to_narrow,
        wide,
        mode: rnd.map_or(RoundMode::NearestEven, Rounding::direction),
        relu,
        satfinite,
        dst: dst?,
        a: a?,
        b,
    })
}
