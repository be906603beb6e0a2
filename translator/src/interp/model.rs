//! What a run starts from ([`Inputs`], [`Workgroup`]) and what it reports ([`Outcome`],
//! [`GroupOutcome`]).

use std::collections::BTreeMap;

/// Where `Builtin::StatusAddress` points: the launch's status word, 0 until a thread fails.
pub const STATUS_ADDRESS: u64 = 0xF000_0000;

/// What a run starts from.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The kernel's parameters (`Op::Param`), as bits.
    pub params: Vec<u64>,
    /// Makes the values of variables read before they are written, and of built-ins.
    pub seed: u64,
    /// Instructions and terminators each invocation may execute before the run stops with
    /// [`crate::interp::Stop::OutOfFuel`].
    pub fuel: u64,
    /// The run ends, [`Outcome::cut`], once this many events happened: a bound on programs
    /// that may not end, at a point both forms of a program reach together.
    pub max_events: usize,
    /// PTX `.local` frames, for a module whose recursion is not yet made explicit: per
    /// function, the local words that belong to one activation of it. A call saves its
    /// caller's and restores them when it returns, so that a recursive call cannot change
    /// them (what `ir::recursion` implements with a stack). Empty: the arena is one array.
    pub frames: Vec<std::ops::Range<u64>>,
    /// Values the variables with these names start from, in every activation, in place of
    /// values made from the seed: the state a test sets before a function runs.
    pub var_starts: Vec<(String, u64)>,
    /// The variables, by name, whose stores are events ([`Event::VarStore`]): a function's
    /// history of them, to compare with a form of it that keeps them (emitted SPIR-V).
    pub traced_vars: Vec<String>,
}

impl Inputs {
    pub fn new(params: Vec<u64>, seed: u64) -> Inputs {
        Inputs {
            params,
            seed,
            fuel: 1_000_000,
            max_events: usize::MAX,
            frames: Vec::new(),
            var_starts: Vec::new(),
            traced_vars: Vec::new(),
        }
    }
}

/// The workgroup a run launches: its invocations are numbered linearly (`x` fastest), a warp is
/// 32 consecutive invocations and a device subgroup `subgroup` of them.
#[derive(Clone, Copy, Debug)]
pub struct Workgroup {
    /// The block's shape (`Builtin::BlockDim`).
    pub dims: [u32; 3],
    /// Invocations per device subgroup (`Builtin::SubgroupLane`, `WarpOp::SubgroupRead`).
    pub subgroup: u32,
    /// The shared word `Builtin::ScratchBase` names: where the SIMT emulation's scratch starts.
    pub scratch_base: u64,
}

impl Workgroup {
    pub fn threads(&self) -> u32 {
        self.dims.iter().product()
    }
}

/// Where a store went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
}

/// What another thread or the host could see happen, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Store {
        space: Space,
        at: u64,
        bits: u64,
    },
    VolatileLoad {
        at: u64,
    },
    Atomic {
        space: Space,
        at: u64,
        old: u64,
        new: u64,
    },
    Barrier,
    Fence,
    /// A store to a variable named in [`Inputs::traced_vars`].
    VarStore {
        name: String,
        bits: u64,
    },
}

/// What a run on one thread did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The kernel's return values; empty when it ended by `exit`.
    pub returned: Vec<u64>,
    pub exited: bool,
    /// Every byte of global memory written, by address.
    pub global: BTreeMap<u64, u8>,
    /// Every word of shared memory written, by index.
    pub shared: BTreeMap<u64, u32>,
    pub events: Vec<Event>,
    /// The run was ended at [`Inputs::max_events`] events.
    pub cut: bool,
}

impl Outcome {
    /// Where `self` and `other` first differ, in words; `None` when they are equal.
    pub fn difference(&self, other: &Outcome) -> Option<String> {
        if let Some(d) = first_event_difference(&self.events, &other.events) {
            return Some(d);
        }
        if self.returned != other.returned || self.exited != other.exited {
            return Some(format!(
                "returned {:?} (exited: {}) against {:?} (exited: {})",
                self.returned, self.exited, other.returned, other.exited
            ));
        }
        if self.global != other.global || self.shared != other.shared || self.cut != other.cut {
            return Some("the memory left differs".into());
        }
        None
    }
}

fn first_event_difference(a: &[Event], b: &[Event]) -> Option<String> {
    let k = (0..a.len().max(b.len())).find(|&k| a.get(k) != b.get(k))?;
    Some(format!("event {k}: {:?} against {:?}", a.get(k), b.get(k)))
}

/// How one invocation of a workgroup ended, and what it did in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadEnd {
    /// The kernel's return values; empty when it ended by `exit`.
    pub returned: Vec<u64>,
    pub exited: bool,
    /// This invocation's events in its order (the order between invocations is the
    /// scheduler's, which no program may rely on between synchronization points).
    pub events: Vec<Event>,
}

/// What a run of a workgroup did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOutcome {
    /// Per invocation, by linear index.
    pub threads: Vec<ThreadEnd>,
    pub global: BTreeMap<u64, u8>,
    pub shared: BTreeMap<u64, u32>,
    pub cut: bool,
}

impl GroupOutcome {
    /// Where `self` and `other` first differ, in words; `None` when they are equal.
    pub fn difference(&self, other: &GroupOutcome) -> Option<String> {
        if self.threads.len() != other.threads.len() {
            return Some(format!(
                "{} invocations against {}",
                self.threads.len(),
                other.threads.len()
            ));
        }
        for (t, (a, b)) in self.threads.iter().zip(&other.threads).enumerate() {
            if let Some(d) = first_event_difference(&a.events, &b.events) {
                return Some(format!("invocation {t}: {d}"));
            }
            if a.returned != b.returned || a.exited != b.exited {
                return Some(format!(
                    "invocation {t} returned {:?} (exited: {}) against {:?} (exited: {})",
                    a.returned, a.exited, b.returned, b.exited
                ));
            }
        }
        if let Some((at, x, y)) = first_map_difference(&self.global, &other.global) {
            return Some(format!("global byte {at:#x}: {x:?} against {y:?}"));
        }
        if let Some((at, x, y)) = first_map_difference(&self.shared, &other.shared) {
            return Some(format!("shared word {at}: {x:?} against {y:?}"));
        }
        (self.cut != other.cut).then(|| format!("cut: {} against {}", self.cut, other.cut))
    }
}

fn first_map_difference<T: PartialEq + Copy>(
    a: &BTreeMap<u64, T>,
    b: &BTreeMap<u64, T>,
) -> Option<(u64, Option<T>, Option<T>)> {
    a.keys()
        .chain(b.keys())
        .copied()
        .filter(|k| a.get(k) != b.get(k))
        .min()
        .map(|k| (k, a.get(&k).copied(), b.get(&k).copied()))
}

/// A well-mixed 64-bit value of `x` (SplitMix64's finalizer).
pub(super) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

pub(super) fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
    })
}
