//! What each instruction does to an invocation's values and the memory it shares.

use super::machine::Machine;
use super::model::{Event, STATUS_ADDRESS, Space, hash_str, mix};
use super::ops::{Stop, atomic, binary, convert, extended, mask, signed, unary};
use super::thread::{Effect, Frame, Own, Sync, get, gets};
use crate::ir::{Builtin, Function, MemOrder, Op, Ptr, Ty};

impl<'a> Machine<'a> {
    /// What `op` does (its result, or the control it hands to the caller).
    pub(super) fn inst(
        &mut self,
        own: &mut Own,
        fr: &mut Frame<'a>,
        op: &Op,
        ty: Option<Ty>,
    ) -> Result<Effect, Stop> {
        let f = fr.f;
        let r = match op {
            Op::Const(bits) => Some(*bits),
            Op::LoadVar(v) => Some(*fr.vars.get(v.0 as usize).ok_or_else(|| bad_var(v.0))?),
            Op::StoreVar(v, x) => {
                let x = get(fr, *x)?;
                self.store_var(own, fr, v.0, x)?;
                None
            }
            Op::Param(n) => Some(
                *fr.params
                    .get(*n as usize)
                    .ok_or_else(|| Stop::Undefined(format!("parameter {n} not passed")))?,
            ),
            Op::Un(u, a) => Some(unary(*u, get(fr, *a)?, f.ty(*a))?),
            Op::Bin(b, x, y, _) => Some(binary(*b, get(fr, *x)?, get(fr, *y)?, f.ty(*x))?),
            Op::Select(c, x, y) => Some(if get(fr, *c)? != 0 {
                get(fr, *x)?
            } else {
                get(fr, *y)?
            }),
            Op::Conv(c, a) => {
                let to = result_ty(f, op, ty)?;
                Some(convert(*c, get(fr, *a)?, f.ty(*a), to)?)
            }
            Op::Ext(e, args, _) => {
                let vals = gets(fr, args)?;
                Some(extended(*e, &vals, f.ty(args[0]))?)
            }
            Op::Builtin(b) => Some(self.builtin(own, *b)),
            Op::Load { ptr, order, .. } => {
                let ty = result_ty(f, op, ty)?;
                let (space, at) = address(fr, ptr)?;
                if *order == MemOrder::Volatile {
                    self.event(own, Event::VolatileLoad { at })?;
                }
                Some(self.read(own, space, at, ty)?)
            }
            Op::Store { ptr, value, .. } => {
                let (ty, x) = (f.ty(*value), get(fr, *value)?);
                let (space, at) = address(fr, ptr)?;
                self.write(own, space, at, ty, x)?;
                if let Some(space) = visible(space) {
                    self.event(own, Event::Store { space, at, bits: x })?;
                }
                None
            }
            Op::Atomic {
                op: a, ptr, value, ..
            } => {
                let ty = f.ty(*value);
                let x = get(fr, *value)?;
                Some(self.rmw(own, fr, ptr, ty, |old| atomic(*a, old, x, ty))?)
            }
            Op::AtomicCas {
                ptr,
                compare,
                value,
                ..
            } => {
                let ty = f.ty(*value);
                let (c, x) = (get(fr, *compare)?, get(fr, *value)?);
                Some(self.rmw(own, fr, ptr, ty, |old| Ok(if old == c { x } else { old }))?)
            }
            Op::AtomicLoad { ptr, .. } => {
                // Seen like a volatile load: it changes nothing, but must happen.
                let ty = result_ty(f, op, ty)?;
                let (space, at) = address(fr, ptr)?;
                self.event(own, Event::VolatileLoad { at })?;
                Some(self.read(own, space, at, ty)?)
            }
            Op::AtomicStore { ptr, value, .. } => {
                let (ty, x) = (f.ty(*value), get(fr, *value)?);
                self.rmw(own, fr, ptr, ty, |_| Ok(x))?;
                None
            }
            Op::Barrier => return Ok(Effect::Sync(Sync::Barrier, Vec::new())),
            Op::BarrierArrive => return Ok(Effect::Sync(Sync::Arrive, Vec::new())),
            Op::Fence(_) => {
                self.event(own, Event::Fence)?;
                None
            }
            Op::Call(c) => {
                let call = f.side.call(*c);
                return Ok(Effect::Call {
                    func: call.func.0 as usize,
                    args: gets(fr, &call.args)?,
                    results: call.results.clone(),
                });
            }
            Op::BitExtract {
                signed: s,
                base,
                offset,
                count,
            } => {
                let ty = f.ty(*base);
                let (x, o, c) = (get(fr, *base)?, get(fr, *offset)?, get(fr, *count)?);
                if o + c > u64::from(ty.bits()) {
                    return Err(Stop::Undefined("bit field past the width".into()));
                }
                if c == 0 {
                    Some(0)
                } else {
                    let field = (x >> o) & (u64::MAX >> (64 - c));
                    Some(if *s {
                        signed(field, Ty::int(64)) << (64 - c) >> (64 - c)
                    } else {
                        field as i64
                    } as u64)
                }
            }
            Op::BitInsert {
                base,
                insert,
                offset,
                count,
            } => {
                let ty = f.ty(*base);
                let (x, y) = (get(fr, *base)?, get(fr, *insert)?);
                let (o, c) = (get(fr, *offset)?, get(fr, *count)?);
                if o + c > u64::from(ty.bits()) {
                    return Err(Stop::Undefined("bit field past the width".into()));
                }
                let m = if c == 0 {
                    0
                } else {
                    (u64::MAX >> (64 - c)) << o
                };
                Some((x & !m) | ((y << o) & m))
            }
            Op::Warp(w, args) if self.group.is_some() => {
                return Ok(Effect::Sync(Sync::Warp(*w), gets(fr, args)?));
            }
            Op::Warp(..) | Op::Texture(_) => {
                return Err(Stop::Unsupported(format!("{op:?} on one thread")));
            }
        };
        Ok(Effect::Value(r))
    }

    /// Writes `x` to variable `v` of the frame, an event where the inputs trace it.
    pub(super) fn store_var(
        &mut self,
        own: &mut Own,
        fr: &mut Frame<'_>,
        v: u32,
        x: u64,
    ) -> Result<(), Stop> {
        let var = fr.f.vars.get(v as usize).ok_or_else(|| bad_var(v))?;
        let bits = mask(x, var.ty);
        fr.vars[v as usize] = bits;
        if fr.traced.get(v as usize) == Some(&true) {
            let name = var.name.to_string();
            self.event(own, Event::VarStore { name, bits })?;
        }
        Ok(())
    }

    fn builtin(&mut self, own: &Own, b: Builtin) -> u64 {
        if b == Builtin::Clock {
            self.clock += 1;
            return self.clock;
        }
        if let Some(g) = self.group {
            let axis = |a: u8| usize::from(a.min(2));
            match b {
                Builtin::LocalId(a) => return u64::from(own.coord[axis(a)]),
                Builtin::BlockDim(a) => return u64::from(g.dims[axis(a)]),
                Builtin::ScratchBase => return g.scratch_base,
                Builtin::SubgroupLane => return u64::from(own.id % g.subgroup.max(1)),
                Builtin::SubgroupId => return u64::from(own.id / g.subgroup.max(1)),
                _ => {}
            }
        }
        let k = match b {
            Builtin::StatusAddress => return STATUS_ADDRESS,
            Builtin::LocalId(a) => 40 + u64::from(a),
            Builtin::WorkgroupId(a) => 50 + u64::from(a),
            Builtin::BlockDim(a) => return [64, 2, 1][usize::from(a.min(2))],
            Builtin::GridDim(a) => return [8, 4, 1][usize::from(a.min(2))],
            other => hash_str(&format!("{other:?}")),
        };
        mix(self.seed ^ k) & 0xFFFF
    }

    fn read(&self, own: &Own, space: Mem, at: u64, ty: Ty) -> Result<u64, Stop> {
        match space {
            Mem::Global => {
                let bytes = u64::from(ty.bits().div_ceil(8));
                Ok((0..bytes).fold(0, |acc, k| {
                    let a = at.wrapping_add(k);
                    let unwritten = if (STATUS_ADDRESS..STATUS_ADDRESS + 4).contains(&a) {
                        0
                    } else {
                        (mix(a) >> 7) as u8
                    };
                    let byte = self.global.get(&a).copied().unwrap_or(unwritten);
                    acc | (u64::from(byte) << (8 * k))
                }))
            }
            Mem::Shared | Mem::Local => {
                word_sized(ty)?;
                let map = if space == Mem::Shared {
                    &self.shared
                } else {
                    &own.local
                };
                Ok(u64::from(
                    map.get(&at)
                        .copied()
                        .unwrap_or((mix(at ^ 0x5A) >> 3) as u32),
                ))
            }
        }
    }

    fn write(&mut self, own: &mut Own, space: Mem, at: u64, ty: Ty, x: u64) -> Result<(), Stop> {
        match space {
            Mem::Global => {
                for k in 0..u64::from(ty.bits().div_ceil(8)) {
                    self.global.insert(at.wrapping_add(k), (x >> (8 * k)) as u8);
                }
            }
            Mem::Shared => {
                word_sized(ty)?;
                self.shared.insert(at, x as u32);
            }
            Mem::Local => {
                word_sized(ty)?;
                own.local.insert(at, x as u32);
            }
        }
        Ok(())
    }

    /// An atomic read-modify-write of `ty` at `ptr`: writes `new(old)`, returns `old`.
    fn rmw(
        &mut self,
        own: &mut Own,
        fr: &Frame<'_>,
        ptr: &Ptr,
        ty: Ty,
        new: impl FnOnce(u64) -> Result<u64, Stop>,
    ) -> Result<u64, Stop> {
        let (space, at) = address(fr, ptr)?;
        let old = self.read(own, space, at, ty)?;
        let x = mask(new(old)?, ty);
        self.write(own, space, at, ty, x)?;
        if let Some(space) = visible(space) {
            self.event(
                own,
                Event::Atomic {
                    space,
                    at,
                    old,
                    new: x,
                },
            )?;
        }
        Ok(old)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mem {
    Global,
    Shared,
    Local,
}

fn visible(m: Mem) -> Option<Space> {
    match m {
        Mem::Global => Some(Space::Global),
        Mem::Shared => Some(Space::Shared),
        Mem::Local => None,
    }
}

/// The memory `ptr` names: its space, and a byte address (global) or word index.
fn address(fr: &Frame<'_>, ptr: &Ptr) -> Result<(Mem, u64), Stop> {
    Ok(match ptr {
        Ptr::Global(a) => (Mem::Global, get(fr, *a)?),
        Ptr::Shared(i) => (Mem::Shared, get(fr, *i)?),
        Ptr::Local(i) => (Mem::Local, get(fr, *i)?),
    })
}

/// The shared and local arenas are arrays of 32-bit words.
fn word_sized(ty: Ty) -> Result<(), Stop> {
    if ty.bits() == 32 {
        Ok(())
    } else {
        Err(Stop::Unsupported(format!(
            "a {ty:?} access to a word arena"
        )))
    }
}

fn bad_var(v: u32) -> Stop {
    Stop::Undefined(format!("variable {v} is not declared"))
}

/// The type of `op`'s result: `ty`, which an instruction with a result has.
fn result_ty(f: &Function, op: &Op, ty: Option<Ty>) -> Result<Ty, Stop> {
    ty.ok_or_else(|| Stop::Undefined(format!("{op:?} in `{}` without a result", f.name)))
}
