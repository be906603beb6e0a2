//! The meaning of the instructions that leave a program's results alone: `nanosleep`, proxy
//! fences, `griddepcontrol`, `setmaxnreg`, `createpolicy`; and of the cluster queries `mapa` and
//! `getctarank` for clusters of one block (docs/decisions/0102-clusters-are-one-block.md).

use super::cx::Cx;
use crate::check::inst::{ClusterQuery, NoEffect};
use crate::check::{Dst, Src};
use crate::ir::Ty;
use crate::ir::build::Build;

/// It has no effect on a program's results and Vulkan has no counterpart, so it emits nothing:
/// `nanosleep t` may sleep for any time in [0, 2t] (ISA), and 0 is in that range.
pub fn nanosleep(_cx: &mut Cx<'_>, _t: &Src) {}

/// Each of these emits nothing:
/// - A proxy fence orders one thread's accesses made through different memory proxies (the
///   generic proxy, the async proxy of bulk copies and tensor cores, the tensormap proxy, an
///   alias of the same memory). ptxvk makes every access, async copies included, through the
///   one path SPIR-V has, where a thread's own accesses are already in program order; ordering
///   with other threads comes from the barriers and release/acquire operations the ISA asks for
///   besides. (The unidirectional forms with a scope are also decoded as a fence at that scope.)
/// - `griddepcontrol.launch_dependents` lets a dependent grid start early and
///   `griddepcontrol.wait` waits for the grids this one depends on to complete: ptxvk runs the
///   kernels of a stream one after another, so the prerequisites have completed when a kernel
///   starts and an early start is never taken.
/// - `setmaxnreg` moves registers between warp groups of one SM; a Vulkan driver allocates
///   registers itself.
pub fn no_effect(_cx: &mut Cx<'_>, _what: NoEffect) {}

/// The policy `createpolicy` makes is only ever handed to `.L2::cache_hint` operands, which are
/// hints that ptxvk drops; any value is a valid policy, so it is a constant.
pub fn create_policy(cx: &mut Cx<'_>, dst: &Dst) {
    let policy = cx.b.konst(Ty::I64, 0);
    cx.write(dst, policy);
}

/// In a cluster of one block the only block is rank 0: `mapa` maps an address to the same
/// address (block `b` must be 0, or the ISA leaves the result undefined), and `getctarank` of any
/// shared address is 0.
pub fn cluster_query(cx: &mut Cx<'_>, q: &ClusterQuery) {
    if q.mapa {
        let a = cx.read(&q.a, q.ty);
        cx.write(&q.dst, a);
    } else {
        let rank = cx.b.konst(Ty::I32, 0);
        cx.write(&q.dst, rank);
    }
}
