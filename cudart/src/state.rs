//! What nvcc's host code registers (fatbinaries, kernels, variables, keyed by their host-side
//! addresses), the modules loaded from them per device, and the calling thread's device.
//!
//! Registration happens in static constructors, before `main`: it only records. A module is
//! loaded from its fatbinary on the first use of one of its kernels or variables on a device
//! (`cuModuleLoadData` follows nvcc's wrapper to the container and picks the PTX).

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::{Mutex, MutexGuard};

use crate::driver::{self, DevPtr, Ptr};
use crate::error::{self, Error, Result};

/// A pointer the registry keeps: an address of the program's image, which lives as long as
/// the process (or until `__cudaUnregisterFatBinary`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Addr(pub usize);

struct Fatbin {
    /// nvcc's `__fatBinC_Wrapper_t`, handed to the driver as the module image.
    wrapper: Addr,
    /// Loaded module (a CUmodule) per device ordinal.
    modules: HashMap<i32, Addr>,
}

struct Kernel {
    fatbin: usize,
    name: CString,
    /// CUfunction per device ordinal.
    functions: HashMap<i32, Addr>,
}

pub struct Var {
    fatbin: usize,
    name: CString,
    /// A `__managed__` variable: where the host keeps its pointer to it.
    managed: Option<Addr>,
}

#[derive(Default)]
struct Registry {
    /// Indexed by the number behind the handle `__cudaRegisterFatBinary` returned; `None` once
    /// unregistered.
    fatbins: Vec<Option<Fatbin>>,
    kernels: HashMap<Addr, Kernel>,
    vars: HashMap<Addr, Var>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

fn with<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    f(registry().get_or_insert_with(Registry::default))
}

/// Records a fatbinary; its handle is its index (plus one, so that it is never NULL).
pub fn register_fatbin(wrapper: *const c_void) -> usize {
    with(|r| {
        r.fatbins.push(Some(Fatbin {
            wrapper: Addr(wrapper as usize),
            modules: HashMap::new(),
        }));
        r.fatbins.len()
    })
}

fn fatbin_index(handle: usize) -> Result<usize> {
    handle.checked_sub(1).ok_or(Error(error::INVALID_VALUE))
}

pub fn register_kernel(handle: usize, host: Addr, name: CString) -> Result<()> {
    let fatbin = fatbin_index(handle)?;
    with(|r| {
        r.kernels.insert(
            host,
            Kernel {
                fatbin,
                name,
                functions: HashMap::new(),
            },
        )
    });
    Ok(())
}

pub fn register_var(handle: usize, host: Addr, name: CString, managed: Option<Addr>) -> Result<()> {
    let fatbin = fatbin_index(handle)?;
    with(|r| {
        r.vars.insert(
            host,
            Var {
                fatbin,
                name,
                managed,
            },
        )
    });
    Ok(())
}

/// Forgets a fatbinary and what it registered. Its modules stay loaded: this runs from
/// `atexit`, when the driver may be tearing down, and the process's end frees them.
pub fn unregister_fatbin(handle: usize) {
    let Ok(index) = fatbin_index(handle) else {
        return;
    };
    with(|r| {
        r.kernels.retain(|_, k| k.fatbin != index);
        r.vars.retain(|_, v| v.fatbin != index);
        if let Some(slot) = r.fatbins.get_mut(index) {
            *slot = None;
        }
    });
}

thread_local! {
    /// The device `cudaSetDevice` chose on this thread.
    static DEVICE: Cell<i32> = const { Cell::new(0) };
}

pub fn device() -> i32 {
    DEVICE.with(Cell::get)
}

/// The primary contexts this library retained, by device, and those `cudaDeviceReset`
/// destroyed since (context handles are never reused, so an old one stays recognisable).
#[derive(Default)]
struct Primaries {
    live: Vec<(i32, usize)>,
    reset: Vec<usize>,
}

static PRIMARY: Mutex<Primaries> = Mutex::new(Primaries {
    live: Vec::new(),
    reset: Vec::new(),
});

fn primaries() -> MutexGuard<'static, Primaries> {
    PRIMARY.lock().unwrap_or_else(|p| p.into_inner())
}

/// The primary context of `dev`, retained once and kept until `cudaDeviceReset`.
fn primary(dev: i32) -> Result<Ptr> {
    let d = driver::get()?;
    let mut all = primaries();
    let known = &mut all.live;
    if let Some(&(_, c)) = known.iter().find(|(k, _)| *k == dev) {
        return Ok(c as Ptr);
    }
    let mut ctx: Ptr = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuDevicePrimaryCtxRetain)(&mut ctx, dev) })?;
    known.push((dev, ctx as usize));
    Ok(ctx)
}

pub fn set_device(dev: i32) -> Result<()> {
    let d = driver::get()?;
    let mut count = 0;
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuDeviceGetCount)(&mut count) })?;
    if dev < 0 || dev >= count {
        return Err(Error(error::INVALID_DEVICE));
    }
    let ctx = primary(dev)?;
    // SAFETY: a context the driver gave.
    driver::check(unsafe { (d.cuCtxSetCurrent)(ctx) })?;
    DEVICE.with(|c| c.set(dev));
    Ok(())
}

/// Makes sure a context is current for the runtime's work, as NVIDIA's runtime does: the one
/// the program made current through the driver API if any, else the primary context of this
/// thread's device. Returns the driver and the device ordinal.
pub fn ready() -> Result<(&'static driver::Driver, i32)> {
    let d = driver::get()?;
    let mut cur: Ptr = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuCtxGetCurrent)(&mut cur) })?;
    // A thread whose primary context another thread's reset destroyed gets the new one, as
    // it would from NVIDIA's runtime.
    if cur.is_null() || primaries().reset.contains(&(cur as usize)) {
        let ctx = primary(device())?;
        // SAFETY: a context the driver gave.
        driver::check(unsafe { (d.cuCtxSetCurrent)(ctx) })?;
        return Ok((d, device()));
    }
    let mut dev = 0;
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuCtxGetDevice)(&mut dev) })?;
    Ok((d, dev))
}

/// The module of fatbinary `index` on `dev`, loaded now if it is not yet.
fn module(r: &mut Registry, d: &'static driver::Driver, index: usize, dev: i32) -> Result<Ptr> {
    let fb = r
        .fatbins
        .get_mut(index)
        .and_then(Option::as_mut)
        .ok_or(Error(error::INVALID_DEVICE_FUNCTION))?;
    if let Some(m) = fb.modules.get(&dev) {
        return Ok(m.0 as Ptr);
    }
    let mut m: Ptr = std::ptr::null_mut();
    match prelinked(fb.wrapper) {
        Some(mut parts) => {
            let cc = compute_capability(d, dev)?;
            // nvcc adds the device runtime library's units (libcudadevrt), whose PTX is for
            // the newest devices only; a program that calls nothing of theirs links without.
            parts.retain(|&(data, size)| has_ptx_for(data, size, cc));
            let linked = link(d, &parts)?;
            // SAFETY: the image the driver's linker wrote, alive until `linked` drops.
            let r = unsafe { (d.cuModuleLoadData)(&mut m, linked.image) };
            drop(linked);
            driver::check(r)?;
        }
        // SAFETY: the wrapper nvcc registered, which the driver follows to its container.
        None => {
            driver::check(unsafe { (d.cuModuleLoadData)(&mut m, fb.wrapper.0 as *const c_void) })?
        }
    }
    fb.modules.insert(dev, Addr(m as usize));
    let managed = r
        .vars
        .values()
        .filter(|v| v.fatbin == index)
        .filter_map(|v| Some((v.managed?, v.name.clone())));
    for (host_ptr, name) in managed {
        let (mut ptr, mut size) = (0, 0);
        // SAFETY: the module just loaded, a NUL-terminated name, out-pointers to locals.
        driver::check(unsafe { (d.cuModuleGetGlobal_v2)(&mut ptr, &mut size, m, name.as_ptr()) })?;
        managed_host_address(d, dev)?;
        // SAFETY: nvcc registered the address of the program's pointer to this variable.
        unsafe { *(host_ptr.0 as *mut u64) = ptr };
    }
    Ok(m)
}

/// A module's `__managed__` variables are its own memory, which the host reaches at the
/// device's address only where the device's addresses are the host's (lavapipe):
/// CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST says so.
fn managed_host_address(d: &driver::Driver, dev: i32) -> Result<()> {
    let mut direct = 0;
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuDeviceGetAttribute)(&mut direct, 101, dev) })?;
    if direct == 1 {
        Ok(())
    } else {
        Err(Error(error::NOT_SUPPORTED))
    }
}

/// The translation units' fatbinaries of a program built with `-rdc=true`: nvlink's stub
/// registers a wrapper of version 2 whose last field lists them (NULL-terminated), each to
/// be linked with the others at load time (crt/link.stub). `None` for a wrapper of one unit.
fn prelinked(wrapper: Addr) -> Option<Vec<(*const u8, usize)>> {
    // SAFETY: nvcc's __fatBinC_Wrapper_t: { int magic; int version; const u64 *data;
    // void *filename_or_fatbins; }, in the program's image.
    let (version, list) = unsafe {
        let w = wrapper.0 as *const u8;
        (
            w.add(4).cast::<i32>().read_unaligned(),
            w.add(16).cast::<*const *const u8>().read_unaligned(),
        )
    };
    if version != 2 || list.is_null() {
        return None;
    }
    let mut parts = Vec::new();
    for i in 0.. {
        // SAFETY: a NULL-terminated array of fatbinary containers.
        let data = unsafe { list.add(i).read() };
        if data.is_null() {
            break;
        }
        // The container's header: magic (4 bytes), version (2), header size (2), body size (8).
        // SAFETY: a container starts with its 16-byte header.
        let (header, body) = unsafe {
            (
                data.add(6).cast::<u16>().read_unaligned(),
                data.add(8).cast::<u64>().read_unaligned(),
            )
        };
        parts.push((data, usize::from(header) + usize::try_from(body).ok()?));
    }
    (!parts.is_empty()).then_some(parts)
}

fn compute_capability(d: &driver::Driver, dev: i32) -> Result<u32> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: out-pointers to locals; CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR.
    driver::check(unsafe { (d.cuDeviceGetAttribute)(&mut major, 75, dev) })?;
    // SAFETY: as above.
    driver::check(unsafe { (d.cuDeviceGetAttribute)(&mut minor, 76, dev) })?;
    Ok(u32::try_from(major * 10 + minor).unwrap_or(0))
}

/// Whether a fatbinary container holds PTX a device of compute capability `cc` runs: an
/// entry of kind 1 (PTX) for an architecture not above it. Entries follow the 16-byte
/// header, each with its own header: kind (2 bytes at 0), header size (4 at 4), payload size
/// (8 at 8), architecture (4 at 28).
fn has_ptx_for(data: *const u8, size: usize, cc: u32) -> bool {
    // SAFETY: the container spans `size` bytes of the program's image.
    let bytes = unsafe { std::slice::from_raw_parts(data, size) };
    let field = |at: usize, len: usize| -> Option<u64> {
        let b = bytes.get(at..at.checked_add(len)?)?;
        Some(b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
    };
    let mut at = 16usize;
    while let (Some(kind), Some(header), Some(payload), Some(arch)) = (
        field(at, 2),
        field(at + 4, 4),
        field(at + 8, 8),
        field(at + 28, 4),
    ) {
        if kind == 1 && arch <= u64::from(cc) {
            return true;
        }
        let Some(next) = usize::try_from(header + payload)
            .ok()
            .and_then(|n| at.checked_add(n))
        else {
            return false;
        };
        if header == 0 {
            return false;
        }
        at = next;
    }
    false
}

/// A link state and the image it completed, destroyed together.
struct Linked {
    d: &'static driver::Driver,
    state: Ptr,
    image: *const c_void,
}

impl Drop for Linked {
    fn drop(&mut self) {
        // SAFETY: the state this owns.
        unsafe { (self.d.cuLinkDestroy)(self.state) };
    }
}

/// Links the units' PTX into one image with the driver's linker.
fn link(d: &'static driver::Driver, parts: &[(*const u8, usize)]) -> Result<Linked> {
    /// CU_JIT_INPUT_FATBINARY
    const FATBINARY: i32 = 2;
    let mut state: Ptr = std::ptr::null_mut();
    // SAFETY: no options; an out-pointer to a local.
    driver::check(unsafe {
        (d.cuLinkCreate_v2)(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut state)
    })?;
    let mut linked = Linked {
        d,
        state,
        image: std::ptr::null(),
    };
    for (i, &(data, size)) in parts.iter().enumerate() {
        let name = CString::new(format!("unit{i}")).map_err(|_| Error(error::UNKNOWN))?;
        // SAFETY: a container of `size` bytes in the program's image.
        driver::check(unsafe {
            (d.cuLinkAddData_v2)(
                state,
                FATBINARY,
                data.cast_mut().cast(),
                size,
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        })?;
    }
    let (mut image, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
    // SAFETY: out-pointers to locals.
    driver::check(unsafe { (d.cuLinkComplete)(state, &mut image, &mut size) })?;
    linked.image = image;
    Ok(linked)
}

/// Loads every registered fatbinary's module on the current device (`__cudaInitModule`).
pub fn load_fatbin(handle: usize) -> Result<()> {
    let index = fatbin_index(handle)?;
    let (d, dev) = ready()?;
    with(|r| module(r, d, index, dev).map(drop))
}

/// The CUfunction of the kernel whose host stub is `host`, on the current device.
pub fn function(host: Addr) -> Result<(&'static driver::Driver, Ptr)> {
    let (d, dev) = ready()?;
    with(|r| {
        let (fatbin, name) = match r.kernels.get(&host) {
            Some(k) => {
                if let Some(f) = k.functions.get(&dev) {
                    return Ok((d, f.0 as Ptr));
                }
                (k.fatbin, k.name.clone())
            }
            None => return Err(Error(error::INVALID_DEVICE_FUNCTION)),
        };
        let m = module(r, d, fatbin, dev)?;
        let mut f: Ptr = std::ptr::null_mut();
        // SAFETY: a module of this context and a NUL-terminated name.
        driver::check(unsafe { (d.cuModuleGetFunction)(&mut f, m, name.as_ptr()) })?;
        if let Some(k) = r.kernels.get_mut(&host) {
            k.functions.insert(dev, Addr(f as usize));
        }
        Ok((d, f))
    })
}

/// The device address and size of the variable whose host shadow is `host`.
pub fn symbol(host: Addr) -> Result<(&'static driver::Driver, DevPtr, usize)> {
    let (d, dev) = ready()?;
    with(|r| {
        let (fatbin, name) = match r.vars.get(&host) {
            Some(v) => (v.fatbin, v.name.clone()),
            None => return Err(Error(error::INVALID_SYMBOL)),
        };
        let m = module(r, d, fatbin, dev)?;
        let (mut ptr, mut size) = (0, 0);
        // SAFETY: a module of this context, a NUL-terminated name, out-pointers to locals.
        driver::check(unsafe { (d.cuModuleGetGlobal_v2)(&mut ptr, &mut size, m, name.as_ptr()) })?;
        Ok((d, ptr, size))
    })
}

/// `cudaDeviceReset`: waits for the device's work (so that its printf output comes out), then
/// destroys its primary context with every allocation, stream, event and module made in it.
/// The next runtime call retains a new one, where the registered fatbinaries' modules load
/// again on first use, their variables back at their initial values.
pub fn reset_device() -> Result<()> {
    let (d, dev) = ready()?;
    // Errors of earlier work belong to the context being destroyed.
    // SAFETY: a plain call into the driver.
    let _ = unsafe { (d.cuCtxSynchronize)() };
    let old = {
        let mut all = primaries();
        let old = all.live.iter().position(|(k, _)| *k == dev);
        let old = old.map(|i| all.live.swap_remove(i).1);
        all.reset.extend(old);
        old
    };
    let mut cur: Ptr = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuCtxGetCurrent)(&mut cur) })?;
    if old.is_some_and(|c| c == cur as usize) {
        // SAFETY: NULL makes no context current.
        driver::check(unsafe { (d.cuCtxSetCurrent)(std::ptr::null_mut()) })?;
    }
    with(|r| {
        for fb in r.fatbins.iter_mut().flatten() {
            fb.modules.remove(&dev);
        }
        for k in r.kernels.values_mut() {
            k.functions.remove(&dev);
        }
    });
    // SAFETY: a device ordinal the driver gave for the current context.
    driver::check(unsafe { (d.cuDevicePrimaryCtxReset_v2)(dev) })
}
