//! What the `mma` forms share about a lane's fragments: registers gathered from other lanes,
//! the small float elements decoded, the floating-point dot product, and D written back.

use super::super::cx::Cx;
use super::super::float::half;
use super::super::float::softfloat::{self as sf, Ops};
use crate::check::Src;
use crate::check::inst::{Mma, MmaType};
use crate::float_format::{F32, FloatFormat, Specials};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, FpFlags, Op, Ty, ValueId, VarId};
use crate::types::ScalarType;

/// One gathered register, in a variable.
pub(super) type Gathered = VarId;

/// Lane reads collected in one block and made together ([`Cx::exchange_all`]): the value, the
/// lane to read it from, and the variable that receives it.
pub(in crate::lower) type Batch = Vec<(ValueId, ValueId, VarId)>;

/// Adds to `batch` the read of register `reg` of fragment `regs` from lane `src(cx)`. A
/// `.f64` register travels whole, as a double: subgroup shuffles take 64-bit floats wherever
/// the device has them (64-bit integers would need extended subgroup types).
pub(in crate::lower) fn gather(
    cx: &mut Cx<'_>,
    batch: &mut Batch,
    regs: &[Src],
    reg: usize,
    wide: bool,
    src: &dyn Fn(&mut Cx<'_>) -> ValueId,
) -> VarId {
    let (v, ty) = if wide {
        let x = cx.read(&regs[reg], ScalarType::B64);
        (cx.float_of(x, Ty::F64), Ty::F64)
    } else {
        (cx.read(&regs[reg], ScalarType::B32), Ty::I32)
    };
    let s = src(cx);
    let var = cx.b.f.new_var(ty, "matrix.lane_value");
    batch.push((v, s, var));
    var
}

/// The bits of a gathered register: I32, or I64 for `.f64`.
pub(in crate::lower) fn load_gathered(cx: &mut Cx<'_>, g: VarId) -> ValueId {
    let ty = cx.b.f.vars[g.0 as usize].ty;
    let v = cx.b.emit(ty, Op::LoadVar(g));
    cx.bits_of(v)
}

/// The exact f32 value of a float of format `fmt` in the low bits of `x`: `.e4m3`, `.e5m2`,
/// `.ue4m3`, and the fp6 and fp4 types of the OCP MX formats the ISA names.
pub(super) fn small_float_to_f32(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let c = |cx: &mut Cx<'_>, bits: u64| cx.c32(bits as u32);
    let m = fmt.mant;
    let frac_mask = c(cx, fmt.frac_mask());
    let frac = cx.bop(BinOp::And, x, frac_mask);
    let msh = cx.c32(m);
    let ex = cx.bop(BinOp::LShr, x, msh);
    let emask = c(cx, fmt.exp_mask() >> m);
    let ex = cx.bop(BinOp::And, ex, emask);
    let zero = cx.c32(0);
    let normal = cx.bop(BinOp::INe, ex, zero);
    // Significand as an integer and the power of two that scales it: every value is an
    // integer times a power of two within f32's normal range, so both steps are exact.
    let hidden = c(cx, fmt.min_normal());
    let with_hidden = cx.bop(BinOp::Or, frac, hidden);
    let sig = cx.sel(normal, with_hidden, frac);
    let one = cx.c32(1);
    let ex1 = cx.sel(normal, ex, one);
    // 2^(ex1 - bias - m) as f32 bits: (ex1 - bias - m + f32's bias) << f32's fraction bits.
    let off = cx.c32((F32.bias() - fmt.bias()) as u32 - m);
    let pe = cx.bop(BinOp::IAdd, ex1, off);
    let f32_mant = cx.c32(F32.mant);
    let pbits = cx.bop(BinOp::Shl, pe, f32_mant);
    let p = cx.float_of(pbits, Ty::F32);
    let sigf = cx.b.conv(ConvOp::UToF, sig, Ty::F32);
    let mag =
        cx.b.bin_flags(BinOp::FMul, sigf, p, FpFlags { exact: true });
    let mag_bits = cx.bits_of(mag);
    let all = c(cx, fmt.magnitude_mask());
    let body = cx.bop(BinOp::And, x, all);
    let mag_bits = match fmt.specials {
        Specials::Finite => mag_bits,
        Specials::NanOnly => {
            let nan = cx.bop(BinOp::IEq, body, all);
            let qnan = c(cx, F32.canonical_nan());
            cx.sel(nan, qnan, mag_bits)
        }
        Specials::Ieee => {
            let emax = c(cx, fmt.inf());
            let is_special = cx.bop(BinOp::UGe, body, emax);
            let is_inf = cx.bop(BinOp::IEq, body, emax);
            let qnan = c(cx, F32.canonical_nan());
            let inf = c(cx, F32.inf());
            let spec_bits = cx.sel(is_inf, inf, qnan);
            cx.sel(is_special, spec_bits, mag_bits)
        }
    };
    // An unsigned format's value has nothing above its bits, so this leaves it positive.
    let sign_sh = cx.c32(fmt.exp + m);
    let sign = cx.bop(BinOp::LShr, x, sign_sh);
    let s31 = cx.c32(F32.width() - 1);
    let sign = cx.bop(BinOp::Shl, sign, s31);
    let r = cx.bop(BinOp::Or, mag_bits, sign);
    cx.float_of(r, Ty::F32)
}

/// Writes D's elements `d` (bits, as `read_acc` gives C's) to the destination registers.
pub(super) fn write_acc(cx: &mut Cx<'_>, x: &Mma, d: &[ValueId]) {
    match x.d_ty {
        MmaType::F16 => {
            for (pair, dst) in d.chunks(2).zip(&x.d) {
                let w = half::join(cx, pair[0], pair[1]);
                cx.write(dst, w);
            }
        }
        MmaType::F64 => {
            for (&v, dst) in d.iter().zip(&x.d) {
                cx.write(dst, v);
            }
        }
        _ => {
            for (&v, dst) in d.iter().zip(&x.d) {
                cx.write(dst, v);
            }
        }
    }
}

/// The floating-point accumulation (docs/decisions/0111-mma-accumulation-order.md): from `acc`
/// (f32), each product of `a` and `b` (f32 elements) formed and added in turn, each rounded to
/// nearest even; the bits of the result in `d` (`.f32`, or `.f16` rounded once at the end).
pub(in crate::lower) fn float_dot(
    cx: &mut Cx<'_>,
    acc: ValueId,
    a: &[ValueId],
    b: &[ValueId],
    d: MmaType,
) -> ValueId {
    let exact = FpFlags { exact: true };
    let mut acc = acc;
    for (&x, &y) in a.iter().zip(b) {
        let p = cx.b.bin_flags(BinOp::FMul, x, y, exact);
        acc = cx.b.bin_flags(BinOp::FAdd, acc, p, exact);
    }
    if d == MmaType::F16 {
        half::from_f32(cx, acc, sf::F16)
    } else {
        cx.bits_of(acc)
    }
}
