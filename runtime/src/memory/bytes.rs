//! Untyped stream operations on [`Buffer`]s: byte offsets and lengths instead of typed views.
//! The CUDA driver API's `cuMemcpy*Async` and `cuMemsetD*Async` work on raw device pointers,
//! which its implementation resolves to a buffer and an offset.

use std::marker::PhantomData;

use super::{Buffer, Download, copy};
use crate::error::{Error, Result};
use crate::stream::Stream;

impl Stream {
    /// Copies `data` into `dst` at byte `offset`, in stream order; `data` is copied out before
    /// this returns.
    pub fn write_buffer(&self, dst: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        self.check_same(dst)?;
        dst.check_range("write", offset, data.len() as u64)?;
        copy::copy_in(&self.core, &dst.raw, offset, data)
    }

    /// Copies `len` bytes of `src` from byte `offset` to the host, in stream order.
    pub fn read_buffer(&self, src: &Buffer, offset: u64, len: u64) -> Result<Download<u8>> {
        self.check_same(src)?;
        src.check_range("read", offset, len)?;
        let (staging, value) = copy::copy_out(&self.core, &src.raw, offset, len)?;
        Ok(Download {
            core: self.core.clone(),
            value,
            staging,
            len: len as usize,
            ctx: self.ctx.clone(),
            _t: PhantomData,
        })
    }

    /// Copies `len` bytes from `src` at `src_offset` to `dst` at `dst_offset`, in stream
    /// order. Overlapping ranges of one buffer are refused.
    pub fn copy_buffer(
        &self,
        (src, src_offset): (&Buffer, u64),
        (dst, dst_offset): (&Buffer, u64),
        len: u64,
    ) -> Result<()> {
        self.check_same(src)?;
        self.check_same(dst)?;
        src.check_range("copy source", src_offset, len)?;
        dst.check_range("copy destination", dst_offset, len)?;
        let same = std::sync::Arc::ptr_eq(&src.raw, &dst.raw);
        if same && src_offset < dst_offset + len && dst_offset < src_offset + len {
            return Err(Error::InvalidArgument(
                "the source and destination of a device copy overlap".into(),
            ));
        }
        copy::copy_dd(
            &self.core,
            (&src.raw, src_offset),
            (&dst.raw, dst_offset),
            len,
        )
    }

    /// Repeats `pattern` (1, 2 or 4 bytes as `cuMemsetD8/16/32`, or longer) over `len` bytes
    /// of `dst` from `offset`, in stream order.
    pub fn fill_buffer(&self, dst: &Buffer, offset: u64, len: u64, pattern: &[u8]) -> Result<()> {
        self.check_same(dst)?;
        dst.check_range("fill", offset, len)?;
        copy::fill(&self.core, &dst.raw, offset, len, pattern)
    }
}

impl Buffer {
    /// The buffer's memory as the host sees it, where device memory is host-visible and this
    /// context reads and writes it directly (integrated GPUs, lavapipe, resizable BAR; `None`
    /// where copies go through staging). Accesses through the pointer are plain memory
    /// accesses: the caller orders them with the device's work, as with CUDA's mapped and
    /// managed memory.
    pub fn host_ptr(&self) -> Option<*mut u8> {
        if self.ctx.uses_staging() {
            None
        } else {
            self.raw.mapped()
        }
    }
}
