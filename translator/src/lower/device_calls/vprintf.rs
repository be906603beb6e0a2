//! `vprintf`: a record of the format string's address and the argument bytes, appended to
//! the context's printf FIFO.

use super::access::{arg64, atomic_add, load, offset, service, set_result, store};
use super::trace::constant_string;
use crate::abi;
use crate::check::inst::{Call, CallArg};
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{self, BinOp, ConvOp, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::printf;
use crate::types::StateSpace;

/// `vprintf(fmt, args)`: the format string must be a constant of the module, found by
/// following the argument back to a variable's address; it says how many argument bytes to
/// copy. Returns the number of arguments, as CUDA's `printf` does.
pub(super) fn vprintf(cx: &mut Cx<'_>, c: &Call) {
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
