//! Operands an instruction does not hold in its own 24 bytes, kept so that `Op` stays `Copy`.
//!
//! An `Op` with a `Box` in it has drop glue, and then every `Vec<Inst>::push` keeps the new
//! instruction in a stack temporary across the vector's growth call (to drop it if that
//! unwinds) and copies it from there: two stalled store-to-load forwards per instruction built
//! (`perf`: most of `Builder::emit`'s time, a quarter of lowering's; docs/translation-speed.md).
//! Dropping a function also had to visit every instruction. So operand lists of up to three
//! values live in the instruction ([`Args`]), and calls and texture operations, which are rare
//! and larger, in tables of their function ([`Side`]) that the instruction indexes.

use super::ids::{FuncId, ValueId, VarId};

/// Up to three operands: every GLSL.std.450 instruction we use and every warp operation has at
/// most three.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Args {
    len: u8,
    v: [ValueId; 3],
}

impl Args {
    pub const MAX: usize = 3;

    /// `vals` as operands. More than [`Args::MAX`] is a bug in the caller (lowering picks the
    /// operation, not the input), so it panics rather than dropping operands.
    pub fn new(vals: &[ValueId]) -> Args {
        assert!(
            vals.len() <= Self::MAX,
            "internal error: {} operands for an instruction that holds at most {}",
            vals.len(),
            Self::MAX
        );
        let mut v = [ValueId(0); 3];
        v[..vals.len()].copy_from_slice(vals);
        Args {
            len: vals.len() as u8,
            v,
        }
    }
}

impl From<&[ValueId]> for Args {
    fn from(vals: &[ValueId]) -> Args {
        Args::new(vals)
    }
}

impl<const N: usize> From<[ValueId; N]> for Args {
    fn from(vals: [ValueId; N]) -> Args {
        Args::new(&vals)
    }
}

impl std::fmt::Debug for Args {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::ops::Deref for Args {
    type Target = [ValueId];
    fn deref(&self) -> &[ValueId] {
        &self.v[..self.len as usize]
    }
}

impl std::ops::DerefMut for Args {
    fn deref_mut(&mut self) -> &mut [ValueId] {
        &mut self.v[..self.len as usize]
    }
}

/// A call of its function's [`Side::calls`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallId(pub u32);

/// A texture operation of its function's [`Side::tex_ops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexId(pub u32);

/// A function's calls and texture operations, indexed by its `Op::Call` and `Op::Texture`
/// instructions (each entry by one instruction; an entry whose instruction was removed is
/// simply never read).
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub calls: Vec<Call>,
    pub tex_ops: Vec<TexOp>,
}

impl Side {
    pub fn add_call(&mut self, c: Call) -> CallId {
        self.calls.push(c);
        CallId(self.calls.len() as u32 - 1)
    }

    pub fn add_tex(&mut self, t: TexOp) -> TexId {
        self.tex_ops.push(t);
        TexId(self.tex_ops.len() as u32 - 1)
    }

    pub fn call(&self, c: CallId) -> &Call {
        &self.calls[c.0 as usize]
    }

    pub fn call_mut(&mut self, c: CallId) -> &mut Call {
        &mut self.calls[c.0 as usize]
    }

    pub fn tex(&self, t: TexId) -> &TexOp {
        &self.tex_ops[t.0 as usize]
    }

    pub fn tex_mut(&mut self, t: TexId) -> &mut TexOp {
        &mut self.tex_ops[t.0 as usize]
    }
}

/// Calls `func`; its return values are stored into `results`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub func: FuncId,
    pub args: Vec<ValueId>,
    pub results: Vec<VarId>,
    /// The callee computes its results from its arguments alone (lowering's helper functions):
    /// same arguments, same results, in every thread.
    pub pure: bool,
}

/// An image operation on binding `binding` of [`Module::textures`](super::Module::textures).
#[derive(Clone, Debug, PartialEq)]
pub struct TexOp {
    pub binding: u32,
    pub kind: TexOpKind,
    /// Spatial coordinates, then the array layer: `F32` for samples and gathers, `I32` for
    /// fetches.
    pub coords: Vec<ValueId>,
    /// The depth-compare reference (`Dref` forms).
    pub dref: Option<ValueId>,
    /// Constant texel offsets, one per spatial dimension (`ConstOffset`).
    pub offset: Option<Vec<i32>>,
    /// Four variables, `F32` or `I32` as the binding's sampled kind.
    pub results: Vec<VarId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TexOpKind {
    /// `OpImageSampleExplicitLod` at a level (`F32`).
    SampleLod(ValueId),
    /// `OpImageSampleExplicitLod` with gradients (`F32`, one per spatial dimension).
    SampleGrad(Vec<ValueId>, Vec<ValueId>),
    /// `OpImageFetch` of one texel at an integer level (`I32`).
    Fetch(ValueId),
    /// `OpImageGather` of one component (0-3) of the bilinear footprint.
    Gather(u32),
}
