//! Helper functions: exact emulations that are long (the rounding of `fma` through f64 where
//! the driver does not fuse, the integer fallbacks of `div`, `sqrt` and `fma`) are written once
//! per kernel as an IR function of their operands and called at each use, instead of being
//! written out at each use. A kernel of fused multiply-adds on a driver that does not fuse them
//! was 100 SPIR-V words per `fma`, and an f64 `fma` about 2,900; drivers inline such functions
//! again (Mesa's NIR inlines every call), so the code that runs is the same.

use crate::float_format::FloatFormat;
use crate::float_format::RoundMode;
use crate::ir::{self, FuncId, Ty};

/// What a helper computes: its operation, rounding and format (one function per kind and
/// kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Helper {
    pub what: &'static str,
    pub mode: RoundMode,
    pub fmt: FloatFormat,
}

impl Helper {
    pub(super) fn name(&self) -> String {
        format!(
            "ptxvk.{}.{}.f{}",
            self.what,
            self.mode.modifier(),
            self.fmt.width()
        )
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
    pub(super) fn find(&self, h: Helper) -> Option<(FuncId, Ty)> {
        let i = self.made.iter().position(|(k, _)| *k == h)?;
        Some((FuncId(self.base + i as u32), self.made[i].1.returns[0]))
    }

    /// Adds the function made for `h`; its id.
    pub(super) fn add(&mut self, h: Helper, f: ir::Function) -> FuncId {
        self.made.push((h, f));
        FuncId(self.base + self.made.len() as u32 - 1)
    }

    /// The functions, in id order. One called once stays a function too: inlining it again
    /// would save a few words and cost more time than it saves (measured on the bench module).
    pub fn into_functions(self) -> impl Iterator<Item = ir::Function> {
        self.made.into_iter().map(|(_, f)| f)
    }
}
