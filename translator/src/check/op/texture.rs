//! The decoded forms of the instructions that `check/inst/texture/mod.rs` reads.

use crate::check::operand::{Dst, RegId, Src, VarRef};
use crate::texture::Geometry;
use crate::types::ScalarType;

/// The texture (or sampler) operand of a texture instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum TexOperand {
    /// A `.texref`/`.samplerref` variable: module scope or a kernel parameter.
    Var(VarRef),
    /// A `.u64` register holding a handle: a texture object, or the address of a `.texref`
    /// (indirect access, ISA 8.7.7.3).
    Reg(RegId),
}

/// How `tex` picks the mip level (ISA 8.7.7.2).
#[derive(Clone, Debug, PartialEq)]
pub enum TexLod {
    /// Level 0 (`.base`, or no mipmap modifier).
    Base,
    /// `.level`: an explicit level of `.ctype`.
    Level(Src),
    /// `.grad`: the partial derivatives `dPdx`, `dPdy` (one `.f32` per spatial dimension).
    Grad(Vec<Src>, Vec<Src>),
}

/// `tex`: a texture lookup.
#[derive(Clone, Debug)]
pub struct Tex {
    pub geom: Geometry,
    /// `.u32 .s32 .f32 .f16 .f16x2`.
    pub dtype: ScalarType,
    /// `.s32` (texel coordinates, a fetch) or `.f32`.
    pub ctype: ScalarType,
    pub lod: TexLod,
    /// Four destinations (two for `.f16x2`).
    pub dst: Vec<Dst>,
    /// `d|p`: whether the texels are resident (always, without sparse textures).
    pub pred: Option<Dst>,
    pub texture: TexOperand,
    /// The `.samplerref` of independent mode.
    pub sampler: Option<TexOperand>,
    /// The array index (`.u32`) of layered geometries.
    pub layer: Option<Src>,
    /// One `.ctype` coordinate per spatial dimension.
    pub coords: Vec<Src>,
    /// Operand `e`: one `.s32` texel offset per spatial dimension.
    pub offset: Option<Vec<Src>>,
    /// Operand `f`: the depth-compare value (`.f32`).
    pub compare: Option<Src>,
}

/// `tld4`: the four texels of a bilinear footprint, one component each.
#[derive(Clone, Debug)]
pub struct Tld4 {
    /// 0-3 for `.r .g .b .a`.
    pub comp: u32,
    pub geom: Geometry,
    pub dtype: ScalarType,
    pub dst: Vec<Dst>,
    pub pred: Option<Dst>,
    pub texture: TexOperand,
    pub sampler: Option<TexOperand>,
    pub layer: Option<Src>,
    pub coords: Vec<Src>,
    pub offset: Option<Vec<Src>>,
    pub compare: Option<Src>,
}

/// What `txq` asks (ISA 8.7.7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxqQuery {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    ForceUnnormalizedCoords,
    FilterMode,
    AddrMode(u32),
}

impl TxqQuery {
    /// Sampler attributes (`.squery`), as opposed to texture attributes.
    pub fn is_sampler(self) -> bool {
        matches!(
            self,
            TxqQuery::ForceUnnormalizedCoords | TxqQuery::FilterMode | TxqQuery::AddrMode(_)
        )
    }
}

/// `txq`: a texture or sampler attribute.
#[derive(Clone, Debug)]
pub struct Txq {
    pub query: TxqQuery,
    /// `txq.level`: the level whose size is asked.
    pub level: Option<Src>,
    pub dst: Dst,
    pub operand: TexOperand,
}
