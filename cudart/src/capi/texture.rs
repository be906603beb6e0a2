//! 2D arrays and texture objects over arrays: the runtime's structs translated to the
//! driver's (CUDA_ARRAY_DESCRIPTOR, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC), whose texture
//! objects ptxvk's kernels sample. Linear and pitched resources are not yet sampled by
//! ptxvk (`tex1Dfetch`), so they are refused.

use std::ffi::{c_int, c_uint, c_void};

use super::{Stream, entry, out};
use crate::driver::{self, DevPtr, Ptr};
use crate::error::{self, CudaError, Error, Result};
use crate::state;

/// struct cudaChannelFormatDesc.
#[repr(C)]
pub struct ChannelFormatDesc {
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
}

/// CUDA_ARRAY_DESCRIPTOR.
#[repr(C)]
struct ArrayDescriptor {
    width: usize,
    height: usize,
    format: c_uint,
    channels: c_uint,
}

/// The driver's CUarray_format for a channel description: every channel as wide as `x`.
fn format(desc: &ChannelFormatDesc) -> Result<(c_uint, c_uint)> {
    let bits = [desc.x, desc.y, desc.z, desc.w];
    let channels = bits.iter().take_while(|&&b| b > 0).count();
    if channels == 0 || bits[..channels].iter().any(|&b| b != desc.x) || channels == 3 {
        return Err(Error(error::INVALID_VALUE));
    }
    // cudaChannelFormatKindSigned 0, Unsigned 1, Float 2.
    let format = match (desc.f, desc.x) {
        (1, 8) => 0x01,
        (1, 16) => 0x02,
        (1, 32) => 0x03,
        (0, 8) => 0x08,
        (0, 16) => 0x09,
        (0, 32) => 0x0a,
        (2, 16) => 0x10,
        (2, 32) => 0x20,
        _ => return Err(Error(error::NOT_SUPPORTED)),
    };
    Ok((format, channels as c_uint))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocArray(
    array: *mut Ptr,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    _flags: c_uint,
) -> CudaError {
    entry(|| {
        let a = out(array)?;
        // SAFETY: the caller's description, checked for NULL.
        let desc = unsafe { desc.as_ref() }.ok_or(Error(error::INVALID_VALUE))?;
        let (format, channels) = format(desc)?;
        let (d, _) = state::ready()?;
        let ad = ArrayDescriptor {
            width,
            height,
            format,
            channels,
        };
        // SAFETY: a complete descriptor; the driver writes the handle.
        driver::check(unsafe { (d.cuArrayCreate_v2)(a, (&raw const ad).cast()) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeArray(array: Ptr) -> CudaError {
    entry(|| {
        if array.is_null() {
            return Ok(());
        }
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the handle.
        driver::check(unsafe { (d.cuArrayDestroy)(array) })
    })
}

/// CUDA_MEMCPY2D of cuda.h, to or from an array.
#[repr(C)]
struct Memcpy2D {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: DevPtr,
    src_array: Ptr,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: DevPtr,
    dst_array: Ptr,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// CU_MEMORYTYPE_ARRAY and _UNIFIED (host or device, told by the address).
const ARRAY: c_uint = 3;
const UNIFIED: c_uint = 4;

#[allow(clippy::too_many_arguments)]
fn array_copy(
    array: Ptr,
    x: usize,
    y: usize,
    mem: *mut c_void,
    pitch: usize,
    width: usize,
    height: usize,
    to_array: bool,
    stream: Option<Stream>,
) -> Result<()> {
    let (d, _) = state::ready()?;
    let null = std::ptr::null_mut();
    let p = if to_array {
        Memcpy2D {
            src_x: 0,
            src_y: 0,
            src_type: UNIFIED,
            src_host: mem,
            src_device: mem as DevPtr,
            src_array: null,
            src_pitch: pitch,
            dst_x: x,
            dst_y: y,
            dst_type: ARRAY,
            dst_host: null,
            dst_device: 0,
            dst_array: array,
            dst_pitch: 0,
            width,
            height,
        }
    } else {
        Memcpy2D {
            src_x: x,
            src_y: y,
            src_type: ARRAY,
            src_host: null,
            src_device: 0,
            src_array: array,
            src_pitch: 0,
            dst_x: 0,
            dst_y: 0,
            dst_type: UNIFIED,
            dst_host: mem,
            dst_device: mem as DevPtr,
            dst_array: null,
            dst_pitch: pitch,
            width,
            height,
        }
    };
    let p = (&raw const p).cast();
    // SAFETY: a complete CUDA_MEMCPY2D over the caller's memory and array.
    driver::check(unsafe {
        match stream {
            None => (d.cuMemcpy2D_v2)(p),
            Some(s) => (d.cuMemcpy2DAsync_v2)(p, s),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DToArray(
    dst: Ptr,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    _kind: c_int,
) -> CudaError {
    entry(|| {
        array_copy(
            dst,
            w_offset,
            h_offset,
            src.cast_mut(),
            spitch,
            width,
            height,
            true,
            None,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    src: Ptr,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    _kind: c_int,
) -> CudaError {
    entry(|| {
        array_copy(
            src, w_offset, h_offset, dst, dpitch, width, height, false, None,
        )
    })
}

/// struct cudaTextureDesc.
#[repr(C)]
pub struct TextureDesc {
    address_mode: [c_int; 3],
    filter_mode: c_int,
    read_mode: c_int,
    srgb: c_int,
    border_color: [f32; 4],
    normalized_coords: c_int,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    disable_trilinear_optimization: c_int,
    seamless_cubemap: c_int,
}

/// CUDA_TEXTURE_DESC.
#[repr(C)]
struct DriverTextureDesc {
    address_mode: [c_int; 3],
    filter_mode: c_int,
    flags: c_uint,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_int,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    border_color: [f32; 4],
    reserved: [c_int; 12],
}

/// cudaResourceDesc and CUDA_RESOURCE_DESC share their layout for an array resource: the
/// type (cudaResourceTypeArray and CU_RESOURCE_TYPE_ARRAY are 0), then the handle at 8,
/// in a union of 128 bytes, then flags.
#[repr(C)]
pub struct ResourceDesc {
    kind: c_int,
    res: [u64; 16],
    flags: c_uint,
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateTextureObject(
    tex: *mut u64,
    res: *const ResourceDesc,
    desc: *const TextureDesc,
    _view: *const c_void,
) -> CudaError {
    entry(|| {
        let t = out(tex)?;
        // SAFETY: the caller's descriptions, checked for NULL.
        let (res, desc) = unsafe { (res.as_ref(), desc.as_ref()) };
        let (res, desc) = (
            res.ok_or(Error(error::INVALID_VALUE))?,
            desc.ok_or(Error(error::INVALID_VALUE))?,
        );
        if res.kind != 0 {
            return Err(Error(error::NOT_SUPPORTED));
        }
        // CU_TRSF_READ_AS_INTEGER (element type reads), NORMALIZED_COORDINATES, SRGB,
        // DISABLE_TRILINEAR_OPTIMIZATION, SEAMLESS_CUBEMAP.
        let flags = [
            (desc.read_mode == 0, 0x01),
            (desc.normalized_coords != 0, 0x02),
            (desc.srgb != 0, 0x10),
            (desc.disable_trilinear_optimization != 0, 0x20),
            (desc.seamless_cubemap != 0, 0x40),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |f, (_, bit)| f | bit);
        let td = DriverTextureDesc {
            address_mode: desc.address_mode,
            filter_mode: desc.filter_mode,
            flags,
            max_anisotropy: desc.max_anisotropy,
            mipmap_filter_mode: desc.mipmap_filter_mode,
            mipmap_level_bias: desc.mipmap_level_bias,
            min_mipmap_level_clamp: desc.min_mipmap_level_clamp,
            max_mipmap_level_clamp: desc.max_mipmap_level_clamp,
            border_color: desc.border_color,
            reserved: [0; 12],
        };
        let rd = ResourceDesc {
            kind: 0,
            res: res.res,
            flags: 0,
        };
        let (d, _) = state::ready()?;
        // SAFETY: complete descriptions; no view; the driver writes the handle.
        driver::check(unsafe {
            (d.cuTexObjectCreate)(
                t,
                (&raw const rd).cast(),
                (&raw const td).cast(),
                std::ptr::null(),
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDestroyTextureObject(tex: u64) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the handle.
        driver::check(unsafe { (d.cuTexObjectDestroy)(tex) })
    })
}
