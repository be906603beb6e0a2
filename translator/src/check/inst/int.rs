//! Integer arithmetic beyond the common `add/sub/mul/mad/div/rem/abs/neg/min/max` (ISA 8.7.1):
//! syntax and type rules of `mul24 mad24 sad popc clz bfind brev bfe bfi bmsk szext dp4a dp2a`,
//! and the packed (`.u16x2/.s16x2`) and `.relu` forms of `add/min/max`.
//!
//! The PTX ISA versions and targets that introduced each form are in the gating table
//! (`check/gating/table.rs`); `requires` remains for texture forms the table cannot express.

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Arith, Bfind, BitMask, Dot, MulMode, Simd, SimdOp};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType::{self, *};

/// Whether the instruction was written with modifier `.name`.
pub fn has_modifier(i: &ast::Instruction<'_>, name: &str) -> bool {
    i.modifiers.iter().any(|m| m.node == name)
}

/// Reports an instruction (or form) used under a `.target`/`.version` older than the one that
/// introduced it.
pub(super) fn requires(
    cx: &FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    what: &str,
    sm: u32,
    ptx: (u32, u32),
) {
    if cx.m.sm < sm {
        m.error_on_opcode(
            format!(
                "{what} requires .target sm_{sm} or higher; this module targets sm_{}",
                cx.m.sm
            ),
            format!("needs sm_{sm}"),
        );
    }
    if cx.m.version < ptx {
        m.error_on_opcode(
            format!(
                "{what} requires PTX ISA {}.{} or later; this module is .version {}.{}",
                ptx.0, ptx.1, cx.m.version.0, cx.m.version.1
            ),
            format!("needs .version {}.{}", ptx.0, ptx.1),
        );
    }
}

/// Reads `d, a, b, ...` where operand `k` has type `tys[k]` (Table 26).
pub(super) fn typed_operands(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    tys: &[ScalarType],
) -> Option<(Dst, Srcs)> {
    let ops = operands(cx, i, tys.len())?;
    let dst = cx.dst(&ops[0], tys[0], TypeRule::Strict);
    let src: Option<Srcs> = ops[1..]
        .iter()
        .zip(&tys[1..])
        .map(|(o, t)| cx.src(o, *t, TypeRule::Strict))
        .collect();
    Some((dst?, src?))
}

/// Whether `add/sub/min/max` is written in a form [`simd`] decodes.
pub fn is_simd(i: &ast::Instruction<'_>) -> bool {
    ["u16x2", "s16x2", "relu"]
        .iter()
        .any(|n| has_modifier(i, n))
}

/// `add.{u16x2,s16x2}`, `min/max.{u16x2}`, `min/max{.relu}.{s16x2,s32}` (PTX ISA 8.0, sm_90).
pub fn simd(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Simd> {
    let op = match i.opcode.node {
        "add" => SimdOp::Add,
        "min" => SimdOp::Min,
        "max" => SimdOp::Max,
        other => {
            for name in ["u16x2", "s16x2", "relu"] {
                if has_modifier(i, name) {
                    m.error_on(
                        name,
                        format!("`{other}` has no `.{name}` form"),
                        "only add, min and max take packed 16-bit types",
                    );
                }
            }
            return None;
        }
    };
    let relu = m.flag("relu");
    let packed = m.pick(&[("u16x2", U16), ("s16x2", S16)]);
    let elem = match packed {
        Some(e) => e,
        None => {
            // `.relu` without a packed type: only `min/max.relu.s32`.
            m.ty(&[S32])?
        }
    };
    if relu && op == SimdOp::Add {
        m.error_on("relu", "`add` has no `.relu` form", "remove .relu");
    }
    if relu && elem == U16 {
        m.error_on(
            "relu",
            "`.relu` applies to .s16x2 and .s32 only",
            "unsigned values are never negative",
        );
    }
    // The packed forms read and write `.b32` registers.
    let reg = if elem == S32 { S32 } else { B32 };
    let (dst, src) = typed_operands(cx, i, &[reg, reg, reg])?;
    let [a, b] = crate::check::exactly::<2>(src)?;
    Some(Simd {
        op,
        elem,
        relu,
        dst,
        a,
        b,
    })
}

/// `mul24{.lo,.hi}.{u32,s32}` and `mad24{.lo,.hi}{.sat}.{u32,s32}` (`.sat` only on `.hi.s32`).
pub fn mul24(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    mad: bool,
) -> Option<Arith> {
    let mode = m.pick(&[("lo", MulMode::Lo), ("hi", MulMode::Hi)]);
    let sat = mad && m.flag("sat");
    let ty = m.ty(&[U32, S32])?;
    // A missing mode is reported and decoding goes on, so that other errors show too.
    let mode = mode.unwrap_or_else(|| {
        m.error_on_opcode(
            format!("`{}` needs `.lo` or `.hi`", m.full_name()),
            "add .lo or .hi",
        );
        MulMode::Lo
    });
    if sat && !(mode == MulMode::Hi && ty == S32) {
        m.error_on(
            "sat",
            "`.sat` applies only to `mad24.hi.sat.s32`",
            "not allowed here",
        );
    }
    let n = if mad { 4 } else { 3 };
    let (dst, src) = typed_operands(cx, i, &vec![ty; n])?;
    let mut a = Arith::new(ty, dst, src);
    a.mode = mode;
    a.sat = sat;
    Some(a)
}

/// `sad.type d, a, b, c`.
pub fn sad(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(super::shared::INTS)?;
    let (dst, src) = typed_operands(cx, i, &[ty; 4])?;
    Some(Arith::new(ty, dst, src))
}

/// `popc.{b32,b64} d, a` and `clz.{b32,b64} d, a`: `d` is `.u32` (sm_20).
pub fn count_bits(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ty = m.ty(&[B32, B64])?;
    let (dst, src) = typed_operands(cx, i, &[U32, ty])?;
    Some(Arith::new(ty, dst, src))
}

/// `brev.{b32,b64} d, a` (sm_20).
pub fn brev(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ty = m.ty(&[B32, B64])?;
    let (dst, src) = typed_operands(cx, i, &[ty, ty])?;
    Some(Arith::new(ty, dst, src))
}

/// `bfind{.shiftamt}.{u32,u64,s32,s64} d, a`: `d` is `.u32` (sm_20).
pub fn bfind(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Bfind> {
    let shiftamt = m.flag("shiftamt");
    let ty = m.ty(&[U32, U64, S32, S64])?;
    let (dst, src) = typed_operands(cx, i, &[U32, ty])?;
    let [a] = crate::check::exactly::<1>(src)?;
    Some(Bfind {
        ty,
        shiftamt,
        dst,
        a,
    })
}

/// `bfe.{u32,u64,s32,s64} d, a, b, c`: `b` and `c` are `.u32` (sm_20).
pub fn bfe(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(&[U32, U64, S32, S64])?;
    let (dst, src) = typed_operands(cx, i, &[ty, ty, U32, U32])?;
    Some(Arith::new(ty, dst, src))
}

/// `bfi.{b32,b64} f, a, b, c, d`: `c` and `d` are `.u32` (sm_20).
pub fn bfi(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Arith> {
    let ty = m.ty(&[B32, B64])?;
    let (dst, src) = typed_operands(cx, i, &[ty, ty, ty, U32, U32])?;
    Some(Arith::new(ty, dst, src))
}

/// `.clamp` (false) or `.wrap` (true); a missing mode is reported (and decoding goes on).
fn wrap_mode(m: &mut Mods<'_, '_>) -> bool {
    let wrap = m.pick(&[("clamp", false), ("wrap", true)]);
    wrap.unwrap_or_else(|| {
        m.error_on_opcode(
            format!("`{}` needs `.clamp` or `.wrap`", m.full_name()),
            "add .clamp or .wrap",
        );
        false
    })
}

/// `bmsk.{clamp,wrap}.b32 d, a, b` (PTX ISA 7.6, sm_70); `a` and `b` are `.u32`.
pub fn bmsk(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<BitMask> {
    let wrap = wrap_mode(m);
    let ty = m.ty(&[B32])?;
    let (dst, src) = typed_operands(cx, i, &[ty, U32, U32])?;
    let [a, b] = crate::check::exactly::<2>(src)?;
    Some(BitMask {
        ty,
        wrap,
        dst,
        a,
        b,
    })
}

/// `szext.{clamp,wrap}.{u32,s32} d, a, b` (PTX ISA 7.6, sm_70); `b` is `.u32`.
pub fn szext(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<BitMask> {
    let wrap = wrap_mode(m);
    let ty = m.ty(&[U32, S32])?;
    let (dst, src) = typed_operands(cx, i, &[ty, ty, U32])?;
    let [a, b] = crate::check::exactly::<2>(src)?;
    Some(BitMask {
        ty,
        wrap,
        dst,
        a,
        b,
    })
}

/// `dp4a` (`two = false`) and `dp2a` (PTX ISA 5.0, sm_61). `c` and `d` are `.u32` when both
/// input types are, `.s32` otherwise.
pub fn dot(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    two: bool,
) -> Option<Dot> {
    let hi = two.then(|| {
        let mode = m.pick(&[("lo", false), ("hi", true)]);
        mode.unwrap_or_else(|| {
            m.error_on_opcode("`dp2a` needs `.lo` or `.hi`", "add .lo or .hi");
            false
        })
    });
    let at = m.ty(&[U32, S32])?;
    let bt = m.ty(&[U32, S32])?;
    let acc = if at == U32 && bt == U32 { U32 } else { S32 };
    let (dst, src) = typed_operands(cx, i, &[acc, at, bt, acc])?;
    let [a, b, c] = crate::check::exactly::<3>(src)?;
    Some(Dot {
        a_signed: at == S32,
        b_signed: bt == S32,
        hi,
        dst,
        a,
        b,
        c,
    })
}
