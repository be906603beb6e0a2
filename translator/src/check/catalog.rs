//! The instruction catalog: every PTX mnemonic ptxvk decodes, with the families that handle it.
//! A family names one decoder (`check/inst/<family>.rs`) and the forms it builds
//! (`check/op/<family>.rs`). The decoder refuses a mnemonic that is not here before it dispatches,
//! so an instruction cannot be accepted without a row; tests hold the dispatch, the gating table
//! and the conformance coverage lists to the rows.

/// An instruction family: the stem of its decoder's and its decoded form's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Arith,
    AsyncCopy,
    Atom,
    Cmp,
    Control,
    Convert,
    Data,
    Extended,
    Fence,
    Float,
    Int,
    Ldst,
    Logic,
    Matrix,
    Mbarrier,
    Misc,
    Narrow,
    Permute,
    Sync,
    Texture,
    Video,
    Warp,
    Wgmma,
}

impl Family {
    pub const ALL: [Family; 23] = [
        Family::Arith,
        Family::AsyncCopy,
        Family::Atom,
        Family::Cmp,
        Family::Control,
        Family::Convert,
        Family::Data,
        Family::Extended,
        Family::Fence,
        Family::Float,
        Family::Int,
        Family::Ldst,
        Family::Logic,
        Family::Matrix,
        Family::Mbarrier,
        Family::Misc,
        Family::Narrow,
        Family::Permute,
        Family::Sync,
        Family::Texture,
        Family::Video,
        Family::Warp,
        Family::Wgmma,
    ];

    /// The file stem under `check/inst/` and `check/op/`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Arith => "arith",
            Family::AsyncCopy => "async_copy",
            Family::Atom => "atom",
            Family::Cmp => "cmp",
            Family::Control => "control",
            Family::Convert => "convert",
            Family::Data => "data",
            Family::Extended => "extended",
            Family::Fence => "fence",
            Family::Float => "float",
            Family::Int => "int",
            Family::Ldst => "ldst",
            Family::Logic => "logic",
            Family::Matrix => "matrix",
            Family::Mbarrier => "mbarrier",
            Family::Misc => "misc",
            Family::Narrow => "narrow",
            Family::Permute => "permute",
            Family::Sync => "sync",
            Family::Texture => "texture",
            Family::Video => "video",
            Family::Warp => "warp",
            Family::Wgmma => "wgmma",
        }
    }
}

/// One mnemonic (the opcode before its first modifier) and the families whose decoders read
/// it, in the order the dispatch tries them (`add.f32` is float, `add.cc` extended, `add.u16x2`
/// integer SIMD, the rest integer arithmetic).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mnemonic: &'static str,
    pub families: &'static [Family],
}

const fn e(mnemonic: &'static str, families: &'static [Family]) -> Entry {
    Entry { mnemonic, families }
}

use Family::*;

/// Sorted by mnemonic, so that a lookup is a binary search.
pub const CATALOG: &[Entry] = &[
    e("abs", &[Float, Arith]),
    e("activemask", &[Warp]),
    e("add", &[Float, Extended, Int, Arith]),
    e("addc", &[Extended]),
    e("and", &[Logic]),
    e("atom", &[Atom]),
    e("bar", &[Warp, Sync]),
    e("barrier", &[Sync]),
    e("bfe", &[Int]),
    e("bfi", &[Int]),
    e("bfind", &[Int]),
    e("bmsk", &[Int]),
    e("bra", &[Control]),
    e("brev", &[Int]),
    e("brkpt", &[Control]),
    e("brx", &[Control]),
    e("call", &[Control]),
    e("clz", &[Int]),
    e("cnot", &[Logic]),
    e("copysign", &[Float]),
    e("cos", &[Float]),
    e("cp", &[AsyncCopy]),
    e("createpolicy", &[Misc]),
    e("cvt", &[Convert, Narrow]),
    e("cvta", &[Data]),
    e("div", &[Float, Arith]),
    e("dp2a", &[Int]),
    e("dp4a", &[Int]),
    e("elect", &[Warp]),
    e("ex2", &[Float]),
    e("exit", &[Control]),
    e("fence", &[Fence]),
    e("fma", &[Float]),
    e("getctarank", &[Misc]),
    e("griddepcontrol", &[Misc]),
    e("isspacep", &[Data]),
    e("ld", &[Ldst]),
    e("ldmatrix", &[Matrix]),
    e("ldu", &[Ldst]),
    e("lg2", &[Float]),
    e("lop3", &[Logic]),
    e("mad", &[Float, Extended, Arith]),
    e("mad24", &[Int]),
    e("madc", &[Extended]),
    e("mapa", &[Misc]),
    e("match", &[Warp]),
    e("max", &[Float, Int, Arith]),
    e("mbarrier", &[Mbarrier]),
    e("membar", &[Fence]),
    e("min", &[Float, Int, Arith]),
    e("mma", &[Matrix]),
    e("mov", &[Data]),
    e("movmatrix", &[Matrix]),
    e("mul", &[Float, Arith]),
    e("mul24", &[Int]),
    e("nanosleep", &[Misc]),
    e("neg", &[Float, Arith]),
    e("not", &[Logic]),
    e("or", &[Logic]),
    e("popc", &[Int]),
    e("prefetch", &[Data]),
    e("prefetchu", &[Data]),
    e("prmt", &[Permute]),
    e("rcp", &[Float]),
    e("red", &[Atom]),
    e("redux", &[Warp]),
    e("rem", &[Arith]),
    e("ret", &[Control]),
    e("rsqrt", &[Float]),
    e("sad", &[Int]),
    e("selp", &[Cmp]),
    e("set", &[Cmp]),
    e("setmaxnreg", &[Misc]),
    e("setp", &[Cmp]),
    e("shf", &[Logic]),
    e("shfl", &[Warp]),
    e("shl", &[Logic]),
    e("shr", &[Logic]),
    e("sin", &[Float]),
    e("slct", &[Cmp]),
    e("sqrt", &[Float]),
    e("st", &[Ldst]),
    e("stmatrix", &[Matrix]),
    e("sub", &[Float, Extended, Int, Arith]),
    e("subc", &[Extended]),
    e("szext", &[Int]),
    e("tanh", &[Float]),
    e("testp", &[Float]),
    e("tex", &[Texture]),
    e("tld4", &[Texture]),
    e("trap", &[Control]),
    e("txq", &[Texture]),
    e("vabsdiff", &[Video]),
    e("vabsdiff2", &[Video]),
    e("vabsdiff4", &[Video]),
    e("vadd", &[Video]),
    e("vadd2", &[Video]),
    e("vadd4", &[Video]),
    e("vavrg2", &[Video]),
    e("vavrg4", &[Video]),
    e("vmad", &[Video]),
    e("vmax", &[Video]),
    e("vmax2", &[Video]),
    e("vmax4", &[Video]),
    e("vmin", &[Video]),
    e("vmin2", &[Video]),
    e("vmin4", &[Video]),
    e("vote", &[Warp]),
    e("vset", &[Video]),
    e("vset2", &[Video]),
    e("vset4", &[Video]),
    e("vshl", &[Video]),
    e("vshr", &[Video]),
    e("vsub", &[Video]),
    e("vsub2", &[Video]),
    e("vsub4", &[Video]),
    e("wgmma", &[Wgmma]),
    e("wmma", &[Matrix]),
    e("xor", &[Logic]),
];

/// Instructions of the ISA that ptxvk knows by name and does not translate: the gating table
/// has rows for them, and the decoder refuses them as unsupported.
pub const REFUSED: &[&str] = &["alloca", "pmevent", "stackrestore", "stacksave"];

/// The row of `mnemonic`, if ptxvk decodes it.
pub fn lookup(mnemonic: &str) -> Option<&'static Entry> {
    CATALOG
        .binary_search_by(|e| e.mnemonic.cmp(mnemonic))
        .ok()
        .map(|k| &CATALOG[k])
}

#[cfg(test)]
mod tests;
