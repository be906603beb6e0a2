//! 2D arrays and texture objects over arrays, linear memory (`tex1Dfetch`) and pitched 2D
//! memory: the runtime's structs translated to the driver's (CUDA_ARRAY_DESCRIPTOR,
//! CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC), whose texture objects ptxvk's kernels sample.

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

/// `cudaResourceDesc`: the type, then a union of 56 bytes (the largest member, pitch2D:
/// devPtr, the 20-byte channel description, width, height and pitch at 32, 40 and 48).
/// The types number as the driver's (array 0, linear 2, pitch2D 3).
#[repr(C)]
pub struct RuntimeResourceDesc {
    kind: c_int,
    res: [u64; 7],
}

/// `CUDA_RESOURCE_DESC`: the type, a union of 128 bytes, flags.
#[repr(C)]
struct ResourceDesc {
    kind: c_int,
    res: [u64; 16],
    flags: c_uint,
}

/// The driver's resource for the runtime's: arrays keep their handle; linear and pitched
/// memory take the driver's (format, channels) word in place of the channel description.
fn driver_resource(r: &RuntimeResourceDesc) -> Result<ResourceDesc> {
    let mut res = [0u64; 16];
    res[0] = r.res[0];
    match r.kind {
        0 => {}
        2 | 3 => {
            let word = |w: u64, high: bool| (if high { w >> 32 } else { w }) as u32 as c_int;
            let desc = ChannelFormatDesc {
                x: word(r.res[1], false),
                y: word(r.res[1], true),
                z: word(r.res[2], false),
                w: word(r.res[2], true),
                f: word(r.res[3], false),
            };
            let (format, channels) = format(&desc)?;
            res[1] = u64::from(format) | (u64::from(channels) << 32);
            // Linear: bytes; pitch2D: width, height, pitch.
            res[2..5].copy_from_slice(&r.res[4..7]);
        }
        _ => return Err(Error(error::NOT_SUPPORTED)),
    }
    Ok(ResourceDesc {
        kind: r.kind,
        res,
        flags: 0,
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateTextureObject(
    tex: *mut u64,
    res: *const RuntimeResourceDesc,
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
        let rd = driver_resource(res)?;
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

/// The channel description of the driver's (format, channels).
fn channel_desc(format: c_uint, channels: c_uint) -> Result<ChannelFormatDesc> {
    // cudaChannelFormatKindSigned 0, Unsigned 1, Float 2.
    let (f, bits) = match format {
        0x01 => (1, 8),
        0x02 => (1, 16),
        0x03 => (1, 32),
        0x08 => (0, 8),
        0x09 => (0, 16),
        0x0a => (0, 32),
        0x10 => (2, 16),
        0x20 => (2, 32),
        _ => return Err(Error(error::INVALID_VALUE)),
    };
    let c = |k: c_uint| if k < channels { bits } else { 0 };
    Ok(ChannelFormatDesc {
        x: c(0),
        y: c(1),
        z: c(2),
        w: c(3),
        f,
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetTextureObjectResourceDesc(
    out_desc: *mut RuntimeResourceDesc,
    tex: u64,
) -> CudaError {
    entry(|| {
        let o = out(out_desc)?;
        let (d, _) = state::ready()?;
        let mut rd = ResourceDesc {
            kind: 0,
            res: [0; 16],
            flags: 0,
        };
        // SAFETY: a complete description for the driver to write; it checks the handle.
        driver::check(unsafe { (d.cuTexObjectGetResourceDesc)((&raw mut rd).cast(), tex) })?;
        let mut res = [0u64; 7];
        res[0] = rd.res[0];
        if rd.kind != 0 {
            let cd = channel_desc(rd.res[1] as c_uint, (rd.res[1] >> 32) as c_uint)?;
            let pair = |a: c_int, b: c_int| u64::from(a as u32) | (u64::from(b as u32) << 32);
            res[1] = pair(cd.x, cd.y);
            res[2] = pair(cd.z, cd.w);
            res[3] = u64::from(cd.f as u32);
            res[4..7].copy_from_slice(&rd.res[2..5]);
        }
        *o = RuntimeResourceDesc { kind: rd.kind, res };
        Ok(())
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
