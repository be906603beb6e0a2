//! The expansion's builder and the steps warp operations are made of.

use super::vars::{AltVars, BatchVars, Frame, FrameVars};
use crate::ir::build::Build;
use crate::ir::{
    AtomicOp, BinOp, BlockId, Builtin, ConvOp, Function, Inst, MemOrder, Op, Ordering, Ptr, Scope,
    Ty, ValueId, VarId,
};

/// Writes the expansion of a sync block's warp operations into `out`, speaking the IR's one
/// building vocabulary ([`Build`]).
pub(super) struct Emit<'a> {
    pub(super) f: &'a mut Function,
    pub(super) out: &'a mut Vec<Inst>,
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
    pub(super) fn builtin(&mut self, b: Builtin) -> ValueId {
        self.emit(Ty::I32, Op::Builtin(b))
    }

    pub(super) fn load(&mut self, idx: ValueId) -> ValueId {
        self.emit(
            Ty::I32,
            Op::Load {
                ptr: Ptr::Shared(idx),
                align: 4,
                order: MemOrder::Plain,
            },
        )
    }

    pub(super) fn store(&mut self, idx: ValueId, v: ValueId) {
        self.emit_void(Op::Store {
            ptr: Ptr::Shared(idx),
            value: v,
            align: 4,
            order: MemOrder::Plain,
        });
    }

    pub(super) fn barrier(&mut self) {
        self.emit_void(Op::Barrier);
    }

    /// This thread's frame: the invariant parts as `frame_vars` stored them (emission
    /// forwards the stored values, so these loads cost nothing), and the `active` flag.
    pub(super) fn frame(&mut self, st: VarId, v: &FrameVars) -> Frame {
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
    pub(super) fn alternate(&mut self, fr: &Frame, alt: AltVars) -> (ValueId, ValueId) {
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
    pub(super) fn publish(&mut self, fr: &Frame, on: ValueId, v: Option<ValueId>) {
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

    pub(super) fn split(&mut self, v: ValueId) -> (ValueId, Option<ValueId>) {
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
    pub(super) fn lane(&mut self, fr: &Frame, flag: ValueId, l: ValueId) -> (ValueId, ValueId) {
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
    pub(super) fn read_value(&mut self, fr: &Frame, lo: ValueId, slot: ValueId, ty: Ty) -> ValueId {
        self.read_words(lo, fr.hi, slot, ty)
    }

    /// The value lane slot `slot` published in the area starting at `lo` and, for 64 bits, the
    /// one at `hi`, as type `ty`.
    pub(super) fn read_words(
        &mut self,
        lo: ValueId,
        hi: ValueId,
        slot: ValueId,
        ty: Ty,
    ) -> ValueId {
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
    pub(super) fn lane_bit(&mut self, fr: &Frame, on: ValueId) -> ValueId {
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
    pub(super) fn combine(
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
}

/// Computes the invariant parts of every operation's frame at the end of block `init`: the
/// linear thread id, the block's thread count, where the scratch's value, high-word, flag and
/// vote areas start, and the first slot of this thread's warp. Computed per operation, they
/// were about fifteen instructions each. With `alternating`, also the second pair of areas
/// (after the vote word) and its selector.
pub(super) fn frame_vars(
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
