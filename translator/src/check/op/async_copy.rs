//! The decoded forms of the instructions that `check/inst/async_copy.rs` reads.

use super::AtomOp;
use crate::check::operand::{Address, Src};
use crate::types::ScalarType::{self, *};
use crate::types::StateSpace;

/// One `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src};`.
#[derive(Clone, Debug)]
pub struct CpAsync {
    pub dst: Address,
    pub src: Address,
    /// Bytes written to `dst`: 4, 8 or 16.
    pub size: u32,
    /// Bytes read from `src` (the rest of `dst` is zero-filled); `None` = `size`.
    pub src_size: Option<Src>,
    /// A predicate: when true nothing is read and `dst` is zero-filled.
    pub ignore_src: Option<Src>,
}

/// `cp.async.bulk.dst.src{.mbarrier::complete_tx::bytes | .bulk_group}{.multicast::cluster}
/// [dst], [src], size{, [mbar]}{, ctaMask}`.
#[derive(Clone, Debug)]
pub struct CpBulk {
    pub dst: Address,
    /// `.shared` (`::cta`, or `::cluster` of a one-block cluster) or `.global`.
    pub dst_space: StateSpace,
    pub src: Address,
    pub src_space: StateSpace,
    /// Bytes, a multiple of 16.
    pub size: Src,
    /// The mbarrier whose tx-count the copy completes.
    pub mbar: Option<Address>,
    /// `.multicast::cluster`'s 16-bit mask of destination CTAs, as [`TensorDir::Load`]'s.
    pub multicast: Option<Src>,
}

/// Where a bulk reduction writes, which decides the element types its operators take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceInto {
    /// `cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`.
    Cluster,
    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group`.
    Global,
    /// `cp.reduce.async.bulk.tensor`, typed by its tensor map.
    Tensor,
}

/// The element types the ISA's tables of valid `.redOp` and element-type combinations list for
/// the bulk reductions (`cp.reduce.async.bulk` and `cp.reduce.async.bulk.tensor`). Global
/// half-precision adds are written `.add.noftz` (ISA: `cp.reduce.async.bulk`).
pub fn reduce_types(op: AtomOp, into: ReduceInto) -> &'static [ScalarType] {
    match (into, op) {
        (ReduceInto::Cluster, AtomOp::Add) => &[U32, S32, U64],
        (ReduceInto::Cluster, AtomOp::Min | AtomOp::Max) => &[U32, S32],
        (ReduceInto::Cluster, AtomOp::And | AtomOp::Or | AtomOp::Xor) => &[B32],
        (ReduceInto::Global, AtomOp::Add) => &[U32, S32, U64, F32, F64, F16, Bf16],
        (ReduceInto::Global, AtomOp::And | AtomOp::Or | AtomOp::Xor) => &[B32, B64],
        (ReduceInto::Tensor, AtomOp::Add) => &[U32, S32, U64, F32, F16, Bf16],
        (ReduceInto::Tensor, AtomOp::And | AtomOp::Or | AtomOp::Xor) => &[U32, S32, U64, S64],
        (ReduceInto::Global | ReduceInto::Tensor, AtomOp::Min | AtomOp::Max) => {
            &[U32, S32, U64, S64, F16, Bf16]
        }
        (_, AtomOp::Inc | AtomOp::Dec) => &[U32],
        (_, AtomOp::Cas | AtomOp::Exch) => &[],
    }
}

/// `cp.reduce.async.bulk.dst.src.completion.redOp.type [dst], [src], size{, [mbar]}`: `size`
/// bytes of `src` (shared) combined element by element into `dst` by `op`.
#[derive(Clone, Debug)]
pub struct CpBulkReduce {
    pub dst: Address,
    /// `.global`, or `.shared` (`::cluster` of a one-block cluster).
    pub dst_space: StateSpace,
    pub src: Address,
    /// Bytes, a multiple of 16.
    pub size: Src,
    pub op: AtomOp,
    pub ty: ScalarType,
    /// The mbarrier whose tx-count a `.shared::cluster` reduction completes.
    pub mbar: Option<Address>,
}

/// Which way a `cp.async.bulk.tensor` copies its box.
#[derive(Clone, Debug)]
pub enum TensorDir {
    /// `.shared::cluster.global` / `.shared::cta.global`: into `dst`, completing `mbar`'s
    /// transaction.
    /// With `.multicast::cluster`, `multicast` is the 16-bit mask of destination CTAs (by
    /// cluster rank); a one-block cluster's only CTA is rank 0.
    Load {
        dst: Address,
        mbar: Address,
        multicast: Option<Src>,
    },
    /// `.global.shared::cta.bulk_group`: from `src` into the tensor.
    Store { src: Address },
    /// `cp.reduce.async.bulk.tensor...global.shared::cta.redOp...bulk_group`: each element of
    /// `src` combined with the tensor's by `op`, in the element type of the map.
    Reduce { src: Address, op: AtomOp },
}

/// `cp.async.bulk.tensor.Nd...tile`: a box of the tensor a tensor map describes, at `coords`
/// (one signed 32-bit coordinate per dimension, innermost first).
#[derive(Clone, Debug)]
pub struct CpBulkTensor {
    /// The tensor map's address (generic, `.param`, `.const` or `.global`: device addresses).
    pub map: Address,
    pub coords: Vec<Src>,
    pub walk: TensorWalk,
    pub dir: TensorDir,
}

/// Which elements of the tensor a copy visits, in shared memory's order.
#[derive(Clone, Debug)]
pub enum TensorWalk {
    /// `.tile`: the box at `coords`.
    Tile,
    /// `.tile::gather4` or `.tile::scatter4`: `coords` are `{col, row0, row1, row2, row3}`,
    /// four one-row boxes of a 2-d tiled map, one after another in shared memory.
    FourRows,
    /// The im2col modes, with their operand (the map is then an im2col one).
    Im2col(Im2colInfo),
}

/// The operand of the im2col load modes (`im2colInfo`).
#[derive(Clone, Debug)]
pub enum Im2colInfo {
    /// `.im2col`: the im2col offsets, 16-bit, one per dimension between the innermost and the
    /// outermost.
    Offsets(Vec<Src>),
    /// `.im2col::w` (`w128` false) or `.im2col::w::128`: `{wHalo, wOffset}`, 16-bit unsigned.
    Wide { halo: Src, offset: Src, w128: bool },
    /// `.im2col_no_offs` (stores and reductions): the `.im2col` walk with no offsets.
    NoOffsets,
}

/// A field `tensormap.replace` writes, decoded into what ptxvk's map holds (decision 0107).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapField {
    /// The tensor's address (`value`, 64 bits).
    GlobalAddress,
    /// The rank: `value` + 1 (the ISA's `new_val` is the rank minus one).
    Rank,
    /// `boxDim[ord]`, `globalDim[ord]`, `globalStrides[ord]` (bytes, the stride of dimension
    /// `ord + 1`) and `elementStrides[ord]` from `value`.
    BoxDim(u32),
    GlobalDim(u32),
    GlobalStride(u32),
    ElementStride(u32),
    /// The element type as `CUtensorMapDataType` and its size in bytes.
    ElemType {
        data_type: u8,
        size: u8,
    },
    /// The swizzle's span as `.swizzle_mode` numbers it (0-3), the low nibble of the map's
    /// swizzle byte (`crate::tensor_map::swizzle_byte`).
    Swizzle(u8),
    /// The swizzle's atom as `.swizzle_atomicity` numbers it (0, 1 or 3), the high nibble.
    SwizzleAtomicity(u8),
    /// `CUtensorMapFloatOOBfill` (0-1).
    Fill(u8),
    /// A value the map already holds whatever it was (no interleave).
    Unchanged,
}

#[derive(Clone, Debug)]
pub enum AsyncCopy {
    Copy(CpAsync),
    Bulk(Box<CpBulk>),
    BulkReduce(Box<CpBulkReduce>),
    Tensor(Box<CpBulkTensor>),
    /// `cp.async.mbarrier.arrive{.noinc}`: an arrive-on once the thread's copies are done.
    MbarrierArrive {
        addr: Address,
        noinc: bool,
    },
    /// `tensormap.replace.tile.FIELD`: `field` of the map at `map` (in `space`; `Generic`
    /// without one) becomes `value` (for the fields with a register operand).
    TensormapReplace {
        map: Address,
        space: StateSpace,
        field: MapField,
        value: Src,
    },
    /// `tensormap.cp_fenceproxy`: the 128-byte map at `src` (shared) copied to `dst` (global).
    TensormapCopy {
        dst: Address,
        src: Address,
    },
    /// `cp.async.bulk.prefetch.L2`: a hint.
    Prefetch,
    CommitGroup,
    /// `cp.async.wait_group N`: wait until at most N groups are pending.
    WaitGroup(u32),
    WaitAll,
}
