//! Binding a launch's textures: which texture each slot of the kernel names (an argument or a
//! bound `.texref`), the records appended to the parameter block, and descriptor set 0.

use std::sync::{Arc, Mutex};

use ash::vk;
use ptxvk_translator::texture::{
    AddressMode, SampledKind, SamplerSource, TextureAbi, TextureBinding, TextureSource, record,
};

use super::{SamplerKey, Texture, TextureInner, desc};
use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::launch::KernelArg;

/// Descriptor sets kept per kernel for the textures recently launched with.
const CACHED_SETS: usize = 8;

/// A kernel's descriptor set layout, and the sets it was recently launched with.
pub(crate) struct KernelTextures {
    vk: Arc<Vk>,
    pub set_layout: vk::DescriptorSetLayout,
    sets: Mutex<Vec<(Vec<u64>, Arc<BoundSet>)>>,
}

impl KernelTextures {
    /// The set layout for `abi`'s bindings (none when the kernel reads no texture).
    pub fn new(vk: &Arc<Vk>, abi: &TextureAbi) -> Result<Option<KernelTextures>> {
        if abi.bindings.is_empty() {
            return Ok(None);
        }
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..abi.bindings.len() as u32)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid device and create info.
        let set_layout = unsafe { vk.device.create_descriptor_set_layout(&info, None) }
            .map_err(|e| vk.error("vkCreateDescriptorSetLayout", e))?;
        Ok(Some(KernelTextures {
            vk: vk.clone(),
            set_layout,
            sets: Mutex::new(Vec::new()),
        }))
    }
}

impl Drop for KernelTextures {
    fn drop(&mut self) {
        if !self.vk.is_lost() {
            // SAFETY: no set is updated with this layout any more (its kernel is going away);
            // sets still in flight stay valid without it.
            unsafe {
                self.vk
                    .device
                    .destroy_descriptor_set_layout(self.set_layout, None)
            };
        }
    }
}

/// A descriptor set (in a pool of its own) with the textures it refers to.
pub(crate) struct BoundSet {
    vk: Arc<Vk>,
    pool: vk::DescriptorPool,
    pub set: vk::DescriptorSet,
    _textures: Vec<Arc<TextureInner>>,
}

impl Drop for BoundSet {
    fn drop(&mut self) {
        if !self.vk.is_lost() {
            // SAFETY: launches that use the set keep it alive until they complete.
            unsafe { self.vk.device.destroy_descriptor_pool(self.pool, None) };
        }
    }
}

/// What a launch needs for its textures: the records to append to its parameter block (at
/// `TextureAbi`'s offsets) and the descriptor set to bind.
pub(crate) struct LaunchTextures {
    pub records_offset: usize,
    pub records: Vec<u8>,
    /// `None` when the kernel only queries its textures.
    pub set: Option<Arc<BoundSet>>,
    /// Textures over pitched memory to refresh before the launch, each once.
    pub pitched: Vec<Arc<TextureInner>>,
}

/// Resolves the textures of a launch of `kernel` (`abi`) with `args`, and `texrefs` (the
/// module's bound `.texref`s).
pub(crate) fn prepare(
    ctx: &Context,
    kernel_name: &str,
    abi: &TextureAbi,
    textures: Option<&KernelTextures>,
    args: &[KernelArg],
    texrefs: &Mutex<std::collections::HashMap<String, Texture>>,
) -> Result<Option<LaunchTextures>> {
    if abi.slots.is_empty() {
        return Ok(None);
    }
    let bad = |reason: String| Error::InvalidLaunch {
        kernel: kernel_name.to_string(),
        reason,
    };
    let mut slot_tex: Vec<Texture> = Vec::with_capacity(abi.slots.len());
    for slot in &abi.slots {
        let t = match &slot.source {
            TextureSource::Param { index, name } => match args.get(*index as usize) {
                Some(KernelArg::Texture(t)) => t.texture(ctx)?,
                Some(KernelArg::U64(h)) => Texture::from_handle(ctx, *h).ok_or_else(|| {
                    bad(format!(
                        "parameter `{name}` holds 0x{h:x}, which is no live texture of this context"
                    ))
                })?,
                _ => {
                    return Err(bad(format!(
                        "parameter `{name}` is read as a texture; pass a `Texture` (or its handle)"
                    )));
                }
            },
            TextureSource::TexRef { name } => texrefs
                .lock()
                .map_err(|_| Error::DeviceLost)?
                .get(name)
                .cloned()
                .ok_or_else(|| {
                    bad(format!(
                        "texture reference `{name}` is not bound (Module::bind_texref)"
                    ))
                })?,
        };
        slot_tex.push(t);
    }
    let records_offset = abi.slots.first().map_or(0, |s| s.record_offset) as usize;
    let mut records = vec![0u8; abi.records_bytes as usize];
    for (slot, t) in abi.slots.iter().zip(&slot_tex) {
        let at = slot.record_offset as usize - records_offset;
        records[at..at + record::BYTES as usize].copy_from_slice(&t.inner.record_bytes());
    }
    let Some(kt) = textures else {
        // Only queries (txq): no descriptors.
        return Ok(Some(LaunchTextures {
            records_offset,
            records,
            set: None,
            pitched: Vec::new(),
        }));
    };
    let mut pitched: Vec<Arc<TextureInner>> = Vec::new();
    for t in &slot_tex {
        if t.inner.is_pitched() && !pitched.iter().any(|p| Arc::ptr_eq(p, &t.inner)) {
            pitched.push(t.inner.clone());
        }
    }
    let key: Vec<u64> = slot_tex.iter().map(|t| t.handle()).collect();
    let cached = kt
        .sets
        .lock()
        .map_err(|_| Error::DeviceLost)?
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, s)| s.clone());
    let set = match cached {
        Some(s) => s,
        None => {
            let s = Arc::new(build_set(ctx, kernel_name, abi, kt, &slot_tex)?);
            let mut sets = kt.sets.lock().map_err(|_| Error::DeviceLost)?;
            if sets.len() >= CACHED_SETS {
                sets.remove(0);
            }
            sets.push((key, s.clone()));
            s
        }
    };
    Ok(Some(LaunchTextures {
        records_offset,
        records,
        set: Some(set),
        pitched,
    }))
}

/// Checks that `t` can be read the way `b` reads it.
fn compatible(kernel: &str, b: &TextureBinding, name: &str, t: &Texture) -> Result<()> {
    let d = t.desc();
    let bad = |what: String| {
        Err(Error::InvalidLaunch {
            kernel: kernel.to_string(),
            reason: format!("`{name}`: {what}"),
        })
    };
    if d.shape.geometry() != b.geometry {
        return bad(format!(
            "the kernel reads a .{} texture; the texture given is {:?}",
            b.geometry.name(),
            d.shape
        ));
    }
    let kind = d.sampled_kind();
    if !b.compare && kind != b.kind {
        let say = |k: SampledKind| match k {
            SampledKind::Float => "floats (.f32/.f16 results)",
            SampledKind::Sint => "signed integers (.s32 results)",
            SampledKind::Uint => "unsigned integers (.u32 results)",
        };
        return bad(format!(
            "the kernel reads {}; the texture holds {} ({:?}, {:?} reads)",
            say(b.kind),
            say(kind),
            d.format,
            d.read_mode
        ));
    }
    if b.compare && d.depth_compare.is_none() {
        return bad(
            "the kernel samples with depth compare; the texture has no compare operation (TextureDesc::depth_compare)".into(),
        );
    }
    Ok(())
}

fn slot_name(abi: &TextureAbi, slot: u32) -> String {
    match abi.slots.get(slot as usize).map(|s| &s.source) {
        Some(TextureSource::Param { name, .. }) | Some(TextureSource::TexRef { name }) => {
            name.clone()
        }
        None => format!("slot {slot}"),
    }
}

/// The sampler a binding uses: the texture's state (or the kernel's `.samplerref`), with
/// normalized coordinates where the translator needs them, and what Vulkan allows with
/// unnormalized ones (clamping, one level).
fn sampler_key(b: &TextureBinding, t: &Texture) -> SamplerKey {
    let d = t.desc();
    let (filter, address, mut normalized) = match b.sampler {
        SamplerSource::Texture => (d.filter, d.address, d.normalized_coords),
        SamplerSource::Static(s) => (
            s.filter,
            s.address,
            d.normalized_coords && !s.force_unnormalized,
        ),
    };
    if b.normalized_sampler || b.geometry.is_cube() {
        normalized = true;
    }
    // Integer texels cannot be filtered.
    let filter = if d.sampled_kind() == SampledKind::Float {
        filter
    } else {
        ptxvk_translator::texture::FilterMode::Nearest
    };
    let address = address.map(|a: AddressMode| desc::vk_address(a, normalized));
    SamplerKey {
        filter,
        address,
        normalized,
        compare: b.compare,
        base_level: b.base_level || !normalized,
    }
}

fn build_set(
    ctx: &Context,
    kernel: &str,
    abi: &TextureAbi,
    kt: &KernelTextures,
    slot_tex: &[Texture],
) -> Result<BoundSet> {
    let vk = ctx.vk();
    let n = abi.bindings.len() as u32;
    let sizes = [vk::DescriptorPoolSize::default()
        .ty(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .descriptor_count(n)];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes);
    // SAFETY: valid device and create info.
    let pool = unsafe { vk.device.create_descriptor_pool(&info, None) }
        .map_err(|e| vk.error("vkCreateDescriptorPool", e))?;
    let mut set = BoundSet {
        vk: vk.clone(),
        pool,
        set: vk::DescriptorSet::null(),
        _textures: slot_tex.iter().map(|t| t.inner.clone()).collect(),
    };
    let layouts = [kt.set_layout];
    let alloc = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(pool)
        .set_layouts(&layouts);
    // SAFETY: the pool has room for exactly this set.
    set.set = unsafe { vk.device.allocate_descriptor_sets(&alloc) }
        .map_err(|e| vk.error("vkAllocateDescriptorSets", e))?[0];
    let mut images = Vec::with_capacity(n as usize);
    for b in &abi.bindings {
        let t = &slot_tex[b.slot as usize];
        compatible(kernel, b, &slot_name(abi, b.slot), t)?;
        let key = sampler_key(b, t);
        images.push(
            vk::DescriptorImageInfo::default()
                .sampler(t.inner.sampler(key)?)
                .image_view(t.inner.view(key.base_level)?)
                .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
        );
    }
    let writes: Vec<vk::WriteDescriptorSet> = images
        .iter()
        .enumerate()
        .map(|(i, img)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set.set)
                .dst_binding(i as u32)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .image_info(std::slice::from_ref(img))
        })
        .collect();
    // SAFETY: the set is new and not in use; every view and sampler is alive (the set holds
    // its textures).
    unsafe { vk.device.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}
