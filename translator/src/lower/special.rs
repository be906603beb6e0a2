//! Special registers (ISA 10): how each is computed from what Vulkan provides. The ones Vulkan
//! has no counterpart for are defined here (see `read`): `%smid` 0 of `%nsmid` 1, `%gridid` 0,
//! `%envregN` and `%pmN` 0; the cycle counters read VK_KHR_shader_clock's subgroup clock where
//! the device has it, and `%globaltimer` (and the cycle counters elsewhere) a per-invocation
//! counter that every read advances (see `counter`).
//!
//! A warp is always 32 consecutive linear thread ids (x fastest, then y, then z), as in CUDA.
//! With native subgroups the linear id is built from the subgroup ids (so the warp/subgroup
//! correspondence holds whatever order the driver gives invocations) and `%tid` is derived from
//! it; with the SIMT emulation `%tid` is `LocalInvocationId` and lanes follow from it.

use super::cx::Cx;
use crate::ast::Component;
use crate::check::SpecialReg;
use crate::ir::build::Build;
use crate::ir::{BinOp, Builtin, ConvOp, Op, Ty, UnOp, ValueId};
use crate::profile::WarpStrategy;

fn builtin(cx: &mut Cx<'_>, b: Builtin) -> ValueId {
    cx.b.emit(Ty::I32, Op::Builtin(b))
}

/// The thread's index in its block, x fastest: computed once per function, at the end of its
/// first block (which dominates every other and is never a branch target), and read from a
/// variable that emission replaces by the value. Computed at each read, `%laneid` and each
/// warp operation cost 11 more SPIR-V instructions under the SIMT emulation.
pub fn linear_tid(cx: &mut Cx<'_>) -> ValueId {
    if let Some(var) = cx.linear_tid {
        return cx.b.load_var(var);
    }
    let entry = cx.b.f.entry;
    let f = &mut cx.b.f;
    let mut emit = |ty: Ty, op: Op| f.push(entry, ty, op);
    let t = match cx.profile.warp_strategy() {
        WarpStrategy::Emulated => crate::ir::linear_local_id(emit),
        WarpStrategy::Native32 | WarpStrategy::Partitioned(_) => {
            let size = match cx.profile.warp_strategy() {
                WarpStrategy::Partitioned(n) => n,
                _ => 32,
            };
            let sg = emit(Ty::I32, Op::Builtin(Builtin::SubgroupId));
            let lane = emit(Ty::I32, Op::Builtin(Builtin::SubgroupLane));
            let n = emit(Ty::I32, Op::Const(u64::from(size)));
            let base = emit(Ty::I32, Op::Bin(BinOp::IMul, sg, n, Default::default()));
            emit(
                Ty::I32,
                Op::Bin(BinOp::IAdd, base, lane, Default::default()),
            )
        }
    };
    let var = cx.b.f.new_var(Ty::I32, "linear.tid");
    cx.b.f.push_void(entry, Op::StoreVar(var, t));
    cx.linear_tid = Some(var);
    cx.b.load_var(var)
}

/// `%laneid`: the position in the warp.
pub fn lane_id(cx: &mut Cx<'_>) -> ValueId {
    let t = linear_tid(cx);
    let m = cx.b.konst(Ty::I32, 31);
    cx.b.bin(BinOp::And, t, m)
}

fn tid(cx: &mut Cx<'_>, axis: u8) -> ValueId {
    if cx.profile.warp_strategy() == WarpStrategy::Emulated {
        return builtin(cx, Builtin::LocalId(axis));
    }
    let t = linear_tid(cx);
    let nx = builtin(cx, Builtin::BlockDim(0));
    match axis {
        0 => cx.b.bin(BinOp::UMod, t, nx),
        1 => {
            let ny = builtin(cx, Builtin::BlockDim(1));
            let q = cx.b.bin(BinOp::UDiv, t, nx);
            cx.b.bin(BinOp::UMod, q, ny)
        }
        _ => {
            let ny = builtin(cx, Builtin::BlockDim(1));
            let xy = cx.b.bin(BinOp::IMul, nx, ny);
            cx.b.bin(BinOp::UDiv, t, xy)
        }
    }
}

fn block_threads(cx: &mut Cx<'_>) -> ValueId {
    let x = builtin(cx, Builtin::BlockDim(0));
    let y = builtin(cx, Builtin::BlockDim(1));
    let z = builtin(cx, Builtin::BlockDim(2));
    let xy = cx.b.bin(BinOp::IMul, x, y);
    cx.b.bin(BinOp::IMul, xy, z)
}

/// The value of a special register as a 32- or 64-bit integer.
pub fn read(cx: &mut Cx<'_>, s: SpecialReg, comp: Option<Component>) -> ValueId {
    let axis = comp.map_or(0, |c| c.index() as u8);
    match s {
        SpecialReg::Tid => tid(cx, axis),
        SpecialReg::Ntid => builtin(cx, Builtin::BlockDim(axis)),
        SpecialReg::Ctaid => {
            // Grids larger than one dispatch are split; the push constants hold this part's base.
            let id = builtin(cx, Builtin::WorkgroupId(axis));
            let base = builtin(cx, Builtin::CtaBase(axis));
            cx.b.bin(BinOp::IAdd, id, base)
        }
        SpecialReg::Nctaid | SpecialReg::NClusterId => builtin(cx, Builtin::GridDim(axis)),
        // Every launch is a grid of clusters of one block, none of them asked for by the launch.
        SpecialReg::ClusterId => read(cx, SpecialReg::Ctaid, comp),
        SpecialReg::ClusterCtaId | SpecialReg::ClusterCtaRank => cx.b.konst(Ty::I32, 0),
        SpecialReg::ClusterNCtaId | SpecialReg::ClusterNCtaRank => cx.b.konst(Ty::I32, 1),
        SpecialReg::IsExplicitCluster => cx.b.konst(Ty::Bool, 0),
        SpecialReg::WarpSize => cx.b.konst(Ty::I32, 32),
        SpecialReg::LaneId => lane_id(cx),
        // The ISA allows %warpid to be any warp slot; the warp's index in its block is a valid one.
        SpecialReg::WarpId => {
            let t = linear_tid(cx);
            let five = cx.b.konst(Ty::I32, 5);
            cx.b.bin(BinOp::LShr, t, five)
        }
        SpecialReg::NWarpId => {
            let n = block_threads(cx);
            let k = cx.b.konst(Ty::I32, 31);
            let n = cx.b.bin(BinOp::IAdd, n, k);
            let five = cx.b.konst(Ty::I32, 5);
            cx.b.bin(BinOp::LShr, n, five)
        }
        SpecialReg::LanemaskEq
        | SpecialReg::LanemaskLe
        | SpecialReg::LanemaskLt
        | SpecialReg::LanemaskGe
        | SpecialReg::LanemaskGt => lanemask(cx, s),
        SpecialReg::DynamicSmemSize => builtin(cx, Builtin::DynamicSharedBytes),
        SpecialReg::TotalSmemSize => {
            let d = builtin(cx, Builtin::DynamicSharedBytes);
            let s = cx.b.konst(
                Ty::I32,
                u64::from(cx.layout.dynamic_shared.unwrap_or(cx.layout.shared_bytes)),
            );
            cx.b.bin(BinOp::IAdd, d, s)
        }
        SpecialReg::Clock | SpecialReg::ClockHi | SpecialReg::Clock64 => clock(cx, s),
        // VK_KHR_shader_clock's device clock counts in unspecified units; %globaltimer is
        // defined in nanoseconds, which no Vulkan feature provides.
        SpecialReg::GlobalTimer | SpecialReg::GlobalTimerLo | SpecialReg::GlobalTimerHi => {
            let c = counter(cx);
            split(cx, c, s)
        }
        // The ISA only promises 0 <= %smid < %nsmid (ids need not be contiguous, and a thread's
        // %smid may change); Vulkan does not say which core runs a workgroup, so every thread
        // reports SM 0 of 1.
        SpecialReg::SmId => cx.b.konst(Ty::I32, 0),
        SpecialReg::NSmId => cx.b.konst(Ty::I32, 1),
        // "Temporal grid launch number" for debuggers: ptxvk does not number launches.
        SpecialReg::GridId => cx.b.konst(Ty::I64, 0),
        // Driver-defined environment values and performance counters: ptxvk defines none, so
        // they read as zero.
        SpecialReg::EnvReg(_) | SpecialReg::Pm(_) => cx.b.konst(Ty::I32, 0),
        SpecialReg::Pm64(_) => cx.b.konst(Ty::I64, 0),
    }
}

/// `%clock`, `%clock_hi`, `%clock64`: the subgroup's cycle counter (VK_KHR_shader_clock), or
/// the substitute counter on devices without it.
fn clock(cx: &mut Cx<'_>, s: SpecialReg) -> ValueId {
    let c = if cx.profile.shader_clock {
        cx.b.emit(Ty::I64, Op::Builtin(Builtin::Clock))
    } else {
        counter(cx)
    };
    split(cx, c, s)
}

/// The part of a 64-bit counter that register `s` reads.
fn split(cx: &mut Cx<'_>, c: ValueId, s: SpecialReg) -> ValueId {
    match s {
        SpecialReg::Clock | SpecialReg::GlobalTimerLo => cx.b.conv(ConvOp::Trunc, c, Ty::I32),
        SpecialReg::ClockHi | SpecialReg::GlobalTimerHi => {
            let k = cx.b.konst(Ty::I64, 32);
            let hi = cx.b.bin(BinOp::LShr, c, k);
            cx.b.conv(ConvOp::Trunc, hi, Ty::I32)
        }
        _ => c,
    }
}

/// How far each read of the substitute counter advances it: about what one turn of a loop that
/// reads a clock, subtracts and compares costs on NVIDIA hardware, in cycles or nanoseconds, so
/// that a loop waiting for a span of time ends after a number of turns of the same order as on
/// a GPU.
pub const COUNTER_STEP: u64 = 32;

/// The substitute for a clock the device lacks: a per-invocation 64-bit counter, zero at the
/// function's entry, that each read advances by [`COUNTER_STEP`] before returning it. Reads in
/// one function body are strictly increasing in program order, so `t1 - t0 > 0` holds for any
/// two reads in that order and a loop that waits for the difference to reach a bound ends.
/// The counter is the function's own: a called function starts from zero.
fn counter(cx: &mut Cx<'_>) -> ValueId {
    let var = match cx.clock_counter {
        Some(v) => v,
        None => {
            let entry = cx.b.f.entry;
            let zero = cx.b.f.push(entry, Ty::I64, Op::Const(0));
            let var = cx.b.f.new_var(Ty::I64, "clock.counter");
            cx.b.f.push_void(entry, Op::StoreVar(var, zero));
            cx.clock_counter = Some(var);
            var
        }
    };
    let c = cx.b.load_var(var);
    let step = cx.b.konst(Ty::I64, COUNTER_STEP);
    let next = cx.b.bin(BinOp::IAdd, c, step);
    cx.b.emit_void(Op::StoreVar(var, next));
    next
}

/// `%lanemask_*` from the lane id.
fn lanemask(cx: &mut Cx<'_>, which: SpecialReg) -> ValueId {
    use SpecialReg::*;
    let lane = lane_id(cx);
    let one = cx.b.konst(Ty::I64, 1);
    let lane64 = cx.b.conv(ConvOp::ZExt, lane, Ty::I64);
    let eq = cx.b.bin(BinOp::Shl, one, lane64);
    let lt = cx.b.bin(BinOp::ISub, eq, one);
    let le = cx.b.bin(BinOp::Or, lt, eq);
    let r = match which {
        LanemaskEq => eq,
        LanemaskLt => lt,
        LanemaskLe => le,
        LanemaskGt => cx.b.un(UnOp::Not, le),
        _ => cx.b.un(UnOp::Not, lt),
    };
    cx.b.conv(ConvOp::Trunc, r, Ty::I32)
}
