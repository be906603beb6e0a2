//! The statements that need the whole block or warp at once: warp operations, barriers,
//! memory rounds, and the constructs every thread of a block or warp runs together.

use super::*;

impl Program {
    /// Runs `s`, where every thread of every block is present, for all of them.
    pub(super) fn exec(&self, s: &Stmt, regs: &mut [Regs], mem: &mut Mem<'_>, block: u32) {
        if !self.collective(s, regs, mem, block) {
            for g in regs {
                self.step(s, g);
            }
        }
    }

    /// Runs `s` for every thread if it is collective; false if it is not.
    pub(super) fn collective(
        &self,
        s: &Stmt,
        regs: &mut [Regs],
        mem: &mut Mem<'_>,
        block: u32,
    ) -> bool {
        if let Stmt::Loop {
            trips,
            uniform: true,
            body,
        } = s
        {
            // No thread leaves early: the iterations run in step, each statement for all.
            for _ in 0..*trips {
                for s in body {
                    self.exec(s, regs, mem, block);
                }
            }
            return true;
        }
        if let Stmt::BlockIf { .. } = s {
            // Each block runs its arm alone: blocks share nothing but the words across
            // blocks, whose operations do not depend on the order.
            // `regs` may be one block already (a branch inside another): the arm follows the
            // block's own `%ctaid.x`, the memory the position in `regs`.
            let per = block as usize;
            for (b, blk) in regs.chunks_mut(per).enumerate() {
                let arm = arm(s, &blk[0]);
                let mut own = Mem {
                    shared: &mut mem.shared[b..=b],
                    global: &mut mem.global[b..=b],
                };
                for s in arm {
                    self.exec(s, blk, &mut own, block);
                }
            }
            return true;
        }
        if let Stmt::WarpIf { .. } = s {
            // Only warp operations inside: each warp runs its arm for its lanes.
            for warp in regs.chunks_mut(32) {
                let arm = arm(s, &warp[0]);
                for s in arm {
                    self.exec(s, warp, mem, block);
                }
            }
            return true;
        }
        if let Stmt::WarpLoop {
            trips,
            extra,
            odd,
            body,
        } = s
        {
            // Only warp operations inside: each warp runs its own iterations for its lanes.
            for warp in regs.chunks_mut(32) {
                for _ in 0..warp_trips(*trips, *extra, *odd, &warp[0]) {
                    for s in body {
                        self.exec(s, warp, mem, block);
                    }
                }
            }
            return true;
        }
        if let Stmt::VoteLoop { r, body } = s {
            // Each warp runs the iterations its lanes' largest count asks for, all together.
            for warp in regs.chunks_mut(32) {
                let trips = warp.iter().map(|g| g.r[*r as usize] % 4 + 1).max();
                for _ in 0..trips.unwrap_or(0) {
                    for s in body {
                        self.exec(s, warp, mem, block);
                    }
                }
            }
            return true;
        }
        if let Stmt::Call { f, d, a, b } = *s
            && self.funcs[f as usize].level != FuncLevel::Thread
        {
            // Its top level runs together, like the kernel's: the callers' frames in step.
            let func = &self.funcs[f as usize];
            let mut frames: Vec<Regs> = regs
                .iter()
                .map(|g| g.frame(func, g.r[a as usize], g.r[b as usize]))
                .collect();
            for s in &func.body {
                self.exec(s, &mut frames, mem, block);
            }
            for (g, frame) in regs.iter_mut().zip(frames) {
                g.r[d as usize] = frame.r[0];
            }
            return true;
        }
        let (shared, global) = (&mut *mem.shared, &mut *mem.global);
        match s {
            Stmt::Shfl { .. } | Stmt::Vote { .. } | Stmt::Redux { .. } | Stmt::Match { .. } => {
                for warp in regs.chunks_mut(32) {
                    warp_op(s, warp, u32::MAX);
                }
            }
            Stmt::Masked { mask, pre, op } => {
                for warp in regs.chunks_mut(32) {
                    for g in warp.iter_mut().filter(|g| mask >> g.lane() & 1 == 1) {
                        self.run(pre, g);
                    }
                    warp_op(op, warp, *mask);
                }
            }
            Stmt::GAtomBit { op, d, v } => {
                for (blk, gm) in regs.chunks_mut(block as usize).zip(global.iter_mut()) {
                    for g in blk.iter_mut() {
                        let at = (SHARED_WORDS + g.tid / 32) as usize;
                        let bit = 1u32 << g.lane();
                        let operand = match op {
                            Redux::And => g.r[*v as usize] | !bit,
                            _ => g.r[*v as usize] & bit,
                        };
                        let old = gm[at];
                        gm[at] = reduce(*op, old, operand);
                        g.r[*d as usize] = old & bit;
                    }
                }
            }
            Stmt::NarrowRound {
                global: in_global,
                ty,
                load,
                to32,
                v,
                sel,
                d,
                i,
            } => {
                let regions = if *in_global {
                    global.iter_mut()
                } else {
                    shared.iter_mut()
                };
                for (blk, m) in regs.chunks_mut(block as usize).zip(regions) {
                    let n = ty.bytes();
                    for g in blk.iter() {
                        let within = if n == 1 {
                            g.r[*sel as usize] & 15
                        } else {
                            (g.r[*sel as usize] & 7) * 2
                        };
                        let at = g.tid * 16 + within;
                        store_bytes(m, at, n, u32::from(g.h[*v as usize % NH as usize]));
                    }
                    for g in blk.iter_mut() {
                        let at = if n == 1 {
                            g.r[*i as usize] & 1023
                        } else {
                            (g.r[*i as usize] & 511) * 2
                        };
                        let x = load.extend(load_bytes(m, at, n));
                        if *to32 {
                            g.r[*d as usize] = x;
                        } else {
                            g.h[*d as usize % NH as usize] = x as u16;
                        }
                    }
                }
            }
            Stmt::Bar => {}
            Stmt::BarRed { op, d, p, neg } => {
                for blk in regs.chunks_mut(block as usize) {
                    let count = blk.iter().filter(|g| g.p[*p as usize] != *neg).count() as u32;
                    for g in blk.iter_mut() {
                        match op {
                            BarRed::Popc => g.r[*d as usize] = count,
                            BarRed::And => g.p[(*d % NP) as usize] = count == block,
                            BarRed::Or => g.p[(*d % NP) as usize] = count > 0,
                        }
                    }
                }
            }
            Stmt::ShRound { v, sel, d, i } => {
                for (blk, sh) in regs.chunks_mut(block as usize).zip(shared.iter_mut()) {
                    for g in blk.iter() {
                        sh[own(g, *sel)] = g.r[*v as usize];
                    }
                    for g in blk.iter_mut() {
                        g.r[*d as usize] = sh[any(g, *i)];
                    }
                }
            }
            Stmt::CpAsync { sel, src, d, i, .. } => {
                let regions = shared.iter_mut().zip(global.iter());
                for (blk, (sh, gm)) in regs.chunks_mut(block as usize).zip(regions) {
                    for g in blk.iter() {
                        sh[own(g, *sel)] = gm[any(g, *src)];
                    }
                    for g in blk.iter_mut() {
                        g.r[*d as usize] = sh[any(g, *i)];
                    }
                }
            }
            Stmt::Handoff { odd, v, sel, d, i } => {
                let producer = |g: &Regs| (g.tid / 32 % 2 == 1) == *odd;
                for (blk, sh) in regs.chunks_mut(block as usize).zip(shared.iter_mut()) {
                    for g in blk.iter().filter(|g| producer(g)) {
                        sh[own(g, *sel)] = g.r[*v as usize];
                    }
                    for g in blk.iter_mut().filter(|g| !producer(g)) {
                        g.r[*d as usize] = sh[any(g, *i)];
                    }
                }
            }
            Stmt::AtomOwn { op, d, sel, v, w } | Stmt::GAtomOwn { op, d, sel, v, w } => {
                let regions = if matches!(s, Stmt::GAtomOwn { .. }) {
                    global.iter_mut()
                } else {
                    shared.iter_mut()
                };
                for (blk, m) in regs.chunks_mut(block as usize).zip(regions) {
                    for g in blk.iter_mut() {
                        let at = own(g, *sel);
                        let old = m[at];
                        m[at] = own_atom(*op, old, g.r[*v as usize], g.r[*w as usize]);
                        g.r[*d as usize] = old;
                    }
                }
            }
            Stmt::RedAny { op, d, i, v } | Stmt::GRedAny { op, d, i, v } => {
                let regions = if matches!(s, Stmt::GRedAny { .. }) {
                    global.iter_mut()
                } else {
                    shared.iter_mut()
                };
                for (blk, m) in regs.chunks_mut(block as usize).zip(regions) {
                    for g in blk.iter() {
                        let at = any(g, *i);
                        m[at] = reduce(*op, m[at], g.r[*v as usize]);
                    }
                    for g in blk.iter_mut() {
                        g.r[*d as usize] = m[any(g, *i)];
                    }
                }
            }
            _ => return false,
        }
        true
    }
}
