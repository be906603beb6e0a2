//! The meaning of `cp.async` (global to shared copies) and its group operations.
//!
//! The copy is done when the instruction executes, so every group is complete as soon as it is
//! committed: `cp.async.commit_group`, `cp.async.wait_group N` and `cp.async.wait_all` have
//! nothing left to do. This is one of the executions the ISA allows (the copy may complete at any
//! time before the wait), and threads that read another thread's copy still need the barrier PTX
//! requires for that. The bulk copies are done the same way, and then complete their
//! transaction on the mbarrier they name (`mbarrier.rs`); `cp.async.mbarrier.arrive` finds
//! the thread's copies done, so its arrive-on happens at once (`.noinc`), or cancels against
//! the pending-count increment it makes first (without `.noinc`). A `.multicast::cluster` load
//! copies only when its mask names this block ([`multicast`]).

mod map_edit;
mod multicast;
mod reduce;
mod tensor;
mod walk;

use super::cx::Cx;
use super::memory::Where;
use crate::check::Src;
use crate::check::inst::{AsyncCopy, CpAsync, CpBulk};
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Ty, ValueId};
use crate::types::{ScalarType, StateSpace};
use walk::{at, base, spill};

pub fn async_copy(cx: &mut Cx<'_>, a: &AsyncCopy) {
    match a {
        AsyncCopy::Copy(c) => copy(cx, c),
        AsyncCopy::Bulk(b) => bulk(cx, b),
        AsyncCopy::BulkReduce(r) => reduce::bulk_reduce(cx, r),
        AsyncCopy::Tensor(t) => tensor::tensor_copy(cx, t),
        AsyncCopy::MbarrierArrive { addr, noinc } => {
            if *noinc && let Some(idx) = super::mbarrier::object_word(cx, addr) {
                super::mbarrier::arrive_on(cx, idx);
            }
        }
        AsyncCopy::TensormapReplace {
            map,
            space,
            field,
            value,
        } => map_edit::replace(cx, map, *space, *field, value),
        AsyncCopy::TensormapCopy { dst, src } => tensor::copy_map(cx, dst, src),
        AsyncCopy::CommitGroup
        | AsyncCopy::WaitGroup(_)
        | AsyncCopy::WaitAll
        | AsyncCopy::Prefetch => {}
    }
}

/// `cp.async.bulk`: `size` bytes, a word at a time (addresses and size are multiples of 16),
/// then the complete-tx operation of `size` bytes on the mbarrier.
fn bulk(cx: &mut Cx<'_>, b: &CpBulk) {
    let Some(src) = cx.resolve(b.src_space, &b.src) else {
        return;
    };
    let Some(dst) = cx.resolve(b.dst_space, &b.dst) else {
        return;
    };
    let size = cx.read(&b.size, ScalarType::U32);
    let size_var = spill(cx, size, Ty::I32, "bulk.size");
    let (Some((src_var, src_global)), Some((dst_var, dst_global))) =
        (base(cx, src, "bulk.src"), base(cx, dst, "bulk.dst"))
    else {
        cx.unsupported("this `cp.async.bulk` addressing");
        return;
    };
    multicast::multicast(cx, b.multicast.as_ref(), |cx| {
        cx.counted_loop("bulk.i", size_var, 4, |cx, i_var| {
            let from = at(cx, src_var, src_global, i_var);
            let v = cx.load(from, Ty::I32, MemOrder::Plain);
            let to = at(cx, dst_var, dst_global, i_var);
            cx.store(to, v, MemOrder::Plain);
        });
        if let Some(m) = &b.mbar
            && let Some(idx) = super::mbarrier::object_word(cx, m)
        {
            let n = cx.b.emit(Ty::I32, Op::LoadVar(size_var));
            super::mbarrier::complete_tx(cx, idx, n);
        }
    });
}

fn copy(cx: &mut Cx<'_>, c: &CpAsync) {
    let Some(src) = cx.resolve(StateSpace::Global, &c.src) else {
        return;
    };
    let Some(dst) = cx.resolve(StateSpace::Shared, &c.dst) else {
        return;
    };
    // How many source bytes are read; the rest of the destination is zero-filled.
    let fixed = match (&c.ignore_src, &c.src_size) {
        (None, None) => Some(c.size),
        (None, Some(Src::Imm(n))) => Some((*n).min(u64::from(c.size)) as u32),
        _ => None,
    };
    if fixed.is_none_or(|n| n % 4 != 0) && !(cx.profile.storage8 && cx.profile.int8) {
        cx.missing_feature("8-bit storage access for a `cp.async` that reads part of a word");
        return;
    }
    match fixed {
        Some(n) => {
            for w in 0..c.size / 4 {
                let lo = 4 * w;
                let v = if lo + 4 <= n {
                    let at = cx.offset_where(src, lo);
                    cx.load(at, Ty::I32, MemOrder::Plain)
                } else if lo < n {
                    let bytes: Vec<ValueId> = (lo..n)
                        .map(|k| {
                            let at = cx.offset_where(src, k);
                            cx.load(at, Ty::I8, MemOrder::Plain)
                        })
                        .collect();
                    assemble(cx, &bytes)
                } else {
                    cx.b.konst(Ty::I32, 0)
                };
                let at = cx.offset_where(dst, lo);
                cx.store(at, v, MemOrder::Plain);
            }
        }
        None => dynamic_copy(cx, c, src, dst),
    }
}

/// Bytes (little-endian, up to 4) into one 32-bit word.
fn assemble(cx: &mut Cx<'_>, bytes: &[ValueId]) -> ValueId {
    let mut word = cx.b.konst(Ty::I32, 0);
    for (j, b) in bytes.iter().enumerate() {
        let b = cx.b.conv(ConvOp::ZExt, *b, Ty::I32);
        let sh = cx.b.konst(Ty::I32, 8 * j as u64);
        let b = cx.b.bin(BinOp::Shl, b, sh);
        word = cx.b.bin(BinOp::Or, word, b);
    }
    word
}

/// A copy whose source size is known only at run time (a register `src-size`, or
/// `ignore-src`): each byte is read only when it lies inside the source, so nothing past it is
/// touched. IR values live in one block, so addresses and bytes travel in variables.
fn dynamic_copy(cx: &mut Cx<'_>, c: &CpAsync, src: Where, dst: Where) {
    let (Where::Global(src_addr), Where::Shared(dst_off)) = (src, dst) else {
        cx.unsupported("this `cp.async` addressing");
        return;
    };
    let src_var = spill(cx, src_addr, Ty::I64, "cp.async.src");
    let dst_var = spill(cx, dst_off, Ty::I32, "cp.async.dst");
    let mut n = match &c.src_size {
        Some(s) => cx.read(s, ScalarType::U32),
        None => cx.b.konst(Ty::I32, u64::from(c.size)),
    };
    if let Some(p) = &c.ignore_src {
        let ignore = cx.read(p, ScalarType::Pred);
        let zero = cx.b.konst(Ty::I32, 0);
        n = cx.b.select(ignore, zero, n);
    }
    let n_var = spill(cx, n, Ty::I32, "cp.async.n");
    let mut byte_vars = Vec::new();
    for k in 0..c.size {
        let var = cx.b.f.new_var(Ty::I8, format!("cp.async.b{k}"));
        let zero = cx.b.konst(Ty::I8, 0);
        cx.b.emit_void(Op::StoreVar(var, zero));
        byte_vars.push(var);
    }
    for (k, var) in byte_vars.iter().enumerate() {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(n_var));
        let kk = cx.b.konst(Ty::I32, k as u64);
        let inside = cx.b.bin(BinOp::ULt, kk, n);
        cx.if_then(inside, |cx| {
            let a = cx.b.emit(Ty::I64, Op::LoadVar(src_var));
            let at = cx.offset_where(Where::Global(a), k as u32);
            let b = cx.load(at, Ty::I8, MemOrder::Plain);
            cx.b.emit_void(Op::StoreVar(*var, b));
        });
    }
    for (w, chunk) in byte_vars.chunks(4).enumerate() {
        let bytes: Vec<ValueId> = chunk
            .iter()
            .map(|v| cx.b.emit(Ty::I8, Op::LoadVar(*v)))
            .collect();
        let word = assemble(cx, &bytes);
        let off = cx.b.emit(Ty::I32, Op::LoadVar(dst_var));
        let at = cx.offset_where(Where::Shared(off), 4 * w as u32);
        cx.store(at, word, MemOrder::Plain);
    }
}
