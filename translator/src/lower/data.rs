//! The meaning of data movement (ISA 8.7.6): `mov`, `ld`, `ldu`, `st`, `cvta`, `isspacep`.
//! Conversions are in `convert.rs`.

use super::cx::Cx;
use crate::check::inst::{Cvta, Isspacep, Ld, MemSem, Mov, Scope as PtxScope, St};
use crate::check::{Dst, Src, VarRef};
use crate::ir::build::Build;
use crate::ir::{BinOp, Builtin, ConvOp, MemOrder, Op, Ordering, Scope, Ty, ValueId};
use crate::types::{ScalarType, StateSpace};

/// The address of a variable (plus `off`) in its own space, as a 64-bit value.
pub(super) fn address_of(cx: &mut Cx<'_>, var: VarRef, off: i64) -> ValueId {
    let base = match cx.var_address(var) {
        Some(b) => b,
        None => cx.b.konst(Ty::I64, 0),
    };
    if off == 0 {
        return base;
    }
    let o = cx.b.konst(Ty::I64, off as u64);
    cx.b.bin(BinOp::IAdd, base, o)
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
                cx.write(d, v);
            }
        }
        (Dst::Vector(ds), src) => {
            let n = ds.len() as u32;
            let ebits = m.ty.bits() / n;
            let whole = cx.read(src, m.ty);
            let whole = cx.b.as_int(whole);
            for (k, d) in ds.iter().enumerate() {
                let sh = cx.b.konst(cx.b.f.ty(whole), u64::from(ebits) * k as u64);
                let part = cx.b.bin(BinOp::LShr, whole, sh);
                let part = cx.b.conv(ConvOp::Trunc, part, Ty::int(ebits));
                cx.write(d, part);
            }
        }
        (dst, Src::Vector(ss)) => {
            let n = ss.len() as u32;
            let ebits = m.ty.bits() / n;
            let ety = ScalarType::bits_of(ebits).unwrap_or(ScalarType::B32);
            let wide = Ty::int(m.ty.bits());
            let mut acc = cx.b.konst(wide, 0);
            for (k, s) in ss.iter().enumerate() {
                let v = cx.read(s, ety);
                let v = cx.b.as_int(v);
                let v = cx.b.conv(ConvOp::ZExt, v, wide);
                let sh = cx.b.konst(wide, u64::from(ebits) * k as u64);
                let v = cx.b.bin(BinOp::Shl, v, sh);
                // The elements' bits are disjoint, so `+` is `|`; NVIDIA's Vulkan driver
                // miscompiles `(a << 8) | (a >> 8)` on 16 bits (docs/nvidia.md), which
                // repacking a value's own bytes produces.
                acc = cx.b.bin(BinOp::IAdd, acc, v);
            }
            cx.write(dst, acc);
        }
        (dst, src) => {
            let v = cx.read(src, m.ty);
            cx.write(dst, v);
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
            cx.write(&ds[0], lo);
            cx.write(&ds[1], hi);
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

fn dst_elems(d: &Dst) -> smallvec::SmallVec<[&Dst; 4]> {
    match d {
        Dst::Vector(v) => v.iter().collect(),
        d => smallvec::smallvec![d],
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
        cx.write(d, v);
    }
    if atomic.is_none()
        && let Some((scope, Ordering::Acquire)) = strong
    {
        cx.b.emit_void(Op::Fence(scope));
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
    let elems: smallvec::SmallVec<[&Src; 4]> = match &s.src {
        Src::Vector(v) => v.iter().collect(),
        other => smallvec::smallvec![other],
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
    let vals: smallvec::SmallVec<[ValueId; 4]> = elems.iter().map(|e| cx.read(e, s.ty)).collect();
    if atomic.is_none()
        && let Some((scope, Ordering::Release)) = strong
    {
        cx.b.emit_void(Op::Fence(scope));
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
        cx.b.conv(ConvOp::Trunc, r, Ty::I32)
    } else {
        r
    };
    cx.write(&c.dst, r);
}

/// `isspacep`: whether a generic address is in a space's window. Global, constant and
/// kernel-parameter addresses are all device addresses here: `.const` is the range of the
/// module's constant variables, `.param` the kernel's parameter block, and `.global` everything
/// outside the shared, local and constant windows (the parameter window lies inside the global
/// one, as the ISA says).
pub fn isspacep(cx: &mut Cx<'_>, i: &Isspacep) {
    let a = cx.read(&i.src, i.size);
    let a = cx.b.conv(ConvOp::ZExt, a, Ty::I64);
    let r = match i.space {
        StateSpace::Shared | StateSpace::Local => cx.in_window(i.space, a),
        StateSpace::Const => in_const(cx, a),
        StateSpace::Param => in_params(cx, a),
        _ => {
            let not_sl = cx.in_window(StateSpace::Global, a);
            let c = in_const(cx, a);
            let not_c = cx.b.un(crate::ir::UnOp::Not, c);
            cx.b.bin(BinOp::And, not_sl, not_c)
        }
    };
    cx.write(&i.dst, r);
}

/// Whether a device address (u64) is inside one of the module's `.const` variables.
fn in_const(cx: &mut Cx<'_>, a: ValueId) -> ValueId {
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for (i, g) in cx.module.globals.iter().enumerate() {
        let id = crate::check::GlobalId(i as u32);
        if g.space == StateSpace::Const
            && let Some(&off) = cx.layout.globals.get(&id)
        {
            ranges.push((off, g.size()));
        }
    }
    let mut r = cx.b.konst(Ty::Bool, 0);
    if ranges.is_empty() {
        return r;
    }
    let base = cx.b.emit(Ty::I64, Op::Builtin(Builtin::GlobalsBase));
    let rel = cx.b.bin(BinOp::ISub, a, base);
    for (off, size) in ranges {
        // `off <= rel < off + size` as one unsigned comparison.
        let o = cx.b.konst(Ty::I64, off);
        let d = cx.b.bin(BinOp::ISub, rel, o);
        let s = cx.b.konst(Ty::I64, size);
        let inside = cx.b.bin(BinOp::ULt, d, s);
        r = cx.b.bin(BinOp::Or, r, inside);
    }
    r
}

/// Whether a device address (u64) is inside the kernel's parameter block.
fn in_params(cx: &mut Cx<'_>, a: ValueId) -> ValueId {
    let kernel = cx
        .ids
        .iter()
        .find(|(_, ir)| ir.0 == 0)
        .map(|(f, _)| *f)
        .unwrap_or(cx.func_id);
    let size = super::layout::kernel_abi(cx.module.function(kernel)).param_block_size;
    let base = cx.b.emit(Ty::I64, Op::Builtin(Builtin::ParamBase));
    let rel = cx.b.bin(BinOp::ISub, a, base);
    let s = cx.b.konst(Ty::I64, u64::from(size));
    cx.b.bin(BinOp::ULt, rel, s)
}
