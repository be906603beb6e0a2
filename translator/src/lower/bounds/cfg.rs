//! The control-flow facts the analysis needs: reverse postorder, immediate dominators and the
//! blocks that lie on cycles.

pub(super) fn reverse_postorder(succ: &[Vec<u32>], entry: u32) -> Vec<u32> {
    let mut seen = vec![false; succ.len()];
    let mut order = Vec::with_capacity(succ.len());
    let mut stack = vec![(entry, 0usize)];
    seen[entry as usize] = true;
    while let Some((b, next)) = stack.pop() {
        if let Some(&s) = succ[b as usize].get(next) {
            stack.push((b, next + 1));
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
        }
    }
    order.reverse();
    order
}

/// Immediate dominators (Cooper, Harvey and Kennedy's iteration); `None` for unreachable blocks,
/// the entry its own.
pub(super) fn dominators(
    rpo: &[u32],
    preds: &[Vec<u32>],
    entry: u32,
    n: usize,
) -> Vec<Option<u32>> {
    let mut order = vec![u32::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b as usize] = i as u32;
    }
    let mut idom: Vec<Option<u32>> = vec![None; n];
    idom[entry as usize] = Some(entry);
    let intersect = |idom: &[Option<u32>], mut a: u32, mut b: u32| {
        while a != b {
            while order[a as usize] > order[b as usize] {
                a = idom[a as usize].unwrap_or(entry);
            }
            while order[b as usize] > order[a as usize] {
                b = idom[b as usize].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<u32> = None;
            for &p in &preds[b as usize] {
                if idom[p as usize].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(q) => intersect(&idom, p, q),
                });
            }
            if new.is_some() && idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Blocks on a cycle: those in a strongly connected component of more than one block, or with
/// an edge to themselves (Kosaraju's two passes, the first order being `rpo`'s reverse
/// postorder over reachable blocks).
pub(super) fn cyclic_blocks(
    succ: &[Vec<u32>],
    preds: &[Vec<u32>],
    rpo: &[u32],
) -> (Vec<bool>, Vec<u32>) {
    let n = succ.len();
    let mut comp = vec![u32::MAX; n];
    let mut reachable = vec![false; n];
    for &b in rpo {
        reachable[b as usize] = true;
    }
    let mut size = Vec::new();
    for &root in rpo {
        if comp[root as usize] != u32::MAX {
            continue;
        }
        let id = size.len() as u32;
        let mut count = 0u32;
        let mut stack = vec![root];
        comp[root as usize] = id;
        while let Some(b) = stack.pop() {
            count += 1;
            for &p in &preds[b as usize] {
                if comp[p as usize] == u32::MAX && reachable[p as usize] {
                    comp[p as usize] = id;
                    stack.push(p);
                }
            }
        }
        size.push(count);
    }
    let cyclic = (0..n)
        .map(|b| {
            let c = comp[b];
            c != u32::MAX && (size[c as usize] > 1 || succ[b].contains(&(b as u32)))
        })
        .collect();
    (cyclic, comp)
}
