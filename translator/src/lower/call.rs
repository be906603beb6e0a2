//! Device functions: parameters, returns and `call`.
//!
//! A `.param` parameter or return value of a `.func` (and each `.param` variable a caller declares
//! for a call) is held as 32-bit words in variables; `ld.param`/`st.param` at constant offsets
//! read and write those words, and a call passes them as SPIR-V function arguments (results come
//! back as a struct). `.reg` parameters are passed as values of their type.

use super::cx::Cx;
use super::memory::param_words;
use crate::ast::Component;
use crate::check::inst::{Call, CallArg, CallIndirect};
use crate::check::{FnParam, Src};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Op, Terminator, Ty, ValueId};
use crate::types::ScalarType;

fn reg_ty(cx: &Cx<'_>, r: crate::check::RegId) -> ScalarType {
    cx.func.reg(r).ty
}

/// The values a `.reg` parameter passes: itself, or each component of a vector register
/// (`.reg .v2 .u32 %v`) in order.
fn reg_slots(cx: &Cx<'_>, r: crate::check::RegId) -> smallvec::SmallVec<[Option<Component>; 4]> {
    let n = cx.func.reg(r).vector;
    if n <= 1 {
        return smallvec::smallvec![None];
    }
    [Component::X, Component::Y, Component::Z, Component::W]
        .into_iter()
        .take(n as usize)
        .map(Some)
        .collect()
}

/// Entry of a `.func`: the SPIR-V parameters into the parameter words and registers; the return
/// types.
pub fn prologue(cx: &mut Cx<'_>) {
    let params = cx.func.params.clone();
    let mut n = 0u32;
    for p in params {
        match p {
            FnParam::Var(v) => {
                for w in param_words(cx, v) {
                    cx.b.f.params.push(Ty::I32);
                    let val = cx.b.emit(Ty::I32, Op::Param(n));
                    cx.b.emit_void(Op::StoreVar(w, val));
                    n += 1;
                }
            }
            FnParam::Reg(r) => {
                let ty = Ty::of(reg_ty(cx, r));
                for comp in reg_slots(cx, r) {
                    cx.b.f.params.push(ty);
                    let val = cx.b.emit(ty, Op::Param(n));
                    let var = cx.reg_var(r, comp);
                    cx.b.emit_void(Op::StoreVar(var, val));
                    n += 1;
                }
            }
        }
    }
    let returns = cx.func.returns.clone();
    for p in returns {
        match p {
            FnParam::Var(v) => {
                let words = param_words(cx, v).len();
                cx.b.f.returns.extend(std::iter::repeat_n(Ty::I32, words));
            }
            FnParam::Reg(r) => {
                let ty = Ty::of(reg_ty(cx, r));
                let n = reg_slots(cx, r).len();
                cx.b.f.returns.extend(std::iter::repeat_n(ty, n));
            }
        }
    }
}

/// What `ret` returns: the return parameters' current values.
pub fn return_values(cx: &mut Cx<'_>) -> Vec<ValueId> {
    let returns = cx.func.returns.clone();
    let mut out = Vec::new();
    for p in returns {
        match p {
            FnParam::Var(v) => {
                for w in param_words(cx, v) {
                    out.push(cx.b.emit(Ty::I32, Op::LoadVar(w)));
                }
            }
            FnParam::Reg(r) => {
                for comp in reg_slots(cx, r) {
                    let var = cx.reg_var(r, comp);
                    let ty = cx.b.f.vars[var.0 as usize].ty;
                    out.push(cx.b.emit(ty, Op::LoadVar(var)));
                }
            }
        }
    }
    out
}

/// `call`: arguments in, results out.
pub fn call(cx: &mut Cx<'_>, c: &Call) {
    if let Some(which) = super::layout::device_call(cx.module.function(c.func)) {
        super::device_calls::call(cx, which, c);
        return;
    }
    let Some(&func) = cx.ids.get(&c.func) else {
        cx.unsupported("this call");
        return;
    };
    emit_call(cx, func, &c.args, &c.rets);
}

fn emit_call(cx: &mut Cx<'_>, func: crate::ir::FuncId, args: &[CallArg], rets: &[CallArg]) {
    let mut values = Vec::new();
    for a in args {
        match a {
            CallArg::Param(v) => {
                for w in param_words(cx, *v) {
                    values.push(cx.b.emit(Ty::I32, Op::LoadVar(w)));
                }
            }
            CallArg::Value(Src::Vector(items), ty) => {
                for item in items.iter() {
                    values.push(cx.read(item, *ty));
                }
            }
            CallArg::Value(src, ty) => values.push(cx.read(src, *ty)),
        }
    }
    let mut results = Vec::new();
    for r in rets {
        let regs: &[Src] = match r {
            CallArg::Param(v) => {
                results.extend(param_words(cx, *v));
                continue;
            }
            CallArg::Value(Src::Vector(items), _) => items,
            CallArg::Value(src, _) => std::slice::from_ref(src),
        };
        for src in regs {
            let Src::Reg { reg, comp, .. } = src else {
                cx.unsupported("a call result that is not a register");
                return;
            };
            results.push(cx.reg_var(*reg, *comp));
        }
    }
    let call = cx.b.f.side.add_call(crate::ir::Call {
        func,
        args: values,
        results,
        pure: false,
    });
    cx.b.emit_void(Op::Call(call));
}

/// A call through a function pointer: SPIR-V has none, so the pointer (a function's
/// [`FuncId::address`](crate::check::FuncId::address)) is compared with each possible target
/// and the matching one is called directly. A pointer to none of them calls nothing (PTX leaves
/// calling a function of another signature undefined).
pub fn call_indirect(cx: &mut Cx<'_>, c: &CallIndirect) {
    let target = cx.read(&c.target, c.target_ty);
    let target = cx.b.conv(ConvOp::ZExt, target, Ty::I64);
    let var = cx.b.f.new_var(Ty::I64, "call.target");
    cx.b.emit_void(Op::StoreVar(var, target));
    let join = cx.b.f.new_block();
    for f in &c.candidates {
        let Some(&func) = cx.ids.get(f) else {
            continue;
        };
        let t = cx.b.emit(Ty::I64, Op::LoadVar(var));
        let tag = cx.b.konst(Ty::I64, f.address());
        let hit = cx.b.bin(BinOp::IEq, t, tag);
        let (then, next) = (cx.b.f.new_block(), cx.b.f.new_block());
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: hit,
            then,
            else_: next,
        };
        cx.b.cur = then;
        emit_call(cx, func, &c.args, &c.rets);
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(join);
        cx.b.cur = next;
    }
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(join);
    cx.b.cur = join;
}
