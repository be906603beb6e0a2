//! Drawing warp operations and the rounds of global and shared memory traffic that keep them
//! free of races.

use arbitrary::Result;

use super::generate::Gen;
use super::*;

impl Gen<'_, '_> {
    pub(super) fn warp(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=4u8)? {
            0 => {
                let mode = *self.u.choose(&[
                    ShflMode::Idx,
                    ShflMode::Up,
                    ShflMode::Down,
                    ShflMode::Bfly,
                ])?;
                // Whole warp (31, or 0 for up), segments of 8, 16 and 4 lanes.
                let c = *self.u.choose(&[0x1f, 0x0, 0x1807, 0x100f, 0x1c03])?;
                Stmt::Shfl {
                    mode,
                    d: self.reg()?,
                    a: self.reg()?,
                    lane: match self.src()? {
                        Src::Imm(v) => Src::Imm(v & 31),
                        r => r,
                    },
                    c,
                }
            }
            1 => Stmt::Vote {
                op: *self
                    .u
                    .choose(&[Vote::Ballot, Vote::Any, Vote::All, Vote::Uni])?,
                d: self.reg()?,
                p: self.pred()?,
            },
            2 => Stmt::Redux {
                op: self.redux_op()?,
                d: self.reg()?,
                a: self.reg()?,
            },
            3 => Stmt::Match {
                all: self.u.arbitrary()?,
                d: self.reg()?,
                a: self.reg()?,
            },
            _ if self.warp_only => Stmt::Vote {
                op: Vote::Ballot,
                d: self.reg()?,
                p: self.pred()?,
            },
            _ => Stmt::Bar,
        })
    }

    /// A statement for where the whole block (with `warp_only`, the whole warp) is present, of
    /// a kind `features` allows.
    pub(super) fn collective_stmt(&mut self, depth: u32) -> Result<Stmt> {
        let f = self.features;
        let nest = f.control && depth < MAX_DEPTH;
        let mut kinds = Vec::new();
        if self.warp_only {
            // Only the warp is present: its operations, maybe under a mask, or another
            // per-warp branch.
            if f.warps {
                kinds.push(1);
                if f.masked {
                    kinds.push(2);
                }
                if nest {
                    kinds.extend([7, 9, 10]);
                }
            }
        } else {
            if f.shared {
                kinds.push(0u8);
            }
            if f.warps {
                kinds.extend([1, 8]);
                if f.masked {
                    kinds.push(2);
                }
            }
            if f.global {
                kinds.push(3);
                if f.shared {
                    kinds.push(11);
                }
            }
            if f.narrow && (f.shared || f.global) {
                kinds.push(4);
            }
            if nest {
                kinds.extend([5, 6]);
                if f.warps {
                    kinds.extend([7, 9, 10]);
                }
            }
        }
        match self.u.choose(&kinds).copied().unwrap_or(1) {
            0 => self.shared_round(),
            2 => self.masked(depth),
            5 => self.uniform_loop(depth),
            6 => self.block_if(depth),
            7 => self.warp_if(depth),
            9 => self.warp_loop(depth),
            11 => Ok(Stmt::CpAsync {
                sel: self.reg()?,
                src: self.reg()?,
                d: self.reg()?,
                i: self.reg()?,
                group: self.u.arbitrary()?,
            }),
            10 => {
                let r = self.reg()?;
                let body = self.together(depth, true, |g| g.block(depth + 1, false))?;
                Ok(Stmt::VoteLoop { r, body })
            }
            8 => Ok(Stmt::BarRed {
                op: *self.u.choose(&[BarRed::Popc, BarRed::And, BarRed::Or])?,
                d: self.reg()?,
                p: self.pred()?,
                neg: self.u.arbitrary()?,
            }),
            3 => self.global_round(),
            4 => {
                let global = f.global && (!f.shared || self.u.arbitrary()?);
                self.narrow_round(global)
            }
            _ => self.warp(),
        }
    }

    /// A loop every thread runs to the end, whose body's top level is again where the whole
    /// block is present: warp operations, barriers and memory rounds repeated, between
    /// thread-local code (which may hold other loops, left by `break`s of their own).
    fn uniform_loop(&mut self, depth: u32) -> Result<Stmt> {
        let trips = self.u.int_in_range(1..=4)?;
        let body = self.together(depth, false, |g| g.block(depth + 1, false))?;
        Ok(Stmt::Loop {
            trips,
            uniform: true,
            body,
        })
    }

    /// A branch each block takes as a whole, whose arms' top level is again where the whole
    /// block is present.
    fn block_if(&mut self, depth: u32) -> Result<Stmt> {
        let odd = self.u.arbitrary()?;
        let (then, els) = self.arms_together(depth, false)?;
        Ok(Stmt::BlockIf { odd, then, els })
    }

    /// A branch each warp takes whole, whose arms' top level holds warp operations again.
    fn warp_if(&mut self, depth: u32) -> Result<Stmt> {
        let odd = self.u.arbitrary()?;
        let (then, els) = self.arms_together(depth, true)?;
        Ok(Stmt::WarpIf { odd, then, els })
    }

    /// A loop each warp runs whole but for its own number of iterations, whose body's top
    /// level holds warp operations again.
    fn warp_loop(&mut self, depth: u32) -> Result<Stmt> {
        let trips = self.u.int_in_range(1..=3)?;
        let extra = self.u.int_in_range(1..=3)?;
        let odd = self.u.arbitrary()?;
        let body = self.together(depth, true, |g| g.block(depth + 1, false))?;
        Ok(Stmt::WarpLoop {
            trips,
            extra,
            odd,
            body,
        })
    }

    /// The arms of a branch the whole block (with `warp_only`, the whole warp) takes: their
    /// top level is where it is present again.
    fn arms_together(&mut self, depth: u32, warp_only: bool) -> Result<(Vec<Stmt>, Vec<Stmt>)> {
        self.together(depth, warp_only, |g| {
            let then = g.block(depth + 1, false)?;
            let els = if g.u.arbitrary()? {
                g.block(depth + 1, false)?
            } else {
                Vec::new()
            };
            Ok((then, els))
        })
    }

    /// Runs `f` with depth `depth + 1` as the level where the whole block (with `warp_only`,
    /// the whole warp) is present, then restores the level it replaced.
    pub(super) fn together<T>(
        &mut self,
        depth: u32,
        warp_only: bool,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let saved = (self.uniform_depth, self.warp_only);
        (self.uniform_depth, self.warp_only) = (depth + 1, warp_only);
        let out = f(self);
        (self.uniform_depth, self.warp_only) = saved;
        out
    }

    /// A warp operation in a branch that only the lanes of its member mask take.
    fn masked(&mut self, depth: u32) -> Result<Stmt> {
        let mut op = self.warp()?;
        if matches!(op, Stmt::Bar) {
            op = Stmt::Vote {
                op: Vote::Ballot,
                d: self.reg()?,
                p: self.pred()?,
            };
        }
        let mask = if let Stmt::Shfl { mode, c, .. } = &mut op {
            // Whole segments of 4, 8 or 16 lanes, so that every source lane is a member (the
            // ISA leaves a read from a lane outside the mask undefined).
            let (seg, width) = *self.u.choose(&[(0x1cu32, 4u32), (0x18, 8), (0x10, 16)])?;
            *c = (seg << 8) | if *mode == ShflMode::Up { 0 } else { width - 1 };
            let segments = 32 / width;
            let pick = self.u.arbitrary::<u32>()? & ((1 << segments) - 1);
            let pick = if pick == 0 { 1 } else { pick };
            // A butterfly may also read from any lower segment (its only bound is the
            // segment's top lane): every segment below a member one is a member too.
            let pick = if *mode == ShflMode::Bfly {
                u32::MAX >> pick.leading_zeros()
            } else {
                pick
            };
            (0..segments)
                .filter(|s| pick >> s & 1 == 1)
                .fold(0u32, |m, s| {
                    m | (((1u64 << width) - 1) as u32) << (s * width)
                })
        } else if self.u.arbitrary()? {
            *self.u.choose(&[
                0x5555_5555,
                0xaaaa_aaaa,
                0x0000_ffff,
                0xffff_0000,
                0x8000_0001,
                0x0f0f_00ff,
                0x0000_0001,
                0x8000_0000,
                0x7fff_ffff,
                0xffff_fffe,
            ])?
        } else {
            self.u.arbitrary::<u32>()? | 1 << self.u.int_in_range(0..=31u32)?
        };
        let pre = if self.u.arbitrary()? {
            self.block(depth + 1, false)?
        } else {
            Vec::new()
        };
        Ok(Stmt::Masked {
            mask,
            pre,
            op: Box::new(op),
        })
    }

    fn own_atom_op(&mut self) -> Result<OwnAtom> {
        Ok(*self.u.choose(&[
            OwnAtom::Add,
            OwnAtom::MinU,
            OwnAtom::MaxS,
            OwnAtom::And,
            OwnAtom::Or,
            OwnAtom::Xor,
            OwnAtom::Exch,
            OwnAtom::Cas,
            OwnAtom::Inc,
            OwnAtom::Dec,
        ])?)
    }

    fn global_round(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=2u8)? {
            0 => Stmt::GAtomOwn {
                op: self.own_atom_op()?,
                d: self.reg()?,
                sel: self.reg()?,
                v: self.reg()?,
                w: self.reg()?,
            },
            1 => Stmt::GRedAny {
                op: self.redux_op()?,
                d: self.reg()?,
                i: self.reg()?,
                v: self.reg()?,
            },
            _ => Stmt::GAtomBit {
                op: *self.u.choose(&[Redux::And, Redux::Or, Redux::Xor])?,
                d: self.reg()?,
                v: self.reg()?,
            },
        })
    }

    fn redux_op(&mut self) -> Result<Redux> {
        Ok(*self.u.choose(&[
            Redux::Add,
            Redux::MinU,
            Redux::MinS,
            Redux::MaxU,
            Redux::MaxS,
            Redux::And,
            Redux::Or,
            Redux::Xor,
        ])?)
    }

    pub(super) fn shared_round(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=3u8)? {
            // Only where the whole block is sure to be present: in divergent code, handoffs in
            // both arms of a branch would signal each other across it.
            3 if self.features.warps && self.features.lockstep => Stmt::Handoff {
                odd: self.u.arbitrary()?,
                v: self.reg()?,
                sel: self.reg()?,
                d: self.reg()?,
                i: self.reg()?,
            },
            0 => Stmt::ShRound {
                v: self.reg()?,
                sel: self.reg()?,
                d: self.reg()?,
                i: self.reg()?,
            },
            1 => Stmt::AtomOwn {
                op: self.own_atom_op()?,
                d: self.reg()?,
                sel: self.reg()?,
                v: self.reg()?,
                w: self.reg()?,
            },
            _ => Stmt::RedAny {
                op: self.redux_op()?,
                d: self.reg()?,
                i: self.reg()?,
                v: self.reg()?,
            },
        })
    }
}
