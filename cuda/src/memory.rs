//! Device pointers. A `CUdeviceptr` is a buffer device address, so kernels can do arithmetic
//! on it and store it in memory; an ordered map from address to allocation answers which
//! allocation holds a pointer, for copies, fills, frees and address ranges.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ptxvk_runtime::{Buffer, Module, Stream};

use crate::error::{CuError, CuResult};

/// What backs a range of device addresses.
#[derive(Clone)]
pub enum Backing {
    /// `cuMemAlloc`.
    Buffer(Arc<Buffer>),
    /// A module variable (`cuModuleGetGlobal`): written and read through its module.
    Global {
        module: Arc<Module>,
        name: String,
        module_id: usize,
    },
}

#[derive(Clone)]
pub struct Allocation {
    pub base: u64,
    pub size: u64,
    pub backing: Backing,
    /// Where the host reaches the same memory: managed memory (at the same address) and
    /// device-mapped page-locked memory.
    pub host: Option<u64>,
    /// `cuMemAllocManaged`.
    pub managed: bool,
    /// Host memory registered for the device (`cuMemHostRegister`): released by
    /// `cuMemHostUnregister`, not `cuMemFree`.
    pub imported: bool,
    /// Page-locked memory mapped for the device (`cuMemHostAlloc` with
    /// CU_MEMHOSTALLOC_DEVICEMAP): released by `cuMemFreeHost`; `cuMemFree` takes only what
    /// the `cuMemAlloc` family returned, and refuses this.
    pub mapped_host: bool,
}

/// A resolved range: the allocation and the offset of the pointer in it.
pub struct Place {
    pub alloc: Allocation,
    pub offset: u64,
}

impl Place {
    pub fn buffer(&self) -> CuResult<&Arc<Buffer>> {
        match &self.alloc.backing {
            Backing::Buffer(b) => Ok(b),
            Backing::Global { .. } => Err(CuError::NotSupported(
                "device-side copies and fills of module variables".into(),
            )),
        }
    }
}

#[derive(Default)]
pub struct Allocations {
    map: Mutex<BTreeMap<u64, Allocation>>,
}

impl Allocations {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Allocation>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `cuMemAlloc`: zero bytes is an invalid value, as in CUDA.
    pub fn alloc(&self, ctx: &ptxvk_runtime::Context, size: u64) -> CuResult<u64> {
        let buf = new_buffer(ctx, size)?;
        Ok(self.insert(buf, None, false))
    }

    /// Device memory the host reaches too: (device address, host address). `managed` asks
    /// for `cuMemAllocManaged`'s one address for both, which holds where the device's
    /// addresses are the host's (lavapipe); mapped page-locked memory only needs the host to
    /// see device memory (integrated GPUs, lavapipe, resizable BAR).
    pub fn alloc_shared(
        &self,
        ctx: &ptxvk_runtime::Context,
        size: u64,
        managed: bool,
    ) -> CuResult<(u64, u64)> {
        let buf = new_buffer(ctx, size)?;
        let host = buf.host_ptr().map(|p| p as u64);
        match host {
            Some(h) if !managed || h == buf.address() => {
                Ok((self.insert(buf, Some(h), managed), h))
            }
            Some(_) => Err(CuError::NotSupported(
                "managed memory: the device's addresses are not the host's".into(),
            )),
            None => Err(CuError::NotSupported(
                "memory both sides reach: device memory is not host-visible here".into(),
            )),
        }
    }

    /// Records `buf`; `host` is where the host sees it, if it does: at the same address for
    /// managed memory, and otherwise as mapped page-locked memory.
    fn insert(&self, buf: Buffer, host: Option<u64>, managed: bool) -> u64 {
        let base = buf.address();
        let size = buf.size();
        self.lock().insert(
            base,
            Allocation {
                base,
                size,
                backing: Backing::Buffer(Arc::new(buf)),
                host,
                managed,
                imported: false,
                mapped_host: host.is_some() && !managed,
            },
        );
        base
    }

    /// Host memory at `host` imported as device memory (`cuMemHostRegister`): its device
    /// address.
    pub fn add_imported(&self, buf: Buffer, host: u64) -> u64 {
        let base = buf.address();
        let size = buf.size();
        let alloc = Allocation {
            base,
            size,
            backing: Backing::Buffer(Arc::new(buf)),
            host: Some(host),
            managed: false,
            imported: true,
            mapped_host: false,
        };
        self.lock().insert(base, alloc);
        base
    }

    /// `cuMemHostUnregister` of imported memory: the allocation, to drop once the device is
    /// done with it.
    pub fn remove_imported(&self, base: u64) -> Option<Allocation> {
        let mut map = self.lock();
        match map.get(&base) {
            Some(a) if a.imported => map.remove(&base),
            _ => None,
        }
    }

    pub fn add_global(&self, alloc: Allocation) {
        self.lock().entry(alloc.base).or_insert(alloc);
    }

    /// Forgets the variables of an unloaded module.
    pub fn remove_module(&self, id: usize) {
        self.lock().retain(
            |_, a| !matches!(a.backing, Backing::Global { module_id, .. } if module_id == id),
        );
    }

    /// `cuMemFree`: only the address `cuMemAlloc` returned frees.
    pub fn free(&self, ptr: u64) -> CuResult<Allocation> {
        self.remove_if(ptr, |a| !a.imported && !a.mapped_host)
    }

    /// `cuMemFreeHost` of mapped page-locked memory: its device allocation at `base`.
    pub fn free_mapped_host(&self, base: u64) -> CuResult<Allocation> {
        self.remove_if(base, |a| a.mapped_host)
    }

    /// Removes the device allocation at `ptr` if `may` allows it.
    fn remove_if(&self, ptr: u64, may: impl FnOnce(&Allocation) -> bool) -> CuResult<Allocation> {
        let mut map = self.lock();
        match map.get(&ptr) {
            Some(a) if matches!(a.backing, Backing::Buffer(_)) && may(a) => {}
            _ => return Err(CuError::invalid(format!("free of {ptr:#x}"))),
        }
        map.remove(&ptr)
            .ok_or_else(|| CuError::invalid(format!("free of {ptr:#x}")))
    }

    /// The allocation holding `ptr`, if any.
    pub fn containing(&self, ptr: u64) -> Option<Allocation> {
        let map = self.lock();
        let (_, a) = map.range(..=ptr).next_back()?;
        (ptr - a.base < a.size).then(|| a.clone())
    }

    /// The allocation holding all of `[ptr, ptr + len)`.
    pub fn resolve(&self, ptr: u64, len: u64) -> CuResult<Place> {
        let alloc = self
            .containing(ptr)
            .ok_or_else(|| CuError::invalid(format!("{ptr:#x} is not a device pointer")))?;
        let offset = ptr - alloc.base;
        if len > alloc.size - offset {
            return Err(CuError::invalid(format!(
                "{len} bytes at {ptr:#x} run past the end of its allocation of {} bytes",
                alloc.size
            )));
        }
        Ok(Place { alloc, offset })
    }

    /// Bytes allocated with `cuMemAlloc` (for `cuMemGetInfo`).
    pub fn allocated(&self) -> u64 {
        self.lock()
            .values()
            .filter(|a| matches!(a.backing, Backing::Buffer(_)) && !a.imported)
            .map(|a| a.size)
            .sum()
    }
}

fn new_buffer(ctx: &ptxvk_runtime::Context, size: u64) -> CuResult<Buffer> {
    if size == 0 {
        return Err(CuError::invalid("an allocation of 0 bytes"));
    }
    Buffer::new(ctx, size).map_err(|e| match e {
        ptxvk_runtime::Error::DeviceLost => CuError::LaunchFailed(e.to_string()),
        e => CuError::OutOfMemory(e.to_string()),
    })
}

/// Host bytes into device memory. On a stream the data is staged before this returns;
/// without one the copy is complete on return (after all earlier work, as `cuMemcpyHtoD`).
pub fn write(place: &Place, data: &[u8], stream: Option<&Stream>) -> CuResult<()> {
    match (&place.alloc.backing, stream) {
        (Backing::Buffer(b), None) => Ok(b.write_bytes(place.offset, data)?),
        (Backing::Buffer(b), Some(s)) => Ok(s.write_buffer(b, place.offset, data)?),
        (Backing::Global { module, name, .. }, _) => {
            Ok(module.write_global(name, place.offset, data)?)
        }
    }
}

/// Device memory to the host. Always complete on return: CUDA does the same for copies to
/// pageable host memory, which is all the memory this library hands out.
pub fn read(place: &Place, out: &mut [u8], stream: Option<&Stream>) -> CuResult<()> {
    match (&place.alloc.backing, stream) {
        (Backing::Buffer(b), None) => Ok(b.read_bytes(place.offset, out)?),
        (Backing::Buffer(b), Some(s)) => {
            let data = s.read_buffer(b, place.offset, out.len() as u64)?.wait()?;
            out.copy_from_slice(&data);
            Ok(())
        }
        (Backing::Global { module, name, .. }, _) => {
            let all = module.read_global(name)?;
            let at = place.offset as usize;
            let src = all
                .get(at..at + out.len())
                .ok_or_else(|| CuError::invalid("read past a module variable"))?;
            out.copy_from_slice(src);
            Ok(())
        }
    }
}
