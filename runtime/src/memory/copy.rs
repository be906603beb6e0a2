//! Copies and fills as stream commands, and the synchronous host copies built on them.

use std::sync::Arc;

use ash::vk;

use crate::context::Context;
use crate::error::Result;
use crate::memory::raw::{Place, RawBuffer};
use crate::stream::StreamCore;

/// Host bytes to device memory, in stream order. The bytes are copied out of `data` before
/// this returns (small ones into the stream's upload arena, so that many small copies cost
/// one submission).
pub(crate) fn copy_in(
    core: &StreamCore,
    dst: &Arc<RawBuffer>,
    offset: u64,
    data: &[u8],
) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    core.record(|r| {
        let (src, src_offset, _) = r.upload(data)?;
        let region = vk::BufferCopy::default()
            .src_offset(src_offset)
            .dst_offset(offset)
            .size(data.len() as u64);
        // SAFETY: recording into the stream's open command buffer; both buffers stay alive
        // until the command completes (the upload in the recording, `dst` kept here).
        unsafe { r.dev.cmd_copy_buffer(r.cb, src, dst.handle(), &[region]) };
        r.keep(dst.clone());
        Ok(())
    })?;
    Ok(())
}

/// Device memory to a new host-visible buffer, in stream order: (the buffer, the timeline
/// value after which it holds the data).
pub(crate) fn copy_out(
    core: &StreamCore,
    src: &Arc<RawBuffer>,
    offset: u64,
    len: u64,
) -> Result<(Arc<RawBuffer>, u64)> {
    let staging = Arc::new(RawBuffer::new(&core.vk, len, Place::Readback)?);
    if len == 0 {
        return Ok((staging, 0));
    }
    let ((), v) = core.record(|r| {
        let region = vk::BufferCopy::default()
            .src_offset(offset)
            .dst_offset(0)
            .size(len);
        // SAFETY: as in `copy_in`.
        unsafe {
            r.dev
                .cmd_copy_buffer(r.cb, src.handle(), staging.handle(), &[region])
        };
        r.keep(src.clone());
        r.keep(staging.clone());
        Ok(())
    })?;
    Ok((staging, v))
}

/// Device to device, in stream order.
pub(crate) fn copy_dd(
    core: &StreamCore,
    src: (&Arc<RawBuffer>, u64),
    dst: (&Arc<RawBuffer>, u64),
    len: u64,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    core.record(|r| {
        let region = vk::BufferCopy::default()
            .src_offset(src.1)
            .dst_offset(dst.1)
            .size(len);
        // SAFETY: as in `copy_in`. Overlapping regions of one buffer are refused by the caller.
        unsafe {
            r.dev
                .cmd_copy_buffer(r.cb, src.0.handle(), dst.0.handle(), &[region])
        };
        r.keep(src.0.clone());
        r.keep(dst.0.clone());
        Ok(())
    })?;
    Ok(())
}

/// Repeats `pattern` over `len` bytes from `offset`, in stream order. `vkCmdFillBuffer` where
/// the pattern is a repeated 32-bit word and the range is word-aligned; a copy from an
/// uploaded pattern otherwise.
pub(crate) fn fill(
    core: &StreamCore,
    dst: &Arc<RawBuffer>,
    offset: u64,
    len: u64,
    pattern: &[u8],
) -> Result<()> {
    if len == 0 || pattern.is_empty() {
        return Ok(());
    }
    let word = match pattern.len() {
        1 => Some(u32::from_ne_bytes([pattern[0]; 4])),
        2 => Some(u32::from_le_bytes([
            pattern[0], pattern[1], pattern[0], pattern[1],
        ])),
        4 => Some(u32::from_le_bytes([
            pattern[0], pattern[1], pattern[2], pattern[3],
        ])),
        8 if pattern[..4] == pattern[4..] => Some(u32::from_le_bytes([
            pattern[0], pattern[1], pattern[2], pattern[3],
        ])),
        _ => None,
    };
    let aligned = offset % 4 == 0 && len % 4 == 0;
    core.record(|r| {
        match word {
            Some(w) if aligned => {
                // SAFETY: recording into the stream's open command buffer; offset and size are
                // multiples of 4 as vkCmdFillBuffer requires.
                unsafe { r.dev.cmd_fill_buffer(r.cb, dst.handle(), offset, len, w) };
            }
            _ => {
                let (src, src_offset) = r.alloc(len)?;
                let bytes = super::repeat_pattern(pattern, len as usize);
                src.write_mapped(src_offset, &bytes)?;
                let region = vk::BufferCopy::default()
                    .src_offset(src_offset)
                    .dst_offset(offset)
                    .size(len);
                // SAFETY: as in `copy_in`.
                unsafe {
                    r.dev
                        .cmd_copy_buffer(r.cb, src.handle(), dst.handle(), &[region])
                };
            }
        }
        r.keep(dst.clone());
        Ok(())
    })?;
    Ok(())
}

impl Context {
    /// Synchronous host-to-device copy: waits for all streams (as `cudaMemcpy` does), then
    /// copies directly into mapped memory or through the default stream.
    pub(crate) fn write_raw(&self, dst: &Arc<RawBuffer>, offset: u64, data: &[u8]) -> Result<()> {
        if dst.mapped().is_some() {
            if !self.is_lost() {
                self.synchronize()?;
            }
            // After a loss, mapped memory stays readable and writable for inspection.
            return dst.write_mapped(offset, data);
        }
        self.synchronize()?;
        let core = self.default_core()?;
        copy_in(&core, dst, offset, data)?;
        core.synchronize()?;
        self.after_work()
    }

    /// Synchronous device-to-host copy; as `write_raw`.
    pub(crate) fn read_raw(&self, src: &Arc<RawBuffer>, offset: u64, out: &mut [u8]) -> Result<()> {
        if src.mapped().is_some() {
            if !self.is_lost() {
                self.synchronize()?;
            }
            return src.read_mapped(offset, out);
        }
        self.synchronize()?;
        let core = self.default_core()?;
        let (staging, v) = copy_out(&core, src, offset, out.len() as u64)?;
        core.wait_value(v)?;
        staging.read_mapped(0, out)?;
        self.after_work()
    }

    /// Synchronous device-side operation on the default stream.
    pub(crate) fn on_default<R>(&self, f: impl FnOnce(&StreamCore) -> Result<R>) -> Result<R> {
        self.synchronize()?;
        let core = self.default_core()?;
        let r = f(&core)?;
        core.synchronize()?;
        self.after_work()?;
        Ok(r)
    }
}
