//! The IR side of the float formats the emulations work in (see `crate::float_format`).

use super::super::cx::Cx;
use super::softfloat::Ops;
use crate::float_format::{F16, F64, FloatFormat};
use crate::ir::build::Build;
use crate::ir::{BinOp, Ty, ValueId};

impl FloatFormat {
    /// The integer type holding the format's bits.
    pub(in crate::lower) fn int_ty(self) -> Ty {
        Ty::int(self.width())
    }
    /// The IR float type of `.f16`, `.f32` and `.f64` values; `.f32` for the other formats,
    /// which the IR has no float type for.
    pub(in crate::lower) fn float_ty(self) -> Ty {
        match self {
            F16 => Ty::F16,
            F64 => Ty::F64,
            _ => Ty::F32,
        }
    }
}

/// `2^k` as a float of format `fmt` (`.f32` or `.f64`), for an i32 `k` in its normal range:
/// the biased exponent alone in its field.
pub(in crate::lower) fn pow2(cx: &mut Cx<'_>, k: ValueId, fmt: FloatFormat) -> ValueId {
    let b = cx.c32(fmt.bias() as u32);
    let e = cx.bop(BinOp::IAdd, k, b);
    let it = fmt.int_ty();
    let e = if it == Ty::I64 {
        cx.zext(e, Ty::I64)
    } else {
        e
    };
    let sh = cx.b.konst(it, u64::from(fmt.mant));
    let bits = cx.bop(BinOp::Shl, e, sh);
    cx.float_of(bits, fmt.float_ty())
}
