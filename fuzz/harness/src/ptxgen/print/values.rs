//! Values the printed kernel and the interpreter (`eval.rs`) agree on: the canonical NaNs and
//! the seeds shared, global and local memory start from.

/// The NaN every NaN output is made: the ISA leaves payloads open.
pub(in crate::ptxgen) const CANON_F32: u32 = 0x7fff_ffff;
pub(in crate::ptxgen) const CANON_F64: u64 = 0x7fff_ffff_ffff_ffff;
/// Shared word `i` starts as `i * SHARED_SEED`.
pub(in crate::ptxgen) const SHARED_SEED: u32 = 0x9e37_79b1;
/// Word `i` of `gm` starts as `i * GLOBAL_SEED`.
pub(in crate::ptxgen) const GLOBAL_SEED: u32 = 0x85eb_ca77;
/// Word `k` of global thread `t`'s `lm` starts as `(t * LOCAL_WORDS + k) * LOCAL_SEED`.
pub(in crate::ptxgen) const LOCAL_SEED: u32 = 0xc2b2_ae3d;
