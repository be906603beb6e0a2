//! Control flow (ISA 8.7.8 in later numbering): `bra`, `brx.idx`, `call` (direct and through a
//! function pointer), `ret`, `exit`.

use super::shared::operands;
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Bra, BrxIdx, Call, CallArg, CallIndirect, Signature};
use crate::check::operands::TypeRule;
use crate::check::typed::{FnParam, FuncId, Function, VarRef};
use crate::diag::Diagnostic;
use crate::types::ScalarType;

pub fn bra(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Bra> {
    let uni = m.flag("uni");
    let ops = operands(cx, i, 1)?;
    let target = cx.label_operand(&ops[0])?;
    Some(Bra { target, uni })
}

/// Instructions without operands; `allowed` lists their optional modifiers.
pub fn no_operands(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    allowed: &[&str],
) -> Option<()> {
    for a in allowed {
        m.flag(a);
    }
    operands(cx, i, 0).map(|_| ())
}

/// The items of a parenthesized call list (a single item parses as an expression).
fn list_items<'o, 'a>(op: &'o ast::Operand<'a>) -> Vec<&'o ast::Operand<'a>> {
    match &op.kind {
        OperandKind::List(items) => items.iter().collect(),
        _ => vec![op],
    }
}

fn function_name(cx: &FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<FuncId> {
    match &op.kind {
        OperandKind::Imm(ast::Expr {
            kind: ast::ExprKind::Name(n),
            ..
        }) => cx.m.function_names.get(*n).copied(),
        _ => None,
    }
}

/// `call{.uni} (rets), func, (args);` with the return and argument lists optional.
pub fn call(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Call> {
    let uni = m.flag("uni");
    let ops = &i.operands;
    let fpos = ops.iter().position(|o| function_name(cx, o).is_some());
    let Some(fpos) = fpos.filter(|&p| p <= 1) else {
        cx.error(
            Diagnostic::error(
                i.span,
                "`call` needs a function name (indirect calls are not supported yet)",
            )
            .with_label("no function named here"),
        );
        return None;
    };
    let func = function_name(cx, &ops[fpos])?;
    if ops.len() > fpos + 2 {
        cx.error(
            Diagnostic::error(
                ops[fpos + 2].span,
                "unexpected operand after the argument list",
            )
            .with_label("here"),
        );
        return None;
    }
    let callee = cx.m.functions[func.0 as usize].clone();
    let rets: Vec<&ast::Operand<'_>> = if fpos == 1 {
        list_items(&ops[0])
    } else {
        Vec::new()
    };
    let args: Vec<&ast::Operand<'_>> = ops.get(fpos + 1).map(list_items).unwrap_or_default();
    let rets = if callee.returns.is_empty() && cx.m.results_ignored.contains(&func) {
        // The result a prototype gave a function defined without one: nothing writes it.
        Vec::new()
    } else {
        call_list(cx, &rets, &callee, &callee.returns, "return value", i.span)?
    };
    let args = call_list(cx, &args, &callee, &callee.params, "argument", i.span)?;
    if !cx.func.calls.contains(&func) {
        cx.func.calls.push(func);
    }
    Some(Call {
        func,
        uni,
        rets,
        args,
    })
}

fn call_list(
    cx: &mut FnCx<'_, '_>,
    items: &[&ast::Operand<'_>],
    callee: &Function,
    params: &[FnParam],
    what: &str,
    span: crate::diag::Span,
) -> Option<Vec<CallArg>> {
    if items.len() != params.len() {
        cx.error(
            Diagnostic::error(
                span,
                format!(
                    "`{}` takes {} {what}(s), {} given",
                    callee.name,
                    params.len(),
                    items.len()
                ),
            )
            .with_secondary(callee.span, "declared here"),
        );
        return None;
    }
    let mut out = Vec::new();
    for (item, p) in items.iter().zip(params) {
        match p {
            FnParam::Var(pv) => {
                let want = callee.var(*pv).size();
                let name = match &item.kind {
                    OperandKind::Imm(ast::Expr {
                        kind: ast::ExprKind::Name(n),
                        ..
                    }) => *n,
                    _ => {
                        cx.error(
                            Diagnostic::error(
                                item.span,
                                format!("expected a .param variable as {what}"),
                            )
                            .with_label("here"),
                        );
                        return None;
                    }
                };
                let v = match cx.var_ref(name, item.span)? {
                    VarRef::Local(l) if cx.func.var(l).space == crate::types::StateSpace::Param => {
                        l
                    }
                    _ => {
                        cx.error(
                            Diagnostic::error(
                                item.span,
                                format!("`{name}` is not a .param variable of this function"),
                            )
                            .with_label("here"),
                        );
                        return None;
                    }
                };
                let have = cx.func.var(v).size();
                if have != want {
                    cx.error(
                        Diagnostic::error(
                            item.span,
                            format!("`{name}` has {have} bytes; the parameter has {want}"),
                        )
                        .with_label("size mismatch"),
                    );
                    return None;
                }
                out.push(CallArg::Param(v));
            }
            FnParam::Reg(r) => {
                let ty = callee.reg(*r).ty;
                let src = cx.src(item, ty, TypeRule::Strict)?;
                out.push(CallArg::Value(src, ty));
            }
        }
    }
    Some(out)
}

pub fn brx_idx(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<BrxIdx> {
    if !m.flag("idx") {
        m.error("`brx` needs `.idx`", "write `brx.idx`");
        return None;
    }
    let uni = m.flag("uni");
    let ops = operands(cx, i, 2)?;
    let index = cx.src(&ops[0], ScalarType::U32, TypeRule::Strict);
    let list = cx.label_operand(&ops[1])?;
    let Some(targets) = cx.func.labels[list.0 as usize].targets.clone() else {
        cx.error(
            Diagnostic::error(
                ops[1].span,
                format!(
                    "`{}` does not label a `.branchtargets` list declared before this `brx.idx`",
                    cx.func.labels[list.0 as usize].name
                ),
            )
            .with_label("expected a .branchtargets label")
            .with_secondary(cx.func.labels[list.0 as usize].span, "label defined here"),
        );
        return None;
    };
    Some(BrxIdx {
        index: index?,
        targets,
        uni,
    })
}

/// Whether `call` names a function directly (else it calls through a register).
pub fn is_direct_call(cx: &FnCx<'_, '_>, i: &ast::Instruction<'_>) -> bool {
    i.operands
        .iter()
        .take(2)
        .any(|o| function_name(cx, o).is_some())
}

fn operand_name<'a>(op: &ast::Operand<'a>) -> Option<&'a str> {
    match &op.kind {
        OperandKind::Imm(ast::Expr {
            kind: ast::ExprKind::Name(n),
            ..
        }) => Some(n),
        _ => None,
    }
}

pub fn call_indirect(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<CallIndirect> {
    let uni = m.flag("uni");
    let ops = &i.operands;
    // The ISA's forms: `fptr, flist`, `fptr, (args), flist`, `(rets), fptr, (args), flist`.
    let (rets, fptr, args, list) = match ops.len() {
        2 => (None, &ops[0], None, &ops[1]),
        3 => (None, &ops[0], Some(&ops[1]), &ops[2]),
        4 => (Some(&ops[0]), &ops[1], Some(&ops[2]), &ops[3]),
        _ => {
            cx.error(
                Diagnostic::error(
                    i.span,
                    "`call` needs a function name, or a register and a `.calltargets`, `.callprototype` or call-table name",
                )
                .with_label("expected `call (rets), fptr, (args), flist`"),
            );
            return None;
        }
    };
    let Some(list_name) = operand_name(list) else {
        cx.error(
            Diagnostic::error(
                list.span,
                "expected the label of a `.calltargets` or `.callprototype`, or a call table",
            )
            .with_label("here"),
        );
        return None;
    };
    // What the call may reach, and the signature to check the operands against.
    let (candidates, shape_of): (Vec<FuncId>, Function) = if let Some(proto) =
        cx.prototypes.get(list_name)
    {
        (Vec::new(), proto.clone())
    } else if let Some(targets) = cx.calltargets.get(list_name) {
        let first = targets.first().copied()?;
        (targets.clone(), cx.m.functions[first.0 as usize].clone())
    } else if let Some(table) = call_table(cx, list_name, list.span) {
        let Some(&first) = table.first() else {
            cx.error(
                Diagnostic::error(
                    list.span,
                    format!("call table `{list_name}` lists no functions"),
                )
                .with_label("empty call table"),
            );
            return None;
        };
        if let Some(bad) = table.iter().find(|f| {
            Signature::of(&cx.m.functions[f.0 as usize])
                != Signature::of(&cx.m.functions[first.0 as usize])
        }) {
            let name = cx.m.functions[bad.0 as usize].name.clone();
            cx.error(
                Diagnostic::error(
                    list.span,
                    format!(
                        "the functions of call table `{list_name}` differ in signature (`{name}`)"
                    ),
                )
                .with_label("all call targets must have the same signature"),
            );
            return None;
        }
        (table, cx.m.functions[first.0 as usize].clone())
    } else {
        cx.error(
                Diagnostic::error(
                    list.span,
                    format!("`{list_name}` is not a `.calltargets` or `.callprototype` label of this function, nor a call table"),
                )
                .with_label("unknown call-target list"),
            );
        return None;
    };
    let target_ty = match operand_name(fptr).and_then(|n| cx.peek_register_type(n)) {
        Some(t) if !t.is_float() && matches!(t.bits(), 32 | 64) => t,
        _ => {
            cx.error(
                Diagnostic::error(
                    fptr.span,
                    "expected a 32- or 64-bit register holding a function address",
                )
                .with_label("not a function pointer register"),
            );
            return None;
        }
    };
    let target = cx.src(fptr, target_ty, TypeRule::Strict)?;
    let rets: Vec<&ast::Operand<'_>> = rets.map(list_items).unwrap_or_default();
    let args: Vec<&ast::Operand<'_>> = args.map(list_items).unwrap_or_default();
    let rets = call_list(
        cx,
        &rets,
        &shape_of,
        &shape_of.returns,
        "return value",
        i.span,
    )?;
    let args = call_list(cx, &args, &shape_of, &shape_of.params, "argument", i.span)?;
    for f in &candidates {
        if !cx.func.calls.contains(f) {
            cx.func.calls.push(*f);
        }
    }
    if candidates.is_empty() {
        cx.m.prototype_calls = true;
    }
    Some(CallIndirect {
        target,
        target_ty,
        candidates,
        signature: Signature::of(&shape_of),
        uni,
        rets,
        args,
    })
}

/// The functions a call table (an initialized `.global`/`.const` array of function names)
/// lists, or `None` if `name` is no such table.
fn call_table(cx: &mut FnCx<'_, '_>, name: &str, span: crate::diag::Span) -> Option<Vec<FuncId>> {
    let var = match cx.lookup(name) {
        Some(crate::check::Symbol::Var(l)) => cx.func.var(l).clone(),
        Some(crate::check::Symbol::Global(g)) => cx.m.globals[g.0 as usize].clone(),
        Some(_) => return None,
        None => {
            let g = *cx.m.global_names.get(name)?;
            cx.m.globals[g.0 as usize].clone()
        }
    };
    let init = var.init.as_ref()?;
    let funcs: Vec<FuncId> = init
        .iter()
        .filter_map(|e| match e {
            crate::check::InitElem::Function(f) => Some(*f),
            _ => None,
        })
        .collect();
    if funcs.is_empty() && !init.is_empty() {
        cx.error(
            Diagnostic::error(
                span,
                format!("`{name}` is not a call table: its initializer names no functions"),
            )
            .with_label("here"),
        );
        return Some(Vec::new());
    }
    Some(funcs)
}

/// Once every body is checked: the candidates of calls through a `.callprototype` are the
/// functions whose address the module takes and whose signature matches the prototype.
pub(crate) fn resolve_prototype_calls(
    functions: &mut [Function],
    callers: &[FuncId],
    address_taken: &[FuncId],
) {
    let signatures: Vec<Signature> = functions.iter().map(Signature::of).collect();
    for id in callers {
        let f = &mut functions[id.0 as usize];
        let Some(body) = f.body.as_mut() else {
            continue;
        };
        let mut extra = Vec::new();
        for s in body.iter_mut() {
            let crate::check::Statement::Inst(inst) = s else {
                continue;
            };
            let crate::check::op::Op::CallIndirect(c) = &mut inst.op else {
                continue;
            };
            if !c.candidates.is_empty() {
                continue;
            }
            c.candidates = address_taken
                .iter()
                .copied()
                .filter(|t| signatures[t.0 as usize] == c.signature)
                .collect();
            extra.extend(c.candidates.iter().copied());
        }
        for t in extra {
            if !f.calls.contains(&t) {
                f.calls.push(t);
            }
        }
    }
}

impl FnCx<'_, '_> {
    /// The functions of a `.calltargets` list: declared before it, `.func`s, one signature.
    pub(crate) fn call_targets(
        &mut self,
        names: &[crate::diag::Spanned<&str>],
    ) -> Option<Vec<FuncId>> {
        let mut out: Vec<FuncId> = Vec::new();
        for n in names {
            let Some(&f) = self.m.function_names.get(n.node) else {
                self.error(
                    Diagnostic::error(n.span, format!("unknown function `{}`", n.node))
                        .with_label("functions must be declared before `.calltargets` names them"),
                );
                return None;
            };
            if self.m.functions[f.0 as usize].kind != ast::FunctionKind::Func {
                self.error(
                    Diagnostic::error(n.span, format!("`{}` is a kernel, not a `.func`", n.node))
                        .with_label("not a call target"),
                );
                return None;
            }
            if let Some(&first) = out.first()
                && Signature::of(&self.m.functions[f.0 as usize])
                    != Signature::of(&self.m.functions[first.0 as usize])
            {
                self.error(
                    Diagnostic::error(
                        n.span,
                        format!(
                            "`{}` and `{}` differ in signature; the functions of a `.calltargets` list share one",
                            self.m.functions[first.0 as usize].name, n.node
                        ),
                    )
                    .with_label("different parameters"),
                );
                return None;
            }
            out.push(f);
        }
        Some(out)
    }
}
