//! Devices and their primary contexts.

use std::ffi::{c_char, c_int, c_uint};

use super::{CUdevice, Handle, entry, put, put_new};
use crate::context;
use crate::device;
use crate::error::{CUresult, CuError, CuResult};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    entry(
        "cuDeviceGetCount",
        format_args!("count={:#x?}", count),
        || {
            let n = device::all()?.len() as c_int;
            // SAFETY: NULL or writable.
            unsafe { put(count, n) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) -> CUresult {
    entry(
        "cuDeviceGet",
        format_args!("dev={:#x?} ordinal={:#x?}", dev, ordinal),
        || {
            device::get(ordinal)?;
            // SAFETY: NULL or writable.
            unsafe { put(dev, ordinal) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    entry(
        "cuDeviceGetName",
        format_args!("name={:#x?} len={:#x?} dev={:#x?}", name, len, dev),
        || {
            let info = device::get(dev)?;
            let len = usize::try_from(len).unwrap_or(0);
            if name.is_null() || len == 0 {
                return Err(CuError::invalid("name buffer"));
            }
            // As CUDA: the name truncated to the buffer, always NUL-terminated.
            let n = info.name.len().min(len - 1);
            // SAFETY: `name` is writable for `len` bytes by the caller's contract; n < len.
            unsafe {
                std::ptr::copy_nonoverlapping(info.name.as_ptr(), name.cast::<u8>(), n);
                name.add(n).write(0);
            }
            Ok(())
        },
    )
}

unsafe fn get_uuid(what: &'static str, out: *mut [u8; 16], dev: CUdevice) -> CUresult {
    entry(what, format_args!("uuid={out:#x?} dev={dev}"), || {
        let info = device::get(dev)?;
        // SAFETY: NULL or writable for a CUuuid (16 bytes).
        unsafe { put(out, device::uuid(info)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid(out: *mut [u8; 16], dev: CUdevice) -> CUresult {
    // SAFETY: the same contract.
    unsafe { get_uuid("cuDeviceGetUuid", out, dev) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    entry(
        "cuDeviceTotalMem_v2",
        format_args!("bytes={:#x?} dev={:#x?}", bytes, dev),
        || {
            let info = device::get(dev)?;
            // SAFETY: NULL or writable.
            unsafe { put(bytes, info.device_local_bytes as usize) }
        },
    )
}

/// The CUDA 3.1 form with a 32-bit size, saturated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceTotalMem(bytes: *mut c_uint, dev: CUdevice) -> CUresult {
    entry(
        "cuDeviceTotalMem",
        format_args!("bytes={:#x?} dev={:#x?}", bytes, dev),
        || {
            let info = device::get(dev)?;
            let v = c_uint::try_from(info.device_local_bytes).unwrap_or(c_uint::MAX);
            // SAFETY: NULL or writable.
            unsafe { put(bytes, v) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attr: c_int,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuDeviceGetAttribute",
        format_args!("value={:#x?} attr={:#x?} dev={:#x?}", value, attr, dev),
        || {
            let v = device::attribute(device::get(dev)?, attr)?;
            // SAFETY: NULL or writable.
            unsafe { put(value, v) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuDeviceComputeCapability",
        format_args!("major={:#x?} minor={:#x?} dev={:#x?}", major, minor, dev),
        || {
            device::get(dev)?;
            let (a, b) = device::compute_capability();
            // SAFETY: NULL or writable.
            unsafe { put(major, a)? };
            // SAFETY: NULL or writable.
            unsafe { put(minor, b) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, dev: CUdevice) -> CUresult {
    entry(
        "cuDevicePrimaryCtxRetain",
        format_args!("ctx={:#x?} dev={:#x?}", ctx, dev),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(ctx, || context::primary_retain(dev)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    entry(
        "cuDevicePrimaryCtxRelease",
        format_args!("dev={:#x?}", dev),
        || context::primary_release(dev),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    entry(
        "cuDevicePrimaryCtxReset",
        format_args!("dev={:#x?}", dev),
        || context::primary_reset(dev),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    entry(
        "cuDevicePrimaryCtxGetState",
        format_args!("dev={:#x?} flags={:#x?} active={:#x?}", dev, flags, active),
        || {
            let (f, a) = context::primary_state(dev)?;
            // SAFETY: NULL or writable.
            unsafe { put(flags, f)? };
            // SAFETY: NULL or writable.
            unsafe { put(active, c_int::from(a)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint) -> CUresult {
    entry(
        "cuDevicePrimaryCtxSetFlags",
        format_args!("dev={:#x?} flags={:#x?}", dev, flags),
        || context::primary_set_flags(dev, flags),
    )
}

/// `domain:bus:device.function` as CUDA formats it, from the PCI attributes ptxvk reports
/// (Vulkan core does not give the real location; the device number is the ordinal).
fn pci_bus_id(dev: CUdevice) -> CuResult<String> {
    let info = device::get(dev)?;
    let attr = |a| device::attribute(info, a);
    Ok(format!(
        "{:04x}:{:02x}:{:02x}.0",
        attr(50)?,
        attr(33)?,
        attr(34)?
    ))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    out: *mut c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuDeviceGetPCIBusId",
        format_args!("out={out:#x?} len={len} dev={dev}"),
        || {
            let id = pci_bus_id(dev)?;
            let len = usize::try_from(len).unwrap_or(0);
            if out.is_null() || len == 0 {
                return Err(CuError::invalid("buffer"));
            }
            let n = id.len().min(len - 1);
            // SAFETY: `out` is writable for `len` bytes by the caller's contract; n < len.
            unsafe {
                std::ptr::copy_nonoverlapping(id.as_ptr(), out.cast::<u8>(), n);
                out.add(n).write(0);
            }
            Ok(())
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(
    dev: *mut CUdevice,
    bus_id: *const c_char,
) -> CUresult {
    entry(
        "cuDeviceGetByPCIBusId",
        format_args!("dev={dev:#x?} busId={bus_id:#x?}"),
        || {
            // SAFETY: a NUL-terminated string by the caller's contract.
            let wanted = unsafe { super::c_str(bus_id) }?.to_ascii_lowercase();
            let n = device::all()?.len() as CUdevice;
            let found = (0..n)
                .find(|&d| pci_bus_id(d).is_ok_and(|id| id == wanted))
                .ok_or_else(|| CuError::invalid(format!("no device at {wanted}")))?;
            // SAFETY: NULL or writable.
            unsafe { put(dev, found) }
        },
    )
}

/// Devices are separate Vulkan devices: none reaches another's memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(
    can: *mut c_int,
    dev: CUdevice,
    peer: CUdevice,
) -> CUresult {
    entry(
        "cuDeviceCanAccessPeer",
        format_args!("can={can:#x?} dev={dev} peer={peer}"),
        || {
            device::get(dev)?;
            device::get(peer)?;
            // SAFETY: NULL or writable.
            unsafe { put(can, 0) }
        },
    )
}

/// `CUdevprop` (deprecated, still read by older programs).
#[repr(C)]
pub struct DevProp {
    max_threads_per_block: c_int,
    max_threads_dim: [c_int; 3],
    max_grid_size: [c_int; 3],
    shared_mem_per_block: c_int,
    total_constant_memory: c_int,
    simd_width: c_int,
    mem_pitch: c_int,
    regs_per_block: c_int,
    clock_rate: c_int,
    texture_align: c_int,
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetProperties(prop: *mut DevProp, dev: CUdevice) -> CUresult {
    entry(
        "cuDeviceGetProperties",
        format_args!("prop={prop:#x?} dev={dev}"),
        || {
            let info = device::get(dev)?;
            let a = |attr| device::attribute(info, attr);
            let p = DevProp {
                max_threads_per_block: a(1)?,
                max_threads_dim: [a(2)?, a(3)?, a(4)?],
                max_grid_size: [a(5)?, a(6)?, a(7)?],
                shared_mem_per_block: a(8)?,
                total_constant_memory: a(9)?,
                simd_width: a(10)?,
                mem_pitch: a(11)?,
                regs_per_block: a(12)?,
                clock_rate: a(13)?,
                texture_align: a(14)?,
            };
            // SAFETY: NULL or writable for a CUdevprop.
            unsafe { put(prop, p) }
        },
    )
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuDeviceGetUuid_v2 => cuDeviceGetUuid(out: *mut [u8; 16], dev: CUdevice));
alias!(cuDevicePrimaryCtxRelease_v2 => cuDevicePrimaryCtxRelease(dev: CUdevice));
alias!(cuDevicePrimaryCtxReset_v2 => cuDevicePrimaryCtxReset(dev: CUdevice));
alias!(cuDevicePrimaryCtxSetFlags_v2 => cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint));
