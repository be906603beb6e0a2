//! The meaning of data movement and conversion (ISA 8.7.6): `mov`, `ld`, `st`, `cvta`, `cvt`.

use super::Cx;
use crate::check::inst::{Cvt, Cvta, Isspacep, Ld, MemSem, Mov, Rounding, Scope as PtxScope, St};
use crate::check::{Dst, Src, VarRef};
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, MemOrder, Op, Ordering, Scope, Ty, UnOp, ValueId};
use crate::types::{ScalarType, StateSpace};

/// The address of a variable (plus `off`) in its own space, as a 64-bit value.
pub(super) fn address_of(cx: &mut Cx<'_>, var: VarRef, off: i64) -> ValueId {
    let base = match cx.var_address(var) {
        Some(b) => b,
        None => cx.konst(Ty::I64, 0),
    };
    if off == 0 {
        return base;
    }
    let o = cx.konst(Ty::I64, off as u64);
    cx.bin(BinOp::IAdd, base, o)
}

/// Splits `mov.bN d, {a, b}` / `mov.bN {a, b}, s` into element moves, low element first.
pub fn mov(cx: &mut Cx<'_>, m: &Mov) {
    if m.ty == ScalarType::B128 {
        mov_b128(cx, m);
        return;
    }
    match (&m.dst, &m.src) {
        (Dst::Vector(ds), Src::Vector(ss)) if ds.len() == ss.len() => {
            let vals: Vec<ValueId> = ss.iter().map(|s| cx.read(s, m.ty)).collect();
            for (d, v) in ds.iter().zip(vals) {
                cx.write(d, m.ty, v);
            }
        }
        (Dst::Vector(ds), src) => {
            let n = ds.len() as u32;
            let ebits = m.ty.bits() / n;
            let ety = ScalarType::bits_of(ebits).unwrap_or(ScalarType::B32);
            let whole = cx.read(src, m.ty);
            let whole = cx.as_int(whole);
            for (k, d) in ds.iter().enumerate() {
                let sh = cx.konst(cx.f.ty(whole), u64::from(ebits) * k as u64);
                let part = cx.bin(BinOp::LShr, whole, sh);
                let part = cx.conv(ConvOp::Trunc, part, Ty::int(ebits));
                cx.write(d, ety, part);
            }
        }
        (dst, Src::Vector(ss)) => {
            let n = ss.len() as u32;
            let ebits = m.ty.bits() / n;
            let ety = ScalarType::bits_of(ebits).unwrap_or(ScalarType::B32);
            let wide = Ty::int(m.ty.bits());
            let mut acc = cx.konst(wide, 0);
            for (k, s) in ss.iter().enumerate() {
                let v = cx.read(s, ety);
                let v = cx.as_int(v);
                let v = cx.conv(ConvOp::ZExt, v, wide);
                let sh = cx.konst(wide, u64::from(ebits) * k as u64);
                let v = cx.bin(BinOp::Shl, v, sh);
                acc = cx.bin(BinOp::Or, acc, v);
            }
            cx.write(dst, m.ty, acc);
        }
        (dst, src) => {
            let v = cx.read(src, m.ty);
            cx.write(dst, m.ty, v);
        }
    }
}

/// `mov.b128`: a copy, or packing/unpacking two `.b64` halves (low first).
fn mov_b128(cx: &mut Cx<'_>, m: &Mov) {
    let (lo, hi) = match &m.src {
        Src::Vector(ss) if ss.len() == 2 => {
            let lo = cx.read(&ss[0], ScalarType::B64);
            let hi = cx.read(&ss[1], ScalarType::B64);
            (lo, hi)
        }
        Src::Vector(_) => {
            cx.unsupported("`mov.b128` with other than two elements");
            return;
        }
        s => cx.read_b128(s),
    };
    match &m.dst {
        Dst::Vector(ds) if ds.len() == 2 => {
            cx.write(&ds[0], ScalarType::B64, lo);
            cx.write(&ds[1], ScalarType::B64, hi);
        }
        Dst::Vector(_) => cx.unsupported("`mov.b128` with other than two elements"),
        d => cx.write_b128(d, lo, hi),
    }
}

fn order(sem: MemSem) -> MemOrder {
    match sem {
        MemSem::Weak => MemOrder::Plain,
        _ => MemOrder::Volatile,
    }
}

fn check_storage(cx: &mut Cx<'_>, ty: ScalarType) -> bool {
    match ty.bits() {
        8 if !cx.profile.storage8 => {
            cx.missing_feature("8-bit storage access (storageBuffer8BitAccess)");
            false
        }
        16 if !cx.profile.storage16 => {
            cx.missing_feature("16-bit storage access (storageBuffer16BitAccess)");
            false
        }
        _ => true,
    }
}

/// Shared and local memory are word arrays: any width works without storage features.
fn arena_space(space: StateSpace) -> bool {
    matches!(space, StateSpace::Shared | StateSpace::Local)
}

fn dst_elems(d: &Dst) -> Vec<&Dst> {
    match d {
        Dst::Vector(v) => v.iter().collect(),
        d => vec![d],
    }
}

/// The scope and ordering of a strong memory operation (`.volatile` is relaxed at system scope,
/// as the memory model chapter of the ISA has it); `None` for weak ones.
fn strong(sem: MemSem) -> Option<(Scope, Ordering)> {
    let scope = |s: PtxScope| match s {
        PtxScope::Cta => Scope::Workgroup,
        _ => Scope::Device,
    };
    match sem {
        MemSem::Weak => None,
        MemSem::Volatile => Some((Scope::Device, Ordering::Relaxed)),
        MemSem::Relaxed(s) => Some((scope(s), Ordering::Relaxed)),
        MemSem::Acquire(s) => Some((scope(s), Ordering::Acquire)),
        MemSem::Release(s) => Some((scope(s), Ordering::Release)),
    }
}

pub fn ld(cx: &mut Cx<'_>, l: &Ld) {
    if !arena_space(l.space) && !check_storage(cx, l.ty) {
        return;
    }
    let Some(base) = cx.resolve(l.space, &l.addr) else {
        return;
    };
    let size = l.ty.bytes();
    let ty = Ty::of(l.ty);
    let strong = strong(l.sem);
    let elems = dst_elems(&l.dst);
    // One 32- or 64-bit value is a single atomic access; anything else is ordered by a fence.
    let atomic = strong.filter(|_| elems.len() == 1 && (size == 4 || size == 8));
    for (k, d) in elems.into_iter().enumerate() {
        let at = cx.offset_where(base, size * k as u32);
        if l.ty == ScalarType::B128 {
            // Two 64-bit accesses, low half at the lower address (little-endian).
            let lo = cx.load(at, Ty::I64, order(l.sem));
            let at_hi = cx.offset_where(at, 8);
            let hi = cx.load(at_hi, Ty::I64, order(l.sem));
            cx.write_b128(d, lo, hi);
            continue;
        }
        let v = match atomic {
            Some((scope, ord)) => cx.atomic_load(at, ty, scope, ord),
            None => cx.load(at, ty, order(l.sem)),
        };
        cx.write(d, l.ty, v);
    }
    if atomic.is_none()
        && let Some((scope, Ordering::Acquire)) = strong
    {
        cx.emit_void(Op::Fence(scope));
    }
}

pub fn st(cx: &mut Cx<'_>, s: &St) {
    if !arena_space(s.space) && !check_storage(cx, s.ty) {
        return;
    }
    let Some(base) = cx.resolve(s.space, &s.addr) else {
        return;
    };
    let size = s.ty.bytes();
    let elems: Vec<&Src> = match &s.src {
        Src::Vector(v) => v.iter().collect(),
        other => vec![other],
    };
    let strong = strong(s.sem);
    let atomic = strong.filter(|_| elems.len() == 1 && (size == 4 || size == 8));
    // Read every element first: one instruction reads its registers before it stores anything.
    if s.ty == ScalarType::B128 {
        let halves: Vec<(ValueId, ValueId)> = elems.iter().map(|e| cx.read_b128(e)).collect();
        for (k, (lo, hi)) in halves.into_iter().enumerate() {
            let at = cx.offset_where(base, size * k as u32);
            cx.store(at, lo, order(s.sem));
            let at_hi = cx.offset_where(at, 8);
            cx.store(at_hi, hi, order(s.sem));
        }
        return;
    }
    let vals: Vec<ValueId> = elems.iter().map(|e| cx.read(e, s.ty)).collect();
    if atomic.is_none()
        && let Some((scope, Ordering::Release)) = strong
    {
        cx.emit_void(Op::Fence(scope));
    }
    for (k, v) in vals.into_iter().enumerate() {
        let at = cx.offset_where(base, size * k as u32);
        match atomic {
            Some((scope, ord)) => cx.atomic_store(at, v, scope, ord),
            None => cx.store(at, v, order(s.sem)),
        }
    }
}

/// `cvta`: between generic addresses and shared/local offsets; the identity for global, const
/// and param addresses, which are device addresses either way.
pub fn cvta(cx: &mut Cx<'_>, c: &Cvta) {
    let v = cx.read(&c.src, c.size);
    let r = if c.to_generic {
        cx.generic_of(c.space, v)
    } else {
        cx.specific_of(c.space, v)
    };
    let r = if c.size.bits() < 64 {
        cx.conv(ConvOp::Trunc, r, Ty::I32)
    } else {
        r
    };
    cx.write(&c.dst, c.size, r);
}

/// `isspacep`: whether a generic address is in a space's window.
pub fn isspacep(cx: &mut Cx<'_>, i: &Isspacep) {
    let a = cx.read(&i.src, ScalarType::U64);
    let r = match i.space {
        StateSpace::Shared | StateSpace::Local | StateSpace::Global => cx.in_window(i.space, a),
        other => {
            cx.unsupported(format!("`isspacep{other}`"));
            return;
        }
    };
    cx.write(&i.dst, ScalarType::Pred, r);
}

/// The range of a PTX integer type.
fn int_range(ty: ScalarType) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn float_const(cx: &mut Cx<'_>, ty: Ty, v: f64) -> ValueId {
    let bits = match ty {
        Ty::F64 => v.to_bits(),
        Ty::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        _ => u64::from((v as f32).to_bits()),
    };
    cx.konst(ty, bits)
}

fn round_to_int(cx: &mut Cx<'_>, r: Rounding, v: ValueId) -> ValueId {
    #[cfg(feature = "fault-injection")]
    let r = match r {
        _ if !crate::fault::active(crate::fault::Fault::SwapIntegerRounding) => r,
        Rounding::Rni | Rounding::Rn => Rounding::Rzi,
        Rounding::Rzi | Rounding::Rz => Rounding::Rni,
        other => other,
    };
    let op = match r {
        Rounding::Rni | Rounding::Rn => ExtOp::RoundEven,
        Rounding::Rzi | Rounding::Rz => ExtOp::Trunc,
        Rounding::Rmi | Rounding::Rm => ExtOp::Floor,
        Rounding::Rpi | Rounding::Rp => ExtOp::Ceil,
    };
    cx.ext(op, vec![v], FpFlags::default())
}

/// `cvt` (ISA 8.7.6.13).
pub fn cvt(cx: &mut Cx<'_>, c: &Cvt) {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let mut v = cx.read(&c.src, st);
    if c.ftz && st == ScalarType::F32 {
        v = super::arith::flush(cx, v);
    }
    let r = match (st.is_float(), dt.is_float()) {
        (false, false) => int_to_int(cx, c, v),
        (true, false) => {
            // Round, then clamp to the destination range; NaN gives 0 (ISA 8.7.6.13).
            let Some(rnd) = c.rnd else { return };
            let rounded = round_to_int(cx, rnd, v);
            let fty = cx.f.ty(rounded);
            let (lo, hi) = int_range(dt);
            // Both bounds are powers of two (or zero), so exact in every float type.
            let lo_c = float_const(cx, fty, lo as f64);
            let past_c = float_const(cx, fty, (hi + 1) as f64);
            let below = cx.bin(BinOp::FOrdLt, rounded, lo_c);
            let above = cx.bin(BinOp::FOrdGe, rounded, past_c);
            let out = cx.bin(BinOp::Or, below, above);
            let safe = cx.select(out, lo_c, rounded);
            let dty = Ty::of(dt);
            let op = if dt.is_signed() {
                ConvOp::FToS
            } else {
                ConvOp::FToU
            };
            let conv = cx.conv(op, safe, dty);
            let max = cx.konst(dty, hi as u64);
            let conv = cx.select(above, max, conv);
            let nan = cx.un(UnOp::IsNan, v);
            let zero = cx.konst(dty, 0);
            cx.select(nan, zero, conv)
        }
        (false, true) => {
            match c.rnd {
                Some(Rounding::Rn) => {}
                Some(r) => {
                    cx.unsupported(format!(
                        "`cvt` with rounding .{}",
                        format!("{r:?}").to_lowercase()
                    ));
                    return;
                }
                None => return,
            }
            let op = if st.is_signed() {
                ConvOp::SToF
            } else {
                ConvOp::UToF
            };
            cx.conv(op, v, Ty::of(dt))
        }
        (true, true) => {
            let mut r = if dt.bits() == st.bits() {
                match c.rnd {
                    Some(rnd) => round_to_int(cx, rnd, v),
                    None => v,
                }
            } else {
                if c.rnd.is_some_and(|r| r != Rounding::Rn) {
                    cx.unsupported("directed rounding in a float `cvt`");
                    return;
                }
                cx.conv(ConvOp::FConvert, v, Ty::of(dt))
            };
            if c.ftz && dt == ScalarType::F32 {
                r = super::arith::flush(cx, r);
            }
            if c.sat {
                r = super::arith::saturate(cx, r);
            }
            r
        }
    };
    cx.write(&c.dst, dt, r);
}

/// Integer-to-integer `cvt`: extend or truncate; `.sat` clamps to the destination's range.
fn int_to_int(cx: &mut Cx<'_>, c: &Cvt, v: ValueId) -> ValueId {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let dty = Ty::of(dt);
    if c.sat {
        // Compare in 64 bits, in the source's signedness.
        let wide = cx.conv(
            if st.is_signed() {
                ConvOp::SExt
            } else {
                ConvOp::ZExt
            },
            v,
            Ty::I64,
        );
        let (lo, hi) = int_range(dt);
        let mut x = wide;
        if st.is_signed() {
            let lo_c = cx.konst(Ty::I64, lo.max(i128::from(i64::MIN)) as i64 as u64);
            let below = cx.bin(BinOp::SLt, x, lo_c);
            x = cx.select(below, lo_c, x);
            let hi_c = cx.konst(Ty::I64, hi.min(i128::from(i64::MAX)) as u64);
            let above = cx.bin(BinOp::SGt, x, hi_c);
            x = cx.select(above, hi_c, x);
        } else {
            let hi_c = cx.konst(Ty::I64, hi.min(i128::from(u64::MAX)) as u64);
            let above = cx.bin(BinOp::UGt, x, hi_c);
            x = cx.select(above, hi_c, x);
        }
        return cx.conv(ConvOp::Trunc, x, dty);
    }
    let sb = cx.f.ty(v).bits();
    if dty.bits() > sb {
        cx.conv(
            if st.is_signed() {
                ConvOp::SExt
            } else {
                ConvOp::ZExt
            },
            v,
            dty,
        )
    } else {
        cx.conv(ConvOp::Trunc, v, dty)
    }
}
