//! Reference models of `cvt` (ISA 8.7.6.13 and its current edition), written from the ISA text
//! with exact arithmetic: a float or integer source is an exact rational `n * 2^e` (u128
//! numerator), and rounding to a float format picks the multiple of the format's quantum at
//! that magnitude that the rounding direction asks for. Float-to-integer rounding uses Rust's
//! exact `f64` rounding functions (every source value is exactly an `f64`).

use crate::Expect;
use ptxvk_translator::ScalarType::{self, *};

/// A rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Nearest, ties to even (`.rn`, `.rni`).
    Even,
    /// Nearest, ties away from zero (`.rna`).
    Away,
    /// Toward zero (`.rz`, `.rzi`).
    Zero,
    /// Toward -inf (`.rm`, `.rmi`).
    Down,
    /// Toward +inf (`.rp`, `.rpi`).
    Up,
}

/// A binary floating-point format: stored fraction bits and exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub mant: u32,
    pub exp: u32,
}

pub const HALF: Format = Format { mant: 10, exp: 5 };
pub const BFLOAT: Format = Format { mant: 7, exp: 8 };
pub const TENSOR: Format = Format { mant: 10, exp: 8 };
pub const SINGLE: Format = Format { mant: 23, exp: 8 };
pub const DOUBLE: Format = Format { mant: 52, exp: 11 };

impl Format {
    pub fn of(t: ScalarType) -> Format {
        match t {
            F16 | F16x2 => HALF,
            Bf16 | Bf16x2 => BFLOAT,
            Tf32 => TENSOR,
            F64 => DOUBLE,
            _ => SINGLE,
        }
    }
    pub fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    pub fn sign_bit(self) -> u64 {
        1 << (self.mant + self.exp)
    }
    pub fn inf(self) -> u64 {
        ((1u64 << self.exp) - 1) << self.mant
    }
    pub fn max(self) -> u64 {
        self.inf() - 1
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.mant
    }
}

/// A decoded value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Nan,
    Inf {
        neg: bool,
    },
    /// `(-1)^neg * n * 2^e`; `n == 0` is a (signed) zero.
    Num {
        neg: bool,
        n: u128,
        e: i32,
    },
}

/// Decodes float bits.
pub fn decode(bits: u64, f: Format) -> Value {
    let neg = bits & f.sign_bit() != 0;
    let field = (bits >> f.mant) & ((1 << f.exp) - 1);
    let frac = bits & ((1 << f.mant) - 1);
    if field == (1 << f.exp) - 1 {
        return if frac == 0 {
            Value::Inf { neg }
        } else {
            Value::Nan
        };
    }
    let lowest = 1 - f.bias() - f.mant as i32;
    if field == 0 {
        Value::Num {
            neg,
            n: u128::from(frac),
            e: lowest,
        }
    } else {
        Value::Num {
            neg,
            n: u128::from(frac | 1 << f.mant),
            e: lowest + field as i32 - 1,
        }
    }
}

/// The value of an integer register of type `ty` holding `bits`.
pub fn decode_int(bits: u64, ty: ScalarType) -> i128 {
    let b = ty.bits();
    let masked = if b >= 64 { bits } else { bits & ((1 << b) - 1) };
    if ty.is_signed() {
        let s = 64 - b;
        i128::from(((masked << s) as i64) >> s)
    } else {
        i128::from(masked)
    }
}

/// Rounds `(-1)^neg * n * 2^e` to format `f` in direction `mode`; returns the bits.
pub fn round(neg: bool, n: u128, e: i32, f: Format, mode: Mode) -> u64 {
    let sign = if neg { f.sign_bit() } else { 0 };
    if n == 0 {
        return sign;
    }
    let top = 127 - n.leading_zeros() as i32 + e; // |x| in [2^top, 2^(top+1))
    let emin = 1 - f.bias();
    let quantum = top.max(emin) - f.mant as i32;
    // |x| / 2^quantum = int + rem / 2^drop
    let (mut int, above_half, at_half, inexact) = if e >= quantum {
        (n << (e - quantum) as u32, false, false, false)
    } else {
        let drop = (quantum - e) as u32;
        if drop >= 128 {
            (0, false, false, true)
        } else {
            let int = n >> drop;
            let rem = n & ((1u128 << drop) - 1);
            let half = 1u128 << (drop - 1);
            (int, rem > half, rem == half, rem != 0)
        }
    };
    let up = match mode {
        Mode::Even => above_half || (at_half && int & 1 == 1),
        Mode::Away => above_half || at_half,
        Mode::Zero => false,
        Mode::Down => neg && inexact,
        Mode::Up => !neg && inexact,
    };
    let mut quantum = quantum;
    if up {
        int += 1;
        if int == 1 << (f.mant + 1) {
            int >>= 1;
            quantum += 1;
        }
    }
    if int < 1 << f.mant {
        return sign | int as u64; // subnormal (or zero)
    }
    let field = i64::from(quantum) + i64::from(f.mant) + i64::from(f.bias());
    if field >= (1 << f.exp) - 1 {
        let to_inf = match mode {
            Mode::Even | Mode::Away => true,
            Mode::Zero => false,
            Mode::Down => neg,
            Mode::Up => !neg,
        };
        return sign | if to_inf { f.inf() } else { f.max() };
    }
    sign | (field as u64) << f.mant | (int as u64 - (1 << f.mant))
}

/// `x` (an `f64`) in format `f`: exact when `x` is representable.
fn encode(x: f64, f: Format) -> u64 {
    match decode(x.to_bits(), DOUBLE) {
        Value::Num { neg, n, e } => round(neg, n, e, f, Mode::Even),
        Value::Inf { neg } => (if neg { f.sign_bit() } else { 0 }) | f.inf(),
        Value::Nan => f.inf() | 1 << (f.mant - 1),
    }
}

/// A float register's value as an `f64` (exact for every PTX float type: the narrower formats
/// widen exactly).
pub fn to_f64(bits: u64, ty: ScalarType) -> f64 {
    match ty {
        F64 => f64::from_bits(bits),
        F16 => half::f16::from_bits(bits as u16).to_f64(),
        Bf16 => half::bf16::from_bits(bits as u16).to_f64(),
        _ => f64::from(f32::from_bits(bits as u32)),
    }
}

fn is_subnormal_f32(bits: u64) -> bool {
    bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0
}

/// The modifiers of one `cvt`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mods {
    pub mode: Option<Mode>,
    /// `.rni .rzi .rmi .rpi`
    pub integer: bool,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

/// The expected result of `cvt.mods.dst.src` on register bits `a`.
pub fn cvt(dst: ScalarType, src: ScalarType, m: Mods, a: u64) -> Expect {
    let mode = m.mode.unwrap_or(Mode::Even);
    match (src.is_float(), dst.is_float()) {
        (false, false) => Expect::Bits(int_to_int(dst, src, m.sat, a) as u64),
        (true, false) => Expect::Bits(float_to_int(dst, src, m, a)),
        (false, true) => {
            let x = decode_int(a, src);
            let f = Format::of(dst);
            let r = round(x < 0, x.unsigned_abs(), 0, f, mode);
            float_result(dst, m, r)
        }
        (true, true) => float_to_float(dst, src, m, a),
    }
}

/// Integer to integer: sign- or zero-extension, or truncation; `.sat` clamps to the destination
/// range ("limits the result to MININT..MAXINT for the size of the operation").
pub fn int_to_int(dst: ScalarType, src: ScalarType, sat: bool, a: u64) -> i128 {
    let x = decode_int(a, src);
    let b = dst.bits();
    let (lo, hi) = if dst.is_signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    };
    let x = if sat { x.clamp(lo, hi) } else { x };
    x & ((1i128 << b) - 1)
}

/// Float to integer: round as the modifier says, clamp to the destination range ("the result is
/// clamped to the destination range by default"); NaN gives 0 unless the source is .f64 or the
/// destination 64-bit, where it gives `1 << (bits - 1)` (current ISA, "Integer Notes").
pub fn float_to_int(dst: ScalarType, src: ScalarType, m: Mods, a: u64) -> u64 {
    let b = dst.bits();
    let mut x = to_f64(a, src);
    if x.is_nan() {
        return if src == F64 || b == 64 {
            1 << (b - 1)
        } else {
            0
        };
    }
    if m.ftz && src == F32 && is_subnormal_f32(a) {
        x = 0.0;
    }
    let r = match m.mode.unwrap_or(Mode::Even) {
        Mode::Even => x.round_ties_even(),
        Mode::Away => x.round(),
        Mode::Zero => x.trunc(),
        Mode::Down => x.floor(),
        Mode::Up => x.ceil(),
    };
    let (lo, hi) = if dst.is_signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    };
    let v = if r >= 2f64.powi(100) {
        hi
    } else if r <= -(2f64.powi(100)) {
        lo
    } else {
        (r as i128).clamp(lo, hi)
    };
    (v & ((1i128 << b) - 1)) as u64
}

fn float_to_float(dst: ScalarType, src: ScalarType, m: Mods, a: u64) -> Expect {
    let f = Format::of(dst);
    let mut x = decode(a, Format::of(src));
    if m.ftz
        && src == F32
        && is_subnormal_f32(a)
        && let Value::Num { neg, .. } = x
    {
        x = Value::Num { neg, n: 0, e: 0 };
    }
    let r = match x {
        Value::Nan => {
            return if m.sat {
                Expect::Bits(0)
            } else if m.relu {
                Expect::Bits(f.sign_bit() - 1)
            } else {
                Expect::AnyNan
            };
        }
        Value::Inf { neg } => (if neg { f.sign_bit() } else { 0 }) | f.inf(),
        Value::Num { neg, n, .. } if m.integer => {
            // Round to an integral value of the same format.
            let v = if n == 0 {
                if neg { -0.0 } else { 0.0 }
            } else {
                to_f64(a, src)
            };
            let r = match m.mode.unwrap_or(Mode::Even) {
                Mode::Even => v.round_ties_even(),
                Mode::Away => v.round(),
                Mode::Zero => v.trunc(),
                Mode::Down => v.floor(),
                Mode::Up => v.ceil(),
            };
            encode(r, f)
        }
        Value::Num { neg, n, e } => {
            let r = round(neg, n, e, f, m.mode.unwrap_or(Mode::Even));
            // Rounded up to the smallest normal from below: `.ftz` may flush it or not
            // (tininess before or after rounding; see `float::ftz_result`).
            if m.ftz
                && dst == F32
                && !is_subnormal_f32(r)
                && is_subnormal_f32(round(neg, n, e, f, Mode::Zero))
            {
                let zero = r & f.sign_bit();
                if let (Expect::Bits(a), Expect::Bits(b)) =
                    (float_result(dst, m, r), float_result(dst, m, zero))
                {
                    return Expect::Either(a, b);
                }
            }
            r
        }
    };
    float_result(dst, m, r)
}

/// `.ftz` on an f32 result, then `.sat`, `.relu`, `.satfinite` (ISA "Floating Point Notes").
fn float_result(dst: ScalarType, m: Mods, r: u64) -> Expect {
    let f = Format::of(dst);
    let mut r = r;
    if m.ftz && dst == F32 && is_subnormal_f32(r) {
        r &= f.sign_bit();
    }
    let neg = r & f.sign_bit() != 0;
    let mag = r & !f.sign_bit();
    let nan = mag > f.inf();
    if m.sat {
        // "limits the result to the range [0.0, 1.0]. NaN results are flushed to positive
        // zero." The ISA does not say which zero a negative result becomes: either is 0.0.
        if nan {
            return Expect::Bits(0);
        }
        if neg {
            return Expect::Abs {
                value: 0.0,
                tol: 0.0,
            };
        }
        return Expect::Bits(if mag > f.one() { f.one() } else { r });
    }
    if m.relu {
        // "clamps the result to 0 if negative. NaN results are converted to canonical NaN."
        if nan {
            return Expect::Bits(f.sign_bit() - 1);
        }
        if neg {
            return Expect::Abs {
                value: 0.0,
                tol: 0.0,
            };
        }
    }
    if m.satfinite && mag == f.inf() {
        // "If the absolute value of input ... is greater than MAX_NORM ..., then the result is
        // sign-preserved MAX_NORM."
        r = (r & f.sign_bit()) | f.max();
    }
    if nan {
        return Expect::AnyNan;
    }
    Expect::Bits(r)
}

/// `cvt.pack.sat`: both inputs saturated to a `bits`-bit integer, `a` above `b`, the rest of the
/// 32 bits from the low bits of `c` (ISA "cvt.pack" Semantics).
pub fn pack(bits: u32, signed: bool, a: u64, b: u64, c: Option<u64>) -> u64 {
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let sat = |v: u64| ((v as u32 as i32 as i64).clamp(lo, hi) as u64) & ((1 << bits) - 1);
    let mut d = sat(a) << bits | sat(b);
    if let Some(c) = c {
        d |= (c << (2 * bits)) & 0xffff_ffff;
    }
    d & 0xffff_ffff
}

/// A narrow format of the ISA's "Alternate Floating Point Data Formats", converted in pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    Ue8m0,
}

impl Narrow {
    pub const FLOATS: [Narrow; 5] = [
        Narrow::E4m3,
        Narrow::E5m2,
        Narrow::E2m3,
        Narrow::E3m2,
        Narrow::E2m1,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Narrow::E4m3 => "e4m3x2",
            Narrow::E5m2 => "e5m2x2",
            Narrow::E2m3 => "e2m3x2",
            Narrow::E3m2 => "e3m2x2",
            Narrow::E2m1 => "e2m1x2",
            Narrow::Ue8m0 => "ue8m0x2",
        }
    }

    /// Exponent bits, fraction bits and bias, as the ISA's format table gives them.
    fn layout(self) -> (u32, u32, i32) {
        match self {
            Narrow::E4m3 => (4, 3, 7),
            Narrow::E5m2 => (5, 2, 15),
            Narrow::E2m3 => (2, 3, 1),
            Narrow::E3m2 => (3, 2, 3),
            Narrow::E2m1 => (2, 1, 1),
            Narrow::Ue8m0 => (8, 0, 127),
        }
    }

    /// Bits of one value, sign included (`.ue8m0` is unsigned).
    pub fn width(self) -> u32 {
        let (e, m, _) = self.layout();
        if self == Narrow::Ue8m0 { 8 } else { 1 + e + m }
    }

    /// Bits each value of a pair takes in the register (6-bit values sit in bytes).
    pub fn slot(self) -> u32 {
        if self == Narrow::E2m1 { 4 } else { 8 }
    }

    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }

    /// The value an encoding stands for: e4m3 has no infinity and one NaN magnitude
    /// (`S.1111.111`), e5m2 reserves its top exponent as IEEE 754 does, fp6 and fp4 have only
    /// numbers, `.ue8m0` is 2^(bits - 127) with 0xFF NaN.
    pub fn value(self, code: u64) -> f64 {
        let (eb, mb, bias) = self.layout();
        if self == Narrow::Ue8m0 {
            return if code == 0xff {
                f64::NAN
            } else {
                2f64.powi(code as i32 - bias)
            };
        }
        let neg = code & self.sign_bit() != 0;
        let e = (code >> mb) & ((1 << eb) - 1);
        let f = code & ((1 << mb) - 1);
        let top = (1 << eb) - 1;
        let mag = match self {
            Narrow::E4m3 if e == top && f == (1 << mb) - 1 => f64::NAN,
            Narrow::E5m2 if e == top && f == 0 => f64::INFINITY,
            Narrow::E5m2 if e == top => f64::NAN,
            _ if e == 0 => f as f64 * 2f64.powi(1 - bias - mb as i32),
            _ => ((1u64 << mb) + f) as f64 * 2f64.powi(e as i32 - bias - mb as i32),
        };
        if neg { -mag } else { mag }
    }

    /// The largest finite magnitude and its encoding.
    pub fn max_norm(self) -> (f64, u64) {
        (0..self.sign_bit())
            .map(|c| (self.value(c), c))
            .filter(|(v, _)| v.is_finite())
            .fold((0.0, 0), |best, x| if x.0 > best.0 { x } else { best })
    }
}

/// `cvt.rn.satfinite{.relu}.<narrow>x2` of one value `x` (exact in `f64`): the encoding nearest
/// `x`, ties to the even encoding; "if the absolute value of input (ignoring sign) is greater
/// than MAX_NORM ..., then the result is sign-preserved MAX_NORM"; a NaN input gives the
/// format's NaN, and "for .e2m1x2, .e2m3x2, .e3m2x2 ... NaN results are converted to positive
/// MAX_NORM"; `.relu` "clamps the result to 0 if negative. NaN results are converted to
/// canonical NaN."
pub fn to_narrow(n: Narrow, x: f64, relu: bool) -> Expect {
    let (max, max_code) = n.max_norm();
    let sign = if x.is_sign_negative() {
        n.sign_bit()
    } else {
        0
    };
    if x.is_nan() {
        return match n {
            Narrow::E4m3 | Narrow::E5m2 if relu => Expect::Bits(0x7f),
            Narrow::E4m3 | Narrow::E5m2 => Expect::Either(0x7f, 0xff),
            _ => Expect::Bits(max_code),
        };
    }
    if relu && x.is_sign_negative() {
        return Expect::Either(0, n.sign_bit());
    }
    if x.abs() > max {
        return Expect::Bits(sign | max_code);
    }
    let a = x.abs();
    let mut best = (f64::INFINITY, 0u64);
    for c in 0..n.sign_bit() {
        let v = n.value(c);
        if !v.is_finite() {
            continue;
        }
        let d = (v - a).abs();
        if d < best.0 || (d == best.0 && c & 1 == 0) {
            best = (d, c);
        }
    }
    Expect::Bits(sign | best.1)
}

/// `cvt.rn{.relu}.f16x2.<narrow>x2` of one encoding, as `.f16` bits: every value is exact.
pub fn from_narrow(n: Narrow, code: u64, relu: bool) -> Expect {
    let v = n.value(code);
    if v.is_nan() {
        return if relu {
            Expect::Bits(0x7fff)
        } else {
            Expect::AnyNan
        };
    }
    if relu && code & n.sign_bit() != 0 {
        return Expect::Either(0, 0x8000);
    }
    Expect::Bits(u64::from(half::f16::from_f64(v).to_bits()))
}

/// `cvt.{rz,rp}{.satfinite}.ue8m0x2` of one value: the power of two 2^k, -127 <= k <= 127,
/// next to `|x|` toward zero or up (the format has no sign; nothing lies below 2^-127, so
/// smaller magnitudes and zero give 2^-127). NaN gives NaN (0xFF); past 2^127 the result is
/// NaN, or with `.satfinite` MAX_NORM (2^127, 0xFE).
pub fn to_ue8m0(x: f64, up: bool, satfinite: bool) -> u64 {
    let over = if satfinite { 0xfe } else { 0xff };
    if x.is_nan() {
        return 0xff;
    }
    let a = x.abs();
    if a.is_infinite() {
        return over;
    }
    let k = if up {
        (-127..=128).find(|&k| 2f64.powi(k) >= a).unwrap_or(128)
    } else {
        (-127..=127)
            .rev()
            .find(|&k| 2f64.powi(k) <= a)
            .unwrap_or(-127)
    };
    if k > 127 { over } else { (k + 127) as u64 }
}

/// `cvt.rn.bf16x2.ue8m0x2` of one encoding, as `.bf16` bits (exact; 2^-127 is subnormal).
pub fn from_ue8m0(code: u64) -> Expect {
    let v = Narrow::Ue8m0.value(code);
    if v.is_nan() {
        return Expect::AnyNan;
    }
    Expect::Bits(u64::from(half::bf16::from_f64(v).to_bits()))
}

#[cfg(test)]
mod tests;
