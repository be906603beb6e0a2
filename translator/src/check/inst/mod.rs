//! Instruction decoding: opcode + modifiers + operands -> a typed [`Op`].
//!
//! One file per instruction family; each decoder applies the ISA's syntax and type rules for its
//! instructions. What an instruction *does* is in `lower/`, in the file of the same name.

mod arith;
mod atom;
mod cmp;
mod control;
mod data;
mod fence;
// --- float ---
mod float;
mod float_rules;
// --- end float ---
mod logic;
mod sync;
mod warp;

use super::FnCx;
use super::mods::Mods;
use super::typed::*;
use crate::ast;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

pub use arith::{Arith, MulMode};
pub use cmp::{BoolOp, CmpOp, Setp};
pub use control::{Bra, Call, CallArg};
pub use data::{Cvt, Cvta, Isspacep, Ld, MemSem, Mov, Scope, St};
pub use sync::{Bar, BarKind, BarRed};
// --- float ---
pub use cmp::{SETP_TYPES, Set, Slct};
pub use float::{Float, FloatOp, Precision, TestOp};
// --- end float ---
// --- warps and atomics ---
pub use atom::{Atom, AtomOp, AtomSem};
pub use warp::{Elect, Match, Redux, ReduxOp, Shfl, ShflMode, Vote, VoteMode};
// --- data movement and conversion ---
mod convert;
mod ldst;
mod narrow;
pub use convert::{CvtPack, RoundMode};
pub use narrow::{CvtNarrow, Narrow};

// --- mbarrier ---
mod mbarrier;
pub use mbarrier::{Mbarrier, MbarrierInst, MbarrierOp, MbarrierPending};

// --- integer, extended precision, logic/shift, prmt ---
mod extended;
mod int;
mod permute;
pub use extended::{Carry, CarryOp};
pub use int::{Bfind, BitMask, Dot, Simd, SimdOp};
pub use logic::{Lop3, Lop3Pred, Shf};
pub use permute::{Prmt, PrmtMode};
// --- front end: indirect branches and calls, async copies, misc ---
mod async_copy;
mod misc;
pub use async_copy::{AsyncCopy, CpAsync, CpBulk};
pub(crate) use control::resolve_prototype_calls;
pub use control::{BrxIdx, CallIndirect, ParamShape, Signature};
pub use misc::{ClusterQuery, NoEffect};

// --- video ---
mod video;
pub use video::{Part, Secondary, VideoMad, VideoOp, VideoScalar, VideoSimd};

// --- warp-level matrix instructions ---
mod matrix;
pub use matrix::{BitOp, Ldmatrix, Mma, MmaType, Movmatrix, Stmatrix, Wmma, WmmaFrag, WmmaOp};
mod wgmma;
pub use wgmma::{ScaleD, Wgmma, WgmmaA, WgmmaMma};

// --- textures ---
mod texture;
pub use texture::{Tex, TexLod, TexOperand, Tld4, Txq, TxqQuery};

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
    // --- warps and atomics ---
    Shfl(Box<Shfl>),
    Vote(Vote),
    Match(Match),
    ActiveMask(Dst),
    Redux(Redux),
    /// `bar.warp.sync membermask`
    WarpSync(Src),
    /// `atom` (with a destination) and `red` (without).
    Atom(Atom),
    // --- data movement and conversion ---
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
    // --- float ---
    /// Every floating-point instruction form (ISA 8.7.3 and the half-precision forms).
    Float(Float),
    Set(Set),
    Slct(Slct),
    // --- end float ---
    // --- integer, extended precision, logic/shift, prmt ---
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
    // --- front end: indirect branches and calls, async copies, misc ---
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
    // --- warp-level matrix instructions ---
    Ldmatrix(Box<Ldmatrix>),
    Stmatrix(Box<Stmatrix>),
    Movmatrix(Box<Movmatrix>),
    Mma(Box<Mma>),
    Wmma(Box<Wmma>),
    Wgmma(Wgmma),
    // --- textures ---
    Tex(Box<Tex>),
    Tld4(Box<Tld4>),
    Txq(Txq),
}

/// Rounding modifiers (ISA 6.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Floating-point results: nearest even, toward zero, toward -inf, toward +inf.
    Rn,
    Rz,
    Rm,
    Rp,
    /// Integer results (cvt to integer, cvt.rni.f32.f32): same directions, to an integer.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

pub const FLOAT_ROUNDING: [(&str, Rounding); 4] = [
    ("rn", Rounding::Rn),
    ("rz", Rounding::Rz),
    ("rm", Rounding::Rm),
    ("rp", Rounding::Rp),
];

pub const INT_ROUNDING: [(&str, Rounding); 4] = [
    ("rni", Rounding::Rni),
    ("rzi", Rounding::Rzi),
    ("rmi", Rounding::Rmi),
    ("rpi", Rounding::Rpi),
];

use ScalarType::*;
pub const INTS: &[ScalarType] = &[U16, U32, U64, S16, S32, S64];
pub const SIGNED: &[ScalarType] = &[S16, S32, S64];
pub const FLOATS: &[ScalarType] = &[F32, F64];
pub const BITS: &[ScalarType] = &[B16, B32, B64];

/// Decodes one instruction statement. Errors are reported on `cx`; `None` means it was invalid.
pub(crate) fn decode(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) -> Option<Inst> {
    let guard = match &i.guard {
        Some(g) => Some(cx.guard(g)?),
        None => None,
    };
    let mut m = Mods::new(i);
    let op = match i.opcode.node {
        // --- float ---
        "add" | "sub" | "mul" | "mad" | "div" | "abs" | "neg" | "min" | "max"
            if float::has_float_type(i) =>
        {
            float::decode(cx, i, &mut m)
        }
        "fma" | "testp" | "copysign" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2"
        | "tanh" => float::decode(cx, i, &mut m),
        "set" => cmp::set(cx, i, &mut m).map(Op::Set),
        "slct" => cmp::slct(cx, i, &mut m).map(Op::Slct),
        // --- end float ---
        // --- integer, extended precision, logic/shift, prmt ---
        "add" | "sub" | "mad" if int::has_modifier(i, "cc") => {
            extended::carry(cx, i, &mut m).map(Op::Carry)
        }
        "addc" | "subc" | "madc" => extended::carry(cx, i, &mut m).map(Op::Carry),
        "add" | "sub" | "min" | "max" if int::is_simd(i) => int::simd(cx, i, &mut m).map(Op::Simd),
        "mul24" => int::mul24(cx, i, &mut m, false).map(Op::Mul24),
        "mad24" => int::mul24(cx, i, &mut m, true).map(Op::Mad24),
        "sad" => int::sad(cx, i, &mut m).map(Op::Sad),
        "popc" => int::count_bits(cx, i, &mut m).map(Op::Popc),
        "clz" => int::count_bits(cx, i, &mut m).map(Op::Clz),
        "bfind" => int::bfind(cx, i, &mut m).map(Op::Bfind),
        "brev" => int::brev(cx, i, &mut m).map(Op::Brev),
        "bfe" => int::bfe(cx, i, &mut m).map(Op::Bfe),
        "bfi" => int::bfi(cx, i, &mut m).map(Op::Bfi),
        "bmsk" => int::bmsk(cx, i, &mut m).map(Op::Bmsk),
        "szext" => int::szext(cx, i, &mut m).map(Op::Szext),
        "dp4a" => int::dot(cx, i, &mut m, false).map(Op::Dp4a),
        "dp2a" => int::dot(cx, i, &mut m, true).map(Op::Dp2a),
        "cnot" => logic::cnot(cx, i, &mut m).map(Op::Cnot),
        "lop3" => logic::lop3(cx, i, &mut m).map(|l| Op::Lop3(Box::new(l))),
        "shf" => logic::shf(cx, i, &mut m).map(Op::Shf),
        "prmt" => permute::prmt(cx, i, &mut m).map(Op::Prmt),
        // --- end integer ---
        // --- warp-level matrix instructions ---
        "ldmatrix" => matrix::ldmatrix(cx, i, &mut m).map(|l| Op::Ldmatrix(Box::new(l))),
        "stmatrix" => matrix::stmatrix(cx, i, &mut m).map(|s| Op::Stmatrix(Box::new(s))),
        "movmatrix" => matrix::movmatrix(cx, i, &mut m).map(|v| Op::Movmatrix(Box::new(v))),
        "mma" => matrix::mma(cx, i, &mut m).map(|x| Op::Mma(Box::new(x))),
        "wmma" => matrix::wmma(cx, i, &mut m).map(|w| Op::Wmma(Box::new(w))),
        "wgmma" => wgmma::wgmma(cx, i, &mut m).map(Op::Wgmma),
        // --- textures ---
        "tex" => texture::tex(cx, i, &mut m).map(|t| Op::Tex(Box::new(t))),
        "tld4" => texture::tld4(cx, i, &mut m).map(|t| Op::Tld4(Box::new(t))),
        "txq" => texture::txq(cx, i, &mut m).map(Op::Txq),
        // --- end textures ---
        "add" => arith::add(cx, i, &mut m).map(Op::Add),
        "sub" => arith::add(cx, i, &mut m).map(Op::Sub),
        "mul" => arith::mul(cx, i, &mut m).map(Op::Mul),
        "mad" => arith::mad(cx, i, &mut m).map(Op::Mad),
        "div" => arith::div(cx, i, &mut m).map(Op::Div),
        "rem" => arith::rem(cx, i, &mut m).map(Op::Rem),
        "abs" => arith::abs_neg(cx, i, &mut m, false).map(Op::Abs),
        "neg" => arith::abs_neg(cx, i, &mut m, true).map(Op::Neg),
        "min" => arith::min_max(cx, i, &mut m).map(Op::Min),
        "max" => arith::min_max(cx, i, &mut m).map(Op::Max),
        "setp" => cmp::setp(cx, i, &mut m).map(Op::Setp),
        "selp" => cmp::selp(cx, i, &mut m).map(Op::Selp),
        "and" => logic::bitwise(cx, i, &mut m, 3).map(Op::And),
        "or" => logic::bitwise(cx, i, &mut m, 3).map(Op::Or),
        "xor" => logic::bitwise(cx, i, &mut m, 3).map(Op::Xor),
        "not" => logic::bitwise(cx, i, &mut m, 2).map(Op::Not),
        "shl" => logic::shift(cx, i, &mut m, false).map(Op::Shl),
        "shr" => logic::shift(cx, i, &mut m, true).map(Op::Shr),
        "mov" => data::mov(cx, i, &mut m).map(Op::Mov),
        "ld" => ldst::ld(cx, i, &mut m).map(Op::Ld),
        "st" => ldst::st(cx, i, &mut m).map(Op::St),
        "cvta" => data::cvta(cx, i, &mut m).map(Op::Cvta),
        // --- data movement and conversion ---
        "cvt" if i.modifiers.iter().any(|m| m.node == "pack") => {
            convert::cvt_pack(cx, i, &mut m).map(Op::CvtPack)
        }
        "cvt" if narrow::is_narrow(i) => {
            narrow::cvt_narrow(cx, i, &mut m).map(|c| Op::CvtNarrow(Box::new(c)))
        }
        "cvt" => convert::cvt(cx, i, &mut m).map(Op::Cvt),
        "isspacep" => data::isspacep(cx, i, &mut m).map(Op::Isspacep),
        // --- front end: indirect branches and calls, async copies, misc ---
        "call" if !control::is_direct_call(cx, i) => {
            control::call_indirect(cx, i, &mut m).map(|c| Op::CallIndirect(Box::new(c)))
        }
        "brx" => control::brx_idx(cx, i, &mut m).map(Op::BrxIdx),
        "cp" => async_copy::cp(cx, i, &mut m).map(Op::AsyncCopy),
        "nanosleep" => misc::nanosleep(cx, i, &mut m).map(Op::Nanosleep),
        "griddepcontrol" => misc::griddepcontrol(cx, i, &mut m).map(Op::NoEffect),
        "setmaxnreg" => misc::setmaxnreg(cx, i, &mut m).map(Op::NoEffect),
        "createpolicy" => misc::createpolicy(cx, i, &mut m).map(Op::CreatePolicy),
        "mapa" => misc::cluster_query(cx, i, &mut m, true).map(Op::ClusterQuery),
        "getctarank" => misc::cluster_query(cx, i, &mut m, false).map(Op::ClusterQuery),
        "elect" => warp::elect(cx, i, &mut m).map(Op::Elect),
        "mbarrier" => mbarrier::mbarrier(cx, i, &mut m).map(|b| match b {
            MbarrierInst::Object(o) => Op::Mbarrier(o),
            MbarrierInst::PendingCount(p) => Op::MbarrierPending(p),
        }),
        "vmad" => video::mad(cx, i, &mut m).map(|v| Op::VideoMad(Box::new(v))),
        v if v.starts_with('v') && video::video_op(v).is_some() => match video::video_op(v) {
            Some((op, 1)) => video::scalar(cx, i, &mut m, op).map(|s| Op::VideoScalar(Box::new(s))),
            Some((op, lanes)) => {
                video::simd(cx, i, &mut m, op, lanes).map(|s| Op::VideoSimd(Box::new(s)))
            }
            None => None,
        },
        // --- end front end ---
        "bra" => control::bra(cx, i, &mut m).map(Op::Bra),
        "call" => control::call(cx, i, &mut m).map(Op::Call),
        "bar" if i.modifiers.first().is_some_and(|m| m.node == "warp") => {
            m.flag("warp");
            m.flag("sync");
            warp::warp_sync(cx, i).map(Op::WarpSync)
        }
        "bar" | "barrier" => sync::bar(cx, i, &mut m).map(Op::Bar),
        // --- warps and atomics ---
        "shfl" => warp::shfl(cx, i, &mut m).map(|s| Op::Shfl(Box::new(s))),
        "vote" => warp::vote(cx, i, &mut m).map(Op::Vote),
        "match" => warp::match_sync(cx, i, &mut m).map(Op::Match),
        "activemask" => warp::activemask(cx, i, &mut m).map(Op::ActiveMask),
        "redux" => warp::redux(cx, i, &mut m).map(Op::Redux),
        "atom" => atom::atom(cx, i, &mut m, false).map(Op::Atom),
        "red" => atom::atom(cx, i, &mut m, true).map(Op::Atom),
        "membar" | "fence" => fence::fence(cx, i, &mut m),
        // --- data movement and conversion ---
        "ldu" => ldst::ldu(cx, i, &mut m).map(Op::Ld),
        "prefetch" => data::prefetch(cx, i, &mut m, false).map(|_| Op::Prefetch),
        "prefetchu" => data::prefetch(cx, i, &mut m, true).map(|_| Op::Prefetch),
        "ret" => control::no_operands(cx, i, &mut m, &["uni"]).map(|_| Op::Ret),
        "exit" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Exit),
        "trap" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Trap { breakpoint: false }),
        "brkpt" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Trap { breakpoint: true }),
        other => {
            cx.error(
                Diagnostic::error(
                    i.opcode.span,
                    format!("unknown or unsupported instruction `{other}`"),
                )
                .with_label("not an instruction ptxvk translates yet"),
            );
            return None;
        }
    };
    let errors = if op.is_some() {
        m.finish()
    } else {
        std::mem::take(&mut m.errors)
    };
    let failed = !errors.is_empty();
    for e in errors {
        cx.error(e);
    }
    if failed {
        return None;
    }
    Some(Inst {
        guard,
        op: op?,
        span: i.span,
    })
}

/// The operands, which must be exactly `n`.
pub(super) fn operands<'o, 'a>(
    cx: &mut FnCx<'_, '_>,
    i: &'o ast::Instruction<'a>,
    n: usize,
) -> Option<&'o [ast::Operand<'a>]> {
    if i.operands.len() != n {
        let found = i.operands.len();
        cx.error(
            Diagnostic::error(
                i.span,
                format!(
                    "`{}` takes {n} operand{}, found {found}",
                    i.opcode.node,
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_label(format!("expected {n}")),
        );
        return None;
    }
    Some(&i.operands)
}

/// State-space modifiers of memory instructions; `None` means generic.
pub(super) fn space_modifier(m: &mut Mods<'_, '_>) -> Option<StateSpace> {
    m.pick(&[
        ("global", StateSpace::Global),
        ("shared", StateSpace::Shared),
        ("shared::cta", StateSpace::Shared),
        // A cluster is one block (docs/decisions/0102-clusters-are-one-block.md): its shared
        // memory is the block's.
        ("shared::cluster", StateSpace::Shared),
        ("local", StateSpace::Local),
        ("param", StateSpace::Param),
        ("param::entry", StateSpace::Param),
        ("param::func", StateSpace::Param),
        ("const", StateSpace::Const),
    ])
}
