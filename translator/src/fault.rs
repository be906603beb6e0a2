//! Deliberate translation mistakes (feature `fault-injection`), for tests that show the
//! conformance suite catches a broken translation. Off unless a test turns one on.

use std::sync::atomic::{AtomicU8, Ordering};

/// A mistake the lowering can be told to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    None = 0,
    /// Integer rounding `.rni` and `.rzi` swapped (and `.rn`/`.rz` where they round to integers).
    SwapIntegerRounding = 1,
    /// Table 28's sign extension of destinations done as zero extension.
    ZeroExtendSigned = 2,
}

static FAULT: AtomicU8 = AtomicU8::new(0);

/// Makes every later translation in this process make `f` (`Fault::None` to stop).
pub fn inject(f: Fault) {
    FAULT.store(f as u8, Ordering::SeqCst);
}

pub(crate) fn active(f: Fault) -> bool {
    FAULT.load(Ordering::SeqCst) == f as u8
}
