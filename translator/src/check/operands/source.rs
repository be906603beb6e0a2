//! Source operands: registers, constants, names and expressions read as an instruction's type.

use crate::ast::{self, BinaryOp, Component, ExprKind, OperandKind, UnaryOp};
use crate::check::consteval::{self, Const};
use crate::check::typed::*;
use crate::check::{FnCx, Symbol};
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, TypeKind};

use super::conv::{TypeRule, convert_const, src_conv};
use super::special::special_register;

impl FnCx<'_, '_> {
    pub(super) fn err<T>(&mut self, span: Span, msg: impl Into<String>, label: &str) -> Option<T> {
        self.error(Diagnostic::error(span, msg).with_label(label));
        None
    }

    pub(super) fn not_video<T>(&mut self, span: Span) -> Option<T> {
        self.err(
            span,
            "byte and half-word selectors (`.b0`, `.h1`, ...) are operands of the video instructions only",
            "a selector here",
        )
    }

    /// Resolves a register name, with its vector component.
    pub(super) fn register(&mut self, name: &str, span: Span) -> Option<(RegId, ScalarType, u32)> {
        match self.lookup(name) {
            Some(Symbol::Reg(r)) => {
                let reg = self.func.reg(r);
                Some((r, reg.ty, reg.vector))
            }
            Some(Symbol::Var(_) | Symbol::Global(_)) => self.err(
                span,
                format!("`{name}` is a variable, not a register"),
                "expected a register",
            ),
            _ => {
                let msg = self
                    .range_miss(name)
                    .unwrap_or_else(|| format!("unknown register `{name}`"));
                self.err(span, msg, "not declared")
            }
        }
    }

    fn check_reg_src(
        &mut self,
        reg: ScalarType,
        ty: ScalarType,
        rule: TypeRule,
        span: Span,
    ) -> Option<Conv> {
        match src_conv(ty, reg, rule) {
            Ok(c) => Some(c),
            Err(msg) => self.err(span, msg, &format!("this operand is {reg}")),
        }
    }

    /// A source operand of instruction type `ty`.
    pub fn src(&mut self, op: &ast::Operand<'_>, ty: ScalarType, rule: TypeRule) -> Option<Src> {
        match &op.kind {
            OperandKind::Imm(e) => self.src_expr(e, ty, rule),
            OperandKind::Component(name, comp) => {
                if let Some((sreg, has_comp, sty)) = special_register(name) {
                    if !has_comp {
                        return self.err(op.span, format!("`{name}` has no components"), "here");
                    }
                    if *comp == Component::W {
                        return self.err(
                            op.span,
                            format!("`{name}` has only .x, .y and .z"),
                            "here",
                        );
                    }
                    // Checked for its errors: a component is always read whole.
                    self.special_conv(sty, ty, op.span)?;
                    return Some(Src::Special(sreg, Some(*comp)));
                }
                let (reg, rty, vector) = self.register(name, op.span)?;
                if vector == 1 || comp.index() as u32 >= vector {
                    return self.err(
                        op.span,
                        format!("`{name}` has no component .{comp:?}"),
                        "here",
                    );
                }
                let conv = self.check_reg_src(rty, ty, rule, op.span)?;
                Some(Src::Reg {
                    reg,
                    comp: Some(*comp),
                    conv,
                    ty: rty,
                })
            }
            OperandKind::Vector(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.src(i, ty, rule)?);
                }
                Some(Src::Vector(Box::new(out)))
            }
            OperandKind::Sink => self.err(op.span, "`_` can only be a destination", "here"),
            OperandKind::Select(..) => self.not_video(op.span),
            _ => self.err(
                op.span,
                "expected a register or constant",
                "unexpected operand form",
            ),
        }
    }

    /// Special registers follow Table 26, except that legacy 16-bit `mov`/`cvt` of `%tid` and
    /// friends is accepted (ISA 10.x: "legacy PTX code ... using 16-bit mov and cvt").
    fn special_conv(&mut self, sty: ScalarType, ty: ScalarType, span: Span) -> Option<Conv> {
        if ty.bits() == 16 && sty.bits() == 32 && ty.kind() != TypeKind::Float {
            return Some(Conv::Chop);
        }
        self.check_reg_src(sty, ty, TypeRule::Strict, span)
    }

    fn src_expr(&mut self, e: &ast::Expr<'_>, ty: ScalarType, rule: TypeRule) -> Option<Src> {
        match &e.kind {
            ExprKind::Name(name) if consteval::named_constant(name).is_none() => {
                self.src_name(name, e.span, ty, rule)
            }
            ExprKind::Unary(UnaryOp::LogicalNot, inner) if ty == ScalarType::Pred => {
                if let ExprKind::Name(_) = inner.kind {
                    let s = self.src_expr(inner, ty, rule)?;
                    return Some(Src::NotPred(Box::new(s)));
                }
                self.src_const(e, ty)
            }
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) if matches!(a.kind, ExprKind::Name(n) if consteval::named_constant(n).is_none()) =>
            {
                // `var+4`: the address of a variable plus an offset.
                let ExprKind::Name(n) = a.kind else {
                    return None;
                };
                let var = self.var_ref(n, a.span)?;
                let off = self.const_int(b)?;
                let off = if *op == BinaryOp::Sub {
                    off.wrapping_neg()
                } else {
                    off
                };
                self.address_src(var, off, ty, e.span)
            }
            _ => self.src_const(e, ty),
        }
    }

    fn src_const(&mut self, e: &ast::Expr<'_>, ty: ScalarType) -> Option<Src> {
        let c = match consteval::eval(e) {
            Ok(c) => c,
            Err(d) => {
                self.error(d);
                return None;
            }
        };
        match convert_const(c, ty) {
            Ok(bits) => Some(Src::Imm(bits)),
            Err(msg) => self.err(e.span, msg, "this constant"),
        }
    }

    pub fn const_int(&mut self, e: &ast::Expr<'_>) -> Option<i64> {
        match consteval::eval(e) {
            Ok(c @ (Const::S64(_) | Const::U64(_))) => Some(c.as_bits_u64() as i64),
            Ok(_) => self.err(e.span, "expected an integer constant", "not an integer"),
            Err(d) => {
                self.error(d);
                None
            }
        }
    }

    fn src_name(&mut self, name: &str, span: Span, ty: ScalarType, rule: TypeRule) -> Option<Src> {
        if let Some((sreg, has_comp, sty)) = special_register(name) {
            if has_comp {
                return self.err(
                    span,
                    format!("`{name}` is a vector; name a component such as `{name}.x`"),
                    "needs a component",
                );
            }
            self.special_conv(sty, ty, span)?;
            return Some(Src::Special(sreg, None));
        }
        match self.lookup(name) {
            Some(Symbol::Reg(r)) => {
                let reg = self.func.reg(r).clone();
                if reg.vector > 1 {
                    let mut items = Vec::new();
                    for c in [Component::X, Component::Y, Component::Z, Component::W]
                        .into_iter()
                        .take(reg.vector as usize)
                    {
                        let conv = self.check_reg_src(reg.ty, ty, rule, span)?;
                        items.push(Src::Reg {
                            reg: r,
                            comp: Some(c),
                            conv,
                            ty: reg.ty,
                        });
                    }
                    return Some(Src::Vector(Box::new(items)));
                }
                let conv = self.check_reg_src(reg.ty, ty, rule, span)?;
                Some(Src::Reg {
                    reg: r,
                    comp: None,
                    conv,
                    ty: reg.ty,
                })
            }
            None if self.m.function_names.contains_key(name) => {
                self.function_address(name, span, ty)
            }
            _ => {
                let var = self.var_ref(name, span)?;
                self.address_src(var, 0, ty, span)
            }
        }
    }

    /// `mov.u64 %rd, f;`: the address of function `f` (ISA 8.7.6.2).
    fn function_address(&mut self, name: &str, span: Span, ty: ScalarType) -> Option<Src> {
        let id = *self.m.function_names.get(name)?;
        if self.m.functions[id.0 as usize].kind == crate::ast::FunctionKind::Entry {
            return self.err(
                span,
                format!("the address of kernel `{name}` is only useful for CUDA dynamic parallelism, which ptxvk does not support"),
                "a kernel",
            );
        }
        if ty.is_float() || !matches!(ty.bits(), 32 | 64) {
            return self.err(
                span,
                format!("a function address is a 32- or 64-bit integer; it cannot be used as {ty}"),
                "a function name here means its address",
            );
        }
        if !self.m.address_taken.contains(&id) {
            self.m.address_taken.push(id);
        }
        if !self.func.calls.contains(&id) {
            self.func.calls.push(id);
        }
        Some(Src::FuncAddr(id))
    }

    fn address_src(&mut self, var: VarRef, off: i64, ty: ScalarType, span: Span) -> Option<Src> {
        if ty.is_float() || ty.bits() < 32 || ty == ScalarType::Pred {
            return self.err(
                span,
                format!("the address of a variable is an integer; it cannot be used as {ty}"),
                "a variable name here means its address",
            );
        }
        Some(Src::AddressOf(Box::new((var, off))))
    }
}
