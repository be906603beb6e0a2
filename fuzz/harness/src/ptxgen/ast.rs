//! The program AST: statements. The operators of each instruction group and the operand
//! sources are in `ast/ops.rs`.

mod ops;

pub use ops::*;

use super::narrow::{HOp, NCvt, NarrowTy};

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
    /// A do-while loop of `trips` (at least 1) iterations on its own counter. A `uniform` one
    /// has no `break` of its own, so every thread runs every iteration, and its body may hold
    /// warp operations, barriers and memory rounds where its top level is the kernel's.
    Loop {
        trips: u8,
        uniform: bool,
        body: Vec<Stmt>,
    },
    /// `if (%ctaid.x % 2 == odd) { then } else { els }`: every thread of a block takes the same
    /// arm, so the arms' top level is where the whole block is present again (warp operations,
    /// barriers and memory rounds), while the two blocks of a launch part ways.
    BlockIf {
        odd: bool,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `if (%tid.x / 32 % 2 == odd) { then } else { els }`: every lane of a warp takes the same
    /// arm, so the arms' top level holds warp operations (but no barriers or block-wide
    /// rounds), while the warps of a block part ways.
    WarpIf {
        odd: bool,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// A do-while loop whose warps run different numbers of iterations: `trips`, and `extra`
    /// more where `%tid.x / 32 % 2 == odd`. No `break` leaves it, so each warp runs its
    /// iterations whole and its body's top level holds warp operations (but no barriers or
    /// block-wide rounds), while the warps of a block leave it after different iterations.
    WarpLoop {
        trips: u8,
        extra: u8,
        odd: bool,
        body: Vec<Stmt>,
    },
    /// A do-while loop that each warp leaves when no lane wants another iteration
    /// (`vote.sync.any` of `counter < %r{r} % 4 + 1`, with `%r{r}` as the loop was entered):
    /// every lane runs its warp's largest count, so the body's top level holds warp operations
    /// again, while the warps of a block leave it after different iterations.
    VoteLoop {
        r: u8,
        body: Vec<Stmt>,
    },
    /// An access to the thread's `.local` array `lm` (see [`LocalOp`]) at an address from
    /// `%r{i}`, through a `.local` address or, with `generic`, a generic one (`cvta.local`).
    Local {
        op: LocalOp,
        r: u8,
        i: u8,
        generic: bool,
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
    /// `%f{d} = bits` (`mov.b32 %f, 0fXXXXXXXX`)
    MovF {
        d: u8,
        bits: u32,
    },
    SetpF {
        cmp: FCmp,
        p: u8,
        a: u8,
        b: u8,
    },
    Dbl {
        op: DblOp,
        d: u8,
        a: u8,
        b: u8,
        c: u8,
    },
    Special {
        d: u8,
        reg: Special,
    },
    /// `c` is the clamp and segment mask operand.
    Shfl {
        mode: ShflMode,
        d: u8,
        a: u8,
        lane: Src,
        c: u32,
    },
    Redux {
        op: Redux,
        d: u8,
        a: u8,
    },
    /// `match.any.sync.b32` or `match.all.sync.b32`
    Match {
        all: bool,
        d: u8,
        a: u8,
    },
    /// Every thread stores `%r{v}` to its own word `sel & 3`, a barrier, every thread loads
    /// `sh[%r{i} % 256]` into `%r{d}`, a barrier.
    ShRound {
        v: u8,
        sel: u8,
        d: u8,
        i: u8,
    },
    /// A handoff between the warps of a block, as warp-specialized kernels write it: the
    /// producer warp (where `%tid.x / 32 % 2 == odd`) stores `%r{v}` to each thread's own word
    /// `sel & 3` and signals `bar.arrive 1, 64`; the other warp waits at `bar.sync 1, 64` and
    /// loads `sh[%r{i} % 256]` into `%r{d}`; then a barrier of the whole block.
    Handoff {
        odd: bool,
        v: u8,
        sel: u8,
        d: u8,
        i: u8,
    },
    /// An asynchronous copy, as compilers for sm_80 stage tiles: every thread copies word
    /// `%r{src} % 256` of its block's region of `gm` to its own shared word `sel & 3` with
    /// `cp.async`, waits for it (`cp.async.wait_all`, or with `group` a committed group and
    /// `cp.async.wait_group 0`), a barrier, loads `sh[%r{i} % 256]` into `%r{d}`, a barrier.
    CpAsync {
        sel: u8,
        src: u8,
        d: u8,
        i: u8,
        group: bool,
    },
    /// An atomic on the thread's own word `sel & 3`, returning the old value; a barrier.
    AtomOwn {
        op: OwnAtom,
        d: u8,
        sel: u8,
        v: u8,
        w: u8,
    },
    /// `red.shared.OP [sh + %r{i} % 256], %r{v}` by every thread (an operation whose result
    /// does not depend on the order), a barrier, the word loaded into `%r{d}`, a barrier.
    RedAny {
        op: Redux,
        d: u8,
        i: u8,
        v: u8,
    },
    Vote {
        op: Vote,
        d: u8,
        p: u8,
    },
    Bar,
    /// `bar.red.OP d, 0, {!}%p{p}` by every thread of the block; `d` is `%r{d}` for `popc`,
    /// `%p{d % NP}` otherwise.
    BarRed {
        op: BarRed,
        d: u8,
        p: u8,
        neg: bool,
    },
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
    /// Lanes in `mask` (a constant) branch into a block that runs `pre` (thread-local code,
    /// which may diverge further) and then the warp operation `op` with `mask` as its member
    /// mask; the other lanes skip both. Every lane the mask names reaches `op`, as the ISA
    /// requires, and a shuffle's mask is a union of its segments (for a butterfly, with every
    /// segment below a member one), so that every source lane is a member.
    Masked {
        mask: u32,
        pre: Vec<Stmt>,
        op: Box<Stmt>,
    },
    /// [`Stmt::AtomOwn`] on the thread's own word of its block's region of `gm`.
    GAtomOwn {
        op: OwnAtom,
        d: u8,
        sel: u8,
        v: u8,
        w: u8,
    },
    /// `red.global.OP` of `%r{v}` into word `%r{i} % CROSS_PER_OP` of the operation's group
    /// of the words every block shares, anywhere in the kernel (not in functions): nothing
    /// reads them while the kernel runs, and the host compares them afterwards.
    CrossRed {
        op: Redux,
        i: u8,
        v: u8,
    },
    /// [`Stmt::RedAny`] with `red.global` on the block's region of `gm`.
    GRedAny {
        op: Redux,
        d: u8,
        i: u8,
        v: u8,
    },
    /// `atom.global.{and,or,xor}.b32` by every lane of a warp on the warp's word, the operand
    /// limited to the lane's own bit (`and`: every other bit set), so that the old value's own
    /// bit, kept in `%r{d}`, does not depend on the order; a barrier.
    GAtomBit {
        op: Redux,
        d: u8,
        v: u8,
    },
    /// Every thread stores `%rs{v}` as `ty` to a byte or half-word of its own words in shared
    /// memory or `gm`, picked by `%r{sel}`; a barrier; a load as `load` of any byte or
    /// half-word, picked by `%r{i}`, into `%rs{d}` (or `%r{d}` when `to32`); a barrier.
    NarrowRound {
        global: bool,
        ty: NarrowTy,
        load: NarrowTy,
        to32: bool,
        v: u8,
        sel: u8,
        d: u8,
        i: u8,
    },
    /// 16-bit arithmetic on `%rs`: `%rs{d} = %rs{a} op b`, where a register `b` is `%rs{b %
    /// NH}`, or `%r{b}` for the shifts' amount.
    Half {
        op: HOp,
        d: u8,
        a: u8,
        b: Src,
    },
    /// `cvt` among 8-, 16-, 32- and 64-bit integers and f32; the registers' kinds follow `op`.
    CvtN {
        op: NCvt,
        d: u8,
        a: u8,
    },
}
