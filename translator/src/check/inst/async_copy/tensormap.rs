//! `tensormap.replace.tile.FIELD{.global,.shared::cta}.b1024.type [map], {ord,} new_val` (a
//! field of a tensor map in memory rewritten) and
//! `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
//! [dst], [src], 128` (a map edited in shared memory copied back to global memory). Values
//! ptxvk's maps cannot hold (interleaved layouts, the 8-byte flip of the swizzle atoms, the
//! element types the ISA numbers from 8 on) are refused by name (decision 0107).

use super::super::shared::{int_operand, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{AsyncCopy, MapField};
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::Diagnostic;
use crate::tensor_map as tm;
use crate::types::{ScalarType, StateSpace};

/// The fields and how many operands before `new_val` each takes (`ord` for the per-dimension
/// ones), with the type its `new_val` has.
const FIELDS: [(&str, bool, ScalarType); 10] = [
    ("global_address", false, ScalarType::B64),
    ("rank", false, ScalarType::B32),
    ("box_dim", true, ScalarType::B32),
    ("global_dim", true, ScalarType::B32),
    ("global_stride", true, ScalarType::B64),
    ("element_stride", true, ScalarType::B32),
    ("elemtype", false, ScalarType::B32),
    ("interleave_layout", false, ScalarType::B32),
    ("swizzle_mode", false, ScalarType::B32),
    ("fill_mode", false, ScalarType::B32),
];

pub fn tensormap(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    if m.flag("cp_fenceproxy") {
        return copy(cx, i, m);
    }
    if !m.flag("replace") {
        m.error(
            "`tensormap` is `tensormap.replace` or `tensormap.cp_fenceproxy`",
            "add .replace or .cp_fenceproxy",
        );
        return None;
    }
    let field = FIELDS
        .iter()
        .chain(&[("swizzle_atomicity", false, ScalarType::B32)])
        .find(|(name, _, _)| m.flag(name))
        .copied();
    let Some((name, with_ord, ty)) = field else {
        m.error(
            "`tensormap.replace` needs the field it writes (`.global_address`, `.rank`, \
             `.box_dim`, ...)",
            "ISA: tensormap.replace",
        );
        return None;
    };
    if !m.flag("tile") || !m.flag("b1024") {
        m.error(
            format!("`tensormap.replace` writes `.tile.{name}...b1024.{ty}`"),
            "ISA: tensormap.replace",
        );
        return None;
    }
    let space = m
        .pick(&[
            ("global", StateSpace::Global),
            ("shared::cta", StateSpace::Shared),
        ])
        .unwrap_or(StateSpace::Generic);
    m.ty(&[ty])?;
    let ops = operands(cx, i, 2 + usize::from(with_ord))?;
    let map = cx.address(&ops[0])?;
    let new_val = &ops[ops.len() - 1];
    let ord = if with_ord {
        let ord = int_operand(cx, &ops[1])?;
        // `globalStrides` has one entry fewer: dimension 0's stride is the element size.
        let ranks = if name == "global_stride" { 4 } else { 5 };
        match u32::try_from(ord) {
            Ok(o) if o < ranks => o,
            _ => {
                cx.error(
                    Diagnostic::error(
                        ops[1].span,
                        format!("`ord` of `.{name}` is 0 to {}, not {ord}", ranks - 1),
                    )
                    .with_label("no such dimension"),
                );
                return None;
            }
        }
    } else {
        0
    };
    let field = match name {
        "global_address" => MapField::GlobalAddress,
        "rank" => MapField::Rank,
        "box_dim" => MapField::BoxDim(ord),
        "global_dim" => MapField::GlobalDim(ord),
        "global_stride" => MapField::GlobalStride(ord),
        "element_stride" => MapField::ElementStride(ord),
        _ => enumerated(cx, m, name, new_val)?,
    };
    let value = cx.src(new_val, ty, TypeRule::Strict)?;
    let bits = |v: u64| {
        if ty == ScalarType::B64 {
            v
        } else {
            v & 0xffff_ffff
        }
    };
    if let Src::Imm(v) = value
        && let v = bits(v)
        && let Some(allowed) = out_of_range(field, v)
    {
        cx.error(
            Diagnostic::error(
                new_val.span,
                format!("`.{name}` cannot be {v}: a tensor map's {allowed}"),
            )
            .with_label("outside the field's range"),
        );
        return None;
    }
    Some(AsyncCopy::TensormapReplace {
        map,
        space,
        field,
        value,
    })
}

/// What a field may hold, if the constant `v` is not among it: the ranges the ISA's
/// "Tensor-map" section and CUDA's `cuTensorMapEncodeTiled` give the map's fields. A map with
/// a field outside them is not a valid tensor map, so a copy through it is undefined; a
/// register `new_val` is written as it is (decision 0212).
fn out_of_range(field: MapField, v: u64) -> Option<&'static str> {
    let (ok, allowed) = match field {
        // `new_val` is the rank minus one.
        MapField::Rank => (v <= 4, "rank is 1 to 5 (`new_val` 0 to 4)"),
        MapField::BoxDim(_) => (tm::valid_box_dim(v), "box dimensions are 1 to 256"),
        MapField::GlobalDim(_) => (tm::valid_dim(v), "dimensions are 1 to 2^32"),
        MapField::ElementStride(_) => (tm::valid_element_stride(v), "element strides are 1 to 8"),
        MapField::GlobalStride(_) => (
            tm::valid_stride(v),
            "strides are multiples of 16 below 2^40",
        ),
        MapField::GlobalAddress => (tm::valid_address(v), "address is 16-byte aligned"),
        _ => (true, ""),
    };
    (!ok).then_some(allowed)
}

/// The fields whose `new_val` is an immediate naming an enumerated value (ISA:
/// tensormap.replace), decoded into the map's encoding or refused by name when ptxvk's maps
/// cannot hold it.
fn enumerated(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    name: &str,
    op: &ast::Operand<'_>,
) -> Option<MapField> {
    let v = int_operand(cx, op)?;
    let field = match (name, v) {
        // The ISA's element types 0-7 (.u8 .u16 .u32 .s32 .u64 .s64 .f16 .f32) are numbered as
        // CUtensorMapDataType's; the element size follows.
        ("elemtype", 0..=7) => {
            let size = [1, 2, 4, 4, 8, 8, 2, 4][v as usize];
            MapField::ElemType {
                data_type: v as u8,
                size,
            }
        }
        ("elemtype", _) => return refuse(m, name, &format!("element type {v}")),
        ("interleave_layout", 0) => MapField::Unchanged,
        ("interleave_layout", _) => return refuse(m, name, "an interleaved layout"),
        // 16-, 32- and 64-byte atoms; 2 is the 32-byte one with the 8-byte flip.
        ("swizzle_atomicity", 0 | 1 | 3) => MapField::SwizzleAtomicity(v as u8),
        ("swizzle_atomicity", 2) => {
            return refuse(m, name, "32-byte swizzle atoms with the 8-byte flip");
        }
        ("swizzle_mode", 0..=3) => MapField::Swizzle(v as u8),
        ("swizzle_mode", _) => return refuse(m, name, &format!("swizzle mode {v}")),
        ("fill_mode", 0..=1) => MapField::Fill(v as u8),
        _ => {
            cx.error(
                Diagnostic::error(op.span, format!("`.{name}` has no value {v}"))
                    .with_label("ISA: tensormap.replace"),
            );
            return None;
        }
    };
    Some(field)
}

fn refuse(m: &mut Mods<'_, '_>, name: &str, what: &str) -> Option<MapField> {
    m.error_on_opcode(
        format!(
            "`{}` ({what} in the `.{name}` field) is not supported by ptxvk yet",
            m.full_name()
        ),
        "not supported yet",
    );
    None
}

fn copy(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    let global_first = i
        .modifiers
        .iter()
        .position(|x| x.node == "global")
        .zip(i.modifiers.iter().position(|x| x.node == "shared::cta"))
        .is_some_and(|(g, s)| g < s);
    let ok = global_first
        && m.flag("global")
        && m.flag("shared::cta")
        && m.flag("tensormap::generic")
        && m.flag("release")
        && m.pick(&[("cta", ()), ("cluster", ()), ("gpu", ()), ("sys", ())])
            .is_some()
        && m.flag("sync")
        && m.flag("aligned");
    if !ok {
        m.error(
            "`tensormap.cp_fenceproxy` copies `.global.shared::cta` with \
             `.tensormap::generic.release.scope.sync.aligned`",
            "ISA: tensormap.cp_fenceproxy",
        );
        return None;
    }
    let ops = operands(cx, i, 3)?;
    let dst = cx.address(&ops[0])?;
    let src = cx.address(&ops[1])?;
    if int_operand(cx, &ops[2])? != 128 {
        cx.error(
            Diagnostic::error(ops[2].span, "a tensor map is 128 bytes")
                .with_label("the size must be 128"),
        );
        return None;
    }
    Some(AsyncCopy::TensormapCopy { dst, src })
}
