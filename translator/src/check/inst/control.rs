//! Control flow (ISA 8.7.8 in later numbering): `bra`, `ret`, `exit`.

use super::operands;
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::{FnParam, FuncId, Function, LabelId, LocalId, Src, VarRef};
use crate::diag::Diagnostic;
use crate::types::ScalarType;

#[derive(Clone, Debug)]
pub struct Bra {
    pub target: LabelId,
    /// `.uni`: the compiler promises the branch is not divergent.
    pub uni: bool,
}

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

/// A call argument or result: a `.param` variable the caller declared, or (for `.reg`
/// parameters) a register or value.
#[derive(Clone, Debug)]
pub enum CallArg {
    Param(LocalId),
    Value(Src, ScalarType),
}

#[derive(Clone, Debug)]
pub struct Call {
    pub func: FuncId,
    pub uni: bool,
    pub rets: Vec<CallArg>,
    pub args: Vec<CallArg>,
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
    let rets = call_list(cx, &rets, &callee, &callee.returns, "return value", i.span)?;
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
