//! The data the merge and the call rewriting share: where the stack and each function's frame
//! are in the local arena, and where each member's copy is in the merged function.

use crate::ir::{BlockId, VarId};

/// Words of per-thread stack for recursive calls: 4 KiB (CUDA's default stack is 1 KiB, but it
/// does not hold registers, which frames here do).
pub const STACK_WORDS: u32 = 1024;

/// What the pass needs to know about the module's local arena.
pub struct LocalArena {
    /// Word index of the stack pointer; the stack follows it.
    pub stack_pointer: u32,
    /// For each function, the words of the local arena its own `.local` variables occupy.
    pub frames: Vec<std::ops::Range<u32>>,
    /// The value a stack overflow writes to the launch's status word.
    pub overflow_status: u32,
    /// For each function that calls others, the variable its `.local` addresses are relative
    /// to. Its entry sets it to 0 (the words in `frames`); a call between members of a cycle
    /// gives the callee a frame of its own on the stack instead, so that a pointer into the
    /// caller's frame (a return value passed by address) stays valid during the call.
    pub bases: Vec<Option<VarId>>,
}

/// One member's copy inside the merged function.
pub(super) struct Member {
    pub(super) entry: BlockId,
    pub(super) params: Vec<VarId>,
    pub(super) rets: Vec<VarId>,
    /// Variables of the member's copy (its frame, with the parameters).
    pub(super) vars: Vec<VarId>,
    pub(super) frame: std::ops::Range<u32>,
    /// The copy's `.local` base variable.
    pub(super) base: Option<VarId>,
}
