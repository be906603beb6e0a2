//! Pointer attributes.

use std::ffi::{c_uint, c_void};

use super::{CUdeviceptr, entry, handle};
use crate::error::{CUresult, CuError, CuResult};
use crate::host;
use crate::pointer::{self, Pointer};

/// An attribute's value, written with the type cuda.h gives it.
enum Value {
    U32(u32),
    I32(i32),
    U64(u64),
    Ptr(usize),
    /// Booleans are one byte: the caller may hand over a `bool`.
    Bool(bool),
}

impl Value {
    /// # Safety
    /// `data` is valid for a write of the attribute's type.
    unsafe fn write(self, data: *mut c_void) {
        // SAFETY: by the caller's contract; unaligned writes accept any address.
        unsafe {
            match self {
                Value::U32(v) => data.cast::<u32>().write_unaligned(v),
                Value::I32(v) => data.cast::<i32>().write_unaligned(v),
                Value::U64(v) => data.cast::<u64>().write_unaligned(v),
                Value::Ptr(v) => data.cast::<usize>().write_unaligned(v),
                Value::Bool(v) => data.cast::<u8>().write(u8::from(v)),
            }
        }
    }
}

const MEMORYTYPE_HOST: u32 = 1;
const MEMORYTYPE_DEVICE: u32 = 2;
/// CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE.
const ACCESS_READWRITE: u32 = 3;

/// The value of `attr` for `ptr`, which `p` describes (`None`: not memory CUDA knows, for
/// which `cuPointerGetAttributes` gives zeros).
fn value(p: Option<&Pointer>, attr: c_uint, ptr: u64) -> CuResult<Value> {
    let (base, size) = match p {
        Some(Pointer::Device { alloc, .. }) => (alloc.base, alloc.size),
        Some(Pointer::Host { base, size }) => (*base as u64, *size as u64),
        None => (0, 0),
    };
    let not_mapped = || CuError::invalid(format!("{ptr:#x} has no address on the other side"));
    Ok(match attr {
        // CONTEXT
        1 => Value::Ptr(match p {
            Some(Pointer::Device { ctx_id, .. }) => handle(*ctx_id) as usize,
            _ => 0,
        }),
        // MEMORY_TYPE
        2 => Value::U32(match p {
            Some(Pointer::Device { .. }) => MEMORYTYPE_DEVICE,
            Some(Pointer::Host { .. }) => MEMORYTYPE_HOST,
            None => 0,
        }),
        // DEVICE_POINTER: page-locked memory has one where it is mapped for the device.
        3 => match p {
            Some(Pointer::Device { .. }) => Value::U64(ptr),
            Some(Pointer::Host { .. }) => {
                Value::U64(host::device_pointer(ptr as usize).ok_or_else(not_mapped)?)
            }
            None => Value::U64(0),
        },
        // HOST_POINTER: device memory has one where the host sees it (managed, mapped).
        4 => match p {
            Some(Pointer::Device { alloc, .. }) => {
                let h = alloc.host.ok_or_else(not_mapped)?;
                Value::Ptr((h + (ptr - alloc.base)) as usize)
            }
            Some(Pointer::Host { .. }) => Value::Ptr(ptr as usize),
            None => Value::Ptr(0),
        },
        // SYNC_MEMOPS: synchronous copies here always complete before returning.
        6 => Value::Bool(p.is_some()),
        // BUFFER_ID, MEMORY_BLOCK_ID: the base address is unique among live allocations.
        7 | 20 => Value::U64(base),
        8 => Value::Bool(matches!(p, Some(Pointer::Device { alloc, .. }) if alloc.managed)),
        // IS_LEGACY_CUDA_IPC_CAPABLE, IS_GPU_DIRECT_RDMA_CAPABLE, IS_HW_DECOMPRESS_CAPABLE
        10 | 15 | 21 => Value::Bool(false),
        // DEVICE_ORDINAL
        9 => Value::I32(match p {
            Some(Pointer::Device { ctx, .. }) => ctx.device,
            _ => -1,
        }),
        // RANGE_START_ADDR, MAPPING_BASE_ADDR
        11 | 19 => Value::U64(base),
        // RANGE_SIZE, MAPPING_SIZE
        12 | 18 => Value::U64(size),
        // MAPPED
        13 => Value::Bool(p.is_some()),
        // ALLOWED_HANDLE_TYPES: none (no IPC or export).
        14 => Value::U64(0),
        // ACCESS_FLAGS
        16 => Value::U32(if p.is_some() { ACCESS_READWRITE } else { 0 }),
        // MEMPOOL_HANDLE: no memory pools.
        17 => Value::Ptr(0),
        a => return Err(CuError::NotSupported(format!("pointer attribute {a}"))),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attr: c_uint,
    ptr: CUdeviceptr,
) -> CUresult {
    entry(
        "cuPointerGetAttribute",
        format_args!("data={data:#x?} attr={attr} ptr={ptr:#x}"),
        || {
            crate::device::check_init()?;
            if data.is_null() {
                return Err(CuError::invalid("data is NULL"));
            }
            let p = pointer::classify(ptr)
                .ok_or_else(|| CuError::invalid(format!("{ptr:#x} is not memory CUDA knows")))?;
            let v = value(Some(&p), attr, ptr)?;
            // SAFETY: non-NULL and sized for the attribute by the caller's contract.
            unsafe { v.write(data) };
            Ok(())
        },
    )
}

/// Unlike `cuPointerGetAttribute`, an unknown pointer is not an error: every attribute gets
/// its zero value, as CUDA documents.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttributes(
    n: c_uint,
    attrs: *const c_uint,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    entry(
        "cuPointerGetAttributes",
        format_args!("n={n} attrs={attrs:#x?} data={data:#x?} ptr={ptr:#x}"),
        || {
            crate::device::check_init()?;
            if n == 0 {
                return Ok(());
            }
            if attrs.is_null() || data.is_null() {
                return Err(CuError::invalid("attributes or data is NULL"));
            }
            let p = pointer::classify(ptr);
            // SAFETY: both arrays hold `n` entries by the caller's contract.
            let (attrs, data) = unsafe {
                (
                    std::slice::from_raw_parts(attrs, n as usize),
                    std::slice::from_raw_parts(data, n as usize),
                )
            };
            for (&attr, &out) in attrs.iter().zip(data) {
                let v = match value(p.as_ref(), attr, ptr) {
                    Ok(v) => v,
                    // The other side's address of a pointer that has none is NULL here.
                    Err(CuError::InvalidValue(_)) => Value::U64(0),
                    Err(e) => return Err(e),
                };
                if !out.is_null() {
                    // SAFETY: each non-NULL entry is sized for its attribute.
                    unsafe { v.write(out) };
                }
            }
            Ok(())
        },
    )
}
