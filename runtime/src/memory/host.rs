//! Host memory imported as device memory (`VK_EXT_external_memory_host`): what lets a
//! program's own allocation be registered for the device (`cuMemHostRegister` with
//! CU_MEMHOSTREGISTER_DEVICEMAP) and reached by kernels in place.

use std::sync::Arc;

use super::Buffer;
use super::raw::RawBuffer;
use crate::context::Context;
use crate::error::{Error, Result};

impl Buffer {
    /// A buffer over `size` bytes of host memory at `host`, which kernels read and write in
    /// place through [`Buffer::address`]; the host sees their writes in its own memory once
    /// the work is complete. `host` and `size` must be multiples of the device's
    /// [`crate::DeviceInfo::host_import_alignment`]; a device without the extension gives
    /// [`Error::HostImportUnsupported`].
    ///
    /// # Safety
    /// The memory stays allocated, and is not unmapped, while the buffer lives, including while
    /// work that uses it is in flight.
    pub unsafe fn import_host(ctx: &Context, host: *mut u8, size: u64) -> Result<Buffer> {
        let info = ctx.info();
        let Some(align) = info.host_import_alignment else {
            return Err(Error::HostImportUnsupported(format!(
                "`{}` lacks VK_EXT_external_memory_host",
                info.name
            )));
        };
        if host.is_null() || size == 0 || (host as u64) % align != 0 || size % align != 0 {
            return Err(Error::InvalidArgument(format!(
                "{size} bytes of host memory at {host:?}: both must be multiples of {align}"
            )));
        }
        // SAFETY: aligned as checked; the memory outlives the buffer by the caller's contract.
        let raw = unsafe { RawBuffer::import_host(ctx.vk(), info.physical, host, size) }?;
        Ok(Buffer {
            raw: Arc::new(raw),
            ctx: ctx.clone(),
        })
    }
}
