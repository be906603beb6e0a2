//! Describing a texture: shape, channel format, read mode and sampler state, as CUDA's
//! `cudaResourceDesc`/`cudaTextureDesc` do, and how each maps onto Vulkan.

use ash::vk;
use ptxvk_translator::texture::{
    AddressMode, FilterMode, Geometry, SampledKind, channel_data_type, channel_order, record,
};

use crate::error::{Error, Result};

/// The dimensions of a texture (a CUDA array's extent and layered/cubemap flags), in texels,
/// layers and cubemaps.
#[allow(missing_docs)] // the field names say it
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureShape {
    /// `tex.1d`.
    D1 { width: u32 },
    /// `tex.2d`.
    D2 { width: u32, height: u32 },
    /// `tex.3d`.
    D3 { width: u32, height: u32, depth: u32 },
    /// `tex.a1d`: `layers` 1D textures.
    Layered1D { width: u32, layers: u32 },
    /// `tex.a2d`: `layers` 2D textures.
    Layered2D {
        width: u32,
        height: u32,
        layers: u32,
    },
    /// `tex.cube`: six square faces in the order +x, -x, +y, -y, +z, -z.
    Cube { size: u32 },
    /// `tex.acube`: `cubes` cubemaps.
    CubeLayered { size: u32, cubes: u32 },
}

impl TextureShape {
    /// Width, height, depth of level 0 (1 where the shape has no such dimension).
    pub fn extent(self) -> [u32; 3] {
        match self {
            TextureShape::D1 { width } | TextureShape::Layered1D { width, .. } => [width, 1, 1],
            TextureShape::D2 { width, height } | TextureShape::Layered2D { width, height, .. } => {
                [width, height, 1]
            }
            TextureShape::D3 {
                width,
                height,
                depth,
            } => [width, height, depth],
            TextureShape::Cube { size } | TextureShape::CubeLayered { size, .. } => [size, size, 1],
        }
    }

    /// Vulkan array layers (six per cubemap).
    pub fn layers(self) -> u32 {
        match self {
            TextureShape::Layered1D { layers, .. } | TextureShape::Layered2D { layers, .. } => {
                layers
            }
            TextureShape::Cube { .. } => 6,
            TextureShape::CubeLayered { cubes, .. } => 6 * cubes,
            _ => 1,
        }
    }

    /// The PTX geometry that reads it.
    pub fn geometry(self) -> Geometry {
        match self {
            TextureShape::D1 { .. } => Geometry::D1,
            TextureShape::D2 { .. } => Geometry::D2,
            TextureShape::D3 { .. } => Geometry::D3,
            TextureShape::Layered1D { .. } => Geometry::A1D,
            TextureShape::Layered2D { .. } => Geometry::A2D,
            TextureShape::Cube { .. } => Geometry::Cube,
            TextureShape::CubeLayered { .. } => Geometry::ACube,
        }
    }

    /// The extent of mip level `level`: each dimension halved, rounded down, at least 1
    /// (ISA 8.7.7.2).
    pub fn level_extent(self, level: u32) -> [u32; 3] {
        let [w, h, d] = self.extent();
        let half = |v: u32| (v >> level.min(31)).max(1);
        match self {
            TextureShape::D3 { .. } => [half(w), half(h), half(d)],
            TextureShape::D1 { .. } | TextureShape::Layered1D { .. } => [half(w), 1, 1],
            _ => [half(w), half(h), 1],
        }
    }

    /// The levels of a complete mip chain: `1 + floor(log2(max(w, h, d)))` (ISA 8.7.7.2).
    pub fn full_mip_chain(self) -> u32 {
        let m = self.extent().into_iter().max().unwrap_or(1).max(1);
        32 - m.leading_zeros()
    }
}

/// Whether channels hold unsigned or signed integers or floats.
#[allow(missing_docs)] // the variant names say it
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    Unsigned,
    Signed,
    Float,
}

/// The format of a texel: 1, 2 or 4 channels of the same kind and size (CUDA's
/// `cudaChannelFormatDesc`; 3-channel formats exist in neither CUDA arrays nor ptxvk).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChannelFormat {
    /// Unsigned, signed or float channels.
    pub kind: ChannelKind,
    /// 8, 16 or 32 (16 or 32 for floats).
    pub bits: u32,
    /// 1, 2 or 4.
    pub channels: u32,
}

impl ChannelFormat {
    /// `channels` channels of `bits` bits of `kind`.
    pub const fn new(kind: ChannelKind, bits: u32, channels: u32) -> ChannelFormat {
        ChannelFormat {
            kind,
            bits,
            channels,
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> u32 {
        self.bits / 8 * self.channels
    }
}

/// How integer texels are returned (CUDA's `cudaTextureReadMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadMode {
    /// As they are: integers as integers (`tex.*.s32`/`.u32`), floats as floats.
    #[default]
    ElementType,
    /// 8- and 16-bit integers as floats in [0, 1] (unsigned) or [-1, 1] (signed).
    NormalizedFloat,
}

/// The comparison of depth-compare sampling (operand `f` of `tex`/`tld4`): a texel passes
/// when `reference OP texel` (Vulkan's `VkCompareOp`).
#[allow(missing_docs)] // the variant names say it
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl CompareOp {
    pub(crate) fn vk(self) -> vk::CompareOp {
        match self {
            CompareOp::Never => vk::CompareOp::NEVER,
            CompareOp::Less => vk::CompareOp::LESS,
            CompareOp::Equal => vk::CompareOp::EQUAL,
            CompareOp::LessOrEqual => vk::CompareOp::LESS_OR_EQUAL,
            CompareOp::Greater => vk::CompareOp::GREATER,
            CompareOp::NotEqual => vk::CompareOp::NOT_EQUAL,
            CompareOp::GreaterOrEqual => vk::CompareOp::GREATER_OR_EQUAL,
            CompareOp::Always => vk::CompareOp::ALWAYS,
        }
    }
}

/// Everything about a texture: its storage and its sampler state.
///
/// ```
/// use ptxvk_runtime::{AddressMode, ChannelFormat, ChannelKind, FilterMode, TextureDesc, TextureShape};
/// let desc = TextureDesc::new(
///     TextureShape::D2 { width: 64, height: 32 },
///     ChannelFormat::new(ChannelKind::Float, 32, 1),
/// )
/// .filter(FilterMode::Linear)
/// .address(AddressMode::Wrap)
/// .normalized(true);
/// assert_eq!(desc.mip_levels, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Dimensions, layers, cubemaps.
    pub shape: TextureShape,
    /// The texel format.
    pub format: ChannelFormat,
    /// Integers as they are, or as normalized floats.
    pub read_mode: ReadMode,
    /// Point (`Nearest`) or linear filtering (float results only).
    pub filter: FilterMode,
    /// Per dimension; wrap and mirror need normalized coordinates (as in CUDA).
    pub address: [AddressMode; 3],
    /// Coordinates in [0, 1) rather than [0, size).
    pub normalized_coords: bool,
    /// Mip levels stored (1: not mipmapped).
    pub mip_levels: u32,
    /// Filtering between mip levels.
    pub mip_filter: FilterMode,
    /// A depth texture (one 32-bit float channel) for depth-compare sampling.
    pub depth_compare: Option<CompareOp>,
}

impl TextureDesc {
    /// Point filtering, clamp-to-edge addressing, unnormalized coordinates, one level,
    /// element-type reads: CUDA's defaults.
    pub fn new(shape: TextureShape, format: ChannelFormat) -> TextureDesc {
        TextureDesc {
            shape,
            format,
            read_mode: ReadMode::ElementType,
            filter: FilterMode::Nearest,
            address: [AddressMode::ClampToEdge; 3],
            normalized_coords: false,
            mip_levels: 1,
            mip_filter: FilterMode::Nearest,
            depth_compare: None,
        }
    }

    /// With `filter` filtering.
    pub fn filter(self, filter: FilterMode) -> Self {
        TextureDesc { filter, ..self }
    }

    /// The same address mode in every dimension.
    pub fn address(self, mode: AddressMode) -> Self {
        TextureDesc {
            address: [mode; 3],
            ..self
        }
    }

    /// With an address mode per dimension.
    pub fn address_modes(self, address: [AddressMode; 3]) -> Self {
        TextureDesc { address, ..self }
    }

    /// With coordinates in [0, 1) (`true`) or [0, size).
    pub fn normalized(self, normalized_coords: bool) -> Self {
        TextureDesc {
            normalized_coords,
            ..self
        }
    }

    /// With integer texels read as `read_mode` says.
    pub fn read_mode(self, read_mode: ReadMode) -> Self {
        TextureDesc { read_mode, ..self }
    }

    /// With `mip_levels` levels (up to [`TextureShape::full_mip_chain`]).
    pub fn mip_levels(self, mip_levels: u32) -> Self {
        TextureDesc { mip_levels, ..self }
    }

    /// With `mip_filter` filtering between levels.
    pub fn mip_filter(self, mip_filter: FilterMode) -> Self {
        TextureDesc { mip_filter, ..self }
    }

    /// A depth texture compared with `op` by depth-compare sampling.
    pub fn depth_compare(self, op: CompareOp) -> Self {
        TextureDesc {
            depth_compare: Some(op),
            ..self
        }
    }

    /// What the shader reads: floats, or signed or unsigned integers.
    pub fn sampled_kind(&self) -> SampledKind {
        match (self.format.kind, self.read_mode) {
            (ChannelKind::Float, _) | (_, ReadMode::NormalizedFloat) => SampledKind::Float,
            (ChannelKind::Signed, ReadMode::ElementType) => SampledKind::Sint,
            (ChannelKind::Unsigned, ReadMode::ElementType) => SampledKind::Uint,
        }
    }

    /// Checks the description for what neither CUDA nor ptxvk allows.
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        let f = self.format;
        if !matches!(f.channels, 1 | 2 | 4) {
            return bad(format!(
                "textures have 1, 2 or 4 channels, not {}",
                f.channels
            ));
        }
        let bits_ok = match f.kind {
            ChannelKind::Float => matches!(f.bits, 16 | 32),
            _ => matches!(f.bits, 8 | 16 | 32),
        };
        if !bits_ok {
            return bad(format!("no {}-bit {:?} channels", f.bits, f.kind));
        }
        if self.shape.extent().contains(&0) || self.shape.layers() == 0 {
            return bad(format!("a texture of shape {:?} is empty", self.shape));
        }
        if self.read_mode == ReadMode::NormalizedFloat
            && (f.kind == ChannelKind::Float || f.bits == 32)
        {
            return bad(
                "normalized-float reads are for 8- and 16-bit integer channels only".into(),
            );
        }
        if self.sampled_kind() != SampledKind::Float
            && (self.filter == FilterMode::Linear || self.mip_filter == FilterMode::Linear)
        {
            return bad(
                "linear filtering needs float results (a float format or normalized-float reads)"
                    .into(),
            );
        }
        if !self.normalized_coords
            && !matches!(
                self.shape,
                TextureShape::Cube { .. } | TextureShape::CubeLayered { .. }
            )
            && self
                .address
                .iter()
                .any(|a| matches!(a, AddressMode::Wrap | AddressMode::Mirror))
        {
            return bad("wrap and mirror addressing need normalized coordinates".into());
        }
        let full = self.shape.full_mip_chain();
        if self.mip_levels == 0 || self.mip_levels > full {
            return bad(format!(
                "a texture of shape {:?} has 1 to {full} mip levels, not {}",
                self.shape, self.mip_levels
            ));
        }
        if self.depth_compare.is_some() && f != ChannelFormat::new(ChannelKind::Float, 32, 1) {
            return bad("depth-compare textures hold one 32-bit float channel".into());
        }
        Ok(())
    }

    /// The Vulkan format.
    pub(crate) fn vk_format(&self) -> vk::Format {
        use vk::Format as F;
        if self.depth_compare.is_some() {
            return F::D32_SFLOAT;
        }
        let n = self.read_mode == ReadMode::NormalizedFloat;
        let f = self.format;
        let pick = |one: F, two: F, four: F| match f.channels {
            1 => one,
            2 => two,
            _ => four,
        };
        match (f.kind, f.bits, n) {
            (ChannelKind::Unsigned, 8, false) => pick(F::R8_UINT, F::R8G8_UINT, F::R8G8B8A8_UINT),
            (ChannelKind::Unsigned, 8, true) => pick(F::R8_UNORM, F::R8G8_UNORM, F::R8G8B8A8_UNORM),
            (ChannelKind::Signed, 8, false) => pick(F::R8_SINT, F::R8G8_SINT, F::R8G8B8A8_SINT),
            (ChannelKind::Signed, 8, true) => pick(F::R8_SNORM, F::R8G8_SNORM, F::R8G8B8A8_SNORM),
            (ChannelKind::Unsigned, 16, false) => {
                pick(F::R16_UINT, F::R16G16_UINT, F::R16G16B16A16_UINT)
            }
            (ChannelKind::Unsigned, 16, true) => {
                pick(F::R16_UNORM, F::R16G16_UNORM, F::R16G16B16A16_UNORM)
            }
            (ChannelKind::Signed, 16, false) => {
                pick(F::R16_SINT, F::R16G16_SINT, F::R16G16B16A16_SINT)
            }
            (ChannelKind::Signed, 16, true) => {
                pick(F::R16_SNORM, F::R16G16_SNORM, F::R16G16B16A16_SNORM)
            }
            (ChannelKind::Unsigned, _, _) => {
                pick(F::R32_UINT, F::R32G32_UINT, F::R32G32B32A32_UINT)
            }
            (ChannelKind::Signed, _, _) => pick(F::R32_SINT, F::R32G32_SINT, F::R32G32B32A32_SINT),
            (ChannelKind::Float, 16, _) => {
                pick(F::R16_SFLOAT, F::R16G16_SFLOAT, F::R16G16B16A16_SFLOAT)
            }
            (ChannelKind::Float, _, _) => {
                pick(F::R32_SFLOAT, F::R32G32_SFLOAT, F::R32G32B32A32_SFLOAT)
            }
        }
    }

    /// What `txq` and the shader's coordinate handling read (`ptxvk_translator::texture::record`).
    pub(crate) fn record(&self) -> [u32; record::WORDS as usize] {
        let mut r = [0u32; record::WORDS as usize];
        let [w, h, d] = self.shape.extent();
        let (height, depth, layers) = match self.shape {
            TextureShape::D1 { .. } => (0, 0, 0),
            TextureShape::Layered1D { layers, .. } => (0, 0, layers),
            TextureShape::D2 { .. } | TextureShape::Cube { .. } => (h, 0, 0),
            TextureShape::Layered2D { layers, .. } => (h, 0, layers),
            TextureShape::CubeLayered { cubes, .. } => (h, 0, cubes),
            TextureShape::D3 { .. } => (h, d, 0),
        };
        r[record::WIDTH as usize] = w;
        r[record::HEIGHT as usize] = height;
        r[record::DEPTH as usize] = depth;
        r[record::ARRAY_SIZE as usize] = layers;
        r[record::NUM_MIPMAP_LEVELS as usize] = if self.mip_levels > 1 {
            self.mip_levels
        } else {
            0
        };
        r[record::CHANNEL_DATA_TYPE as usize] = self.channel_data_type();
        r[record::CHANNEL_ORDER as usize] = match self.format.channels {
            1 => channel_order::R,
            2 => channel_order::RG,
            _ => channel_order::RGBA,
        };
        r[record::NORMALIZED_COORDS as usize] = u32::from(self.normalized_coords);
        r[record::FILTER_MODE as usize] = self.filter as u32;
        for k in 0..3 {
            r[(record::ADDR_MODE_0 + k) as usize] = self.address[k as usize] as u32;
        }
        r[record::NUM_SAMPLES as usize] = 0;
        r[record::LEVELS as usize] = self.mip_levels;
        r
    }

    /// The OpenCL channel data type (ISA Table 11) of the format as read.
    fn channel_data_type(&self) -> u32 {
        use channel_data_type::*;
        let n = self.read_mode == ReadMode::NormalizedFloat;
        match (self.format.kind, self.format.bits, n) {
            (ChannelKind::Unsigned, 8, true) => UNORM_INT8,
            (ChannelKind::Unsigned, 16, true) => UNORM_INT16,
            (ChannelKind::Signed, 8, true) => SNORM_INT8,
            (ChannelKind::Signed, 16, true) => SNORM_INT16,
            (ChannelKind::Unsigned, 8, _) => UNSIGNED_INT8,
            (ChannelKind::Unsigned, 16, _) => UNSIGNED_INT16,
            (ChannelKind::Unsigned, _, _) => UNSIGNED_INT32,
            (ChannelKind::Signed, 8, _) => SIGNED_INT8,
            (ChannelKind::Signed, 16, _) => SIGNED_INT16,
            (ChannelKind::Signed, _, _) => SIGNED_INT32,
            (ChannelKind::Float, 16, _) => HALF_FLOAT,
            (ChannelKind::Float, _, _) => FLOAT,
        }
    }
}

/// Vulkan's address mode for a PTX one. `clamp_ogl` (OpenGL's old `GL_CLAMP`, which blends
/// half a texel of border colour in) has no Vulkan equivalent and samples as clamp-to-edge;
/// with unnormalized coordinates Vulkan allows only the clamps.
pub(crate) fn vk_address(a: AddressMode, normalized: bool) -> vk::SamplerAddressMode {
    match a {
        AddressMode::Wrap if normalized => vk::SamplerAddressMode::REPEAT,
        AddressMode::Mirror if normalized => vk::SamplerAddressMode::MIRRORED_REPEAT,
        AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        _ => vk::SamplerAddressMode::CLAMP_TO_EDGE,
    }
}

pub(crate) fn vk_filter(f: FilterMode) -> vk::Filter {
    match f {
        FilterMode::Nearest => vk::Filter::NEAREST,
        FilterMode::Linear => vk::Filter::LINEAR,
    }
}
