//! The decoded forms of the instructions that `check/inst/narrow.rs` reads.

use super::convert::RoundMode;
use crate::check::operand::{Dst, Src};
use crate::types::ScalarType;

/// A narrow float format, as a `cvt` type names it (two values packed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Narrow {
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    Ue8m0,
}

pub const NARROW_TYPES: [(&str, Narrow); 6] = [
    ("e4m3x2", Narrow::E4m3),
    ("e5m2x2", Narrow::E5m2),
    ("e2m3x2", Narrow::E2m3),
    ("e3m2x2", Narrow::E3m2),
    ("e2m1x2", Narrow::E2m1),
    ("ue8m0x2", Narrow::Ue8m0),
];

impl Narrow {
    pub fn name(self) -> &'static str {
        NARROW_TYPES
            .iter()
            .find(|(_, n)| *n == self)
            .map_or("", |(s, _)| s)
    }
    /// Exponent bits.
    pub fn exp(self) -> u32 {
        match self {
            Narrow::E4m3 => 4,
            Narrow::E5m2 => 5,
            Narrow::E2m3 | Narrow::E2m1 => 2,
            Narrow::E3m2 => 3,
            Narrow::Ue8m0 => 8,
        }
    }
    /// Stored fraction bits.
    pub fn mant(self) -> u32 {
        match self {
            Narrow::E4m3 | Narrow::E2m3 => 3,
            Narrow::E5m2 | Narrow::E3m2 => 2,
            Narrow::E2m1 => 1,
            Narrow::Ue8m0 => 0,
        }
    }
    /// Bits of one value, sign included (`.ue8m0` has none).
    pub fn width(self) -> u32 {
        match self {
            Narrow::Ue8m0 => 8,
            f => 1 + f.exp() + f.mant(),
        }
    }
    /// Bits each value takes in the packed register: the 6-bit formats sit in bytes whose two
    /// top bits are zero.
    pub fn slot(self) -> u32 {
        match self {
            Narrow::E2m1 => 4,
            _ => 8,
        }
    }
    /// The largest finite magnitude's bits (`MAX_NORM`): e4m3 uses its top exponent for
    /// numbers (only `S.1111.111` is NaN), e5m2 reserves it as IEEE does, fp6/fp4 have no
    /// special values, `.ue8m0`'s 0xFF is NaN.
    pub fn max_norm(self) -> u64 {
        match self {
            Narrow::E4m3 => 0x7e,
            Narrow::E5m2 => 0x7b,
            Narrow::E2m3 | Narrow::E3m2 => 0x1f,
            Narrow::E2m1 => 0x7,
            Narrow::Ue8m0 => 0xfe,
        }
    }
    /// The NaN this format's results use, if it has one.
    pub fn nan(self) -> Option<u64> {
        match self {
            Narrow::E4m3 | Narrow::E5m2 => Some(0x7f),
            Narrow::Ue8m0 => Some(0xff),
            _ => None,
        }
    }
    /// The register type of a packed pair: `.b8` for fp4, `.b16` otherwise.
    pub fn packed_type(self) -> ScalarType {
        match self {
            Narrow::E2m1 => ScalarType::B8,
            _ => ScalarType::B16,
        }
    }
}

/// A conversion between a pair of narrow values and wider floats.
#[derive(Clone, Debug)]
pub struct CvtNarrow {
    pub fmt: Narrow,
    /// Into the narrow format (else out of it).
    pub to_narrow: bool,
    /// The wide side: `.f32` (two registers), `.f16x2`, or `.bf16x2`.
    pub wide: ScalarType,
    pub mode: RoundMode,
    pub relu: bool,
    pub satfinite: bool,
    pub dst: Dst,
    pub a: Src,
    /// The second `.f32` source (it goes to the lower half).
    pub b: Option<Src>,
}
