//! Textures over device memory (CUDA's `cudaResourceTypeLinear` and `cudaResourceTypePitch2D`).
//!
//! Linear memory is read by `tex1Dfetch` only (integer coordinates, no filtering): the shader
//! loads and converts the texels from the buffer itself, told the address and layout by the
//! texture's record, and the texture's image is a one-texel stand-in for its binding.
//!
//! Pitched 2D memory is sampled like an array (filtering, addressing, normalized coordinates),
//! so it is an image that every launch reading it refreshes from the buffer first: one
//! buffer-to-image copy per texture per launch, on the launch's stream and ordered after the
//! work before it. Writes to the memory during a kernel are therefore not seen by that
//! kernel's fetches, which CUDA does not promise either (the texture cache is not coherent
//! within a kernel); writes by earlier work are.

use std::sync::Arc;

use ash::vk;
use ptxvk_translator::texture::record;

use super::{Texture, TextureDesc, TextureInner, TextureShape};
use crate::error::{Error, Result};
use crate::memory::Buffer;
use crate::memory::raw::RawBuffer;
use crate::stream::Recorder;

/// The most elements a texture over linear memory has (CUDA's
/// `maxTexture1DLinear` on current devices).
pub const MAX_LINEAR_WIDTH: u32 = 1 << 27;

/// Where a texture's texels are when they are in device memory.
pub(crate) enum Memory {
    /// Read by the shader at `address` (the buffer is kept while the texture is).
    Linear {
        _buffer: Arc<RawBuffer>,
        address: u64,
    },
    /// Copied into the image before each launch: rows `pitch` bytes apart from `offset`.
    Pitched {
        buffer: Arc<RawBuffer>,
        offset: u64,
        pitch: u64,
    },
}

impl Memory {
    /// The record words a shader reads linear memory by.
    pub fn fill_record(&self, desc: &TextureDesc, words: &mut [u32]) {
        if let Memory::Linear { address, .. } = self {
            words[record::LINEAR_ADDRESS as usize] = *address as u32;
            words[record::LINEAR_ADDRESS as usize + 1] = (*address >> 32) as u32;
            words[record::LINEAR_CHANNELS as usize] = desc.format.channels;
            words[record::LINEAR_CHANNEL_BYTES as usize] = desc.format.bits / 8;
        }
    }
}

fn invalid<T>(what: String) -> Result<T> {
    Err(Error::InvalidArgument(what))
}

/// Checks that `bytes` bytes at `offset` lie in `buffer`.
fn inside(buffer: &Buffer, offset: u64, bytes: u64) -> Result<()> {
    match offset.checked_add(bytes) {
        Some(end) if end <= buffer.size() => Ok(()),
        _ => invalid(format!(
            "{bytes} bytes at offset {offset} run past the buffer's {} bytes",
            buffer.size()
        )),
    }
}

impl Texture {
    /// A texture over linear memory: the `width` texels of `desc` (shape
    /// [`TextureShape::D1`]) at `offset` in `buffer`, read by integer-coordinate 1D fetches
    /// (`tex.1d.*.s32`, CUDA's `tex1Dfetch`) with zeros outside; `desc`'s filtering and
    /// addressing do not apply. The texture sees the buffer's contents at each fetch.
    pub fn over_linear(buffer: &Buffer, offset: u64, desc: &TextureDesc) -> Result<Texture> {
        desc.check()?;
        let TextureShape::D1 { width } = desc.shape else {
            return invalid(format!(
                "a texture over linear memory is 1D, not {:?}",
                desc.shape
            ));
        };
        if width > MAX_LINEAR_WIDTH {
            return invalid(format!(
                "a texture over linear memory has at most {MAX_LINEAR_WIDTH} texels, not {width}"
            ));
        }
        if desc.mip_levels != 1 || desc.depth_compare.is_some() {
            return invalid("a texture over linear memory has one level and no compare".into());
        }
        // The shader reads each channel from the aligned word that holds it.
        let channel = u64::from(desc.format.bits / 8);
        let address = buffer.address() + offset;
        if address % channel != 0 {
            return invalid(format!(
                "linear texture memory at {address:#x} is not aligned to its {channel}-byte channels"
            ));
        }
        inside(
            buffer,
            offset,
            u64::from(width) * u64::from(desc.format.texel_bytes()),
        )?;
        let memory = Memory::Linear {
            _buffer: buffer.raw.clone(),
            address,
        };
        Texture::create(buffer.context(), desc, Some(memory))
    }

    /// A texture over pitched 2D memory: the `width` x `height` texels of `desc` (shape
    /// [`TextureShape::D2`]) in rows `pitch` bytes apart from `offset` in `buffer`, sampled
    /// with `desc`'s filtering and addressing. Each launch that reads it copies the memory
    /// into the texture's image first (see the module's documentation).
    pub fn over_pitched(
        buffer: &Buffer,
        offset: u64,
        pitch: u64,
        desc: &TextureDesc,
    ) -> Result<Texture> {
        desc.check()?;
        let TextureShape::D2 { width, height } = desc.shape else {
            return invalid(format!(
                "a texture over pitched memory is 2D, not {:?}",
                desc.shape
            ));
        };
        if desc.mip_levels != 1 {
            return invalid("a texture over pitched memory has one level".into());
        }
        let texel = u64::from(desc.format.texel_bytes());
        let row = u64::from(width) * texel;
        // Vulkan copies whole texels from texel-aligned buffer offsets and row lengths.
        if pitch < row || pitch % texel != 0 || offset % texel != 0 {
            return invalid(format!(
                "rows of {row} bytes {pitch} bytes apart from offset {offset}: the pitch must hold a row, and both must be multiples of the {texel}-byte texel"
            ));
        }
        inside(buffer, offset, pitch * u64::from(height - 1) + row)?;
        let memory = Memory::Pitched {
            buffer: buffer.raw.clone(),
            offset,
            pitch,
        };
        Texture::create(buffer.context(), desc, Some(memory))
    }
}

impl TextureInner {
    /// Whether launches copy the texture's memory into its image.
    pub(crate) fn is_pitched(&self) -> bool {
        matches!(self.memory, Some(Memory::Pitched { .. }))
    }

    /// Records the copy of a pitched texture's memory into its image (nothing for other
    /// textures). The stream orders it after the work recorded before.
    pub(crate) fn refresh(self: &Arc<Self>, r: &mut Recorder<'_>) {
        let Some(Memory::Pitched {
            buffer,
            offset,
            pitch,
        }) = &self.memory
        else {
            return;
        };
        let [w, h, _] = self.desc.shape.extent();
        let texel = u64::from(self.desc.format.texel_bytes());
        let range = self.range(0, 1);
        self.transition(r, range, false);
        let region = vk::BufferImageCopy::default()
            .buffer_offset(*offset)
            .buffer_row_length((pitch / texel) as u32)
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: self.aspect,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            })
            .image_extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            });
        // SAFETY: recording into the stream's open command buffer; the image is in
        // TRANSFER_DST_OPTIMAL (above), the region lies in the buffer (checked at creation)
        // and both are kept until the launch completes.
        unsafe {
            r.dev.cmd_copy_buffer_to_image(
                r.cb,
                buffer.handle(),
                self.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
        self.transition(r, range, true);
        r.keep(buffer.clone());
        r.keep(self.clone());
    }
}
