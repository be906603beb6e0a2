//! Calls to CUDA's device-runtime functions (`abi::DeviceCall`): `vprintf` appends a record to
//! the context's printf FIFO, `malloc` takes granules from the device heap, `free` returns
//! nothing. Both structures are the runtime's; the module's services slot holds their addresses
//! (`abi::SERVICES_FIFO`, `abi::SERVICES_HEAP`; `docs/decisions/0179-device-printf-and-heap.md`).

use super::cx::Cx;
use super::memory::Where;
use crate::abi::{self, DeviceCall};
use crate::check::Src;
use crate::check::inst::{Call, CallArg};
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{
    self, AtomicOp, BinOp, Builtin, ConvOp, Op, Ordering, Ptr, Scope, Ty, ValueId, VarId,
};
use crate::printf;
use crate::types::StateSpace;

/// Lowers a call to `which`.
pub fn call(cx: &mut Cx<'_>, which: DeviceCall, c: &Call) {
    match which {
        DeviceCall::Vprintf => vprintf(cx, c),
        DeviceCall::Malloc => malloc(cx, c),
        DeviceCall::Free => free(cx, c),
    }
}

/// The address held in the services slot at `slot`.
fn service(cx: &mut Cx<'_>, slot: u64) -> ValueId {
    let base = cx.b.emit(Ty::I64, Op::Builtin(Builtin::GlobalsBase));
    let at = offset(cx, base, slot);
    load(cx, Ty::I64, at)
}

fn offset(cx: &mut Cx<'_>, a: ValueId, by: u64) -> ValueId {
    if by == 0 {
        return a;
    }
    let k = cx.b.konst(Ty::I64, by);
    cx.b.bin(BinOp::IAdd, a, k)
}

// The FIFO and the heap's bookkeeping are the runtime's memory, not an allocation of the
// program's, so these accesses bypass `Cx::load`/`Cx::store` and the memory checker there.
fn load(cx: &mut Cx<'_>, ty: Ty, a: ValueId) -> ValueId {
    cx.b.emit(
        ty,
        Op::Load {
            ptr: Ptr::Global(a),
            align: ty.bits() / 8,
            order: Default::default(),
        },
    )
}

fn store(cx: &mut Cx<'_>, a: ValueId, value: ValueId) {
    let align = cx.b.f.ty(value).bits() / 8;
    cx.b.emit_void(Op::Store {
        ptr: Ptr::Global(a),
        value,
        align,
        order: Default::default(),
    });
}

fn atomic_add(cx: &mut Cx<'_>, a: ValueId, value: ValueId) -> ValueId {
    cx.b.emit(
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Add,
            ptr: Ptr::Global(a),
            value,
            scope: Scope::Device,
            sem: Ordering::Relaxed,
        },
    )
}

/// A 64-bit argument's value.
fn arg64(cx: &mut Cx<'_>, a: &CallArg) -> ValueId {
    match a {
        CallArg::Param(v) => {
            let words = super::memory::param_words(cx, *v);
            let lo = cx.b.emit(Ty::I32, Op::LoadVar(words[0]));
            let lo = cx.b.conv(ConvOp::ZExt, lo, Ty::I64);
            let Some(&w1) = words.get(1) else {
                return lo;
            };
            let hi = cx.b.emit(Ty::I32, Op::LoadVar(w1));
            let hi = cx.b.conv(ConvOp::ZExt, hi, Ty::I64);
            let sh = cx.b.konst(Ty::I64, 32);
            let hi = cx.b.bin(BinOp::Shl, hi, sh);
            cx.b.bin(BinOp::Or, lo, hi)
        }
        CallArg::Value(src, ty) => {
            let v = cx.read(src, *ty);
            let v = cx.b.as_int(v);
            cx.b.conv(ConvOp::ZExt, v, Ty::I64)
        }
    }
}

/// Writes a call's result (32 or 64 bits) to its return parameter or register.
fn set_result(cx: &mut Cx<'_>, r: &CallArg, v: ValueId) {
    match r {
        CallArg::Param(p) => {
            let words = super::memory::param_words(cx, *p);
            let ty = cx.b.f.ty(v);
            let lo = cx.b.conv(ConvOp::Trunc, v, Ty::I32);
            cx.b.emit_void(Op::StoreVar(words[0], lo));
            if ty == Ty::I64
                && let Some(&w1) = words.get(1)
            {
                let sh = cx.b.konst(Ty::I64, 32);
                let hi = cx.b.bin(BinOp::LShr, v, sh);
                let hi = cx.b.conv(ConvOp::Trunc, hi, Ty::I32);
                cx.b.emit_void(Op::StoreVar(w1, hi));
            }
        }
        CallArg::Value(Src::Reg { reg, comp, .. }, ty) => {
            let var = cx.reg_var(*reg, *comp);
            let want = Ty::int(ty.bytes() * 8);
            let v = if cx.b.f.ty(v).bits() > want.bits() {
                cx.b.conv(ConvOp::Trunc, v, want)
            } else {
                cx.b.conv(ConvOp::ZExt, v, want)
            };
            let v = cx.b.reinterpret(v, cx.b.f.vars[var.0 as usize].ty);
            cx.b.emit_void(Op::StoreVar(var, v));
        }
        CallArg::Value(..) => cx.unsupported("a call result that is not a register"),
    }
}

/// `vprintf(fmt, args)`: the format string must be a constant of the module, found by
/// following the argument back to a variable's address; it says how many argument bytes to
/// copy. Returns the number of arguments, as CUDA's `printf` does.
fn vprintf(cx: &mut Cx<'_>, c: &Call) {
    let [fmt_arg, args_arg] = &c.args[..] else {
        cx.unsupported("`vprintf` with other than two arguments");
        return;
    };
    let Some(fmt) = constant_string(cx, fmt_arg) else {
        vprintf_dynamic(cx, c, fmt_arg, args_arg);
        return;
    };
    let pieces = printf::parse(&fmt);
    let (args, arg_bytes) = printf::layout(&pieces);
    if arg_bytes > abi::PRINTF_MAX_ARG_BYTES {
        cx.unsupported(format!(
            "`printf` with more than {} bytes of arguments",
            abi::PRINTF_MAX_ARG_BYTES
        ));
        return;
    }
    let len = abi::FIFO_RECORD_HEADER + u64::from(arg_bytes).next_multiple_of(8);
    let len32 = cx.b.konst(Ty::I32, len);
    let (fits, rec_var) = claim_record(cx, len32);
    cx.if_then(fits, |cx| {
        let nbytes = cx.b.konst(Ty::I32, u64::from(arg_bytes));
        let fmt_addr = arg64(cx, fmt_arg);
        write_header(cx, rec_var, len32, nbytes, fmt_addr);
        if arg_bytes > 0 {
            let src = arg64(cx, args_arg);
            let src_var = cx.b.f.new_var(Ty::I64, "printf.args");
            cx.b.emit_void(Op::StoreVar(src_var, src));
            copy_words(cx, src_var, rec_var, arg_bytes / 4);
        }
    });
    if let Some(r) = c.rets.first() {
        let n = cx.b.konst(Ty::I32, args.len() as u64);
        set_result(cx, r, n);
    }
}

/// `vprintf` of a format only known at run time (a `__device__` pointer, a choice between
/// constants): the host reads it from device memory when it drains the FIFO, so the number of
/// argument bytes is not known here. The argument buffer is in the caller's local frame (nvcc,
/// clang and numba all place it there), and the record takes what of the frame follows it, up
/// to CUDA's 256 bytes; any other buffer gives no bytes, and the host prints a marker for each
/// argument missing. Returns 0, or -1 for a NULL format (which prints nothing), as the number
/// of arguments would need the format parsed on the device.
fn vprintf_dynamic(cx: &mut Cx<'_>, c: &Call, fmt_arg: &CallArg, args_arg: &CallArg) {
    let fmt_addr = arg64(cx, fmt_arg);
    let fmt_var = cx.b.f.new_var(Ty::I64, "printf.format");
    cx.b.emit_void(Op::StoreVar(fmt_var, fmt_addr));
    let src = arg64(cx, args_arg);
    let local = cx.in_window(StateSpace::Local, src);
    let off = cx.b.conv(ConvOp::Trunc, src, Ty::I32);
    let limit = cx.local_limit();
    let inside = cx.b.bin(BinOp::ULt, off, limit);
    let avail = cx.b.bin(BinOp::ISub, limit, off);
    let max = cx.b.konst(Ty::I32, abi::PRINTF_MAX_ARG_BYTES.into());
    let avail = cx.b.ext(ir::ExtOp::UMin, &[avail, max], Default::default());
    let word_mask = cx.b.konst(Ty::I32, u64::from(!3u32));
    let avail = cx.b.bin(BinOp::And, avail, word_mask);
    let usable = cx.b.bin(BinOp::And, local, inside);
    let zero32 = cx.b.konst(Ty::I32, 0);
    let nbytes = cx.b.select(usable, avail, zero32);
    let nbytes_var = cx.b.f.new_var(Ty::I32, "printf.bytes");
    cx.b.emit_void(Op::StoreVar(nbytes_var, nbytes));
    let off_var = cx.b.f.new_var(Ty::I32, "printf.frame");
    cx.b.emit_void(Op::StoreVar(off_var, off));
    // The record: the header and the bytes rounded up to 8, as for a constant format.
    let seven = cx.b.konst(Ty::I32, 7);
    let len = cx.b.bin(BinOp::IAdd, nbytes, seven);
    let eight_mask = cx.b.konst(Ty::I32, u64::from(!7u32));
    let len = cx.b.bin(BinOp::And, len, eight_mask);
    let header = cx.b.konst(Ty::I32, abi::FIFO_RECORD_HEADER);
    let len = cx.b.bin(BinOp::IAdd, len, header);
    let zero = cx.b.konst(Ty::I64, 0);
    let named = cx.b.bin(BinOp::INe, fmt_addr, zero);
    let len = cx.b.select(named, len, zero32);
    let len_var = cx.b.f.new_var(Ty::I32, "printf.length");
    cx.b.emit_void(Op::StoreVar(len_var, len));
    let (fits, rec_var) = claim_record(cx, len);
    let fits = cx.b.bin(BinOp::And, fits, named);
    let [write, head, body, join] = [(); 4].map(|_| cx.b.f.new_block());
    cx.b.branch(fits, write, join);
    cx.b.cur = write;
    let len = cx.b.emit(Ty::I32, Op::LoadVar(len_var));
    let nbytes = cx.b.emit(Ty::I32, Op::LoadVar(nbytes_var));
    let fmt = cx.b.emit(Ty::I64, Op::LoadVar(fmt_var));
    write_header(cx, rec_var, len, nbytes, fmt);
    let byte_var = cx.b.f.new_var(Ty::I32, "printf.byte");
    let zero32 = cx.b.konst(Ty::I32, 0);
    cx.b.emit_void(Op::StoreVar(byte_var, zero32));
    cx.b.jump(head);
    // One word a trip, from the frame to the record.
    cx.b.cur = head;
    let b = cx.b.emit(Ty::I32, Op::LoadVar(byte_var));
    let n = cx.b.emit(Ty::I32, Op::LoadVar(nbytes_var));
    let more = cx.b.bin(BinOp::ULt, b, n);
    cx.b.branch(more, body, join);
    cx.b.cur = body;
    let b = cx.b.emit(Ty::I32, Op::LoadVar(byte_var));
    let o = cx.b.emit(Ty::I32, Op::LoadVar(off_var));
    let o = cx.b.bin(BinOp::IAdd, o, b);
    let w = cx.load(Where::Local(o), Ty::I32, Default::default());
    let rec = cx.b.emit(Ty::I64, Op::LoadVar(rec_var));
    let rec = offset(cx, rec, abi::FIFO_RECORD_HEADER);
    let b64 = cx.b.conv(ConvOp::ZExt, b, Ty::I64);
    let at = cx.b.bin(BinOp::IAdd, rec, b64);
    store(cx, at, w);
    let four = cx.b.konst(Ty::I32, 4);
    let next = cx.b.bin(BinOp::IAdd, b, four);
    cx.b.emit_void(Op::StoreVar(byte_var, next));
    cx.b.jump(head);
    cx.b.cur = join;
    if let Some(r) = c.rets.first() {
        let fmt = cx.b.emit(Ty::I64, Op::LoadVar(fmt_var));
        let zero = cx.b.konst(Ty::I64, 0);
        let named = cx.b.bin(BinOp::INe, fmt, zero);
        let zero32 = cx.b.konst(Ty::I32, 0);
        let minus_one = cx.b.konst(Ty::I32, u64::from(u32::MAX));
        let n = cx.b.select(named, zero32, minus_one);
        set_result(cx, r, n);
    }
}

/// Claims `len` (u32) bytes of the FIFO with one atomic add: whether they fit its capacity,
/// and a variable holding the record's address.
fn claim_record(cx: &mut Cx<'_>, len: ValueId) -> (ValueId, VarId) {
    let fifo = service(cx, abi::SERVICES_FIFO);
    let cursor = offset(cx, fifo, abi::FIFO_CURSOR);
    let at = atomic_add(cx, cursor, len);
    let cap_at = offset(cx, fifo, abi::FIFO_CAPACITY);
    let cap = load(cx, Ty::I32, cap_at);
    let end = cx.b.bin(BinOp::IAdd, at, len);
    let inside = cx.b.bin(BinOp::ULe, end, cap);
    let no_wrap = cx.b.bin(BinOp::ULt, at, end);
    let fits = cx.b.bin(BinOp::And, inside, no_wrap);
    let rec = offset(cx, fifo, abi::FIFO_HEADER);
    let at64 = cx.b.conv(ConvOp::ZExt, at, Ty::I64);
    let rec = cx.b.bin(BinOp::IAdd, rec, at64);
    let rec_var = cx.b.f.new_var(Ty::I64, "printf.record");
    cx.b.emit_void(Op::StoreVar(rec_var, rec));
    (fits, rec_var)
}

/// A record's header: its length, its argument bytes and its format's address.
fn write_header(cx: &mut Cx<'_>, rec: VarId, len: ValueId, nbytes: ValueId, fmt: ValueId) {
    let rec = cx.b.emit(Ty::I64, Op::LoadVar(rec));
    store(cx, rec, len);
    let at = offset(cx, rec, 4);
    store(cx, at, nbytes);
    let at = offset(cx, rec, 8);
    store(cx, at, fmt);
}

/// Copies `words` 32-bit words from the generic address in `src` to the record in `rec`.
fn copy_words(cx: &mut Cx<'_>, src: VarId, rec: VarId, words: u32) {
    for k in 0..u64::from(words) {
        let a = cx.b.emit(Ty::I64, Op::LoadVar(src));
        let a = offset(cx, a, 4 * k);
        // Generic: the buffer is usually in the caller's local frame.
        let w = cx.load(Where::Generic(a), Ty::I32, Default::default());
        let r = cx.b.emit(Ty::I64, Op::LoadVar(rec));
        let at = offset(cx, r, abi::FIFO_RECORD_HEADER + 4 * k);
        store(cx, at, w);
    }
}

/// `malloc(size)`: a block from its size class's free list, else granules from the heap's
/// cursor; NULL when they do not fit (the cursor is put back then, so that failed requests do
/// not use the heap up). Without 64-bit atomics, only the cursor.
fn malloc(cx: &mut Cx<'_>, c: &Call) {
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
fn free(cx: &mut Cx<'_>, c: &Call) {
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

/// The bytes (up to the NUL) of the module constant a `.b64` argument points at, when the
/// argument's value is a variable's address plus a constant.
fn constant_string(cx: &mut Cx<'_>, a: &CallArg) -> Option<Vec<u8>> {
    let v = match a {
        CallArg::Param(p) => {
            let w0 = *super::memory::param_words(cx, *p).first()?;
            Trace::new(&cx.b.f).var(w0, 0)?
        }
        CallArg::Value(src, ty) => {
            let v = cx.read(src, *ty);
            Trace::new(&cx.b.f).value(v, 0)?
        }
    };
    let Sym::Globals(off) = v else { return None };
    let (g, start) = cx
        .layout
        .globals
        .iter()
        .map(|(g, o)| (*g, *o))
        .filter(|(g, o)| *o <= off && off < o + cx.module.global(*g).size())
        .min_by_key(|(g, _)| g.0)?;
    let bytes = super::layout::initial_bytes(cx.module, g)?;
    let from = usize::try_from(off - start).ok()?;
    let tail = bytes.get(from..)?;
    let n = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    Some(tail[..n].to_vec())
}

/// A value followed back to its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    /// The globals buffer's address plus a constant.
    Globals(u64),
    Const(u64),
}

/// Follows values back through variables (each stored once in the function), widenings,
/// narrowings and constant additions. A format string's address is a `mov` of the variable, a
/// `cvta.global` and a `st.param`, often in a block before a loop.
struct Trace<'f> {
    f: &'f ir::Function,
}

impl<'f> Trace<'f> {
    fn new(f: &'f ir::Function) -> Self {
        Trace { f }
    }

    fn def(&self, v: ValueId) -> Option<&'f Op> {
        self.f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .find(|i| i.result == Some(v))
            .map(|i| &i.op)
    }

    /// The value stored into `var`, when exactly one instruction writes it.
    fn var(&self, var: VarId, depth: u32) -> Option<Sym> {
        let mut stored = None;
        for i in self.f.blocks.iter().flat_map(|b| b.insts.iter()) {
            let writes = match i.op {
                Op::StoreVar(w, x) if w == var => Some(x),
                ref op if op.result_vars(&self.f.side).contains(&var) => return None,
                _ => None,
            };
            if let Some(x) = writes {
                if stored.is_some() {
                    return None;
                }
                stored = Some(x);
            }
        }
        self.value(stored?, depth + 1)
    }

    fn value(&self, v: ValueId, depth: u32) -> Option<Sym> {
        if depth > 32 {
            return None;
        }
        match *self.def(v)? {
            Op::Const(k) => Some(Sym::Const(k)),
            Op::Builtin(Builtin::GlobalsBase) => Some(Sym::Globals(0)),
            Op::LoadVar(var) => self.var(var, depth),
            Op::Conv(ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc | ConvOp::Bitcast, x) => {
                self.value(x, depth + 1)
            }
            Op::Bin(BinOp::IAdd, a, b, _) => {
                match (self.value(a, depth + 1)?, self.value(b, depth + 1)?) {
                    (Sym::Globals(x), Sym::Const(y)) | (Sym::Const(y), Sym::Globals(x)) => {
                        Some(Sym::Globals(x.wrapping_add(y)))
                    }
                    (Sym::Const(x), Sym::Const(y)) => Some(Sym::Const(x.wrapping_add(y))),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
