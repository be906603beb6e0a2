//! The meaning of control-flow instructions: `bra`, `brx.idx`, `ret`, `exit`, `trap`, `brkpt`.

use super::cx::Cx;
use crate::check::inst::{Bra, BrxIdx};
use crate::ir::build::Build;
use crate::ir::{Terminator, Ty};
use crate::types::ScalarType;

pub fn bra(cx: &mut Cx<'_>, b: &Bra) {
    let target = cx.label_block(b.target);
    cx.b.terminate(Terminator::Jump(target));
}

pub fn ret(cx: &mut Cx<'_>) {
    let values = super::call::return_values(cx);
    cx.b.terminate(Terminator::Return(values));
}

/// `exit` ends the thread; in a device function too (such functions are inlined into the kernel:
/// `ir::inline`).
pub fn exit(cx: &mut Cx<'_>) {
    cx.b.terminate(Terminator::Exit);
}

/// `brx.idx`: a multi-way branch. An index past the list is undefined in PTX; here it falls
/// through to the next instruction.
pub fn brx_idx(cx: &mut Cx<'_>, b: &BrxIdx) {
    let value = cx.read(&b.index, ScalarType::U32);
    let targets = b.targets.iter().map(|l| cx.label_block(*l)).collect();
    let next = cx.b.f.new_block();
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Switch {
        value,
        targets,
        default: next,
    };
    cx.b.cur = next;
}

/// `trap` aborts the launch: CUDA reports the launch as failed. The thread records its site in the
/// launch's status word (the first failure wins; the runtime turns it into
/// `Error::KernelFailed` naming the instruction) and ends. Other threads run on: PTX does not say
/// when the rest of the grid stops, and their results are void anyway. `brkpt` with no debugger
/// attached fails the launch the same way.
pub fn trap(cx: &mut Cx<'_>, breakpoint: bool) {
    let what = if breakpoint {
        "breakpoint (`brkpt`, no debugger attached)"
    } else {
        "`trap`"
    };
    cx.sites.push((cx.span, what.to_string()));
    let code =
        cx.b.konst(Ty::I32, u64::from(cx.site_base + cx.sites.len() as u32));
    let cur = cx.b.cur;
    cx.b.f.report_status(cur, code);
    cx.b.terminate(Terminator::Exit);
}
