//! The IR verifier: the invariants each pass relies on, checked between passes in debug builds
//! (`pipeline.rs`).
//!
//! A function is well formed when its block, value, variable and function references are in
//! range, each value is defined once, the operands of each instruction have the types the
//! instruction takes (`types.rs`, the rules SPIR-V's validator applies to what emission makes
//! of it), and its returns match its signature. Before structurization a value is defined
//! before its uses: in its block before them, or in a block that dominates theirs (`dom.rs`).
//! After it the structured tree (`tree.rs`) is the control flow: each block placed once,
//! branches only to enclosing constructs, and every value defined before its uses in the
//! tree's order.

mod dom;
mod rules;
#[cfg(test)]
mod tests;
mod tree;
mod types;

use crate::ir::{Function, Module, Op, Terminator};
use crate::structurize::Node;
use rules::{Check, condition, returns, selector};

/// What is wrong, where.
#[derive(Debug, thiserror::Error)]
#[error("function `{function}`: {what}")]
pub struct Broken {
    pub function: String,
    pub what: String,
}

/// Checks `m` in CFG form (the passes before structurization).
pub fn module(m: &Module) -> Result<(), Broken> {
    for_each_function(m, |f| {
        common(m, f)?;
        terminators(f)?;
        dom::defined_before_use(f)
    })
}

/// Checks `m` in structured form: `trees[i]` is the body of function `i`.
pub fn structured(m: &Module, trees: &[Vec<Node>]) -> Result<(), Broken> {
    if trees.len() != m.functions.len() {
        return Err(Broken {
            function: String::new(),
            what: format!(
                "{} structured trees for {} functions",
                trees.len(),
                m.functions.len()
            ),
        });
    }
    let mut k = 0;
    for_each_function(m, |f| {
        let tree = &trees[k];
        k += 1;
        common(m, f)?;
        tree::check(f, tree)
    })
}

fn for_each_function(m: &Module, mut check: impl FnMut(&Function) -> Check) -> Result<(), Broken> {
    if m.entry.0 as usize >= m.functions.len() {
        return Err(Broken {
            function: String::new(),
            what: format!("entry {:?} of {} functions", m.entry, m.functions.len()),
        });
    }
    for f in &m.functions {
        check(f).map_err(|what| Broken {
            function: f.name.clone(),
            what,
        })?;
    }
    Ok(())
}

/// What holds in both forms: references in range, single definitions, operand types.
fn common(m: &Module, f: &Function) -> Check {
    let nb = f.blocks.len();
    if f.entry.0 as usize >= nb {
        return Err(format!("entry b{} of {nb} blocks", f.entry.0));
    }
    let mut defined = vec![false; f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, inst) in b.insts.iter().enumerate() {
            let at = || format!("b{bi}[{k}] {:?}", inst.op);
            if let Some(r) = inst.result {
                let Some(d) = defined.get_mut(r.0 as usize) else {
                    return Err(format!("{}: result %{} has no type", at(), r.0));
                };
                if std::mem::replace(d, true) {
                    return Err(format!("{}: %{} is defined twice", at(), r.0));
                }
            }
            side_entry(f, &inst.op).map_err(|e| format!("{}: {e}", at()))?;
            let mut out_of_range = None;
            crate::ir::inline::for_each_value(&inst.op, &f.side, |v| {
                if v.0 as usize >= f.values.len() {
                    out_of_range = Some(v);
                }
            });
            if let Some(v) = out_of_range {
                return Err(format!("{}: %{} does not exist", at(), v.0));
            }
            types::inst(m, f, inst).map_err(|e| format!("{}: {e}", at()))?;
        }
        for s in b.term.targets() {
            if s.0 as usize >= nb {
                return Err(format!("b{bi} branches to b{}, of {nb} blocks", s.0));
            }
        }
    }
    Ok(())
}

/// A call's or texture operation's entry of the side tables exists.
fn side_entry(f: &Function, op: &Op) -> Check {
    match *op {
        Op::Call(c) if c.0 as usize >= f.side.calls.len() => {
            Err(format!("call {} of {}", c.0, f.side.calls.len()))
        }
        Op::Texture(t) if t.0 as usize >= f.side.tex_ops.len() => Err(format!(
            "texture operation {} of {}",
            t.0,
            f.side.tex_ops.len()
        )),
        _ => Ok(()),
    }
}

/// Return values as the signature says, branch conditions `Bool`, switch values integers.
fn terminators(f: &Function) -> Check {
    for (bi, b) in f.blocks.iter().enumerate() {
        let at = |e: String| format!("b{bi} {:?}: {e}", b.term);
        match &b.term {
            Terminator::Branch { cond, .. } => condition(f, *cond).map_err(at)?,
            Terminator::Switch { value, .. } => selector(f, *value).map_err(at)?,
            Terminator::Return(vals) => returns(f, vals).map_err(at)?,
            Terminator::Jump(_) | Terminator::Exit | Terminator::Unreachable => {}
        }
    }
    Ok(())
}
