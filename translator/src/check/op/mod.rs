//! The decoded instructions of the typed module: one [`Op`] variant per instruction form, with
//! the operand and modifier values each needs. The decoders in `check/inst/` build them; `lower/`
//! reads them. One file per family, named as the decoder and the lowering of that family.

mod arith;
mod async_copy;
mod atom;
mod cmp;
mod control;
mod convert;
mod data;
mod extended;
mod float;
mod int;
mod ldst;
mod logic;
mod matrix;
mod mbarrier;
mod misc;
mod narrow;
mod permute;
mod rounding;
mod sync;
mod texture;
mod video;
mod warp;
mod wgmma;

use crate::check::operand::{Dst, Src};
pub use arith::{Arith, MulMode};
pub use async_copy::{
    AsyncCopy, CpAsync, CpBulk, CpBulkReduce, CpBulkTensor, Im2colInfo, MapField, ReduceInto,
    TensorDir, TensorWalk, reduce_types,
};
pub use atom::{Atom, AtomOp, AtomSem};
pub use cmp::{BoolOp, CmpOp, Set, Setp, Slct};
pub use control::{Bra, BrxIdx, Call, CallArg, CallIndirect, ParamShape, Signature};
pub use convert::{Cvt, CvtPack};
pub use data::{Cvta, Isspacep, MemSem, Mov, Scope};
pub use extended::{Carry, CarryOp};
pub use float::{Float, FloatOp, Precision, TestOp};
pub use int::{Bfind, BitMask, Dot, Simd, SimdOp};
pub use ldst::{Ld, St};
pub use logic::{Lop3, Lop3Pred, Shf};
pub use matrix::{
    BitOp, BlockScale, Ldmatrix, Mma, MmaType, Movmatrix, ScaleType, Sparsity, Stmatrix, Wmma,
    WmmaFrag, WmmaOp, wmma_regs,
};
pub use mbarrier::{Mbarrier, MbarrierInst, MbarrierOp, MbarrierPending};
pub use misc::{ClusterQuery, NoEffect};
pub use narrow::{CvtNarrow, NARROW_TYPES, Narrow};
pub use permute::{Prmt, PrmtMode};
pub use rounding::Rounding;
pub use sync::{Bar, BarKind, BarRed};
pub use texture::{Tex, TexLod, TexOperand, Tld4, Txq, TxqQuery};
pub use video::{Part, Secondary, VideoMad, VideoOp, VideoScalar, VideoSimd};
pub use warp::{Elect, Match, Redux, ReduxOp, Shfl, ShflMode, Vote, VoteMode};
pub use wgmma::{ScaleD, Wgmma, WgmmaA, WgmmaMma};

/// A decoded instruction.
#[derive(Clone, Debug)]
pub enum Op {
    Add(Arith),
    Sub(Arith),
    Mul(Arith),
    Mad(Arith),
    Div(Arith),
    Rem(Arith),
    Abs(Arith),
    Neg(Arith),
    Min(Arith),
    Max(Arith),
    Setp(Setp),
    Selp(Arith),
    And(Arith),
    Or(Arith),
    Xor(Arith),
    Not(Arith),
    Shl(Arith),
    Shr(Arith),
    Mov(Mov),
    Ld(Ld),
    St(St),
    Cvta(Cvta),
    Cvt(Cvt),
    Isspacep(Isspacep),
    Bra(Bra),
    Call(Call),
    Bar(Bar),
    /// `membar`/`fence` at a scope.
    Membar(Scope),
    Shfl(Box<Shfl>),
    Vote(Vote),
    Match(Match),
    ActiveMask(Dst),
    Redux(Redux),
    /// `bar.warp.sync membermask`
    WarpSync(Src),
    /// `atom` (with a destination) and `red` (without).
    Atom(Atom),
    /// `cvt.pack.sat`
    CvtPack(CvtPack),
    /// `cvt` to or from a pair of fp8/fp6/fp4/ue8m0 values.
    CvtNarrow(Box<CvtNarrow>),
    /// `mbarrier` operations on an object.
    Mbarrier(Box<Mbarrier>),
    /// `mbarrier.pending_count`.
    MbarrierPending(MbarrierPending),
    /// `prefetch`/`prefetchu`: a cache hint, checked and dropped.
    Prefetch,
    Ret,
    Exit,
    /// `trap` (and `brkpt`, which without a debugger ends the launch the same way).
    Trap {
        breakpoint: bool,
    },
    /// Every floating-point instruction form (ISA 8.7.3 and the half-precision forms).
    Float(Float),
    Set(Set),
    Slct(Slct),
    /// `add.cc addc sub.cc subc mad.cc madc`: arithmetic through the carry flag CC.CF.
    Carry(Carry),
    /// `add/min/max` on `.u16x2/.s16x2`, and `min/max.relu`.
    Simd(Simd),
    Mul24(Arith),
    Mad24(Arith),
    Sad(Arith),
    Popc(Arith),
    Clz(Arith),
    Bfind(Bfind),
    Brev(Arith),
    Bfe(Arith),
    Bfi(Arith),
    Bmsk(BitMask),
    Szext(BitMask),
    Dp4a(Dot),
    Dp2a(Dot),
    Cnot(Arith),
    Lop3(Box<Lop3>),
    Shf(Shf),
    Prmt(Prmt),
    /// `brx.idx`: a jump through a `.branchtargets` list.
    BrxIdx(BrxIdx),
    /// `call` through a function pointer.
    CallIndirect(Box<CallIndirect>),
    /// `cp.async` and its group operations.
    AsyncCopy(AsyncCopy),
    /// `nanosleep.u32 t`.
    Nanosleep(Src),
    /// Proxy fences, `griddepcontrol`, `setmaxnreg`.
    NoEffect(NoEffect),
    /// `elect.sync`.
    Elect(Elect),
    /// `createpolicy`: its destination.
    CreatePolicy(Dst),
    /// `mapa`, `getctarank`.
    ClusterQuery(ClusterQuery),
    /// `vadd vsub vabsdiff vmin vmax vshl vshr`.
    VideoScalar(Box<VideoScalar>),
    /// `vadd2 ... vmax2`, `vadd4 ... vmax4`.
    VideoSimd(Box<VideoSimd>),
    /// `vmad`.
    VideoMad(Box<VideoMad>),
    Ldmatrix(Box<Ldmatrix>),
    Stmatrix(Box<Stmatrix>),
    Movmatrix(Box<Movmatrix>),
    Mma(Box<Mma>),
    Wmma(Box<Wmma>),
    Wgmma(Wgmma),
    Tex(Box<Tex>),
    Tld4(Box<Tld4>),
    Txq(Txq),
}
