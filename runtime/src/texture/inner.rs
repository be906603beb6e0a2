//! A texture's Vulkan objects after creation: the image's subresource ranges and layout
//! transitions, its views and samplers (made on first use and kept), and the record a kernel
//! reads for `txq` and the coordinate handling.

use ash::vk;
use ptxvk_translator::texture::{FilterMode, record};

use super::{SamplerKey, TextureInner, TextureShape, desc};
use crate::error::{Error, Result};

impl TextureInner {
    pub(super) fn range(&self, level: u32, levels: u32) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspect,
            base_mip_level: level,
            level_count: levels,
            base_array_layer: 0,
            layer_count: self.desc.shape.layers(),
        }
    }

    /// Between sampling (`SHADER_READ_ONLY_OPTIMAL`) and copying into (`TRANSFER_DST_OPTIMAL`).
    pub(super) fn transition(
        &self,
        r: &mut crate::stream::Recorder<'_>,
        range: vk::ImageSubresourceRange,
        to_shader: bool,
    ) {
        let read = (
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            vk::AccessFlags::SHADER_READ,
        );
        let write = (
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::AccessFlags::TRANSFER_WRITE,
        );
        if to_shader {
            self.barrier(r, range, write, read);
        } else {
            self.barrier(r, range, read, write);
        }
    }

    pub(super) fn barrier(
        &self,
        r: &mut crate::stream::Recorder<'_>,
        range: vk::ImageSubresourceRange,
        from: (vk::ImageLayout, vk::AccessFlags),
        to: (vk::ImageLayout, vk::AccessFlags),
    ) {
        let b = vk::ImageMemoryBarrier::default()
            .old_layout(from.0)
            .new_layout(to.0)
            .src_access_mask(from.1)
            .dst_access_mask(to.1)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(self.image)
            .subresource_range(range);
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        // SAFETY: recording into the stream's open command buffer; the image is alive.
        unsafe {
            r.dev.cmd_pipeline_barrier(
                r.cb,
                stages | vk::PipelineStageFlags::TOP_OF_PIPE,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            )
        };
    }

    /// A view of every level, or of level 0 only.
    pub(crate) fn view(&self, base_level: bool) -> Result<vk::ImageView> {
        let mut views = self.views.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(v) = views.get(&base_level) {
            return Ok(*v);
        }
        let view_type = match self.desc.shape {
            TextureShape::D1 { .. } => vk::ImageViewType::TYPE_1D,
            TextureShape::D2 { .. } => vk::ImageViewType::TYPE_2D,
            TextureShape::D3 { .. } => vk::ImageViewType::TYPE_3D,
            TextureShape::Layered1D { .. } => vk::ImageViewType::TYPE_1D_ARRAY,
            TextureShape::Layered2D { .. } => vk::ImageViewType::TYPE_2D_ARRAY,
            TextureShape::Cube { .. } => vk::ImageViewType::CUBE,
            TextureShape::CubeLayered { .. } => vk::ImageViewType::CUBE_ARRAY,
        };
        let levels = if base_level { 1 } else { self.desc.mip_levels };
        let info = vk::ImageViewCreateInfo::default()
            .image(self.image)
            .view_type(view_type)
            .format(self.desc.vk_format())
            .subresource_range(self.range(0, levels));
        // SAFETY: a view of our own image, compatible with its type and format.
        let v = unsafe { self.vk.device.create_image_view(&info, None) }
            .map_err(|e| self.vk.error("vkCreateImageView", e))?;
        views.insert(base_level, v);
        Ok(v)
    }

    /// A sampler with the state of `key`.
    pub(crate) fn sampler(&self, key: SamplerKey) -> Result<vk::Sampler> {
        let mut samplers = self.samplers.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(s) = samplers.get(&key) {
            return Ok(*s);
        }
        let f = desc::vk_filter(key.filter);
        let mut info = vk::SamplerCreateInfo::default()
            .mag_filter(f)
            .min_filter(f)
            .address_mode_u(key.address[0])
            .address_mode_v(key.address[1])
            .address_mode_w(key.address[2])
            .border_color(
                if self.desc.sampled_kind() == ptxvk_translator::texture::SampledKind::Float {
                    vk::BorderColor::FLOAT_TRANSPARENT_BLACK
                } else {
                    vk::BorderColor::INT_TRANSPARENT_BLACK
                },
            )
            .unnormalized_coordinates(!key.normalized);
        if key.normalized {
            let levels = if key.base_level {
                0.0
            } else {
                self.desc.mip_levels as f32 - 1.0
            };
            info = info
                .mipmap_mode(match self.desc.mip_filter {
                    FilterMode::Nearest => vk::SamplerMipmapMode::NEAREST,
                    FilterMode::Linear => vk::SamplerMipmapMode::LINEAR,
                })
                .min_lod(0.0)
                .max_lod(levels);
        }
        if key.compare {
            let op = self
                .desc
                .depth_compare
                .map_or(vk::CompareOp::LESS_OR_EQUAL, |c| c.vk());
            info = info.compare_enable(true).compare_op(op);
        }
        // SAFETY: valid device and create info (unnormalized samplers get clamp modes and a
        // single level, as `bind.rs` arranges).
        let s = unsafe { self.vk.device.create_sampler(&info, None) }
            .map_err(|e| self.vk.error("vkCreateSampler", e))?;
        samplers.insert(key, s);
        Ok(s)
    }

    /// The record the kernel reads (`ptxvk_translator::texture::record`), as bytes.
    pub(crate) fn record_bytes(&self) -> [u8; record::BYTES as usize] {
        let mut out = [0u8; record::BYTES as usize];
        let mut words = self.desc.record();
        if let Some(m) = &self.memory {
            m.fill_record(&self.desc, &mut words);
        }
        for (k, w) in words.iter().enumerate() {
            out[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}
