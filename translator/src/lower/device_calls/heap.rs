//! `malloc` and `free` on the device heap: size classes with free lists, and a cursor for
//! granules not yet handed out.

use super::access::{arg64, atomic_add, load, offset, service, set_result, store};
use crate::abi;
use crate::check::inst::Call;
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{self, BinOp, ConvOp, Op, Ordering, Ptr, Scope, Ty, ValueId, VarId};
use crate::lower::cx::Cx;

/// `malloc(size)`: a block from its size class's free list, else granules from the heap's
/// cursor; NULL when they do not fit (the cursor is put back then, so that failed requests do
/// not use the heap up). Without 64-bit atomics, only the cursor.
pub(super) fn malloc(cx: &mut Cx<'_>, c: &Call) {
    let (Some(size_arg), Some(r)) = (c.args.first(), c.rets.first()) else {
        cx.unsupported("`malloc` without its argument and result");
        return;
    };
    let size = arg64(cx, size_arg);
    let max =
        cx.b.konst(Ty::I64, abi::HEAP_MAX_GRANULES * abi::HEAP_GRANULE);
    let ok = cx.b.bin(BinOp::ULe, size, max);
    let round = cx.b.konst(Ty::I64, abi::HEAP_GRANULE - 1);
    let g = cx.b.bin(BinOp::IAdd, size, round);
    let shift =
        cx.b.konst(Ty::I64, abi::HEAP_GRANULE.trailing_zeros().into());
    let g = cx.b.bin(BinOp::LShr, g, shift);
    // `malloc(0)` gets a granule of its own, a pointer no other call returns.
    let one = cx.b.konst(Ty::I64, 1);
    let g = cx.b.ext(ir::ExtOp::UMax, &[g, one], Default::default());
    let zero = cx.b.konst(Ty::I64, 0);
    let g = cx.b.select(ok, g, zero);
    let g = cx.b.conv(ConvOp::Trunc, g, Ty::I32);
    if !cx.profile.int64_atomics {
        let ptr = bump(cx, g, None);
        set_result(cx, r, ptr);
        return;
    }
    let result = cx.b.f.new_var(Ty::I64, "malloc.result");
    cx.b.emit_void(Op::StoreVar(result, zero));
    // Class `ceil(log2(g))`: FindUMsb(g - 1) + 1, which is 0 for one granule.
    let one32 = cx.b.konst(Ty::I32, 1);
    let gm1 = cx.b.bin(BinOp::ISub, g, one32);
    let msb = cx.b.ext(ir::ExtOp::FindUMsb, &[gm1], Default::default());
    let class = cx.b.bin(BinOp::IAdd, msb, one32);
    let classes = cx.b.konst(Ty::I32, abi::HEAP_CLASSES.into());
    let small = cx.b.bin(BinOp::ULt, class, classes);
    let class = cx.b.select(small, class, classes);
    let class_var = cx.b.f.new_var(Ty::I32, "malloc.class");
    cx.b.emit_void(Op::StoreVar(class_var, class));
    let pow = cx.b.bin(BinOp::Shl, one32, class);
    let data = cx.b.select(small, pow, g);
    let n = cx.b.bin(BinOp::IAdd, data, one32);
    let n_var = cx.b.f.new_var(Ty::I32, "malloc.granules");
    cx.b.emit_void(Op::StoreVar(n_var, n));
    let [classify, pop, take, bump_b, join] = [(); 5].map(|_| cx.b.f.new_block());
    cx.b.branch(ok, classify, join);
    cx.b.cur = classify;
    cx.b.branch(small, pop, bump_b);
    // Pop: the head's block, replaced by its next with the version raised.
    cx.b.cur = pop;
    let head_var = cx.b.f.new_var(Ty::I64, "malloc.head");
    let (_, h) = load_head(cx, class_var);
    cx.b.emit_void(Op::StoreVar(head_var, h));
    let idx = cx.b.conv(ConvOp::Trunc, h, Ty::I32);
    let zero32 = cx.b.konst(Ty::I32, 0);
    let empty = cx.b.bin(BinOp::IEq, idx, zero32);
    cx.b.branch(empty, bump_b, take);
    cx.b.cur = take;
    let head_addr = head_address(cx, class_var);
    let h = cx.b.emit(Ty::I64, Op::LoadVar(head_var));
    let block = block_of(cx, h);
    let next_at = offset(cx, block, 4);
    let next = load(cx, Ty::I32, next_at);
    let next = cx.b.conv(ConvOp::ZExt, next, Ty::I64);
    let new = raise_version(cx, h, next);
    let old = cas(cx, head_addr, h, new);
    let won = cx.b.bin(BinOp::IEq, old, h);
    let ptr = offset(cx, block, abi::HEAP_GRANULE);
    cx.b.emit_void(Op::StoreVar(result, ptr));
    cx.b.branch(won, join, pop);
    // Bump: `n` granules, the first the header.
    cx.b.cur = bump_b;
    let n = cx.b.emit(Ty::I32, Op::LoadVar(n_var));
    let class = cx.b.emit(Ty::I32, Op::LoadVar(class_var));
    let ptr = bump(cx, n, Some(class));
    cx.b.emit_void(Op::StoreVar(result, ptr));
    cx.b.jump(join);
    cx.b.cur = join;
    let ptr = cx.b.emit(Ty::I64, Op::LoadVar(result));
    set_result(cx, r, ptr);
}

/// `free(ptr)`: the block goes on its class's free list (with 64-bit atomics; else nothing).
pub(super) fn free(cx: &mut Cx<'_>, c: &Call) {
    let Some(ptr_arg) = c.args.first() else {
        cx.unsupported("`free` without its argument");
        return;
    };
    if !cx.profile.int64_atomics {
        return;
    }
    let p = arg64(cx, ptr_arg);
    let zero = cx.b.konst(Ty::I64, 0);
    let live = cx.b.bin(BinOp::INe, p, zero);
    let hdr = cx.b.f.new_var(Ty::I64, "free.block");
    let granule = cx.b.konst(Ty::I64, abi::HEAP_GRANULE);
    let block = cx.b.bin(BinOp::ISub, p, granule);
    cx.b.emit_void(Op::StoreVar(hdr, block));
    let [read, push, join] = [(); 3].map(|_| cx.b.f.new_block());
    cx.b.branch(live, read, join);
    cx.b.cur = read;
    let block = cx.b.emit(Ty::I64, Op::LoadVar(hdr));
    let class = load(cx, Ty::I32, block);
    let class_var = cx.b.f.new_var(Ty::I32, "free.class");
    cx.b.emit_void(Op::StoreVar(class_var, class));
    let classes = cx.b.konst(Ty::I32, abi::HEAP_CLASSES.into());
    let small = cx.b.bin(BinOp::ULt, class, classes);
    cx.b.branch(small, push, join);
    cx.b.cur = push;
    let (head_addr, h) = load_head(cx, class_var);
    let block = cx.b.emit(Ty::I64, Op::LoadVar(hdr));
    let first = cx.b.conv(ConvOp::Trunc, h, Ty::I32);
    let next_at = offset(cx, block, 4);
    store(cx, next_at, first);
    let heap = service(cx, abi::SERVICES_HEAP);
    let data = offset(cx, heap, abi::HEAP_HEADER);
    let rel = cx.b.bin(BinOp::ISub, block, data);
    let shift =
        cx.b.konst(Ty::I64, abi::HEAP_GRANULE.trailing_zeros().into());
    let idx = cx.b.bin(BinOp::LShr, rel, shift);
    let one = cx.b.konst(Ty::I64, 1);
    let idx = cx.b.bin(BinOp::IAdd, idx, one);
    let new = raise_version(cx, h, idx);
    let old = cas(cx, head_addr, h, new);
    let won = cx.b.bin(BinOp::IEq, old, h);
    cx.b.branch(won, join, push);
    cx.b.cur = join;
}

/// The address of the free list of the class in `class`.
fn head_address(cx: &mut Cx<'_>, class: VarId) -> ValueId {
    let heap = service(cx, abi::SERVICES_HEAP);
    let heads = offset(cx, heap, abi::HEAP_HEADS);
    let class = cx.b.emit(Ty::I32, Op::LoadVar(class));
    let class = cx.b.conv(ConvOp::ZExt, class, Ty::I64);
    let three = cx.b.konst(Ty::I64, 3);
    let at = cx.b.bin(BinOp::Shl, class, three);
    cx.b.bin(BinOp::IAdd, heads, at)
}

/// The free list's address and its head, read atomically.
fn load_head(cx: &mut Cx<'_>, class: VarId) -> (ValueId, ValueId) {
    let at = head_address(cx, class);
    let h = cx.b.emit(
        Ty::I64,
        Op::AtomicLoad {
            ptr: Ptr::Global(at),
            scope: Scope::Device,
            sem: Ordering::Acquire,
        },
    );
    (at, h)
}

/// The block a head's low half names.
fn block_of(cx: &mut Cx<'_>, h: ValueId) -> ValueId {
    let mask = cx.b.konst(Ty::I64, 0xFFFF_FFFF);
    let idx = cx.b.bin(BinOp::And, h, mask);
    let one = cx.b.konst(Ty::I64, 1);
    let idx = cx.b.bin(BinOp::ISub, idx, one);
    let shift =
        cx.b.konst(Ty::I64, abi::HEAP_GRANULE.trailing_zeros().into());
    let rel = cx.b.bin(BinOp::Shl, idx, shift);
    let heap = service(cx, abi::SERVICES_HEAP);
    let data = offset(cx, heap, abi::HEAP_HEADER);
    cx.b.bin(BinOp::IAdd, data, rel)
}

/// A new head naming `idx` (u64), its version one more than `h`'s, so that a head read before
/// a pop and a push of the same block no longer compares equal.
fn raise_version(cx: &mut Cx<'_>, h: ValueId, idx: ValueId) -> ValueId {
    let high = cx.b.konst(Ty::I64, 0xFFFF_FFFF_0000_0000);
    let version = cx.b.bin(BinOp::And, h, high);
    let step = cx.b.konst(Ty::I64, 1 << 32);
    let version = cx.b.bin(BinOp::IAdd, version, step);
    cx.b.bin(BinOp::Or, version, idx)
}

fn cas(cx: &mut Cx<'_>, at: ValueId, compare: ValueId, value: ValueId) -> ValueId {
    cx.b.emit(
        Ty::I64,
        Op::AtomicCas {
            ptr: Ptr::Global(at),
            compare,
            value,
            scope: Scope::Device,
            sem: Ordering::AcqRel,
        },
    )
}

/// `n` granules (u32; 0 fails) from the cursor: their address, or 0 when they do not fit. With
/// `class`, the first granule is the block's header and holds it; the address is after it.
fn bump(cx: &mut Cx<'_>, n: ValueId, class: Option<ValueId>) -> ValueId {
    let zero32 = cx.b.konst(Ty::I32, 0);
    let nonzero = cx.b.bin(BinOp::INe, n, zero32);
    let heap = service(cx, abi::SERVICES_HEAP);
    let cursor = offset(cx, heap, abi::HEAP_CURSOR);
    let old = atomic_add(cx, cursor, n);
    let cap_at = offset(cx, heap, abi::HEAP_CAPACITY);
    let cap = load(cx, Ty::I32, cap_at);
    let end = cx.b.bin(BinOp::IAdd, old, n);
    let inside = cx.b.bin(BinOp::ULe, end, cap);
    let fits = cx.b.bin(BinOp::And, nonzero, inside);
    let neg = cx.b.bin(BinOp::ISub, zero32, n);
    let undo = cx.b.select(fits, zero32, neg);
    atomic_add(cx, cursor, undo);
    let data = offset(cx, heap, abi::HEAP_HEADER);
    let old = cx.b.conv(ConvOp::ZExt, old, Ty::I64);
    let shift =
        cx.b.konst(Ty::I64, abi::HEAP_GRANULE.trailing_zeros().into());
    let rel = cx.b.bin(BinOp::Shl, old, shift);
    let block = cx.b.bin(BinOp::IAdd, data, rel);
    let zero = cx.b.konst(Ty::I64, 0);
    let Some(class) = class else {
        return cx.b.select(fits, block, zero);
    };
    // The header is written only for a block that fits: a store, so in a block of its own.
    let var = cx.b.f.new_var(Ty::I64, "malloc.block");
    let none = cx.b.select(fits, block, zero);
    cx.b.emit_void(Op::StoreVar(var, none));
    let class_var = cx.b.f.new_var(Ty::I32, "malloc.header");
    cx.b.emit_void(Op::StoreVar(class_var, class));
    cx.if_then(fits, |cx| {
        let block = cx.b.emit(Ty::I64, Op::LoadVar(var));
        let class = cx.b.emit(Ty::I32, Op::LoadVar(class_var));
        store(cx, block, class);
        let ptr = offset(cx, block, abi::HEAP_GRANULE);
        cx.b.emit_void(Op::StoreVar(var, ptr));
    });
    cx.b.emit(Ty::I64, Op::LoadVar(var))
}
