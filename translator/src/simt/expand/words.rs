//! Scratch words of lane reads, and which sync blocks are batches of them.

use crate::ir::{Function, Inst, Op, Ty, WarpOp};

/// The most value words one batch of lane reads exchanges at once; a longer block is split.
/// An `mma` gathers at most 32 words (m16n8k16 f16: 16 of A and 16 of B), so it stays one
/// exchange, while a long `wgmma` gather does not grow the scratch without bound.
pub(super) const BATCH_WORDS: u32 = 32;

/// Scratch words a lane read of a value of type `ty` takes.
pub(super) fn words_of(ty: Ty) -> u32 {
    if one_word(ty) { 1 } else { 2 }
}

/// Whether the sync block `insts` is a batch of independent lane reads, and then the most
/// value words one of its exchanges takes. It is when it holds only variable loads, at least
/// two `ReadLane`s and variable stores, no variable is both loaded and stored in it and none
/// is stored twice: every operand is then the value its variable held on entry, so the reads
/// can all be made after all the writes, and the stores moved after them, without changing
/// what any of them sees.
pub(super) fn lane_batch(f: &Function, insts: &[Inst]) -> Option<u32> {
    let mut loaded = Vec::new();
    let mut stored = Vec::new();
    let mut words = Vec::new();
    for inst in insts {
        match &inst.op {
            Op::LoadVar(v) => loaded.push(*v),
            Op::StoreVar(v, _) => stored.push(*v),
            Op::Warp(WarpOp::ReadLane, args) if inst.result.is_some() && args.len() == 2 => {
                words.push(words_of(f.ty(args[0])));
            }
            _ => return None,
        }
    }
    if words.len() < 2 {
        return None;
    }
    stored.sort_unstable_by_key(|v| v.0);
    if stored.windows(2).any(|w| w[0] == w[1]) || loaded.iter().any(|v| stored.contains(v)) {
        return None;
    }
    Some(chunks(&words).into_iter().map(|c| c.1).max().unwrap_or(0))
}

/// Splits reads of `words` value words each, in order, into exchanges of at most
/// [`BATCH_WORDS`] words: (reads, words) of each.
pub(super) fn chunks(words: &[u32]) -> Vec<(usize, u32)> {
    let mut out: Vec<(usize, u32)> = Vec::new();
    for &w in words {
        match out.last_mut() {
            Some((n, total)) if *total + w <= BATCH_WORDS => {
                *n += 1;
                *total += w;
            }
            _ => out.push((1, w)),
        }
    }
    out
}

/// Whether a value of type `ty` fits one scratch word.
pub(super) fn one_word(ty: Ty) -> bool {
    ty.bits() <= 32
}
