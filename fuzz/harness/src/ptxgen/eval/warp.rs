//! Warp operations on the lanes of one warp, as the ISA defines them for the members of the
//! mask.

use super::*;

/// A warp operation with member mask `mask` on `warp`: only the members take part, and only
/// their registers change.
pub(super) fn warp_op(s: &Stmt, warp: &mut [Regs], mask: u32) {
    let member = |g: &Regs| mask >> g.lane() & 1 == 1;
    match s {
        Stmt::Shfl {
            mode,
            d,
            a,
            lane,
            c,
        } => {
            let src: Vec<u32> = warp.iter().map(|g| g.r[*a as usize]).collect();
            for g in warp.iter_mut().filter(|g| member(g)) {
                let l = g.lane() as i32;
                let b = (g.src(*lane) & 31) as i32;
                let cval = (c & 31) as i32;
                let segmask = ((c >> 8) & 31) as i32;
                let max_lane = (l & segmask) | (cval & !segmask);
                let min_lane = l & segmask;
                let (j, ok) = match mode {
                    ShflMode::Up => (l - b, l - b >= max_lane),
                    ShflMode::Down => (l + b, l + b <= max_lane),
                    ShflMode::Bfly => (l ^ b, (l ^ b) <= max_lane),
                    ShflMode::Idx => {
                        let j = min_lane | (b & !segmask);
                        (j, j <= max_lane)
                    }
                };
                let j = if ok { j } else { l };
                g.r[*d as usize] = src[j as usize];
            }
        }
        Stmt::Vote { op, d, p } => {
            let ballot = warp
                .iter()
                .filter(|g| member(g))
                .fold(0u32, |m, g| m | u32::from(g.p[*p as usize]) << g.lane());
            for g in warp.iter_mut().filter(|g| member(g)) {
                let dp = (*d % NP) as usize;
                match op {
                    Vote::Ballot => g.r[*d as usize] = ballot,
                    Vote::Any => g.p[dp] = ballot != 0,
                    Vote::All => g.p[dp] = ballot == mask,
                    Vote::Uni => g.p[dp] = ballot == 0 || ballot == mask,
                }
            }
        }
        Stmt::Redux { op, d, a } => {
            let v = warp
                .iter()
                .filter(|g| member(g))
                .map(|g| g.r[*a as usize])
                .reduce(|x, y| reduce(*op, x, y))
                .unwrap_or(0);
            for g in warp.iter_mut().filter(|g| member(g)) {
                g.r[*d as usize] = v;
            }
        }
        Stmt::Match { all, d, a } => {
            let vals: Vec<(u32, u32)> = warp
                .iter()
                .filter(|g| member(g))
                .map(|g| (g.lane(), g.r[*a as usize]))
                .collect();
            let same = vals.iter().all(|&(_, v)| v == vals[0].1);
            for g in warp.iter_mut().filter(|g| member(g)) {
                let mine = g.r[*a as usize];
                g.r[*d as usize] = if *all {
                    if same { mask } else { 0 }
                } else {
                    vals.iter()
                        .filter(|(_, v)| *v == mine)
                        .fold(0u32, |m, (l, _)| m | (1 << l))
                };
            }
        }
        _ => {}
    }
}
