//! Rounding modifiers (ISA 6.5.2), shared by the float, conversion and matrix forms.

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
