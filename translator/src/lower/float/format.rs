//! The IEEE binary interchange formats the float emulations work in, as field widths.

use crate::ir::Ty;
use crate::types::ScalarType;

/// An IEEE binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lower) struct Fmt {
    /// Stored fraction bits.
    pub mant: u32,
    /// Exponent bits.
    pub exp: u32,
}

pub(in crate::lower) const F16: Fmt = Fmt { mant: 10, exp: 5 };
pub(in crate::lower) const BF16: Fmt = Fmt { mant: 7, exp: 8 };
pub(in crate::lower) const F32: Fmt = Fmt { mant: 23, exp: 8 };
pub(in crate::lower) const F64: Fmt = Fmt { mant: 52, exp: 11 };

impl Fmt {
    pub fn of(ty: ScalarType) -> Fmt {
        match ty {
            ScalarType::F16 | ScalarType::F16x2 => F16,
            ScalarType::Bf16 | ScalarType::Bf16x2 => BF16,
            ScalarType::F64 => F64,
            _ => F32,
        }
    }
    pub fn width(self) -> u32 {
        1 + self.exp + self.mant
    }
    pub fn bias(self) -> i64 {
        (1i64 << (self.exp - 1)) - 1
    }
    /// Significand bits, the implicit one included.
    pub fn precision(self) -> u32 {
        self.mant + 1
    }
    pub fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }
    pub fn exp_mask(self) -> u64 {
        ((1u64 << self.exp) - 1) << self.mant
    }
    pub fn frac_mask(self) -> u64 {
        (1u64 << self.mant) - 1
    }
    pub fn inf(self) -> u64 {
        self.exp_mask()
    }
    pub fn max_finite(self) -> u64 {
        self.exp_mask() - 1
    }
    /// The quiet NaN NVIDIA hardware produces (all bits but the sign set).
    pub fn canonical_nan(self) -> u64 {
        self.sign_bit() - 1
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.mant
    }
    /// The integer type holding the format's bits.
    pub fn int_ty(self) -> Ty {
        Ty::int(self.width())
    }
}
