//! CUDA arrays and texture objects over the runtime's textures. An array keeps its texels on
//! the host (copies to and from it are host copies); a texture object is a runtime texture
//! made from an array's texels with the object's sampling, and refilled whenever the array
//! is written, so that every object of an array sees its current contents. The object's
//! handle is the runtime texture's, which kernels receive in their `.u64` parameters.
//! Objects over linear and pitched device memory are the runtime's textures over that
//! memory's buffer (`ptxvk_runtime::Texture::over_linear`, `over_pitched`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use ptxvk_runtime::{ChannelFormat, ChannelKind, Texture, TextureDesc, TextureShape};

use crate::context::{self, Ctx};
use crate::error::{CuError, CuResult};
use crate::handles::Table;

pub struct Arr {
    pub ctx_id: usize,
    ctx: Arc<Ctx>,
    pub shape: TextureShape,
    pub format: ChannelFormat,
    /// `CUarray_format` and channel count as created, for the descriptor queries.
    pub cu_format: u32,
    pub flags: u32,
    texels: Mutex<Vec<u8>>,
    /// Texture objects reading this array (their handles).
    objects: Mutex<Vec<u64>>,
}

pub static ARRAYS: Table<Arr> = Table::new("array");

/// What a texture object reads.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// An array (its id).
    Array(usize),
    /// Device memory: the `CUresourcetype` and the first words of the resource union as
    /// given, for `cuTexObjectGetResourceDesc`.
    Memory { kind: u32, res: [u64; 5] },
}

/// A texture object: the runtime texture, what it reads, its context.
type Object = (Texture, Source, usize);

/// Texture objects by handle.
static OBJECTS: Mutex<BTreeMap<u64, Object>> = Mutex::new(BTreeMap::new());

fn objects() -> MutexGuard<'static, BTreeMap<u64, Object>> {
    OBJECTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// `CUarray_format` → the runtime's channel format.
fn channel_format(format: u32, channels: u32) -> CuResult<ChannelFormat> {
    let (kind, bits) = match format {
        0x01 => (ChannelKind::Unsigned, 8),
        0x02 => (ChannelKind::Unsigned, 16),
        0x03 => (ChannelKind::Unsigned, 32),
        0x08 => (ChannelKind::Signed, 8),
        0x09 => (ChannelKind::Signed, 16),
        0x0a => (ChannelKind::Signed, 32),
        0x10 => (ChannelKind::Float, 16),
        0x20 => (ChannelKind::Float, 32),
        f => return Err(CuError::NotSupported(format!("array format {f:#x}"))),
    };
    if !matches!(channels, 1 | 2 | 4) {
        return Err(CuError::invalid(format!("{channels} channels")));
    }
    Ok(ChannelFormat::new(kind, bits, channels))
}

/// Bytes per texel of a (`CUarray_format`, channels).
pub fn texel_bytes(format: (u32, u32)) -> CuResult<u64> {
    Ok(u64::from(channel_format(format.0, format.1)?.texel_bytes()))
}

/// `cuArrayCreate`/`cuArray3DCreate`: 1D (height 0), 2D (depth 0) or 3D; layered, cubemap
/// and surface arrays are not supported yet.
pub fn create(extent: [usize; 3], (format, channels): (u32, u32), flags: u32) -> CuResult<usize> {
    let (ctx_id, ctx) = context::current()?;
    if flags != 0 {
        return Err(CuError::NotSupported(format!("array flags {flags:#x}")));
    }
    let dim = |v: usize| u32::try_from(v).map_err(|_| CuError::invalid("array extent"));
    let shape = match extent.map(dim) {
        [Ok(0), ..] => return Err(CuError::invalid("an array of width 0")),
        [Ok(width), Ok(0), Ok(0)] => TextureShape::D1 { width },
        [Ok(width), Ok(height), Ok(0)] => TextureShape::D2 { width, height },
        [Ok(width), Ok(height), Ok(depth)] if height > 0 => TextureShape::D3 {
            width,
            height,
            depth,
        },
        _ => return Err(CuError::invalid(format!("array extent {extent:?}"))),
    };
    let fmt = channel_format(format, channels)?;
    let [w, h, d] = shape.extent().map(|v| v as usize);
    let bytes = w * h * d * fmt.texel_bytes() as usize;
    let (id, _) = ARRAYS.insert(Arr {
        ctx_id,
        ctx,
        shape,
        format: fmt,
        cu_format: format,
        flags,
        texels: Mutex::new(vec![0; bytes]),
        objects: Mutex::new(Vec::new()),
    });
    Ok(id)
}

impl Arr {
    /// Bytes per row.
    pub fn pitch(&self) -> usize {
        self.shape.extent()[0] as usize * self.format.texel_bytes() as usize
    }

    /// Bytes per 2D slice.
    pub fn slice(&self) -> usize {
        self.pitch() * self.shape.extent()[1] as usize
    }

    /// The texels, locked for a copy; `refill` after writing them.
    pub fn texels(&self) -> MutexGuard<'_, Vec<u8>> {
        self.texels.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Uploads the texels to every texture object of the array.
    pub fn refill(&self) -> CuResult<()> {
        let texels = self.texels();
        let handles = self
            .objects
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let objs = objects();
        for h in handles {
            if let Some((t, ..)) = objs.get(&h) {
                t.upload(0, &texels)?;
            }
        }
        Ok(())
    }
}

/// `cuArrayDestroy`: CUDA refuses while texture objects read the array; here they keep their
/// texels, so it is allowed.
pub fn destroy(id: usize) -> CuResult<()> {
    ARRAYS.remove(id).map(drop)
}

/// `cuTexObjectCreate` over an array with `desc`'s sampling.
pub fn create_object(
    array_id: usize,
    sampling: impl FnOnce(TextureDesc) -> TextureDesc,
) -> CuResult<u64> {
    let arr = ARRAYS.get(array_id)?;
    let desc = sampling(TextureDesc::new(arr.shape, arr.format));
    let t = Texture::new(&arr.ctx.rt, &desc)?;
    t.upload(0, &arr.texels())?;
    let handle = t.handle();
    objects().insert(handle, (t, Source::Array(array_id), arr.ctx_id));
    arr.objects
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(handle);
    Ok(handle)
}

/// The largest pitch of a texture over pitched memory
/// (`CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH`): what NVIDIA's devices report, since
/// the copy into the image has no limit of its own.
pub const MAX_PITCH: u64 = (1 << 21) - 32;

/// The layout of a texture object over device memory: linear (`pitch` None, `extent[1]` 0)
/// or pitched 2D.
pub struct MemoryLayout {
    pub ptr: u64,
    pub format: (u32, u32),
    pub extent: [u32; 2],
    pub pitch: Option<u64>,
}

/// `cuTexObjectCreate` over linear or pitched device memory with `desc`'s sampling.
pub fn create_memory_object(
    layout: &MemoryLayout,
    source: Source,
    sampling: impl FnOnce(TextureDesc) -> TextureDesc,
) -> CuResult<u64> {
    let (ctx_id, ctx) = context::current()?;
    let fmt = channel_format(layout.format.0, layout.format.1)?;
    let [width, height] = layout.extent;
    let (shape, bytes) = match layout.pitch {
        None => (
            TextureShape::D1 { width },
            u64::from(width) * u64::from(fmt.texel_bytes()),
        ),
        Some(pitch) => (
            TextureShape::D2 { width, height },
            pitch * u64::from(height.saturating_sub(1))
                + u64::from(width) * u64::from(fmt.texel_bytes()),
        ),
    };
    let place = ctx.memory.resolve(layout.ptr, bytes)?;
    let desc = sampling(TextureDesc::new(shape, fmt));
    let buffer = place.buffer()?;
    let t = match layout.pitch {
        None => Texture::over_linear(buffer, place.offset, &desc),
        Some(pitch) => Texture::over_pitched(buffer, place.offset, pitch, &desc),
    }?;
    let handle = t.handle();
    objects().insert(handle, (t, source, ctx_id));
    Ok(handle)
}

pub fn destroy_object(handle: u64) -> CuResult<()> {
    let (_, source, _) = objects()
        .remove(&handle)
        .ok_or(CuError::InvalidHandle("texture object"))?;
    if let Source::Array(array_id) = source
        && let Ok(arr) = ARRAYS.get(array_id)
    {
        arr.objects
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|&h| h != handle);
    }
    Ok(())
}

/// What a texture object reads.
pub fn object_source(handle: u64) -> CuResult<Source> {
    objects()
        .get(&handle)
        .map(|(_, s, _)| *s)
        .ok_or(CuError::InvalidHandle("texture object"))
}

/// Arrays and texture objects of a destroyed context.
pub fn forget_context(ctx_id: usize) {
    ARRAYS.remove_where(|a| a.ctx_id == ctx_id);
    objects().retain(|_, (_, _, c)| *c != ctx_id);
}
