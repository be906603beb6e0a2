//! Textures and samplers: the vocabulary the translator and the runtime share.
//!
//! A kernel reads textures through *slots*: each distinct texture operand the kernel uses (a
//! kernel parameter holding a texture object, or a module-scope `.texref`). Each slot has a
//! record of 16 words in the launch's parameter block (after the kernel's own parameters) that
//! the runtime fills from the texture bound to it: sizes, channel format, sampler state (what
//! `txq` returns, and what coordinate handling needs). Each way the kernel samples a slot
//! (geometry, result kind, depth compare, sampler) is a *binding*: one combined image sampler
//! in descriptor set 0, at binding number = its index in [`TextureAbi::bindings`].

use serde::{Deserialize, Serialize};

/// The opaque types of ISA 5.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Opaque {
    TexRef,
    SamplerRef,
    SurfRef,
}

impl Opaque {
    pub fn name(self) -> &'static str {
        match self {
            Opaque::TexRef => ".texref",
            Opaque::SamplerRef => ".samplerref",
            Opaque::SurfRef => ".surfref",
        }
    }
}

/// Texture geometries (ISA 8.7.7.3 `.geom`; multisample geometries are not supported).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Geometry {
    D1,
    D2,
    D3,
    /// Layered 1D (`.a1d`).
    A1D,
    /// Layered 2D (`.a2d`).
    A2D,
    Cube,
    /// An array of cubemaps (`.acube`).
    ACube,
}

impl Geometry {
    /// Spatial coordinates (array index not counted).
    pub fn dims(self) -> usize {
        match self {
            Geometry::D1 | Geometry::A1D => 1,
            Geometry::D2 | Geometry::A2D => 2,
            Geometry::D3 | Geometry::Cube | Geometry::ACube => 3,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(self, Geometry::A1D | Geometry::A2D | Geometry::ACube)
    }

    pub fn is_cube(self) -> bool {
        matches!(self, Geometry::Cube | Geometry::ACube)
    }

    /// The PTX modifier, without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Geometry::D1 => "1d",
            Geometry::D2 => "2d",
            Geometry::D3 => "3d",
            Geometry::A1D => "a1d",
            Geometry::A2D => "a2d",
            Geometry::Cube => "cube",
            Geometry::ACube => "acube",
        }
    }
}

/// What a texture's texels read as in the shader (the SPIR-V image's sampled type): floats
/// (float formats, and integer formats read as normalized floats), or signed or unsigned
/// integers (integer formats read as they are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SampledKind {
    Float,
    Sint,
    Uint,
}

/// `filter_mode` values, as `txq` returns them (ISA 8.7.7.5: `{ nearest, linear }`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FilterMode {
    #[default]
    Nearest = 0,
    Linear = 1,
}

/// `addr_mode_N` values, as `txq` returns them (ISA 8.7.7.5:
/// `{ wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border }`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddressMode {
    Wrap = 0,
    Mirror = 1,
    /// OpenGL's old `GL_CLAMP` (half a texel of border blended in); ptxvk samples it as
    /// clamp-to-edge.
    ClampOgl = 2,
    #[default]
    ClampToEdge = 3,
    ClampToBorder = 4,
}

impl AddressMode {
    pub fn from_name(name: &str) -> Option<AddressMode> {
        Some(match name {
            "wrap" => AddressMode::Wrap,
            "mirror" => AddressMode::Mirror,
            "clamp_ogl" => AddressMode::ClampOgl,
            "clamp_to_edge" => AddressMode::ClampToEdge,
            "clamp_to_border" => AddressMode::ClampToBorder,
            _ => return None,
        })
    }
}

/// Sampler state written in the PTX: a `.samplerref` with an initializer (ISA 5.3.2, Table 10).
/// Members not given keep these defaults: nearest filtering, clamp-to-edge addressing, the
/// texture's own coordinate normalization.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SamplerState {
    pub filter: FilterMode,
    pub address: [AddressMode; 3],
    /// `force_unnormalized_coords = 1`: coordinates are unnormalized whatever the texture says.
    pub force_unnormalized: bool,
}

/// Where the texture of a slot comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TextureSource {
    /// Kernel parameter `index` (a `.u64` texture object or a `.param .texref`).
    Param { index: u32, name: String },
    /// A module-scope `.texref` (or legacy `.tex`) variable, bound with `Module::bind_texref`.
    TexRef { name: String },
}

/// Which sampler a binding uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SamplerSource {
    /// The texture's own sampler state (unified mode, or no sampler operand).
    Texture,
    /// A `.samplerref` given in the PTX (independent mode).
    Static(SamplerState),
}

/// One texture a kernel reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextureSlot {
    pub source: TextureSource,
    /// Byte offset of the slot's record ([`record`]) in the parameter block.
    pub record_offset: u32,
}

/// One combined image sampler the kernel samples through (set 0, binding = its index).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TextureBinding {
    /// Index in [`TextureAbi::slots`].
    pub slot: u32,
    pub geometry: Geometry,
    pub kind: SampledKind,
    /// Depth-compare sampling (`tex`/`tld4` with operand `f`).
    pub compare: bool,
    /// The sampler must use normalized coordinates (the shader divides by the size itself when
    /// the texture's are not): Vulkan allows unnormalized coordinates only for plain 1D/2D
    /// sampling at level 0 without offsets, gathers or depth compare.
    pub normalized_sampler: bool,
    /// Only mip level 0 is read: the view may hold just that level.
    pub base_level: bool,
    pub sampler: SamplerSource,
}

/// The textures of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextureAbi {
    pub slots: Vec<TextureSlot>,
    pub bindings: Vec<TextureBinding>,
    /// Bytes the records add to the parameter block (from the first record's offset).
    pub records_bytes: u32,
}

impl TextureAbi {
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// The words of a slot's record (`u32` each), as the runtime writes them.
pub mod record {
    /// Width in texels of level 0.
    pub const WIDTH: u32 = 0;
    /// Height (0 for 1D geometries).
    pub const HEIGHT: u32 = 1;
    /// Depth (3D only, 0 otherwise).
    pub const DEPTH: u32 = 2;
    /// Layers of a layered texture (cubemaps of a cubemap array), 0 otherwise.
    pub const ARRAY_SIZE: u32 = 3;
    /// Mip levels of a mipmapped texture, 0 otherwise (what `txq.num_mipmap_levels` returns).
    pub const NUM_MIPMAP_LEVELS: u32 = 4;
    /// OpenCL channel data type (ISA Table 11).
    pub const CHANNEL_DATA_TYPE: u32 = 5;
    /// OpenCL channel order (ISA Table 12).
    pub const CHANNEL_ORDER: u32 = 6;
    /// 1 when coordinates are normalized.
    pub const NORMALIZED_COORDS: u32 = 7;
    /// [`super::FilterMode`].
    pub const FILTER_MODE: u32 = 8;
    /// [`super::AddressMode`] of dimension 0 (1, 2 follow).
    pub const ADDR_MODE_0: u32 = 9;
    /// Samples of a multisample texture, 0 otherwise.
    pub const NUM_SAMPLES: u32 = 12;
    /// Mip levels the texture has (at least 1).
    pub const LEVELS: u32 = 13;
    /// The device address of the memory a texture over linear memory reads (low word; the
    /// high word follows), 0 for textures in images. Integer-coordinate 1D fetches
    /// (`tex1Dfetch`) read such textures from memory: WIDTH elements of LINEAR_CHANNELS
    /// channels of LINEAR_CHANNEL_BYTES bytes each, converted as CHANNEL_DATA_TYPE says.
    pub const LINEAR_ADDRESS: u32 = 16;
    /// Channels per element of a texture over linear memory (1, 2 or 4).
    pub const LINEAR_CHANNELS: u32 = 18;
    /// Bytes per channel of a texture over linear memory (1, 2 or 4).
    pub const LINEAR_CHANNEL_BYTES: u32 = 19;
    /// Words per record.
    pub const WORDS: u32 = 20;
    pub const BYTES: u32 = WORDS * 4;
}

/// OpenCL 1.0 channel data types (ISA Table 11), what `txq.channel_data_type` returns.
pub mod channel_data_type {
    pub const SNORM_INT8: u32 = 0x10D0;
    pub const SNORM_INT16: u32 = 0x10D1;
    pub const UNORM_INT8: u32 = 0x10D2;
    pub const UNORM_INT16: u32 = 0x10D3;
    pub const SIGNED_INT8: u32 = 0x10D7;
    pub const SIGNED_INT16: u32 = 0x10D8;
    pub const SIGNED_INT32: u32 = 0x10D9;
    pub const UNSIGNED_INT8: u32 = 0x10DA;
    pub const UNSIGNED_INT16: u32 = 0x10DB;
    pub const UNSIGNED_INT32: u32 = 0x10DC;
    pub const HALF_FLOAT: u32 = 0x10DD;
    pub const FLOAT: u32 = 0x10DE;
}

/// OpenCL 1.0 channel orders (ISA Table 12), what `txq.channel_order` returns.
pub mod channel_order {
    pub const R: u32 = 0x10B0;
    pub const RG: u32 = 0x10B2;
    pub const RGBA: u32 = 0x10B5;
}
