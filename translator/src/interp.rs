//! An interpreter of the IR, for tests: the meaning a pass must keep, run on one thread.
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
//! mean alone (warp operations, textures) stop it with [`Stop::Unsupported`]. Variables read
//! before any store hold a value made from their name and the inputs' seed, so that a pass
//! that drops or renumbers variables reads the same; global memory never written reads as a
//! pattern of its address.
//!
//! Compiled for the crate's tests and, with the `testing` feature, for its integration tests;
//! never in what ships.

mod ops;
pub mod random;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use crate::ir::{Builtin, Function, MemOrder, Module, Op, Ptr, Terminator, Ty, ValueId};
use crate::structurize::Node;
pub use ops::Stop;
use ops::{atomic, binary, convert, extended, mask, signed, unary};

/// Where `Builtin::StatusAddress` points: the launch's status word, 0 until a thread fails.
pub const STATUS_ADDRESS: u64 = 0xF000_0000;

/// What a run starts from.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The kernel's parameters (`Op::Param`), as bits.
    pub params: Vec<u64>,
    /// Makes the values of variables read before they are written, and of built-ins.
    pub seed: u64,
    /// Instructions and terminators the run may execute before it stops with
    /// [`Stop::OutOfFuel`].
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

/// What a run did.
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
        if let Some(k) = (0..self.events.len().max(other.events.len()))
            .find(|&k| self.events.get(k) != other.events.get(k))
        {
            return Some(format!(
                "event {k}: {:?} against {:?}",
                self.events.get(k),
                other.events.get(k)
            ));
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

/// The text form of every function of `m`, for failure messages.
pub fn text(m: &Module) -> String {
    m.functions.iter().map(|f| f.to_string()).collect()
}

/// Runs `m` from its kernel, every function as its CFG.
pub fn run(m: &Module, inputs: &Inputs) -> Result<Outcome, Stop> {
    Machine::new(m, None, inputs).start()
}

/// Runs `m` from its kernel, each function as its structured tree `trees[k]` (the blocks'
/// terminators are not followed: the tree is the control flow).
pub fn run_structured(m: &Module, trees: &[Vec<Node>], inputs: &Inputs) -> Result<Outcome, Stop> {
    Machine::new(m, Some(trees), inputs).start()
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

/// How a function's body ended.
enum End {
    Return(Vec<u64>),
    Exit,
}

/// Control leaving a structured node.
enum Flow {
    Next,
    Branch(u32),
    End(End),
}

struct Machine<'a> {
    module: &'a Module,
    trees: Option<&'a [Vec<Node>]>,
    seed: u64,
    params: Vec<u64>,
    frames: Vec<std::ops::Range<u64>>,
    var_starts: Vec<(String, u64)>,
    traced_vars: Vec<String>,
    fuel: u64,
    global: HashMap<u64, u8>,
    shared: HashMap<u64, u32>,
    local: HashMap<u64, u32>,
    events: Vec<Event>,
    max_events: usize,
    /// The run is being ended at `max_events` (unwinding as [`Stop::OutOfFuel`]).
    cut: bool,
    clock: u64,
}

/// One call's values and variables.
struct Frame<'a> {
    /// The function, and its index in the module.
    f: &'a Function,
    index: usize,
    params: Vec<u64>,
    values: Vec<Option<u64>>,
    vars: Vec<u64>,
    /// Per variable, whether its stores are events; empty when none are.
    traced: Vec<bool>,
}

/// A well-mixed 64-bit value of `x` (SplitMix64's finalizer).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn hash_str(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
    })
}

impl<'a> Machine<'a> {
    fn new(module: &'a Module, trees: Option<&'a [Vec<Node>]>, inputs: &Inputs) -> Machine<'a> {
        Machine {
            module,
            trees,
            seed: inputs.seed,
            params: inputs.params.clone(),
            frames: inputs.frames.clone(),
            var_starts: inputs.var_starts.clone(),
            traced_vars: inputs.traced_vars.clone(),
            fuel: inputs.fuel,
            global: HashMap::new(),
            shared: HashMap::new(),
            local: HashMap::new(),
            events: Vec::new(),
            max_events: inputs.max_events,
            cut: false,
            clock: 1000,
        }
    }

    fn start(mut self) -> Result<Outcome, Stop> {
        let params = std::mem::take(&mut self.params);
        let (returned, exited) = match self.call(self.module.entry.0 as usize, params) {
            Ok(End::Return(v)) => (v, false),
            Ok(End::Exit) => (Vec::new(), true),
            Err(Stop::OutOfFuel) if self.cut => (Vec::new(), false),
            Err(e) => return Err(e),
        };
        Ok(Outcome {
            returned,
            exited,
            global: self.global.into_iter().collect(),
            shared: self.shared.into_iter().collect(),
            events: self.events,
            cut: self.cut,
        })
    }

    fn event(&mut self, e: Event) -> Result<(), Stop> {
        self.events.push(e);
        if self.events.len() >= self.max_events {
            self.cut = true;
            return Err(Stop::OutOfFuel);
        }
        Ok(())
    }

    fn burn(&mut self) -> Result<(), Stop> {
        self.fuel = self.fuel.checked_sub(1).ok_or(Stop::OutOfFuel)?;
        Ok(())
    }

    fn call(&mut self, k: usize, params: Vec<u64>) -> Result<End, Stop> {
        let module = self.module;
        let f = module
            .functions
            .get(k)
            .ok_or_else(|| Stop::Undefined(format!("call of function {k}, which is not there")))?;
        let seed = self.seed;
        let vars = f
            .vars
            .iter()
            .map(|v| {
                let name = v.name.to_string();
                let start = self.var_starts.iter().find(|(n, _)| *n == name);
                let bits = start.map_or_else(|| mix(seed ^ hash_str(&name)), |s| s.1);
                mask(bits, v.ty)
            })
            .collect();
        let traced = if self.traced_vars.is_empty() {
            Vec::new()
        } else {
            f.vars
                .iter()
                .map(|v| self.traced_vars.contains(&v.name.to_string()))
                .collect()
        };
        let mut frame = Frame {
            f,
            index: k,
            params,
            values: vec![None; f.values.len()],
            vars,
            traced,
        };
        match self.trees {
            Some(trees) => {
                let tree = trees
                    .get(k)
                    .ok_or_else(|| Stop::Undefined(format!("no tree for function {k}")))?;
                match self.seq(&mut frame, tree)? {
                    Flow::End(end) => Ok(end),
                    Flow::Next => Err(Stop::Undefined("fell off the end of a tree".into())),
                    Flow::Branch(d) => Err(Stop::Undefined(format!("branch {d} out of the tree"))),
                }
            }
            None => self.cfg(&mut frame),
        }
    }

    fn cfg(&mut self, fr: &mut Frame<'a>) -> Result<End, Stop> {
        let mut b = fr.f.entry;
        loop {
            let block =
                fr.f.blocks
                    .get(b.0 as usize)
                    .ok_or_else(|| Stop::Undefined(format!("jump to missing block {}", b.0)))?;
            if let Some(end) = self.block(fr, block)? {
                return Ok(end);
            }
            self.burn()?;
            b = match &block.term {
                Terminator::Jump(t) => *t,
                Terminator::Branch { cond, then, else_ } => {
                    if get(fr, *cond)? != 0 {
                        *then
                    } else {
                        *else_
                    }
                }
                Terminator::Switch {
                    value,
                    targets,
                    default,
                } => {
                    let k = get(fr, *value)?;
                    *usize::try_from(k)
                        .ok()
                        .and_then(|k| targets.get(k))
                        .unwrap_or(default)
                }
                Terminator::Return(vals) => return Ok(End::Return(gets(fr, vals)?)),
                Terminator::Exit => return Ok(End::Exit),
                Terminator::Unreachable => {
                    return Err(Stop::Undefined("reached `unreachable`".into()));
                }
            };
        }
    }

    fn seq(&mut self, fr: &mut Frame<'a>, nodes: &[Node]) -> Result<Flow, Stop> {
        for n in nodes {
            match self.node(fr, n)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn node(&mut self, fr: &mut Frame<'a>, n: &Node) -> Result<Flow, Stop> {
        self.burn()?;
        Ok(match n {
            Node::Code(b) => {
                let block =
                    fr.f.blocks
                        .get(b.0 as usize)
                        .ok_or_else(|| Stop::Undefined(format!("missing block {}", b.0)))?;
                match self.block(fr, block)? {
                    Some(end) => Flow::End(end),
                    None => Flow::Next,
                }
            }
            Node::If { cond, then, else_ } => {
                if get(fr, *cond)? != 0 {
                    self.seq(fr, then)?
                } else {
                    self.seq(fr, else_)?
                }
            }
            Node::Switch {
                value,
                cases,
                default,
            } => {
                let k = get(fr, *value)?;
                match usize::try_from(k).ok().and_then(|k| cases.get(k)) {
                    Some(c) => self.seq(fr, c)?,
                    None => self.seq(fr, default)?,
                }
            }
            Node::Block(body) => match self.seq(fr, body)? {
                Flow::Branch(0) => Flow::Next,
                Flow::Branch(d) => Flow::Branch(d - 1),
                other => other,
            },
            Node::Loop(body) => loop {
                self.burn()?;
                match self.seq(fr, body)? {
                    Flow::Branch(0) => continue,
                    Flow::Branch(d) => break Flow::Branch(d - 1),
                    other => break other,
                }
            },
            Node::Branch(d) => Flow::Branch(*d),
            Node::Return(vals) => Flow::End(End::Return(gets(fr, vals)?)),
            Node::Exit => Flow::End(End::Exit),
            Node::Unreachable => return Err(Stop::Undefined("reached `unreachable`".into())),
        })
    }

    /// Runs a block's instructions; `Some` when a call in it ended the thread by `exit`.
    fn block(
        &mut self,
        fr: &mut Frame<'a>,
        block: &'a crate::ir::Block,
    ) -> Result<Option<End>, Stop> {
        for inst in &block.insts {
            self.burn()?;
            let ty = inst.result.map(|r| fr.f.ty(r));
            let r = match self.inst(fr, &inst.op, ty)? {
                Ok(r) => r,
                Err(end) => return Ok(Some(end)),
            };
            match (inst.result, r) {
                (Some(res), Some(x)) => {
                    let ty = fr.f.ty(res);
                    fr.values[res.0 as usize] = Some(mask(x, ty));
                }
                (None, _) => {}
                (Some(res), None) => {
                    return Err(Stop::Unsupported(format!(
                        "{:?} has a result ({res:?}) the interpreter does not know",
                        inst.op
                    )));
                }
            }
        }
        Ok(None)
    }

    /// The result of `op` (`None`: it has none), or how the thread ended inside a call.
    fn inst(
        &mut self,
        fr: &mut Frame<'a>,
        op: &Op,
        ty: Option<Ty>,
    ) -> Result<Result<Option<u64>, End>, Stop> {
        let f = fr.f;
        let r = match op {
            Op::Const(bits) => Some(*bits),
            Op::LoadVar(v) => Some(*fr.vars.get(v.0 as usize).ok_or_else(|| bad_var(v.0))?),
            Op::StoreVar(v, x) => {
                let x = get(fr, *x)?;
                self.store_var(fr, v.0, x)?;
                None
            }
            Op::Param(n) => Some(
                *fr.params
                    .get(*n as usize)
                    .ok_or_else(|| Stop::Undefined(format!("parameter {n} not passed")))?,
            ),
            Op::Un(u, a) => Some(unary(*u, get(fr, *a)?, f.ty(*a))?),
            Op::Bin(b, x, y, _) => Some(binary(*b, get(fr, *x)?, get(fr, *y)?, f.ty(*x))?),
            Op::Select(c, x, y) => Some(if get(fr, *c)? != 0 {
                get(fr, *x)?
            } else {
                get(fr, *y)?
            }),
            Op::Conv(c, a) => {
                let to = result_ty(f, op, ty)?;
                Some(convert(*c, get(fr, *a)?, f.ty(*a), to)?)
            }
            Op::Ext(e, args, _) => {
                let vals = gets(fr, args)?;
                Some(extended(*e, &vals, f.ty(args[0]))?)
            }
            Op::Builtin(b) => Some(self.builtin(*b)),
            Op::Load { ptr, order, .. } => {
                let ty = result_ty(f, op, ty)?;
                let (space, at) = self.address(fr, ptr)?;
                if *order == MemOrder::Volatile {
                    self.event(Event::VolatileLoad { at })?;
                }
                Some(self.read(space, at, ty)?)
            }
            Op::Store { ptr, value, .. } => {
                let (ty, x) = (f.ty(*value), get(fr, *value)?);
                let (space, at) = self.address(fr, ptr)?;
                self.write(space, at, ty, x)?;
                if let Some(space) = visible(space) {
                    self.event(Event::Store { space, at, bits: x })?;
                }
                None
            }
            Op::Atomic {
                op: a, ptr, value, ..
            } => {
                let ty = f.ty(*value);
                let x = get(fr, *value)?;
                Some(self.rmw(fr, ptr, ty, |old| atomic(*a, old, x, ty))?)
            }
            Op::AtomicCas {
                ptr,
                compare,
                value,
                ..
            } => {
                let ty = f.ty(*value);
                let (c, x) = (get(fr, *compare)?, get(fr, *value)?);
                Some(self.rmw(fr, ptr, ty, |old| Ok(if old == c { x } else { old }))?)
            }
            Op::AtomicLoad { ptr, .. } => {
                // Seen like a volatile load: it changes nothing, but must happen.
                let ty = result_ty(f, op, ty)?;
                let (space, at) = self.address(fr, ptr)?;
                self.event(Event::VolatileLoad { at })?;
                Some(self.read(space, at, ty)?)
            }
            Op::AtomicStore { ptr, value, .. } => {
                let (ty, x) = (f.ty(*value), get(fr, *value)?);
                self.rmw(fr, ptr, ty, |_| Ok(x))?;
                None
            }
            Op::Barrier => {
                self.event(Event::Barrier)?;
                None
            }
            Op::Fence(_) => {
                self.event(Event::Fence)?;
                None
            }
            Op::Call(c) => {
                let call = f.side.call(*c);
                let args = gets(fr, &call.args)?;
                let own = self.frames.get(fr.index).cloned().unwrap_or(0..0);
                let saved: Vec<Option<u32>> =
                    own.clone().map(|w| self.local.get(&w).copied()).collect();
                let end = self.call(call.func.0 as usize, args)?;
                for (w, x) in own.zip(saved) {
                    match x {
                        Some(x) => self.local.insert(w, x),
                        None => self.local.remove(&w),
                    };
                }
                match end {
                    End::Exit => return Ok(Err(End::Exit)),
                    End::Return(vals) => {
                        if vals.len() != call.results.len() {
                            return Err(Stop::Undefined(format!(
                                "{} values returned into {} variables",
                                vals.len(),
                                call.results.len()
                            )));
                        }
                        for (v, x) in call.results.iter().zip(vals) {
                            self.store_var(fr, v.0, x)?;
                        }
                    }
                }
                None
            }
            Op::BitExtract {
                signed: s,
                base,
                offset,
                count,
            } => {
                let ty = f.ty(*base);
                let (x, o, c) = (get(fr, *base)?, get(fr, *offset)?, get(fr, *count)?);
                if o + c > u64::from(ty.bits()) {
                    return Err(Stop::Undefined("bit field past the width".into()));
                }
                if c == 0 {
                    Some(0)
                } else {
                    let field = (x >> o) & (u64::MAX >> (64 - c));
                    Some(if *s {
                        signed(field, Ty::int(64)) << (64 - c) >> (64 - c)
                    } else {
                        field as i64
                    } as u64)
                }
            }
            Op::BitInsert {
                base,
                insert,
                offset,
                count,
            } => {
                let ty = f.ty(*base);
                let (x, y) = (get(fr, *base)?, get(fr, *insert)?);
                let (o, c) = (get(fr, *offset)?, get(fr, *count)?);
                if o + c > u64::from(ty.bits()) {
                    return Err(Stop::Undefined("bit field past the width".into()));
                }
                let m = if c == 0 {
                    0
                } else {
                    (u64::MAX >> (64 - c)) << o
                };
                Some((x & !m) | ((y << o) & m))
            }
            Op::Warp(..) | Op::Texture(_) => {
                return Err(Stop::Unsupported(format!("{op:?} on one thread")));
            }
        };
        Ok(Ok(r))
    }

    /// Writes `x` to variable `v` of the frame, an event where the inputs trace it.
    fn store_var(&mut self, fr: &mut Frame<'_>, v: u32, x: u64) -> Result<(), Stop> {
        let var = fr.f.vars.get(v as usize).ok_or_else(|| bad_var(v))?;
        let bits = mask(x, var.ty);
        fr.vars[v as usize] = bits;
        if fr.traced.get(v as usize) == Some(&true) {
            let name = var.name.to_string();
            self.event(Event::VarStore { name, bits })?;
        }
        Ok(())
    }

    fn builtin(&mut self, b: Builtin) -> u64 {
        if b == Builtin::Clock {
            self.clock += 1;
            return self.clock;
        }
        let k = match b {
            Builtin::StatusAddress => return STATUS_ADDRESS,
            Builtin::LocalId(a) => 40 + u64::from(a),
            Builtin::WorkgroupId(a) => 50 + u64::from(a),
            Builtin::BlockDim(a) => return [64, 2, 1][usize::from(a.min(2))],
            Builtin::GridDim(a) => return [8, 4, 1][usize::from(a.min(2))],
            other => hash_str(&format!("{other:?}")),
        };
        mix(self.seed ^ k) & 0xFFFF
    }

    /// The memory `ptr` names: its space, and a byte address (global) or word index.
    fn address(&self, fr: &Frame<'_>, ptr: &Ptr) -> Result<(Mem, u64), Stop> {
        Ok(match ptr {
            Ptr::Global(a) => (Mem::Global, get(fr, *a)?),
            Ptr::Shared(i) => (Mem::Shared, get(fr, *i)?),
            Ptr::Local(i) => (Mem::Local, get(fr, *i)?),
        })
    }

    fn read(&self, space: Mem, at: u64, ty: Ty) -> Result<u64, Stop> {
        match space {
            Mem::Global => {
                let bytes = u64::from(ty.bits().div_ceil(8));
                Ok((0..bytes).fold(0, |acc, k| {
                    let a = at.wrapping_add(k);
                    let unwritten = if (STATUS_ADDRESS..STATUS_ADDRESS + 4).contains(&a) {
                        0
                    } else {
                        (mix(a) >> 7) as u8
                    };
                    let byte = self.global.get(&a).copied().unwrap_or(unwritten);
                    acc | (u64::from(byte) << (8 * k))
                }))
            }
            Mem::Shared | Mem::Local => {
                word_sized(ty)?;
                let map = if space == Mem::Shared {
                    &self.shared
                } else {
                    &self.local
                };
                Ok(u64::from(
                    map.get(&at)
                        .copied()
                        .unwrap_or((mix(at ^ 0x5A) >> 3) as u32),
                ))
            }
        }
    }

    fn write(&mut self, space: Mem, at: u64, ty: Ty, x: u64) -> Result<(), Stop> {
        match space {
            Mem::Global => {
                for k in 0..u64::from(ty.bits().div_ceil(8)) {
                    self.global.insert(at.wrapping_add(k), (x >> (8 * k)) as u8);
                }
            }
            Mem::Shared => {
                word_sized(ty)?;
                self.shared.insert(at, x as u32);
            }
            Mem::Local => {
                word_sized(ty)?;
                self.local.insert(at, x as u32);
            }
        }
        Ok(())
    }

    /// An atomic read-modify-write of `ty` at `ptr`: writes `new(old)`, returns `old`.
    fn rmw(
        &mut self,
        fr: &Frame<'_>,
        ptr: &Ptr,
        ty: Ty,
        new: impl FnOnce(u64) -> Result<u64, Stop>,
    ) -> Result<u64, Stop> {
        let (space, at) = self.address(fr, ptr)?;
        let old = self.read(space, at, ty)?;
        let x = mask(new(old)?, ty);
        self.write(space, at, ty, x)?;
        if let Some(space) = visible(space) {
            self.event(Event::Atomic {
                space,
                at,
                old,
                new: x,
            })?;
        }
        Ok(old)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mem {
    Global,
    Shared,
    Local,
}

fn visible(m: Mem) -> Option<Space> {
    match m {
        Mem::Global => Some(Space::Global),
        Mem::Shared => Some(Space::Shared),
        Mem::Local => None,
    }
}

/// The shared and local arenas are arrays of 32-bit words.
fn word_sized(ty: Ty) -> Result<(), Stop> {
    if ty.bits() == 32 {
        Ok(())
    } else {
        Err(Stop::Unsupported(format!(
            "a {ty:?} access to a word arena"
        )))
    }
}

fn bad_var(v: u32) -> Stop {
    Stop::Undefined(format!("variable {v} is not declared"))
}

fn get(fr: &Frame<'_>, v: ValueId) -> Result<u64, Stop> {
    fr.values
        .get(v.0 as usize)
        .copied()
        .flatten()
        .ok_or_else(|| Stop::Undefined(format!("{v:?} used where it is not defined")))
}

fn gets(fr: &Frame<'_>, vs: &[ValueId]) -> Result<Vec<u64>, Stop> {
    vs.iter().map(|&v| get(fr, v)).collect()
}

/// The type of `op`'s result: `ty`, which an instruction with a result has.
fn result_ty(f: &Function, op: &Op, ty: Option<Ty>) -> Result<Ty, Stop> {
    ty.ok_or_else(|| Stop::Undefined(format!("{op:?} in `{}` without a result", f.name)))
}
