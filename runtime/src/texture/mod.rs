//! Textures: Vulkan images with their sampler state, usable by kernels as CUDA texture objects
//! (a `u64` handle passed as an argument) or bound to a module's `.texref` variables.
//!
//! Each launch of a kernel that reads textures gets descriptor set 0 with one combined image
//! sampler per binding the translator asked for (`ptxvk_translator::texture`), and a record per
//! texture in its parameter block (sizes, format, sampler state) for `txq` and for the
//! coordinate handling Vulkan's samplers cannot do.

pub(crate) mod bind;
mod desc;
mod inner;
mod memory;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use ptxvk_translator::texture::FilterMode;

pub use desc::{ChannelFormat, ChannelKind, CompareOp, ReadMode, TextureDesc, TextureShape};
pub use memory::MAX_LINEAR_WIDTH;

use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::memory::raw::{Place, RawBuffer};

/// A texture in device memory with its sampler state (`cudaTextureObject_t` with its
/// `cudaArray`). Cheap to clone; kernels receive it as an argument (`(&tex).into()`, which
/// passes its [`Texture::handle`] and keeps it alive until the launch completes) or through
/// [`crate::Module::bind_texref`].
///
/// ```no_run
/// use ptxvk_runtime::*;
/// let ctx = Context::new(&ContextOptions::from_env())?;
/// let tex = Texture::new(&ctx, &TextureDesc::new(
///     TextureShape::D2 { width: 4, height: 4 },
///     ChannelFormat::new(ChannelKind::Float, 32, 1),
/// ).filter(FilterMode::Linear))?;
/// tex.copy_from_host(0, &[1.0f32; 16])?;
/// // kernel.launch(&cfg, &[(&tex).into(), (&out).into()])?;
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone)]
pub struct Texture {
    pub(crate) inner: Arc<TextureInner>,
    ctx: Context,
}

impl std::fmt::Debug for Texture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Texture({}, {:?})",
            self.inner.handle, self.inner.desc.shape
        )
    }
}

pub(crate) struct TextureInner {
    vk: Arc<Vk>,
    pub handle: u64,
    pub desc: TextureDesc,
    image: vk::Image,
    allocation: Mutex<Option<Allocation>>,
    aspect: vk::ImageAspectFlags,
    /// Views: all levels, or level 0 only.
    views: Mutex<HashMap<bool, vk::ImageView>>,
    samplers: Mutex<HashMap<SamplerKey, vk::Sampler>>,
    /// The device memory a texture over linear or pitched memory reads.
    pub memory: Option<memory::Memory>,
}

/// The sampler state a binding needs (`bind.rs` derives it from the texture and the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SamplerKey {
    pub filter: FilterMode,
    pub address: [vk::SamplerAddressMode; 3],
    pub normalized: bool,
    pub compare: bool,
    pub base_level: bool,
}

/// Live textures by handle, so that a raw `u64` argument can name one.
fn registry() -> &'static Mutex<HashMap<u64, Weak<TextureInner>>> {
    static R: OnceLock<Mutex<HashMap<u64, Weak<TextureInner>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Handles start at 1, as CUDA's texture objects do (0 names no texture).
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);

impl Texture {
    /// Creates a texture, zero-filled, after checking the description against what CUDA
    /// allows and the device can sample.
    pub fn new(ctx: &Context, desc: &TextureDesc) -> Result<Texture> {
        Self::create(ctx, desc, None)
    }

    fn create(
        ctx: &Context,
        desc: &TextureDesc,
        memory: Option<memory::Memory>,
    ) -> Result<Texture> {
        ctx.check_lost()?;
        desc.check()?;
        let vk = ctx.vk();
        let info = ctx.info();
        let format = desc.vk_format();
        // Shaders read linear memory themselves; the image only fills the binding.
        let [w, h, d] = match memory {
            Some(memory::Memory::Linear { .. }) => [1, 1, 1],
            _ => desc.shape.extent(),
        };
        let layers = desc.shape.layers();
        let cube = matches!(
            desc.shape,
            TextureShape::Cube { .. } | TextureShape::CubeLayered { .. }
        );
        let image_type = match desc.shape {
            TextureShape::D1 { .. } | TextureShape::Layered1D { .. } => vk::ImageType::TYPE_1D,
            TextureShape::D3 { .. } => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        };
        if matches!(desc.shape, TextureShape::CubeLayered { .. }) && !info.image_cube_array {
            return Err(Error::Unsupported {
                what: format!(
                    "cubemap-array textures on `{}` (no imageCubeArray)",
                    info.name
                ),
            });
        }
        let usage = vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC;
        let flags = if cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        };
        // What the device can hold and filter.
        let instance = &vk.instance.instance;
        // SAFETY: valid physical device of this instance.
        let limits = unsafe {
            instance.get_physical_device_image_format_properties(
                info.physical,
                format,
                image_type,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
        }
        .map_err(|_| Error::Unsupported {
            what: format!(
                "{:?} textures of format {format:?} on `{}`",
                desc.shape, info.name
            ),
        })?;
        let e = limits.max_extent;
        if w > e.width || h > e.height || d > e.depth || layers > limits.max_array_layers {
            return Err(Error::Unsupported {
                what: format!(
                    "a {:?} texture on `{}` (at most {}x{}x{}, {} layers)",
                    desc.shape, info.name, e.width, e.height, e.depth, limits.max_array_layers
                ),
            });
        }
        // SAFETY: as above.
        let features =
            unsafe { instance.get_physical_device_format_properties(info.physical, format) }
                .optimal_tiling_features;
        let linear = desc.filter == FilterMode::Linear || desc.mip_filter == FilterMode::Linear;
        if linear && !features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR) {
            return Err(Error::Unsupported {
                what: format!("linear filtering of format {format:?} on `{}`", info.name),
            });
        }
        let image_info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(image_type)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: d,
            })
            .mip_levels(desc.mip_levels)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let dev = &vk.device;
        // SAFETY: valid device and create info (checked against the format's limits above).
        let image = unsafe { dev.create_image(&image_info, None) }
            .map_err(|e| vk.error("vkCreateImage", e))?;
        // SAFETY: the image was just created on this device.
        let requirements = unsafe { dev.get_image_memory_requirements(image) };
        let allocation =
            vk.allocator
                .lock()
                .map_err(|_| Error::DeviceLost)
                .and_then(|mut a| match a.as_mut() {
                    Some(a) => a
                        .allocate(&AllocationCreateDesc {
                            name: "ptxvk texture",
                            requirements,
                            location: MemoryLocation::GpuOnly,
                            linear: false,
                            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                        })
                        .map_err(|e| match e {
                            gpu_allocator::AllocationError::OutOfMemory => {
                                Error::OutOfDeviceMemory {
                                    bytes: requirements.size,
                                }
                            }
                            other => Error::Allocation(other.to_string()),
                        }),
                    None => Err(Error::DeviceLost),
                });
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the image has no memory and is not used.
                unsafe { dev.destroy_image(image, None) };
                return Err(e);
            }
        };
        let aspect = if desc.depth_compare.is_some() {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the allocation satisfies the image's requirements.
        let bound =
            unsafe { dev.bind_image_memory(image, allocation.memory(), allocation.offset()) };
        let inner = Arc::new(TextureInner {
            vk: vk.clone(),
            handle,
            desc: *desc,
            image,
            allocation: Mutex::new(Some(allocation)),
            aspect,
            views: Mutex::new(HashMap::new()),
            samplers: Mutex::new(HashMap::new()),
            memory,
        });
        bound.map_err(|e| vk.error("vkBindImageMemory", e))?;
        if let Ok(mut r) = registry().lock() {
            r.retain(|_, w| w.strong_count() > 0);
            r.insert(handle, Arc::downgrade(&inner));
        }
        let tex = Texture {
            inner,
            ctx: ctx.clone(),
        };
        tex.clear()?;
        Ok(tex)
    }

    /// The value a kernel's `.u64` texture parameter receives (a `cudaTextureObject_t`).
    pub fn handle(&self) -> u64 {
        self.inner.handle
    }

    /// The description it was created from.
    pub fn desc(&self) -> &TextureDesc {
        &self.inner.desc
    }

    /// The texture a handle names, if it is alive in this context.
    pub(crate) fn from_handle(ctx: &Context, handle: u64) -> Option<Texture> {
        let inner = registry().lock().ok()?.get(&handle)?.upgrade()?;
        Arc::ptr_eq(&inner.vk, ctx.vk()).then(|| Texture {
            inner,
            ctx: ctx.clone(),
        })
    }

    /// Bytes of mip level `level` with every layer: texels with x fastest, then y, then z
    /// (3D) or layer (layered and cubemap textures, faces in the order +x, -x, +y, -y, +z, -z).
    pub fn level_bytes(&self, level: u32) -> u64 {
        let [w, h, d] = self.inner.desc.shape.level_extent(level);
        u64::from(w)
            * u64::from(h)
            * u64::from(d)
            * u64::from(self.inner.desc.shape.layers())
            * u64::from(self.inner.desc.format.texel_bytes())
    }

    /// Replaces mip level `level` (every layer) with `data` (laid out as [`Self::level_bytes`]
    /// says), after all queued work, and waits for the copy (`cudaMemcpy3D` to an array).
    pub fn upload(&self, level: u32, data: &[u8]) -> Result<()> {
        let d = &self.inner.desc;
        if self.inner.memory.is_some() {
            return Err(Error::InvalidArgument(
                "a texture over device memory reads that memory; write it instead".into(),
            ));
        }
        if level >= d.mip_levels {
            return Err(Error::InvalidArgument(format!(
                "the texture has {} mip level(s); level {level} does not exist",
                d.mip_levels
            )));
        }
        let need = self.level_bytes(level);
        if data.len() as u64 != need {
            return Err(Error::BufferTooSmall {
                what: format!("upload of texture level {level}"),
                have: data.len() as u64,
                need,
            });
        }
        let ctx = &self.ctx;
        let staging = Arc::new(RawBuffer::new(&self.inner.vk, need, Place::Upload)?);
        staging.write_mapped(0, data)?;
        let [w, h, depth] = d.shape.level_extent(level);
        let inner = self.inner.clone();
        ctx.on_default(|core| {
            core.record(|r| {
                let range = inner.range(level, 1);
                inner.transition(r, range, false);
                let region = vk::BufferImageCopy::default()
                    .buffer_offset(0)
                    .image_subresource(vk::ImageSubresourceLayers {
                        aspect_mask: inner.aspect,
                        mip_level: level,
                        base_array_layer: 0,
                        layer_count: d.shape.layers(),
                    })
                    .image_extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth,
                    });
                // SAFETY: recording into the stream's open command buffer; the image is in
                // TRANSFER_DST_OPTIMAL (above) and both objects are kept until completion.
                unsafe {
                    r.dev.cmd_copy_buffer_to_image(
                        r.cb,
                        staging.handle(),
                        inner.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[region],
                    )
                };
                inner.transition(r, range, true);
                r.keep(staging.clone());
                r.keep(inner.clone());
                Ok(())
            })
            .map(|_| ())
        })
    }

    /// [`Self::upload`] from typed texels (`f32`, `[u8; 4]`, `half::f16`, ...).
    pub fn copy_from_host<T: bytemuck::Pod>(&self, level: u32, data: &[T]) -> Result<()> {
        self.upload(level, bytemuck::cast_slice(data))
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Zeros every level and leaves the image ready for sampling.
    fn clear(&self) -> Result<()> {
        let inner = self.inner.clone();
        self.ctx.on_default(|core| {
            core.record(|r| {
                let range = inner.range(0, inner.desc.mip_levels);
                inner.barrier(
                    r,
                    range,
                    (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty()),
                    (
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        vk::AccessFlags::TRANSFER_WRITE,
                    ),
                );
                // SAFETY: recording into the stream's open command buffer; the image is in
                // TRANSFER_DST_OPTIMAL and kept until completion.
                unsafe {
                    if inner.aspect == vk::ImageAspectFlags::DEPTH {
                        r.dev.cmd_clear_depth_stencil_image(
                            r.cb,
                            inner.image,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            &vk::ClearDepthStencilValue::default(),
                            &[range],
                        );
                    } else {
                        r.dev.cmd_clear_color_image(
                            r.cb,
                            inner.image,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            &vk::ClearColorValue::default(),
                            &[range],
                        );
                    }
                }
                inner.transition(r, range, true);
                r.keep(inner.clone());
                Ok(())
            })
            .map(|_| ())
        })
    }
}

impl Drop for TextureInner {
    fn drop(&mut self) {
        if let Ok(mut r) = registry().lock() {
            r.remove(&self.handle);
        }
        if self.vk.is_lost() {
            // The device may still use it; leak rather than free.
            return;
        }
        let dev = &self.vk.device;
        // SAFETY: work that samples the texture holds an `Arc` of it until it completes, so
        // nothing uses these objects any more.
        unsafe {
            if let Ok(s) = self.samplers.lock() {
                for s in s.values() {
                    dev.destroy_sampler(*s, None);
                }
            }
            if let Ok(v) = self.views.lock() {
                for v in v.values() {
                    dev.destroy_image_view(*v, None);
                }
            }
            dev.destroy_image(self.image, None);
        }
        if let (Ok(mut a), Ok(mut guard)) = (self.allocation.lock(), self.vk.allocator.lock())
            && let (Some(a), Some(allocator)) = (a.take(), guard.as_mut())
        {
            let _ = allocator.free(a);
        }
    }
}
