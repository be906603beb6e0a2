//! Which variables a call must save: those live at its return site, found with bit sets
//! because the analysis runs once per call site of a recursive kernel.

use crate::ir::{BlockId, Function, Op, VarId};

/// A set of a function's variables, one bit each.
pub(super) struct VarSet(Vec<u64>);

impl VarSet {
    pub(super) fn contains(&self, v: &VarId) -> bool {
        has(&self.0, *v)
    }
}

fn has(set: &[u64], v: VarId) -> bool {
    set.get(v.0 as usize / 64)
        .is_some_and(|w| w >> (v.0 % 64) & 1 != 0)
}

fn add(set: &mut [u64], v: VarId) {
    set[v.0 as usize / 64] |= 1 << (v.0 % 64);
}

/// The variables live on entry to `start`: read before being written on some path from it
/// (not following the successors of `stops`). Bit sets over the variables and a table of
/// the reached blocks: hash sets per block and call site cost a twentieth of a recursive
/// kernel's translation.
pub(super) fn live_in(g: &Function, start: BlockId, stops: &[BlockId]) -> VarSet {
    let followed = |b: BlockId| (!stops.contains(&b)).then(|| g.block(b).term.targets());
    // The reached blocks, and each block's place among them.
    let mut pos = vec![u32::MAX; g.blocks.len()];
    let mut reach = vec![start];
    pos[start.0 as usize] = 0;
    let mut i = 0;
    while i < reach.len() {
        for s in followed(reach[i]).into_iter().flatten() {
            if pos[s.0 as usize] == u32::MAX {
                pos[s.0 as usize] = reach.len() as u32;
                reach.push(s);
            }
        }
        i += 1;
    }
    let words = g.vars.len().div_ceil(64);
    let at = |k: usize| k * words..(k + 1) * words;
    // Per reached block: variables read before any write, and variables written.
    let mut uses = vec![0u64; reach.len() * words];
    let mut defs = vec![0u64; reach.len() * words];
    for (k, &b) in reach.iter().enumerate() {
        let (u, d) = (&mut uses[at(k)], &mut defs[at(k)]);
        for inst in &g.block(b).insts {
            match &inst.op {
                Op::LoadVar(v) if !has(d, *v) => add(u, *v),
                Op::StoreVar(v, _) => add(d, *v),
                Op::Call(c) => g.side.call(*c).results.iter().for_each(|v| add(d, *v)),
                _ => {}
            }
        }
    }
    let mut live = vec![0u64; reach.len() * words];
    let mut set = vec![0u64; words];
    loop {
        let mut changed = false;
        for k in (0..reach.len()).rev() {
            set.copy_from_slice(&uses[at(k)]);
            for s in followed(reach[k]).into_iter().flatten() {
                let after = &live[at(pos[s.0 as usize] as usize)];
                for ((x, l), d) in set.iter_mut().zip(after).zip(&defs[at(k)]) {
                    *x |= l & !d;
                }
            }
            if live[at(k)] != set[..] {
                live[at(k)].copy_from_slice(&set);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    live.truncate(words);
    VarSet(live)
}
