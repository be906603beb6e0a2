//! The operand types each instruction takes: what SPIR-V's validator requires of the
//! instruction emission makes of it (`emit/inst.rs`), so that a pass that mixes types up is
//! caught where it does, not as a validation failure at the end.

use super::rules::{Check, has_value, ty};
use crate::ir::{
    BinOp, CallId, ConvOp, ExtOp, Function, Inst, Module, Op, Ptr, Ty, UnOp, ValueId, VarId, WarpOp,
};

fn int(t: Ty) -> bool {
    !t.is_float() && t != Ty::Bool
}

fn want(what: &str, ok: bool, got: impl std::fmt::Debug) -> Check {
    if ok {
        Ok(())
    } else {
        Err(format!("{what}, not {got:?}"))
    }
}

fn var(f: &Function, v: VarId) -> Result<Ty, String> {
    f.vars
        .get(v.0 as usize)
        .map(|x| x.ty)
        .ok_or_else(|| format!("variable v{} does not exist", v.0))
}

/// The address operand of a memory access: 64 bits for device memory, a word index into an
/// arena otherwise.
fn ptr(f: &Function, p: &Ptr) -> Check {
    let (v, expect) = match p {
        Ptr::Global(v) => (*v, Ty::I64),
        Ptr::Shared(v) | Ptr::Local(v) => (*v, Ty::I32),
    };
    let t = ty(f, v)?;
    want(&format!("address of {p:?} is {expect:?}"), t == expect, t)
}

/// `vals` all of type `t`.
fn all(f: &Function, what: &str, vals: &[ValueId], t: Ty) -> Check {
    for v in vals {
        let got = ty(f, *v)?;
        want(&format!("{what} %{} is {t:?}", v.0), got == t, got)?;
    }
    Ok(())
}

pub(super) fn inst(m: &Module, f: &Function, inst: &Inst) -> Check {
    let op = &inst.op;
    match (has_value(op), inst.result) {
        (Some(true), None) => return Err("no result for an operation that makes a value".into()),
        (Some(false), Some(r)) => return Err(format!("result %{} of an operation without", r.0)),
        _ => {}
    }
    // Operations without a result have nothing of it to check against.
    let rt = match inst.result {
        Some(r) => Some(ty(f, r)?),
        None => None,
    };
    let result = rt.unwrap_or(Ty::Bool);
    match *op {
        Op::Const(_) | Op::Builtin(_) | Op::Barrier | Op::BarrierArrive | Op::Fence(_) => Ok(()),
        Op::LoadVar(v) => {
            let t = var(f, v)?;
            want(&format!("load of v{} is {t:?}", v.0), result == t, result)
        }
        Op::StoreVar(v, x) => {
            let t = var(f, v)?;
            all(f, &format!("store into v{}", v.0), &[x], t)
        }
        Op::Param(n) => match f.params.get(n as usize) {
            Some(&t) => want(&format!("parameter {n} is {t:?}"), result == t, result),
            None => Err(format!("parameter {n} of {}", f.params.len())),
        },
        Op::Un(u, a) => unary(f, u, a, result),
        Op::Bin(b, x, y, _) => binary(f, b, x, y, result),
        Op::Select(c, a, b) => {
            all(f, "selector", &[c], Ty::Bool)?;
            all(f, "selected value", &[a, b], result)
        }
        Op::Conv(c, a) => conversion(c, ty(f, a)?, result),
        Op::Ext(e, ref args, _) => extended(f, e, args, result),
        Op::Load { ref ptr, .. }
        | Op::AtomicLoad { ref ptr, .. }
        | Op::Store { ref ptr, .. }
        | Op::AtomicStore { ref ptr, .. } => self::ptr(f, ptr),
        Op::Atomic { ref ptr, value, .. } => {
            self::ptr(f, ptr)?;
            match rt {
                Some(t) => all(f, "atomic operand", &[value], t),
                None => Ok(()),
            }
        }
        Op::AtomicCas {
            ref ptr,
            compare,
            value,
            ..
        } => {
            self::ptr(f, ptr)?;
            let t = ty(f, value)?;
            all(f, "compared value", &[compare], t)?;
            match rt {
                Some(r) => want(&format!("old value is {t:?}"), r == t, r),
                None => Ok(()),
            }
        }
        Op::Warp(w, ref args) => warp(f, w, args),
        Op::Call(c) => call(m, f, c),
        Op::BitExtract {
            base,
            offset,
            count,
            ..
        } => {
            all(f, "bit field base", &[base], result)?;
            field(f, offset, count)
        }
        Op::BitInsert {
            base,
            insert,
            offset,
            count,
        } => {
            all(f, "bit field base", &[base, insert], result)?;
            field(f, offset, count)
        }
        Op::Texture(t) => {
            for v in &f.side.tex(t).results {
                var(f, *v)?;
            }
            Ok(())
        }
    }
}

fn field(f: &Function, offset: ValueId, count: ValueId) -> Check {
    let (o, c) = (ty(f, offset)?, ty(f, count)?);
    want(
        "bit field offset and count are integers",
        int(o) && int(c),
        (o, c),
    )
}

fn unary(f: &Function, u: UnOp, a: ValueId, result: Ty) -> Check {
    let t = ty(f, a)?;
    match u {
        UnOp::IsNan | UnOp::IsInf => {
            want("a float test of a float", t.is_float(), t)?;
            want("a float test is Bool", result == Ty::Bool, result)
        }
        UnOp::FNeg => want(
            "negation of a float of the result's type",
            t.is_float() && t == result,
            t,
        ),
        UnOp::INeg | UnOp::BitReverse => {
            want("an integer of the result's type", int(t) && t == result, t)
        }
        UnOp::Not => want(
            "`not` of the result's type",
            t == result && !t.is_float(),
            t,
        ),
        UnOp::BitCount => want("a count of an integer's bits", int(t) && int(result), t),
    }
}

fn binary(f: &Function, b: BinOp, x: ValueId, y: ValueId, result: Ty) -> Check {
    use BinOp::*;
    let (a, c) = (ty(f, x)?, ty(f, y)?);
    match b {
        // SPIR-V lets a shift's amount have a width of its own.
        Shl | LShr | AShr => {
            want(
                "a shift of an integer of the result's type",
                int(a) && a == result,
                a,
            )?;
            want("an integer shift amount", int(c), c)
        }
        _ if b.is_compare() => {
            want("a comparison of two values of one type", a == c, (a, c))?;
            want("a comparison is Bool", result == Ty::Bool, result)
        }
        FAdd | FSub | FMul | FDiv => want(
            "float operands of the result's type",
            a.is_float() && a == c && a == result,
            (a, c, result),
        ),
        And | Or | Xor => want(
            "operands of the result's type",
            !a.is_float() && a == c && a == result,
            (a, c, result),
        ),
        _ => want(
            "integer operands of the result's type",
            int(a) && a == c && a == result,
            (a, c, result),
        ),
    }
}

fn conversion(c: ConvOp, from: Ty, to: Ty) -> Check {
    let ok = match c {
        ConvOp::Bitcast => from.bits() == to.bits() && from != Ty::Bool,
        ConvOp::ZExt | ConvOp::SExt => int(from) && int(to) && to.bits() > from.bits(),
        ConvOp::Trunc => int(from) && int(to) && to.bits() < from.bits(),
        ConvOp::FToU | ConvOp::FToS => from.is_float() && int(to),
        ConvOp::UToF | ConvOp::SToF => int(from) && to.is_float(),
        ConvOp::FConvert => from.is_float() && to.is_float() && from != to,
        ConvOp::BoolToInt => from == Ty::Bool && int(to),
    };
    want(&format!("{c:?} to {to:?} of a fitting type"), ok, from)
}

fn extended(f: &Function, e: ExtOp, args: &[ValueId], result: Ty) -> Check {
    match e {
        ExtOp::FindUMsb | ExtOp::FindSMsb => {
            for a in args {
                let t = ty(f, *a)?;
                want("an integer operand", int(t), t)?;
            }
            want("an integer result", int(result), result)
        }
        _ => all(f, &format!("{e:?} operand"), args, result),
    }
}

fn warp(f: &Function, w: WarpOp, args: &[ValueId]) -> Check {
    match w {
        WarpOp::Ballot | WarpOp::WorkgroupAny | WarpOp::WorkgroupCount => {
            all(f, "warp vote operand", &args[..args.len().min(1)], Ty::Bool)
        }
        WarpOp::ReadLane | WarpOp::SubgroupRead => match args {
            [_, lane, ..] => {
                let t = ty(f, *lane)?;
                want("an integer lane", int(t), t)
            }
            _ => Err("a lane read without a lane".into()),
        },
        _ => Ok(()),
    }
}

fn call(m: &Module, f: &Function, c: CallId) -> Check {
    let call = f.side.call(c);
    let Some(callee) = m.functions.get(call.func.0 as usize) else {
        return Err(format!(
            "call of function {} of {}",
            call.func.0,
            m.functions.len()
        ));
    };
    let args = call
        .args
        .iter()
        .map(|v| ty(f, *v))
        .collect::<Result<Vec<_>, _>>()?;
    want(
        &format!("arguments of `{}` are {:?}", callee.name, callee.params),
        args == callee.params,
        &args,
    )?;
    let results = call
        .results
        .iter()
        .map(|v| var(f, *v))
        .collect::<Result<Vec<_>, _>>()?;
    want(
        &format!("results of `{}` are {:?}", callee.name, callee.returns),
        results == callee.returns,
        &results,
    )
}
