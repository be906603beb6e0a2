//! Calls to CUDA's device-runtime functions (`abi::DeviceCall`): `vprintf` appends a record to
//! the context's printf FIFO, `malloc` takes granules from the device heap, `free` returns
//! nothing. Both structures are the runtime's; the module's services slot holds their addresses
//! (`abi::SERVICES_FIFO`, `abi::SERVICES_HEAP`; `docs/decisions/0179-device-printf-and-heap.md`).
//!
//! `device_calls/vprintf.rs` lowers `vprintf` (with `trace.rs` finding its format string),
//! `heap.rs` `malloc` and `free`, and `access.rs` holds what they share.

mod access;
mod heap;
mod trace;
mod vprintf;

use self::heap::{free, malloc};
use self::vprintf::vprintf;
use crate::abi::DeviceCall;
use crate::check::inst::Call;
use crate::lower::cx::Cx;

/// Lowers a call to `which`.
pub fn call(cx: &mut Cx<'_>, which: DeviceCall, c: &Call) {
    match which {
        DeviceCall::Vprintf => vprintf(cx, c),
        DeviceCall::Malloc => malloc(cx, c),
        DeviceCall::Free => free(cx, c),
    }
}
