//! The decoded forms of the instructions that `check/inst/convert.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::float_format::RoundMode;
use crate::types::ScalarType;

/// `cvt`: one value converted, or (`.f16x2`/`.bf16x2` destinations) two values packed.
#[derive(Clone, Debug)]
pub struct Cvt {
    /// `.f16x2`, `.bf16x2` and `.tf32` destinations included.
    pub dst_ty: ScalarType,
    pub src_ty: ScalarType,
    /// The rounding direction; `None` where the conversion is exact or needs none.
    pub mode: Option<RoundMode>,
    /// `.rni .rzi .rmi .rpi`: the value is rounded to an integral value.
    pub integer: bool,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
    pub dst: Dst,
    pub src: Src,
    /// The second value of a packing conversion (it goes to the lower half).
    pub src2: Option<Src>,
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`: `a` and `b` saturated to a `bits`-bit
/// integer and packed into the low bits of `d` (`a` above `b`), the rest of `d` from `c`.
#[derive(Clone, Debug)]
pub struct CvtPack {
    pub bits: u32,
    pub signed: bool,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Option<Src>,
}
