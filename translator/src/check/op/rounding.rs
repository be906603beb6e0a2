//! Rounding modifiers (ISA 6.5.2), shared by the float, conversion and matrix forms.

use crate::float_format::RoundMode;

/// Rounding modifiers (ISA 6.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Floating-point results: nearest even, toward zero, toward -inf, toward +inf.
    Rn,
    Rz,
    Rm,
    Rp,
    /// Integer results (cvt to integer, cvt.rni.f32.f32): same directions, to an integer.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rounding {
    /// The direction the modifier rounds in; whether to an integer is the instruction's.
    pub fn direction(self) -> RoundMode {
        match self {
            Rounding::Rn | Rounding::Rni => RoundMode::NearestEven,
            Rounding::Rz | Rounding::Rzi => RoundMode::Zero,
            Rounding::Rm | Rounding::Rmi => RoundMode::Down,
            Rounding::Rp | Rounding::Rpi => RoundMode::Up,
        }
    }
}
