//! The values the analysis knows in every lane: those that depend on the lane alone.

use super::analysis::Analysis;
use super::bits::{Lanes, binary, sext, width_mask};
use crate::ir::{BinOp, Builtin, ConvOp, Op, UnOp, ValueId};

impl Analysis<'_> {
    /// `v` in each lane, where it depends on the lane alone.
    pub(super) fn lanes_of(&mut self, v: ValueId) -> Option<Lanes> {
        if let Some(known) = self.lanes.get(&v) {
            return known.as_deref().copied();
        }
        let i = v.0 as usize;
        if *self.busy.get(i)? {
            return None;
        }
        self.busy[i] = true;
        let got = self.compute_lanes(v);
        self.busy[i] = false;
        self.lanes.insert(v, got.map(Box::new));
        got
    }

    pub(super) fn compute_lanes(&mut self, v: ValueId) -> Option<Lanes> {
        let ty = self.f.ty(v);
        if ty.is_float() {
            return None;
        }
        let mask = width_mask(ty.bits());
        let each = |g: &dyn Fn(usize) -> Option<u64>| -> Option<Lanes> {
            let mut out = [0u64; 32];
            for (l, o) in out.iter_mut().enumerate() {
                *o = g(l)? & mask;
            }
            Some(out)
        };
        match self.op(v)? {
            Op::Const(c) => Some([c & mask; 32]),
            Op::LoadVar(var) => self.lanes_of(self.stored(var)?),
            Op::Bin(op, a, b, _) => {
                // A thread index masked to its low five bits is the lane's.
                if matches!(op, BinOp::And | BinOp::UMod) {
                    let pairs: &[(ValueId, ValueId)] = if op == BinOp::And {
                        &[(a, b), (b, a)]
                    } else {
                        &[(a, b)]
                    };
                    for &(x, k) in pairs {
                        if self.residue(x).is_some()
                            && let Some(k) = self.lanes_of(k)
                            && k.iter().all(|&c| c == k[0])
                        {
                            let c = k[0];
                            if op == BinOp::And && c < 32 {
                                return each(&|l| Some(l as u64 & c));
                            }
                            if op == BinOp::UMod && c == 32 {
                                return each(&|l| Some(l as u64));
                            }
                        }
                    }
                }
                let (x, y) = (self.lanes_of(a)?, self.lanes_of(b)?);
                let bits = self.f.ty(a).bits();
                each(&|l| binary(op, x[l], y[l], bits))
            }
            Op::Un(op, a) => {
                let x = self.lanes_of(a)?;
                match op {
                    UnOp::Not => each(&|l| Some(!x[l])),
                    UnOp::INeg => each(&|l| Some(x[l].wrapping_neg())),
                    _ => None,
                }
            }
            Op::Select(c, a, b) => {
                let (c, x, y) = (self.lanes_of(c)?, self.lanes_of(a)?, self.lanes_of(b)?);
                each(&|l| Some(if c[l] & 1 != 0 { x[l] } else { y[l] }))
            }
            Op::Conv(op, a) => {
                let from = self.f.ty(a);
                let x = self.lanes_of(a)?;
                match op {
                    ConvOp::ZExt | ConvOp::Trunc | ConvOp::Bitcast => each(&|l| Some(x[l])),
                    ConvOp::SExt => each(&|l| Some(sext(x[l], from.bits()) as u64)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether `v` is a thread index that equals the lane modulo 32 (`Some(nonnegative)`:
    /// whether it is also known to be below 2^31, so that signed comparisons order it as
    /// unsigned ones do).
    pub(super) fn residue(&mut self, v: ValueId) -> Option<bool> {
        let i = v.0 as usize;
        if *self.busy.get(i)? {
            return None;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(0))) => Some(true),
            Some(Op::LoadVar(var)) => self.stored(var).and_then(|s| self.residue(s)),
            Some(Op::Conv(ConvOp::ZExt, a)) => self.residue(a).map(|_| true),
            Some(Op::Bin(BinOp::IAdd, a, b, _)) => {
                let mut found = None;
                for (x, y) in [(a, b), (b, a)] {
                    if let Some(n) = self.residue(x)
                        && self.multiple_of_32(y)
                    {
                        found = Some(n && self.small_index(y));
                        break;
                    }
                }
                found
            }
            _ => None,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is a multiple of 32 in every lane (given lane-shaped blocks).
    pub(super) fn multiple_of_32(&mut self, v: ValueId) -> bool {
        let i = v.0 as usize;
        if self.busy.get(i).copied().unwrap_or(true) {
            return false;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Const(c)) => c % 32 == 0,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.multiple_of_32(s)),
            Some(Op::Bin(BinOp::IMul, a, b, _)) => {
                self.multiple_of_32(a)
                    || self.multiple_of_32(b)
                    || (self.vanishes_in_1d(a) && self.is_builtin(b, Builtin::BlockDim(0)))
                    || (self.vanishes_in_1d(b) && self.is_builtin(a, Builtin::BlockDim(0)))
            }
            Some(Op::Bin(BinOp::IAdd | BinOp::ISub, a, b, _)) => {
                self.multiple_of_32(a) && self.multiple_of_32(b)
            }
            Some(Op::Bin(BinOp::Shl, a, b, _)) => {
                let bits = u64::from(self.f.ty(a).bits());
                self.lanes_of(b)
                    .is_some_and(|k| k.iter().all(|&k| (5..bits).contains(&k)))
            }
            _ => false,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is 0 in a one-dimensional block: built from `%tid.y`, `%tid.z` by sums and
    /// products (so that times `%ntid.x` it is a multiple of 32 in every lane-shaped block).
    pub(super) fn vanishes_in_1d(&mut self, v: ValueId) -> bool {
        let i = v.0 as usize;
        if self.busy.get(i).copied().unwrap_or(true) {
            return false;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(1 | 2))) => true,
            Some(Op::Const(0)) => true,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.vanishes_in_1d(s)),
            Some(Op::Bin(BinOp::IAdd, a, b, _)) => self.vanishes_in_1d(a) && self.vanishes_in_1d(b),
            Some(Op::Bin(BinOp::IMul, a, b, _)) => self.vanishes_in_1d(a) || self.vanishes_in_1d(b),
            _ => false,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is a small non-negative thread-index term (the linear index's `y`, `z` part).
    pub(super) fn small_index(&self, v: ValueId) -> bool {
        match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(_) | Builtin::BlockDim(_))) => true,
            Some(Op::Bin(BinOp::IAdd | BinOp::IMul, a, b, _)) => {
                self.small_index(a) && self.small_index(b)
            }
            _ => false,
        }
    }

    pub(super) fn is_builtin(&self, v: ValueId, b: Builtin) -> bool {
        match self.op(v) {
            Some(Op::Builtin(x)) => x == b,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.is_builtin(s, b)),
            _ => false,
        }
    }
}
