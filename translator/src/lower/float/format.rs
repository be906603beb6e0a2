//! The IR side of the float formats the emulations work in (see `crate::float_format`).

use crate::float_format::FloatFormat;
use crate::ir::Ty;

impl FloatFormat {
    /// The integer type holding the format's bits.
    pub(in crate::lower) fn int_ty(self) -> Ty {
        Ty::int(self.width())
    }
}
