//! The variables and values of an operation's frame: where its scratch areas start.

use crate::ir::{ValueId, VarId};

/// Variables holding a frame's invariant parts (see [`Frame`]).
#[derive(Clone, Copy)]
pub(super) struct FrameVars {
    pub(super) t: VarId,
    pub(super) threads: VarId,
    pub(super) lo: VarId,
    pub(super) hi: VarId,
    pub(super) flag: VarId,
    pub(super) vote: VarId,
    pub(super) warp: VarId,
    pub(super) alt: Option<AltVars>,
    pub(super) batch: Option<BatchVars>,
}

/// The two sets of batch areas: where the first starts, the words per thread of one (a flag
/// word and the value words), and which set the next batch takes.
#[derive(Clone, Copy)]
pub(super) struct BatchVars {
    pub(super) base: VarId,
    pub(super) set_words: u32,
    pub(super) which: VarId,
}

/// The second pair of areas of one-word `ReadLane`s, and which pair the next one takes (0: the
/// second).
#[derive(Clone, Copy)]
pub(super) struct AltVars {
    pub(super) lo: VarId,
    pub(super) flag: VarId,
    pub(super) which: VarId,
}

pub(super) struct Frame {
    pub(super) t: ValueId,
    pub(super) threads: ValueId,
    pub(super) lo: ValueId,
    pub(super) hi: ValueId,
    pub(super) flag: ValueId,
    pub(super) vote: ValueId,
    pub(super) warp: ValueId,
    pub(super) active: ValueId,
    pub(super) alt: Option<AltVars>,
}
