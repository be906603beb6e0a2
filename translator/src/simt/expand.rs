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

use crate::ir::build::Build;
use crate::ir::{
    AtomicOp, BinOp, BlockId, Builtin, ConvOp, ExtOp, FpFlags, Function, Inst, MemOrder, Op,
    Ordering, Ptr, ReduceOp, Scope, Ty, ValueId, VarId, WarpOp,
};

/// Words of scratch per thread: value, high word and flag.
const WORDS: u32 = 3;
/// With the second pair of areas of one-word `ReadLane`s.
const WORDS_ALTERNATING: u32 = WORDS + 2;
/// The most value words one batch of lane reads exchanges at once; a longer block is split.
/// An `mma` gathers at most 32 words (m16n8k16 f16: 16 of A and 16 of B), so it stays one
/// exchange, while a long `wgmma` gather does not grow the scratch without bound.
const BATCH_WORDS: u32 = 32;

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

/// Scratch words a lane read of a value of type `ty` takes.
fn words_of(ty: Ty) -> u32 {
    if one_word(ty) { 1 } else { 2 }
}

/// Whether the sync block `insts` is a batch of independent lane reads, and then the most
/// value words one of its exchanges takes. It is when it holds only variable loads, at least
/// two `ReadLane`s and variable stores, no variable is both loaded and stored in it and none
/// is stored twice: every operand is then the value its variable held on entry, so the reads
/// can all be made after all the writes, and the stores moved after them, without changing
/// what any of them sees.
fn lane_batch(f: &Function, insts: &[Inst]) -> Option<u32> {
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
fn chunks(words: &[u32]) -> Vec<(usize, u32)> {
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
fn one_word(ty: Ty) -> bool {
    ty.bits() <= 32
}

/// About how many instructions `op` expands to (a hint: lanes are unrolled).
fn expansion(op: WarpOp) -> usize {
    match op {
        WarpOp::MatchAny => 32 * 12,
        _ => 48,
    }
}

/// Uses of `old` in `inst` become `new` (only the stores that follow a warp operation in its
/// block use its result).
fn rename(inst: &mut Inst, old: ValueId, new: ValueId) {
    if let Op::StoreVar(_, v) = &mut inst.op
        && *v == old
    {
        *v = new;
    }
}

/// Writes the expansion of a sync block's warp operations into `out`, speaking the IR's one
/// building vocabulary ([`Build`]).
struct Emit<'a> {
    f: &'a mut Function,
    out: &'a mut Vec<Inst>,
}

/// The SIMT expansion's builder: instructions go to the end of `out`, a block being rewritten,
/// each made as asked (no constant is shared: the expansion places its own).
impl Build for Emit<'_> {
    fn func(&self) -> &Function {
        self.f
    }

    fn emit(&mut self, ty: Ty, op: Op) -> ValueId {
        let id = ValueId(self.f.values.len() as u32);
        self.f.values.push(ty);
        self.out.push(Inst {
            result: Some(id),
            op,
        });
        id
    }

    fn emit_void(&mut self, op: Op) {
        self.out.push(Inst { result: None, op });
    }

    fn konst(&mut self, ty: Ty, bits: u64) -> ValueId {
        self.emit(ty, Op::Const(bits))
    }
}

impl Emit<'_> {
    fn builtin(&mut self, b: Builtin) -> ValueId {
        self.emit(Ty::I32, Op::Builtin(b))
    }

    fn load(&mut self, idx: ValueId) -> ValueId {
        self.emit(
            Ty::I32,
            Op::Load {
                ptr: Ptr::Shared(idx),
                align: 4,
                order: MemOrder::Plain,
            },
        )
    }

    fn store(&mut self, idx: ValueId, v: ValueId) {
        self.emit_void(Op::Store {
            ptr: Ptr::Shared(idx),
            value: v,
            align: 4,
            order: MemOrder::Plain,
        });
    }

    fn barrier(&mut self) {
        self.emit_void(Op::Barrier);
    }

    /// This thread's frame: the invariant parts as `frame_vars` stored them (emission
    /// forwards the stored values, so these loads cost nothing), and the `active` flag.
    fn frame(&mut self, st: VarId, v: &FrameVars) -> Frame {
        let [t, threads, lo, hi, flag, vote, warp] =
            [v.t, v.threads, v.lo, v.hi, v.flag, v.vote, v.warp]
                .map(|var| self.emit(Ty::I32, Op::LoadVar(var)));
        let s = self.emit(Ty::I32, Op::LoadVar(st));
        let zero = self.konst(Ty::I32, 0);
        let active = self.bin(BinOp::IEq, s, zero);
        Frame {
            t,
            threads,
            lo,
            hi,
            flag,
            vote,
            warp,
            active,
            alt: v.alt,
        }
    }

    /// The value and flag areas of this one-word `ReadLane`: the second pair after any other
    /// operation, then alternating (every thread runs the same operations in the same order, so
    /// all agree).
    fn alternate(&mut self, fr: &Frame, alt: AltVars) -> (ValueId, ValueId) {
        let w = self.emit(Ty::I32, Op::LoadVar(alt.which));
        let zero = self.konst(Ty::I32, 0);
        let second = self.bin(BinOp::IEq, w, zero);
        let one = self.konst(Ty::I32, 1);
        let next = self.select(second, one, zero);
        self.emit_void(Op::StoreVar(alt.which, next));
        let [lo1, flag1] = [alt.lo, alt.flag].map(|var| self.emit(Ty::I32, Op::LoadVar(var)));
        let lo = self.select(second, lo1, fr.lo);
        let flag = self.select(second, flag1, fr.flag);
        (lo, flag)
    }

    /// Writes this thread's slot: flag = `on`, value words = `v` (32 or 64 bits).
    fn publish(&mut self, fr: &Frame, on: ValueId, v: Option<ValueId>) {
        self.barrier();
        let one = self.konst(Ty::I32, 1);
        let zero = self.konst(Ty::I32, 0);
        let flag = self.select(on, one, zero);
        let at = self.bin(BinOp::IAdd, fr.flag, fr.t);
        self.store(at, flag);
        if let Some(v) = v {
            let (lo, hi) = self.split(v);
            let at = self.bin(BinOp::IAdd, fr.lo, fr.t);
            self.store(at, lo);
            if let Some(hi) = hi {
                let at = self.bin(BinOp::IAdd, fr.hi, fr.t);
                self.store(at, hi);
            }
        }
        self.barrier();
    }

    fn split(&mut self, v: ValueId) -> (ValueId, Option<ValueId>) {
        let ty = self.f.ty(v);
        let bits = if ty.is_float() {
            self.emit(Ty::int(ty.bits()), Op::Conv(ConvOp::Bitcast, v))
        } else {
            v
        };
        if ty.bits() == 64 {
            let lo = self.emit(Ty::I32, Op::Conv(ConvOp::Trunc, bits));
            let sh = self.konst(Ty::I64, 32);
            let h = self.bin(BinOp::LShr, bits, sh);
            let hi = self.emit(Ty::I32, Op::Conv(ConvOp::Trunc, h));
            (lo, Some(hi))
        } else if ty.bits() < 32 {
            (self.emit(Ty::I32, Op::Conv(ConvOp::ZExt, bits)), None)
        } else {
            (bits, None)
        }
    }

    /// Lane `l` of this warp: (exists and was active by the flags at `flag`, its slot index).
    fn lane(&mut self, fr: &Frame, flag: ValueId, l: ValueId) -> (ValueId, ValueId) {
        let idx = self.bin(BinOp::IAdd, fr.warp, l);
        let exists = self.bin(BinOp::ULt, idx, fr.threads);
        let safe = self.select(exists, idx, fr.t);
        let at = self.bin(BinOp::IAdd, flag, safe);
        let flag = self.load(at);
        let zero = self.konst(Ty::I32, 0);
        let set = self.bin(BinOp::INe, flag, zero);
        let on = self.bin(BinOp::And, exists, set);
        (on, safe)
    }

    /// The value lane slot `slot` published in the areas starting at `lo` (and `fr.hi`), as type
    /// `ty`.
    fn read_value(&mut self, fr: &Frame, lo: ValueId, slot: ValueId, ty: Ty) -> ValueId {
        self.read_words(lo, fr.hi, slot, ty)
    }

    /// The value lane slot `slot` published in the area starting at `lo` and, for 64 bits, the
    /// one at `hi`, as type `ty`.
    fn read_words(&mut self, lo: ValueId, hi: ValueId, slot: ValueId, ty: Ty) -> ValueId {
        let at = self.bin(BinOp::IAdd, lo, slot);
        let lo = self.load(at);
        let bits = if ty.bits() == 64 {
            let at = self.bin(BinOp::IAdd, hi, slot);
            let hi = self.load(at);
            let lo = self.emit(Ty::I64, Op::Conv(ConvOp::ZExt, lo));
            let hi = self.emit(Ty::I64, Op::Conv(ConvOp::ZExt, hi));
            let sh = self.konst(Ty::I64, 32);
            let hi = self.bin(BinOp::Shl, hi, sh);
            self.bin(BinOp::Or, lo, hi)
        } else if ty.bits() < 32 {
            self.emit(Ty::int(ty.bits()), Op::Conv(ConvOp::Trunc, lo))
        } else {
            lo
        };
        if ty.is_float() {
            self.emit(ty, Op::Conv(ConvOp::Bitcast, bits))
        } else {
            bits
        }
    }

    /// This thread's bit in its warp's masks where `on` holds, else 0.
    fn lane_bit(&mut self, fr: &Frame, on: ValueId) -> ValueId {
        let k31 = self.konst(Ty::I32, 31);
        let lane = self.bin(BinOp::And, fr.t, k31);
        let one = self.konst(Ty::I32, 1);
        let own = self.bin(BinOp::Shl, one, lane);
        let zero = self.konst(Ty::I32, 0);
        self.select(on, own, zero)
    }

    /// `x` of every thread of the warp combined by the atomic `op` (whose identity is
    /// `identity`) in one word, lane 0's flag slot: each thread first sets its own slot to the
    /// identity, so lane 0 (present in every warp) initializes its warp's word, and no lane loop
    /// is unrolled. With `value`, each thread also publishes it in its value slots (readable
    /// after the call).
    fn combine(
        &mut self,
        fr: &Frame,
        op: AtomicOp,
        identity: u64,
        x: ValueId,
        value: Option<(ValueId, Option<ValueId>)>,
    ) -> ValueId {
        self.barrier();
        let id = self.konst(Ty::I32, identity);
        let own = self.bin(BinOp::IAdd, fr.flag, fr.t);
        self.store(own, id);
        if let Some((lo, hi)) = value {
            let at = self.bin(BinOp::IAdd, fr.lo, fr.t);
            self.store(at, lo);
            if let Some(hi) = hi {
                let at = self.bin(BinOp::IAdd, fr.hi, fr.t);
                self.store(at, hi);
            }
        }
        self.barrier();
        let word = self.bin(BinOp::IAdd, fr.flag, fr.warp);
        self.emit(
            Ty::I32,
            Op::Atomic {
                op,
                ptr: Ptr::Shared(word),
                value: x,
                scope: Scope::Workgroup,
                sem: Ordering::Relaxed,
            },
        );
        self.barrier();
        self.load(word)
    }

    /// A block that [`lane_batch`] accepted: its reads in exchanges of at most
    /// [`BATCH_WORDS`] words, each taking the next batch set. Every read writes this thread's
    /// value to its own area where it stands (the loads before it stay in order), then one
    /// barrier, then every read and the stores of their results.
    fn batches(&mut self, insts: Vec<Inst>, st: VarId, vars: &FrameVars) {
        let Some(bv) = vars.batch else {
            self.out.extend(insts);
            return;
        };
        let fr = self.frame(st, vars);
        let words: Vec<u32> = insts
            .iter()
            .filter_map(|i| match &i.op {
                Op::Warp(WarpOp::ReadLane, args) => Some(words_of(self.f.ty(args[0]))),
                _ => None,
            })
            .collect();
        let mut sizes = chunks(&words).into_iter().map(|c| c.0);
        // Per pending read: (own value, source lane, its first area, the old result).
        let mut pending: Vec<(ValueId, ValueId, ValueId, ValueId)> = Vec::new();
        let mut stores: Vec<Inst> = Vec::new();
        let mut renamed: Vec<(ValueId, ValueId)> = Vec::new();
        let mut left = 0usize;
        let mut set = None;
        let mut used = 0u32;
        for inst in insts {
            match (&inst.op, inst.result) {
                (Op::Warp(WarpOp::ReadLane, args), Some(old)) => {
                    let (v, src) = (args[0], args[1]);
                    if left == 0 {
                        left = sizes.next().unwrap_or(1);
                        set = Some(self.batch_set(&fr, bv));
                        used = 0;
                    }
                    let flag = set.unwrap_or(fr.flag);
                    let (bits, hi) = self.split(v);
                    let area = self.area(&fr, flag, 1 + used);
                    let at = self.bin(BinOp::IAdd, area, fr.t);
                    self.store(at, bits);
                    if let Some(hi) = hi {
                        let area = self.area(&fr, flag, 2 + used);
                        let at = self.bin(BinOp::IAdd, area, fr.t);
                        self.store(at, hi);
                    }
                    used += words_of(self.f.ty(v));
                    pending.push((v, src, area, old));
                    left -= 1;
                    if left == 0 {
                        self.barrier();
                        for (v, src, area, old) in pending.drain(..) {
                            let (on, slot) = self.lane(&fr, flag, src);
                            let ty = self.f.ty(v);
                            let hi = self.bin(BinOp::IAdd, area, fr.threads);
                            let x = self.read_words(area, hi, slot, ty);
                            let new = self.select(on, x, v);
                            renamed.push((old, new));
                        }
                        self.flush_stores(&mut stores, &renamed);
                    }
                }
                (Op::StoreVar(..), _) => stores.push(inst),
                _ => self.out.push(inst),
            }
        }
        self.flush_stores(&mut stores, &renamed);
    }

    /// Emits the held stores of read results, each naming the value its read made.
    fn flush_stores(&mut self, stores: &mut Vec<Inst>, renamed: &[(ValueId, ValueId)]) {
        for mut s in stores.drain(..) {
            for (old, new) in renamed {
                rename(&mut s, *old, *new);
            }
            self.out.push(s);
        }
    }

    /// The flag area of the batch set this batch takes (the sets in turn; every thread runs the
    /// same batches in the same order, so all agree), this thread's flag written to it.
    fn batch_set(&mut self, fr: &Frame, bv: BatchVars) -> ValueId {
        let w = self.emit(Ty::I32, Op::LoadVar(bv.which));
        let one = self.konst(Ty::I32, 1);
        let next = self.bin(BinOp::Xor, w, one);
        self.emit_void(Op::StoreVar(bv.which, next));
        let base = self.emit(Ty::I32, Op::LoadVar(bv.base));
        let per = self.konst(Ty::I32, u64::from(bv.set_words));
        let stride = self.bin(BinOp::IMul, fr.threads, per);
        let off = self.bin(BinOp::IMul, stride, w);
        let flag = self.bin(BinOp::IAdd, base, off);
        let zero = self.konst(Ty::I32, 0);
        let on = self.select(fr.active, one, zero);
        let at = self.bin(BinOp::IAdd, flag, fr.t);
        self.store(at, on);
        flag
    }

    /// The `n`th area of `threads` words after `first`.
    fn area(&mut self, fr: &Frame, first: ValueId, n: u32) -> ValueId {
        let n = self.konst(Ty::I32, u64::from(n));
        let off = self.bin(BinOp::IMul, fr.threads, n);
        self.bin(BinOp::IAdd, first, off)
    }

    /// An operation that exchanges values (`WarpOp::Sync`, a barrier, is expanded by the
    /// caller).
    fn warp(
        &mut self,
        op: WarpOp,
        args: &[ValueId],
        st: VarId,
        vars: &FrameVars,
    ) -> Option<ValueId> {
        let fr = self.frame(st, vars);
        let ty = args.first().map(|&v| self.f.ty(v));
        if let (WarpOp::ReadLane, Some(alt), Some(ty)) = (op, fr.alt, ty)
            && one_word(ty)
        {
            let v = args[0];
            let (lo, flag) = self.alternate(&fr, alt);
            let one = self.konst(Ty::I32, 1);
            let zero = self.konst(Ty::I32, 0);
            let on = self.select(fr.active, one, zero);
            let at = self.bin(BinOp::IAdd, flag, fr.t);
            self.store(at, on);
            let (bits, _) = self.split(v);
            let at = self.bin(BinOp::IAdd, lo, fr.t);
            self.store(at, bits);
            self.barrier();
            let (on, slot) = self.lane(&fr, flag, args[1]);
            let x = self.read_value(&fr, lo, slot, ty);
            return Some(self.select(on, x, v));
        }
        if let Some(alt) = fr.alt {
            // This operation's areas were read last by no `ReadLane` that runs without its
            // first barrier: the next one takes the second pair.
            let zero = self.konst(Ty::I32, 0);
            self.emit_void(Op::StoreVar(alt.which, zero));
        }
        Some(match op {
            WarpOp::ReadLane => {
                let v = args[0];
                self.publish(&fr, fr.active, Some(v));
                let (on, slot) = self.lane(&fr, fr.flag, args[1]);
                let ty = self.f.ty(v);
                let x = self.read_value(&fr, fr.lo, slot, ty);
                self.select(on, x, v)
            }
            WarpOp::Ballot | WarpOp::ActiveMask => {
                let on = if op == WarpOp::Ballot {
                    self.bin(BinOp::And, fr.active, args[0])
                } else {
                    fr.active
                };
                let bit = self.lane_bit(&fr, on);
                self.combine(&fr, AtomicOp::Or, 0, bit, None)
            }
            WarpOp::MatchAny => {
                // The participating lanes by a ballot, the values published with it; then each
                // of the 32 slots compared. A lane past the block's end reads the last slot
                // (in bounds; the ballot has no bit for it).
                let (v, include) = (args[0], args[1]);
                let on = self.bin(BinOp::And, fr.active, include);
                let bit = self.lane_bit(&fr, on);
                let (lo, hi) = self.split(v);
                let (zero, one) = (self.konst(Ty::I32, 0), self.konst(Ty::I32, 1));
                let members = self.combine(&fr, AtomicOp::Or, 0, bit, Some((lo, hi)));
                let base = self.bin(BinOp::IAdd, fr.lo, fr.warp);
                let end = self.bin(BinOp::IAdd, fr.lo, fr.threads);
                let last = self.bin(BinOp::ISub, end, one);
                let mut acc = zero;
                for l in 0..32u64 {
                    let lc = self.konst(Ty::I32, l);
                    let idx = self.bin(BinOp::IAdd, base, lc);
                    let at = self.ext(ExtOp::UMin, &[idx, last], FpFlags::default());
                    let x = self.load(at);
                    let mut same = self.bin(BinOp::IEq, x, lo);
                    if let Some(hi) = hi {
                        // The high-word area follows the value area (`frame_vars`).
                        let at = self.bin(BinOp::IAdd, at, fr.threads);
                        let x = self.load(at);
                        let same_hi = self.bin(BinOp::IEq, x, hi);
                        same = self.bin(BinOp::And, same, same_hi);
                    }
                    let lane_bit = self.konst(Ty::I32, 1 << l);
                    let add = self.select(same, lane_bit, zero);
                    acc = self.bin(BinOp::Or, acc, add);
                }
                self.bin(BinOp::And, acc, members)
            }
            WarpOp::Reduce(r) => {
                let atomic = match r {
                    ReduceOp::Add => AtomicOp::Add,
                    ReduceOp::Or => AtomicOp::Or,
                    ReduceOp::Xor => AtomicOp::Xor,
                    ReduceOp::UMax => AtomicOp::UMax,
                    ReduceOp::UMin => AtomicOp::UMin,
                    ReduceOp::And => AtomicOp::And,
                    ReduceOp::SMin => AtomicOp::SMin,
                    ReduceOp::SMax => AtomicOp::SMax,
                };
                let identity = r.identity();
                let id = self.konst(Ty::I32, identity);
                let x = self.select(fr.active, args[0], id);
                self.combine(&fr, atomic, identity, x, None)
            }
            WarpOp::WorkgroupCount => {
                // Thread 0 clears the vote word, active threads with the predicate add one.
                self.barrier();
                let zero = self.konst(Ty::I32, 0);
                let is0 = self.bin(BinOp::IEq, fr.t, zero);
                let ones = self.konst(Ty::I32, 0xFFFF_FFFF);
                let keep = self.select(is0, zero, ones);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::And,
                        ptr: Ptr::Shared(fr.vote),
                        value: keep,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let on = self.bin(BinOp::And, fr.active, args[0]);
                let one = self.konst(Ty::I32, 1);
                let add = self.select(on, one, zero);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::Add,
                        ptr: Ptr::Shared(fr.vote),
                        value: add,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                self.load(fr.vote)
            }
            WarpOp::WorkgroupAny => {
                // Thread 0 clears the vote word, everyone ORs in, everyone reads.
                self.barrier();
                let zero = self.konst(Ty::I32, 0);
                let is0 = self.bin(BinOp::IEq, fr.t, zero);
                let ones = self.konst(Ty::I32, 0xFFFF_FFFF);
                let keep = self.select(is0, zero, ones);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::And,
                        ptr: Ptr::Shared(fr.vote),
                        value: keep,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let one = self.konst(Ty::I32, 1);
                let bit = self.select(args[0], one, zero);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::Or,
                        ptr: Ptr::Shared(fr.vote),
                        value: bit,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let v = self.load(fr.vote);
                self.bin(BinOp::INe, v, zero)
            }
            // A subgroup read is no synchronization point: `expand` leaves it in place.
            WarpOp::Sync | WarpOp::SubgroupRead => return None,
        })
    }
}

/// Variables holding a frame's invariant parts (see [`Frame`]).
#[derive(Clone, Copy)]
struct FrameVars {
    t: VarId,
    threads: VarId,
    lo: VarId,
    hi: VarId,
    flag: VarId,
    vote: VarId,
    warp: VarId,
    alt: Option<AltVars>,
    batch: Option<BatchVars>,
}

/// The two sets of batch areas: where the first starts, the words per thread of one (a flag
/// word and the value words), and which set the next batch takes.
#[derive(Clone, Copy)]
struct BatchVars {
    base: VarId,
    set_words: u32,
    which: VarId,
}

/// The second pair of areas of one-word `ReadLane`s, and which pair the next one takes (0: the
/// second).
#[derive(Clone, Copy)]
struct AltVars {
    lo: VarId,
    flag: VarId,
    which: VarId,
}

/// Computes the invariant parts of every operation's frame at the end of block `init`: the
/// linear thread id, the block's thread count, where the scratch's value, high-word, flag and
/// vote areas start, and the first slot of this thread's warp. Computed per operation, they
/// were about fifteen instructions each. With `alternating`, also the second pair of areas
/// (after the vote word) and its selector.
fn frame_vars(
    f: &mut Function,
    init: BlockId,
    alternating: bool,
    batch_words: Option<u32>,
) -> FrameVars {
    let mut out = std::mem::take(&mut f.block_mut(init).insts);
    let mut e = Emit { f, out: &mut out };
    let t = crate::ir::linear_local_id(|ty, op| e.emit(ty, op));
    let nx = e.builtin(Builtin::BlockDim(0));
    let ny = e.builtin(Builtin::BlockDim(1));
    let nz = e.builtin(Builtin::BlockDim(2));
    let nxy = e.bin(BinOp::IMul, nx, ny);
    let threads = e.bin(BinOp::IMul, nxy, nz);
    let lo = e.builtin(Builtin::ScratchBase);
    let hi = e.bin(BinOp::IAdd, lo, threads);
    let flag = e.bin(BinOp::IAdd, hi, threads);
    let vote = e.bin(BinOp::IAdd, flag, threads);
    let m = e.konst(Ty::I32, !31u64 & 0xFFFF_FFFF);
    let warp = e.bin(BinOp::And, t, m);
    let keep = |e: &mut Emit<'_>, v: ValueId, name: &'static str| {
        let var = e.f.new_var(Ty::I32, name);
        e.emit_void(Op::StoreVar(var, v));
        var
    };
    let one = e.konst(Ty::I32, 1);
    let after_vote = e.bin(BinOp::IAdd, vote, one);
    let alt = alternating.then(|| {
        let lo1 = after_vote;
        let flag1 = e.bin(BinOp::IAdd, lo1, threads);
        let zero = e.konst(Ty::I32, 0);
        AltVars {
            lo: keep(&mut e, lo1, "simt.lo1"),
            flag: keep(&mut e, flag1, "simt.flag1"),
            which: keep(&mut e, zero, "simt.which"),
        }
    });
    let batch = batch_words.map(|w| {
        let base = if alternating {
            let two = e.konst(Ty::I32, 2);
            let pair = e.bin(BinOp::IMul, threads, two);
            e.bin(BinOp::IAdd, after_vote, pair)
        } else {
            after_vote
        };
        let zero = e.konst(Ty::I32, 0);
        BatchVars {
            base: keep(&mut e, base, "simt.batch"),
            set_words: 1 + w,
            which: keep(&mut e, zero, "simt.batch_set"),
        }
    });
    let vars = FrameVars {
        t: keep(&mut e, t, "simt.tid"),
        threads: keep(&mut e, threads, "simt.threads"),
        lo: keep(&mut e, lo, "simt.lo"),
        hi: keep(&mut e, hi, "simt.hi"),
        flag: keep(&mut e, flag, "simt.flag"),
        vote: keep(&mut e, vote, "simt.vote"),
        warp: keep(&mut e, warp, "simt.warp"),
        alt,
        batch,
    };
    f.block_mut(init).insts = out;
    vars
}

struct Frame {
    t: ValueId,
    threads: ValueId,
    lo: ValueId,
    hi: ValueId,
    flag: ValueId,
    vote: ValueId,
    warp: ValueId,
    active: ValueId,
    alt: Option<AltVars>,
}
