//! Memory checking's launch-time proofs: ranges of addresses that a checked access site can
//! reach, written as formulas over values a launch fixes (kernel parameters, block and grid
//! size). The translator finds them (`lower::bounds`); the runtime evaluates them at each launch
//! and, for each site whose whole range lies in one live allocation, sets the site's
//! specialization constant (`abi::SPEC_MEM_PROVEN + k`), which turns the site's check off in that
//! launch's pipeline. A formula that cannot be evaluated exactly (an intermediate value outside
//! the range its PTX type holds, so the kernel's arithmetic could wrap) proves nothing.

use serde::{Deserialize, Serialize};

/// At most this many sites per kernel get a proof (one bit each in the pipeline key).
pub const MAX_FACTS: usize = 64;

/// One node of a formula; children are indices of earlier nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Node {
    Const(u64),
    /// The kernel parameter of `bytes` (4 or 8) bytes at `offset` of the parameter block,
    /// zero-extended.
    Param {
        offset: u32,
        bytes: u8,
    },
    BlockDim(u8),
    GridDim(u8),
    /// The launch's dynamic shared memory in bytes.
    DynamicShared,
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Min(u32, u32),
    Max(u32, u32),
    /// `a >> k`.
    Shr(u32, u32),
    /// `a / b` rounded down, for `a >= 0` and `b > 0`.
    Div(u32, u32),
    /// `a`, provided `b` can be evaluated (a condition `a` depends on).
    If(u32, u32),
    /// `a`, provided it equals `b`.
    Same(u32, u32),
    /// The smallest `2^k - 1` at or above `a`: what `or`/`xor` of values at most `a` stay under.
    Ones(u32),
    /// `a`, provided it lies in `[0, 2^bits)`; otherwise the formula proves nothing.
    Fit(u32, u8),
    /// `a + 1` where `a == b`, else `a`: a lower bound raised by knowing the value is not `b`.
    NeLo(u32, u32),
    /// `a - 1` where `a == b`, else `a`.
    NeHi(u32, u32),
    /// `a`, or `b` where `a` cannot be evaluated (a bound that holds only where a value fits).
    Else(u32, u32),
}

/// A site's claim: every address it reaches lies in `[lo, hi + bytes)`. A global access holds
/// when that range lies in one live allocation; a shared or local one (an offset into its
/// arena) when it lies in `[0, limit)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fact {
    pub lo: u32,
    pub hi: u32,
    pub bytes: u32,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A kernel's formulas and the sites' claims over them; fact `k` is specialization constant
/// `abi::SPEC_MEM_PROVEN + k`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemFacts {
    pub nodes: Vec<Node>,
    pub facts: Vec<Fact>,
}

/// What a launch fixes.
pub struct Launch<'a> {
    pub params: &'a [u8],
    pub block: [u32; 3],
    pub grid: [u32; 3],
    pub dynamic_shared: u32,
}

impl MemFacts {
    /// The facts that hold for `launch` as a bit mask: fact `k` holds when its range is not
    /// empty and `inside(start, end)` (the half-open range lies in one live allocation).
    pub fn proven(&self, launch: &Launch, inside: impl Fn(u64, u64) -> bool) -> u64 {
        let values = self.evaluate(launch);
        let mut mask = 0u64;
        for (k, f) in self.facts.iter().enumerate().take(MAX_FACTS) {
            let at = |i: u32| values.get(i as usize).copied().flatten();
            let (Some(lo), Some(hi)) = (at(f.lo), at(f.hi)) else {
                continue;
            };
            let end = hi.checked_add(i128::from(f.bytes));
            let Some(end) = end.filter(|_| lo <= hi) else {
                continue;
            };
            let holds = match f.limit {
                Some(limit) => at(limit).is_some_and(|limit| lo >= 0 && end <= limit),
                None => match (u64::try_from(lo), u64::try_from(end)) {
                    (Ok(lo), Ok(end)) => inside(lo, end),
                    _ => false,
                },
            };
            if holds {
                mask |= 1 << k;
            }
        }
        mask
    }

    /// Every node's value, `None` where it cannot be evaluated exactly.
    pub fn evaluate(&self, launch: &Launch) -> Vec<Option<i128>> {
        let mut v: Vec<Option<i128>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let at = |i: u32| v.get(i as usize).copied().flatten();
            let two = |a: u32, b: u32| Some((at(a)?, at(b)?));
            let r = match *n {
                Node::Const(c) => Some(i128::from(c)),
                Node::Param { offset, bytes } => param(launch.params, offset, bytes),
                Node::BlockDim(d) => launch.block.get(d as usize).map(|&x| i128::from(x)),
                Node::GridDim(d) => launch.grid.get(d as usize).map(|&x| i128::from(x)),
                Node::DynamicShared => Some(i128::from(launch.dynamic_shared)),
                Node::Add(a, b) => two(a, b).and_then(|(a, b)| a.checked_add(b)),
                Node::Sub(a, b) => two(a, b).and_then(|(a, b)| a.checked_sub(b)),
                Node::Mul(a, b) => two(a, b).and_then(|(a, b)| a.checked_mul(b)),
                Node::Min(a, b) => two(a, b).map(|(a, b)| a.min(b)),
                Node::Div(a, b) => two(a, b).and_then(|(a, b)| (a >= 0 && b > 0).then(|| a / b)),
                Node::If(a, b) => two(a, b).map(|(a, _)| a),
                Node::Same(a, b) => two(a, b).and_then(|(a, b)| (a == b).then_some(a)),
                Node::Max(a, b) => two(a, b).map(|(a, b)| a.max(b)),
                Node::Shr(a, b) => {
                    two(a, b).and_then(|(a, b)| (a >= 0 && (0..128).contains(&b)).then(|| a >> b))
                }
                Node::Ones(a) => at(a).and_then(|a| {
                    let a = u64::try_from(a).ok()?;
                    let p = a.checked_add(1).and_then(u64::checked_next_power_of_two);
                    Some(p.map_or(i128::from(u64::MAX), |p| i128::from(p - 1)))
                }),
                Node::Fit(a, bits) => at(a).filter(|&a| a >= 0 && a < (1i128 << bits.min(64))),
                Node::NeLo(a, b) => two(a, b).map(|(a, b)| if a == b { a + 1 } else { a }),
                Node::NeHi(a, b) => two(a, b).map(|(a, b)| if a == b { a - 1 } else { a }),
                Node::Else(a, b) => at(a).or_else(|| at(b)),
            };
            v.push(r);
        }
        v
    }
}

fn param(params: &[u8], offset: u32, bytes: u8) -> Option<i128> {
    let at = offset as usize;
    let b = params.get(at..at.checked_add(usize::from(bytes))?)?;
    let mut w = [0u8; 8];
    w.get_mut(..b.len())?.copy_from_slice(b);
    Some(i128::from(u64::from_le_bytes(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(params: &[u8]) -> Launch<'_> {
        Launch {
            params,
            block: [256, 1, 1],
            grid: [4, 1, 1],
            dynamic_shared: 0,
        }
    }

    #[test]
    fn a_range_in_one_allocation_is_proven_and_one_past_it_is_not() {
        // [p, p + 4 * (n - 1) + 4): p at offset 0 (u64), n at offset 8 (u32).
        let facts = MemFacts {
            nodes: vec![
                Node::Param {
                    offset: 0,
                    bytes: 8,
                },
                Node::Param {
                    offset: 8,
                    bytes: 4,
                },
                Node::Const(1),
                Node::Sub(1, 2),
                Node::Const(4),
                Node::Mul(3, 4),
                Node::Add(0, 5),
            ],
            facts: vec![Fact {
                lo: 0,
                hi: 6,
                bytes: 4,
                limit: None,
            }],
        };
        let mut params = 0x1000u64.to_le_bytes().to_vec();
        params.extend_from_slice(&100u32.to_le_bytes());
        let inside = |s: u64, e: u64| s >= 0x1000 && e <= 0x1000 + 400;
        assert_eq!(facts.proven(&launch(&params), inside), 1);
        params[8..12].copy_from_slice(&101u32.to_le_bytes());
        assert_eq!(facts.proven(&launch(&params), inside), 0);
        // n = 0: the range is empty (hi < lo), which proves nothing.
        params[8..12].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(facts.proven(&launch(&params), |_, _| true), 0);
    }

    #[test]
    fn values_outside_their_type_prove_nothing() {
        let facts = MemFacts {
            nodes: vec![
                Node::GridDim(0),
                Node::BlockDim(0),
                Node::Mul(0, 1),
                Node::Fit(2, 10),
                Node::Fit(2, 11),
                Node::Const(0b1001),
                Node::Ones(5),
                Node::Const(7),
                Node::NeHi(7, 7),
                Node::NeLo(7, 5),
            ],
            facts: vec![],
        };
        let v = facts.evaluate(&launch(&[]));
        // 4 * 256 = 1024 needs 11 bits.
        assert_eq!(v[3], None);
        assert_eq!(v[4], Some(1024));
        assert_eq!(v[6], Some(15));
        assert_eq!(v[8], Some(6));
        assert_eq!(v[9], Some(7));
    }
}
