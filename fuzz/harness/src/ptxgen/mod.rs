//! Well-typed PTX from fuzzer bytes: a small program AST drawn from
//! [`Unstructured`](arbitrary::Unstructured), printed as
//! a PTX module (`print.rs`), and run by [`Program::eval`] (`eval.rs`), an interpreter written
//! from the PTX ISA's definitions, so that the differential fuzzer can compare it bit for bit
//! with the translated kernel. Programs for the interpreter ([`Features::DIFF`]) keep warp
//! operations, barriers and shared memory at the kernel's top level or that of a loop no
//! thread leaves early, a branch each block takes whole or a function called there, where
//! every thread of the block runs them together (warp operations also in branches and loops
//! each warp runs whole), and touch shared memory only in patterns without races.
//!
//! Every program is valid PTX by construction: registers are declared once per function and
//! written before they are read, loops count to a bound, calls go to functions defined earlier
//! (no recursion). Random text rarely gets past the checker; these reach lowering, the
//! structurizer, the SIMT pass and emission.

mod ast;
mod collective;
#[cfg(test)]
mod construct_tests;
mod eval;
mod generate;
mod narrow;
mod print;
mod shrink;
#[cfg(test)]
mod structure_tests;

pub use ast::{
    Atom, BarRed, Bin, Cmp, DblOp, FCmp, FLOAT_OPS, FloatOp, LocalOp, OwnAtom, PredOp, Redux,
    ShflMode, Special, Src, Stmt, Tern, Un, Vote, Wide,
};
pub use narrow::{HOp, NCvt, NarrowTy};
pub use print::batch_ptx;

/// 32-bit registers `%r0..` per function.
pub const NR: u8 = 8;
/// 64-bit registers `%rd0..`.
pub const ND: u8 = 4;
/// f32 registers `%f0..`.
pub const NF: u8 = 4;
/// Predicates `%p0..`.
pub const NP: u8 = 4;
/// f64 registers `%fd0..`.
pub const NFD: u8 = 2;
/// 16-bit registers `%rs0..` (an even number: two are stored to a word).
pub const NH: u8 = 4;
/// Words the kernel stores per thread: every `%r`, every `%rd` as two words, every `%f`, every
/// `%fd` as two words (floats with any NaN made the canonical one: the ISA leaves payloads open),
/// every two `%rs` as one word.
pub const OUT_WORDS: u32 = NR as u32 + 2 * ND as u32 + NF as u32 + 2 * NFD as u32 + NH as u32 / 2;
/// Operations of the reductions across blocks ([`Stmt::CrossRed`]), one group of
/// [`CROSS_PER_OP`] words each, so that every word sees one operation and its final value does
/// not depend on the order in which blocks reach it. `min.u32` and `and` are left out: the
/// words start at 0.
pub const CROSS_OPS: [Redux; 6] = [
    Redux::Add,
    Redux::MaxU,
    Redux::MinS,
    Redux::MaxS,
    Redux::Or,
    Redux::Xor,
];
/// Words of each operation's group.
pub const CROSS_PER_OP: u32 = 4;
/// Words of a program's reductions across blocks, stored after all threads' words.
pub const CROSS_WORDS: u32 = CROSS_OPS.len() as u32 * CROSS_PER_OP;
// The printer takes a word of a group with `and`, the interpreter with `%`.
const _: () = assert!(CROSS_PER_OP.is_power_of_two());

/// The first of the reduction words across blocks that `op` owns.
pub fn cross_group(op: Redux) -> u32 {
    let group = CROSS_OPS.iter().position(|&o| o == op).unwrap_or(0);
    group as u32 * CROSS_PER_OP
}

/// The operation of word `w` of the reductions across blocks.
pub fn cross_op(w: usize) -> Redux {
    CROSS_OPS[w / CROSS_PER_OP as usize]
}

/// Words of each thread's `.local` array `lm`.
pub const LOCAL_WORDS: u32 = 16;

/// Words of the `.shared` array.
const SHARED_WORDS: u32 = 256;
/// Words of each block's region of the `.global` array `gm`: a copy of the shared layout (four
/// words a thread), then one word per warp for the contended bit atomics.
pub const GLOBAL_WORDS: u32 = SHARED_WORDS + DIFF_BLOCK / 32;
/// Blocks `gm` has a region for.
pub const GLOBAL_BLOCKS: u32 = 4;
/// Threads per block the shared-memory patterns of [`Features::DIFF`] need: each thread owns
/// `SHARED_WORDS / DIFF_BLOCK` words.
pub const DIFF_BLOCK: u32 = 64;
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
    /// `.global` loads, stores and atomics on the array `gm` (in rounds, like shared memory).
    pub global: bool,
    /// Warp operations with member masks of fewer than all lanes, in a branch only the members
    /// take.
    pub masked: bool,
    /// 16-bit registers, their arithmetic, conversions among 8-, 16-, 32- and 64-bit types.
    pub narrow: bool,
    /// A `.local` array per thread, through `.local` and generic addresses.
    pub local: bool,
    /// Warp operations, barriers and shared memory only at the kernel's top level (and that of
    /// uniform loops and per-block branches there) and shared memory only in race-free rounds (what
    /// [`Program::eval`] models).
    pub lockstep: bool,
}

impl Features {
    /// Everything: for translation.
    pub const ALL: Features = Features {
        control: true,
        calls: true,
        floats: true,
        warps: true,
        shared: true,
        global: true,
        masked: true,
        narrow: true,
        local: true,
        lockstep: false,
    };
    /// Integer code, branches, loops and calls, each thread on its own.
    pub const THREAD_LOCAL: Features = Features {
        control: true,
        calls: true,
        floats: false,
        warps: false,
        shared: false,
        global: false,
        masked: false,
        narrow: true,
        local: true,
        lockstep: true,
    };
    /// Everything [`Program::eval`] runs: [`Features::ALL`] with warp operations, barriers and
    /// shared memory in lockstep (blocks of [`DIFF_BLOCK`] threads).
    pub const DIFF: Features = Features {
        lockstep: true,
        ..Features::ALL
    };
}

/// A `.func (.reg .b32 ret) fN(.reg .b32 a, .reg .b32 b)`: `%r0 = a`, `%r1 = b`, the other
/// registers the constants, its body, and `%r0` returned.
#[derive(Clone, Debug)]
pub struct Func {
    pub init: [u32; NR as usize],
    pub body: Vec<Stmt>,
    pub level: FuncLevel,
}

/// Who is sure to run a function's top level together, which decides what it may hold and
/// where it may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncLevel {
    /// Each thread on its own: no collectives; called from anywhere.
    Thread,
    /// The whole warp: warp operations at its top level; called only where the whole warp is
    /// present.
    Warp,
    /// The whole block: also barriers and memory rounds; called only where the whole block is
    /// present.
    Block,
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

#[cfg(test)]
mod tests {
    use arbitrary::Unstructured;

    use super::*;

    fn checked(text: &str) -> ptxvk_translator::Program {
        use ptxvk_translator::SourceFile;
        ptxvk_translator::Program::parse(SourceFile::new("g.ptx", text.to_string()))
            .unwrap_or_else(|d| panic!("{}\n{text}", d.short()))
    }

    /// Every program is valid PTX that translates for lavapipe, the larger ones too, and the
    /// interpreter runs exactly the lockstep ones.
    #[test]
    fn generated_programs_check_and_translate() {
        use ptxvk_translator::DeviceProfile;
        let mut lines = 0;
        for seed in 0..150 {
            let data = seeded_bytes(seed, 4096);
            let features = match seed % 3 {
                0 => Features::ALL,
                1 => Features::THREAD_LOCAL,
                _ => Features::DIFF,
            };
            let p = Program::generate(&mut Unstructured::new(&data), features).unwrap();
            let text = p.to_ptx();
            lines += text.lines().count();
            checked(&text)
                .translate_kernel("k", &DeviceProfile::lavapipe())
                .unwrap_or_else(|d| panic!("seed {seed}:\n{}\n{text}", d.short()));
            assert_eq!(p.eval(2, DIFF_BLOCK).is_some(), seed % 3 != 0);
        }
        // Programs of some size, not just the kernel's frame (about 60 lines).
        assert!(lines > 150 * 80, "{lines}");
    }

    /// Many programs in one kernel, each with its own functions, still check and translate.
    #[test]
    fn batches_translate() {
        use ptxvk_translator::DeviceProfile;
        let programs: Vec<Program> = (0..12)
            .map(|seed| {
                let data = seeded_bytes(seed, 4096);
                Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap()
            })
            .collect();
        let text = batch_ptx(&programs, 128);
        checked(&text)
            .translate_kernel("k", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{}\n{text}", d.short()));
    }

    /// Every candidate is smaller or simpler, and still valid PTX.
    #[test]
    fn shrinking_keeps_programs_valid() {
        let data = seeded_bytes(7, 4096);
        let p = Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap();
        let candidates = p.shrink_candidates();
        assert!(!candidates.is_empty());
        for c in &candidates {
            assert!(c.size() <= p.size());
            checked(&c.to_ptx());
            assert!(c.eval(2, DIFF_BLOCK).is_some());
        }
    }
}
