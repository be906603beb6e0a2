//! CUDA arrays and texture objects.

use std::ffi::{c_uint, c_void};

use ptxvk_runtime::{AddressMode, FilterMode, ReadMode, TextureDesc, TextureShape};

use super::{Handle, bytes, bytes_mut, entry, handle, id, put, put_new};
use crate::error::{CUresult, CuError, CuResult};
use crate::texture::{self, ARRAYS};

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
pub struct ArrayDescriptor {
    width: usize,
    height: usize,
    format: c_uint,
    channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
pub struct Array3DDescriptor {
    width: usize,
    height: usize,
    depth: usize,
    format: c_uint,
    channels: c_uint,
    flags: c_uint,
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayCreate_v2(
    out: *mut Handle,
    desc: *const ArrayDescriptor,
) -> CUresult {
    entry(
        "cuArrayCreate_v2",
        format_args!("out={out:#x?} desc={desc:#x?}"),
        || {
            // SAFETY: NULL or a valid descriptor by the caller's contract.
            let d =
                unsafe { desc.as_ref() }.ok_or_else(|| CuError::invalid("descriptor is NULL"))?;
            let extent = [d.width, d.height, 0];
            // SAFETY: NULL or writable.
            unsafe { put_new(out, || texture::create(extent, (d.format, d.channels), 0)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArray3DCreate_v2(
    out: *mut Handle,
    desc: *const Array3DDescriptor,
) -> CUresult {
    entry(
        "cuArray3DCreate_v2",
        format_args!("out={out:#x?} desc={desc:#x?}"),
        || {
            // SAFETY: NULL or a valid descriptor by the caller's contract.
            let d =
                unsafe { desc.as_ref() }.ok_or_else(|| CuError::invalid("descriptor is NULL"))?;
            let extent = [d.width, d.height, d.depth];
            // SAFETY: NULL or writable.
            unsafe {
                put_new(out, || {
                    texture::create(extent, (d.format, d.channels), d.flags)
                })
            }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayDestroy(a: Handle) -> CUresult {
    entry("cuArrayDestroy", format_args!("a={a:#x?}"), || {
        crate::device::check_init()?;
        texture::destroy(id(a))
    })
}

/// (width, height, depth) as the array was created (0 for absent dimensions).
fn created_extent(a: &texture::Arr) -> [usize; 3] {
    match a.shape {
        ptxvk_runtime::TextureShape::D1 { width } => [width as usize, 0, 0],
        ptxvk_runtime::TextureShape::D2 { width, height } => [width as usize, height as usize, 0],
        s => s.extent().map(|v| v as usize),
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArrayGetDescriptor_v2(out: *mut ArrayDescriptor, a: Handle) -> CUresult {
    entry(
        "cuArrayGetDescriptor_v2",
        format_args!("out={out:#x?} a={a:#x?}"),
        || {
            crate::device::check_init()?;
            let arr = ARRAYS.get(id(a))?;
            let [width, height, depth] = created_extent(&arr);
            if depth > 0 {
                return Err(CuError::invalid("a 3D array (use cuArray3DGetDescriptor)"));
            }
            let d = ArrayDescriptor {
                width,
                height,
                format: arr.cu_format,
                channels: arr.format.channels,
            };
            // SAFETY: NULL or writable.
            unsafe { put(out, d) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(
    out: *mut Array3DDescriptor,
    a: Handle,
) -> CUresult {
    entry(
        "cuArray3DGetDescriptor_v2",
        format_args!("out={out:#x?} a={a:#x?}"),
        || {
            crate::device::check_init()?;
            let arr = ARRAYS.get(id(a))?;
            let [width, height, depth] = created_extent(&arr);
            let d = Array3DDescriptor {
                width,
                height,
                depth,
                format: arr.cu_format,
                channels: arr.format.channels,
                flags: arr.flags,
            };
            // SAFETY: NULL or writable.
            unsafe { put(out, d) }
        },
    )
}

/// The byte range `[offset, offset + len)` of an array's texels.
fn range(texels: &[u8], offset: usize, len: usize) -> CuResult<std::ops::Range<usize>> {
    let end = offset.checked_add(len).filter(|&e| e <= texels.len());
    end.map(|e| offset..e)
        .ok_or_else(|| CuError::invalid(format!("{len} bytes at {offset} run past the array")))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoA_v2(
    a: Handle,
    offset: usize,
    src: *const c_void,
    n: usize,
) -> CUresult {
    entry(
        "cuMemcpyHtoA_v2",
        format_args!("a={a:#x?} offset={offset} src={src:#x?} n={n}"),
        || {
            crate::context::current()?;
            let arr = ARRAYS.get(id(a))?;
            // SAFETY: readable for `n` bytes by the caller's contract.
            let data = unsafe { bytes(src, n) }?;
            {
                let mut texels = arr.texels();
                let r = range(&texels, offset, n)?;
                texels[r].copy_from_slice(data);
            }
            arr.refill()
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyAtoH_v2(
    dst: *mut c_void,
    a: Handle,
    offset: usize,
    n: usize,
) -> CUresult {
    entry(
        "cuMemcpyAtoH_v2",
        format_args!("dst={dst:#x?} a={a:#x?} offset={offset} n={n}"),
        || {
            crate::context::current()?;
            let arr = ARRAYS.get(id(a))?;
            // SAFETY: writable for `n` bytes by the caller's contract.
            let out = unsafe { bytes_mut(dst, n) }?;
            let texels = arr.texels();
            out.copy_from_slice(&texels[range(&texels, offset, n)?]);
            Ok(())
        },
    )
}

/// `CUDA_RESOURCE_DESC`: the type, a 128-byte union whose first member is the array handle
/// for CU_RESOURCE_TYPE_ARRAY, and flags.
#[repr(C)]
pub struct ResourceDesc {
    kind: c_uint,
    res: [u64; 16],
    flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
pub struct TextureDescriptor {
    address: [c_uint; 3],
    filter: c_uint,
    flags: c_uint,
    max_anisotropy: c_uint,
    mip_filter: c_uint,
    mip_bias: f32,
    min_mip_clamp: f32,
    max_mip_clamp: f32,
    border: [f32; 4],
    reserved: [i32; 12],
}

const RESOURCE_TYPE_ARRAY: c_uint = 0;
const RESOURCE_TYPE_LINEAR: c_uint = 2;
const RESOURCE_TYPE_PITCH2D: c_uint = 3;
/// `CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`, which pitched resources' rows follow.
const TEXTURE_PITCH_ALIGNMENT: u64 = 32;
const TRSF_READ_AS_INTEGER: c_uint = 0x1;
const TRSF_NORMALIZED_COORDINATES: c_uint = 0x2;

fn address_mode(m: c_uint) -> CuResult<AddressMode> {
    // CU_TR_ADDRESS_MODE_WRAP, CLAMP, MIRROR, BORDER.
    Ok(match m {
        0 => AddressMode::Wrap,
        1 => AddressMode::ClampToEdge,
        2 => AddressMode::Mirror,
        3 => AddressMode::ClampToBorder,
        m => return Err(CuError::invalid(format!("address mode {m}"))),
    })
}

fn filter_mode(m: c_uint) -> CuResult<FilterMode> {
    match m {
        0 => Ok(FilterMode::Nearest),
        1 => Ok(FilterMode::Linear),
        m => Err(CuError::invalid(format!("filter mode {m}"))),
    }
}

/// The sampling a texture descriptor asks for, applied to a texture of the resource's
/// shape. Integer formats read as normalized floats unless CU_TRSF_READ_AS_INTEGER, as in
/// CUDA.
fn sampling(
    t: &TextureDescriptor,
    fetch_only: bool,
) -> CuResult<impl FnOnce(TextureDesc) -> TextureDesc> {
    let address = [
        address_mode(t.address[0])?,
        address_mode(t.address[1])?,
        address_mode(t.address[2])?,
    ];
    // `tex1Dfetch` neither filters nor addresses: linear memory takes point sampling.
    let filter = if fetch_only {
        FilterMode::Nearest
    } else {
        filter_mode(t.filter)?
    };
    let read = if t.flags & TRSF_READ_AS_INTEGER != 0 {
        ReadMode::ElementType
    } else {
        ReadMode::NormalizedFloat
    };
    let normalized = t.flags & TRSF_NORMALIZED_COORDINATES != 0 && !fetch_only;
    Ok(move |d: TextureDesc| {
        let float = d.format.kind == ptxvk_runtime::ChannelKind::Float || d.format.bits == 32;
        // Dimensions the texture lacks take no address mode, and wrap and mirror apply to
        // normalized coordinates only: CUDA clamps otherwise, and so does this.
        let dims = match d.shape {
            TextureShape::D1 { .. } => 1,
            TextureShape::D2 { .. } => 2,
            _ => 3,
        };
        let mut address = address;
        for (i, m) in address.iter_mut().enumerate() {
            let needs_normalized = matches!(m, AddressMode::Wrap | AddressMode::Mirror);
            if i >= dims || (needs_normalized && !normalized) {
                *m = AddressMode::ClampToEdge;
            }
        }
        let d = d
            .address_modes(address)
            .filter(filter)
            .normalized(normalized);
        // 32-bit integers and floats have no normalized reading.
        if float { d } else { d.read_mode(read) }
    })
}

fn extent(v: u64, what: &str) -> CuResult<u32> {
    u32::try_from(v)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| CuError::invalid(format!("{what} {v}")))
}

/// A texture object over linear (`res`: devPtr, format and channels, bytes) or pitched 2D
/// memory (devPtr, format and channels, width, height, pitch).
fn memory_object(r: &ResourceDesc, t: &TextureDescriptor) -> CuResult<u64> {
    let linear = r.kind == RESOURCE_TYPE_LINEAR;
    let format = (r.res[1] as u32, (r.res[1] >> 32) as u32);
    let texel = texture::texel_bytes(format)?;
    let layout = if linear {
        let bytes = r.res[2];
        // CUDA refuses more elements than CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH.
        let width = bytes / texel;
        if width > u64::from(ptxvk_runtime::MAX_LINEAR_WIDTH) {
            return Err(CuError::invalid(format!(
                "{width} elements of linear memory (at most {})",
                ptxvk_runtime::MAX_LINEAR_WIDTH
            )));
        }
        texture::MemoryLayout {
            ptr: r.res[0],
            format,
            extent: [extent(width, "linear texture elements")?, 0],
            pitch: None,
        }
    } else {
        let pitch = r.res[4];
        if pitch % TEXTURE_PITCH_ALIGNMENT != 0 || pitch > texture::MAX_PITCH {
            return Err(CuError::invalid(format!(
                "pitch {pitch}: a multiple of the texture pitch alignment {TEXTURE_PITCH_ALIGNMENT} up to {} bytes",
                texture::MAX_PITCH
            )));
        }
        texture::MemoryLayout {
            ptr: r.res[0],
            format,
            extent: [extent(r.res[2], "width")?, extent(r.res[3], "height")?],
            pitch: Some(pitch),
        }
    };
    let mut res = [0u64; 5];
    res.copy_from_slice(&r.res[..5]);
    let source = texture::Source::Memory { kind: r.kind, res };
    texture::create_memory_object(&layout, source, sampling(t, linear)?)
}

/// Texture objects over arrays, linear memory (read by `tex1Dfetch`) and pitched 2D memory
/// (refreshed from the memory at each launch that reads it); resource views are not
/// supported yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectCreate(
    out: *mut u64,
    res: *const ResourceDesc,
    tex: *const TextureDescriptor,
    view: *const c_void,
) -> CUresult {
    entry(
        "cuTexObjectCreate",
        format_args!("out={out:#x?} res={res:#x?} tex={tex:#x?} view={view:#x?}"),
        || {
            crate::context::current()?;
            // SAFETY: NULL or valid descriptors by the caller's contract.
            let (r, t) = unsafe { (res.as_ref(), tex.as_ref()) };
            let (Some(r), Some(t)) = (r, t) else {
                return Err(CuError::invalid("resource or texture descriptor is NULL"));
            };
            if !view.is_null() {
                return Err(CuError::NotSupported("resource views".into()));
            }
            let h = match r.kind {
                RESOURCE_TYPE_ARRAY => {
                    texture::create_object(r.res[0] as usize, sampling(t, false)?)?
                }
                RESOURCE_TYPE_LINEAR | RESOURCE_TYPE_PITCH2D => memory_object(r, t)?,
                k => {
                    return Err(CuError::NotSupported(format!(
                        "texture resources of type {k}"
                    )));
                }
            };
            if out.is_null() {
                texture::destroy_object(h)?;
                return Err(CuError::invalid("pTexObject is NULL"));
            }
            // SAFETY: non-NULL and writable.
            unsafe { put(out, h) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectDestroy(t: u64) -> CUresult {
    entry("cuTexObjectDestroy", format_args!("tex={t:#x}"), || {
        crate::device::check_init()?;
        texture::destroy_object(t)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(out: *mut ResourceDesc, t: u64) -> CUresult {
    entry(
        "cuTexObjectGetResourceDesc",
        format_args!("out={out:#x?} tex={t:#x}"),
        || {
            crate::device::check_init()?;
            let mut res = [0u64; 16];
            let kind = match texture::object_source(t)? {
                texture::Source::Array(array) => {
                    res[0] = handle(array) as u64;
                    RESOURCE_TYPE_ARRAY
                }
                texture::Source::Memory { kind, res: r } => {
                    res[..5].copy_from_slice(&r);
                    kind
                }
            };
            // SAFETY: NULL or writable.
            unsafe {
                put(
                    out,
                    ResourceDesc {
                        kind,
                        res,
                        flags: 0,
                    },
                )
            }
        },
    )
}
