//! Device memory: buffers reached by kernels through their device addresses.

use std::marker::PhantomData;

use ash::vk;
use bytemuck::Pod;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};

use crate::context::Context;
use crate::error::{Error, Result, vk_err};

/// An untyped device buffer. Kernels see it through [`Buffer::address`].
pub struct Buffer {
    ctx: Context,
    buffer: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    address: u64,
}

impl Buffer {
    /// A buffer of `size` bytes, host-visible so that copies are plain memory copies (on discrete
    /// GPUs the allocator prefers device-local host-visible memory where it exists).
    pub fn new(ctx: &Context, size: u64) -> Result<Buffer> {
        ctx.check_lost()?;
        let dev = ctx.device();
        // Vulkan has no empty buffers; keep at least one word.
        let alloc_size = size.max(4);
        let info = vk::BufferCreateInfo::default()
            .size(alloc_size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { dev.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        // SAFETY: the buffer was just created on this device.
        let requirements = unsafe { dev.get_buffer_memory_requirements(buffer) };
        let allocation = {
            let mut guard = ctx.inner.allocator.lock().map_err(|_| Error::DeviceLost)?;
            let Some(allocator) = guard.as_mut() else {
                return Err(Error::DeviceLost);
            };
            allocator.allocate(&AllocationCreateDesc {
                name: "ptxvk buffer",
                requirements,
                location: MemoryLocation::CpuToGpu,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
        };
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer has no memory bound and is not used.
                unsafe { dev.destroy_buffer(buffer, None) };
                return Err(match e {
                    gpu_allocator::AllocationError::OutOfMemory => {
                        Error::OutOfDeviceMemory { bytes: size }
                    }
                    other => Error::Allocation(other.to_string()),
                });
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements.
        let bound =
            unsafe { dev.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) };
        let mut buf = Buffer {
            ctx: ctx.clone(),
            buffer,
            allocation: Some(allocation),
            size,
            address: 0,
        };
        bound.map_err(vk_err("vkBindBufferMemory"))?;
        let addr_info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage and has memory bound.
        buf.address = unsafe { dev.get_buffer_device_address(&addr_info) };
        Ok(buf)
    }

    /// The device address kernels use (a `.u64` pointer argument).
    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    fn mapped(&self) -> Result<*mut u8> {
        self.allocation
            .as_ref()
            .and_then(|a| a.mapped_ptr())
            .map(|p| p.as_ptr().cast::<u8>())
            .ok_or_else(|| Error::Allocation("buffer memory is not host-visible".into()))
    }

    fn check_range(&self, what: &str, offset: u64, len: u64) -> Result<()> {
        let need = offset.saturating_add(len);
        if need > self.size {
            return Err(Error::BufferTooSmall {
                what: what.to_string(),
                have: self.size,
                need,
            });
        }
        Ok(())
    }

    /// Copies `data` into the buffer at `offset`. The device must not be using the range.
    pub fn write_bytes(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.check_range("write", offset, data.len() as u64)?;
        let p = self.mapped()?;
        // SAFETY: the range is inside the mapped allocation (checked above), no kernel runs
        // (launches are synchronous), and `data` cannot overlap device memory we own.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(offset as usize), data.len()) };
        Ok(())
    }

    /// Copies from the buffer at `offset` into `out`.
    pub fn read_bytes(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.check_range("read", offset, out.len() as u64)?;
        let p = self.mapped()?;
        // SAFETY: as in `write_bytes`.
        unsafe {
            std::ptr::copy_nonoverlapping(p.add(offset as usize), out.as_mut_ptr(), out.len())
        };
        Ok(())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.ctx.check_lost().is_err() {
            // The device may still use it; leak rather than free.
            return;
        }
        let dev = self.ctx.device();
        // SAFETY: launches are synchronous, so the device no longer uses the buffer.
        unsafe { dev.destroy_buffer(self.buffer, None) };
        if let (Some(a), Ok(mut guard)) = (self.allocation.take(), self.ctx.inner.allocator.lock())
            && let Some(allocator) = guard.as_mut()
        {
            let _ = allocator.free(a);
        }
    }
}

/// A buffer of `len` values of `T`.
///
/// ```no_run
/// # let ctx = ptxvk_runtime::Context::new(&Default::default())?;
/// let x = ptxvk_runtime::DeviceBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0])?;
/// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0]);
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
pub struct DeviceBuffer<T: Pod> {
    raw: Buffer,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// `len` zeroed elements.
    pub fn zeroed(ctx: &Context, len: usize) -> Result<Self> {
        let bytes = (len * size_of::<T>()) as u64;
        let raw = Buffer::new(ctx, bytes)?;
        raw.write_bytes(0, &vec![0u8; bytes as usize])?;
        Ok(DeviceBuffer {
            raw,
            len,
            _t: PhantomData,
        })
    }

    pub fn from_slice(ctx: &Context, data: &[T]) -> Result<Self> {
        let raw = Buffer::new(ctx, std::mem::size_of_val(data) as u64)?;
        raw.write_bytes(0, bytemuck::cast_slice(data))?;
        Ok(DeviceBuffer {
            raw,
            len: data.len(),
            _t: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn address(&self) -> u64 {
        self.raw.address()
    }

    pub fn raw(&self) -> &Buffer {
        &self.raw
    }

    pub fn copy_from(&self, data: &[T]) -> Result<()> {
        if data.len() > self.len {
            return Err(Error::BufferTooSmall {
                what: "copy to device".into(),
                have: self.raw.size(),
                need: std::mem::size_of_val(data) as u64,
            });
        }
        self.raw.write_bytes(0, bytemuck::cast_slice(data))
    }

    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::zeroed(); self.len];
        self.raw.read_bytes(0, bytemuck::cast_slice_mut(&mut out))?;
        Ok(out)
    }
}
