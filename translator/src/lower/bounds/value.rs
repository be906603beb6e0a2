//! The interval of a value: integer arithmetic followed back to what a launch fixes.

use super::{Analysis, DEPTH, Iv};
use crate::ir::{BinOp, Builtin, ConvOp, ExtOp, Op, Ptr, ValueId};
use crate::memfacts::Node;

impl Analysis<'_> {
    /// The interval of integer value `v` in block `at` (`None`: not bounded by launch values).
    /// `v` is made in `at` or in a block above it: every variable it reads holds its one value
    /// in `at` too, so the branch conditions that lead to `at` bound them there.
    pub(super) fn value(&mut self, v: ValueId, at: u32, depth: u32) -> Option<Iv> {
        if let Some(r) = self.values.get(&(v, at)) {
            return *r;
        }
        // A cycle of conditions (`x < y` bounding `y` by `x`) finds nothing on its way back.
        self.values.insert((v, at), None);
        let r = if depth > DEPTH {
            None
        } else {
            self.compute(v, at, depth + 1)
        };
        self.values.insert((v, at), r);
        r
    }

    fn compute(&mut self, v: ValueId, at: u32, depth: u32) -> Option<Iv> {
        let bits = self.bits(v)?;
        let (b, i, op) = self.op(v)?;
        let one = self.konst(1);
        match op {
            Op::Const(c) => Some(self.exact(Node::Const(c))),
            Op::Builtin(Builtin::BlockDim(d)) => Some(self.exact(Node::BlockDim(d))),
            Op::Builtin(Builtin::GridDim(d)) => Some(self.exact(Node::GridDim(d))),
            Op::Builtin(Builtin::DynamicSharedBytes) => Some(self.exact(Node::DynamicShared)),
            Op::Builtin(Builtin::LocalId(d)) => {
                let n = self.node(Node::BlockDim(d));
                let hi = self.node(Node::Sub(n, one));
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Builtin(Builtin::WorkgroupId(d) | Builtin::CtaBase(d)) => Some(self.ctaid(d)),
            Op::Bin(BinOp::IAdd, x, y, _) => {
                if let Some(d) = self.ctaid_sum(x, y) {
                    return Some(self.ctaid(d));
                }
                // `x + c` with `c` negative in the value's width: `x - |c|`.
                if let Some(c) = self.constant(y) {
                    let neg = if bits == 64 {
                        (c as i64) < 0
                    } else {
                        (c as u32 as i32) < 0
                    };
                    if neg {
                        let m = if bits == 64 {
                            (c as i64).unsigned_abs()
                        } else {
                            u64::from((c as u32 as i32).unsigned_abs())
                        };
                        let a = self.value(x, at, depth)?;
                        let m = self.konst(m);
                        return Some(self.sub(a, Iv { lo: m, hi: m }, bits));
                    }
                }
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Add(a.lo, c.lo));
                let hi = self.node(Node::Add(a.hi, c.hi));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::ISub, x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                Some(self.sub(a, c, bits))
            }
            Op::Bin(BinOp::IMul, x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Mul(a.lo, c.lo));
                let hi = self.node(Node::Mul(a.hi, c.hi));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::Shl, x, y, _) => {
                let k = self.constant(y)?;
                if k >= u64::from(bits) {
                    return None;
                }
                let a = self.value(x, at, depth)?;
                let m = self.konst(1 << k);
                let lo = self.node(Node::Mul(a.lo, m));
                let hi = self.node(Node::Mul(a.hi, m));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::LShr, x, y, _) => {
                let k = self.constant(y)?;
                if k >= u64::from(bits) {
                    return None;
                }
                let a = self.value(x, at, depth)?;
                let k = self.konst(k);
                let lo = self.node(Node::Shr(a.lo, k));
                let hi = self.node(Node::Shr(a.hi, k));
                Some(Iv { lo, hi })
            }
            Op::Bin(BinOp::And, x, y, _) => {
                // At most either operand, whatever the other is.
                let hi = match (self.value(x, at, depth), self.value(y, at, depth)) {
                    (Some(a), Some(c)) => self.node(Node::Min(a.hi, c.hi)),
                    (Some(a), None) | (None, Some(a)) => a.hi,
                    (None, None) => return None,
                };
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Bin(op @ (BinOp::Or | BinOp::Xor), x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let m = self.node(Node::Max(a.hi, c.hi));
                let mut hi = self.node(Node::Ones(m));
                // `(x << k) | y` with `y < 2^k` (a row's base and a column) is `(x << k) + y`.
                if op == BinOp::Or {
                    for (shifted, low, l) in [(x, c, y), (y, a, x)] {
                        if let Some((_, _, Op::Bin(BinOp::Shl, _, k, _))) = self.op(shifted)
                            && let Some(k) = self.constant(k)
                            && k < 64
                            && self.op(l).is_some()
                        {
                            let fits = self.node(Node::Fit(low.hi, k as u8));
                            let sum = self.node(Node::Add(a.hi, c.hi));
                            let sum = self.node(Node::If(sum, fits));
                            hi = self.node(Node::Else(sum, hi));
                            break;
                        }
                    }
                }
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Ext(e @ (ExtOp::UMax | ExtOp::UMin), args, _) if args.len() == 2 => {
                let (a, c) = (
                    self.value(args[0], at, depth)?,
                    self.value(args[1], at, depth)?,
                );
                let (lo, hi) = if e == ExtOp::UMax {
                    (Node::Max(a.lo, c.lo), Node::Max(a.hi, c.hi))
                } else {
                    (Node::Min(a.lo, c.lo), Node::Min(a.hi, c.hi))
                };
                let (lo, hi) = (self.node(lo), self.node(hi));
                Some(Iv { lo, hi })
            }
            Op::Select(_, x, y) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Min(a.lo, c.lo));
                let hi = self.node(Node::Max(a.hi, c.hi));
                Some(Iv { lo, hi })
            }
            Op::Conv(ConvOp::ZExt | ConvOp::Bitcast, x) => {
                self.bits(x)?;
                self.value(x, at, depth)
            }
            Op::Conv(ConvOp::Trunc, x) => {
                let a = self.value(x, at, depth)?;
                Some(self.fit(a.lo, a.hi, bits))
            }
            Op::LoadVar(var) if self.written_before(var, b, i).is_some() => {
                self.var_at(var, (b, i), at, depth)
            }
            Op::LoadVar(var) => self.var_in(var, b, i, depth),
            Op::BitExtract {
                signed: false,
                count,
                ..
            } => {
                // `bfe` clamps its length in IR that is folded only later, so the length
                // is known through its interval rather than as a constant here.
                let c = match self.constant(count) {
                    Some(c) => c,
                    None => {
                        let n = self.value(count, at, depth)?;
                        self.node_constant(n.hi)?
                    }
                };
                (c < u64::from(bits)).then(|| Iv {
                    lo: self.konst(0),
                    hi: self.konst((1 << c) - 1),
                })
            }
            Op::Load {
                ptr: Ptr::Global(p),
                ..
            } => {
                let offset = self.param_offset(p)?;
                Some(self.exact(Node::Param {
                    offset: u32::try_from(offset).ok()?,
                    bytes: bits / 8,
                }))
            }
            _ => None,
        }
    }

    /// `a - c` where it cannot go below zero; otherwise the whole range of `bits`.
    pub(super) fn sub(&mut self, a: Iv, c: Iv, bits: u8) -> Iv {
        let lo = self.node(Node::Sub(a.lo, c.hi));
        let lo = self.node(Node::Fit(lo, bits));
        let hi = self.node(Node::Sub(a.hi, c.lo));
        let hi = self.node(Node::Max(hi, lo));
        self.or_full(Iv { lo, hi }, bits)
    }

    /// `%ctaid.d`: in `[0, %nctaid.d)`, whichever dispatch of the grid runs it.
    fn ctaid(&mut self, d: u8) -> Iv {
        let n = self.node(Node::GridDim(d));
        let one = self.konst(1);
        let hi = self.node(Node::Sub(n, one));
        Iv {
            lo: self.konst(0),
            hi,
        }
    }

    /// The axis when `x + y` is this dispatch's workgroup id plus its first block (`%ctaid`).
    fn ctaid_sum(&self, x: ValueId, y: ValueId) -> Option<u8> {
        match (self.op(x)?.2, self.op(y)?.2) {
            (Op::Builtin(Builtin::WorkgroupId(a)), Op::Builtin(Builtin::CtaBase(b)))
            | (Op::Builtin(Builtin::CtaBase(b)), Op::Builtin(Builtin::WorkgroupId(a)))
                if a == b =>
            {
                Some(a)
            }
            _ => None,
        }
    }

    /// `p` as the parameter block's address plus a constant.
    fn param_offset(&self, p: ValueId) -> Option<u64> {
        match self.op(p)?.2 {
            Op::Builtin(Builtin::ParamBase) => Some(0),
            Op::Bin(BinOp::IAdd, x, y, _) => {
                let c = self.constant(y)?;
                self.param_offset(x)?.checked_add(c)
            }
            _ => None,
        }
    }
}
