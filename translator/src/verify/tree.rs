//! The structured form: the tree is the control flow (emission reads no block terminator), so it
//! must say everything structured control flow can: each block placed once, a `Branch` only to
//! a `Block` or `Loop` around it, nesting within `MAX_DEPTH`, conditions `Bool`, and every
//! value defined before its uses in the order the tree is emitted.

use super::rules::{Check, condition, returns, selector};
use crate::ir::{Function, ValueId};
use crate::structurize::{MAX_DEPTH, Node};

struct Walk<'a> {
    f: &'a Function,
    placed: Vec<bool>,
    defined: Vec<bool>,
}

pub(super) fn check(f: &Function, tree: &[Node]) -> Check {
    let mut w = Walk {
        f,
        placed: vec![false; f.blocks.len()],
        defined: vec![false; f.values.len()],
    };
    // Iteratively: the tree may nest up to `MAX_DEPTH` deep. Each entry: a list of nodes, the
    // next one to look at, the `Block`s and `Loop`s around the list, and all constructs
    // around it.
    let mut stack: Vec<(&[Node], usize, u32, usize)> = vec![(tree, 0, 0, 0)];
    while let Some((nodes, next, targets, depth)) = stack.last_mut() {
        let Some(node) = nodes.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        let (targets, depth) = (*targets, *depth);
        if depth > MAX_DEPTH {
            return Err(format!("the tree nests deeper than {MAX_DEPTH}"));
        }
        let inner = depth + 1;
        match node {
            Node::Code(b) => w.code(b.0 as usize)?,
            Node::If { cond, then, else_ } => {
                w.used(*cond, "an if")?;
                condition(f, *cond)?;
                stack.push((else_, 0, targets, inner));
                stack.push((then, 0, targets, inner));
            }
            Node::Block(body) | Node::Loop(body) => stack.push((body, 0, targets + 1, inner)),
            Node::Branch(d) => {
                if *d >= targets {
                    return Err(format!(
                        "a branch out of {d} constructs inside {targets} blocks and loops"
                    ));
                }
            }
            Node::Switch {
                value,
                cases,
                default,
            } => {
                w.used(*value, "a switch")?;
                selector(f, *value)?;
                stack.push((default, 0, targets, inner));
                for case in cases.iter().rev() {
                    stack.push((case, 0, targets, inner));
                }
            }
            Node::Return(vals) => {
                for v in vals {
                    w.used(*v, "a return")?;
                }
                returns(f, vals)?;
            }
            Node::Exit | Node::Unreachable => {}
        }
    }
    Ok(())
}

impl Walk<'_> {
    fn used(&self, v: ValueId, by: &str) -> Check {
        match self.defined.get(v.0 as usize) {
            Some(true) => Ok(()),
            _ => Err(format!("{by} uses %{} before the tree defines it", v.0)),
        }
    }

    fn code(&mut self, b: usize) -> Check {
        let Some(block) = self.f.blocks.get(b) else {
            return Err(format!(
                "the tree places b{b}, of {} blocks",
                self.f.blocks.len()
            ));
        };
        if std::mem::replace(&mut self.placed[b], true) {
            return Err(format!("the tree places b{b} twice"));
        }
        for (k, inst) in block.insts.iter().enumerate() {
            let mut found = Ok(());
            crate::ir::inline::for_each_value(&inst.op, &self.f.side, |v| {
                if found.is_ok() {
                    found = self.used(v, &format!("b{b}[{k}]"));
                }
            });
            found?;
            if let Some(r) = inst.result {
                self.defined[r.0 as usize] = true;
            }
        }
        Ok(())
    }
}
