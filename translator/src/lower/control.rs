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

pub fn exit(cx: &mut Cx<'_>) {
    if cx.func.kind == crate::ast::FunctionKind::Func {
        cx.unsupported("`exit` inside a device function");
        return;
    }
    cx.terminate(Terminator::Exit);
}
