//! Binary float formats and rounding directions, as every stage after parsing sees them: the
//! checker names them, and the float emulations, the conversions and the matrix instructions
//! compute with them. Nothing here knows of PTX syntax (the modifiers `.rn .rzi ...` are the
//! checker's), so the front end and lowering both import this module without a cycle.

use crate::types::ScalarType;

/// Which encodings of a format are not finite numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Specials {
    /// IEEE: the top exponent field is infinity (zero fraction) or NaN (`.f64` to `.f16`,
    /// `.e5m2`).
    Ieee,
    /// No infinity, and one NaN: every bit of the magnitude set (`.e4m3`, `.ue4m3`,
    /// `.ue8m0`); the top exponent field holds numbers otherwise.
    NanOnly,
    /// Every encoding is a finite number (`.e2m3`, `.e3m2`, `.e2m1`).
    Finite,
}

/// A binary float format: an optional sign bit above `exp` exponent bits (bias
/// `2^(exp-1) - 1`) above `mant` stored fraction bits, with an implicit leading one for
/// nonzero exponent fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    /// Stored fraction bits.
    pub mant: u32,
    /// Exponent bits.
    pub exp: u32,
    /// Whether the format has a sign bit (`.ue8m0` and `.ue4m3` have none).
    pub signed: bool,
    pub specials: Specials,
}

const fn ieee(exp: u32, mant: u32) -> FloatFormat {
    FloatFormat {
        mant,
        exp,
        signed: true,
        specials: Specials::Ieee,
    }
}

pub const F64: FloatFormat = ieee(11, 52);
pub const F32: FloatFormat = ieee(8, 23);
/// `.tf32`: f32's range with f16's precision, stored in the top 19 bits of a 32-bit register.
pub const TF32: FloatFormat = ieee(8, 10);
pub const F16: FloatFormat = ieee(5, 10);
pub const BF16: FloatFormat = ieee(8, 7);
pub const E5M2: FloatFormat = ieee(5, 2);
pub const E4M3: FloatFormat = FloatFormat {
    mant: 3,
    exp: 4,
    signed: true,
    specials: Specials::NanOnly,
};
pub const E3M2: FloatFormat = FloatFormat {
    mant: 2,
    exp: 3,
    signed: true,
    specials: Specials::Finite,
};
pub const E2M3: FloatFormat = FloatFormat {
    mant: 3,
    exp: 2,
    signed: true,
    specials: Specials::Finite,
};
pub const E2M1: FloatFormat = FloatFormat {
    mant: 1,
    exp: 2,
    signed: true,
    specials: Specials::Finite,
};
/// `.ue8m0`: a power of two, 2^(bits - 127); 0xFF is NaN.
pub const UE8M0: FloatFormat = FloatFormat {
    mant: 0,
    exp: 8,
    signed: false,
    specials: Specials::NanOnly,
};
/// `.ue4m3`: `.e4m3` without its sign bit (the block-scale factors of `mma`).
pub const UE4M3: FloatFormat = FloatFormat {
    mant: 3,
    exp: 4,
    signed: false,
    specials: Specials::NanOnly,
};

impl FloatFormat {
    /// The format of a float type's values (of each half for the packed types); `.f32` for
    /// the types that are not floats.
    pub fn of(ty: ScalarType) -> FloatFormat {
        match ty {
            ScalarType::F16 | ScalarType::F16x2 => F16,
            ScalarType::Bf16 | ScalarType::Bf16x2 => BF16,
            ScalarType::Tf32 => TF32,
            ScalarType::F64 => F64,
            _ => F32,
        }
    }
    /// Bits of one value, the sign included where there is one.
    pub const fn width(self) -> u32 {
        self.signed as u32 + self.exp + self.mant
    }
    pub const fn bias(self) -> i64 {
        (1i64 << (self.exp - 1)) - 1
    }
    /// Significand bits, the implicit one included.
    pub const fn precision(self) -> u32 {
        self.mant + 1
    }
    /// The sign bit; meaningful for signed formats only.
    pub const fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }
    pub const fn exp_mask(self) -> u64 {
        ((1u64 << self.exp) - 1) << self.mant
    }
    pub const fn frac_mask(self) -> u64 {
        (1u64 << self.mant) - 1
    }
    /// Exponent and fraction bits.
    pub const fn magnitude_mask(self) -> u64 {
        (1u64 << (self.exp + self.mant)) - 1
    }
    /// The IEEE infinity's bits: the top exponent field, zero fraction. For the formats
    /// without infinities this is the bound past which a rounding without a top to its
    /// exponent range has overflowed the IEEE layout.
    pub const fn inf(self) -> u64 {
        self.exp_mask()
    }
    /// The largest finite magnitude of the IEEE layout (just below [`Self::inf`]).
    pub const fn max_finite(self) -> u64 {
        self.exp_mask() - 1
    }
    /// The largest finite magnitude the format really has (the ISA's `MAX_NORM`): e4m3 and
    /// ue8m0 use the top exponent for numbers but the all-ones NaN, fp6/fp4 every encoding.
    pub const fn max_norm(self) -> u64 {
        match self.specials {
            Specials::Ieee => self.max_finite(),
            Specials::NanOnly => self.magnitude_mask() - 1,
            Specials::Finite => self.magnitude_mask(),
        }
    }
    /// The NaN NVIDIA hardware produces: every bit but the sign set.
    pub const fn canonical_nan(self) -> u64 {
        self.magnitude_mask()
    }
    /// The NaN results in this format use, if it has one.
    pub const fn nan(self) -> Option<u64> {
        match self.specials {
            Specials::Ieee | Specials::NanOnly => Some(self.canonical_nan()),
            Specials::Finite => None,
        }
    }
    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.mant
    }
    /// The smallest normal magnitude: exponent field 1, zero fraction.
    pub const fn min_normal(self) -> u64 {
        1u64 << self.mant
    }
    /// The quiet NaN whose fraction is its top bit alone (0x7FC0_0000 for `.f32`), not
    /// NVIDIA's [`Self::canonical_nan`].
    pub const fn quiet_nan(self) -> u64 {
        self.exp_mask() | (1u64 << (self.mant - 1))
    }
    /// How many low fraction bits of `wide`, a format with this one's exponent and more
    /// fraction, a value of this one leaves zero when held in `wide`'s layout (`.tf32` in an
    /// `.f32` register: 13).
    pub const fn fraction_gap(self, wide: FloatFormat) -> u32 {
        wide.mant - self.mant
    }
}

/// A rounding direction, as every stage after checking uses it; the checker turns the
/// modifiers (`.rn`, `.rzi`, `.rna`, ...) into one, with whether the result is integral kept
/// apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundMode {
    /// To nearest, ties to even (`.rn`, `.rni`).
    NearestEven,
    /// To nearest, ties away from zero (`.rna`, tf32 only).
    NearestAway,
    /// Toward zero (`.rz`, `.rzi`).
    Zero,
    /// Toward negative infinity (`.rm`, `.rmi`).
    Down,
    /// Toward positive infinity (`.rp`, `.rpi`).
    Up,
}

impl RoundMode {
    /// The float modifier that names the direction, without its dot.
    pub fn modifier(self) -> &'static str {
        match self {
            RoundMode::NearestEven => "rn",
            RoundMode::NearestAway => "rna",
            RoundMode::Zero => "rz",
            RoundMode::Down => "rm",
            RoundMode::Up => "rp",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit patterns derived from the fields against the host's and `half`'s own constants.
    #[test]
    fn derived_patterns_match_the_host_types() {
        let f32_bits = |x: f32| u64::from(x.to_bits());
        let f16_bits = |x: half::f16| u64::from(x.to_bits());
        let bf16_bits = |x: half::bf16| u64::from(x.to_bits());
        let cases = [
            (
                F32,
                [f32::MIN_POSITIVE, f32::MAX, f32::INFINITY, 1.0].map(f32_bits),
            ),
            (
                F64,
                [f64::MIN_POSITIVE, f64::MAX, f64::INFINITY, 1.0].map(f64::to_bits),
            ),
            (
                F16,
                [
                    half::f16::MIN_POSITIVE,
                    half::f16::MAX,
                    half::f16::INFINITY,
                    half::f16::ONE,
                ]
                .map(f16_bits),
            ),
            (
                BF16,
                [
                    half::bf16::MIN_POSITIVE,
                    half::bf16::MAX,
                    half::bf16::INFINITY,
                    half::bf16::ONE,
                ]
                .map(bf16_bits),
            ),
        ];
        for (fmt, [min_normal, max, inf, one]) in cases {
            assert_eq!(fmt.min_normal(), min_normal, "{fmt:?}");
            assert_eq!(fmt.max_finite(), max, "{fmt:?}");
            assert_eq!(fmt.inf(), inf, "{fmt:?}");
            assert_eq!(fmt.one(), one, "{fmt:?}");
        }
        assert_eq!(F32.quiet_nan(), 0x7FC0_0000);
        assert_eq!(F64.quiet_nan(), 0x7FF8_0000_0000_0000);
        // `.tf32` is f32 with 10 of its 23 fraction bits.
        assert_eq!(TF32.fraction_gap(F32), 13);
    }
}
