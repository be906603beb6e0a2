//! Exact IEEE 754 arithmetic for the floating-point reference models.
//!
//! `+ - * / fma` come from `rustc_apfloat` (the Rust port of LLVM's APFloat, which computes in
//! arbitrary precision and rounds once in any of the four directions, subnormals included).
//! Square root, which APFloat lacks, is an integer square root with a remainder, rounded once
//! through binary128 (see [`sqrt`]). Pure Rust, so the suite builds without a C toolchain.

use rustc_apfloat::ieee::{BFloat, Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// A binary interchange format, by its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
}

/// The four IEEE rounding directions of PTX's `.rn .rz .rm .rp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

impl Rnd {
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

    pub fn name(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }

    fn apfloat(self) -> Round {
        match self {
            Rnd::Rn => Round::NearestTiesToEven,
            Rnd::Rz => Round::TowardZero,
            Rnd::Rm => Round::TowardNegative,
            Rnd::Rp => Round::TowardPositive,
        }
    }
}

impl Fmt {
    pub fn mant(self) -> u32 {
        match self {
            Fmt::F16 => 10,
            Fmt::Bf16 => 7,
            Fmt::F32 => 23,
            Fmt::F64 => 52,
        }
    }
    pub fn exp_bits(self) -> u32 {
        match self {
            Fmt::F16 => 5,
            Fmt::Bf16 | Fmt::F32 => 8,
            Fmt::F64 => 11,
        }
    }
    pub fn width(self) -> u32 {
        1 + self.exp_bits() + self.mant()
    }
    pub fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }
    pub fn exp_mask(self) -> u64 {
        ((1 << self.exp_bits()) - 1) << self.mant()
    }
    pub fn frac_mask(self) -> u64 {
        (1 << self.mant()) - 1
    }
    pub fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }
    pub fn mask(self) -> u64 {
        if self.width() == 64 {
            u64::MAX
        } else {
            (1 << self.width()) - 1
        }
    }
    pub fn is_nan(self, b: u64) -> bool {
        b & !self.sign_bit() & self.mask() > self.exp_mask()
    }
    pub fn is_inf(self, b: u64) -> bool {
        b & !self.sign_bit() & self.mask() == self.exp_mask()
    }
    pub fn is_zero(self, b: u64) -> bool {
        b & !self.sign_bit() & self.mask() == 0
    }
    pub fn is_subnormal(self, b: u64) -> bool {
        b & self.exp_mask() == 0 && !self.is_zero(b)
    }
    pub fn sign(self, b: u64) -> bool {
        b & self.sign_bit() != 0
    }
    /// `.ftz` on an input or result: a subnormal becomes a zero of the same sign.
    pub fn flush(self, b: u64) -> u64 {
        if self.is_subnormal(b) {
            b & self.sign_bit()
        } else {
            b
        }
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.mant()
    }
    /// The exact value (every format here fits in an f64).
    pub fn value(self, b: u64) -> f64 {
        match self {
            Fmt::F64 => f64::from_bits(b),
            Fmt::F32 => f64::from(f32::from_bits(b as u32)),
            Fmt::F16 => f64::from(half::f16::from_bits(b as u16)),
            Fmt::Bf16 => f64::from(half::bf16::from_bits(b as u16)),
        }
    }
    /// The bits of `v` rounded to this format in direction `r`.
    pub fn round(self, v: f64, r: Rnd) -> u64 {
        let x = Double::from_bits(u128::from(v.to_bits()));
        convert(self, x, r)
    }
}

fn convert(
    fmt: Fmt,
    x: impl FloatConvert<Half> + FloatConvert<BFloat> + FloatConvert<Single> + FloatConvert<Double>,
    r: Rnd,
) -> u64 {
    let mut loses = false;
    let round = r.apfloat();
    match fmt {
        Fmt::F16 => FloatConvert::<Half>::convert_r(x, round, &mut loses)
            .value
            .to_bits() as u64,
        Fmt::Bf16 => FloatConvert::<BFloat>::convert_r(x, round, &mut loses)
            .value
            .to_bits() as u64,
        Fmt::F32 => FloatConvert::<Single>::convert_r(x, round, &mut loses)
            .value
            .to_bits() as u64,
        Fmt::F64 => FloatConvert::<Double>::convert_r(x, round, &mut loses)
            .value
            .to_bits() as u64,
    }
}

macro_rules! with_type {
    ($fmt:expr, $t:ident, $body:expr) => {
        match $fmt {
            Fmt::F16 => {
                type $t = Half;
                $body
            }
            Fmt::Bf16 => {
                type $t = BFloat;
                $body
            }
            Fmt::F32 => {
                type $t = Single;
                $body
            }
            Fmt::F64 => {
                type $t = Double;
                $body
            }
        }
    };
}

/// The operations with one rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
}

/// `op(a, b[, c])` of bits of `fmt`, rounded once in `r`.
pub fn arith(fmt: Fmt, op: Arith, r: Rnd, a: u64, b: u64, c: u64) -> u64 {
    let round = r.apfloat();
    with_type!(fmt, T, {
        let x = T::from_bits(u128::from(a));
        let y = T::from_bits(u128::from(b));
        let z = T::from_bits(u128::from(c));
        let v = match op {
            Arith::Add => x.add_r(y, round).value,
            Arith::Sub => x.sub_r(y, round).value,
            Arith::Mul => x.mul_r(y, round).value,
            Arith::Div => x.div_r(y, round).value,
            Arith::Fma => x.mul_add_r(y, z, round).value,
        };
        v.to_bits() as u64
    })
}

/// `sqrt(a)` rounded once in `r`: the integer square root of the significand, scaled to 120
/// bits, with a sticky bit for a non-zero remainder, is exact in binary128 and rounds from
/// there as the exact root would (the sticky bit lies far below the target's last place).
pub fn sqrt(fmt: Fmt, r: Rnd, a: u64) -> u64 {
    let nan = fmt.exp_mask() | (1 << (fmt.mant() - 1));
    if fmt.is_nan(a) {
        return nan;
    }
    if fmt.is_zero(a) {
        return a;
    }
    if fmt.sign(a) {
        return nan;
    }
    if fmt.is_inf(a) {
        return a;
    }
    // a = m * 2^e with an integer m.
    let ebits = ((a & fmt.exp_mask()) >> fmt.mant()) as i32;
    let frac = a & fmt.frac_mask();
    let (mut m, mut e) = if ebits == 0 {
        (u128::from(frac), 1 - fmt.bias() - fmt.mant() as i32)
    } else {
        (
            u128::from(frac | (1 << fmt.mant())),
            ebits - fmt.bias() - fmt.mant() as i32,
        )
    };
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // Scale m by an even power of two to about 2^120.
    let bits = 128 - m.leading_zeros() as i32;
    let k = (120 - bits) / 2;
    let big = m << (2 * k);
    let root = isqrt(big);
    let sticky = u128::from(root * root != big);
    let q = Quad::from_u128((root << 1) | sticky).value;
    let q = q.scalbn((e - 2 * k) / 2 - 1);
    convert(fmt, q, r)
}

fn isqrt(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    // Newton's method from above.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For round to nearest the hardware's f32/f64 operations are correctly rounded, which makes
    /// them an independent check of the exact models.
    #[test]
    fn nearest_matches_hardware() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..20000 {
            let (a, b) = (next(), next());
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let want = [x + y, x - y, x * y, x / y, x.sqrt()];
            let got = [
                arith(Fmt::F64, Arith::Add, Rnd::Rn, a, b, 0),
                arith(Fmt::F64, Arith::Sub, Rnd::Rn, a, b, 0),
                arith(Fmt::F64, Arith::Mul, Rnd::Rn, a, b, 0),
                arith(Fmt::F64, Arith::Div, Rnd::Rn, a, b, 0),
                sqrt(Fmt::F64, Rnd::Rn, a),
            ];
            for (w, g) in want.iter().zip(got) {
                assert!(
                    w.to_bits() == g || (w.is_nan() && f64::from_bits(g).is_nan()),
                    "{x:e} {y:e}: {w:e} vs {:e}",
                    f64::from_bits(g)
                );
            }
            let (a32, b32) = (a as u32, b as u32);
            let (x, y) = (f32::from_bits(a32), f32::from_bits(b32));
            let w = x.sqrt();
            let g = sqrt(Fmt::F32, Rnd::Rn, u64::from(a32));
            assert!(w.to_bits() as u64 == g || w.is_nan(), "sqrt {x:e}");
            let w = x.mul_add(y, x);
            let g = arith(
                Fmt::F32,
                Arith::Fma,
                Rnd::Rn,
                u64::from(a32),
                u64::from(b32),
                u64::from(a32),
            );
            assert!(w.to_bits() as u64 == g || w.is_nan(), "fma {x:e} {y:e}");
        }
    }

    /// Directed roundings bracket the exact value: RD <= RN <= RU, RU - RD is 0 or one step,
    /// and RZ is RD or RU by sign (the sqrt model checked against itself squared).
    #[test]
    fn directed_sqrt_brackets() {
        for a in [
            2.0f64,
            3.0,
            1e-310,
            5e-324,
            0.5,
            1.7976931348623157e308,
            10.0,
        ] {
            let b = a.to_bits();
            let dn = f64::from_bits(sqrt(Fmt::F64, Rnd::Rm, b));
            let up = f64::from_bits(sqrt(Fmt::F64, Rnd::Rp, b));
            let z = f64::from_bits(sqrt(Fmt::F64, Rnd::Rz, b));
            assert!(dn <= a.sqrt() && a.sqrt() <= up, "{a}");
            assert!(up.to_bits() - dn.to_bits() <= 1, "{a}");
            assert_eq!(z, dn);
            // dn^2 <= a <= up^2 exactly, checked with the exact fma model.
            let r = arith(
                Fmt::F64,
                Arith::Fma,
                Rnd::Rn,
                dn.to_bits(),
                dn.to_bits(),
                (-a).to_bits(),
            );
            assert!(f64::from_bits(r) <= 0.0, "{a}");
        }
    }
}
