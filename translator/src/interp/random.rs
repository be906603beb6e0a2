//! Random well-formed IR, seeded, for checking passes against the interpreter: straight-line
//! integer and float arithmetic, branches and switches, loops whose trip counts are bounded,
//! loads and stores of a local array, global stores that make results observable, and calls
//! (optionally recursive ones, at most [`DEPTH`] deep).
//!
//! Every program it makes is defined for every input: divisors are odd, shift amounts under
//! the width, no float is converted to an integer, each back edge is taken at most
//! [`TRIPS`] times, and every variable and local word is written before it is read.
//!
//! [`warp_kernel`] makes kernels for a workgroup: their variables start from the invocation's
//! index, so that branches and loops diverge, each invocation keeps to its own global words,
//! warp operations (lane reads in every `shfl` mode, ballots, matches, reductions) stand in
//! uniform and divergent control flow, alone in their blocks as lowering leaves them, and a
//! workgroup barrier that every invocation still running reaches exchanges words of shared
//! memory.

mod warp;

use crate::ir::recursion::LocalArena;
use crate::ir::{
    BinOp, BlockId, Call, ConvOp, ExtOp, FpFlags, FuncId, Function, MemOrder, Module, Op, Ptr,
    Terminator, Ty, UnOp, ValueId, VarId,
};

/// Times each back edge may be taken in one call.
pub const TRIPS: u64 = 3;

/// Calls a recursive function may nest (its first parameter, at most this).
pub const DEPTH: u64 = 2;

/// Words of each function's local array.
pub const LOCAL_WORDS: u32 = 8;

/// A linear congruential generator: enough to vary programs, and stable across platforms.
pub struct Rng(pub u64);

impl Rng {
    pub fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }

    pub fn bits(&mut self) -> u64 {
        let hi = self.pick(1 << 30) as u64;
        let lo = self.pick(1 << 30) as u64;
        (hi << 34) ^ (lo << 4) ^ self.pick(16) as u64
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.pick(100) < percent
    }
}

/// What a module's functions may do.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Blocks of random code per function (besides its entry and exit).
    pub blocks: usize,
    /// Functions besides the kernel, each called from those before it.
    pub callees: usize,
    /// The last callee calls itself (at most [`DEPTH`] deep).
    pub recursive: bool,
    /// A callee may end the thread by `exit`.
    pub exits: bool,
}

/// The parameters every generated function takes: an `I32` and an `I64`.
pub const PARAMS: [Ty; 2] = [Ty::I32, Ty::I64];

/// A module of shape `shape`: the kernel is function 0.
pub fn module(rng: &mut Rng, shape: Shape) -> Module {
    let n = 1 + shape.callees;
    let functions = (0..n)
        .map(|k| {
            let recursive = shape.recursive && k + 1 == n && k > 0;
            let exits = shape.exits && k > 0;
            Gen::new(rng, k as u32, n as u32, recursive, exits).function(shape.blocks)
        })
        .collect();
    Module {
        functions,
        entry: FuncId(0),
        local_words: n as u32 * LOCAL_WORDS,
        ..Module::default()
    }
}

/// A kernel with `blocks` blocks of random code for a workgroup (see the module's text), taking
/// the parameters [`PARAMS`] and returning nothing.
pub fn warp_kernel(rng: &mut Rng, blocks: usize) -> Module {
    let mut g = Gen::new(rng, 0, 1, false, true);
    g.warps = true;
    g.f.returns.clear();
    let mut f = g.function(blocks);
    f.may_sync = true;
    Module {
        functions: vec![f],
        entry: FuncId(0),
        local_words: LOCAL_WORDS,
        ..Module::default()
    }
}

/// Bytes of global memory each invocation of a [`warp_kernel`] keeps to.
const THREAD_BYTES: u64 = 0x2000;

/// The local arena of a module [`module`] made, as lowering describes it to the recursion
/// pass: each function's array is its frame, and the stack follows them all.
pub fn local_arena(m: &Module) -> LocalArena {
    let n = m.functions.len() as u32;
    LocalArena {
        stack_pointer: n * LOCAL_WORDS,
        frames: (0..n)
            .map(|k| k * LOCAL_WORDS..(k + 1) * LOCAL_WORDS)
            .collect(),
        overflow_status: 1,
        bases: vec![None; n as usize],
    }
}

/// The PTX frames of a module [`module`] made (see [`crate::interp::Inputs::frames`]).
pub fn frames(m: &Module) -> Vec<std::ops::Range<u64>> {
    let words = u64::from(LOCAL_WORDS);
    (0..m.functions.len() as u64)
        .map(|k| k * words..(k + 1) * words)
        .collect()
}

/// Random inputs for a generated kernel.
pub fn inputs(rng: &mut Rng) -> crate::interp::Inputs {
    let edge = [0, 1, 0x7FFF_FFFF, 0x8000_0000, u64::MAX];
    let mut pick = |bits: u64| {
        let x = if rng.chance(30) {
            edge[rng.pick(edge.len())]
        } else {
            rng.bits()
        };
        x & bits
    };
    let params = vec![pick(0xFFFF_FFFF), pick(u64::MAX)];
    crate::interp::Inputs::new(params, rng.bits())
}

struct Gen<'r> {
    rng: &'r mut Rng,
    f: Function,
    /// This function's index, and how many the module has.
    me: u32,
    count: u32,
    recursive: bool,
    exits: bool,
    vars: Vec<VarId>,
    /// The recursion depth left (recursive functions only).
    depth: Option<VarId>,
    /// Calls this function may still make (a recursive one's calls multiply).
    calls_left: u32,
    /// Values of the block being filled: a value lives in its block only.
    have: Vec<ValueId>,
    /// A kernel for a workgroup ([`warp_kernel`]).
    warps: bool,
    /// With `warps`: the invocation's linear index, a predicate and a source lane that warp
    /// operations take.
    tid: Option<VarId>,
    pred: Option<VarId>,
    src: Option<VarId>,
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng, me: u32, count: u32, recursive: bool, exits: bool) -> Gen<'r> {
        let mut f = Function::new(format!("f{me}"));
        f.params = PARAMS.to_vec();
        f.returns = vec![Ty::I32];
        Gen {
            rng,
            f,
            me,
            count,
            recursive,
            exits,
            vars: Vec::new(),
            depth: None,
            calls_left: if recursive { 1 } else { 4 },
            have: Vec::new(),
            warps: false,
            tid: None,
            pred: None,
            src: None,
        }
    }

    fn function(mut self, blocks: usize) -> Function {
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

    /// Word `w` of this function's local array.
    fn word(&mut self, b: BlockId, w: u32) -> ValueId {
        let at = self.me * LOCAL_WORDS + w;
        self.f.push(b, Ty::I32, Op::Const(u64::from(at)))
    }

    fn bin(&mut self, b: BlockId, ty: Ty, op: BinOp, x: ValueId, y: ValueId) -> ValueId {
        self.f.push(b, ty, Op::Bin(op, x, y, FpFlags::default()))
    }

    fn store(&mut self, ptr: Ptr, value: ValueId, b: BlockId) {
        self.f.push_void(
            b,
            Op::Store {
                ptr,
                value,
                align: 4,
                order: MemOrder::Plain,
            },
        );
    }

    /// A value of type `t` in block `b`: one the block has, a variable, or a constant.
    fn value_of(&mut self, b: BlockId, t: Ty) -> ValueId {
        let have: Vec<ValueId> = self
            .have
            .iter()
            .copied()
            .filter(|&v| self.f.ty(v) == t)
            .collect();
        let v = match self.rng.pick(3) {
            0 if !have.is_empty() => have[self.rng.pick(have.len())],
            1 => {
                let of: Vec<VarId> = self
                    .vars
                    .iter()
                    .copied()
                    .filter(|v| self.f.vars[v.0 as usize].ty == t)
                    .collect();
                if of.is_empty() || b == self.f.entry {
                    self.constant(b, t)
                } else {
                    let v = of[self.rng.pick(of.len())];
                    self.f.push(b, t, Op::LoadVar(v))
                }
            }
            _ => self.constant(b, t),
        };
        self.have.push(v);
        v
    }

    fn constant(&mut self, b: BlockId, t: Ty) -> ValueId {
        let bits = match t {
            Ty::F32 => [
                0x3F80_0000u64,
                0xC040_0000,
                0x7F80_0000,
                0x0000_0001,
                0x4B00_0001,
            ][self.rng.pick(5)],
            Ty::F64 => [
                0x3FF0_0000_0000_0000u64,
                0xBFE8_0000_0000_0000,
                0x7FF8_0000_0000_0000,
            ][self.rng.pick(3)],
            _ => [0, 1, 5, u64::MAX, 0x8000_0000, self.rng.bits()][self.rng.pick(6)],
        };
        let bits = if t.bits() < 64 {
            bits & ((1 << t.bits()) - 1)
        } else {
            bits
        };
        self.f.push(b, t, Op::Const(bits))
    }

    /// A data-dependent `Bool`.
    fn condition(&mut self, b: BlockId) -> ValueId {
        use BinOp::*;
        let t = [Ty::I32, Ty::I64, Ty::F32][self.rng.pick(3)];
        let (x, y) = (self.value_of(b, t), self.value_of(b, t));
        let op = if t.is_float() {
            [FOrdLt, FOrdEq, FUnordGe, FUnordNe][self.rng.pick(4)]
        } else {
            [IEq, INe, ULt, UGe, SLt, SGe][self.rng.pick(6)]
        };
        self.bin(b, Ty::Bool, op, x, y)
    }

    /// One random instruction (a few, where operands need preparing) in block `b`.
    fn inst(&mut self, b: BlockId) {
        let ints = [Ty::I32, Ty::I64];
        match self.rng.pick(14) {
            0 | 1 => {
                let t = ints[self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                use BinOp::*;
                let op = [IAdd, ISub, IMul, Xor, And, Or, UMulHi, SMulHi][self.rng.pick(8)];
                let r = self.bin(b, t, op, x, y);
                self.have.push(r);
            }
            2 => {
                // Shifts under the width, divisions by odd numbers.
                let t = ints[self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                use BinOp::*;
                let op = [Shl, LShr, AShr, UDiv, SDiv, UMod][self.rng.pick(6)];
                let m = if matches!(op, Shl | LShr | AShr) {
                    u64::from(t.bits() - 1)
                } else {
                    1
                };
                let m = self.f.push(b, t, Op::Const(m));
                let mop = if matches!(op, Shl | LShr | AShr) {
                    And
                } else {
                    Or
                };
                let y = self.bin(b, t, mop, y, m);
                let r = self.bin(b, t, op, x, y);
                self.have.push(r);
            }
            3 | 4 => {
                let t = [Ty::F32, Ty::F64][self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                let r = match self.rng.pick(6) {
                    4 => {
                        let z = self.value_of(b, t);
                        self.f.push(
                            b,
                            t,
                            Op::Ext(ExtOp::Fma, [x, y, z].into(), FpFlags::default()),
                        )
                    }
                    5 => {
                        let e = [ExtOp::Sqrt, ExtOp::Floor, ExtOp::FAbs, ExtOp::RoundEven]
                            [self.rng.pick(4)];
                        self.f
                            .push(b, t, Op::Ext(e, [x].into(), FpFlags::default()))
                    }
                    k => {
                        let op = [BinOp::FAdd, BinOp::FSub, BinOp::FMul, BinOp::FDiv][k];
                        self.bin(b, t, op, x, y)
                    }
                };
                self.have.push(r);
            }
            5 => {
                let (from, to, op) = [
                    (Ty::I32, Ty::F32, ConvOp::Bitcast),
                    (Ty::F32, Ty::I32, ConvOp::Bitcast),
                    (Ty::I64, Ty::F64, ConvOp::Bitcast),
                    (Ty::F64, Ty::I64, ConvOp::Bitcast),
                    (Ty::I32, Ty::I64, ConvOp::ZExt),
                    (Ty::I32, Ty::I64, ConvOp::SExt),
                    (Ty::I64, Ty::I32, ConvOp::Trunc),
                    (Ty::I32, Ty::F32, ConvOp::SToF),
                    (Ty::I64, Ty::F64, ConvOp::UToF),
                    (Ty::F32, Ty::F64, ConvOp::FConvert),
                    (Ty::F64, Ty::F32, ConvOp::FConvert),
                ][self.rng.pick(11)];
                let x = self.value_of(b, from);
                let r = self.f.push(b, to, Op::Conv(op, x));
                self.have.push(r);
            }
            6 => {
                let c = self.condition(b);
                let t = [Ty::I32, Ty::I64, Ty::F32][self.rng.pick(3)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                let r = self.f.push(b, t, Op::Select(c, x, y));
                self.have.push(r);
            }
            7 => {
                let t = ints[self.rng.pick(2)];
                let x = self.value_of(b, t);
                let r = match self.rng.pick(3) {
                    0 => self.f.push(b, t, Op::Un(UnOp::INeg, x)),
                    1 => self.f.push(b, t, Op::Un(UnOp::Not, x)),
                    _ => {
                        let y = self.value_of(b, t);
                        let e = [ExtOp::UMin, ExtOp::SMax][self.rng.pick(2)];
                        self.f
                            .push(b, t, Op::Ext(e, [x, y].into(), FpFlags::default()))
                    }
                };
                self.have.push(r);
            }
            8 | 9 => {
                let v = self.vars[self.rng.pick(self.vars.len())];
                let t = self.f.vars[v.0 as usize].ty;
                let x = self.value_of(b, t);
                self.f.push_void(b, Op::StoreVar(v, x));
            }
            10 => {
                // The local array at a computed index.
                let i = self.value_of(b, Ty::I32);
                let m = self
                    .f
                    .push(b, Ty::I32, Op::Const(u64::from(LOCAL_WORDS - 1)));
                let i = self.bin(b, Ty::I32, BinOp::And, i, m);
                let base = self
                    .f
                    .push(b, Ty::I32, Op::Const(u64::from(self.me * LOCAL_WORDS)));
                let at = self.bin(b, Ty::I32, BinOp::IAdd, i, base);
                let t = [Ty::I32, Ty::F32][self.rng.pick(2)];
                if self.rng.chance(50) {
                    let x = self.value_of(b, t);
                    self.store(Ptr::Local(at), x, b);
                } else {
                    let r = self.f.push(
                        b,
                        t,
                        Op::Load {
                            ptr: Ptr::Local(at),
                            align: 4,
                            order: MemOrder::Plain,
                        },
                    );
                    self.have.push(r);
                }
            }
            11 => {
                // A global store or load at one of a few addresses.
                let at = 0x800 + 8 * self.rng.pick(4) as u64;
                let a = self.global(b, at);
                let t = ints[self.rng.pick(2)];
                if self.rng.chance(50) {
                    let x = self.value_of(b, t);
                    self.store(Ptr::Global(a), x, b);
                } else {
                    let order = [MemOrder::Plain, MemOrder::Volatile][self.rng.pick(2)];
                    let r = self.f.push(
                        b,
                        t,
                        Op::Load {
                            ptr: Ptr::Global(a),
                            align: 8,
                            order,
                        },
                    );
                    self.have.push(r);
                }
            }
            12 => self.call(b),
            _ => {
                // Results made observable mid-way.
                if let Some(&v) = self.have.last() {
                    let at = 0x900 + 8 * self.rng.pick(8) as u64;
                    let a = self.global(b, at);
                    self.store(Ptr::Global(a), v, b);
                }
            }
        }
    }

    /// A call of a later function, or of this one with one less depth (recursive functions).
    fn call(&mut self, b: BlockId) {
        let callee = if self.recursive {
            self.me
        } else if self.me + 1 < self.count {
            self.me + 1 + self.rng.pick((self.count - self.me - 1) as usize) as u32
        } else {
            return;
        };
        if self.calls_left == 0 {
            return;
        }
        self.calls_left -= 1;
        let first = match self.depth {
            // One less deep: the entry of a recursive function skips its body at depth 0.
            Some(d) => {
                let left = self.f.push(b, Ty::I32, Op::LoadVar(d));
                let one = self.f.push(b, Ty::I32, Op::Const(1));
                self.bin(b, Ty::I32, BinOp::ISub, left, one)
            }
            None => self.value_of(b, Ty::I32),
        };
        self.emit_call(b, callee, first);
    }

    fn emit_call(&mut self, b: BlockId, callee: u32, first: ValueId) {
        let second = self.value_of_fresh(b, Ty::I64);
        let result = self.vars[self.rng.pick(3)];
        let c = self.f.side.add_call(Call {
            func: FuncId(callee),
            args: vec![first, second],
            results: vec![result],
            pure: false,
        });
        self.f.push_void(b, Op::Call(c));
    }

    /// A value of `t` made in `b` itself (a constant or a variable's load).
    fn value_of_fresh(&mut self, b: BlockId, t: Ty) -> ValueId {
        if self.rng.chance(50) {
            self.constant(b, t)
        } else {
            let v = self.vars[3 + self.rng.pick(2)];
            self.f.push(b, t, Op::LoadVar(v))
        }
    }
}
