//! The frame of a generated function: its variables and local words written in the entry, blocks
//! of random code ending in jumps, branches, switches, exits and bounded back edges, and an exit
//! that makes every variable and local word observable.

use super::{DEPTH, Gen, LOCAL_WORDS, Rng, TRIPS};
use crate::ir::{
    BinOp, BlockId, ExtOp, FpFlags, Function, MemOrder, Op, Ptr, Terminator, Ty, VarId,
};

impl Gen<'_> {
    /// The whole function: its entry, `blocks` blocks of random code, and its exit.
    pub(super) fn function(mut self, blocks: usize) -> Function {
        let tys = [
            Ty::I32,
            Ty::I32,
            Ty::I32,
            Ty::I64,
            Ty::I64,
            Ty::F32,
            Ty::F32,
            Ty::F64,
        ];
        for (k, &t) in tys.iter().enumerate() {
            let v = self.f.new_var(t, format!("v{k}"));
            self.vars.push(v);
        }
        // The entry: every variable and local word written from the parameters.
        let entry = self.f.entry;
        let p0 = self.f.push(entry, Ty::I32, Op::Param(0));
        let p1 = self.f.push(entry, Ty::I64, Op::Param(1));
        self.have = vec![p0, p1];
        for k in 0..self.vars.len() {
            let v = self.vars[k];
            let t = self.f.vars[v.0 as usize].ty;
            let x = self.value_of(entry, t);
            self.f.push_void(entry, Op::StoreVar(v, x));
        }
        for w in 0..LOCAL_WORDS {
            let t = [Ty::I32, Ty::F32][self.rng.pick(2)];
            let x = self.value_of(entry, t);
            let at = self.word(entry, w);
            self.store(Ptr::Local(at), x, entry);
        }
        if self.warps {
            self.per_invocation(entry);
        }
        if self.recursive {
            // Depth left: the first parameter, at most DEPTH, so that the recursion ends.
            let d = self.f.new_var(Ty::I32, "depth");
            let most = self.f.push(entry, Ty::I32, Op::Const(DEPTH));
            let x = self.f.push(
                entry,
                Ty::I32,
                Op::Ext(ExtOp::UMin, [p0, most].into(), FpFlags::default()),
            );
            self.f.push_void(entry, Op::StoreVar(d, x));
            self.depth = Some(d);
        }
        // Counters of the back edges, one per block that may take one.
        let counters: Vec<VarId> = (0..blocks)
            .map(|k| self.f.new_var(Ty::I32, format!("trips{k}")))
            .collect();
        let zero = self.f.push(entry, Ty::I32, Op::Const(0));
        for &c in &counters {
            self.f.push_void(entry, Op::StoreVar(c, zero));
        }
        let body: Vec<BlockId> = (0..blocks).map(|_| self.f.new_block()).collect();
        let exit = self.f.new_block();
        let first = *body.first().unwrap_or(&exit);
        self.f.block_mut(entry).term = match self.depth {
            Some(d) => {
                let left = self.f.push(entry, Ty::I32, Op::LoadVar(d));
                let zero = self.f.push(entry, Ty::I32, Op::Const(0));
                let more = self.bin(entry, Ty::Bool, BinOp::INe, left, zero);
                Terminator::Branch {
                    cond: more,
                    then: first,
                    else_: exit,
                }
            }
            None => Terminator::Jump(first),
        };
        for (k, &first_block) in body.iter().enumerate() {
            self.have.clear();
            let mut b = first_block;
            if self.recursive && k == 0 {
                // At least one recursive call, wherever the random code puts others.
                self.call(b);
            }
            for _ in 0..12 + self.rng.pick(12) {
                if self.warps && self.rng.chance(12) {
                    b = self.warp(b);
                } else {
                    self.inst(b);
                }
            }
            let later = |rng: &mut Rng| {
                body.get(k + 1 + rng.pick(blocks - k))
                    .copied()
                    .unwrap_or(exit)
            };
            let term = match self.rng.pick(10) {
                0..=2 => Terminator::Jump(later(self.rng)),
                3..=5 => {
                    let cond = self.condition(b);
                    Terminator::Branch {
                        cond,
                        then: later(self.rng),
                        else_: later(self.rng),
                    }
                }
                6 => {
                    let x = self.value_of(b, Ty::I32);
                    let seven = self.f.push(b, Ty::I32, Op::Const(7));
                    let value = self.bin(b, Ty::I32, BinOp::And, x, seven);
                    let n = 1 + self.rng.pick(4);
                    let targets = (0..n).map(|_| later(self.rng)).collect();
                    Terminator::Switch {
                        value,
                        targets,
                        default: later(self.rng),
                    }
                }
                7 if self.exits => {
                    // `exit` on a data-dependent branch.
                    let cond = self.condition(b);
                    let out = self.f.new_block();
                    self.f.block_mut(out).term = Terminator::Exit;
                    Terminator::Branch {
                        cond,
                        then: out,
                        else_: later(self.rng),
                    }
                }
                _ => {
                    // A back edge to this block or an earlier one, taken at most TRIPS times.
                    let c = counters[k];
                    let n = self.f.push(b, Ty::I32, Op::LoadVar(c));
                    let one = self.f.push(b, Ty::I32, Op::Const(1));
                    let n1 = self.bin(b, Ty::I32, BinOp::IAdd, n, one);
                    self.f.push_void(b, Op::StoreVar(c, n1));
                    let limit = self.f.push(b, Ty::I32, Op::Const(TRIPS));
                    let under = self.bin(b, Ty::Bool, BinOp::ULe, n1, limit);
                    let data = self.condition(b);
                    let op = [BinOp::And, BinOp::And, BinOp::IEq][self.rng.pick(3)];
                    let both = self.bin(b, Ty::Bool, op, data, under);
                    let cond = self.bin(b, Ty::Bool, BinOp::And, both, under);
                    Terminator::Branch {
                        cond,
                        then: body[self.rng.pick(k + 1)],
                        else_: later(self.rng),
                    }
                }
            };
            self.f.block_mut(b).term = term;
        }
        // The exit: the variables and the local array made observable, one value returned.
        self.have.clear();
        let exit = if self.warps {
            self.exchange(exit)
        } else {
            exit
        };
        let base = 0x1000 + 0x100 * u64::from(self.me);
        for k in 0..self.vars.len() {
            let v = self.vars[k];
            let t = self.f.vars[v.0 as usize].ty;
            let x = self.f.push(exit, t, Op::LoadVar(v));
            let at = self.global(exit, base + 8 * k as u64);
            self.store(Ptr::Global(at), x, exit);
        }
        for w in 0..LOCAL_WORDS {
            let at = self.word(exit, w);
            let x = self.f.push(
                exit,
                Ty::I32,
                Op::Load {
                    ptr: Ptr::Local(at),
                    align: 4,
                    order: MemOrder::Plain,
                },
            );
            let g = self.global(exit, base + 0x80 + 4 * u64::from(w));
            self.store(Ptr::Global(g), x, exit);
        }
        self.f.block_mut(exit).term = if self.f.returns.is_empty() {
            Terminator::Return(Vec::new())
        } else {
            let r = self.f.push(exit, Ty::I32, Op::LoadVar(self.vars[0]));
            Terminator::Return(vec![r])
        };
        self.f
    }
}
