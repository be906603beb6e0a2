//! The warpgroup-level matrix instructions of sm_90a (the ISA's "Asynchronous Warpgroup Level
//! Matrix Multiply-Accumulate Instructions"): `wgmma.mma_async` with its shapes, types,
//! descriptor and register operands, and `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group`.

use std::sync::LazyLock;

use super::matrix::{dsts, srcs, sync_aligned};
use super::shared::{imm, operands};
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{MmaType, ScaleD, Wgmma, WgmmaA, WgmmaMma};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType;

/// Every shape name `m64nNkK` the ISA lists: N from 8 to 256 in steps of 8, K 8, 16 or 32
/// (16, 32 or 64 for `.sp`).
static SHAPES: LazyLock<Vec<(String, (u32, u32))>> = LazyLock::new(|| {
    let mut v = Vec::new();
    for k in [8, 16, 32, 64] {
        for n in (8..=256).step_by(8) {
            v.push((format!("m64n{n}k{k}"), (n, k)));
        }
    }
    v
});

/// K of the shape each multiplicand type takes (one 32-byte row of K per core matrix pair).
fn k_of(a: MmaType) -> Option<u32> {
    use MmaType::*;
    match a {
        F16 | Bf16 => Some(16),
        Tf32 => Some(8),
        E4m3 | E5m2 | S8 | U8 => Some(32),
        _ => None,
    }
}

/// The (B, D) types the ISA pairs with A's type.
fn types_allowed(a: MmaType, b: MmaType, d: MmaType) -> bool {
    use MmaType::*;
    match a {
        F16 => b == F16 && matches!(d, F16 | F32),
        Bf16 => b == Bf16 && d == F32,
        Tf32 => b == Tf32 && d == F32,
        E4m3 | E5m2 => matches!(b, E4m3 | E5m2) && matches!(d, F16 | F32),
        S8 | U8 => matches!(b, S8 | U8) && d == S32,
        _ => false,
    }
}

/// The integer forms take only some N: multiples of 8 up to 32, then of 16.
fn n_allowed(a: MmaType, n: u32) -> bool {
    !matches!(a, MmaType::S8 | MmaType::U8) || n <= 32 || n % 16 == 0
}

pub fn wgmma(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Wgmma> {
    let kind = m.pick(&[
        ("fence", 0),
        ("commit_group", 1),
        ("wait_group", 2),
        ("mma_async", 3),
    ]);
    sync_aligned(m);
    match kind {
        Some(0) => operands(cx, i, 0).map(|_| Wgmma::Fence),
        Some(1) => operands(cx, i, 0).map(|_| Wgmma::Commit),
        Some(2) => {
            let ops = operands(cx, i, 1)?;
            match cx.src(&ops[0], ScalarType::U32, TypeRule::Strict)? {
                Src::Imm(n) => Some(Wgmma::Wait(n as u32)),
                _ => {
                    m.error_at(
                        ops[0].span,
                        "the group count of `wgmma.wait_group` is a constant",
                        "here",
                    );
                    None
                }
            }
        }
        Some(_) => mma_async(cx, i, m).map(|x| Wgmma::Mma(Box::new(x))),
        None => {
            m.error(
                "`wgmma` needs .mma_async, .fence, .commit_group or .wait_group",
                "add the operation",
            );
            None
        }
    }
}

const MMA_ASYNC: &str = "wgmma.mma_async";

fn mma_async(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<WgmmaMma> {
    let table: Vec<(&str, (u32, u32))> = SHAPES.iter().map(|(s, v)| (s.as_str(), *v)).collect();
    let sparse = m.flag("sp");
    let Some(((n, k), shape_span)) = m.pick_span(&table) else {
        m.error(
            "`wgmma.mma_async` needs a shape such as .m64n64k16",
            "add the shape",
        );
        return None;
    };
    let satfinite = m.flag("satfinite");
    let mut types = Vec::new();
    while let Some(t) = m.next_of(&MmaType::NAMES) {
        types.push(t);
    }
    let [(d_ty, _), (a_ty, a_span), (b_ty, _)] = types[..] else {
        m.error(
            "`wgmma.mma_async` needs three element types: .dtype.atype.btype",
            "as in .f32.f16.f16",
        );
        return None;
    };
    if !types_allowed(a_ty, b_ty, d_ty) {
        m.error_at(
            a_span,
            format!(
                "`wgmma.mma_async` has no form .{}.{}.{}",
                d_ty.name(),
                a_ty.name(),
                b_ty.name()
            ),
            "not a type combination of the ISA",
        );
        return None;
    }
    // `.sp` doubles K: A holds half of each row.
    let k_dense = if sparse { k / 2 } else { k };
    if k_of(a_ty) != Some(k_dense) || !n_allowed(a_ty, n) {
        m.error_at(
            shape_span,
            format!(
                "`wgmma.mma_async` has no shape .m64n{n}k{k} for .{}",
                a_ty.name()
            ),
            "not a shape of this type",
        );
        return None;
    }
    let int = d_ty == MmaType::S32;
    if satfinite && !int {
        m.error_on(
            "satfinite",
            "`.satfinite` is for the integer forms",
            "remove it",
        );
    }
    let a_regs = i
        .operands
        .get(1)
        .is_some_and(|o| matches!(o.kind, OperandKind::Vector(_)));
    // Operands after scale-d: the scales of A and B for the floating-point forms, then the
    // transposes for .f16/.bf16 (A's only when A is in shared memory).
    let halves = matches!(a_ty, MmaType::F16 | MmaType::Bf16);
    let extra = match (int, halves, a_regs) {
        (true, _, _) => 0,
        (false, false, _) => 2,
        (false, true, true) => 3,
        (false, true, false) => 4,
    };
    // `.sp` puts sp-meta and sp-sel before scale-d.
    let sp = if sparse { 2 } else { 0 };
    let ops = operands(cx, i, 4 + sp + extra)?;
    let (sp_meta, sp_selector) = if sparse {
        let meta = cx.src(&ops[3], ScalarType::B32, TypeRule::Strict);
        // The selector names a pair of threads (0 or 1) where two of each group of four hold
        // the metadata (.f16/.bf16/.tf32), and must be 0 where all four do (8-bit types);
        // other values are undefined behaviour in the ISA, refused here.
        let choices: &[i64] = if a_ty.bits() == 8 { &[0] } else { &[0, 1] };
        let selector = imm(m, &ops[4], choices, "sp-sel", "wgmma.mma_async.sp");
        (Some(meta?), selector? as u32)
    } else {
        (None, 0)
    };
    // The remaining operands, numbered as in the dense form.
    let ops: Vec<&ast::Operand<'_>> = (ops.iter().enumerate())
        .filter(|(j, _)| !(3..3 + sp).contains(j))
        .map(|(_, o)| o)
        .collect();
    let nd = if d_ty == MmaType::F16 { n / 4 } else { n / 2 } as usize;
    let d = dsts(cx, m, ops[0], nd, ScalarType::B32, "D");
    let c = srcs(cx, m, ops[0], nd, ScalarType::B32, "D");
    let a = if a_regs {
        srcs(cx, m, ops[1], 4, ScalarType::B32, "A").map(WgmmaA::Regs)
    } else {
        cx.src(ops[1], ScalarType::B64, TypeRule::Strict)
            .map(WgmmaA::Desc)
    };
    let b = cx.src(ops[2], ScalarType::B64, TypeRule::Strict);
    let scale_d = match ops[3].kind {
        OperandKind::Imm(ast::Expr {
            kind: ExprKind::Int { .. },
            ..
        }) => imm(m, ops[3], &[0, 1], "scale-d", MMA_ASYNC).map(|v| ScaleD::Imm(v == 1)),
        _ => cx
            .src(ops[3], ScalarType::Pred, TypeRule::Strict)
            .map(ScaleD::Pred),
    };
    let mut neg = [false, false];
    let mut trans = [false, false];
    if extra >= 2 {
        for (j, what) in ["imm-scale-a", "imm-scale-b"].into_iter().enumerate() {
            neg[j] = imm(m, ops[4 + j], &[1, -1], what, MMA_ASYNC)? == -1;
        }
    }
    if extra == 4 {
        trans[0] = imm(m, ops[6], &[0, 1], "imm-trans-a", MMA_ASYNC)? == 1;
    }
    if extra >= 3 {
        trans[1] = imm(m, ops[3 + extra], &[0, 1], "imm-trans-b", MMA_ASYNC)? == 1;
    }
    Some(WgmmaMma {
        n,
        k,
        d_ty,
        a_ty,
        b_ty,
        satfinite,
        d: d?,
        c: c?,
        a: a?,
        b: b?,
        scale_d: scale_d?,
        neg_a: neg[0],
        neg_b: neg[1],
        trans_a: trans[0],
        trans_b: trans[1],
        sp_meta,
        sp_selector,
    })
}
