//! Well-typed PTX from fuzzer bytes: a small program AST drawn from [`Unstructured`], printed as
//! a PTX module, and (for its integer subset) run by [`Program::eval`], an interpreter written
//! from the PTX ISA's definitions, so that the differential fuzzer can compare it bit for bit
//! with the translated kernel.
//!
//! Every program is valid PTX by construction: registers are declared once per function and
//! written before they are read, loops count to a bound, calls go to functions defined earlier
//! (no recursion). Random text rarely gets past the checker; these reach lowering, the
//! structurizer, the SIMT pass and emission.

use std::fmt::Write as _;

use arbitrary::{Result, Unstructured};

/// 32-bit registers `%r0..` per function.
pub const NR: u8 = 8;
/// 64-bit registers `%rd0..`.
pub const ND: u8 = 4;
/// f32 registers `%f0..`.
pub const NF: u8 = 4;
/// Predicates `%p0..`.
pub const NP: u8 = 4;
/// Words the kernel stores per thread: every `%r`, then every `%rd` as two words.
pub const OUT_WORDS: u32 = NR as u32 + 2 * ND as u32;
/// Words of the `.shared` array.
const SHARED_WORDS: u32 = 256;
/// Nesting of ifs and loops.
const MAX_DEPTH: u32 = 4;
/// Most statements in all of a program.
const MAX_STMTS: u32 = 96;
/// Most `.func`s.
const MAX_FUNCS: u8 = 3;

/// What a generated program may contain.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    pub control: bool,
    pub calls: bool,
    pub floats: bool,
    /// Shuffles, votes and barriers.
    pub warps: bool,
    /// `.shared` loads, stores and atomics.
    pub shared: bool,
}

impl Features {
    /// Everything: for translation.
    pub const ALL: Features = Features {
        control: true,
        calls: true,
        floats: true,
        warps: true,
        shared: true,
    };
    /// What [`Program::eval`] runs: integer code, branches, loops and calls, each thread on
    /// its own.
    pub const THREAD_LOCAL: Features = Features {
        control: true,
        calls: true,
        floats: false,
        warps: false,
        shared: false,
    };
}

#[derive(Clone, Copy, Debug)]
pub enum Src {
    Reg(u8),
    Imm(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    MulLo,
    MulHiU,
    MulHiS,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    /// The divisor is `b | 1`: PTX leaves division by zero unspecified.
    DivU,
    RemU,
    AddSatS,
    Mul24LoU,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Not,
    Neg,
    Popc,
    Clz,
    Brev,
    AbsS,
    Cnot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tern {
    MadLo,
    MadHiU,
    BfeU,
    BfeS,
    Bfi,
    Prmt,
    SadU,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wide {
    /// `mul.wide.u32 %rd, %r, %r`
    MulWideU,
    MulWideS,
    /// `add.u64 %rd, %rd, %rd`
    Add64,
    Xor64,
    /// `shl.b64 %rd, %rd, %r`
    Shl64,
    ShrU64,
    /// `cvt.u64.u32 %rd, %r`
    CvtU,
    /// `cvt.s64.s32 %rd, %r`
    CvtS,
    /// `cvt.u32.u64 %r, %rd` (the only one writing a 32-bit register)
    Trunc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredOp {
    And,
    Or,
    Xor,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Mul,
    Fma,
    Min,
    Max,
    Abs,
    Neg,
    /// `cvt.rn.f32.u32 %f, %r`
    FromInt,
    /// `cvt.rzi.u32.f32 %r, %f`
    ToInt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    Ballot,
    Any,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atom {
    Add,
    Max,
    Exch,
    Cas,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Bin {
        op: Bin,
        signed: bool,
        d: u8,
        a: u8,
        b: Src,
    },
    Un {
        op: Un,
        d: u8,
        a: u8,
    },
    Tern {
        op: Tern,
        d: u8,
        a: u8,
        b: Src,
        c: Src,
    },
    Wide {
        op: Wide,
        d: u8,
        a: u8,
        b: u8,
    },
    Mov {
        d: u8,
        s: Src,
    },
    Selp {
        d: u8,
        a: u8,
        b: Src,
        p: u8,
    },
    Setp {
        cmp: Cmp,
        signed: bool,
        p: u8,
        a: u8,
        b: Src,
    },
    Pred {
        op: PredOp,
        p: u8,
        a: u8,
        b: u8,
    },
    Float {
        op: FloatOp,
        d: u8,
        a: u8,
        b: u8,
        c: u8,
    },
    /// `if (p != neg) { then } else { els }`, written with branches.
    If {
        p: u8,
        neg: bool,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// A do-while loop of `trips` (at least 1) iterations on its own counter.
    Loop {
        trips: u8,
        body: Vec<Stmt>,
    },
    /// `@p bra` to the end of the innermost loop.
    Break {
        p: u8,
        neg: bool,
    },
    /// `%r{d} = f{f}(%r{a}, %r{b})`
    Call {
        f: u8,
        d: u8,
        a: u8,
        b: u8,
    },
    Shfl {
        mode: ShflMode,
        d: u8,
        a: u8,
        lane: Src,
    },
    Vote {
        op: Vote,
        d: u8,
        p: u8,
    },
    Bar,
    /// `sh[%r{i} % 256] = %r{v}`
    StShared {
        i: u8,
        v: u8,
    },
    LdShared {
        d: u8,
        i: u8,
    },
    AtomShared {
        op: Atom,
        d: u8,
        i: u8,
        v: u8,
        w: u8,
    },
}

/// A `.func (.reg .b32 ret) fN(.reg .b32 a, .reg .b32 b)`: `%r0 = a`, `%r1 = b`, the other
/// registers the constants, its body, and `%r0` returned.
#[derive(Clone, Debug)]
pub struct Func {
    pub init: [u32; NR as usize],
    pub body: Vec<Stmt>,
}

/// A kernel `k(.param .u64 out)`: each thread starts with `%r{i} = gtid * mul[i] + add[i]`,
/// runs the body, and stores its registers to `out[gtid * OUT_WORDS ..]`.
#[derive(Clone, Debug)]
pub struct Program {
    pub funcs: Vec<Func>,
    pub mul: [u32; NR as usize],
    pub add: [u32; NR as usize],
    pub body: Vec<Stmt>,
    pub features: Features,
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    features: Features,
    stmts: u32,
    /// Functions a call may name (those defined before the one being generated).
    callable: u8,
}

impl Gen<'_, '_> {
    fn reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NR - 1)
    }
    fn wide_reg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=ND - 1)
    }
    fn pred(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NP - 1)
    }
    fn src(&mut self) -> Result<Src> {
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

    fn block(&mut self, depth: u32, in_loop: bool) -> Result<Vec<Stmt>> {
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
        loop {
            let s = match self.u.int_in_range(0..=19u8)? {
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
                12 if f.floats => Stmt::Float {
                    op: *self.u.choose(&[
                        FloatOp::Add,
                        FloatOp::Mul,
                        FloatOp::Fma,
                        FloatOp::Min,
                        FloatOp::Max,
                        FloatOp::Abs,
                        FloatOp::Neg,
                        FloatOp::FromInt,
                        FloatOp::ToInt,
                    ])?,
                    d: self.u.int_in_range(0..=NF - 1)?,
                    a: self.u.int_in_range(0..=NF - 1)?,
                    b: self.u.int_in_range(0..=NF - 1)?,
                    c: self.u.int_in_range(0..=NF - 1)?,
                },
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
                    body: self.block(depth + 1, true)?,
                },
                16 if in_loop => Stmt::Break {
                    p: self.pred()?,
                    neg: self.u.arbitrary()?,
                },
                17 if f.calls && self.callable > 0 => Stmt::Call {
                    f: self.u.int_in_range(0..=self.callable - 1)?,
                    d: self.reg()?,
                    a: self.reg()?,
                    b: self.reg()?,
                },
                18 if f.warps => match self.u.int_in_range(0..=2u8)? {
                    0 => Stmt::Shfl {
                        mode: *self.u.choose(&[
                            ShflMode::Idx,
                            ShflMode::Up,
                            ShflMode::Down,
                            ShflMode::Bfly,
                        ])?,
                        d: self.reg()?,
                        a: self.reg()?,
                        lane: match self.src()? {
                            Src::Imm(v) => Src::Imm(v & 31),
                            r => r,
                        },
                    },
                    1 => Stmt::Vote {
                        op: *self.u.choose(&[Vote::Ballot, Vote::Any, Vote::All])?,
                        d: self.reg()?,
                        p: self.pred()?,
                    },
                    _ => Stmt::Bar,
                },
                19 if f.shared => match self.u.int_in_range(0..=2u8)? {
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
                _ => continue,
            };
            return Ok(s);
        }
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
            stmts: 0,
            callable: 0,
        };
        let mut funcs = Vec::new();
        for i in 0..nfuncs {
            g.callable = i;
            // Functions hold no barriers or warp operations: a call from divergent code would
            // make them divergent too.
            let saved = g.features;
            g.features.warps = false;
            let mut init = [0u32; NR as usize];
            for v in &mut init {
                *v = g.imm()?;
            }
            let body = g.block(1, false)?;
            g.features = saved;
            funcs.push(Func { init, body });
        }
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

/// `n` pseudo-random bytes from `seed` (xorshift64*), for drawing programs without libFuzzer.
pub fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

// ---- printing ----

fn src(s: Src) -> String {
    match s {
        Src::Reg(r) => format!("%r{r}"),
        Src::Imm(v) => format!("{v}"),
    }
}

struct Printer {
    out: String,
    labels: u32,
    /// The end label of each enclosing loop.
    loops: Vec<String>,
}

impl Printer {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}{}", self.labels)
    }

    fn line(&mut self, s: &str) {
        self.out.push('\t');
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn block(&mut self, body: &[Stmt], depth: usize) {
        for s in body {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        let line = match s {
            Stmt::Bin {
                op,
                signed,
                d,
                a,
                b,
            } => {
                let b = src(*b);
                let s_or_u = if *signed { "s32" } else { "u32" };
                let (name, ty) = match op {
                    Bin::Add => ("add", s_or_u),
                    Bin::Sub => ("sub", s_or_u),
                    Bin::MulLo => ("mul.lo", s_or_u),
                    Bin::MulHiU => ("mul.hi", "u32"),
                    Bin::MulHiS => ("mul.hi", "s32"),
                    Bin::And => ("and", "b32"),
                    Bin::Or => ("or", "b32"),
                    Bin::Xor => ("xor", "b32"),
                    Bin::Shl => ("shl", "b32"),
                    Bin::ShrU => ("shr", "u32"),
                    Bin::ShrS => ("shr", "s32"),
                    Bin::MinU => ("min", "u32"),
                    Bin::MinS => ("min", "s32"),
                    Bin::MaxU => ("max", "u32"),
                    Bin::MaxS => ("max", "s32"),
                    Bin::DivU | Bin::RemU => {
                        let name = if *op == Bin::DivU { "div" } else { "rem" };
                        self.line(&format!("or.b32 %t0, {b}, 1;"));
                        self.line(&format!("{name}.u32 %r{d}, %r{a}, %t0;"));
                        return;
                    }
                    Bin::AddSatS => ("add.sat", "s32"),
                    Bin::Mul24LoU => ("mul24.lo", "u32"),
                };
                format!("{name}.{ty} %r{d}, %r{a}, {b};")
            }
            Stmt::Un { op, d, a } => {
                let (name, ty) = match op {
                    Un::Not => ("not", "b32"),
                    Un::Neg => ("neg", "s32"),
                    Un::Popc => ("popc", "b32"),
                    Un::Clz => ("clz", "b32"),
                    Un::Brev => ("brev", "b32"),
                    Un::AbsS => ("abs", "s32"),
                    Un::Cnot => ("cnot", "b32"),
                };
                format!("{name}.{ty} %r{d}, %r{a};")
            }
            Stmt::Tern { op, d, a, b, c } => {
                let (b, c) = (src(*b), src(*c));
                match op {
                    Tern::MadLo => format!("mad.lo.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::MadHiU => format!("mad.hi.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::BfeU => format!("bfe.u32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::BfeS => format!("bfe.s32 %r{d}, %r{a}, {b}, {c};"),
                    // bfi's insert field comes from a register: the fourth operand is the length.
                    Tern::Bfi => format!("bfi.b32 %r{d}, %r{a}, %r{d}, {b}, {c};"),
                    Tern::Prmt => format!("prmt.b32 %r{d}, %r{a}, {b}, {c};"),
                    Tern::SadU => format!("sad.u32 %r{d}, %r{a}, {b}, {c};"),
                }
            }
            Stmt::Wide { op, d, a, b } => match op {
                Wide::MulWideU => format!("mul.wide.u32 %rd{d}, %r{a}, %r{b};"),
                Wide::MulWideS => format!("mul.wide.s32 %rd{d}, %r{a}, %r{b};"),
                Wide::Add64 => format!("add.u64 %rd{d}, %rd{a}, %rd{b};"),
                Wide::Xor64 => format!("xor.b64 %rd{d}, %rd{a}, %rd{b};"),
                Wide::Shl64 => format!("shl.b64 %rd{d}, %rd{a}, %r{b};"),
                Wide::ShrU64 => format!("shr.u64 %rd{d}, %rd{a}, %r{b};"),
                Wide::CvtU => format!("cvt.u64.u32 %rd{d}, %r{a};"),
                Wide::CvtS => format!("cvt.s64.s32 %rd{d}, %r{a};"),
                Wide::Trunc => format!("cvt.u32.u64 %r{d}, %rd{a};"),
            },
            Stmt::Mov { d, s } => format!("mov.u32 %r{d}, {};", src(*s)),
            Stmt::Selp { d, a, b, p } => format!("selp.b32 %r{d}, %r{a}, {}, %p{p};", src(*b)),
            Stmt::Setp {
                cmp,
                signed,
                p,
                a,
                b,
            } => {
                let c = match cmp {
                    Cmp::Eq => "eq",
                    Cmp::Ne => "ne",
                    Cmp::Lt => "lt",
                    Cmp::Le => "le",
                    Cmp::Gt => "gt",
                    Cmp::Ge => "ge",
                };
                let ty = if *signed { "s32" } else { "u32" };
                format!("setp.{c}.{ty} %p{p}, %r{a}, {};", src(*b))
            }
            Stmt::Pred { op, p, a, b } => match op {
                PredOp::And => format!("and.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Or => format!("or.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Xor => format!("xor.pred %p{p}, %p{a}, %p{b};"),
                PredOp::Not => format!("not.pred %p{p}, %p{a};"),
            },
            Stmt::Float { op, d, a, b, c } => match op {
                FloatOp::Add => format!("add.rn.f32 %f{d}, %f{a}, %f{b};"),
                FloatOp::Mul => format!("mul.rn.f32 %f{d}, %f{a}, %f{b};"),
                FloatOp::Fma => format!("fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{c};"),
                FloatOp::Min => format!("min.f32 %f{d}, %f{a}, %f{b};"),
                FloatOp::Max => format!("max.f32 %f{d}, %f{a}, %f{b};"),
                FloatOp::Abs => format!("abs.f32 %f{d}, %f{a};"),
                FloatOp::Neg => format!("neg.f32 %f{d}, %f{a};"),
                FloatOp::FromInt => format!("cvt.rn.f32.u32 %f{d}, %r{a};"),
                FloatOp::ToInt => format!("cvt.rzi.u32.f32 %r{}, %f{a};", d % NR),
            },
            Stmt::If { p, neg, then, els } => {
                let (else_l, end_l) = (self.label("else"), self.label("endif"));
                // Branch around `then` when the condition is false.
                let skip = if *neg { "" } else { "!" };
                self.line(&format!("@{skip}%p{p} bra {else_l};"));
                self.block(then, depth);
                if !els.is_empty() {
                    self.line(&format!("bra {end_l};"));
                }
                self.out.push_str(&format!("{else_l}:\n"));
                self.block(els, depth);
                self.out.push_str(&format!("{end_l}:\n"));
                return;
            }
            Stmt::Loop { trips, body } => {
                let (top, end) = (self.label("loop"), self.label("endloop"));
                let counter = format!("%lc{depth}");
                self.line(&format!("mov.u32 {counter}, 0;"));
                self.out.push_str(&format!("{top}:\n"));
                self.loops.push(end.clone());
                self.block(body, depth + 1);
                self.loops.pop();
                self.line(&format!("add.u32 {counter}, {counter}, 1;"));
                self.line(&format!("setp.lt.u32 %pl, {counter}, {trips};"));
                self.line(&format!("@%pl bra {top};"));
                self.out.push_str(&format!("{end}:\n"));
                return;
            }
            Stmt::Break { p, neg } => {
                let Some(end) = self.loops.last().cloned() else {
                    return;
                };
                let n = if *neg { "!" } else { "" };
                format!("@{n}%p{p} bra {end};")
            }
            Stmt::Call { f, d, a, b } => format!("call (%r{d}), f{f}, (%r{a}, %r{b});"),
            Stmt::Shfl { mode, d, a, lane } => {
                let m = match mode {
                    ShflMode::Idx => "idx",
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                };
                let c = if *mode == ShflMode::Up { 0 } else { 31 };
                format!(
                    "shfl.sync.{m}.b32 %r{d}, %r{a}, {}, {c}, 0xffffffff;",
                    src(*lane)
                )
            }
            Stmt::Vote { op, d, p } => match op {
                Vote::Ballot => format!("vote.sync.ballot.b32 %r{d}, %p{p}, 0xffffffff;"),
                Vote::Any => format!("vote.sync.any.pred %p{}, %p{p}, 0xffffffff;", d % NP),
                Vote::All => format!("vote.sync.all.pred %p{}, %p{p}, 0xffffffff;", d % NP),
            },
            Stmt::Bar => "bar.sync 0;".to_string(),
            Stmt::StShared { i, v } => {
                self.shared_addr(*i);
                format!("st.shared.u32 [%ts], %r{v};")
            }
            Stmt::LdShared { d, i } => {
                self.shared_addr(*i);
                format!("ld.shared.u32 %r{d}, [%ts];")
            }
            Stmt::AtomShared { op, d, i, v, w } => {
                self.shared_addr(*i);
                match op {
                    Atom::Add => format!("atom.shared.add.u32 %r{d}, [%ts], %r{v};"),
                    Atom::Max => format!("atom.shared.max.s32 %r{d}, [%ts], %r{v};"),
                    Atom::Exch => format!("atom.shared.exch.b32 %r{d}, [%ts], %r{v};"),
                    Atom::Cas => format!("atom.shared.cas.b32 %r{d}, [%ts], %r{v}, %r{w};"),
                }
            }
        };
        self.line(&line);
    }

    /// `%ts` = the address of `sh[%r{i} % SHARED_WORDS]`.
    fn shared_addr(&mut self, i: u8) {
        self.line(&format!("and.b32 %t0, %r{i}, {};", SHARED_WORDS - 1));
        self.line("shl.b32 %t0, %t0, 2;");
        self.line("cvt.u64.u32 %ts, %t0;");
        self.line("mov.u64 %tsb, sh;");
        self.line("add.s64 %ts, %tsb, %ts;");
    }

    fn decls(&mut self) {
        self.line(&format!(".reg .b32 %r<{NR}>;"));
        self.line(&format!(".reg .b64 %rd<{ND}>;"));
        self.line(&format!(".reg .f32 %f<{NF}>;"));
        self.line(&format!(".reg .pred %p<{NP}>;"));
        self.line(".reg .pred %pl;");
        self.line(&format!(".reg .b32 %lc<{}>;", MAX_DEPTH + 2));
        self.line(".reg .b32 %t<4>;");
        self.line(".reg .b64 %ts, %tsb, %tout;");
    }

    /// `%rd`, `%f` and `%p` from the `%r` values, so that nothing is read before it is written.
    fn derived_init(&mut self) {
        for i in 0..ND {
            self.line(&format!("cvt.u64.u32 %rd{i}, %r{};", i % NR));
        }
        for i in 0..NF {
            self.line(&format!("cvt.rn.f32.u32 %f{i}, %r{};", (i + 1) % NR));
        }
        for i in 0..NP {
            self.line(&format!(
                "setp.lt.u32 %p{i}, %r{}, %r{};",
                i % NR,
                (i + 3) % NR
            ));
        }
    }
}

impl Program {
    /// The PTX module: the functions, then the kernel `k`.
    pub fn to_ptx(&self) -> String {
        let mut p = Printer {
            out: String::new(),
            labels: 0,
            loops: Vec::new(),
        };
        p.out
            .push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
        if self.features.shared {
            let _ = writeln!(p.out, ".shared .align 4 .b32 sh[{SHARED_WORDS}];\n");
        }
        for (i, f) in self.funcs.iter().enumerate() {
            let _ = writeln!(
                p.out,
                ".func (.reg .b32 %ret) f{i}(.reg .b32 %a, .reg .b32 %b)\n{{"
            );
            p.decls();
            p.line("mov.u32 %r0, %a;");
            p.line("mov.u32 %r1, %b;");
            for (r, v) in f.init.iter().enumerate().skip(2) {
                p.line(&format!("mov.u32 %r{r}, {v};"));
            }
            p.derived_init();
            p.block(&f.body, 0);
            p.line("mov.u32 %ret, %r0;");
            p.line("ret;");
            p.out.push_str("}\n\n");
        }
        p.out.push_str(".visible .entry k(.param .u64 out)\n{\n");
        p.decls();
        p.line("ld.param.u64 %tout, [out];");
        p.line("cvta.to.global.u64 %tout, %tout;");
        p.line("mov.u32 %t0, %tid.x;");
        p.line("mov.u32 %t1, %ctaid.x;");
        p.line("mov.u32 %t2, %ntid.x;");
        p.line("mad.lo.u32 %t3, %t1, %t2, %t0;");
        for i in 0..NR as usize {
            p.line(&format!(
                "mad.lo.u32 %r{i}, %t3, {}, {};",
                self.mul[i], self.add[i]
            ));
        }
        p.derived_init();
        p.block(&self.body, 0);
        p.line(&format!("mul.wide.u32 %ts, %t3, {};", OUT_WORDS * 4));
        p.line("add.s64 %tout, %tout, %ts;");
        for i in 0..NR {
            p.line(&format!(
                "st.global.u32 [%tout+{}], %r{i};",
                4 * u32::from(i)
            ));
        }
        for i in 0..ND {
            p.line(&format!(
                "st.global.u64 [%tout+{}], %rd{i};",
                4 * (u32::from(NR) + 2 * u32::from(i))
            ));
        }
        p.line("ret;");
        p.out.push_str("}\n");
        p.out
    }
}

// ---- the reference interpreter ----

/// One thread's registers.
#[derive(Clone)]
struct Regs {
    r: [u32; NR as usize],
    rd: [u64; ND as usize],
    p: [bool; NP as usize],
}

impl Regs {
    fn new(r: [u32; NR as usize]) -> Regs {
        // As `derived_init` prints it.
        let rd = std::array::from_fn(|i| u64::from(r[i % NR as usize]));
        let p = std::array::from_fn(|i| r[i % NR as usize] < r[(i + 3) % NR as usize]);
        Regs { r, rd, p }
    }

    fn src(&self, s: Src) -> u32 {
        match s {
            Src::Reg(r) => self.r[r as usize],
            Src::Imm(v) => v,
        }
    }
}

/// The outcome of a block: fall through, or leave the innermost loop.
#[derive(PartialEq, Eq)]
enum Flow {
    Next,
    Break,
}

/// `bfe` as the ISA defines it, for a 32-bit register.
fn bfe(a: u32, b: u32, c: u32, signed: bool) -> u32 {
    let (pos, len) = (b & 0xff, c & 0xff);
    let sbit = if !signed || len == 0 {
        false
    } else {
        (a >> (pos + len - 1).min(31)) & 1 == 1
    };
    let mut d = 0u32;
    for i in 0..32 {
        let bit = if i < len && pos + i <= 31 {
            (a >> (pos + i)) & 1 == 1
        } else {
            sbit
        };
        d |= u32::from(bit) << i;
    }
    d
}

/// `bfi.b32 f, a, b, c, d`: `b` with `len` bits of `a` inserted at `pos`.
fn bfi(a: u32, b: u32, c: u32, d: u32) -> u32 {
    let (pos, len) = (c & 0xff, d & 0xff);
    let mut f = b;
    for i in 0..len {
        if pos + i > 31 {
            break;
        }
        let bit = (a >> i) & 1;
        f = (f & !(1 << (pos + i))) | (bit << (pos + i));
    }
    f
}

/// `prmt.b32` in its default mode.
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    let mut d = 0u32;
    for n in 0..4 {
        let sel = (c >> (4 * n)) & 0xf;
        let byte = bytes[(sel & 7) as usize];
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte
        };
        d |= u32::from(byte) << (8 * n);
    }
    d
}

fn bin(op: Bin, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32, b as i32);
    match op {
        Bin::Add => a.wrapping_add(b),
        Bin::Sub => a.wrapping_sub(b),
        Bin::MulLo => a.wrapping_mul(b),
        Bin::MulHiU => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        Bin::MulHiS => ((i64::from(sa) * i64::from(sb)) >> 32) as u32,
        Bin::And => a & b,
        Bin::Or => a | b,
        Bin::Xor => a ^ b,
        // Shift amounts past the width are clamped to it.
        Bin::Shl => a.checked_shl(b).unwrap_or(0),
        Bin::ShrU => a.checked_shr(b).unwrap_or(0),
        Bin::ShrS => (sa >> b.min(31)) as u32,
        Bin::MinU => a.min(b),
        Bin::MinS => sa.min(sb) as u32,
        Bin::MaxU => a.max(b),
        Bin::MaxS => sa.max(sb) as u32,
        Bin::DivU => a / (b | 1),
        Bin::RemU => a % (b | 1),
        Bin::AddSatS => sa.saturating_add(sb) as u32,
        // The low 32 bits of the 48-bit product of the low 24 bits.
        Bin::Mul24LoU => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff),
    }
}

fn un(op: Un, a: u32) -> u32 {
    match op {
        Un::Not => !a,
        Un::Neg => (a as i32).wrapping_neg() as u32,
        Un::Popc => a.count_ones(),
        Un::Clz => a.leading_zeros(),
        Un::Brev => a.reverse_bits(),
        Un::AbsS => (a as i32).wrapping_abs() as u32,
        Un::Cnot => u32::from(a == 0),
    }
}

impl Program {
    /// Every thread's output words (`OUT_WORDS` per thread), or `None` where the program uses
    /// what the interpreter does not model (floats, warps, shared memory).
    pub fn eval(&self, threads: u32) -> Option<Vec<u32>> {
        let f = self.features;
        if f.floats || f.warps || f.shared {
            return None;
        }
        let mut out = Vec::with_capacity((threads * OUT_WORDS) as usize);
        for t in 0..threads {
            let r = std::array::from_fn(|i| t.wrapping_mul(self.mul[i]).wrapping_add(self.add[i]));
            let mut regs = Regs::new(r);
            self.run(&self.body, &mut regs);
            out.extend_from_slice(&regs.r);
            for v in regs.rd {
                out.push(v as u32);
                out.push((v >> 32) as u32);
            }
        }
        Some(out)
    }

    fn call(&self, f: usize, a: u32, b: u32) -> u32 {
        let func = &self.funcs[f];
        let mut r = func.init;
        r[0] = a;
        r[1] = b;
        let mut regs = Regs::new(r);
        self.run(&func.body, &mut regs);
        regs.r[0]
    }

    fn run(&self, body: &[Stmt], g: &mut Regs) -> Flow {
        for s in body {
            if self.step(s, g) == Flow::Break {
                return Flow::Break;
            }
        }
        Flow::Next
    }

    fn step(&self, s: &Stmt, g: &mut Regs) -> Flow {
        match s {
            Stmt::Bin { op, d, a, b, .. } => {
                g.r[*d as usize] = bin(*op, g.r[*a as usize], g.src(*b));
            }
            Stmt::Un { op, d, a } => g.r[*d as usize] = un(*op, g.r[*a as usize]),
            Stmt::Tern { op, d, a, b, c } => {
                let (a, b, c) = (g.r[*a as usize], g.src(*b), g.src(*c));
                let old = g.r[*d as usize];
                g.r[*d as usize] = match op {
                    Tern::MadLo => a.wrapping_mul(b).wrapping_add(c),
                    Tern::MadHiU => (((u64::from(a) * u64::from(b)) >> 32) as u32).wrapping_add(c),
                    Tern::BfeU => bfe(a, b, c, false),
                    Tern::BfeS => bfe(a, b, c, true),
                    Tern::Bfi => bfi(a, old, b, c),
                    Tern::Prmt => prmt(a, b, c),
                    Tern::SadU => c.wrapping_add(a.abs_diff(b)),
                };
            }
            Stmt::Wide { op, d, a, b } => {
                let (d, a, b) = (*d as usize, *a as usize, *b as usize);
                match op {
                    Wide::MulWideU => g.rd[d] = u64::from(g.r[a]) * u64::from(g.r[b]),
                    Wide::MulWideS => {
                        g.rd[d] = (i64::from(g.r[a] as i32) * i64::from(g.r[b] as i32)) as u64
                    }
                    Wide::Add64 => g.rd[d] = g.rd[a].wrapping_add(g.rd[b]),
                    Wide::Xor64 => g.rd[d] = g.rd[a] ^ g.rd[b],
                    Wide::Shl64 => g.rd[d] = g.rd[a].checked_shl(g.r[b]).unwrap_or(0),
                    Wide::ShrU64 => g.rd[d] = g.rd[a].checked_shr(g.r[b]).unwrap_or(0),
                    Wide::CvtU => g.rd[d] = u64::from(g.r[a]),
                    Wide::CvtS => g.rd[d] = i64::from(g.r[a] as i32) as u64,
                    Wide::Trunc => g.r[d] = g.rd[a] as u32,
                }
            }
            Stmt::Mov { d, s } => g.r[*d as usize] = g.src(*s),
            Stmt::Selp { d, a, b, p } => {
                g.r[*d as usize] = if g.p[*p as usize] {
                    g.r[*a as usize]
                } else {
                    g.src(*b)
                };
            }
            Stmt::Setp {
                cmp,
                signed,
                p,
                a,
                b,
            } => {
                let (a, b) = (g.r[*a as usize], g.src(*b));
                let ord = if *signed {
                    (a as i32).cmp(&(b as i32))
                } else {
                    a.cmp(&b)
                };
                g.p[*p as usize] = match cmp {
                    Cmp::Eq => ord.is_eq(),
                    Cmp::Ne => ord.is_ne(),
                    Cmp::Lt => ord.is_lt(),
                    Cmp::Le => ord.is_le(),
                    Cmp::Gt => ord.is_gt(),
                    Cmp::Ge => ord.is_ge(),
                };
            }
            Stmt::Pred { op, p, a, b } => {
                let (a, b) = (g.p[*a as usize], g.p[*b as usize]);
                g.p[*p as usize] = match op {
                    PredOp::And => a && b,
                    PredOp::Or => a || b,
                    PredOp::Xor => a != b,
                    PredOp::Not => !a,
                };
            }
            Stmt::If { p, neg, then, els } => {
                let taken = g.p[*p as usize] != *neg;
                return self.run(if taken { then } else { els }, g);
            }
            Stmt::Loop { trips, body } => {
                for _ in 0..*trips {
                    if self.run(body, g) == Flow::Break {
                        break;
                    }
                }
            }
            Stmt::Break { p, neg } => {
                if g.p[*p as usize] != *neg {
                    return Flow::Break;
                }
            }
            Stmt::Call { f, d, a, b } => {
                g.r[*d as usize] = self.call(*f as usize, g.r[*a as usize], g.r[*b as usize]);
            }
            // Not generated for the interpreter (see `eval`).
            Stmt::Float { .. }
            | Stmt::Shfl { .. }
            | Stmt::Vote { .. }
            | Stmt::Bar
            | Stmt::StShared { .. }
            | Stmt::LdShared { .. }
            | Stmt::AtomShared { .. } => {}
        }
        Flow::Next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program is valid PTX that translates for lavapipe, the larger ones too.
    #[test]
    fn generated_programs_check_and_translate() {
        use ptxvk_translator::{DeviceProfile, SourceFile};
        let mut lines = 0;
        for seed in 0..200 {
            let data = seeded_bytes(seed, 4096);
            let features = if seed.is_multiple_of(2) {
                Features::ALL
            } else {
                Features::THREAD_LOCAL
            };
            let p = Program::generate(&mut Unstructured::new(&data), features).unwrap();
            let text = p.to_ptx();
            lines += text.lines().count();
            let checked = ptxvk_translator::Program::parse(SourceFile::new("g.ptx", text.clone()))
                .unwrap_or_else(|d| panic!("seed {seed}:\n{}\n{text}", d.short()));
            checked
                .translate_kernel("k", &DeviceProfile::lavapipe())
                .unwrap_or_else(|d| panic!("seed {seed}:\n{}\n{text}", d.short()));
            assert_eq!(p.eval(4).is_some(), !seed.is_multiple_of(2));
        }
        // Programs of some size, not just the kernel's frame (about 40 lines).
        assert!(lines > 200 * 60, "{lines}");
    }

    #[test]
    fn bit_field_edges() {
        assert_eq!(bfe(0xf0, 4, 4, false), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, true), 0xffff_ffff);
        assert_eq!(bfe(0x8000_0000, 31, 8, true), 0xffff_ffff);
        assert_eq!(bfe(0x1234, 0, 0, true), 0);
        assert_eq!(bfi(0xf, 0, 28, 8), 0xf000_0000);
        assert_eq!(prmt(0x0403_0201, 0x0807_0605, 0x3210), 0x0403_0201);
        assert_eq!(prmt(0x0000_0080, 0, 0x8888), 0xffff_ffff);
    }
}
