//! Recursion without recursion: SPIR-V forbids recursive calls, so the functions of each cycle
//! of the call graph become one function that loops over an explicit per-thread stack.
//!
//! For a strongly connected set of functions `S`, the merged function holds a copy of each
//! member's body. A call between members saves the caller's frame (its variables, the values
//! carried over the call and its words of the local arena) and a return-site number on the
//! stack, passes the arguments through the callee's parameter variables and jumps to the
//! callee's entry. A return stores the return values, then either leaves the merged function
//! (when the stack is back where it was on entry) or jumps to the return site found on top of
//! the stack, which restores the caller's frame. Calls from outside `S` call the merged
//! function with a selector saying which member they mean.
//!
//! The stack is in the local arena: a stack-pointer word and `STACK_WORDS` words. A call that
//! would overflow it reports `TrapKind::StackOverflow` and ends the thread.

mod call_sites;
mod layout;
mod live;
mod merge;
mod words;

use super::inline::{calls, prune};
use super::{FuncId, Module, Op, Terminator, Ty};
use merge::merge;
use words::{at_const, store_word};

pub use layout::{LocalArena, STACK_WORDS};

/// Merges every cycle of the call graph. Returns whether there was one.
pub fn eliminate(module: &mut Module, arena: &LocalArena) -> bool {
    let sccs = cycles(module);
    if sccs.is_empty() {
        return false;
    }
    for scc in &sccs {
        merge(module, scc, arena);
    }
    init_stack_pointer(module, arena);
    prune(module);
    true
}

/// Strongly connected components with a cycle (Tarjan's algorithm, iteratively).
fn cycles(module: &Module) -> Vec<Vec<FuncId>> {
    let n = module.functions.len();
    let succ: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|f| calls(f).map(|c| c.0 as usize).collect())
        .collect();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(FuncId(w as u32));
                    if w == v {
                        break;
                    }
                }
                let cyclic = comp.len() > 1 || succ[v].contains(&v);
                if cyclic {
                    comp.sort_by_key(|f| f.0);
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// Kernel entry: the stack starts empty.
fn init_stack_pointer(module: &mut Module, arena: &LocalArena) {
    let f = &mut module.functions[module.entry.0 as usize];
    let b = f.new_block();
    let at = at_const(f, b, arena.stack_pointer);
    let zero = f.push(b, Ty::I32, Op::Const(0));
    store_word(f, b, at, zero);
    f.block_mut(b).term = Terminator::Jump(f.entry);
    f.entry = b;
}
