//! Finding the module constant a pointer argument points at (a format string), by following
//! its value back to a variable's address.

use crate::check::inst::CallArg;
use crate::ir::{self, BinOp, Builtin, ConvOp, Op, ValueId, VarId};
use crate::lower::cx::Cx;

/// The bytes (up to the NUL) of the module constant a `.b64` argument points at, when the
/// argument's value is a variable's address plus a constant.
pub(super) fn constant_string(cx: &mut Cx<'_>, a: &CallArg) -> Option<Vec<u8>> {
    let v = match a {
        CallArg::Param(p) => {
            let w0 = *crate::lower::memory::param_words(cx, *p).first()?;
            Trace::new(&cx.b.f).var(w0, 0)?
        }
        CallArg::Value(src, ty) => {
            let v = cx.read(src, *ty);
            Trace::new(&cx.b.f).value(v, 0)?
        }
    };
    let Sym::Globals(off) = v else { return None };
    let (g, start) = cx
        .layout
        .globals
        .iter()
        .map(|(g, o)| (*g, *o))
        .filter(|(g, o)| *o <= off && off < o + cx.module.global(*g).size())
        .min_by_key(|(g, _)| g.0)?;
    let bytes = crate::lower::layout::initial_bytes(cx.module, g)?;
    let from = usize::try_from(off - start).ok()?;
    let tail = bytes.get(from..)?;
    let n = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    Some(tail[..n].to_vec())
}

/// A value followed back to its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    /// The globals buffer's address plus a constant.
    Globals(u64),
    Const(u64),
}

/// Follows values back through variables (each stored once in the function), widenings,
/// narrowings and constant additions. A format string's address is a `mov` of the variable, a
/// `cvta.global` and a `st.param`, often in a block before a loop.
struct Trace<'f> {
    f: &'f ir::Function,
}

impl<'f> Trace<'f> {
    fn new(f: &'f ir::Function) -> Self {
        Trace { f }
    }

    fn def(&self, v: ValueId) -> Option<&'f Op> {
        self.f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .find(|i| i.result == Some(v))
            .map(|i| &i.op)
    }

    /// The value stored into `var`, when exactly one instruction writes it.
    fn var(&self, var: VarId, depth: u32) -> Option<Sym> {
        let mut stored = None;
        for i in self.f.blocks.iter().flat_map(|b| b.insts.iter()) {
            let writes = match i.op {
                Op::StoreVar(w, x) if w == var => Some(x),
                ref op if op.result_vars(&self.f.side).contains(&var) => return None,
                _ => None,
            };
            if let Some(x) = writes {
                if stored.is_some() {
                    return None;
                }
                stored = Some(x);
            }
        }
        self.value(stored?, depth + 1)
    }

    fn value(&self, v: ValueId, depth: u32) -> Option<Sym> {
        if depth > 32 {
            return None;
        }
        match *self.def(v)? {
            Op::Const(k) => Some(Sym::Const(k)),
            Op::Builtin(Builtin::GlobalsBase) => Some(Sym::Globals(0)),
            Op::LoadVar(var) => self.var(var, depth),
            Op::Conv(ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc | ConvOp::Bitcast, x) => {
                self.value(x, depth + 1)
            }
            Op::Bin(BinOp::IAdd, a, b, _) => {
                match (self.value(a, depth + 1)?, self.value(b, depth + 1)?) {
                    (Sym::Globals(x), Sym::Const(y)) | (Sym::Const(y), Sym::Globals(x)) => {
                        Some(Sym::Globals(x.wrapping_add(y)))
                    }
                    (Sym::Const(x), Sym::Const(y)) => Some(Sym::Const(x.wrapping_add(y))),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
