//! `wmma`: the older warp-matrix interface, with its own load/store/mma split and its own
//! shapes and types, checked apart from `mma`'s tables.

use super::super::shared::{operands, space_modifier};
use super::fragments::{dsts, srcs, sync_aligned};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{MmaType, Wmma, WmmaFrag, WmmaOp, wmma_regs};
use crate::check::operands::TypeRule;
use crate::types::{ScalarType, StateSpace};

/// The multiplicand types of each shape, and the accumulator type they pair with (`None`:
/// `.f16` or `.f32`).
fn wmma_types(shape: (u32, u32, u32), a: MmaType) -> Option<Option<MmaType>> {
    use MmaType::*;
    match (a, shape.2) {
        (F16, 16) => Some(None),
        (Bf16, 16) => Some(Some(F32)),
        (S8 | U8, 16) => Some(Some(S32)),
        (Tf32, 8) => Some(Some(F32)),
        _ => None,
    }
}

pub fn wmma(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Wmma> {
    let kind = m.pick(&[("load", 0), ("store", 1), ("mma", 2)]);
    let Some(kind) = kind else {
        m.error("`wmma` needs .load, .store or .mma", "add the operation");
        return None;
    };
    let frag = match kind {
        0 => m.pick(&[("a", WmmaFrag::A), ("b", WmmaFrag::B), ("c", WmmaFrag::C)]),
        1 => m.flag("d").then_some(WmmaFrag::C),
        _ => Some(WmmaFrag::C),
    };
    let Some(frag) = frag else {
        m.error(
            "`wmma.load` names its matrix (.a, .b, .c), `wmma.store` writes .d",
            "add the matrix",
        );
        return None;
    };
    sync_aligned(m);
    let layouts = [("row", true), ("col", false)];
    let first = m.next_of(&layouts).map(|(r, _)| r);
    let second = if kind == 2 {
        m.next_of(&layouts).map(|(r, _)| r)
    } else {
        Some(true)
    };
    let (Some(row), Some(_)) = (first, second) else {
        m.error("`wmma` needs its layouts (.row or .col)", "add the layout");
        return None;
    };
    let shapes = [
        ("m16n16k16", (16, 16, 16)),
        ("m32n8k16", (32, 8, 16)),
        ("m8n32k16", (8, 32, 16)),
        ("m16n16k8", (16, 16, 8)),
    ];
    let Some(shape) = m.pick(&shapes) else {
        m.error(
            "`wmma` is translated for the shapes .m16n16k16, .m32n8k16, .m8n32k16 and .m16n16k8",
            "the .f64 and sub-byte shapes are not translated yet",
        );
        return None;
    };
    let mut types = Vec::new();
    while let Some((t, span)) = m.next_of(&MmaType::NAMES) {
        types.push((t, span));
    }
    let float = |t: MmaType| matches!(t, MmaType::F16 | MmaType::F32);
    let not_translated = |m: &mut Mods<'_, '_>| {
        m.error(
            "`wmma` is translated for .f16, .bf16, .tf32, .s8 and .u8 multiplicands",
            "not a type combination of this shape that ptxvk translates",
        );
    };
    let op = if kind == 2 {
        // `.dtype.ctype` for .f16 multiplicands, `.dtype.atype.btype.ctype` otherwise.
        let (d_ty, a_ty, b_ty, c_ty) = match types[..] {
            [(d, _), (c, _)] => (d, MmaType::F16, MmaType::F16, c),
            [(d, _), (a, _), (b, _), (c, _)] => (d, a, b, c),
            _ => {
                not_translated(m);
                return None;
            }
        };
        let int = |t: MmaType| matches!(t, MmaType::S8 | MmaType::U8);
        let pairs = a_ty == b_ty || (int(a_ty) && int(b_ty));
        let ok = pairs
            && match wmma_types(shape, a_ty) {
                Some(None) => float(d_ty) && float(c_ty),
                Some(Some(acc)) => d_ty == acc && c_ty == acc,
                None => false,
            };
        if !ok {
            not_translated(m);
            return None;
        }
        let satfinite = m.flag("satfinite");
        if satfinite && !int(a_ty) {
            m.error_on(
                "satfinite",
                "`.satfinite` is translated for the integer forms",
                "remove it",
            );
            return None;
        }
        let ops = operands(cx, i, 4)?;
        let n = |f: WmmaFrag, t: MmaType| wmma_regs(shape, f, t);
        let d = dsts(cx, m, &ops[0], n(WmmaFrag::C, d_ty), ScalarType::B32, "D");
        let a = srcs(cx, m, &ops[1], n(WmmaFrag::A, a_ty), ScalarType::B32, "A");
        let b = srcs(cx, m, &ops[2], n(WmmaFrag::B, b_ty), ScalarType::B32, "B");
        let c = srcs(cx, m, &ops[3], n(WmmaFrag::C, c_ty), ScalarType::B32, "C");
        WmmaOp::Mma {
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite,
            d: d?,
            a: a?,
            b: b?,
            c: c?,
        }
    } else {
        let ty = match types[..] {
            [(t, _)] => t,
            _ => {
                not_translated(m);
                return None;
            }
        };
        let fits = match frag {
            WmmaFrag::C => matches!(ty, MmaType::F16 | MmaType::F32 | MmaType::S32),
            _ => wmma_types(shape, ty).is_some(),
        };
        if !fits {
            not_translated(m);
            return None;
        }
        let space = match space_modifier(m) {
            None => StateSpace::Generic,
            Some(s @ (StateSpace::Global | StateSpace::Shared)) => s,
            Some(other) => {
                m.error(
                    format!("`wmma` does not access {other}"),
                    "use .global or .shared",
                );
                return None;
            }
        };
        let ops = &i.operands;
        if !(2..=3).contains(&ops.len()) {
            operands(cx, i, 3)?;
        }
        let stride = match ops.get(2) {
            Some(s) => Some(cx.src(s, ScalarType::U32, TypeRule::Strict)?),
            None => None,
        };
        let regs = wmma_regs(shape, frag, ty);
        if kind == 0 {
            let dst = dsts(cx, m, &ops[0], regs, ScalarType::B32, "the fragment");
            let addr = cx.address(&ops[1]);
            WmmaOp::Load {
                frag,
                row,
                space,
                ty,
                dst: dst?,
                addr: addr?,
                stride,
            }
        } else {
            let addr = cx.address(&ops[0]);
            let src = srcs(cx, m, &ops[1], regs, ScalarType::B32, "the fragment");
            WmmaOp::Store {
                row,
                space,
                ty,
                addr: addr?,
                src: src?,
                stride,
            }
        }
    };
    Some(Wmma {
        m: shape.0,
        n: shape.1,
        k: shape.2,
        op,
    })
}
