//! What each IR operation computes on bits: integers are two's complement, floats IEEE 754
//! binary16/32/64 with the host's arithmetic, rounding to nearest even.

use crate::ir::{AtomicOp, BinOp, ConvOp, ExtOp, Ty, UnOp};

/// Why a run stopped before the kernel ended (what an operation's undefined case gives).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    OutOfFuel,
    Undefined(String),
    Unsupported(String),
}

pub(super) fn mask(bits: u64, ty: Ty) -> u64 {
    if ty.bits() >= 64 {
        bits
    } else {
        bits & ((1u64 << ty.bits()) - 1)
    }
}

/// The low `ty.bits()` bits of `x` as a signed integer.
pub(super) fn signed(x: u64, ty: Ty) -> i64 {
    let s = 64 - ty.bits();
    ((x << s) as i64) >> s
}

/// A float of type `ty` held as bits, as `f64` (exactly: every f16 and f32 is an f64).
pub(super) fn to_f64(x: u64, ty: Ty) -> f64 {
    match ty {
        Ty::F16 => half::f16::from_bits(x as u16).to_f64(),
        Ty::F32 => f64::from(f32::from_bits(x as u32)),
        _ => f64::from_bits(x),
    }
}

/// Arithmetic on floats of type `ty`, in that type's own precision.
pub(super) fn float2(
    ty: Ty,
    x: u64,
    y: u64,
    f32op: impl Fn(f32, f32) -> f32,
    f64op: impl Fn(f64, f64) -> f64,
) -> u64 {
    match ty {
        Ty::F16 => {
            let (a, b) = (
                half::f16::from_bits(x as u16),
                half::f16::from_bits(y as u16),
            );
            // f32 has more than twice f16's precision: rounding to it first and then to f16
            // gives the correctly rounded f16 result of +, -, *, / and sqrt.
            u64::from(half::f16::from_f32(f32op(a.to_f32(), b.to_f32())).to_bits())
        }
        Ty::F32 => u64::from(f32op(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits()),
        _ => f64op(f64::from_bits(x), f64::from_bits(y)).to_bits(),
    }
}

pub(super) fn float1(ty: Ty, x: u64, f32op: fn(f32) -> f32, f64op: fn(f64) -> f64) -> u64 {
    float2(ty, x, x, |a, _| f32op(a), |a, _| f64op(a))
}

/// `v` (an f64 holding a value of type `ty` or one to round to it) as bits of `ty`.
pub(super) fn from_f64(v: f64, ty: Ty) -> u64 {
    match ty {
        Ty::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        Ty::F32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    }
}

pub(super) fn unary(u: UnOp, x: u64, ty: Ty) -> Result<u64, Stop> {
    Ok(match u {
        UnOp::INeg => x.wrapping_neg(),
        UnOp::Not => {
            if ty == Ty::Bool {
                u64::from(x == 0)
            } else {
                !x
            }
        }
        UnOp::FNeg => x ^ (1u64 << (ty.bits() - 1)),
        UnOp::IsNan => u64::from(to_f64(x, ty).is_nan()),
        UnOp::IsInf => u64::from(to_f64(x, ty).is_infinite()),
        UnOp::BitCount => u64::from(mask(x, ty).count_ones()),
        UnOp::BitReverse => mask(x, ty).reverse_bits() >> (64 - ty.bits()),
    })
}

/// `x op y` with both operands of type `ty`.
pub(super) fn binary(op: BinOp, x: u64, y: u64, ty: Ty) -> Result<u64, Stop> {
    use BinOp::*;
    let (sx, sy) = (signed(x, ty), signed(y, ty));
    let (fx, fy) = (to_f64(x, ty), to_f64(y, ty));
    let unordered = fx.is_nan() || fy.is_nan();
    let shift = || {
        if y >= u64::from(ty.bits()) {
            Err(Stop::Undefined(format!("{op:?} by {y} past the width")))
        } else {
            Ok(y)
        }
    };
    let divisor = || {
        if mask(y, ty) == 0 {
            Err(Stop::Undefined(format!("{op:?} by zero")))
        } else {
            Ok(())
        }
    };
    let bits = u128::from(ty.bits());
    Ok(match op {
        IAdd => x.wrapping_add(y),
        ISub => x.wrapping_sub(y),
        IMul => x.wrapping_mul(y),
        UDiv => {
            divisor()?;
            x / y
        }
        SDiv => {
            divisor()?;
            if sy == -1 {
                sx.wrapping_neg() as u64
            } else {
                (sx / sy) as u64
            }
        }
        UMod => {
            divisor()?;
            x % y
        }
        Shl => x << shift()?,
        LShr => x >> shift()?,
        AShr => (sx >> shift()?) as u64,
        And => x & y,
        Or => x | y,
        Xor => x ^ y,
        UMulHi => ((u128::from(x) * u128::from(y)) >> bits) as u64,
        SMulHi => ((i128::from(sx) * i128::from(sy)) >> bits) as u64,
        FAdd => float2(ty, x, y, |a, b| a + b, |a, b| a + b),
        FSub => float2(ty, x, y, |a, b| a - b, |a, b| a - b),
        FMul => float2(ty, x, y, |a, b| a * b, |a, b| a * b),
        FDiv => float2(ty, x, y, |a, b| a / b, |a, b| a / b),
        IEq => u64::from(x == y),
        INe => u64::from(x != y),
        ULt => u64::from(x < y),
        ULe => u64::from(x <= y),
        UGt => u64::from(x > y),
        UGe => u64::from(x >= y),
        SLt => u64::from(sx < sy),
        SLe => u64::from(sx <= sy),
        SGt => u64::from(sx > sy),
        SGe => u64::from(sx >= sy),
        FOrdEq => u64::from(fx == fy),
        FOrdNe => u64::from(!unordered && fx != fy),
        FOrdLt => u64::from(fx < fy),
        FOrdLe => u64::from(fx <= fy),
        FOrdGt => u64::from(fx > fy),
        FOrdGe => u64::from(fx >= fy),
        FUnordEq => u64::from(unordered || fx == fy),
        FUnordNe => u64::from(fx != fy),
        FUnordLt => u64::from(unordered || fx < fy),
        FUnordLe => u64::from(unordered || fx <= fy),
        FUnordGt => u64::from(unordered || fx > fy),
        FUnordGe => u64::from(unordered || fx >= fy),
    })
}

pub(super) fn convert(c: ConvOp, x: u64, from: Ty, to: Ty) -> Result<u64, Stop> {
    let f = to_f64(x, from);
    let out_of_range = || Stop::Undefined(format!("{c:?} of {f} to {to:?}"));
    Ok(match c {
        ConvOp::Bitcast | ConvOp::ZExt | ConvOp::Trunc => mask(x, from),
        ConvOp::SExt => signed(x, from) as u64,
        ConvOp::BoolToInt => u64::from(x != 0),
        ConvOp::FToU => {
            let t = f.trunc();
            if !(t >= 0.0 && t < 2f64.powi(to.bits() as i32)) {
                return Err(out_of_range());
            }
            t as u64
        }
        ConvOp::FToS => {
            let t = f.trunc();
            let half = 2f64.powi(to.bits() as i32 - 1);
            if !(t >= -half && t < half) {
                return Err(out_of_range());
            }
            t as i64 as u64
        }
        // Integers to floats round once, to nearest even.
        ConvOp::UToF => int_to_float(u128::from(mask(x, from)), false, to),
        ConvOp::SToF => {
            let s = signed(x, from);
            int_to_float(u128::from(s.unsigned_abs()), s < 0, to)
        }
        ConvOp::FConvert => match (from, to) {
            (Ty::F64, Ty::F16) => u64::from(half::f16::from_f64(f).to_bits()),
            _ => from_f64(f, to),
        },
    })
}

/// `±m` rounded to nearest even in `to`.
pub(super) fn int_to_float(m: u128, negative: bool, to: Ty) -> u64 {
    let v = match to {
        // Every 64-bit integer converts to f32 and f16 exactly-rounded straight from u64/i64
        // (Rust's `as` rounds to nearest even), never through a double rounding.
        Ty::F16 => {
            let f = m as f32;
            return u64::from(half::f16::from_f32(if negative { -f } else { f }).to_bits());
        }
        Ty::F32 => {
            let f = m as f32;
            return u64::from((if negative { -f } else { f }).to_bits());
        }
        _ => m as f64,
    };
    (if negative { -v } else { v }).to_bits()
}

pub(super) fn atomic(op: AtomicOp, old: u64, x: u64, ty: Ty) -> Result<u64, Stop> {
    Ok(match op {
        AtomicOp::Add => old.wrapping_add(x),
        AtomicOp::And => old & x,
        AtomicOp::Or => old | x,
        AtomicOp::Xor => old ^ x,
        AtomicOp::Exchange => x,
        AtomicOp::UMin => mask(old, ty).min(mask(x, ty)),
        AtomicOp::UMax => mask(old, ty).max(mask(x, ty)),
        AtomicOp::SMin => signed(old, ty).min(signed(x, ty)) as u64,
        AtomicOp::SMax => signed(old, ty).max(signed(x, ty)) as u64,
        AtomicOp::FAdd => {
            let fty = match ty.bits() {
                16 => Ty::F16,
                32 => Ty::F32,
                _ => Ty::F64,
            };
            float2(fty, old, x, |a, b| a + b, |a, b| a + b)
        }
    })
}

pub(super) fn extended(e: ExtOp, v: &[u64], ty: Ty) -> Result<u64, Stop> {
    use ExtOp::*;
    let arg = |k: usize| {
        v.get(k)
            .copied()
            .ok_or_else(|| Stop::Undefined(format!("{e:?} without operand {k}")))
    };
    let x = arg(0)?;
    Ok(match e {
        Fma => {
            let (y, z) = (arg(1)?, arg(2)?);
            match ty {
                Ty::F32 => u64::from(
                    f32::from_bits(x as u32)
                        .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                        .to_bits(),
                ),
                Ty::F64 => f64::from_bits(x)
                    .mul_add(f64::from_bits(y), f64::from_bits(z))
                    .to_bits(),
                // An f16 product is exact in f64, and the sum rounded once there is close
                // enough that rounding it to f16 is the correctly rounded fma.
                _ => from_f64(to_f64(x, ty).mul_add(to_f64(y, ty), to_f64(z, ty)), ty),
            }
        }
        FAbs => x & !(1u64 << (ty.bits() - 1)),
        SAbs => signed(x, ty).wrapping_abs() as u64,
        FMin => float2(ty, x, arg(1)?, f32::min, f64::min),
        FMax => float2(ty, x, arg(1)?, f32::max, f64::max),
        UMin => mask(x, ty).min(mask(arg(1)?, ty)),
        UMax => mask(x, ty).max(mask(arg(1)?, ty)),
        SMin => signed(x, ty).min(signed(arg(1)?, ty)) as u64,
        SMax => signed(x, ty).max(signed(arg(1)?, ty)) as u64,
        Sqrt => float1(ty, x, f32::sqrt, f64::sqrt),
        InverseSqrt => float1(ty, x, |a| 1.0 / a.sqrt(), |a| 1.0 / a.sqrt()),
        Sin => float1(ty, x, f32::sin, f64::sin),
        Cos => float1(ty, x, f32::cos, f64::cos),
        Exp2 => float1(ty, x, f32::exp2, f64::exp2),
        Log2 => float1(ty, x, f32::log2, f64::log2),
        Floor => float1(ty, x, f32::floor, f64::floor),
        Ceil => float1(ty, x, f32::ceil, f64::ceil),
        Trunc => float1(ty, x, f32::trunc, f64::trunc),
        RoundEven => float1(ty, x, f32::round_ties_even, f64::round_ties_even),
        FindUMsb => match mask(x, ty) {
            0 => u64::MAX,
            m => u64::from(63 - m.leading_zeros()),
        },
        FindSMsb => {
            let s = signed(x, ty);
            let m = if s < 0 { !s } else { s } as u64;
            if m == 0 {
                u64::MAX
            } else {
                u64::from(63 - m.leading_zeros())
            }
        }
    })
}
