//! The meaning of control-flow instructions: `bra`, `ret`, `exit`, `trap`, `brkpt`.

use super::Cx;
use crate::check::inst::Bra;
use crate::ir::{Builtin, Op, Ordering, Ptr, Scope, Terminator, Ty};

pub fn bra(cx: &mut Cx<'_>, b: &Bra) {
    let target = cx.label_block(b.target);
    cx.terminate(Terminator::Jump(target));
}

pub fn ret(cx: &mut Cx<'_>) {
    let values = super::call::return_values(cx);
    cx.terminate(Terminator::Return(values));
}

/// `exit` ends the thread; in a device function too (such functions are inlined into the kernel:
/// `ir::inline`).
pub fn exit(cx: &mut Cx<'_>) {
    cx.terminate(Terminator::Exit);
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
    let code = cx.konst(Ty::I32, u64::from(cx.site_base + cx.sites.len() as u32));
    let status = cx.emit(Ty::I64, Op::Builtin(Builtin::StatusAddress));
    let zero = cx.konst(Ty::I32, 0);
    cx.emit(
        Ty::I32,
        Op::AtomicCas {
            ptr: Ptr::Global(status),
            compare: zero,
            value: code,
            scope: Scope::Device,
            sem: Ordering::Relaxed,
        },
    );
    cx.terminate(Terminator::Exit);
}
