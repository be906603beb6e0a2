//! The block-scaled `mma` forms (the ISA's "Alternate floating point type with block scaling"):
//!
//! ```text
//! mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale{.scale_vec::1X}
//!     .f32.f8f6f4type.f8f6f4type.f32.ue8m0 d, a, b, c, sa, {ba, ta}, sb, {bb, tb};
//! mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale{.scale_vec::2X}
//!     .f32.e2m1.e2m1.f32.ue8m0 ...;
//! mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::{2X,4X}
//!     .f32.e2m1.e2m1.f32.{ue8m0,ue4m3} ...;
//! mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale...
//!     d, a, b, c, e, f, sa, {ba, ta}, sb, {bb, tb};
//! mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::{mxf4,mxf4nvf4}...
//! ```
//!
//! with the combinations of the ISA's "Valid combinations of .scale_vec_size and .kind" table,
//! the same for the sparse forms (twice the K, A half as many registers, `.sp` refused).

use super::super::shared::vector_items;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{BlockScale, MmaType, ScaleType};
use crate::check::operand::Src;
use crate::check::operands::TypeRule;
use crate::diag::Span;
use crate::types::ScalarType;

/// A block-scaled kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

/// The kind as written, with `.block_scale` (which the kinds need and only they take).
pub(super) struct Mx {
    kind: Kind,
    pub(super) span: Span,
}

/// The block-scaled kind of an `mma`, if it is one; `.block_scale` without one is an error.
pub(super) fn kind(m: &mut Mods<'_, '_>) -> Option<Mx> {
    let kind = m.pick_span(&[
        ("kind::mxf8f6f4", Kind::Mxf8f6f4),
        ("kind::mxf4", Kind::Mxf4),
        ("kind::mxf4nvf4", Kind::Mxf4nvf4),
    ]);
    let block_scale = m.flag_span("block_scale");
    match (kind, block_scale) {
        (Some((kind, span)), Some(_)) => Some(Mx { kind, span }),
        (Some((_, span)), None) => {
            m.error_at(
                span,
                "the `.kind::mxf*` forms of `mma` need `.block_scale`",
                "add .block_scale and the scale operands",
            );
            None
        }
        (None, Some(span)) => {
            m.error_at(
                span,
                "`.block_scale` needs `.kind::mxf8f6f4`, `.kind::mxf4` or `.kind::mxf4nvf4`",
                "add the kind",
            );
            None
        }
        (None, None) => None,
    }
}

/// The element types of the instruction, as written.
pub(super) struct Types {
    pub(super) shape: (u32, u32, u32),
    /// `mma.sp::ordered_metadata`: K twice the dense form's.
    pub(super) sparse: bool,
    pub(super) d: MmaType,
    pub(super) a: MmaType,
    pub(super) b: MmaType,
    pub(super) c: MmaType,
}

/// Checks the form against the ISA's table; returns A's and B's types as the lowering reads
/// them (`.e2m1` packed for the `mxf4` kinds), `.scale_vec`'s factor count and the scale type.
pub(super) fn form(
    m: &mut Mods<'_, '_>,
    mx: &Mx,
    t: Types,
) -> Option<(MmaType, MmaType, u32, ScaleType)> {
    use MmaType::*;
    let vec = m.pick(&[
        ("scale_vec::1X", 1),
        ("scale_vec::2X", 2),
        ("scale_vec::4X", 4),
    ]);
    let stype = m.pick(&[("ue8m0", ScaleType::Ue8m0), ("ue4m3", ScaleType::Ue4m3)]);
    let f8f6f4 = |x: MmaType| matches!(x, E4m3 | E5m2 | E3m2 | E2m3 | E2m1);
    let (name, k, types_ok, vec) = match mx.kind {
        // ".scale_vec_size defaults to 1X" for mxf8f6f4, "to 2X" for mxf4; mxf4nvf4 must say.
        Kind::Mxf8f6f4 => (
            "kind::mxf8f6f4",
            32,
            f8f6f4(t.a) && f8f6f4(t.b),
            vec.unwrap_or(1),
        ),
        Kind::Mxf4 => (
            "kind::mxf4",
            64,
            t.a == E2m1 && t.b == E2m1,
            vec.unwrap_or(2),
        ),
        Kind::Mxf4nvf4 => (
            "kind::mxf4nvf4",
            64,
            t.a == E2m1 && t.b == E2m1,
            vec.unwrap_or(0),
        ),
    };
    // The sparse forms (m16n8k64 and m16n8k128) hold twice the K of the dense ones.
    let k = if t.sparse { 2 * k } else { k };
    let op = if t.sparse {
        "mma.sp::ordered_metadata"
    } else {
        "mma"
    };
    let what = match mx.kind {
        Kind::Mxf8f6f4 => ".e4m3/.e5m2/.e3m2/.e2m3/.e2m1",
        _ => ".e2m1",
    };
    if !types_ok || t.shape != (16, 8, k) || t.d != F32 || t.c != F32 {
        m.error_at(
            mx.span,
            format!(
                "`{op}` with `.{name}` is .m16n8k{k}.row.col with {what} multiplicands and .f32 \
                 C and D"
            ),
            "not a form of this kind",
        );
        return None;
    }
    let Some(stype) = stype else {
        m.error(
            format!("`.{name}` needs its scale type after C's (.ue8m0 or .ue4m3)"),
            "add the scale type",
        );
        return None;
    };
    let valid = match mx.kind {
        Kind::Mxf8f6f4 => vec == 1 && stype == ScaleType::Ue8m0,
        Kind::Mxf4 => vec == 2 && stype == ScaleType::Ue8m0,
        Kind::Mxf4nvf4 => match stype {
            ScaleType::Ue8m0 => matches!(vec, 2 | 4),
            ScaleType::Ue4m3 => vec == 4,
        },
    };
    if !valid {
        m.error_at(
            mx.span,
            format!(
                "`.{name}` takes .scale_vec::1X with .ue8m0 (mxf8f6f4), .scale_vec::2X with \
                 .ue8m0 (mxf4), or .scale_vec::2X/4X with .ue8m0 and .scale_vec::4X with .ue4m3 \
                 (mxf4nvf4, which must write it)"
            ),
            "not a scale combination of the ISA",
        );
        return None;
    }
    let packed = |x: MmaType| {
        if mx.kind == Kind::Mxf8f6f4 { x } else { E2m1x }
    };
    Some((packed(t.a), packed(t.b), vec, stype))
}

/// `scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}`: the data
/// registers are `.b32`, the selectors unsigned 16-bit values. A constant selector must be one
/// the ISA gives a meaning to: a byte that starts a group of `vec`, a thread pair (0 or 1) for
/// A, a thread of the four (0-3) for B.
pub(super) fn operands(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    ops: &[ast::Operand<'_>],
    vec: u32,
    stype: ScaleType,
) -> Option<BlockScale> {
    let bytes: Vec<u64> = (0..4).step_by(vec as usize).collect();
    let a_data = cx.src(&ops[0], ScalarType::B32, TypeRule::Strict);
    let a_sel = selectors(cx, m, &ops[1], &bytes, 2, "A's selectors");
    let b_data = cx.src(&ops[2], ScalarType::B32, TypeRule::Strict);
    let b_sel = selectors(cx, m, &ops[3], &bytes, 4, "B's selectors");
    let (a_byte, a_thread) = a_sel?;
    let (b_byte, b_thread) = b_sel?;
    Some(BlockScale {
        vec,
        stype,
        a_data: a_data?,
        a_byte,
        a_thread,
        b_data: b_data?,
        b_byte,
        b_thread,
    })
}

/// `{byte-id, thread-id}`, each checked against `bytes` and `0..threads` when constant.
fn selectors(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    op: &ast::Operand<'_>,
    bytes: &[u64],
    threads: u64,
    which: &str,
) -> Option<(Src, Src)> {
    let items = vector_items(m, op, 2, which)?;
    let threads: Vec<u64> = (0..threads).collect();
    let mut out = Vec::new();
    for (item, allowed, what) in [
        (items[0], bytes, "byte-id"),
        (items[1], &threads[..], "thread-id"),
    ] {
        let src = cx.src(item, ScalarType::U16, TypeRule::Strict)?;
        if let Src::Imm(v) = src
            && !allowed.contains(&(v & 0xFFFF))
        {
            m.error_at(
                item.span,
                format!("`{what}` of `{}` is one of {allowed:?} here", m.full_name()),
                "no scale factor is selected by this value",
            );
            return None;
        }
        out.push(src);
    }
    let thread = out.pop()?;
    let byte = out.pop()?;
    Some((byte, thread))
}
