//! `cuMemcpy2D` and `cuMemcpy3D` (+ `Unaligned`, `Async`) between host memory, device memory
//! and CUDA arrays, as a copy per row (one copy where both sides are contiguous). An array's
//! texels are host memory here (see `texture.rs`); writing them refills its texture objects.

use std::ffi::c_void;

use std::sync::Arc;

use super::{CUdeviceptr, Handle, bytes, bytes_mut, entry, id};
use crate::copy;
use crate::error::{CUresult, CuError, CuResult};
use crate::texture::{ARRAYS, Arr};

/// `CUDA_MEMCPY2D`.
#[repr(C)]
pub struct Memcpy2D {
    src_x: usize,
    src_y: usize,
    src_type: u32,
    src_host: *const c_void,
    src_device: CUdeviceptr,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: u32,
    dst_host: *mut c_void,
    dst_device: CUdeviceptr,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// `CUDA_MEMCPY3D`.
#[repr(C)]
pub struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: u32,
    src_host: *const c_void,
    src_device: CUdeviceptr,
    src_array: *mut c_void,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: u32,
    dst_host: *mut c_void,
    dst_device: CUdeviceptr,
    dst_array: *mut c_void,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

const MEMORYTYPE_HOST: u32 = 1;
const MEMORYTYPE_DEVICE: u32 = 2;
const MEMORYTYPE_ARRAY: u32 = 3;
const MEMORYTYPE_UNIFIED: u32 = 4;

/// One side of a copy: where element (x, y, z) = (0, 0, 0) is, and its row and slice pitches.
struct Side {
    device: bool,
    origin: u64,
    pitch: u64,
    slice: u64,
}

/// One side of a copy as the descriptors give it: memory type, host and device address, the
/// copy's corner (x in bytes, y, z) and the pitch and height of its rows and slices.
struct Plane {
    ty: u32,
    host: u64,
    device: CUdeviceptr,
    array: *mut c_void,
    at: [usize; 3],
    pitch: usize,
    height: usize,
}

impl Plane {
    fn array(&self) -> CuResult<Option<Arc<Arr>>> {
        if self.ty != MEMORYTYPE_ARRAY {
            return Ok(None);
        }
        ARRAYS.get(id(self.array)).map(Some)
    }

    /// The side as addresses. An array side is its texels (`array`, locked by the caller),
    /// with the array's own pitches, checked to hold the whole `extent`.
    fn side(
        &self,
        stream: Option<usize>,
        array: Option<(&Arr, &mut [u8])>,
        extent: [usize; 3],
    ) -> CuResult<Side> {
        let (device, base, pitch, height) = match (self.ty, array) {
            (MEMORYTYPE_HOST, _) => (false, self.host, self.pitch, self.height),
            (MEMORYTYPE_DEVICE, _) => (true, self.device, self.pitch, self.height),
            (MEMORYTYPE_UNIFIED, _) => {
                let device = copy::is_device(self.device, stream)?;
                (device, self.device, self.pitch, self.height)
            }
            (MEMORYTYPE_ARRAY, Some((arr, texels))) => {
                let pitch = arr.pitch();
                let rows = arr.slice() / pitch.max(1);
                let [x, y, z] = self.at;
                let [w, h, d] = extent;
                let last = (z + d.max(1) - 1) * rows * pitch + (y + h.max(1) - 1) * pitch + x + w;
                if x + w > pitch || last > texels.len() {
                    return Err(CuError::invalid("the copy runs past the array"));
                }
                (false, texels.as_mut_ptr() as u64, pitch, rows)
            }
            (t, _) => return Err(CuError::invalid(format!("memory type {t}"))),
        };
        let pitch = pitch as u64;
        let slice = pitch.saturating_mul(height as u64);
        let [x, y, z] = self.at.map(|v| v as u64);
        let origin = base
            .checked_add(x)
            .and_then(|b| b.checked_add(y.checked_mul(pitch)?))
            .and_then(|b| b.checked_add(z.checked_mul(slice)?))
            .ok_or_else(|| CuError::invalid("copy origin overflows"))?;
        Ok(Side {
            device,
            origin,
            pitch,
            slice,
        })
    }
}

/// Copies `len` bytes from `src` to `dst` addresses of the given kinds.
fn copy_bytes(
    src: (bool, u64),
    dst: (bool, u64),
    len: usize,
    stream: Option<usize>,
) -> CuResult<()> {
    match (src.0, dst.0) {
        (true, true) => copy::dtod(dst.1, src.1, len as u64, stream),
        (false, true) => {
            // SAFETY: a host source of the copy, readable for the row by CUDA's contract.
            let data = unsafe { bytes(src.1 as *const c_void, len) }?;
            copy::htod(dst.1, data, stream)
        }
        (true, false) => {
            // SAFETY: a host destination of the copy, writable for the row.
            let out = unsafe { bytes_mut(dst.1 as *mut c_void, len) }?;
            copy::dtoh(out, src.1, stream)
        }
        (false, false) => {
            if len > 0 && (src.1 == 0 || dst.1 == 0) {
                return Err(CuError::invalid("a NULL host pointer"));
            }
            // SAFETY: both host ranges are valid for the row by CUDA's contract.
            unsafe { std::ptr::copy(src.1 as *const u8, dst.1 as *mut u8, len) };
            Ok(())
        }
    }
}

/// `width` bytes of `height` rows in `depth` slices.
fn copy_3d(
    src: &Side,
    dst: &Side,
    [width, height, depth]: [usize; 3],
    stream: Option<usize>,
) -> CuResult<()> {
    let rows = height > 1 || depth > 1;
    if rows && (src.pitch < width as u64 || dst.pitch < width as u64) {
        return Err(CuError::invalid(format!(
            "pitches {} and {} are narrower than {width} bytes",
            src.pitch, dst.pitch
        )));
    }
    let dense =
        |s: &Side| s.pitch == width as u64 && (depth <= 1 || s.slice == s.pitch * height as u64);
    if dense(src) && dense(dst) {
        let total = width
            .checked_mul(height)
            .and_then(|b| b.checked_mul(depth))
            .ok_or_else(|| CuError::invalid("copy size overflows"))?;
        return copy_bytes(
            (src.device, src.origin),
            (dst.device, dst.origin),
            total,
            stream,
        );
    }
    for z in 0..depth as u64 {
        for y in 0..height as u64 {
            let at = |s: &Side| s.origin + z * s.slice + y * s.pitch;
            copy_bytes((src.device, at(src)), (dst.device, at(dst)), width, stream)?;
        }
    }
    Ok(())
}

/// Copies between two planes, locking the arrays among them for the copy and refilling the
/// destination array's texture objects after it.
fn copy_planes(
    src: &Plane,
    dst: &Plane,
    extent: [usize; 3],
    stream: Option<usize>,
) -> CuResult<()> {
    let (src_arr, dst_arr) = (src.array()?, dst.array()?);
    if let (Some(a), Some(b)) = (&src_arr, &dst_arr)
        && Arc::ptr_eq(a, b)
    {
        return Err(CuError::NotSupported("copies within one array".into()));
    }
    {
        let mut src_texels = src_arr.as_ref().map(|a| a.texels());
        let mut dst_texels = dst_arr.as_ref().map(|a| a.texels());
        let s = src.side(
            stream,
            src_arr
                .as_deref()
                .zip(src_texels.as_deref_mut().map(Vec::as_mut_slice)),
            extent,
        )?;
        let d = dst.side(
            stream,
            dst_arr
                .as_deref()
                .zip(dst_texels.as_deref_mut().map(Vec::as_mut_slice)),
            extent,
        )?;
        copy_3d(&s, &d, extent, stream)?;
    }
    match dst_arr {
        Some(a) => a.refill(),
        None => Ok(()),
    }
}

fn memcpy_2d(p: *const Memcpy2D, stream: Option<usize>) -> CuResult<()> {
    // SAFETY: NULL or a valid CUDA_MEMCPY2D by the caller's contract.
    let c = unsafe { p.as_ref() }.ok_or_else(|| CuError::invalid("pCopy is NULL"))?;
    let src = Plane {
        ty: c.src_type,
        host: c.src_host as u64,
        device: c.src_device,
        array: c.src_array,
        at: [c.src_x, c.src_y, 0],
        pitch: c.src_pitch,
        height: 0,
    };
    let dst = Plane {
        ty: c.dst_type,
        host: c.dst_host as u64,
        device: c.dst_device,
        array: c.dst_array,
        at: [c.dst_x, c.dst_y, 0],
        pitch: c.dst_pitch,
        height: 0,
    };
    copy_planes(&src, &dst, [c.width, c.height, 1], stream)
}

fn memcpy_3d(p: *const Memcpy3D, stream: Option<usize>) -> CuResult<()> {
    // SAFETY: NULL or a valid CUDA_MEMCPY3D by the caller's contract.
    let c = unsafe { p.as_ref() }.ok_or_else(|| CuError::invalid("pCopy is NULL"))?;
    if !c.reserved0.is_null() || !c.reserved1.is_null() || c.src_lod != 0 || c.dst_lod != 0 {
        return Err(CuError::invalid("reserved fields and LOD must be 0"));
    }
    if c.depth > 1 && (c.src_height < c.height || c.dst_height < c.height) {
        return Err(CuError::invalid(
            "srcHeight and dstHeight must cover Height",
        ));
    }
    let src = Plane {
        ty: c.src_type,
        host: c.src_host as u64,
        device: c.src_device,
        array: c.src_array,
        at: [c.src_x, c.src_y, c.src_z],
        pitch: c.src_pitch,
        height: c.src_height,
    };
    let dst = Plane {
        ty: c.dst_type,
        host: c.dst_host as u64,
        device: c.dst_device,
        array: c.dst_array,
        at: [c.dst_x, c.dst_y, c.dst_z],
        pitch: c.dst_pitch,
        height: c.dst_height,
    };
    copy_planes(&src, &dst, [c.width, c.height, c.depth], stream)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy2D_v2(p: *const Memcpy2D) -> CUresult {
    entry("cuMemcpy2D_v2", format_args!("pCopy={p:#x?}"), || {
        memcpy_2d(p, None)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(p: *const Memcpy2D, s: Handle) -> CUresult {
    entry(
        "cuMemcpy2DAsync_v2",
        format_args!("pCopy={p:#x?} stream={s:#x?}"),
        || memcpy_2d(p, Some(id(s))),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy3D_v2(p: *const Memcpy3D) -> CUresult {
    entry("cuMemcpy3D_v2", format_args!("pCopy={p:#x?}"), || {
        memcpy_3d(p, None)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy3DAsync_v2(p: *const Memcpy3D, s: Handle) -> CUresult {
    entry(
        "cuMemcpy3DAsync_v2",
        format_args!("pCopy={p:#x?} stream={s:#x?}"),
        || memcpy_3d(p, Some(id(s))),
    )
}

// Other names of the same entry points (see `memory.rs`); `Unaligned` has no alignment
// requirement to relax here.
alias!(cuMemcpy2D_v2_ptds => cuMemcpy2D_v2(p: *const Memcpy2D));
alias!(cuMemcpy2DUnaligned_v2 => cuMemcpy2D_v2(p: *const Memcpy2D));
alias!(cuMemcpy2DUnaligned_v2_ptds => cuMemcpy2D_v2(p: *const Memcpy2D));
alias!(cuMemcpy2DAsync_v2_ptsz => cuMemcpy2DAsync_v2(p: *const Memcpy2D, s: Handle), per_thread s);
alias!(cuMemcpy3D_v2_ptds => cuMemcpy3D_v2(p: *const Memcpy3D));
alias!(cuMemcpy3DAsync_v2_ptsz => cuMemcpy3DAsync_v2(p: *const Memcpy3D, s: Handle), per_thread s);
