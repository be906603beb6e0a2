//! The decoded forms of the instructions that `check/inst/matrix.rs` reads.

use crate::check::operand::{Address, Dst, Src};
use crate::types::{ScalarType, StateSpace};

/// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 r, [p];`
#[derive(Clone, Debug)]
pub struct Ldmatrix {
    /// The 8x8 matrices loaded: 1, 2 or 4, one destination register each.
    pub num: u32,
    pub trans: bool,
    /// `.shared`, or generic (an address that must point into shared memory).
    pub space: StateSpace,
    pub dst: Vec<Dst>,
    pub addr: Address,
}

/// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 [p], r;`
#[derive(Clone, Debug)]
pub struct Stmatrix {
    pub num: u32,
    pub trans: bool,
    pub space: StateSpace,
    pub src: Vec<Src>,
    pub addr: Address,
}

/// `movmatrix.sync.aligned.m8n8.trans.b16 d, a;`
#[derive(Clone, Debug)]
pub struct Movmatrix {
    pub dst: Dst,
    pub a: Src,
}

/// An element type of `mma`'s matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
    E4m3,
    E5m2,
    /// The fp6 and fp4 types of `.kind::f8f6f4`, each in an 8-bit container: `.e3m2` and
    /// `.e2m3` in its low 6 bits, `.e2m1` in bits 2-5.
    E3m2,
    E2m3,
    E2m1,
    /// `.e2m1` of `.kind::mxf4` and `.kind::mxf4nvf4`: packed, eight to a register, with no
    /// container ("no explicit padding is necessary").
    E2m1x,
}

impl MmaType {
    pub const NAMES: [(&'static str, MmaType); 16] = [
        ("f16", MmaType::F16),
        ("bf16", MmaType::Bf16),
        ("tf32", MmaType::Tf32),
        ("f32", MmaType::F32),
        ("f64", MmaType::F64),
        ("s8", MmaType::S8),
        ("u8", MmaType::U8),
        ("s4", MmaType::S4),
        ("u4", MmaType::U4),
        ("b1", MmaType::B1),
        ("s32", MmaType::S32),
        ("e4m3", MmaType::E4m3),
        ("e5m2", MmaType::E5m2),
        ("e3m2", MmaType::E3m2),
        ("e2m3", MmaType::E2m3),
        ("e2m1", MmaType::E2m1),
    ];

    pub fn name(self) -> &'static str {
        if self == MmaType::E2m1x {
            return "e2m1";
        }
        Self::NAMES
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("?", |(n, _)| n)
    }

    /// Bits of one element (of its container, for the fp6 and fp4 types).
    pub fn bits(self) -> u32 {
        match self {
            MmaType::B1 => 1,
            MmaType::S4 | MmaType::U4 | MmaType::E2m1x => 4,
            MmaType::S8 | MmaType::U8 => 8,
            MmaType::E4m3 | MmaType::E5m2 | MmaType::E3m2 | MmaType::E2m3 | MmaType::E2m1 => 8,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Tf32 | MmaType::F32 | MmaType::S32 => 32,
            MmaType::F64 => 64,
        }
    }

    /// Elements of a multiplicand held in one register (`.f64` has registers of its own).
    pub fn per_reg(self) -> u32 {
        (32 / self.bits()).max(1)
    }

    /// The register width of fragments of this type.
    pub fn reg_type(self) -> ScalarType {
        if self == MmaType::F64 {
            ScalarType::B64
        } else {
            ScalarType::B32
        }
    }
}

/// `.xor.popc` / `.and.popc` of the single-bit forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    Xor,
    And,
}

/// The operands of `mma.sp`/`mma.sp::ordered_metadata`, whose A is structured sparse: of each
/// chunk of [`Mma::chunk_width`] elements of a row, half are zero and only the others are in A's
/// registers, their places in the chunk given by the metadata.
#[derive(Clone, Debug)]
pub struct Sparsity {
    /// `::ordered_metadata`: the indices of a chunk are in increasing order.
    pub ordered: bool,
    /// `e`: the metadata register.
    pub meta: Src,
    /// `f`: which threads of each group of four hold the metadata.
    pub selector: u32,
}

/// The type of a block-scaled `mma`'s scale factors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleType {
    /// An 8-bit biased exponent: `2^(x - 127)`, 0xFF NaN.
    Ue8m0,
    /// `.e4m3` without its sign.
    Ue4m3,
}

/// The scale operands of `mma...block_scale`: `scale-a-data, {byte-id-a, thread-id-a},
/// scale-b-data, {byte-id-b, thread-id-b}`. Each row of A (column of B) is cut along K into
/// `vec` chunks, each multiplied by one scale factor: a byte of the `scale-*-data` register of
/// the lane the selectors name (docs/decisions/0199-mma-block-scale.md).
#[derive(Clone, Debug)]
pub struct BlockScale {
    /// `.scale_vec::1X`, `::2X`, `::4X`: scale factors per row of A and per column of B.
    pub vec: u32,
    pub stype: ScaleType,
    pub a_data: Src,
    pub a_byte: Src,
    pub a_thread: Src,
    pub b_data: Src,
    pub b_byte: Src,
    pub b_thread: Src,
}

/// `mma.sync.aligned.shape.row.col{.satfinite}{.rnd}.dtype.atype.btype.ctype{.bitop.popc}
/// d, a, b, c;` (and `mma.sp{::ordered_metadata}...  d, a, b, c, e, f;`) with the fragment
/// vectors as the ISA's layout tables size them.
#[derive(Clone, Debug)]
pub struct Mma {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub d_ty: MmaType,
    pub a_ty: MmaType,
    pub b_ty: MmaType,
    pub c_ty: MmaType,
    /// Integer results clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    /// `.f64` only: the rounding of each step (`.rn` when not written).
    pub rounding: crate::float_format::RoundMode,
    pub bit_op: Option<BitOp>,
    /// Whether A, and B, are row-major (`.row`): `.row.col` except in the sm_70 form.
    pub row_major: (bool, bool),
    pub d: Vec<Dst>,
    pub a: Vec<Src>,
    pub b: Vec<Src>,
    pub c: Vec<Src>,
    pub sparse: Option<Sparsity>,
    /// `.block_scale` and its operands (the `.kind::mxf*` forms).
    pub scale: Option<Box<BlockScale>>,
}

impl Mma {
    /// Elements of a sparse chunk, whose metadata is one 4-bit field (two 2-bit indices): 4,
    /// 2 for `.tf32` (one element of two, written as halves 0-1 or 2-3), 8 for the 4-bit types
    /// (two pairs of four).
    pub fn chunk_width(&self) -> u32 {
        match self.a_ty.bits() {
            32 => 2,
            4 => 8,
            _ => 4,
        }
    }

    /// Threads of each group of four that hold a sparse form's metadata: one 32-bit register
    /// holds 16 bits of row `groupID` and 16 of row `groupID + 8`, four chunks of each.
    pub fn meta_threads(&self) -> u32 {
        (self.k / self.chunk_width() / 4).max(1)
    }

    /// K elements of A (and of B) that the four lanes of a group hold together in one
    /// register each: the unit by which the layouts step along K.
    pub fn k_slot(&self) -> u32 {
        4 * self.a_ty.per_reg()
    }

    /// Registers of each fragment: A (of the dense forms), B, C and D.
    pub fn frag_regs(&self) -> [usize; 4] {
        let slots = self.k / self.k_slot();
        let a = (self.m / 8 * slots) as usize;
        let b = slots as usize;
        let acc = |t: MmaType| {
            let per_lane = (self.m * self.n / 32) as usize;
            if t == MmaType::F16 {
                per_lane / 2
            } else {
                per_lane
            }
        };
        [a, b, acc(self.c_ty), acc(self.d_ty)]
    }
}

/// Which matrix a `wmma.load` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WmmaFrag {
    A,
    B,
    C,
}

/// `wmma.load`, `wmma.store`, `wmma.mma` for the `.f16`, `.bf16`, `.tf32`, `.s8`/`.u8`
/// multiplicands and their accumulators. The ISA leaves the fragment layout unspecified; ours
/// is in `lower/matrix.rs`.
#[derive(Clone, Debug)]
pub struct Wmma {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub op: WmmaOp,
}

#[derive(Clone, Debug)]
pub enum WmmaOp {
    Load {
        frag: WmmaFrag,
        /// The matrix in memory is row-major (`.row`) or column-major (`.col`).
        row: bool,
        space: StateSpace,
        ty: MmaType,
        dst: Vec<Dst>,
        addr: Address,
        /// In elements; the leading dimension when absent.
        stride: Option<Src>,
    },
    Store {
        row: bool,
        space: StateSpace,
        ty: MmaType,
        addr: Address,
        src: Vec<Src>,
        stride: Option<Src>,
    },
    Mma {
        d_ty: MmaType,
        a_ty: MmaType,
        b_ty: MmaType,
        c_ty: MmaType,
        satfinite: bool,
        d: Vec<Dst>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
}

/// Registers of a `wmma` fragment of `ty` for an `m x n x k` shape: the ISA's counts, which are
/// the fragment's elements over 32 lanes, packed, except that `.f16` A and B take eight
/// registers whatever the shape, and every C/D takes eight elements (`.f16` in pairs).
pub fn wmma_regs((m, n, k): (u32, u32, u32), frag: WmmaFrag, ty: MmaType) -> usize {
    match (frag, ty) {
        (WmmaFrag::C, MmaType::F16) => 4,
        (WmmaFrag::C, _) => 8,
        (_, MmaType::F16) => 8,
        (WmmaFrag::A, t) => (m * k / 32 / t.per_reg()) as usize,
        (WmmaFrag::B, t) => (k * n / 32 / t.per_reg()) as usize,
    }
}
