//! Device memory: buffers reached by kernels through their device addresses, typed views, and
//! copies (synchronous, or ordered on a [`Stream`]).
//!
//! Where the device has host-visible device-local memory (integrated GPUs, lavapipe, resizable
//! BAR) the synchronous copies are plain memory copies into the mapping; elsewhere they go
//! through staging buffers and the device's copy engine. Copies on a stream always run in
//! stream order; their host data is copied out before the call returns.

mod bytes;
mod copy;
mod host;
pub(crate) mod raw;

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use bytemuck::Pod;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::stream::{Stream, StreamCore};
use raw::{Place, RawBuffer};

/// An untyped device buffer of `size` bytes. Kernels see it through [`Buffer::address`].
///
/// ```no_run
/// # let ctx = ptxvk_runtime::Context::new(&Default::default())?;
/// let b = ptxvk_runtime::Buffer::new(&ctx, 16)?;
/// b.write_bytes(4, &[1, 2, 3, 4])?;
/// let mut out = [0u8; 4];
/// b.read_bytes(4, &mut out)?;
/// assert_eq!(out, [1, 2, 3, 4]);
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
pub struct Buffer {
    pub(crate) raw: Arc<RawBuffer>,
    ctx: Context,
}

impl Buffer {
    /// A zero-initialised buffer of `size` bytes in device memory.
    pub fn new(ctx: &Context, size: u64) -> Result<Buffer> {
        let raw = Arc::new(RawBuffer::new(ctx.vk(), size, Place::Device)?);
        let b = Buffer {
            raw,
            ctx: ctx.clone(),
        };
        b.fill_bytes(0, size, &[0])?;
        Ok(b)
    }

    /// The device address kernels use (a `.u64` pointer argument). It stays valid while the
    /// buffer lives; work that received the address as a raw [`crate::KernelArg::Ptr`] must
    /// complete before the buffer is dropped (typed arguments keep the buffer alive).
    pub fn address(&self) -> u64 {
        self.raw.address()
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.raw.size()
    }

    /// The context the buffer belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    fn check_range(&self, what: &str, offset: u64, len: u64) -> Result<()> {
        let need = offset.saturating_add(len);
        if need > self.size() {
            return Err(Error::BufferTooSmall {
                what: what.to_string(),
                have: self.size(),
                need,
            });
        }
        Ok(())
    }

    /// Copies `data` into the buffer at `offset`, after all queued work on the context.
    pub fn write_bytes(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.check_range("write", offset, data.len() as u64)?;
        self.ctx.write_raw(&self.raw, offset, data)
    }

    /// Copies from the buffer at `offset` into `out`, after all queued work on the context.
    pub fn read_bytes(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.check_range("read", offset, out.len() as u64)?;
        self.ctx.read_raw(&self.raw, offset, out)
    }

    fn fill_bytes(&self, offset: u64, len: u64, pattern: &[u8]) -> Result<()> {
        self.check_range("fill", offset, len)?;
        if self.raw.mapped().is_some() && !self.ctx.is_lost() {
            self.ctx.synchronize()?;
            return self
                .raw
                .write_mapped(offset, &repeat_pattern(pattern, len as usize));
        }
        self.ctx
            .on_default(|core| copy::fill(core, &self.raw, offset, len, pattern))
    }
}

/// `len` bytes of `pattern` repeated (empty for an empty pattern). Built by doubling copies:
/// a byte-at-a-time iterator took most of a debug build's time to zero a 64 MiB buffer.
pub(crate) fn repeat_pattern(pattern: &[u8], len: usize) -> Vec<u8> {
    if pattern.is_empty() {
        return Vec::new();
    }
    let mut bytes = pattern.repeat(len / pattern.len());
    bytes.extend_from_slice(&pattern[..len - bytes.len()]);
    bytes
}

/// A buffer of `len` values of `T`: the typed counterpart of `CUdeviceptr` + `cuMemAlloc`.
///
/// ```no_run
/// use ptxvk_runtime::{Context, DeviceBuffer};
/// let ctx = Context::new(&Default::default())?;
/// let x = DeviceBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
/// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
/// x.slice(1..3)?.fill(9.0)?; // a view of elements 1 and 2
/// assert_eq!(x.to_vec()?, vec![1.0, 9.0, 9.0, 4.0]);
/// let y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
/// y.copy_from_device(&x)?;
/// assert_eq!(y.to_vec()?, x.to_vec()?);
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
pub struct DeviceBuffer<T: Pod> {
    buf: Buffer,
    len: usize,
    _t: PhantomData<T>,
}

/// A view of part of a [`DeviceBuffer`] (`&buf[a..b]` on the device), for copies and as a
/// kernel argument (its address is the first element's).
pub struct DeviceSlice<'a, T: Pod> {
    buf: &'a Buffer,
    /// In bytes.
    offset: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Pod> Copy for DeviceSlice<'_, T> {}

/// Anything that names a range of device memory of `T`: a [`DeviceBuffer`] (all of it) or a
/// [`DeviceSlice`].
pub trait DeviceRange<T: Pod> {
    /// The range as a slice.
    fn device_slice(&self) -> DeviceSlice<'_, T>;
}

impl<T: Pod> DeviceRange<T> for DeviceBuffer<T> {
    fn device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            buf: &self.buf,
            offset: 0,
            len: self.len,
            _t: PhantomData,
        }
    }
}

impl<T: Pod> DeviceRange<T> for DeviceSlice<'_, T> {
    fn device_slice(&self) -> DeviceSlice<'_, T> {
        *self
    }
}

fn bytes_of<T>(n: usize) -> u64 {
    (n as u64).saturating_mul(size_of::<T>() as u64)
}

impl<T: Pod> DeviceBuffer<T> {
    /// `len` zeroed elements.
    pub fn zeroed(ctx: &Context, len: usize) -> Result<Self> {
        let size = (len as u64)
            .checked_mul(size_of::<T>() as u64)
            .ok_or(Error::OutOfDeviceMemory { bytes: u64::MAX })?;
        Ok(DeviceBuffer {
            buf: Buffer::new(ctx, size)?,
            len,
            _t: PhantomData,
        })
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(ctx: &Context, data: &[T]) -> Result<Self> {
        let raw = Arc::new(RawBuffer::new(
            ctx.vk(),
            size_of_val(data) as u64,
            Place::Device,
        )?);
        let b = DeviceBuffer {
            buf: Buffer {
                raw,
                ctx: ctx.clone(),
            },
            len: data.len(),
            _t: PhantomData,
        };
        b.buf.write_bytes(0, bytemuck::cast_slice(data))?;
        Ok(b)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of element 0.
    pub fn address(&self) -> u64 {
        self.buf.address()
    }

    /// The untyped buffer.
    pub fn raw(&self) -> &Buffer {
        &self.buf
    }

    /// Elements `range` as a view; fails if the range is outside the buffer.
    pub fn slice(&self, range: Range<usize>) -> Result<DeviceSlice<'_, T>> {
        self.device_slice().slice(range)
    }

    /// Copies `data` to the first `data.len()` elements.
    pub fn copy_from_host(&self, data: &[T]) -> Result<()> {
        self.device_slice().copy_from_host(data)
    }

    /// Same as [`DeviceBuffer::copy_from_host`].
    pub fn copy_from(&self, data: &[T]) -> Result<()> {
        self.copy_from_host(data)
    }

    /// Copies the first `out.len()` elements to `out`.
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<()> {
        self.device_slice().copy_to_host(out)
    }

    /// All elements, copied to the host.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.device_slice().to_vec()
    }

    /// Copies `src` (device memory) to the first `src.len()` elements.
    pub fn copy_from_device(&self, src: &impl DeviceRange<T>) -> Result<()> {
        self.device_slice().copy_from_device(src)
    }

    /// Sets every element to `value` (`cuMemsetD32` and friends, for any `T`).
    pub fn fill(&self, value: T) -> Result<()> {
        self.device_slice().fill(value)
    }
}

impl<'a, T: Pod> DeviceSlice<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the view's first element.
    pub fn address(&self) -> u64 {
        self.buf.address() + self.offset
    }

    /// Offset of the view in its buffer, in bytes.
    pub fn byte_offset(&self) -> u64 {
        self.offset
    }

    fn bytes(&self) -> u64 {
        bytes_of::<T>(self.len)
    }

    /// Elements `range` of this view.
    pub fn slice(&self, range: Range<usize>) -> Result<DeviceSlice<'a, T>> {
        if range.start > range.end || range.end > self.len {
            return Err(Error::InvalidArgument(format!(
                "range {}..{} is outside a view of {} elements",
                range.start, range.end, self.len
            )));
        }
        Ok(DeviceSlice {
            buf: self.buf,
            offset: self.offset + bytes_of::<T>(range.start),
            len: range.end - range.start,
            _t: PhantomData,
        })
    }

    fn too_small(&self, what: &str, n: usize) -> Error {
        Error::BufferTooSmall {
            what: what.to_string(),
            have: self.bytes(),
            need: bytes_of::<T>(n),
        }
    }

    /// Copies `data` to the first `data.len()` elements (after all queued work on the context).
    pub fn copy_from_host(&self, data: &[T]) -> Result<()> {
        if data.len() > self.len {
            return Err(self.too_small("copy to device", data.len()));
        }
        self.buf
            .ctx
            .write_raw(&self.buf.raw, self.offset, bytemuck::cast_slice(data))
    }

    /// Copies the first `out.len()` elements to `out` (after all queued work on the context).
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<()> {
        if out.len() > self.len {
            return Err(self.too_small("copy to host", out.len()));
        }
        self.buf
            .ctx
            .read_raw(&self.buf.raw, self.offset, bytemuck::cast_slice_mut(out))
    }

    /// The view's elements, copied to the host.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::zeroed(); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copies `src` to the first `src.len()` elements of this view, on the device.
    pub fn copy_from_device(&self, src: &impl DeviceRange<T>) -> Result<()> {
        let src = src.device_slice();
        check_device_copy(&src, self)?;
        let ctx = &self.buf.ctx;
        ctx.on_default(|core| {
            copy::copy_dd(
                core,
                (&src.buf.raw, src.offset),
                (&self.buf.raw, self.offset),
                src.bytes(),
            )
        })
    }

    /// Sets every element of the view to `value`.
    pub fn fill(&self, value: T) -> Result<()> {
        self.buf
            .fill_bytes(self.offset, self.bytes(), bytemuck::bytes_of(&value))
    }
}

fn check_device_copy<T: Pod>(src: &DeviceSlice<'_, T>, dst: &DeviceSlice<'_, T>) -> Result<()> {
    if src.len > dst.len {
        return Err(dst.too_small("device-to-device copy", src.len));
    }
    if !Arc::ptr_eq(&src.buf.ctx.inner, &dst.buf.ctx.inner) {
        return Err(Error::InvalidArgument(
            "a device-to-device copy between two contexts; copy through the host".into(),
        ));
    }
    let same = Arc::ptr_eq(&src.buf.raw, &dst.buf.raw);
    let overlap = src.offset < dst.offset + src.bytes() && dst.offset < src.offset + src.bytes();
    if same && overlap && src.len > 0 {
        return Err(Error::InvalidArgument(
            "source and destination of a device copy overlap".into(),
        ));
    }
    Ok(())
}

/// The result of [`Stream::copy_to_host`]: the data, once the stream gets there.
pub struct Download<T: Pod> {
    core: Arc<StreamCore>,
    value: u64,
    staging: Arc<RawBuffer>,
    len: usize,
    ctx: Context,
    _t: PhantomData<T>,
}

impl<T: Pod> Download<T> {
    /// Waits for the copy (submitting the stream's batched work if needed) and returns the data.
    pub fn wait(self) -> Result<Vec<T>> {
        self.core.wait_value(self.value)?;
        let mut out = vec![T::zeroed(); self.len];
        self.staging
            .read_mapped(0, bytemuck::cast_slice_mut(&mut out))?;
        self.ctx.after_work()?;
        Ok(out)
    }

    /// Whether the data has arrived (without submitting anything).
    pub fn is_ready(&self) -> Result<bool> {
        Ok(self.core.counter()? >= self.value)
    }
}

impl Stream {
    fn check_same(&self, buf: &Buffer) -> Result<()> {
        if Arc::ptr_eq(&self.ctx.inner, &buf.ctx.inner) {
            Ok(())
        } else {
            Err(Error::InvalidArgument(
                "the buffer belongs to another context than the stream".into(),
            ))
        }
    }

    /// Copies `src` to the first `src.len()` elements of `dst`, in stream order. `src` is
    /// copied before this returns, so it may be changed or dropped at once.
    pub fn copy_to_device<T: Pod>(&self, dst: &impl DeviceRange<T>, src: &[T]) -> Result<()> {
        let dst = dst.device_slice();
        self.check_same(dst.buf)?;
        if src.len() > dst.len {
            return Err(dst.too_small("copy to device", src.len()));
        }
        copy::copy_in(
            &self.core,
            &dst.buf.raw,
            dst.offset,
            bytemuck::cast_slice(src),
        )
    }

    /// Copies `src` to the host, in stream order; [`Download::wait`] gives the data.
    pub fn copy_to_host<T: Pod>(&self, src: &impl DeviceRange<T>) -> Result<Download<T>> {
        let src = src.device_slice();
        self.check_same(src.buf)?;
        let (staging, value) = copy::copy_out(&self.core, &src.buf.raw, src.offset, src.bytes())?;
        Ok(Download {
            core: self.core.clone(),
            value,
            staging,
            len: src.len,
            ctx: self.ctx.clone(),
            _t: PhantomData,
        })
    }

    /// Copies device memory `src` to the first `src.len()` elements of `dst`, in stream order.
    pub fn copy_device<T: Pod>(
        &self,
        src: &impl DeviceRange<T>,
        dst: &impl DeviceRange<T>,
    ) -> Result<()> {
        let (src, dst) = (src.device_slice(), dst.device_slice());
        self.check_same(dst.buf)?;
        check_device_copy(&src, &dst)?;
        copy::copy_dd(
            &self.core,
            (&src.buf.raw, src.offset),
            (&dst.buf.raw, dst.offset),
            src.bytes(),
        )
    }

    /// Sets every element of `dst` to `value`, in stream order.
    pub fn fill<T: Pod>(&self, dst: &impl DeviceRange<T>, value: T) -> Result<()> {
        let dst = dst.device_slice();
        self.check_same(dst.buf)?;
        copy::fill(
            &self.core,
            &dst.buf.raw,
            dst.offset,
            dst.bytes(),
            bytemuck::bytes_of(&value),
        )
    }
}

impl<T: Pod> DeviceSlice<'_, T> {
    pub(crate) fn raw(&self) -> &Arc<RawBuffer> {
        &self.buf.raw
    }
}
