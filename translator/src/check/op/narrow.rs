//! The decoded forms of the instructions that `check/inst/narrow.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::float_format::{E2M1, E2M3, E3M2, E4M3, E5M2, FloatFormat, RoundMode, UE8M0};
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
    /// The format of each value.
    pub fn format(self) -> FloatFormat {
        match self {
            Narrow::E4m3 => E4M3,
            Narrow::E5m2 => E5M2,
            Narrow::E2m3 => E2M3,
            Narrow::E3m2 => E3M2,
            Narrow::E2m1 => E2M1,
            Narrow::Ue8m0 => UE8M0,
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
