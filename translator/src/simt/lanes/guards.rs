//! Conditions recognised as lane predicates: the lanes in which each may hold.

use super::analysis::Analysis;
use super::bits::{ALL, lane_mask, sext};
use crate::ir::{BinOp, Op, Ty, UnOp, ValueId};

impl Analysis<'_> {
    /// The lanes in which the condition `c` may be `want` (all of them unless recognised).
    pub(super) fn may(&mut self, c: ValueId, want: bool) -> u32 {
        if let Some(x) = self.lanes_of(c) {
            return lane_mask(|l| (x[l as usize] & 1 != 0) == want);
        }
        match self.op(c) {
            Some(Op::LoadVar(var)) => match self.stored(var) {
                Some(s) => self.may(s, want),
                None => ALL,
            },
            Some(Op::Un(UnOp::Not, a)) if self.f.ty(a) == Ty::Bool => self.may(a, !want),
            Some(Op::Bin(BinOp::And, a, b, _)) if self.f.ty(a) == Ty::Bool => {
                if want {
                    self.may(a, true) & self.may(b, true)
                } else {
                    self.may(a, false) | self.may(b, false)
                }
            }
            Some(Op::Bin(BinOp::Or, a, b, _)) if self.f.ty(a) == Ty::Bool => {
                if want {
                    self.may(a, true) | self.may(b, true)
                } else {
                    self.may(a, false) & self.may(b, false)
                }
            }
            Some(Op::Bin(op, a, b, _)) if op.is_compare() && !op.is_float_compare() => {
                self.compare(op, a, b, want)
            }
            _ => ALL,
        }
    }

    /// The lanes in which `a op b` may be `want`, where one side is a thread index congruent
    /// to the lane and the other a constant.
    pub(super) fn compare(&mut self, op: BinOp, a: ValueId, b: ValueId, want: bool) -> u32 {
        let bits = self.f.ty(a).bits();
        let (op, x, k) = if self.residue(a).is_some() {
            (op, a, b)
        } else if self.residue(b).is_some() {
            (op.mirrored(), b, a)
        } else {
            return ALL;
        };
        let Some(nonneg) = self.residue(x) else {
            return ALL;
        };
        let Some(k) = self.lanes_of(k) else {
            return ALL;
        };
        if k.iter().any(|&c| c != k[0]) {
            return ALL;
        }
        let c = k[0];
        let op = if want { op } else { op.negated() };
        // `x` is `32 m + lane` for some m >= 0 (modulo 2^bits): its smallest value is the lane.
        let below = |limit: i128| lane_mask(|l| i128::from(l) < limit);
        match op {
            BinOp::IEq => 1 << (c & 31),
            BinOp::ULt => below(i128::from(c)),
            BinOp::ULe => below(i128::from(c) + 1),
            BinOp::SLt if nonneg => below(i128::from(sext(c, bits))),
            BinOp::SLe if nonneg => below(i128::from(sext(c, bits)) + 1),
            _ => ALL,
        }
    }
}
