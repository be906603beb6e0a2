//! The rules more than one form of the IR shares, in a file of their own so that each check
//! imports them without importing the verifier that runs the checks.

use crate::ir::{Function, Op, Ty, ValueId};

/// A rule broken in the function being checked (the caller adds the function's name).
pub(super) type Check = Result<(), String>;

/// The type of value `v` of `f`.
pub(super) fn ty(f: &Function, v: ValueId) -> Result<Ty, String> {
    f.values
        .get(v.0 as usize)
        .copied()
        .ok_or_else(|| format!("%{} does not exist", v.0))
}

pub(super) fn condition(f: &Function, v: ValueId) -> Check {
    match ty(f, v)? {
        Ty::Bool => Ok(()),
        t => Err(format!("condition %{} is {t:?}, not Bool", v.0)),
    }
}

pub(super) fn selector(f: &Function, v: ValueId) -> Check {
    match ty(f, v)? {
        t if !t.is_float() && t != Ty::Bool => Ok(()),
        t => Err(format!("switch on %{} of type {t:?}", v.0)),
    }
}

pub(super) fn returns(f: &Function, vals: &[ValueId]) -> Check {
    let tys = vals
        .iter()
        .map(|v| ty(f, *v))
        .collect::<Result<Vec<_>, _>>()?;
    if tys == f.returns {
        Ok(())
    } else {
        Err(format!(
            "returns {tys:?} from a function of {:?}",
            f.returns
        ))
    }
}

/// Whether `op` makes a value of the result type (so needs a result) or makes none; `None`
/// where both occur.
pub(super) fn has_value(op: &Op) -> Option<bool> {
    match op {
        Op::Const(_)
        | Op::LoadVar(_)
        | Op::Un(..)
        | Op::Bin(..)
        | Op::Select(..)
        | Op::Conv(..)
        | Op::Ext(..)
        | Op::Builtin(_)
        | Op::Param(_)
        | Op::Load { .. }
        | Op::AtomicLoad { .. }
        | Op::BitExtract { .. }
        | Op::BitInsert { .. } => Some(true),
        Op::StoreVar(..)
        | Op::Store { .. }
        | Op::AtomicStore { .. }
        | Op::Barrier
        | Op::BarrierArrive
        | Op::Fence(_)
        | Op::Call(_)
        | Op::Texture(_) => Some(false),
        // Read-modify-write atomics may drop the old value; warp operations differ.
        Op::Atomic { .. } | Op::AtomicCas { .. } | Op::Warp(..) => None,
    }
}
