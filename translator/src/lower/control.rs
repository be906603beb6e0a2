//! The meaning of control-flow instructions: `bra`, `ret`, `exit`.

use super::Cx;
use crate::check::inst::Bra;
use crate::ir::Terminator;

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
