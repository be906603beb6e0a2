//! Random well-formed IR, seeded, for checking passes against the interpreter: straight-line
//! integer and float arithmetic, branches and switches, loops whose trip counts are bounded,
//! loads and stores of a local array, global stores that make results observable, and calls
//! (optionally recursive ones, at most [`DEPTH`] deep).
//!
//! Every program it makes is defined for every input: divisors are odd, shift amounts under
//! the width, no float is converted to an integer, each back edge is taken at most
//! [`TRIPS`] times, and every variable and local word is written before it is read.
//!
//! [`warp_kernel`] makes kernels for a workgroup: their variables start from the invocation's
//! index, so that branches and loops diverge, each invocation keeps to its own global words,
//! warp operations (lane reads in every `shfl` mode, ballots, matches, reductions) stand in
//! uniform and divergent control flow, alone in their blocks as lowering leaves them, and a
//! workgroup barrier that every invocation still running reaches exchanges words of shared
//! memory.

mod function;
mod inst;
mod values;
mod warp;

use crate::ir::recursion::LocalArena;
use crate::ir::{FuncId, Function, Module, Ty, ValueId, VarId};

/// Times each back edge may be taken in one call.
pub const TRIPS: u64 = 3;

/// Calls a recursive function may nest (its first parameter, at most this).
pub const DEPTH: u64 = 2;

/// Words of each function's local array.
pub const LOCAL_WORDS: u32 = 8;

/// A linear congruential generator: enough to vary programs, and stable across platforms.
pub struct Rng(pub u64);

impl Rng {
    pub fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }

    pub fn bits(&mut self) -> u64 {
        let hi = self.pick(1 << 30) as u64;
        let lo = self.pick(1 << 30) as u64;
        (hi << 34) ^ (lo << 4) ^ self.pick(16) as u64
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.pick(100) < percent
    }
}

/// What a module's functions may do.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Blocks of random code per function (besides its entry and exit).
    pub blocks: usize,
    /// Functions besides the kernel, each called from those before it.
    pub callees: usize,
    /// The last callee calls itself (at most [`DEPTH`] deep).
    pub recursive: bool,
    /// A callee may end the thread by `exit`.
    pub exits: bool,
}

/// The parameters every generated function takes: an `I32` and an `I64`.
pub const PARAMS: [Ty; 2] = [Ty::I32, Ty::I64];

/// A module of shape `shape`: the kernel is function 0.
pub fn module(rng: &mut Rng, shape: Shape) -> Module {
    let n = 1 + shape.callees;
    let functions = (0..n)
        .map(|k| {
            let recursive = shape.recursive && k + 1 == n && k > 0;
            let exits = shape.exits && k > 0;
            Gen::new(rng, k as u32, n as u32, recursive, exits).function(shape.blocks)
        })
        .collect();
    Module {
        functions,
        entry: FuncId(0),
        local_words: n as u32 * LOCAL_WORDS,
        ..Module::default()
    }
}

/// A kernel with `blocks` blocks of random code for a workgroup (see the module's text), taking
/// the parameters [`PARAMS`] and returning nothing.
pub fn warp_kernel(rng: &mut Rng, blocks: usize) -> Module {
    let mut g = Gen::new(rng, 0, 1, false, true);
    g.warps = true;
    g.f.returns.clear();
    let mut f = g.function(blocks);
    f.may_sync = true;
    Module {
        functions: vec![f],
        entry: FuncId(0),
        local_words: LOCAL_WORDS,
        ..Module::default()
    }
}

/// Bytes of global memory each invocation of a [`warp_kernel`] keeps to.
const THREAD_BYTES: u64 = 0x2000;

/// The local arena of a module [`module`] made, as lowering describes it to the recursion
/// pass: each function's array is its frame, and the stack follows them all.
pub fn local_arena(m: &Module) -> LocalArena {
    let n = m.functions.len() as u32;
    LocalArena {
        stack_pointer: n * LOCAL_WORDS,
        frames: (0..n)
            .map(|k| k * LOCAL_WORDS..(k + 1) * LOCAL_WORDS)
            .collect(),
        overflow_status: 1,
        bases: vec![None; n as usize],
    }
}

/// The PTX frames of a module [`module`] made (see [`crate::interp::Inputs::frames`]).
pub fn frames(m: &Module) -> Vec<std::ops::Range<u64>> {
    let words = u64::from(LOCAL_WORDS);
    (0..m.functions.len() as u64)
        .map(|k| k * words..(k + 1) * words)
        .collect()
}

/// Random inputs for a generated kernel.
pub fn inputs(rng: &mut Rng) -> crate::interp::Inputs {
    let edge = [0, 1, 0x7FFF_FFFF, 0x8000_0000, u64::MAX];
    let mut pick = |bits: u64| {
        let x = if rng.chance(30) {
            edge[rng.pick(edge.len())]
        } else {
            rng.bits()
        };
        x & bits
    };
    let params = vec![pick(0xFFFF_FFFF), pick(u64::MAX)];
    crate::interp::Inputs::new(params, rng.bits())
}

struct Gen<'r> {
    rng: &'r mut Rng,
    f: Function,
    /// This function's index, and how many the module has.
    me: u32,
    count: u32,
    recursive: bool,
    exits: bool,
    vars: Vec<VarId>,
    /// The recursion depth left (recursive functions only).
    depth: Option<VarId>,
    /// Calls this function may still make (a recursive one's calls multiply).
    calls_left: u32,
    /// Values of the block being filled: a value lives in its block only.
    have: Vec<ValueId>,
    /// A kernel for a workgroup ([`warp_kernel`]).
    warps: bool,
    /// With `warps`: the invocation's linear index, a predicate and a source lane that warp
    /// operations take.
    tid: Option<VarId>,
    pred: Option<VarId>,
    src: Option<VarId>,
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng, me: u32, count: u32, recursive: bool, exits: bool) -> Gen<'r> {
        let mut f = Function::new(format!("f{me}"));
        f.params = PARAMS.to_vec();
        f.returns = vec![Ty::I32];
        Gen {
            rng,
            f,
            me,
            count,
            recursive,
            exits,
            vars: Vec::new(),
            depth: None,
            calls_left: if recursive { 1 } else { 4 },
            have: Vec::new(),
            warps: false,
            tid: None,
            pred: None,
            src: None,
        }
    }
}
