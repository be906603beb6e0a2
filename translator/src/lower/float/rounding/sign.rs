//! Sign rules every route must apply alike: negating an operand, and the sign IEEE 754 gives an
//! exact zero sum.

use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ValueId};
use crate::lower::cx::Cx;
use crate::lower::float::softfloat::{FloatFormat, Ops};

use BinOp::*;

pub(super) fn negate(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    cx.bop(Xor, x, s)
}

/// The sign of an exact zero sum `u + v` (IEEE 754 6.3): negative only if both are -0, except
/// when rounding toward -inf, where it is negative unless both are +0.
pub(super) fn zero_sum_sign(cx: &mut Cx<'_>, mode: RoundMode, su: ValueId, sv: ValueId) -> ValueId {
    if mode == RoundMode::Down {
        cx.bop(Or, su, sv)
    } else {
        cx.bop(And, su, sv)
    }
}
