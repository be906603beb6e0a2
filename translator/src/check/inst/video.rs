//! Video instructions (ISA 9.7.18): the scalar `vadd vsub vabsdiff vmin vmax vshl vshr vset`
//! and the SIMD `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2` and their 4-way (`...4`) forms.
//!
//! ```text
//! vop.dtype.atype.btype{.sat}{.secop}  d{.dsel}, a{.asel}, b{.bsel}{, c};
//! vshl/vshr.dtype.atype.u32{.sat}.mode{.secop}  d{.dsel}, a{.asel}, b{.bsel}{, c};
//! vset.atype.btype.cmp{.secop}  d{.dsel}, a{.asel}, b{.bsel}{, c};
//! vop2.dtype.atype.btype{.sat|.add}  d{.mask}, a{.asel}, b{.bsel}, c;
//! vset2.atype.btype.cmp{.add}  d{.mask}, a{.asel}, b{.bsel}, c;
//! vmad.dtype.atype.btype{.po}{.sat}{.scale}  d, {-}a{.asel}, {-}b{.bsel}, {-}c;
//! vop4.dtype.atype.btype{.sat|.add}  d{.mask}, a{.asel}, b{.bsel}, c;
//! ```

use super::cmp::CMP_OPS;
use super::shared::operands;
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{CmpOp, Part, Secondary, VideoMad, VideoOp, VideoScalar, VideoSimd};
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::{Diagnostic, Span};
use crate::types::ScalarType::{self, S32, U32};

const WORD: Part = Part {
    width: 32,
    index: 0,
};

/// The opcode's operation and lane count (1 for the scalar forms).
pub fn video_op(opcode: &str) -> Option<(VideoOp, u32)> {
    let (base, lanes) = match opcode.strip_suffix('2') {
        Some(b) => (b, 2),
        None => match opcode.strip_suffix('4') {
            Some(b) => (b, 4),
            None => (opcode, 1),
        },
    };
    let op = match base {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vavrg" if lanes > 1 => VideoOp::Avrg,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        "vshl" if lanes == 1 => VideoOp::Shl,
        "vshr" if lanes == 1 => VideoOp::Shr,
        // The comparison is a modifier; the decoders read it.
        "vset" => VideoOp::Set(CmpOp::Eq),
        _ => return None,
    };
    Some((op, lanes))
}

/// Whether `dtype`, `atype`, `btype` are `.s32` (each `.u32` or `.s32`; `btype` `.u32` for
/// shifts). `vset` writes no `dtype`: its result is unsigned. Its comparison is read here too.
fn types(m: &mut Mods<'_, '_>, op: &mut VideoOp) -> Option<[bool; 3]> {
    let mut signed = [false; 3];
    let first = if matches!(op, VideoOp::Set(_)) { 1 } else { 0 };
    for (k, s) in signed.iter_mut().enumerate().skip(first) {
        let shift = matches!(op, VideoOp::Shl | VideoOp::Shr);
        let allowed: &[ScalarType] = if shift && k == 2 { &[U32] } else { &[U32, S32] };
        *s = m.ty(allowed)? == S32;
    }
    if let VideoOp::Set(cmp) = op {
        let Some(c) = m.pick(&CMP_OPS[..6]) else {
            m.error(
                "`vset` needs a comparison",
                "add .eq, .ne, .lt, .le, .gt or .ge",
            );
            return None;
        };
        *cmp = c;
    }
    Some(signed)
}

/// The register of an operand, its selector if written, and whether it is negated (`-%r`,
/// `vmad`'s only).
fn negatable<'a>(op: &ast::Operand<'a>) -> (ast::Operand<'a>, Option<&'a str>, bool) {
    let name = |n: &'a str| ast::Operand {
        kind: OperandKind::Imm(ast::Expr {
            kind: ExprKind::Name(n),
            span: op.span,
        }),
        span: op.span,
    };
    match &op.kind {
        OperandKind::Select(n, sel, negated) => (name(n), Some(*sel), *negated),
        OperandKind::Imm(ast::Expr {
            kind: ExprKind::Unary(ast::UnaryOp::Neg, inner),
            ..
        }) if matches!(inner.kind, ExprKind::Name(_)) => match inner.kind {
            ExprKind::Name(n) => (name(n), None, true),
            _ => (op.clone(), None, false),
        },
        _ => (op.clone(), None, false),
    }
}

/// The register of an operand and its selector, if written; only `vmad` negates operands.
fn split<'a>(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'a>,
) -> Option<(ast::Operand<'a>, Option<&'a str>)> {
    match negatable(op) {
        (reg, sel, false) => Some((reg, sel)),
        _ => {
            cx.error(
                Diagnostic::error(op.span, "only `vmad` takes negated operands")
                    .with_label("negated here"),
            );
            None
        }
    }
}

fn bad_selector<T>(cx: &mut FnCx<'_, '_>, span: Span, expected: &str) -> Option<T> {
    cx.error(
        Diagnostic::error(span, format!("expected {expected}"))
            .with_label("not a selector of this instruction"),
    );
    None
}

/// `.b0`-`.b3`, `.h0`, `.h1`.
fn scalar_part(cx: &mut FnCx<'_, '_>, sel: &str, span: Span) -> Option<Part> {
    let part = match sel {
        "b0" | "b1" | "b2" | "b3" => Part {
            width: 8,
            index: u32::from(sel.as_bytes()[1] - b'0'),
        },
        "h0" | "h1" => Part {
            width: 16,
            index: u32::from(sel.as_bytes()[1] - b'0'),
        },
        _ => return bad_selector(cx, span, "`.b0`, `.b1`, `.b2`, `.b3`, `.h0` or `.h1`"),
    };
    Some(part)
}

/// A source operand and the part its selector names (the whole word without one).
fn scalar_src(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>, ty: ScalarType) -> Option<(Src, Part)> {
    let (reg, sel) = split(cx, op)?;
    let part = match sel {
        Some(s) => scalar_part(cx, s, op.span)?,
        None => WORD,
    };
    Some((cx.src(&reg, ty, TypeRule::Strict)?, part))
}

fn ty_of(signed: bool) -> ScalarType {
    if signed { S32 } else { U32 }
}

pub fn scalar(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    mut op: VideoOp,
) -> Option<VideoScalar> {
    let shift = matches!(op, VideoOp::Shl | VideoOp::Shr);
    let signed = types(m, &mut op)?;
    // `vset` has no `.sat` (left unread, it is reported as not a modifier of `vset`).
    let sat = !matches!(op, VideoOp::Set(_)) && m.flag("sat");
    let clamp = if shift {
        let Some(c) = m.pick(&[("clamp", true), ("wrap", false)]) else {
            m.error(
                format!("`{}` needs a shift mode", i.opcode.node),
                "add .clamp or .wrap",
            );
            return None;
        };
        c
    } else {
        false
    };
    let secop = m.pick(&[
        ("add", Secondary::Add),
        ("min", Secondary::Min),
        ("max", Secondary::Max),
    ]);
    let ops = &i.operands;
    if !(3..=4).contains(&ops.len()) {
        operands(cx, i, 4)?;
    }
    let (d, dsel_name) = split(cx, &ops[0])?;
    let secondary = match (secop, dsel_name) {
        (Some(_), Some(_)) => {
            cx.error(
                Diagnostic::error(ops[0].span, "a merge into `d` takes no secondary operation")
                    .with_label("either d.dsel or .add/.min/.max"),
            );
            return None;
        }
        (Some(s), None) => s,
        (None, Some(_)) => Secondary::Merge,
        (None, None) => Secondary::None,
    };
    if (secondary == Secondary::None) != (ops.len() == 3) {
        let n = if secondary == Secondary::None { 3 } else { 4 };
        operands(cx, i, n)?;
    }
    let dsel = match dsel_name {
        Some(s) => scalar_part(cx, s, ops[0].span)?,
        None => WORD,
    };
    let dty = ty_of(signed[0]);
    let dst = cx.dst(&d, dty, TypeRule::Strict)?;
    let (a, asel) = scalar_src(cx, &ops[1], ty_of(signed[1]))?;
    let (b, bsel) = scalar_src(cx, &ops[2], ty_of(signed[2]))?;
    let c = match ops.get(3) {
        Some(o) => Some(cx.src(o, dty, TypeRule::Strict)?),
        None => None,
    };
    Some(VideoScalar {
        op,
        signed,
        sat,
        clamp,
        secondary,
        dst,
        dsel,
        a,
        asel,
        b,
        bsel,
        c,
    })
}

/// The digits of a SIMD selector or mask: `.hxy` (2-way) or `.bxyzw` (4-way) names one part of
/// `{b, a}` per lane, the last digit lane 0; a mask names the lanes that take part.
fn digits(sel: &str, lanes: u32) -> Option<Vec<u32>> {
    let prefix = if lanes == 2 { 'h' } else { 'b' };
    let rest = sel.strip_prefix(prefix)?;
    Some(rest.bytes().rev().map(|c| u32::from(c - b'0')).collect())
}

pub fn simd(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    mut op: VideoOp,
    lanes: u32,
) -> Option<VideoSimd> {
    let signed = types(m, &mut op)?;
    let sat = !matches!(op, VideoOp::Set(_)) && m.flag("sat");
    let accumulate = m.flag("add");
    if sat && accumulate {
        m.error_on(
            "add",
            "`.sat` cannot be used with the secondary accumulate `.add`",
            "ISA: saturation cannot be used with .add",
        );
        return None;
    }
    let ops = operands(cx, i, 4)?;
    let parts = 2 * lanes;
    let (d, mask_name) = split(cx, &ops[0])?;
    let all = (1u32 << lanes) - 1;
    let mask = match mask_name {
        None => all,
        Some(s) => {
            let lanes_named = digits(s, lanes).filter(|ds| {
                !ds.is_empty()
                    && ds.iter().all(|&l| l < lanes)
                    && ds.windows(2).all(|w| w[0] < w[1])
            });
            match lanes_named {
                Some(ds) => ds.iter().fold(0, |m, &l| m | 1 << l),
                None => {
                    let want = if lanes == 2 {
                        "a mask `.h0`, `.h1` or `.h10`"
                    } else {
                        "a mask of lanes such as `.b3210`, `.b20` or `.b1`"
                    };
                    return bad_selector(cx, ops[0].span, want);
                }
            }
        }
    };
    let dst = cx.dst(&d, ty_of(signed[0]), TypeRule::Strict)?;
    let mut srcs = Vec::new();
    for (k, default) in [(1usize, 0u32), (2, lanes)] {
        let (reg, sel) = split(cx, &ops[k])?;
        let mut pick = [0u32; 4];
        for (l, p) in pick.iter_mut().enumerate().take(lanes as usize) {
            *p = default + l as u32;
        }
        if let Some(s) = sel {
            match digits(s, lanes)
                .filter(|ds| ds.len() == lanes as usize && ds.iter().all(|&p| p < parts))
            {
                Some(ds) => pick[..lanes as usize].copy_from_slice(&ds),
                None => {
                    let want = if lanes == 2 {
                        "`.hxy` with x, y in 0..3"
                    } else {
                        "`.bxyzw` with x, y, z, w in 0..7"
                    };
                    return bad_selector(cx, ops[k].span, want);
                }
            }
        }
        srcs.push((cx.src(&reg, ty_of(signed[k]), TypeRule::Strict)?, pick));
    }
    let c = cx.src(&ops[3], ty_of(signed[0]), TypeRule::Strict)?;
    let (b, bsel) = srcs.pop()?;
    let (a, asel) = srcs.pop()?;
    Some(VideoSimd {
        op,
        lanes,
        signed,
        sat,
        accumulate,
        dst,
        mask,
        a,
        asel,
        b,
        bsel,
        c,
    })
}

/// `vmad`. ISA: "(a*b) is negated if and only if exactly one of a or b is negated"; PTX allows
/// negating the product or `c`, and nothing in `.po` mode.
pub fn mad(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<VideoMad> {
    let d_signed = m.ty(&[U32, S32])? == S32;
    let a_signed = m.ty(&[U32, S32])? == S32;
    let b_signed = m.ty(&[U32, S32])? == S32;
    let po = m.flag("po");
    let sat = m.flag("sat");
    let shift = m.pick(&[("shr7", 7), ("shr15", 15)]).unwrap_or(0);
    let ops = operands(cx, i, 4)?;
    let dst = cx.dst(&ops[0], ty_of(d_signed), TypeRule::Strict)?;
    let mut negated = [false; 3];
    let mut srcs = Vec::new();
    for (k, signed) in [(1usize, a_signed), (2, b_signed), (3, d_signed)] {
        let (reg, sel, neg) = negatable(&ops[k]);
        if neg && po {
            cx.error(
                Diagnostic::error(ops[k].span, "`vmad.po` takes no negated operand")
                    .with_label("negated here"),
            );
            return None;
        }
        negated[k - 1] = neg;
        let part = match sel {
            Some(s) if k < 3 => scalar_part(cx, s, ops[k].span)?,
            Some(_) => return bad_selector(cx, ops[k].span, "`c` without a selector"),
            None => WORD,
        };
        srcs.push((cx.src(&reg, ty_of(signed), TypeRule::Strict)?, part));
    }
    let negate_product = negated[0] != negated[1];
    if negate_product && negated[2] {
        cx.error(
            Diagnostic::error(ops[3].span, "`vmad` negates the product or `c`, not both")
                .with_label("the product is negated too"),
        );
        return None;
    }
    let (c, _) = srcs.pop()?;
    let (b, bsel) = srcs.pop()?;
    let (a, asel) = srcs.pop()?;
    Some(VideoMad {
        signed: [a_signed, b_signed],
        sat,
        po,
        shift,
        negate_product,
        negate_c: negated[2],
        dst,
        a,
        asel,
        b,
        bsel,
        c,
    })
}
