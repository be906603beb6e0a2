//! Drawing a program from fuzzer bytes: operands, statements and blocks, and the functions and
//! kernel around them.

use arbitrary::{Result, Unstructured};

use super::*;

pub(super) struct Gen<'a, 'b> {
    pub(super) u: &'a mut Unstructured<'b>,
    pub(super) features: Features,
    /// Generating a function's body (no collectives there in lockstep mode).
    pub(super) in_func: bool,
    pub(super) stmts: u32,
    /// Functions a call may name (those defined before the one being generated).
    pub(super) callable: u8,
    /// The level of each function defined so far.
    pub(super) levels: Vec<FuncLevel>,
    /// Generating a function whose top level runs together ([`FuncLevel::Warp`] or
    /// [`FuncLevel::Block`]).
    pub(super) func_together: bool,
    /// The depth whose statements every thread of the block is sure to run: 0, or the body of
    /// the uniform loop being generated.
    pub(super) uniform_depth: u32,
    /// Generating the arms of a per-warp branch: at `uniform_depth` only the warp is sure to be
    /// present, so warp operations but no barriers or block-wide rounds.
    pub(super) warp_only: bool,
}

impl Gen<'_, '_> {
    pub(super) fn reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NR - 1)
    }
    fn wide_reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=ND - 1)
    }
    pub(super) fn pred(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NP - 1)
    }
    pub(super) fn src(&mut self) -> Result<Src> {
        Ok(if self.u.ratio(1, 3)? {
            Src::Imm(self.imm()?)
        } else {
            Src::Reg(self.reg()?)
        })
    }
    /// Mostly the values where integer instructions have edges.
    fn imm(&mut self) -> Result<u32> {
        const EDGES: [u32; 12] = [
            0,
            1,
            2,
            7,
            31,
            32,
            33,
            0xff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            0xffff_ffff,
        ];
        Ok(if self.u.ratio(1, 2)? {
            *self.u.choose(&EDGES)?
        } else {
            self.u.arbitrary()?
        })
    }

    pub(super) fn block(&mut self, depth: u32, in_loop: bool) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        while self.stmts < MAX_STMTS && !self.u.is_empty() && self.u.ratio(7, 8)? {
            self.stmts += 1;
            out.push(self.stmt(depth, in_loop)?);
        }
        Ok(out)
    }

    fn stmt(&mut self, depth: u32, in_loop: bool) -> Result<Stmt> {
        let f = self.features;
        let nest = f.control && depth < MAX_DEPTH;
        // Where every thread of the warp (of the block, unless `warp_only`) is sure to be: the
        // kernel's top level, or that of a uniform loop's body or a branch's arm there.
        let together =
            depth == self.uniform_depth && !in_loop && (!self.in_func || self.func_together);
        let collective = together && !self.warp_only;
        // The top level is a small part of a program: collectives get a larger share there.
        if f.lockstep && together && (f.warps || f.shared || f.global) && self.u.ratio(1, 2)? {
            return self.collective_stmt(depth);
        }
        loop {
            let s = match self.u.int_in_range(0..=26u8)? {
                0..=3 => Stmt::Bin {
                    op: *self.u.choose(&[
                        Bin::Add,
                        Bin::Sub,
                        Bin::MulLo,
                        Bin::MulHiU,
                        Bin::MulHiS,
                        Bin::And,
                        Bin::Or,
                        Bin::Xor,
                        Bin::Shl,
                        Bin::ShrU,
                        Bin::ShrS,
                        Bin::MinU,
                        Bin::MinS,
                        Bin::MaxU,
                        Bin::MaxS,
                        Bin::DivU,
                        Bin::RemU,
                        Bin::AddSatS,
                        Bin::Mul24LoU,
                    ])?,
                    signed: self.u.arbitrary()?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                },
                4 => Stmt::Un {
                    op: *self.u.choose(&[
                        Un::Not,
                        Un::Neg,
                        Un::Popc,
                        Un::Clz,
                        Un::Brev,
                        Un::AbsS,
                        Un::Cnot,
                    ])?,
                    d: self.reg()?,
                    a: self.reg()?,
                },
                5 => Stmt::Tern {
                    op: *self.u.choose(&[
                        Tern::MadLo,
                        Tern::MadHiU,
                        Tern::BfeU,
                        Tern::BfeS,
                        Tern::Bfi,
                        Tern::Prmt,
                        Tern::SadU,
                    ])?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                    c: self.src()?,
                },
                6 => {
                    let op = *self.u.choose(&[
                        Wide::MulWideU,
                        Wide::MulWideS,
                        Wide::Add64,
                        Wide::Xor64,
                        Wide::Shl64,
                        Wide::ShrU64,
                        Wide::CvtU,
                        Wide::CvtS,
                        Wide::Trunc,
                    ])?;
                    // Operand and result kinds follow the operation (see `print_stmt`).
                    let (d, a, b) = match op {
                        Wide::MulWideU | Wide::MulWideS => {
                            (self.wide_reg()?, self.reg()?, self.reg()?)
                        }
                        Wide::Add64 | Wide::Xor64 => {
                            (self.wide_reg()?, self.wide_reg()?, self.wide_reg()?)
                        }
                        Wide::Shl64 | Wide::ShrU64 => {
                            (self.wide_reg()?, self.wide_reg()?, self.reg()?)
                        }
                        Wide::CvtU | Wide::CvtS => (self.wide_reg()?, self.reg()?, 0),
                        Wide::Trunc => (self.reg()?, self.wide_reg()?, 0),
                    };
                    Stmt::Wide { op, d, a, b }
                }
                7 => Stmt::Mov {
                    d: self.reg()?,
                    s: self.src()?,
                },
                8 => Stmt::Selp {
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.src()?,
                    p: self.pred()?,
                },
                9 | 10 => Stmt::Setp {
                    cmp: *self
                        .u
                        .choose(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge])?,
                    signed: self.u.arbitrary()?,
                    p: self.pred()?,
                    a: self.reg()?,
                    b: self.src()?,
                },
                11 => Stmt::Pred {
                    op: *self
                        .u
                        .choose(&[PredOp::And, PredOp::Or, PredOp::Xor, PredOp::Not])?,
                    p: self.pred()?,
                    a: self.pred()?,
                    b: self.pred()?,
                },
                12 if f.floats => self.float()?,
                13 | 14 if nest => Stmt::If {
                    p: self.pred()?,
                    neg: self.u.arbitrary()?,
                    then: self.block(depth + 1, in_loop)?,
                    els: if self.u.arbitrary()? {
                        self.block(depth + 1, in_loop)?
                    } else {
                        Vec::new()
                    },
                },
                15 if nest => Stmt::Loop {
                    trips: self.u.int_in_range(1..=5)?,
                    uniform: false,
                    body: self.block(depth + 1, true)?,
                },
                16 if in_loop => Stmt::Break {
                    p: self.pred()?,
                    neg: self.u.arbitrary()?,
                },
                17 if f.calls && self.callable > 0 => {
                    // A function that runs collectives only where those who must run them
                    // together are present.
                    let fs: Vec<u8> = (0..self.callable)
                        .filter(|&i| match self.levels[i as usize] {
                            FuncLevel::Thread => true,
                            FuncLevel::Warp => together,
                            FuncLevel::Block => collective,
                        })
                        .collect();
                    if fs.is_empty() {
                        continue;
                    }
                    Stmt::Call {
                        f: *self.u.choose(&fs)?,
                        d: self.reg()?,
                        a: self.reg()?,
                        b: self.reg()?,
                    }
                }
                18 if f.warps && (!f.lockstep || together) => self.warp()?,
                19 if f.shared && !f.lockstep => match self.u.int_in_range(0..=2u8)? {
                    0 => Stmt::StShared {
                        i: self.reg()?,
                        v: self.reg()?,
                    },
                    1 => Stmt::LdShared {
                        d: self.reg()?,
                        i: self.reg()?,
                    },
                    _ => Stmt::AtomShared {
                        op: *self
                            .u
                            .choose(&[Atom::Add, Atom::Max, Atom::Exch, Atom::Cas])?,
                        d: self.reg()?,
                        i: self.reg()?,
                        v: self.reg()?,
                        w: self.reg()?,
                    },
                },
                19 if f.shared && collective => self.shared_round()?,
                20 if f.floats => self.float()?,
                21 => Stmt::Special {
                    d: self.reg()?,
                    reg: *self.u.choose(&[
                        Special::Laneid,
                        Special::TidX,
                        Special::NtidX,
                        Special::CtaidX,
                        Special::LanemaskEq,
                        Special::LanemaskLt,
                        Special::LanemaskLe,
                        Special::LanemaskGt,
                        Special::LanemaskGe,
                    ])?,
                },
                22 if (f.warps || f.shared || f.global) && (!f.lockstep || together) => {
                    self.collective_stmt(depth)?
                }
                23 | 24 if f.narrow => self.narrow()?,
                25 if f.global && !self.in_func => Stmt::CrossRed {
                    op: *self.u.choose(&CROSS_OPS)?,
                    i: self.reg()?,
                    v: self.reg()?,
                },
                // Functions have no `lm` of their own.
                26 if f.local && !self.in_func => Stmt::Local {
                    op: *self.u.choose(&[
                        LocalOp::St,
                        LocalOp::Ld,
                        LocalOp::St2,
                        LocalOp::Ld2,
                        LocalOp::St4,
                        LocalOp::Ld4,
                        LocalOp::StU8,
                        LocalOp::LdU8,
                        LocalOp::LdS8,
                        LocalOp::StU16,
                        LocalOp::LdS16,
                    ])?,
                    r: self.reg()?,
                    i: self.reg()?,
                    generic: self.u.arbitrary()?,
                },
                _ => continue,
            };
            return Ok(s);
        }
    }

    fn fidx(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NF - 1)
    }

    /// Float bits: mostly the values where float operations have edges.
    fn fbits(&mut self) -> Result<u32> {
        const EDGES: [u32; 20] = [
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x3f80_0000, // 1
            0xbf80_0000, // -1
            0x3f00_0000, // 0.5
            0x3fc0_0000, // 1.5
            0x4020_0000, // 2.5
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x7fc0_0000, // NaN
            0x0000_0001, // smallest subnormal
            0x807f_ffff, // largest negative subnormal
            0x0080_0000, // smallest normal
            0x7f7f_ffff, // largest finite
            0x4f80_0000, // 2^32
            0x4f00_0000, // 2^31
            0xcf00_0000, // -2^31
            0x4b00_0000, // 2^23
            0x3eff_ffff, // just below 0.5
            0x3400_0000, // 2^-23
        ];
        Ok(if self.u.ratio(2, 3)? {
            *self.u.choose(&EDGES)?
        } else {
            self.u.arbitrary()?
        })
    }

    fn float(&mut self) -> Result<Stmt> {
        Ok(match self.u.int_in_range(0..=5u8)? {
            0 => Stmt::MovF {
                d: self.fidx()?,
                bits: self.fbits()?,
            },
            1 => Stmt::SetpF {
                cmp: *self.u.choose(&[
                    FCmp::Eq,
                    FCmp::Ne,
                    FCmp::Lt,
                    FCmp::Le,
                    FCmp::Gt,
                    FCmp::Ge,
                    FCmp::Equ,
                    FCmp::Neu,
                    FCmp::Ltu,
                    FCmp::Leu,
                    FCmp::Gtu,
                    FCmp::Geu,
                    FCmp::Num,
                    FCmp::Nan,
                ])?,
                p: self.pred()?,
                a: self.fidx()?,
                b: self.fidx()?,
            },
            2 => Stmt::Dbl {
                op: *self.u.choose(&[
                    DblOp::Add,
                    DblOp::Mul,
                    DblOp::Fma,
                    DblOp::Div,
                    DblOp::Sqrt,
                    DblOp::FromF,
                    DblOp::ToF,
                    DblOp::FromBits,
                    DblOp::ToBits,
                ])?,
                d: self.u.arbitrary()?,
                a: self.u.arbitrary()?,
                b: self.u.arbitrary()?,
                c: self.u.arbitrary()?,
            },
            _ => Stmt::Float {
                op: *self.u.choose(&FLOAT_OPS)?,
                d: self.fidx()?,
                a: self.fidx()?,
                b: self.fidx()?,
                c: self.fidx()?,
            },
        })
    }
}

impl Program {
    /// A program with what `features` allows, drawn from `u`.
    pub fn generate(u: &mut Unstructured<'_>, features: Features) -> Result<Program> {
        let nfuncs = if features.calls {
            u.int_in_range(0..=MAX_FUNCS)?
        } else {
            0
        };
        let mut g = Gen {
            u,
            features,
            in_func: true,
            stmts: 0,
            callable: 0,
            levels: Vec::new(),
            func_together: false,
            uniform_depth: 0,
            warp_only: false,
        };
        let mut funcs = Vec::new();
        for i in 0..nfuncs {
            g.callable = i;
            let mut init = [0u32; NR as usize];
            for v in &mut init {
                *v = g.imm()?;
            }
            // In lockstep programs a function may run collectives at its top level, and is
            // then called only where those who run them together are present. Elsewhere a
            // call from divergent code would make them divergent too.
            let level = if features.lockstep && features.warps {
                *g.u.choose(&[FuncLevel::Thread, FuncLevel::Warp, FuncLevel::Block])?
            } else {
                FuncLevel::Thread
            };
            let saved = g.features;
            if level == FuncLevel::Thread {
                g.features.warps = false;
                g.features.global = false;
                if features.lockstep {
                    g.features.shared = false;
                }
            }
            g.func_together = level != FuncLevel::Thread;
            let body = g.together(0, level == FuncLevel::Warp, |g| g.block(1, false))?;
            g.features = saved;
            g.levels.push(level);
            funcs.push(Func { init, body, level });
        }
        g.in_func = false;
        g.func_together = false;
        g.callable = nfuncs;
        let (mut mul, mut add) = ([0u32; NR as usize], [0u32; NR as usize]);
        for (m, a) in mul.iter_mut().zip(&mut add) {
            *m = g.imm()?;
            *a = g.imm()?;
        }
        let body = g.block(0, false)?;
        Ok(Program {
            funcs,
            mul,
            add,
            body,
            features,
        })
    }
}
