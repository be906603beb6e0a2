//! Allocations, copies and fills.

use std::ffi::{c_uint, c_void};

use super::{CUdeviceptr, Handle, bytes, bytes_mut, entry, id, put};
use crate::context;
use crate::copy;
use crate::error::{CUresult, CuError, CuResult};
use crate::host;
use ptxvk_runtime::Buffer;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, size: usize) -> CUresult {
    entry(
        "cuMemAlloc_v2",
        format_args!("dptr={:#x?} size={:#x?}", dptr, size),
        || {
            if dptr.is_null() {
                return Err(CuError::invalid("dptr is NULL"));
            }
            let (_, ctx) = context::current()?;
            let p = ctx.memory.alloc(&ctx.rt, size as u64)?;
            // SAFETY: non-NULL and writable.
            unsafe { put(dptr, p) }
        },
    )
}

/// Rows padded to 512 bytes (the texture pitch alignment ptxvk reports); element sizes 4, 8
/// and 16 as CUDA allows.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_size: c_uint,
) -> CUresult {
    entry(
        "cuMemAllocPitch_v2",
        format_args!(
            "dptr={:#x?} pitch={:#x?} width={:#x?} height={:#x?} element_size={:#x?}",
            dptr, pitch, width, height, element_size
        ),
        || {
            if dptr.is_null() || pitch.is_null() {
                return Err(CuError::invalid("dptr or pPitch is NULL"));
            }
            if !matches!(element_size, 4 | 8 | 16) || width == 0 || height == 0 {
                return Err(CuError::invalid(format!(
                    "{width}x{height} of {element_size}-byte elements"
                )));
            }
            let row = width.next_multiple_of(512);
            let size = row
                .checked_mul(height)
                .ok_or_else(|| CuError::invalid("pitched allocation size overflows"))?;
            let (_, ctx) = context::current()?;
            let p = ctx.memory.alloc(&ctx.rt, size as u64)?;
            // SAFETY: both non-NULL and writable.
            unsafe {
                put(dptr, p)?;
                put(pitch, row)
            }
        },
    )
}

/// Waits for the context's work first: kernels may still use the memory through its address.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    entry("cuMemFree_v2", format_args!("dptr={:#x?}", dptr), || {
        let (_, ctx) = context::current()?;
        if dptr == 0 {
            return Ok(());
        }
        let alloc = ctx.memory.free(dptr)?;
        let synced = ctx.rt.synchronize();
        drop(alloc);
        Ok(synced?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    entry(
        "cuMemGetInfo_v2",
        format_args!("free={:#x?} total={:#x?}", free, total),
        || {
            let (_, ctx) = context::current()?;
            let t = ctx.rt.info().device_local_bytes;
            let f = t.saturating_sub(ctx.memory.allocated());
            // SAFETY: NULL or writable.
            unsafe {
                put(free, f as usize)?;
                put(total, t as usize)
            }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    dptr: CUdeviceptr,
) -> CUresult {
    entry(
        "cuMemGetAddressRange_v2",
        format_args!("base={:#x?} size={:#x?} dptr={:#x?}", base, size, dptr),
        || {
            let (_, ctx) = context::current()?;
            let a = ctx
                .memory
                .containing(dptr)
                .ok_or_else(|| CuError::NotFound(format!("{dptr:#x} is not a device pointer")))?;
            // SAFETY: either may be NULL (CUDA: "ignored"); otherwise writable.
            unsafe {
                super::put_opt(base, a.base);
                super::put_opt(size, a.size as usize);
            }
            Ok(())
        },
    )
}

fn alloc_host(pp: *mut *mut c_void, size: usize, flags: c_uint) -> CuResult<()> {
    context::current()?;
    if pp.is_null() {
        return Err(CuError::invalid("pp is NULL"));
    }
    let p = host::alloc(size, flags)?;
    // SAFETY: non-NULL and writable by the caller's contract.
    unsafe { put(pp, p.cast::<c_void>()) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    entry(
        "cuMemAllocHost_v2",
        format_args!("pp={:#x?} size={:#x?}", pp, size),
        || alloc_host(pp, size, 0),
    )
}

/// With CU_MEMHOSTALLOC_DEVICEMAP the memory is device memory the host sees (where device
/// memory is host-visible; CUDA_ERROR_NOT_SUPPORTED elsewhere), whose device address
/// `cuMemHostGetDevicePointer` gives; without it, host memory. PORTABLE and WRITECOMBINED
/// change nothing here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostAlloc",
        format_args!("pp={:#x?} size={:#x?} flags={:#x?}", pp, size, flags),
        || {
            if flags & !0x7 != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if flags & MEMHOSTALLOC_DEVICEMAP == 0 {
                return alloc_host(pp, size, flags);
            }
            if pp.is_null() {
                return Err(CuError::invalid("pp is NULL"));
            }
            let (ctx_id, ctx) = context::current()?;
            let (device, host_addr) = ctx.memory.alloc_shared(&ctx.rt, size as u64, false)?;
            host::add_mapped(host_addr as usize, size, flags, (ctx_id, device));
            // SAFETY: non-NULL and writable by the caller's contract.
            unsafe { put(pp, host_addr as *mut c_void) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", format_args!("p={:#x?}", p), || {
        context::current()?;
        match host::free(p.cast())? {
            host::Freed::Nothing => Ok(()),
            host::Freed::Device(ctx_id, base) => {
                let ctx = crate::context::CONTEXTS
                    .get(ctx_id)
                    .map_err(|_| CuError::InvalidContext)?;
                let alloc = ctx.memory.free_mapped_host(base)?;
                let synced = ctx.rt.synchronize();
                drop(alloc);
                Ok(synced?)
            }
        }
    })
}

/// CU_MEMHOSTALLOC_DEVICEMAP.
const MEMHOSTALLOC_DEVICEMAP: c_uint = 0x2;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    dptr: *mut CUdeviceptr,
    p: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostGetDevicePointer_v2",
        format_args!("dptr={dptr:#x?} p={p:#x?} flags={flags:#x}"),
        || {
            context::current()?;
            if flags != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            let d = host::device_pointer(p as usize)
                .ok_or_else(|| CuError::invalid(format!("{p:?} is not mapped for the device")))?;
            // SAFETY: NULL or writable.
            unsafe { put(dptr, d) }
        },
    )
}

/// Where the device's addresses are the host's and its memory host-visible (lavapipe), one
/// allocation serves both at the same address; CUDA_ERROR_NOT_SUPPORTED elsewhere. The host
/// may touch it only while no kernel uses it (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
/// is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocManaged(
    dptr: *mut CUdeviceptr,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemAllocManaged",
        format_args!("dptr={dptr:#x?} size={size:#x} flags={flags:#x}"),
        || {
            // CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST.
            if !matches!(flags, 1 | 2) {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if dptr.is_null() {
                return Err(CuError::invalid("dptr is NULL"));
            }
            let (_, ctx) = context::current()?;
            let (device, _) = ctx.memory.alloc_shared(&ctx.rt, size as u64, true)?;
            // SAFETY: non-NULL and writable.
            unsafe { put(dptr, device) }
        },
    )
}

/// CU_MEMHOSTREGISTER_PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY.
const HOST_REGISTER_FLAGS: c_uint = 0xf;

/// CU_MEMHOSTREGISTER_DEVICEMAP.
const MEMHOSTREGISTER_DEVICEMAP: c_uint = 0x2;

/// Registration is remembered (pointer attributes, flags). With CU_MEMHOSTREGISTER_DEVICEMAP
/// the pages covering the range are imported as device memory of the current context
/// (`VK_EXT_external_memory_host`), and kernels reach the caller's own bytes through
/// `cuMemHostGetDevicePointer`; a device without the extension gives CUDA_ERROR_NOT_SUPPORTED,
/// which is what CUDA returns where registration is not supported.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostRegister_v2",
        format_args!("p={p:#x?} size={size:#x} flags={flags:#x}"),
        || {
            let (ctx_id, ctx) = context::current()?;
            if flags & !HOST_REGISTER_FLAGS != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if flags & MEMHOSTREGISTER_DEVICEMAP == 0 {
                return host::register(p as usize, size, flags);
            }
            let info = ctx.rt.info();
            let align = info.host_import_alignment.ok_or_else(|| {
                CuError::NotSupported(format!(
                    "CU_MEMHOSTREGISTER_DEVICEMAP: `{}` lacks VK_EXT_external_memory_host",
                    info.name
                ))
            })?;
            let align = usize::try_from(align).map_err(|_| CuError::invalid("alignment"))?;
            host::register_mapped((p as usize, size, flags), align, ctx_id, |start, len| {
                // SAFETY: the caller's range is its memory until it unregisters it (CUDA's
                // contract), and the pages around it hold it; unregistering drops the buffer
                // once the device is done with it.
                let buf = unsafe { Buffer::import_host(&ctx.rt, start as *mut u8, len as u64) }?;
                Ok(ctx.memory.add_imported(buf, start as u64))
            })
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    entry("cuMemHostUnregister", format_args!("p={p:#x?}"), || {
        context::current()?;
        let Some((ctx_id, device)) = host::unregister(p as usize)? else {
            return Ok(());
        };
        // The context may be gone, and its memory with it.
        let Ok(ctx) = crate::context::CONTEXTS.get(ctx_id) else {
            return Ok(());
        };
        let alloc = ctx.memory.remove_imported(device);
        // Kernels reached the memory by address: they must be done before it goes.
        let synced = ctx.rt.synchronize();
        drop(alloc);
        Ok(synced?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult {
    entry(
        "cuMemHostGetFlags",
        format_args!("flags={flags:#x?} p={p:#x?}"),
        || {
            context::current()?;
            let f = host::flags(p as usize)?;
            // SAFETY: NULL or writable.
            unsafe { put(flags, f) }
        },
    )
}

fn htod(dst: CUdeviceptr, src: *const c_void, n: usize, stream: Option<usize>) -> CuResult<()> {
    // SAFETY: `src` is readable for `n` bytes by the caller's contract.
    let data = unsafe { bytes(src, n) }?;
    copy::htod(dst, data, stream)
}

fn dtoh(dst: *mut c_void, src: CUdeviceptr, n: usize, stream: Option<usize>) -> CuResult<()> {
    // SAFETY: `dst` is writable for `n` bytes by the caller's contract.
    let out = unsafe { bytes_mut(dst, n) }?;
    copy::dtoh(out, src, stream)
}

/// `cuMemcpy`: the direction from the pointers (device memory of the context, or host).
fn unified(dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Option<usize>) -> CuResult<()> {
    match (copy::is_device(dst, stream)?, copy::is_device(src, stream)?) {
        (true, true) => copy::dtod(dst, src, n as u64, stream),
        (true, false) => htod(dst, src as *const c_void, n, stream),
        (false, true) => dtoh(dst as *mut c_void, src, n, stream),
        (false, false) => {
            if n > 0 && (dst == 0 || src == 0) {
                return Err(CuError::invalid("a NULL pointer"));
            }
            // SAFETY: both are host pointers valid for `n` bytes by the caller's contract;
            // `copy` allows overlap.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
            Ok(())
        }
    }
}

fn stream_of(h: Handle) -> Option<usize> {
    Some(id(h))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
) -> CUresult {
    entry(
        "cuMemcpyHtoD_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || htod(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyHtoDAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || htod(dst, src, n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpyDtoH_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || dtoh(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyDtoHAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || dtoh(dst, src, n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpyDtoD_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || copy::dtod(dst, src, n as u64, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyDtoDAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || copy::dtod(dst, src, n as u64, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpy",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || unified(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyAsync",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || unified(dst, src, n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    entry(
        "cuMemsetD8_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &[v], n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    entry(
        "cuMemsetD16_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &v.to_le_bytes(), n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) -> CUresult {
    entry(
        "cuMemsetD32_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &v.to_le_bytes(), n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, s: Handle) -> CUresult {
    entry(
        "cuMemsetD8Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &[v], n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD16Async(
    dst: CUdeviceptr,
    v: u16,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD16Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &v.to_le_bytes(), n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: CUdeviceptr,
    v: u32,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD32Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &v.to_le_bytes(), n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D8_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u8,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D8_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &[v], (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D16_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u16,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D16_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D32_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u32,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D32_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D8Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u8,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D8Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &[v], (w, h), stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D16Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u16,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D16Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D32Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u32,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D32Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), stream_of(s)),
    )
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuMemcpyHtoD_v2_ptds => cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, n: usize));
alias!(cuMemcpyDtoH_v2_ptds => cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize));
alias!(cuMemcpyDtoD_v2_ptds => cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize));
alias!(cuMemcpy_ptds => cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize));
alias!(cuMemsetD8_v2_ptds => cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize));
alias!(cuMemsetD16_v2_ptds => cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize));
alias!(cuMemsetD32_v2_ptds => cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize));
alias!(cuMemcpyHtoDAsync_v2_ptsz => cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyDtoHAsync_v2_ptsz => cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyDtoDAsync_v2_ptsz => cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyAsync_ptsz => cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD8Async_ptsz => cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD16Async_ptsz => cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD32Async_ptsz => cuMemsetD32Async(dst: CUdeviceptr, v: u32, n: usize, s: Handle), per_thread s);
alias!(cuMemHostRegister => cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint));
alias!(cuMemsetD2D8_v2_ptds => cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize));
alias!(cuMemsetD2D16_v2_ptds => cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize));
alias!(cuMemsetD2D32_v2_ptds => cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize));
alias!(cuMemsetD2D8Async_ptsz => cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, s: Handle), per_thread s);
alias!(cuMemsetD2D16Async_ptsz => cuMemsetD2D16Async(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize, s: Handle), per_thread s);
alias!(cuMemsetD2D32Async_ptsz => cuMemsetD2D32Async(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize, s: Handle), per_thread s);
