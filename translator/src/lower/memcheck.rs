//! Checked memory accesses (`DeviceProfile::memcheck`).
//!
//! A wild pointer on a GPU faults the device (the runtime reports a lost device); on a CPU
//! driver such as lavapipe it is a wild pointer in the host process. With checking on, every
//! global access first looks its address up in the launch's table of live allocations (sorted
//! `[start, end)` pairs, padded to a power of two, given by the runtime through push constants)
//! and every shared or local access compares its offset with the arena's size. A failing access
//! writes its site to the launch's status word (the runtime turns it into an error naming the
//! instruction) and goes elsewhere instead: global accesses to the status buffer's scratch
//! bytes, arena accesses to offset 0. The launch's results are then invalid, but nothing outside
//! its memory is touched.
//!
//! The checks are two IR functions called at each access, so that the access stays in its block.

pub(super) mod checkers;

use super::cx::Cx;
use super::memory::Where;
use crate::ir::build::Build;
use crate::ir::{BinOp, Builtin, Op, Ty, ValueId};

impl Cx<'_> {
    /// `w` checked for an access of `bytes` bytes (unchanged when checking is off).
    pub fn checked(&mut self, w: Where, bytes: u32, what: &str) -> Where {
        let Some(c) = self.checkers else {
            return w;
        };
        let (space, size) = match w {
            // A kernel parameter read at a constant offset inside the block.
            Where::Global(a)
                if self.param_access.is_some_and(|(at, offset)| {
                    at == a && offset + u64::from(bytes) <= u64::from(self.param_block)
                }) =>
            {
                return w;
            }
            Where::Global(_) => ("global", None),
            Where::Shared(_) => ("shared", Some(self.shared_limit())),
            Where::Local(_) => ("local", Some(self.local_limit())),
            Where::Generic(_) | Where::ParamVar(..) => return w,
        };
        let span = self.span;
        self.sites.push((
            span,
            format!("out-of-bounds {space} {what} of {bytes} bytes"),
        ));
        let site = self
            .b
            .konst(Ty::I32, u64::from(self.site_base + self.sites.len() as u32));
        let n = self.b.konst(Ty::I32, u64::from(bytes));
        match (w, size) {
            (Where::Global(a), _) => {
                let r = self.b.f.new_var(Ty::I64, "checked.addr");
                // `lower::bounds` may replace the flag with the launch's proof of this site.
                let unproven = self.b.konst(Ty::Bool, 0);
                let call = self.b.f.side.add_call(crate::ir::Call {
                    func: c.global,
                    args: vec![a, n, site, unproven],
                    results: vec![r],
                    pure: false,
                });
                self.b.emit_void(Op::Call(call));
                Where::Global(self.b.emit(Ty::I64, Op::LoadVar(r)))
            }
            (Where::Shared(o) | Where::Local(o), Some(size)) => {
                let r = self.b.f.new_var(Ty::I32, "checked.offset");
                let unproven = self.b.konst(Ty::Bool, 0);
                let call = self.b.f.side.add_call(crate::ir::Call {
                    func: c.arena,
                    args: vec![o, n, size, site, unproven],
                    results: vec![r],
                    pure: false,
                });
                self.b.emit_void(Op::Call(call));
                let v = self.b.emit(Ty::I32, Op::LoadVar(r));
                if matches!(w, Where::Shared(_)) {
                    Where::Shared(v)
                } else {
                    Where::Local(v)
                }
            }
            _ => w,
        }
    }

    /// The shared bytes a kernel may use: its static variables and the launch's dynamic bytes.
    fn shared_limit(&mut self) -> ValueId {
        let Some(start) = self.layout.dynamic_shared else {
            return self.b.konst(Ty::I32, u64::from(self.layout.shared_bytes));
        };
        let start = self.b.konst(Ty::I32, u64::from(start));
        let dynamic = self
            .b
            .emit(Ty::I32, Op::Builtin(Builtin::DynamicSharedBytes));
        self.b.bin(BinOp::IAdd, start, dynamic)
    }

    pub(super) fn local_limit(&mut self) -> ValueId {
        // A function that may recurse may address its frames in the recursion stack, which
        // follows the arena's variables (a stack-pointer word and the stack).
        let stack = match self.local_base {
            Some(_) => 4 * (1 + crate::ir::recursion::STACK_WORDS),
            None => 0,
        };
        self.b
            .konst(Ty::I32, u64::from(self.layout.local_bytes + stack))
    }
}
