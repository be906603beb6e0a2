//! The meaning of `atom` and `red`: native Vulkan atomics where the device has them, otherwise a
//! compare-and-swap loop on the containing 32- or 64-bit word (f64 add on lavapipe, f16/bf16 adds,
//! `inc`/`dec`, float adds without VK_EXT_shader_atomic_float).

use super::cx::Cx;
use super::memory::Where;
use crate::check::inst::{Atom, AtomOp, AtomSem, Scope as PtxScope};
use crate::ir::build::Build;
use crate::ir::{AtomicOp, BinOp, ConvOp, FpFlags, Op, Ordering, Ptr, Scope, Ty, ValueId, VarId};
use crate::types::ScalarType::{self, *};

fn scope(s: PtxScope) -> Scope {
    match s {
        PtxScope::Cta => Scope::Workgroup,
        _ => Scope::Device,
    }
}

fn ordering(s: AtomSem) -> Ordering {
    match s {
        AtomSem::Relaxed => Ordering::Relaxed,
        AtomSem::Acquire => Ordering::Acquire,
        AtomSem::Release => Ordering::Release,
        AtomSem::AcqRel => Ordering::AcqRel,
    }
}

pub fn atom(cx: &mut Cx<'_>, a: &Atom) {
    let Some(at) = cx.resolve(a.space, &a.addr) else {
        return;
    };
    let b = cx.read(&a.b, a.ty);
    let c = a.c.as_ref().map(|c| cx.read(c, a.ty));
    let result = match at {
        Where::Generic(g) => {
            let ty = Ty::of(a.ty);
            let var = cx.b.f.new_var(ty, "atom.old");
            // The operands travel to the dispatch blocks in vars (values are block-local).
            let bv = cx.b.f.new_var(cx.b.f.ty(b), "atom.b");
            cx.b.emit_void(Op::StoreVar(bv, b));
            let cv = c.map(|c| {
                let v = cx.b.f.new_var(cx.b.f.ty(c), "atom.c");
                cx.b.emit_void(Op::StoreVar(v, c));
                v
            });
            cx.generic_dispatch(g, |cx, w| {
                let b = load(cx, bv);
                let c = cv.map(|v| load(cx, v));
                let r = at_place(cx, a, w, b, c);
                cx.b.emit_void(Op::StoreVar(var, r));
            });
            cx.b.emit(ty, Op::LoadVar(var))
        }
        w => at_place(cx, a, w, b, c),
    };
    if let Some(d) = &a.dst {
        cx.write(d, result);
    }
}

/// A relaxed `red.global.gpu` of `b` (a value of `ty`) into `w`: the element-wise step of
/// `cp.reduce.async.bulk.tensor`, whose operands come from memory rather than registers.
pub(crate) fn reduce_at(cx: &mut Cx<'_>, op: AtomOp, ty: ScalarType, w: Where, b: ValueId) {
    let a = Atom {
        op,
        ty,
        space: crate::types::StateSpace::Global,
        sem: AtomSem::Relaxed,
        scope: PtxScope::Gpu,
        dst: None,
        addr: crate::check::Address {
            base: crate::check::AddrBase::Absolute,
            offset: 0,
        },
        b: crate::check::Src::Imm(0),
        c: None,
    };
    at_place(cx, &a, w, b, None);
}

fn load(cx: &mut Cx<'_>, v: VarId) -> ValueId {
    let ty = cx.b.f.vars[v.0 as usize].ty;
    cx.b.emit(ty, Op::LoadVar(v))
}

/// The native operation for (op, type), if Vulkan has one.
fn native(op: AtomOp, ty: ScalarType) -> Option<AtomicOp> {
    Some(match (op, ty) {
        (AtomOp::Add, U32 | S32 | U64) => AtomicOp::Add,
        (AtomOp::And, _) => AtomicOp::And,
        (AtomOp::Or, _) => AtomicOp::Or,
        (AtomOp::Xor, _) => AtomicOp::Xor,
        (AtomOp::Exch, _) => AtomicOp::Exchange,
        (AtomOp::Min, U32 | U64) => AtomicOp::UMin,
        (AtomOp::Max, U32 | U64) => AtomicOp::UMax,
        (AtomOp::Min, S32 | S64) => AtomicOp::SMin,
        (AtomOp::Max, S32 | S64) => AtomicOp::SMax,
        _ => return None,
    })
}

/// The atomic on a resolved (non-generic) address; returns the old value as `Ty::of(a.ty)`.
fn at_place(cx: &mut Cx<'_>, a: &Atom, w: Where, b: ValueId, c: Option<ValueId>) -> ValueId {
    let ty = Ty::of(a.ty);
    let bits = a.ty.bits();
    let sc = scope(a.scope);
    let sem = ordering(a.sem);
    if let Where::Local(off) = w {
        // Local memory belongs to one thread: a plain read-modify-write is atomic.
        let old = cx.load(w, ty, Default::default());
        let new = combine(cx, a.op, a.ty, old, b, c);
        cx.store(Where::Local(off), new, Default::default());
        return old;
    }
    let w = cx.checked(w, bits.div_ceil(8), "atomic");
    if bits == 64 {
        if let Where::Shared(off) = w {
            return locked(cx, a, off, b, c);
        }
        if !cx.profile.int64_atomics {
            cx.missing_feature("64-bit atomics (shaderBufferInt64Atomics)");
            return cx.b.konst(ty, 0);
        }
    }
    // The word the atomic works on: the value itself for 32/64 bits, the containing 32-bit word
    // for 16-bit types.
    let word_ty = if bits == 64 { Ty::I64 } else { Ty::I32 };
    let (addr_var, shift) = word_address(cx, w, bits);
    let ptr_at = move |cx: &mut Cx<'_>| -> Ptr {
        let a = load(cx, addr_var);
        match w {
            Where::Shared(_) => Ptr::Shared(a),
            _ => Ptr::Global(a),
        }
    };
    if bits >= 32
        && let Some(op) = native(a.op, a.ty)
    {
        let v = cx.b.reinterpret(b, word_ty);
        let ptr = ptr_at(cx);
        let r = cx.b.emit(
            word_ty,
            Op::Atomic {
                op,
                ptr,
                value: v,
                scope: sc,
                sem,
            },
        );
        return cx.b.reinterpret(r, ty);
    }
    if a.op == AtomOp::Add
        && a.ty == F32
        && cx.profile.float32_atomic_add
        && matches!(w, Where::Global(_))
    {
        let ptr = ptr_at(cx);
        return cx.b.emit(
            Ty::F32,
            Op::Atomic {
                op: AtomicOp::FAdd,
                ptr,
                value: b,
                scope: sc,
                sem,
            },
        );
    }
    if a.op == AtomOp::Cas && bits >= 32 {
        let cmp = cx.b.reinterpret(b, word_ty);
        let new = cx.b.reinterpret(c.unwrap_or(b), word_ty);
        let ptr = ptr_at(cx);
        let r = cx.b.emit(
            word_ty,
            Op::AtomicCas {
                ptr,
                compare: cmp,
                value: new,
                scope: sc,
                sem,
            },
        );
        return cx.b.reinterpret(r, ty);
    }
    // Everything else: a compare-and-swap loop on the word.
    let b_var = cx.b.f.new_var(cx.b.f.ty(b), "atom.b");
    cx.b.emit_void(Op::StoreVar(b_var, b));
    let c_var = c.map(|c| {
        let v = cx.b.f.new_var(cx.b.f.ty(c), "atom.c");
        cx.b.emit_void(Op::StoreVar(v, c));
        v
    });
    let shift_var = shift.map(|s| {
        let v = cx.b.f.new_var(Ty::I32, "atom.shift");
        cx.b.emit_void(Op::StoreVar(v, s));
        v
    });
    let (op, pty) = (a.op, a.ty);
    let old_word = cas_loop(cx, word_ty, sc, sem, &ptr_at, |cx, word| {
        let b = load(cx, b_var);
        let c = c_var.map(|v| load(cx, v));
        match shift_var {
            None => {
                let old = cx.b.reinterpret(word, ty);
                let new = combine(cx, op, pty, old, b, c);
                cx.b.reinterpret(new, word_ty)
            }
            Some(sv) => {
                // A 16-bit value inside its word.
                let s = load(cx, sv);
                let part = cx.b.bin(BinOp::LShr, word, s);
                let part = cx.b.conv(ConvOp::Trunc, part, Ty::I16);
                let old = cx.b.reinterpret(part, ty);
                let new = combine(cx, op, pty, old, b, c);
                let new = cx.b.as_int(new);
                let new = cx.b.conv(ConvOp::ZExt, new, Ty::I32);
                let new = cx.b.bin(BinOp::Shl, new, s);
                let ones = cx.b.konst(Ty::I32, 0xFFFF);
                let m = cx.b.bin(BinOp::Shl, ones, s);
                let keep = cx.b.un(crate::ir::UnOp::Not, m);
                let rest = cx.b.bin(BinOp::And, word, keep);
                cx.b.bin(BinOp::Or, rest, new)
            }
        }
    });
    match shift_var {
        None => cx.b.reinterpret(old_word, ty),
        Some(sv) => {
            let s = load(cx, sv);
            let part = cx.b.bin(BinOp::LShr, old_word, s);
            let part = cx.b.conv(ConvOp::Trunc, part, Ty::I16);
            cx.b.reinterpret(part, ty)
        }
    }
}

/// A 64-bit atomic on shared memory, which is an array of 32-bit words here: under the workgroup's
/// lock word (see [`under_lock`]).
fn locked(cx: &mut Cx<'_>, a: &Atom, off: ValueId, b: ValueId, c: Option<ValueId>) -> ValueId {
    let ty = Ty::of(a.ty);
    let keep = |cx: &mut Cx<'_>, v: ValueId, name: &'static str| {
        let var = cx.b.f.new_var(cx.b.f.ty(v), name);
        cx.b.emit_void(Op::StoreVar(var, v));
        var
    };
    let off_v = keep(cx, off, "atom.off");
    let b_v = keep(cx, b, "atom.b");
    let c_v = c.map(|c| keep(cx, c, "atom.c"));
    let result = cx.b.f.new_var(ty, "atom.old");
    under_lock(cx, |cx| {
        let off = load(cx, off_v);
        let old = cx.load(Where::Shared(off), ty, Default::default());
        let b = load(cx, b_v);
        let c = c_v.map(|v| load(cx, v));
        let new = combine(cx, a.op, a.ty, old, b, c);
        let off = load(cx, off_v);
        cx.store(Where::Shared(off), new, Default::default());
        cx.b.emit_void(Op::StoreVar(result, old));
    });
    cx.b.emit(ty, Op::LoadVar(result))
}

/// Runs `critical` (which must not branch; values before it reach it through variables) under
/// the workgroup's lock word. Each thread loops until it has taken the lock once, run
/// `critical` and released it; lanes that lose the race retry while the winner finishes in the
/// same iteration, so the loop makes progress on SIMD hardware too. The kernel clears the lock
/// on entry.
pub(super) fn under_lock(cx: &mut Cx<'_>, critical: impl FnOnce(&mut Cx<'_>)) {
    cx.uses_shared_lock = true;
    let done = cx.b.f.new_var(Ty::Bool, "lock.done");
    let f = cx.b.konst(Ty::Bool, 0);
    cx.b.emit_void(Op::StoreVar(done, f));
    // head: try to take the lock.
    let head = cx.b.jump_to_new_block();
    let (body, latch, exit) = (cx.b.f.new_block(), cx.b.f.new_block(), cx.b.f.new_block());
    let lock =
        cx.b.emit(Ty::I32, Op::Builtin(crate::ir::Builtin::SharedLock));
    let zero = cx.b.konst(Ty::I32, 0);
    let one = cx.b.konst(Ty::I32, 1);
    let prev = cx.b.emit(
        Ty::I32,
        Op::AtomicCas {
            ptr: Ptr::Shared(lock),
            compare: zero,
            value: one,
            scope: Scope::Workgroup,
            sem: Ordering::Acquire,
        },
    );
    let got = cx.b.bin(BinOp::IEq, prev, zero);
    cx.b.branch(got, body, latch);
    // body: the critical section, then release.
    cx.b.cur = body;
    critical(cx);
    let lock =
        cx.b.emit(Ty::I32, Op::Builtin(crate::ir::Builtin::SharedLock));
    let zero = cx.b.konst(Ty::I32, 0);
    cx.b.emit(
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Exchange,
            ptr: Ptr::Shared(lock),
            value: zero,
            scope: Scope::Workgroup,
            sem: Ordering::Release,
        },
    );
    let t = cx.b.konst(Ty::Bool, 1);
    cx.b.emit_void(Op::StoreVar(done, t));
    cx.b.jump(latch);
    // latch: retry until done.
    cx.b.cur = latch;
    let d = cx.b.emit(Ty::Bool, Op::LoadVar(done));
    cx.b.branch(d, exit, head);
    cx.b.cur = exit;
}

/// Stores the address of the word an atomic works on in a var (device address, or word index
/// into the shared arena) and, for 16-bit values, the bit shift of the value in the word.
fn word_address(cx: &mut Cx<'_>, w: Where, bits: u32) -> (VarId, Option<ValueId>) {
    let (val, shift) = match w {
        Where::Global(a) | Where::Generic(a) => {
            if bits == 16 {
                let mask = cx.b.konst(Ty::I64, !3u64);
                let aligned = cx.b.bin(BinOp::And, a, mask);
                let low = cx.b.conv(ConvOp::Trunc, a, Ty::I32);
                let three = cx.b.konst(Ty::I32, 3);
                let byte = cx.b.bin(BinOp::And, low, three);
                (aligned, Some(cx.b.bin(BinOp::Shl, byte, three)))
            } else {
                (a, None)
            }
        }
        Where::Shared(off) => {
            let two = cx.b.konst(Ty::I32, 2);
            let idx = cx.b.bin(BinOp::LShr, off, two);
            let shift = (bits == 16).then(|| {
                let three = cx.b.konst(Ty::I32, 3);
                let byte = cx.b.bin(BinOp::And, off, three);
                cx.b.bin(BinOp::Shl, byte, three)
            });
            (idx, shift)
        }
        _ => (cx.b.konst(Ty::I64, 0), None),
    };
    let v = cx.b.f.new_var(cx.b.f.ty(val), "atom.addr");
    cx.b.emit_void(Op::StoreVar(v, val));
    (v, shift)
}

/// `old -> new` for the operations done by a loop (and on local memory).
fn combine(
    cx: &mut Cx<'_>,
    op: AtomOp,
    ty: ScalarType,
    old: ValueId,
    b: ValueId,
    c: Option<ValueId>,
) -> ValueId {
    let t = cx.b.f.ty(old);
    match op {
        AtomOp::Add => add(cx, ty, old, b),
        AtomOp::And => cx.b.bin(BinOp::And, old, b),
        AtomOp::Or => cx.b.bin(BinOp::Or, old, b),
        AtomOp::Xor => cx.b.bin(BinOp::Xor, old, b),
        AtomOp::Exch => b,
        AtomOp::Cas => {
            let eq = cx.b.bin(BinOp::IEq, old, b);
            cx.b.select(eq, c.unwrap_or(b), old)
        }
        // inc: (old >= b) ? 0 : old + 1 ; dec: (old == 0 || old > b) ? b : old - 1 (unsigned).
        AtomOp::Inc => {
            let ge = cx.b.bin(BinOp::UGe, old, b);
            let one = cx.b.konst(t, 1);
            let up = cx.b.bin(BinOp::IAdd, old, one);
            let zero = cx.b.konst(t, 0);
            cx.b.select(ge, zero, up)
        }
        AtomOp::Dec => {
            let zero = cx.b.konst(t, 0);
            let is0 = cx.b.bin(BinOp::IEq, old, zero);
            let gt = cx.b.bin(BinOp::UGt, old, b);
            let wrap = cx.b.bin(BinOp::Or, is0, gt);
            let one = cx.b.konst(t, 1);
            let down = cx.b.bin(BinOp::ISub, old, one);
            cx.b.select(wrap, b, down)
        }
        AtomOp::Min | AtomOp::Max if matches!(ty, F16 | Bf16) => {
            // The reductions' half-precision min and max mean what `min.f16` does.
            let x = cx.b.as_int(old);
            let y = cx.b.as_int(b);
            let r = super::float::min_max_bits(cx, ty, op == AtomOp::Max, x, y);
            cx.b.reinterpret(r, t)
        }
        AtomOp::Min | AtomOp::Max => {
            let cmp = match (op, ty.is_signed()) {
                (AtomOp::Min, true) => BinOp::SLt,
                (AtomOp::Min, false) => BinOp::ULt,
                (_, true) => BinOp::SGt,
                (_, false) => BinOp::UGt,
            };
            let keep = cx.b.bin(cmp, old, b);
            cx.b.select(keep, old, b)
        }
    }
}

/// Addition in the atomic's type (floats rounded to nearest, as `atom.add` does).
fn add(cx: &mut Cx<'_>, ty: ScalarType, old: ValueId, b: ValueId) -> ValueId {
    let exact = FpFlags { exact: true };
    match ty {
        F32 | F64 | F16 => cx.b.bin_flags(BinOp::FAdd, old, b, exact),
        Bf16 => {
            let x = bf16_to_f32(cx, old);
            let y = bf16_to_f32(cx, b);
            let s = cx.b.bin_flags(BinOp::FAdd, x, y, exact);
            f32_to_bf16(cx, s)
        }
        F16x2 | Bf16x2 => {
            // Two halves added independently.
            let mut halves = Vec::new();
            for k in 0..2u64 {
                let sh = cx.b.konst(Ty::I32, 16 * k);
                let x = cx.b.bin(BinOp::LShr, old, sh);
                let y = cx.b.bin(BinOp::LShr, b, sh);
                let x = cx.b.conv(ConvOp::Trunc, x, Ty::I16);
                let y = cx.b.conv(ConvOp::Trunc, y, Ty::I16);
                let s = if ty == F16x2 {
                    let x = cx.b.reinterpret(x, Ty::F16);
                    let y = cx.b.reinterpret(y, Ty::F16);
                    let s = cx.b.bin_flags(BinOp::FAdd, x, y, exact);
                    cx.b.as_int(s)
                } else {
                    let x = bf16_to_f32(cx, x);
                    let y = bf16_to_f32(cx, y);
                    let s = cx.b.bin_flags(BinOp::FAdd, x, y, exact);
                    f32_to_bf16(cx, s)
                };
                let s = cx.b.conv(ConvOp::ZExt, s, Ty::I32);
                halves.push(cx.b.bin(BinOp::Shl, s, sh));
            }
            cx.b.bin(BinOp::Or, halves[0], halves[1])
        }
        _ => cx.b.bin(BinOp::IAdd, old, b),
    }
}

fn bf16_to_f32(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let i = cx.b.as_int(v);
    let w = cx.b.conv(ConvOp::ZExt, i, Ty::I32);
    let sh = cx.b.konst(Ty::I32, 16);
    let w = cx.b.bin(BinOp::Shl, w, sh);
    cx.b.reinterpret(w, Ty::F32)
}

/// f32 to bf16, rounding to nearest even (NaN stays NaN).
fn f32_to_bf16(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let w = cx.b.as_int(v);
    let sh = cx.b.konst(Ty::I32, 16);
    let one = cx.b.konst(Ty::I32, 1);
    let lsb = cx.b.bin(BinOp::LShr, w, sh);
    let lsb = cx.b.bin(BinOp::And, lsb, one);
    let bias = cx.b.konst(Ty::I32, 0x7FFF);
    let bias = cx.b.bin(BinOp::IAdd, bias, lsb);
    let r = cx.b.bin(BinOp::IAdd, w, bias);
    let r = cx.b.bin(BinOp::LShr, r, sh);
    let nan = cx.b.un(crate::ir::UnOp::IsNan, v);
    let quiet = cx.b.bin(BinOp::LShr, w, sh);
    let qbit = cx.b.konst(Ty::I32, 0x40);
    let quiet = cx.b.bin(BinOp::Or, quiet, qbit);
    let r = cx.b.select(nan, quiet, r);
    let r = cx.b.conv(ConvOp::Trunc, r, Ty::I16);
    cx.b.reinterpret(r, Ty::I16)
}

/// `loop { old = *p; new = f(old); if cas(p, old, new) == old { break } }`, returning the old
/// word. The pointer is rebuilt in each block from `ptr_at` (values are block-local).
fn cas_loop(
    cx: &mut Cx<'_>,
    word_ty: Ty,
    sc: Scope,
    sem: Ordering,
    ptr_at: &dyn Fn(&mut Cx<'_>) -> Ptr,
    f: impl FnOnce(&mut Cx<'_>, ValueId) -> ValueId,
) -> ValueId {
    let cur = cx.b.f.new_var(word_ty, "atom.cur");
    let ptr = ptr_at(cx);
    let first = cx.b.emit(
        word_ty,
        Op::AtomicLoad {
            ptr,
            scope: sc,
            sem: Ordering::Relaxed,
        },
    );
    cx.b.emit_void(Op::StoreVar(cur, first));
    let head = cx.b.jump_to_new_block();
    let exit = cx.b.f.new_block();
    let old = cx.b.emit(word_ty, Op::LoadVar(cur));
    let new = f(cx, old);
    let ptr = ptr_at(cx);
    let prev = cx.b.emit(
        word_ty,
        Op::AtomicCas {
            ptr,
            compare: old,
            value: new,
            scope: sc,
            sem,
        },
    );
    cx.b.emit_void(Op::StoreVar(cur, prev));
    let done = cx.b.bin(BinOp::IEq, prev, old);
    cx.b.branch(done, exit, head);
    cx.b.cur = exit;
    cx.b.emit(word_ty, Op::LoadVar(cur))
}
