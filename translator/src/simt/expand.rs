//! Warp operations through shared memory, for threads that all reach them together.
//!
//! The scratch area (after the kernel's own shared memory) holds, per thread of the block, a
//! value word, a high word (64-bit values) and a flag word, plus one word for block-wide votes.
//! An operation is: barrier (the previous operation's readers are done), every thread writes its
//! slot (inactive threads write "inactive"), barrier, every thread reads its warp's slots. Lanes
//! past the end of a partial last warp do not exist and read as inactive. A `shfl` of one word
//! (`ReadLane`, the common case) skips the first barrier: such reads alternate between the value
//! and flag areas and a second pair of areas after the vote word, so the slots one writes were
//! last read by the one before the previous, and the previous one's barrier lies between. Every
//! other operation starts with its barrier and leaves the next `ReadLane` the second pair, which
//! no other operation touches. A block of independent lane reads (`lane_batch`: what
//! `Cx::exchange_all` makes for a matrix instruction) is one exchange: every read writes its own
//! slot of a batch area, one barrier, then every read; the batch areas come in two sets used in
//! turn, so the slots one batch writes were last read by the batch before the previous one, and
//! the previous one's barrier lies between. Ballots and reductions
//! instead combine into one word per warp with a shared-memory atomic (`combine`): a few
//! instructions where reading 32 slots unrolled made hundreds per operation.

mod emit;
mod vars;
mod warp;
mod words;

use crate::ir::{BlockId, Function, Op, ValueId, VarId, WarpOp};
use emit::{Emit, frame_vars};
use vars::FrameVars;
use warp::rename;
use words::{lane_batch, one_word};

/// Words of scratch per thread: value, high word and flag.
const WORDS: u32 = 3;
/// With the second pair of areas of one-word `ReadLane`s.
const WORDS_ALTERNATING: u32 = WORDS + 2;

/// Expands every warp operation of the sync blocks; returns how many words of scratch per
/// thread they use (0: none). `init` is the kernel's first block, run once by every thread
/// before anything else: the parts of an operation's frame that never change are computed there.
pub fn expand(f: &mut Function, st: VarId, sync_blocks: &[bool], init: BlockId) -> u32 {
    // Which sync blocks are batches of lane reads, and their widest exchange in value words.
    let batch: Vec<Option<u32>> = sync_blocks
        .iter()
        .enumerate()
        .map(|(bi, &is_sync)| {
            is_sync
                .then(|| lane_batch(f, &f.blocks[bi].insts))
                .flatten()
        })
        .collect();
    // The second pair of areas serves single one-word lane reads only; a batch has its own.
    let alternating = sync_blocks.iter().enumerate().any(|(bi, &is_sync)| {
        is_sync
            && batch[bi].is_none()
            && f.blocks[bi].insts.iter().any(|inst| match &inst.op {
                Op::Warp(WarpOp::ReadLane, args) => one_word(f.ty(args[0])),
                _ => false,
            })
    });
    // The widest batch of lane reads: each of the two batch sets holds a flag word and that
    // many value words per thread.
    let batch_words = batch.iter().flatten().copied().max();
    // Made at the first operation that exchanges values (kernels with only barriers get none).
    let mut frame: Option<FrameVars> = None;
    let mut used = false;
    for (bi, &is_sync) in sync_blocks.iter().enumerate() {
        if !is_sync {
            continue;
        }
        let b = BlockId(bi as u32);
        let insts = std::mem::take(&mut f.block_mut(b).insts);
        if batch[bi].is_some() {
            used = true;
            let vars = *frame.get_or_insert_with(|| frame_vars(f, init, alternating, batch_words));
            let mut out = Vec::with_capacity(insts.len() * 40);
            Emit { f, out: &mut out }.batches(insts, st, &vars);
            f.block_mut(b).insts = out;
            continue;
        }
        // Room for the expansions up front: growing the block one push at a time copied it
        // over and over.
        let room: usize = insts
            .iter()
            .map(|i| match i.op {
                Op::Warp(op, _) => expansion(op),
                _ => 1,
            })
            .sum();
        let mut out = Vec::with_capacity(room);
        let mut renamed: Vec<(ValueId, ValueId)> = Vec::new();
        for inst in insts {
            match (&inst.op, inst.result) {
                (Op::Warp(op, args), result) if inst.op.is_sync() => {
                    used |= *op != WarpOp::Sync;
                    let r = if *op == WarpOp::Sync {
                        Emit { f, out: &mut out }.barrier();
                        None
                    } else {
                        let vars = *frame
                            .get_or_insert_with(|| frame_vars(f, init, alternating, batch_words));
                        Emit { f, out: &mut out }.warp(*op, args, st, &vars)
                    };
                    if let (Some(old), Some(new)) = (result, r) {
                        renamed.push((old, new));
                    }
                }
                _ => {
                    let mut inst = inst;
                    for (old, new) in &renamed {
                        rename(&mut inst, *old, *new);
                    }
                    out.push(inst);
                }
            }
        }
        f.block_mut(b).insts = out;
    }
    let batches = batch_words.map_or(0, |w| 2 * (1 + w));
    match (used, alternating) {
        (false, _) => 0,
        (true, false) => WORDS + batches,
        (true, true) => WORDS_ALTERNATING + batches,
    }
}

/// About how many instructions `op` expands to (a hint: lanes are unrolled).
fn expansion(op: WarpOp) -> usize {
    match op {
        WarpOp::MatchAny => 32 * 12,
        _ => 48,
    }
}
