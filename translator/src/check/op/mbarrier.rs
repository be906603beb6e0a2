//! The decoded forms of the instructions that `check/inst/mbarrier.rs` reads.

use crate::check::operand::{Address, Dst, Src};

/// What an `mbarrier` instruction does to its object.
#[derive(Clone, Debug)]
pub enum MbarrierOp {
    Init {
        count: Src,
    },
    Inval,
    ExpectTx {
        tx: Src,
    },
    CompleteTx {
        tx: Src,
    },
    /// An arrive-on operation: `count` arrivals (1 when absent), after an expect-tx of `tx`;
    /// `drop` also lowers the expected count; `state` receives the object as it was before.
    Arrive {
        state: Dst,
        count: Option<Src>,
        tx: Option<Src>,
        drop: bool,
    },
    /// `test_wait`/`try_wait`: whether the phase named by `arg` (a state, or a parity with
    /// `parity`) has completed.
    Wait {
        done: Dst,
        arg: Src,
        parity: bool,
        try_wait: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Mbarrier {
    pub addr: Address,
    pub op: MbarrierOp,
}

/// `mbarrier.pending_count.b64 count, state`.
#[derive(Clone, Debug)]
pub struct MbarrierPending {
    pub dst: Dst,
    pub state: Src,
}

/// A decoded `mbarrier` instruction.
#[derive(Clone, Debug)]
pub enum MbarrierInst {
    Object(Box<Mbarrier>),
    PendingCount(MbarrierPending),
}
