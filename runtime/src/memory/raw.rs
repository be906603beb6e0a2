//! Buffers as Vulkan objects: creation, device address, mapping, and release.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};

use crate::context::Vk;
use crate::error::{Error, Result};

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Device-local: what kernels use.
    Device,
    /// Host-visible memory the host writes and the device reads (staging, parameter blocks).
    Upload,
    /// Host-visible, cached memory the device writes and the host reads.
    Readback,
}

/// What every buffer is for: kernels reach it by address, copies and fills use it.
fn usage() -> vk::BufferUsageFlags {
    vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST
}

/// One `VkBuffer` with its memory. Freed when the last `Arc` goes, which work in flight holds.
pub(crate) struct RawBuffer {
    vk: Arc<Vk>,
    buffer: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    address: u64,
    /// Host pointer to the whole buffer, where the host may read and write it directly.
    mapped: Option<*mut u8>,
    /// Memory imported from the host ([`RawBuffer::import_host`]) rather than allocated.
    imported: Option<vk::DeviceMemory>,
}

// SAFETY: the mapped pointer refers to memory owned by the allocation, which lives as long as
// this value; accesses through it are plain copies whose ordering with the device is managed
// by the streams (see `memory/mod.rs`).
unsafe impl Send for RawBuffer {}
// SAFETY: as above; shared access only reads the handle values.
unsafe impl Sync for RawBuffer {}

impl RawBuffer {
    pub fn new(vk: &Arc<Vk>, size: u64, place: Place) -> Result<RawBuffer> {
        vk.check_lost()?;
        let dev = &vk.device;
        // Vulkan has no empty buffers; keep at least one word.
        let alloc_size = size.max(4).next_multiple_of(4);
        let info = vk::BufferCreateInfo::default()
            .size(alloc_size)
            .usage(usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { dev.create_buffer(&info, None) }.map_err(|e| match e {
            // Drivers refuse a buffer larger than they can back here, before any allocation.
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
                Error::OutOfDeviceMemory { bytes: size }
            }
            e => vk.error("vkCreateBuffer", e),
        })?;
        // SAFETY: the buffer was just created on this device.
        let requirements = unsafe { dev.get_buffer_memory_requirements(buffer) };
        let location = match place {
            Place::Device => MemoryLocation::GpuOnly,
            Place::Upload => MemoryLocation::CpuToGpu,
            Place::Readback => MemoryLocation::GpuToCpu,
        };
        let allocation = match vk.allocator.lock() {
            Ok(mut guard) => match guard.as_mut() {
                Some(allocator) => allocator
                    .allocate(&AllocationCreateDesc {
                        name: "ptxvk buffer",
                        requirements,
                        location,
                        linear: true,
                        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                    })
                    .map_err(|e| match e {
                        gpu_allocator::AllocationError::OutOfMemory => {
                            Error::OutOfDeviceMemory { bytes: size }
                        }
                        other => Error::Allocation(other.to_string()),
                    }),
                None => Err(Error::DeviceLost),
            },
            Err(_) => Err(Error::DeviceLost),
        };
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer has no memory bound and is not used.
                unsafe { dev.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // Direct host access needs coherent memory: we never flush or invalidate.
        let coherent = allocation.memory_properties().contains(
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        );
        let direct = place != Place::Device || !vk.staging;
        let mapped = allocation
            .mapped_ptr()
            .filter(|_| coherent && direct)
            .map(|p| p.as_ptr().cast::<u8>());
        // SAFETY: the allocation satisfies the buffer's requirements.
        let bound =
            unsafe { dev.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) };
        let mut buf = RawBuffer {
            vk: vk.clone(),
            buffer,
            allocation: Some(allocation),
            size,
            address: 0,
            mapped,
            imported: None,
        };
        bound.map_err(|e| vk.error("vkBindBufferMemory", e))?;
        let addr_info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage and has memory bound.
        buf.address = unsafe { dev.get_buffer_device_address(&addr_info) };
        if place != Place::Device && buf.mapped.is_none() {
            return Err(Error::Allocation(
                "the device offers no host-visible coherent memory for staging".into(),
            ));
        }
        if let Ok(mut live) = vk.allocations.lock() {
            live.insert(buf.address, buf.address + size);
        }
        if let (Some(host), Ok(mut mapped)) = (buf.mapped, vk.mapped.lock()) {
            mapped.insert(buf.address, (buf.address + size, host as usize));
        }
        Ok(buf)
    }

    /// A buffer over `size` bytes of host memory at `host`, imported as device memory
    /// (`VK_EXT_external_memory_host`): kernels read and write the host's bytes in place.
    ///
    /// # Safety
    /// `host` and `size` are multiples of the device's `minImportedHostPointerAlignment`, and
    /// the memory stays allocated and is not otherwise freed while the buffer lives (work in
    /// flight holds it).
    pub unsafe fn import_host(
        vk: &Arc<Vk>,
        physical: vk::PhysicalDevice,
        host: *mut u8,
        size: u64,
    ) -> Result<RawBuffer> {
        vk.check_lost()?;
        let dev = &vk.device;
        let kind = vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;
        let unsupported = |what: String| Error::HostImportUnsupported(what);
        let ext = ash::ext::external_memory_host::Device::new(&vk.instance.instance, dev);
        let mut props = vk::MemoryHostPointerPropertiesEXT::default();
        // SAFETY: the device has the extension (it is enabled where the device offers it and
        // callers check `host_import_alignment`); `props` is valid for the call.
        let r = unsafe {
            (ext.fp().get_memory_host_pointer_properties_ext)(
                dev.handle(),
                kind,
                host.cast_const().cast(),
                &mut props,
            )
        };
        if r != vk::Result::SUCCESS {
            return Err(unsupported(format!(
                "vkGetMemoryHostPointerPropertiesEXT: {r}"
            )));
        }
        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(kind);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: valid device and create info.
        let buffer =
            unsafe { dev.create_buffer(&info, None) }.map_err(|e| vk.error("vkCreateBuffer", e))?;
        let mut buf = RawBuffer {
            vk: vk.clone(),
            buffer,
            allocation: None,
            size,
            address: 0,
            mapped: Some(host),
            imported: None,
        };
        // SAFETY: the buffer was just created on this device.
        let req = unsafe { dev.get_buffer_memory_requirements(buffer) };
        // SAFETY: `physical` is the device's physical device.
        let types = unsafe {
            vk.instance
                .instance
                .get_physical_device_memory_properties(physical)
        };
        // Coherent memory: the host reads and writes it with no flushes, as any host memory.
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let index = (0..types.memory_type_count).find(|&i| {
            req.memory_type_bits & props.memory_type_bits & (1 << i) != 0
                && types.memory_types[i as usize]
                    .property_flags
                    .contains(wanted)
        });
        let Some(index) = index.filter(|_| req.size <= size) else {
            return Err(unsupported(
                "no coherent memory type can hold the imported range".into(),
            ));
        };
        let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
            .handle_type(kind)
            .host_pointer(host.cast());
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .memory_type_index(index)
            .push_next(&mut import)
            .push_next(&mut flags);
        // SAFETY: the pointer and size meet the alignment by the caller's contract.
        let memory = unsafe { dev.allocate_memory(&alloc, None) }
            .map_err(|e| unsupported(format!("vkAllocateMemory of host memory: {e}")))?;
        buf.imported = Some(memory);
        // SAFETY: the memory is of a type the buffer allows and holds its size.
        unsafe { dev.bind_buffer_memory(buffer, memory, 0) }
            .map_err(|e| vk.error("vkBindBufferMemory", e))?;
        let addr_info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
        // SAFETY: the buffer was created with SHADER_DEVICE_ADDRESS usage and has memory bound.
        buf.address = unsafe { dev.get_buffer_device_address(&addr_info) };
        if let Ok(mut live) = vk.allocations.lock() {
            live.insert(buf.address, buf.address + size);
        }
        Ok(buf)
    }

    pub fn handle(&self) -> vk::Buffer {
        self.buffer
    }

    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn mapped(&self) -> Option<*mut u8> {
        self.mapped
    }

    /// Copies `data` to byte `offset` of mapped memory. The caller checked the range and that
    /// the device does not use it.
    pub fn write_mapped(&self, offset: u64, data: &[u8]) -> Result<()> {
        let p = self.mapped.ok_or_else(not_mapped)?;
        debug_assert!(offset + data.len() as u64 <= self.size);
        // SAFETY: the range is inside the mapping (checked by every caller), and host memory
        // of `data` cannot overlap device memory this buffer owns.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p.add(offset as usize), data.len()) };
        Ok(())
    }

    /// Copies from byte `offset` of mapped memory into `out`; as `write_mapped`.
    pub fn read_mapped(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        let p = self.mapped.ok_or_else(not_mapped)?;
        debug_assert!(offset + out.len() as u64 <= self.size);
        // SAFETY: as in `write_mapped`.
        unsafe {
            std::ptr::copy_nonoverlapping(p.add(offset as usize), out.as_mut_ptr(), out.len())
        };
        Ok(())
    }
}

fn not_mapped() -> Error {
    Error::Allocation("buffer memory is not host-visible".into())
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        if let Ok(mut live) = self.vk.allocations.lock() {
            live.remove(&self.address);
        }
        if let Ok(mut mapped) = self.vk.mapped.lock() {
            mapped.remove(&self.address);
        }
        if self.vk.is_lost() {
            // The device may still use it; leak rather than free.
            return;
        }
        // SAFETY: every stream operation that uses this buffer holds an `Arc` to it until the
        // operation has completed, so the device no longer uses it.
        unsafe { self.vk.device.destroy_buffer(self.buffer, None) };
        if let Some(memory) = self.imported.take() {
            // SAFETY: the buffer bound to it is gone; the host keeps its own memory.
            unsafe { self.vk.device.free_memory(memory, None) };
        }
        if let (Some(a), Ok(mut guard)) = (self.allocation.take(), self.vk.allocator.lock())
            && let Some(allocator) = guard.as_mut()
        {
            let _ = allocator.free(a);
        }
    }
}
