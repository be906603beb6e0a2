//! Conversions (ISA 8.7.6.13 `cvt`, and `cvt.pack` of later ISA versions): syntax and type rules.
//!
//! The rules follow the current ISA text: integer rounding (`.rni .rzi .rmi .rpi`) is required
//! from float to integer and allowed only there and for same-type float rounding; floating-point
//! rounding (`.rn .rz .rm .rp`) is required from integer to float and for float conversions that
//! lose precision, and illegal elsewhere; `.sat` on an integer destination only where the source
//! range is not already inside it; `.ftz` only when `.f32` is one of the types.

use super::shared::{FLOAT_ROUNDING, INT_ROUNDING, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Cvt, CvtPack, Rounding};
use crate::check::operands::TypeRule;
use crate::diag::{Diagnostic, Span};
use crate::float_format::RoundMode;
use crate::types::ScalarType;

use ScalarType::*;

const CVT_TYPES: &[ScalarType] = &[
    U8, U16, U32, U64, S8, S16, S32, S64, F16, Bf16, F32, F64, F16x2, Bf16x2, Tf32,
];
const CVT_SRC_TYPES: &[ScalarType] = &[U8, U16, U32, U64, S8, S16, S32, S64, F16, Bf16, F32, F64];

/// Where modifier `.name` is written (the opcode when it is not).
pub(super) fn mod_span(i: &ast::Instruction<'_>, name: &str) -> Span {
    i.modifiers
        .iter()
        .find(|m| m.node == name)
        .map_or(i.opcode.span, |m| m.span)
}

/// An error at `span` when the module's `.target`/`.version` are older than `sm`/`version`.
pub(super) fn requires(
    cx: &FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    span: Span,
    what: &str,
    sm: u32,
    version: (u32, u32),
) {
    if cx.m.sm != 0 && cx.m.sm < sm {
        m.errors.push(
            Diagnostic::error(span, format!("{what} requires sm_{sm} or higher"))
                .with_label(format!("the module's target is sm_{}", cx.m.sm)),
        );
    } else if cx.m.version < version {
        m.errors.push(
            Diagnostic::error(
                span,
                format!(
                    "{what} requires PTX ISA {}.{} or later",
                    version.0, version.1
                ),
            )
            .with_label(format!(
                "the module declares .version {}.{}",
                cx.m.version.0, cx.m.version.1
            )),
        );
    }
}

fn err(m: &mut Mods<'_, '_>, span: Span, msg: impl Into<String>, label: impl Into<String>) {
    m.errors
        .push(Diagnostic::error(span, msg).with_label(label));
}

/// Whether every value of integer type `src` is a value of integer type `dst`.
fn int_range_contains(dst: ScalarType, src: ScalarType) -> bool {
    match (dst.is_signed(), src.is_signed()) {
        (true, true) | (false, false) => dst.bits() >= src.bits(),
        (true, false) => dst.bits() > src.bits(),
        (false, true) => false,
    }
}

/// `cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype d, a{, b}`.
pub fn cvt(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Cvt> {
    let irnd = m.pick(&INT_ROUNDING);
    let frnd = m.pick(&FLOAT_ROUNDING);
    let rna = m.flag("rna");
    let ftz = m.flag("ftz");
    let sat = m.flag("sat");
    let relu = m.flag("relu");
    let satfinite = m.flag("satfinite");
    let dst_ty = m.ty(CVT_TYPES)?;
    let src_ty = m.ty(CVT_SRC_TYPES)?;
    let given = [irnd.is_some(), frnd.is_some(), rna]
        .iter()
        .filter(|b| **b)
        .count();
    if given > 1 {
        m.error(
            "`cvt` takes one rounding modifier",
            "conflicting rounding modifiers",
        );
        return None;
    }
    let types_span = {
        let dt = mod_span(i, dst_ty.name());
        let st = i
            .modifiers
            .iter()
            .rev()
            .find(|x| x.node == src_ty.name())
            .map_or(dt, |x| x.span);
        dt.to(st)
    };
    // Errors about rounding point at the rounding modifier written, or at `cvt.dtype.atype`
    // when a required one is missing.
    let rnd_span = INT_ROUNDING
        .iter()
        .chain(&FLOAT_ROUNDING)
        .map(|(n, _)| *n)
        .chain(["rna"])
        .map(|n| mod_span(i, n))
        .find(|s| *s != i.opcode.span)
        .unwrap_or(i.opcode.span.to(types_span));
    let (df, sf) = (dst_ty.is_float(), src_ty.is_float());
    let packed = matches!(dst_ty, F16x2 | Bf16x2);
    let special_dst = packed || dst_ty == Tf32;

    // Rounding (ISA "Integer Notes" and "Floating Point Notes").
    let narrowing = df && sf && loses_precision(dst_ty, src_ty);
    let rule = match (sf, df) {
        _ if special_dst && src_ty != F32 => {
            err(
                m,
                types_span,
                format!("`cvt{dst_ty}` converts from .f32, not {src_ty}"),
                "expected .f32 as the source type",
            );
            None
        }
        _ if special_dst => {
            let ok = match frnd {
                Some(Rounding::Rn | Rounding::Rz) => true,
                None => rna && dst_ty == Tf32,
                _ => false,
            };
            let allowed = if dst_ty == Tf32 {
                ".rna, .rn or .rz"
            } else {
                ".rn or .rz"
            };
            (!ok).then(|| format!("`cvt{dst_ty}.f32` needs rounding {allowed}"))
        }
        (true, false) => irnd.is_none().then(|| {
            "a float-to-integer `cvt` needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)"
                .to_string()
        }),
        (false, true) => frnd.is_none().then(|| {
            "an integer-to-float `cvt` needs a floating-point rounding modifier (.rn, .rz, .rm, .rp)"
                .to_string()
        }),
        (true, true) if narrowing => frnd.is_none().then(|| {
            format!(
                "`cvt{dst_ty}{src_ty}` loses precision and needs a rounding modifier (.rn, .rz, .rm, .rp)"
            )
        }),
        (true, true) if dst_ty == src_ty => (frnd.is_some() || rna).then(|| {
            format!(
                "`cvt{dst_ty}{src_ty}` is exact; only integer rounding (.rni, .rzi, .rmi, .rpi) may be given"
            )
        }),
        // Widening is exact. The ISA's own example `cvt.f64.bf16.rp` gives a rounding modifier
        // to a widening conversion from .bf16, so that one is accepted (and has no effect).
        (true, true) => {
            let bf16_example = src_ty == Bf16 && frnd.is_some();
            ((frnd.is_some() && !bf16_example) || irnd.is_some() || rna).then(|| {
                format!("`cvt{dst_ty}{src_ty}` is exact; it takes no rounding modifier")
            })
        }
        (false, false) => (irnd.is_some() || frnd.is_some() || rna)
            .then(|| "an integer-to-integer `cvt` takes no rounding modifier".to_string()),
    };
    if let Some(msg) = rule {
        err(m, rnd_span, msg, "ISA 8.7.6.13: rounding modifiers of cvt");
    }
    if rna && dst_ty != Tf32 {
        err(
            m,
            mod_span(i, "rna"),
            "`.rna` is only defined for `cvt.tf32.f32`",
            "not a rounding modifier of this conversion",
        );
    }

    // `.ftz`: "can only be specified when either .dtype or .atype is .f32".
    if ftz && dst_ty != F32 && src_ty != F32 {
        err(
            m,
            mod_span(i, "ftz"),
            "`.ftz` needs .f32 as the source or destination type",
            "ISA 8.7.6.13",
        );
    }
    if ftz && special_dst {
        err(
            m,
            mod_span(i, "ftz"),
            format!("`.ftz` is not a modifier of `cvt{dst_ty}.f32`"),
            "unexpected modifier",
        );
    }
    // `.sat`.
    if sat {
        if special_dst {
            err(
                m,
                mod_span(i, "sat"),
                format!("`.sat` is not a modifier of `cvt{dst_ty}`; use `.satfinite`"),
                "unexpected modifier",
            );
        } else if dst_ty == Bf16 || src_ty == Bf16 {
            // NVIDIA's ptxas: "Illegal modifier '.sat' for instruction 'cvt'" with any .bf16
            // operand (an H200's driver, docs/nvidia.md).
            err(
                m,
                mod_span(i, "sat"),
                format!("`.sat` is not a modifier of `cvt{dst_ty}{src_ty}`"),
                "not with a .bf16 operand; .bf16 results of .f32 take `.satfinite`",
            );
        } else if !df && !sf && int_range_contains(dst_ty, src_ty) {
            err(
                m,
                mod_span(i, "sat"),
                format!(
                    "`.sat` is illegal: every {src_ty} value fits in {dst_ty}, so nothing can saturate"
                ),
                "ISA 8.7.6.13: .sat only where the destination range is not a superset of the source range",
            );
        }
    }
    // `.relu` and `.satfinite`: f16/bf16/f16x2/bf16x2/tf32 destinations from .f32.
    for (flag, name) in [(relu, "relu"), (satfinite, "satfinite")] {
        if !flag {
            continue;
        }
        let span = mod_span(i, name);
        let dst_ok = matches!(dst_ty, F16 | Bf16 | F16x2 | Bf16x2 | Tf32);
        if !dst_ok || src_ty != F32 {
            err(
                m,
                span,
                format!(
                    "`.{name}` applies to f16, bf16, f16x2, bf16x2 and tf32 results of an f32 conversion"
                ),
                "unexpected modifier",
            );
            continue;
        }
        if !special_dst && !matches!(frnd, Some(Rounding::Rn | Rounding::Rz)) {
            err(
                m,
                span,
                format!("`cvt.{name}{dst_ty}.f32` needs rounding .rn or .rz"),
                "ISA: cvt.frnd2{.relu}{.satfinite}",
            );
        }
        if name == "relu" && rna {
            err(
                m,
                span,
                "`.relu` is not a modifier of `cvt.rna.tf32.f32`",
                "unexpected modifier",
            );
        }
        if name == "satfinite" {
            requires(cx, m, span, "`.satfinite`", 80, (8, 1));
        }
    }
    if sat && (relu || satfinite) {
        err(
            m,
            mod_span(i, "sat"),
            "`.sat` cannot be combined with `.relu` or `.satfinite`",
            "conflicting modifiers",
        );
    }

    // Target requirements (ISA "PTX ISA Notes" / "Target ISA Notes" of cvt). The gating table
    // covers packed, `.rna.tf32` and `.bf16.f32` conversions; the forms below depend on which
    // type is the destination, which the table's conditions cannot tell.
    let table_gated = packed || (dst_ty == Tf32 && rna) || (dst_ty == Bf16 && src_ty == F32);
    if table_gated {
        // Already accepted by the gating table before decoding.
    } else if dst_ty == Tf32 {
        if satfinite {
            requires(
                cx,
                m,
                types_span,
                "`cvt.rn/.rz.satfinite.tf32.f32`",
                100,
                (8, 6),
            );
        } else {
            requires(cx, m, types_span, "`cvt.rn/.rz.tf32.f32`", 90, (7, 8));
        }
    } else if dst_ty == F32 && src_ty == Bf16 {
        requires(cx, m, types_span, "`cvt.f32.bf16`", 80, (7, 1));
        if ftz {
            requires(cx, m, mod_span(i, "ftz"), "`cvt.ftz.f32.bf16`", 90, (7, 8));
        }
    } else if dst_ty == Bf16 || src_ty == Bf16 {
        requires(
            cx,
            m,
            types_span,
            &format!("`cvt{dst_ty}{src_ty}`"),
            90,
            (7, 8),
        );
    }

    // Operands: `.bf16`, `.bf16x2` and `.tf32` operands must be exactly as wide as the type
    // ("A source register wider than the specified type may be used, except ...").
    let n = if packed { 3 } else { 2 };
    let ops = operands(cx, i, n)?;
    let dst_rule = if matches!(dst_ty, Bf16 | Bf16x2 | Tf32) {
        TypeRule::Strict
    } else {
        TypeRule::Relaxed
    };
    let src_rule = if src_ty == Bf16 {
        TypeRule::Strict
    } else {
        TypeRule::Relaxed
    };
    let dst = cx.dst(&ops[0], dst_ty, dst_rule);
    let src = cx.src(&ops[1], src_ty, src_rule);
    let src2 = if packed {
        Some(cx.src(&ops[2], src_ty, src_rule)?)
    } else {
        None
    };
    let mode = if rna {
        Some(RoundMode::NearestAway)
    } else {
        irnd.or(frnd).map(Rounding::direction)
    };
    Some(Cvt {
        dst_ty,
        src_ty,
        // A rounding written on an exact widening conversion changes nothing.
        mode: if df && sf && !narrowing && dst_ty != src_ty {
            None
        } else {
            mode
        },
        integer: irnd.is_some(),
        ftz,
        sat,
        relu,
        satfinite,
        dst: dst?,
        src: src?,
        src2,
    })
}

/// Whether converting float type `src` to float type `dst` can lose precision or range.
pub fn loses_precision(dst: ScalarType, src: ScalarType) -> bool {
    // (exponent bits, stored fraction bits)
    let fmt = |t: ScalarType| match t {
        F16 | F16x2 => (5, 10),
        Bf16 | Bf16x2 => (8, 7),
        Tf32 => (8, 10),
        F64 => (11, 52),
        _ => (8, 23),
    };
    let (de, dm) = fmt(dst);
    let (se, sm) = fmt(src);
    de < se || dm < sm
}

/// `cvt.pack.sat.convertType.abType{.cType} d, a, b{, c}` (PTX ISA 6.5, sm_72).
pub fn cvt_pack(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<CvtPack> {
    m.flag("pack");
    if !m.flag("sat") {
        m.error(
            "`cvt.pack` needs `.sat`",
            "ISA: cvt.pack.sat.convertType.abType",
        );
    }
    // The sub-byte convert types are not PTX register types, so they are read by name here.
    const NARROW: [(&str, u32, bool); 8] = [
        ("u16", 16, false),
        ("s16", 16, true),
        ("u8", 8, false),
        ("s8", 8, true),
        ("u4", 4, false),
        ("s4", 4, true),
        ("u2", 2, false),
        ("s2", 2, true),
    ];
    let Some((bits, signed)) = m.pick(&NARROW.map(|(n, b, s)| (n, (b, s)))) else {
        m.error(
            "`cvt.pack` needs a convert type",
            "one of .u16 .s16 .u8 .s8 .u4 .s4 .u2 .s2",
        );
        return None;
    };
    let ab_span = i
        .modifiers
        .iter()
        .find(|x| x.node == "s32" || x.node == "b32")
        .map_or(i.opcode.span, |x| x.span);
    if !m.flag("s32") {
        err(
            m,
            ab_span,
            "`cvt.pack` converts from .s32",
            "expected .s32 as the source type",
        );
        return None;
    }
    let has_c = m.flag("b32");
    let needs_c = bits < 16;
    if has_c != needs_c {
        let msg = if needs_c {
            format!("`cvt.pack` to {bits}-bit values takes `.b32` and a third source `c`")
        } else {
            "`cvt.pack` to 16-bit values takes two sources and no `.b32` type".to_string()
        };
        m.error(msg, "ISA: cvt.pack.sat.convertType.abType{.cType}");
        return None;
    }
    let ops = operands(cx, i, if has_c { 4 } else { 3 })?;
    let dst = cx.dst(&ops[0], U32, TypeRule::Strict);
    let a = cx.src(&ops[1], S32, TypeRule::Strict);
    let b = cx.src(&ops[2], S32, TypeRule::Strict);
    let c = if has_c {
        Some(cx.src(&ops[3], B32, TypeRule::Strict)?)
    } else {
        None
    };
    Some(CvtPack {
        bits,
        signed,
        dst: dst?,
        a: a?,
        b: b?,
        c,
    })
}
