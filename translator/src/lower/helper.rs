//! Helper functions: exact emulations that are long (the rounding of `fma` through f64 where
//! the driver does not fuse, the integer fallbacks of `div`, `sqrt` and `fma`) are written once
//! per kernel as an IR function of their operands and called at each use, instead of being
//! written out at each use. A kernel of fused multiply-adds on a driver that does not fuse them
//! was 100 SPIR-V words per `fma`, and an f64 `fma` about 2,900; drivers inline such functions
//! again (Mesa's NIR inlines every call), so the code that runs is the same.

use super::cx::Cx;
use super::softfloat::Fmt;
use crate::check::inst::Rounding;
use crate::ir::{self, FuncId, Op, Terminator, Ty, ValueId};

/// What a helper computes: its operation, rounding and format (one function per kind and
/// kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Helper {
    pub what: &'static str,
    pub mode: Rounding,
    pub fmt: Fmt,
}

impl Helper {
    fn name(&self) -> String {
        let mode = format!("{:?}", self.mode).to_lowercase();
        format!("ptxvk.{}.{mode}.f{}", self.what, self.fmt.width())
    }
}

/// The helper functions of one kernel, made at their first use; their ids follow the PTX
/// functions' (and memory checking's).
pub(super) struct Helpers {
    base: u32,
    made: Vec<(Helper, ir::Function)>,
}

impl Helpers {
    pub fn new(base: u32) -> Self {
        Helpers {
            base,
            made: Vec::new(),
        }
    }

    /// The function made for `h`, and its result type.
    fn find(&self, h: Helper) -> Option<(FuncId, Ty)> {
        let i = self.made.iter().position(|(k, _)| *k == h)?;
        Some((FuncId(self.base + i as u32), self.made[i].1.returns[0]))
    }

    /// The functions, in id order. One called once stays a function too: inlining it again
    /// would save a few words and cost more time than it saves (measured on the bench module).
    pub fn into_functions(self) -> impl Iterator<Item = ir::Function> {
        self.made.into_iter().map(|(_, f)| f)
    }
}

impl Cx<'_> {
    /// `body(args)`, computed by the kernel's helper function for `h` (made here at its first
    /// use) and called here. `body` must compute its result from its arguments alone: the call
    /// is marked pure, which the SIMT emulation's uniformity analysis relies on.
    pub(super) fn out_of_line(
        &mut self,
        h: Helper,
        args: &[ValueId],
        body: impl FnOnce(&mut Cx<'_>, &[ValueId]) -> ValueId,
    ) -> ValueId {
        let known = self.helpers.borrow().find(h);
        let (func, ret) = match known {
            Some(found) => found,
            None => {
                let mut cx = self.for_helper(ir::Function::new(h.name()));
                let params: Vec<ValueId> = args
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let ty = self.f.ty(a);
                        cx.f.params.push(ty);
                        cx.emit(ty, Op::Param(i as u32))
                    })
                    .collect();
                let r = body(&mut cx, &params);
                let ret = cx.f.ty(r);
                cx.f.returns = vec![ret];
                let end = cx.cur;
                cx.f.block_mut(end).term = Terminator::Return(vec![r]);
                let (f, diags) = cx.into_function();
                self.diags.extend(diags);
                // Made after `body`, which may have made helpers of its own.
                let mut helpers = self.helpers.borrow_mut();
                helpers.made.push((h, f));
                (FuncId(helpers.base + helpers.made.len() as u32 - 1), ret)
            }
        };
        let result = self.f.new_var(ret, "helper.result");
        let call = self.f.side.add_call(ir::Call {
            func,
            args: args.to_vec(),
            results: vec![result],
            pure: true,
        });
        self.emit_void(Op::Call(call));
        self.emit(ret, Op::LoadVar(result))
    }
}
