//! `mma.sync.aligned` and `mma.sp`: which shapes, multiplicand and accumulator types the ISA
//! pairs is most of the checking, so those tables sit next to the one function that reads them.

use super::super::shared::{self, operands};
use super::block_scale;
use super::fragments::{dsts, srcs, sync_aligned};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{BitOp, Mma, MmaType, Sparsity};
use crate::check::operands::TypeRule;
use crate::float_format::RoundMode;
use crate::types::ScalarType;

const SHAPES: [(&str, (u32, u32, u32)); 11] = [
    ("m8n8k4", (8, 8, 4)),
    ("m8n8k16", (8, 8, 16)),
    ("m8n8k32", (8, 8, 32)),
    ("m8n8k128", (8, 8, 128)),
    ("m16n8k4", (16, 8, 4)),
    ("m16n8k8", (16, 8, 8)),
    ("m16n8k16", (16, 8, 16)),
    ("m16n8k32", (16, 8, 32)),
    ("m16n8k64", (16, 8, 64)),
    ("m16n8k128", (16, 8, 128)),
    ("m16n8k256", (16, 8, 256)),
];

/// The shapes the ISA lists for each multiplicand type.
fn shape_allowed(a: MmaType, (m, _, k): (u32, u32, u32)) -> bool {
    use MmaType::*;
    match a {
        F16 => matches!((m, k), (8, 4) | (16, 8) | (16, 16)),
        Bf16 => matches!((m, k), (16, 8) | (16, 16)),
        Tf32 => matches!((m, k), (16, 4) | (16, 8)),
        F64 => matches!((m, k), (8, 4) | (16, 4) | (16, 8) | (16, 16)),
        S8 | U8 => matches!((m, k), (8, 16) | (16, 16) | (16, 32)),
        S4 | U4 => matches!((m, k), (8, 32) | (16, 32) | (16, 64)),
        B1 => matches!((m, k), (8, 128) | (16, 128) | (16, 256)),
        E4m3 | E5m2 => matches!((m, k), (16, 16) | (16, 32)),
        E3m2 | E2m3 | E2m1 => (m, k) == (16, 32),
        // Only in the block-scaled forms, which check their own shapes.
        E2m1x | F32 | S32 => false,
    }
}

/// The shapes of `mma.sp` for each multiplicand type.
fn sparse_shape_allowed(a: MmaType, (m, n, k): (u32, u32, u32)) -> bool {
    use MmaType::*;
    (m, n) == (16, 8)
        && match a {
            F16 | Bf16 => matches!(k, 16 | 32),
            Tf32 => matches!(k, 8 | 16),
            E4m3 | E5m2 | E3m2 | E2m3 | E2m1 => k == 64,
            S8 | U8 => matches!(k, 32 | 64),
            S4 | U4 => matches!(k, 64 | 128),
            F64 | B1 | E2m1x | F32 | S32 => false,
        }
}

/// The accumulator types (C and D) the ISA pairs with multiplicand type `a`.
fn acc_allowed(a: MmaType, c: MmaType, d: MmaType) -> bool {
    use MmaType::*;
    match a {
        F16 => matches!(c, F16 | F32) && matches!(d, F16 | F32),
        Bf16 | Tf32 => c == F32 && d == F32,
        // ".f8type = {.e4m3, .e5m2}; .ctype = {.f16, .f32}; .dtype = {.f16, .f32}", and
        // `.kind::f8f6f4`'s fp6 and fp4 types likewise.
        E4m3 | E5m2 | E3m2 | E2m3 | E2m1 => matches!(c, F16 | F32) && matches!(d, F16 | F32),
        F64 => c == F64 && d == F64,
        S8 | U8 | S4 | U4 | B1 => c == S32 && d == S32,
        E2m1x | F32 | S32 => false,
    }
}

pub fn mma(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Mma> {
    let sparse = m.pick_span(&[("sp", false), ("sp::ordered_metadata", true)]);
    let sparse_span = sparse.map(|(_, s)| s);
    let sparse = sparse.map(|(o, _)| o);
    sync_aligned(m);
    let kind = m.flag_span("kind::f8f6f4");
    let mx = block_scale::kind(m);
    let Some((shape, shape_span)) = m.pick_span(&SHAPES) else {
        m.error("`mma` needs a shape such as .m16n8k16", "add the shape");
        return None;
    };
    let layouts = [("row", true), ("col", false)];
    let a_row = m.next_of(&layouts).map(|(r, _)| r);
    let b_row = m.next_of(&layouts).map(|(r, _)| r);
    let mut types = Vec::new();
    while let Some(t) = m.next_of(&MmaType::NAMES) {
        types.push(t);
    }
    let [(d_ty, _), (a_ty, a_span), (b_ty, b_span), (c_ty, _)] = types[..] else {
        m.error(
            "`mma` needs four element types: .dtype.atype.btype.ctype",
            "as in .f32.f16.f16.f32",
        );
        return None;
    };
    // ".alayout = {.row}; .blayout = {.col}" for every shape but the sm_70 one, which takes
    // either for each.
    let f16_m8n8k4 = a_ty == MmaType::F16 && shape == (8, 8, 4);
    if a_row.is_none()
        || b_row.is_none()
        || (!f16_m8n8k4 && (a_row, b_row) != (Some(true), Some(false)))
    {
        m.error(
            "`mma` needs the layouts .row.col (A row-major, B column-major)",
            "the only layouts of this shape",
        );
        return None;
    }
    let f8f6f4 = |t: MmaType| {
        use MmaType::*;
        matches!(t, E4m3 | E5m2 | E3m2 | E2m3 | E2m1)
    };
    if let Some(mx) = mx {
        if let Some(span) = kind {
            m.error_at(
                span,
                "`.kind::f8f6f4` and a block-scaled kind exclude each other",
                "one `.kind` per `mma`",
            );
            return None;
        }
        // ".spvariant = {.sp::ordered_metadata}" is the only variant of the block-scaled forms.
        if let (Some(false), Some(span)) = (sparse, sparse_span) {
            m.error_at(
                span,
                "the block-scaled `mma.sp` is `mma.sp::ordered_metadata` only",
                "write .sp::ordered_metadata",
            );
            return None;
        }
        let types = block_scale::Types {
            shape,
            sparse: sparse.is_some(),
            d: d_ty,
            a: a_ty,
            b: b_ty,
            c: c_ty,
        };
        let (a_ty, b_ty, vec, stype) = block_scale::form(m, &mx, types)?;
        let mut mma = Mma {
            m: shape.0,
            n: shape.1,
            k: shape.2,
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite: false,
            rounding: RoundMode::NearestEven,
            bit_op: None,
            row_major: (true, false),
            d: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            sparse: None,
            scale: None,
        };
        // The sparse forms put the metadata and selector between C and the scale operands.
        let at = if sparse.is_some() { 6 } else { 4 };
        let ops = operands(cx, i, at + 4)?;
        let [mut na, nb, nc, nd] = mma.frag_regs();
        if sparse.is_some() {
            na /= 2;
        }
        let d = dsts(cx, m, &ops[0], nd, ScalarType::B32, "D");
        let a = srcs(cx, m, &ops[1], na, ScalarType::B32, "A");
        let b = srcs(cx, m, &ops[2], nb, ScalarType::B32, "B");
        let c = srcs(cx, m, &ops[3], nc, ScalarType::B32, "C");
        let scale = block_scale::operands(cx, m, &ops[at..], vec, stype);
        mma.d = d?;
        mma.a = a?;
        mma.b = b?;
        mma.c = c?;
        if sparse.is_some() {
            mma.sparse = Some(sparsity(cx, m, &mma, ops, true)?);
        }
        mma.scale = Some(Box::new(scale?));
        return Some(mma);
    }
    if let Some(span) = kind {
        // ".kind::f8f6f4" takes only the 8-, 6- and 4-bit floats, at one shape (K 32, or 64
        // for the sparse form), accumulating in .f16 or .f32.
        let k = if sparse.is_some() { 64 } else { 32 };
        let acc = |t: MmaType| matches!(t, MmaType::F16 | MmaType::F32);
        if !f8f6f4(a_ty) || !f8f6f4(b_ty) || !acc(c_ty) || !acc(d_ty) || shape != (16, 8, k) {
            m.error_at(
                span,
                format!(
                    "`.kind::f8f6f4` is .m16n8k{k} with .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 \
                     multiplicands and .f16 or .f32 accumulators"
                ),
                "not a form of this kind",
            );
            return None;
        }
    } else if [a_ty, b_ty]
        .iter()
        .any(|t| matches!(t, MmaType::E3m2 | MmaType::E2m3 | MmaType::E2m1))
    {
        m.error_at(
            a_span,
            "the fp6 and fp4 types of `mma` need `.kind::f8f6f4`",
            "add .kind::f8f6f4",
        );
        return None;
    }
    let allowed = match sparse {
        Some(_) => sparse_shape_allowed(a_ty, shape),
        None => shape_allowed(a_ty, shape),
    };
    if !allowed {
        m.error_at(
            shape_span,
            format!(
                "`mma{}` has no shape .m{}n{}k{} for .{}",
                if sparse.is_some() { ".sp" } else { "" },
                shape.0,
                shape.1,
                shape.2,
                a_ty.name()
            ),
            "not a shape of this type",
        );
        return None;
    }
    let same_kind = a_ty == b_ty
        || (f8f6f4(a_ty) && f8f6f4(b_ty))
        || (matches!(a_ty, MmaType::S8 | MmaType::U8) && matches!(b_ty, MmaType::S8 | MmaType::U8))
        || (matches!(a_ty, MmaType::S4 | MmaType::U4) && matches!(b_ty, MmaType::S4 | MmaType::U4));
    if !same_kind {
        m.error_at(
            b_span,
            format!("`mma` cannot multiply .{} by .{}", a_ty.name(), b_ty.name()),
            "B's type must be of A's kind",
        );
        return None;
    }
    // The sparse fp8 form without a kind is ".f32.f8type.f8type.f32" only.
    let sparse_fp8_f16 = sparse.is_some()
        && matches!(a_ty, MmaType::E4m3 | MmaType::E5m2)
        && (c_ty, d_ty) != (MmaType::F32, MmaType::F32);
    if kind.is_none() && (!acc_allowed(a_ty, c_ty, d_ty) || sparse_fp8_f16) {
        m.error_at(
            a_span,
            format!(
                "`mma` with .{} multiplicands cannot accumulate .{} into .{}",
                a_ty.name(),
                c_ty.name(),
                d_ty.name()
            ),
            "not an accumulator pairing of the ISA",
        );
        return None;
    }
    // "In case of shapes .m16n8k16, .m16n8k32 and .m16n8k64, .dtype must be the same as
    // .ctype" (every shape of `mma.sp` but the integer .m16n8k128, whose types are s32).
    if sparse.is_some() && d_ty != c_ty {
        m.error_at(
            a_span,
            "`mma.sp` accumulates into D of C's type",
            "make .dtype and .ctype the same",
        );
        return None;
    }
    let int = matches!(d_ty, MmaType::S32);
    let satfinite = m.flag("satfinite");
    if satfinite && (!int || a_ty == MmaType::B1) {
        m.error_on(
            "satfinite",
            "`.satfinite` is for the 8- and 4-bit integer forms",
            "remove it",
        );
    }
    let rounding = m.pick(&shared::FLOAT_ROUNDING);
    if rounding.is_some() && a_ty != MmaType::F64 {
        m.error("a rounding modifier is for `.f64` `mma` only", "remove it");
    }
    let bit_op = m.pick(&[("xor", BitOp::Xor), ("and", BitOp::And)]);
    let popc = m.flag("popc");
    if a_ty == MmaType::B1 && (bit_op.is_none() || !popc) {
        m.error(
            "single-bit `mma` needs .xor.popc or .and.popc",
            "add .xor.popc",
        );
        return None;
    }
    if a_ty != MmaType::B1 && (bit_op.is_some() || popc) {
        m.error(
            "`.popc` and its operation are for `.b1` `mma` only",
            "remove them",
        );
        return None;
    }
    let mut mma = Mma {
        m: shape.0,
        n: shape.1,
        k: shape.2,
        d_ty,
        a_ty,
        b_ty,
        c_ty,
        satfinite,
        rounding: rounding.map_or(RoundMode::NearestEven, |r| r.direction()),
        bit_op,
        row_major: (a_row == Some(true), b_row == Some(true)),
        d: Vec::new(),
        a: Vec::new(),
        b: Vec::new(),
        c: Vec::new(),
        sparse: None,
        scale: None,
    };
    let ops = operands(cx, i, if sparse.is_some() { 6 } else { 4 })?;
    let [mut na, nb, nc, nd] = if f16_m8n8k4 {
        // Per lane: four A and four B elements, eight of C and D (f32) or four (f16).
        let acc = |t: MmaType| if t == MmaType::F16 { 4 } else { 8 };
        [2, 2, acc(c_ty), acc(d_ty)]
    } else {
        mma.frag_regs()
    };
    if sparse.is_some() {
        // A sparse A holds the non-zero half of each row.
        na /= 2;
    }
    let reg = |t: MmaType| t.reg_type();
    let d = dsts(cx, m, &ops[0], nd, reg(d_ty), "D");
    let a = srcs(cx, m, &ops[1], na, reg(a_ty), "A");
    let b = srcs(cx, m, &ops[2], nb, reg(b_ty), "B");
    let c = srcs(cx, m, &ops[3], nc, reg(c_ty), "C");
    mma.d = d?;
    mma.a = a?;
    mma.b = b?;
    mma.c = c?;
    if let Some(ordered) = sparse {
        mma.sparse = Some(sparsity(cx, m, &mma, ops, ordered)?);
    }
    Some(mma)
}

/// The metadata `e` and sparsity selector `f` of a sparse `mma`. The selector names the
/// thread (one holder), the pair (0: threads 0 and 1, 1: threads 2 and 3) or, when all four
/// hold metadata, must be 0; other values are undefined behaviour in the ISA, refused here.
fn sparsity(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    mma: &Mma,
    ops: &[ast::Operand<'_>],
    ordered: bool,
) -> Option<Sparsity> {
    let meta = cx.src(&ops[4], ScalarType::B32, TypeRule::Strict);
    let choices: Vec<i64> = (0..4 / i64::from(mma.meta_threads())).collect();
    let name = if ordered {
        "mma.sp::ordered_metadata"
    } else {
        "mma.sp"
    };
    let selector = shared::imm(m, &ops[5], &choices, "sparsity selector", name)?;
    Some(Sparsity {
        ordered,
        meta: meta?,
        selector: selector as u32,
    })
}
