//! An interpreter of the IR, for tests: the meaning a pass must keep, run on one thread or on a
//! workgroup of them.
//!
//! It runs a module from its kernel, either as CFGs (after lowering and each IR pass) or as the
//! structured trees `structurize` makes of them, and reports what the run did ([`Outcome`]):
//! the values the kernel returned, the global and shared memory it left, and the observable
//! events (stores to global and shared memory, volatile loads, atomics, barriers and fences,
//! and stores to the variables a test names) in order. Two runs of a function before and after
//! a pass on the same [`Inputs`] must report the same outcome, bit for bit. The local arena is
//! the thread's own scratch (the recursion pass keeps its stack there), so it is not part of
//! the outcome.
//!
//! What is undefined in SPIR-V (a division by zero, a shift past the width, reading a value
//! never defined) stops the run with [`Stop::Undefined`]; operations a single thread cannot
//! mean alone (warp operations, textures) stop it with [`Stop::Unsupported`].
//!
//! [`run_workgroup`] runs every invocation of a [`Workgroup`], each with its own registers and
//! local arena, sharing global and shared memory: they meet at barriers and run warp operations
//! together, with the lanes that reach them (`sched.rs`), so that a function can be compared
//! before and after the SIMT emulation turns its warp operations into exchanges through shared
//! memory ([`GroupOutcome`], each invocation's events in its own order). An invocation's state
//! is explicit (`thread.rs`: a stack of activations, each at a block and instruction or at a
//! path through its tree), so that it stops at a synchronization point and resumes there.
//!
//! Variables read before any store hold a value made from their name and the inputs' seed, so
//! that a pass that drops or renumbers variables reads the same; global memory never written
//! reads as a pattern of its address.
//!
//! Compiled for the crate's tests and, with the `testing` feature, for its integration tests;
//! never in what ships.

mod inst;
mod machine;
mod model;
mod ops;
pub mod random;
mod sched;
#[cfg(test)]
mod tests;
mod thread;
#[cfg(test)]
mod warp_tests;

use crate::ir::{Function, Module};
use crate::structurize::Node;
use machine::Machine;
pub use model::{
    Event, GroupOutcome, Inputs, Outcome, STATUS_ADDRESS, Space, ThreadEnd, Workgroup,
};
pub use ops::Stop;
use thread::End;

/// The text form of every function of `m`, for failure messages.
pub fn text(m: &Module) -> String {
    m.functions.iter().map(|f| f.to_string()).collect()
}

/// Runs `m` from its kernel, every function as its CFG.
pub fn run(m: &Module, inputs: &Inputs) -> Result<Outcome, Stop> {
    one_thread(m, None, inputs)
}

/// Runs `m` from its kernel, each function as its structured tree `trees[k]` (the blocks'
/// terminators are not followed: the tree is the control flow).
pub fn run_structured(m: &Module, trees: &[Vec<Node>], inputs: &Inputs) -> Result<Outcome, Stop> {
    one_thread(m, Some(trees), inputs)
}

/// Runs the lone function `f` as the kernel of a module of its own.
pub fn run_function(f: &Function, inputs: &Inputs) -> Result<Outcome, Stop> {
    run(&single(f), inputs)
}

/// A module whose only function, its kernel, is `f`.
pub fn single(f: &Function) -> Module {
    Module {
        functions: vec![f.clone()],
        ..Module::default()
    }
}

fn one_thread(m: &Module, trees: Option<&[Vec<Node>]>, inputs: &Inputs) -> Result<Outcome, Stop> {
    let mut machine = Machine::new(m, trees, inputs, None);
    let mut threads = vec![machine.thread(0, [0; 3])?];
    let cut = launch(&mut machine, &mut threads)?;
    let own = threads.pop().map(|t| t.own);
    let (returned, exited, events) = match own {
        Some(o) => {
            let (returned, exited) = ended(o.end, cut);
            (returned, exited, o.events)
        }
        None => (Vec::new(), false, Vec::new()),
    };
    Ok(Outcome {
        returned,
        exited,
        global: machine.global.into_iter().collect(),
        shared: machine.shared.into_iter().collect(),
        events,
        cut,
    })
}

/// Runs `m` from its kernel on every invocation of `group`, each function as its tree
/// `trees[k]` where given, else as its CFG.
pub fn run_workgroup(
    m: &Module,
    trees: Option<&[Vec<Node>]>,
    inputs: &Inputs,
    group: &Workgroup,
) -> Result<GroupOutcome, Stop> {
    let mut machine = Machine::new(m, trees, inputs, Some(*group));
    let [nx, ny, nz] = group.dims;
    let mut threads = Vec::with_capacity(group.threads() as usize);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let id = (z * ny + y) * nx + x;
                threads.push(machine.thread(id, [x, y, z])?);
            }
        }
    }
    let cut = launch(&mut machine, &mut threads)?;
    Ok(GroupOutcome {
        threads: threads
            .into_iter()
            .map(|t| {
                let (returned, exited) = ended(t.own.end, cut);
                ThreadEnd {
                    returned,
                    exited,
                    events: t.own.events,
                }
            })
            .collect(),
        global: machine.global.into_iter().collect(),
        shared: machine.shared.into_iter().collect(),
        cut,
    })
}

/// Runs `threads` to their ends; whether the run was cut at its most events.
fn launch<'a>(machine: &mut Machine<'a>, threads: &mut [thread::Thread<'a>]) -> Result<bool, Stop> {
    match machine.schedule(threads) {
        Ok(()) => Ok(false),
        Err(Stop::OutOfFuel) if machine.cut => Ok(true),
        Err(e) => Err(e),
    }
}

/// The values returned and whether the invocation exited, from how it ended.
fn ended(end: Option<End>, cut: bool) -> (Vec<u64>, bool) {
    match end {
        Some(End::Return(v)) if !cut => (v, false),
        Some(End::Exit) if !cut => (Vec::new(), true),
        _ => (Vec::new(), false),
    }
}
