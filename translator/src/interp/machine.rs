//! Running one invocation until it ends or stops at a synchronization operation: control flow
//! (CFGs and structured trees) and calls; what each instruction does is in `inst.rs`.

use std::collections::HashMap;

use super::model::{Event, Inputs, Workgroup, hash_str, mix};
use super::ops::{Stop, mask};
use super::thread::{
    Activation, Cursor, Effect, End, Frame, Kind, Own, Pending, Pos, Sync, Thread, Wait, get, gets,
};
use crate::ir::{Block, BlockId, Function, Module, Terminator};
use crate::structurize::Node;

/// What is shared by the invocations of a run, and how they run.
pub(super) struct Machine<'a> {
    pub(super) module: &'a Module,
    pub(super) trees: Option<&'a [Vec<Node>]>,
    pub(super) seed: u64,
    pub(super) params: Vec<u64>,
    pub(super) frames: Vec<std::ops::Range<u64>>,
    pub(super) var_starts: Vec<(String, u64)>,
    pub(super) traced_vars: Vec<String>,
    pub(super) fuel: u64,
    pub(super) global: HashMap<u64, u8>,
    pub(super) shared: HashMap<u64, u32>,
    pub(super) events: usize,
    pub(super) max_events: usize,
    /// The run is being ended at `max_events` (unwinding as [`Stop::OutOfFuel`]).
    pub(super) cut: bool,
    pub(super) clock: u64,
    /// The workgroup; `None`: one thread, whose built-ins are made from the seed and which
    /// cannot run warp operations.
    pub(super) group: Option<Workgroup>,
}

impl<'a> Machine<'a> {
    pub(super) fn new(
        module: &'a Module,
        trees: Option<&'a [Vec<Node>]>,
        inputs: &Inputs,
        group: Option<Workgroup>,
    ) -> Machine<'a> {
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
            events: 0,
            max_events: inputs.max_events,
            cut: false,
            clock: 1000,
            group,
        }
    }

    /// Invocation `id` (at `coord` in the block), about to run the kernel.
    pub(super) fn thread(&self, id: u32, coord: [u32; 3]) -> Result<Thread<'a>, Stop> {
        let mut t = Thread {
            stack: Vec::new(),
            own: Own {
                id,
                coord,
                local: HashMap::new(),
                events: Vec::new(),
                fuel: self.fuel,
                end: None,
                wait: None,
            },
        };
        let act = self.activation(self.module.entry.0 as usize, self.params.clone())?;
        t.stack.push(act);
        Ok(t)
    }

    fn activation(&self, k: usize, params: Vec<u64>) -> Result<Activation<'a>, Stop> {
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
        let pos = match self.trees {
            Some(trees) => {
                let tree = trees
                    .get(k)
                    .ok_or_else(|| Stop::Undefined(format!("no tree for function {k}")))?;
                Pos::Tree {
                    cursors: vec![Cursor {
                        nodes: tree,
                        next: 0,
                        kind: Kind::Seq,
                        tag: 0,
                    }],
                    code: None,
                }
            }
            None => Pos::Cfg {
                block: f.entry,
                inst: 0,
            },
        };
        Ok(Activation {
            fr: Frame {
                f,
                index: k,
                params,
                values: vec![None; f.values.len()],
                vars,
                traced,
            },
            pos,
            call: None,
        })
    }

    /// Runs `t` until it ends or waits.
    pub(super) fn run(&mut self, t: &mut Thread<'a>) -> Result<(), Stop> {
        while t.runnable() {
            self.step(t)?;
        }
        Ok(())
    }

    fn step(&mut self, t: &mut Thread<'a>) -> Result<(), Stop> {
        let Thread { stack, own } = t;
        let Some(act) = stack.last_mut() else {
            return Err(Stop::Undefined("a thread without a frame".into()));
        };
        let f = act.fr.f;
        match &mut act.pos {
            Pos::Cfg { block, inst } => {
                let b = f
                    .blocks
                    .get(block.0 as usize)
                    .ok_or_else(|| Stop::Undefined(format!("jump to missing block {}", block.0)))?;
                if *inst < b.insts.len() {
                    let (bb, ii) = (*block, *inst);
                    return self.exec(t, bb, ii);
                }
                burn(own)?;
                let fr = &act.fr;
                let next = match &b.term {
                    Terminator::Jump(to) => *to,
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
                    Terminator::Return(vals) => {
                        let vals = gets(fr, vals)?;
                        return self.finish(t, End::Return(vals));
                    }
                    Terminator::Exit => return self.finish(t, End::Exit),
                    Terminator::Unreachable => {
                        return Err(Stop::Undefined("reached `unreachable`".into()));
                    }
                };
                *block = next;
                *inst = 0;
                Ok(())
            }
            Pos::Tree { cursors, code } => {
                if let Some((b, i)) = *code {
                    let block = block_of(f, b)?;
                    if i < block.insts.len() {
                        return self.exec(t, b, i);
                    }
                    *code = None;
                    return Ok(());
                }
                let Some(top) = cursors.last_mut() else {
                    return Err(Stop::Undefined("fell off the end of a tree".into()));
                };
                let nodes: &'a [Node] = top.nodes;
                let Some(n) = nodes.get(top.next) else {
                    // Falling off a loop's body leaves the loop, like the end of a block.
                    cursors.pop();
                    if cursors.is_empty() {
                        return Err(Stop::Undefined("fell off the end of a tree".into()));
                    }
                    return Ok(());
                };
                top.next += 1;
                burn(own)?;
                let fr = &act.fr;
                let seq = |nodes: &'a [Node], tag: u64, kind: Kind| Cursor {
                    nodes,
                    next: 0,
                    kind,
                    tag,
                };
                match n {
                    Node::Code(b) => *code = Some((*b, 0)),
                    Node::If { cond, then, else_ } => {
                        let c = if get(fr, *cond)? != 0 {
                            seq(then, 0, Kind::Seq)
                        } else {
                            seq(else_, 1, Kind::Seq)
                        };
                        cursors.push(c);
                    }
                    Node::Switch {
                        value,
                        cases,
                        default,
                    } => {
                        let k = get(fr, *value)?;
                        let c = match usize::try_from(k).ok().and_then(|k| cases.get(k)) {
                            Some(c) => seq(c, k, Kind::Seq),
                            None => seq(default, cases.len() as u64, Kind::Seq),
                        };
                        cursors.push(c);
                    }
                    Node::Block(body) => cursors.push(seq(body, 0, Kind::Block)),
                    Node::Loop(body) => {
                        burn(own)?;
                        cursors.push(seq(body, 0, Kind::Loop));
                    }
                    Node::Branch(d) => branch(cursors, *d, own)?,
                    Node::Return(vals) => {
                        let vals = gets(fr, vals)?;
                        return self.finish(t, End::Return(vals));
                    }
                    Node::Exit => return self.finish(t, End::Exit),
                    Node::Unreachable => {
                        return Err(Stop::Undefined("reached `unreachable`".into()));
                    }
                }
                Ok(())
            }
        }
    }

    /// Runs instruction `i` of block `b` of the innermost activation.
    fn exec(&mut self, t: &mut Thread<'a>, b: BlockId, i: usize) -> Result<(), Stop> {
        let Thread { stack, own } = t;
        let Some(act) = stack.last_mut() else {
            return Err(Stop::Undefined("a thread without a frame".into()));
        };
        let f = act.fr.f;
        let inst = &block_of(f, b)?.insts[i];
        burn(own)?;
        let ty = inst.result.map(|r| f.ty(r));
        match self.inst(own, &mut act.fr, &inst.op, ty)? {
            Effect::Value(r) => {
                match (inst.result, r) {
                    (Some(res), Some(x)) => {
                        act.fr.values[res.0 as usize] = Some(mask(x, f.ty(res)))
                    }
                    (None, _) => {}
                    (Some(res), None) => {
                        return Err(Stop::Unsupported(format!(
                            "{:?} has a result ({res:?}) the interpreter does not know",
                            inst.op
                        )));
                    }
                }
                advance(&mut act.pos);
                Ok(())
            }
            Effect::Call {
                func,
                args,
                results,
            } => {
                let own_words = self.frames.get(act.fr.index).cloned().unwrap_or(0..0);
                let saved = own_words.map(|w| (w, own.local.get(&w).copied())).collect();
                act.call = Some(Pending { results, saved });
                advance(&mut act.pos);
                let callee = self.activation(func, args)?;
                stack.push(callee);
                Ok(())
            }
            Effect::Sync(op, args) => {
                own.wait = Some(Wait {
                    op,
                    args,
                    key: Vec::new(),
                    result: inst.result,
                });
                let key = t.key();
                if let Some(w) = &mut t.own.wait {
                    w.key = key;
                }
                Ok(())
            }
        }
    }

    /// The innermost activation ended by `end`.
    fn finish(&mut self, t: &mut Thread<'a>, end: End) -> Result<(), Stop> {
        t.stack.pop();
        let vals = match end {
            End::Exit => {
                t.stack.clear();
                t.own.end = Some(End::Exit);
                return Ok(());
            }
            End::Return(vals) => vals,
        };
        let Some(caller) = t.stack.last_mut() else {
            t.own.end = Some(End::Return(vals));
            return Ok(());
        };
        let Some(call) = caller.call.take() else {
            return Err(Stop::Undefined("a return to no call".into()));
        };
        for (w, x) in call.saved {
            match x {
                Some(x) => t.own.local.insert(w, x),
                None => t.own.local.remove(&w),
            };
        }
        if vals.len() != call.results.len() {
            return Err(Stop::Undefined(format!(
                "{} values returned into {} variables",
                vals.len(),
                call.results.len()
            )));
        }
        for (v, x) in call.results.iter().zip(vals) {
            self.store_var(&mut t.own, &mut caller.fr, v.0, x)?;
        }
        Ok(())
    }

    /// Ends `t`'s wait at a synchronization operation with `result`, past it.
    pub(super) fn resume(&mut self, t: &mut Thread<'a>, result: Option<u64>) -> Result<(), Stop> {
        let Some(w) = t.own.wait.take() else {
            return Ok(());
        };
        if matches!(w.op, Sync::Barrier | Sync::Arrive) {
            self.event(&mut t.own, Event::Barrier)?;
        }
        let Some(act) = t.stack.last_mut() else {
            return Err(Stop::Undefined("a thread without a frame".into()));
        };
        if let (Some(res), Some(x)) = (w.result, result) {
            let ty = act.fr.f.ty(res);
            act.fr.values[res.0 as usize] = Some(mask(x, ty));
        }
        advance(&mut act.pos);
        Ok(())
    }

    pub(super) fn event(&mut self, own: &mut Own, e: Event) -> Result<(), Stop> {
        own.events.push(e);
        self.events += 1;
        if self.events >= self.max_events {
            self.cut = true;
            return Err(Stop::OutOfFuel);
        }
        Ok(())
    }
}

fn burn(own: &mut Own) -> Result<(), Stop> {
    own.fuel = own.fuel.checked_sub(1).ok_or(Stop::OutOfFuel)?;
    Ok(())
}

fn block_of(f: &Function, b: BlockId) -> Result<&Block, Stop> {
    f.blocks
        .get(b.0 as usize)
        .ok_or_else(|| Stop::Undefined(format!("missing block {}", b.0)))
}

/// Past the instruction the activation is at.
fn advance(pos: &mut Pos<'_>) {
    match pos {
        Pos::Cfg { inst, .. } => *inst += 1,
        Pos::Tree { code, .. } => {
            if let Some((_, i)) = code {
                *i += 1;
            }
        }
    }
}

/// `Node::Branch(d)`: leaves `d` enclosing blocks and loops, then leaves the next block or
/// continues the next loop.
fn branch(cursors: &mut Vec<Cursor<'_>>, mut d: u32, own: &mut Own) -> Result<(), Stop> {
    loop {
        let Some(mut c) = cursors.pop() else {
            return Err(Stop::Undefined(format!("branch {d} out of the tree")));
        };
        match c.kind {
            Kind::Seq => {}
            Kind::Block | Kind::Loop if d > 0 => d -= 1,
            Kind::Block => return Ok(()),
            Kind::Loop => {
                burn(own)?;
                c.next = 0;
                c.tag += 1;
                cursors.push(c);
                return Ok(());
            }
        }
    }
}
