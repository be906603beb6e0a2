//! Variables by name, destination operands, addresses, labels and guards.

use crate::ast::{self, BinaryOp, Component, ExprKind, OperandKind};
use crate::check::consteval;
use crate::check::typed::*;
use crate::check::{FnCx, Symbol};
use crate::diag::Span;
use crate::types::{ScalarType, StateSpace, TypeKind};

use super::conv::{TypeRule, dst_conv};
use super::special::special_register;

impl FnCx<'_, '_> {
    /// A variable name: function scope first, then module scope.
    pub fn var_ref(&mut self, name: &str, span: Span) -> Option<VarRef> {
        match self.lookup(name) {
            Some(Symbol::Var(v)) => return Some(VarRef::Local(v)),
            Some(Symbol::Global(g)) => {
                if !self.func.global_uses.contains(&g) {
                    self.func.global_uses.push(g);
                }
                return Some(VarRef::Global(g));
            }
            Some(Symbol::Reg(_) | Symbol::RegRange(_)) => {
                return self.err(
                    span,
                    format!("`{name}` is a register, not a variable"),
                    "here",
                );
            }
            None => {}
        }
        if let Some(&g) = self.m.global_names.get(name) {
            if !self.func.global_uses.contains(&g) {
                self.func.global_uses.push(g);
            }
            return Some(VarRef::Global(g));
        }
        if self.m.function_names.contains_key(name) {
            return self.err(
                span,
                format!(
                    "`{name}` is a function; function names are operands of `call` and `mov` only"
                ),
                "here",
            );
        }
        if self.label_names.contains_key(name) {
            return self.err(
                span,
                format!("`{name}` is a label; labels are operands of `bra` only"),
                "here",
            );
        }
        if let Some(msg) = self.range_miss(name) {
            return self.err(span, msg, "not declared");
        }
        if name.starts_with('%') && crate::check::gating::is_gated_special(name) {
            return self.err(
                span,
                format!("special register `{name}` is not supported by ptxvk yet"),
                "not supported yet",
            );
        }
        self.err(span, format!("unknown name `{name}`"), "not declared")
    }

    /// "`%r9` is not one of the 4 registers `%r<4>` declares", when that is why `name` is unknown.
    pub(super) fn range_miss(&self, name: &str) -> Option<String> {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        if base.len() == name.len() {
            return None;
        }
        for scope in self.scopes.iter().rev() {
            if let Some(Symbol::RegRange(ri)) = scope.get(base) {
                let count = self.ranges[*ri as usize].count;
                return Some(format!(
                    "`{name}` is not one of the {count} registers `{base}<{count}>` declares ({base}0 to {base}{})",
                    count.saturating_sub(1)
                ));
            }
        }
        None
    }

    pub fn var(&self, v: VarRef) -> &Variable {
        match v {
            VarRef::Global(g) => &self.m.globals[g.0 as usize],
            VarRef::Local(l) => self.func.var(l),
        }
    }

    /// A destination operand of instruction type `ty`.
    pub fn dst(&mut self, op: &ast::Operand<'_>, ty: ScalarType, rule: TypeRule) -> Option<Dst> {
        match &op.kind {
            OperandKind::Sink => Some(Dst::Sink),
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Name(name),
                ..
            }) => {
                if special_register(name).is_some() {
                    return self.err(
                        op.span,
                        format!("special register `{name}` is read-only"),
                        "cannot be written",
                    );
                }
                let (reg, rty, vector) = self.register(name, op.span)?;
                let conv = match dst_conv(ty, rty, rule) {
                    Ok(c) => c,
                    Err(msg) => return self.err(op.span, msg, &format!("this register is {rty}")),
                };
                if vector > 1 {
                    let items = [Component::X, Component::Y, Component::Z, Component::W]
                        .into_iter()
                        .take(vector as usize)
                        .map(|c| Dst::Reg {
                            reg,
                            comp: Some(c),
                            conv,
                            ty: rty,
                        })
                        .collect();
                    return Some(Dst::Vector(Box::new(items)));
                }
                Some(Dst::Reg {
                    reg,
                    comp: None,
                    conv,
                    ty: rty,
                })
            }
            OperandKind::Component(name, comp) => {
                let (reg, rty, vector) = self.register(name, op.span)?;
                if vector == 1 || comp.index() as u32 >= vector {
                    return self.err(
                        op.span,
                        format!("`{name}` has no component .{comp:?}"),
                        "here",
                    );
                }
                let conv = match dst_conv(ty, rty, rule) {
                    Ok(c) => c,
                    Err(msg) => return self.err(op.span, msg, &format!("this register is {rty}")),
                };
                Some(Dst::Reg {
                    reg,
                    comp: Some(*comp),
                    conv,
                    ty: rty,
                })
            }
            OperandKind::Vector(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.dst(i, ty, rule)?);
                }
                Some(Dst::Vector(Box::new(out)))
            }
            OperandKind::Select(..) => self.not_video(op.span),
            _ => self.err(
                op.span,
                "expected a register",
                "a destination must be a register",
            ),
        }
    }

    /// A memory operand `[...]` or `var[imm]` (ISA 6.4.1-6.4.2).
    pub fn address(&mut self, op: &ast::Operand<'_>) -> Option<Address> {
        match &op.kind {
            OperandKind::Address(e) => self.address_expr(e),
            OperandKind::Index(name, idx) => {
                let var = self.var_ref(name.node, name.span)?;
                let n = self.const_int(idx)?;
                let elem = self.var(var).elem_bytes() as i64;
                let Some(offset) = n
                    .checked_mul(elem)
                    .filter(|o| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(o))
                else {
                    return self.err(idx.span, "array index out of range", "ISA 6.4.2");
                };
                Some(Address {
                    base: AddrBase::Var(var),
                    offset,
                })
            }
            _ => self.err(
                op.span,
                "expected an address such as `[%rd1+8]`",
                "not an address",
            ),
        }
    }

    pub(crate) fn address_expr(&mut self, e: &ast::Expr<'_>) -> Option<Address> {
        let (base, offset) = match &e.kind {
            ExprKind::Name(n) if consteval::named_constant(n).is_none() => (Some((*n, e.span)), 0),
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => match &a.kind {
                ExprKind::Name(n) if consteval::named_constant(n).is_none() => {
                    let off = self.const_int(b)?;
                    (
                        Some((*n, a.span)),
                        if *op == BinaryOp::Sub {
                            off.wrapping_neg()
                        } else {
                            off
                        },
                    )
                }
                _ => (None, self.const_int(e)?),
            },
            _ => (None, self.const_int(e)?),
        };
        if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&offset) {
            return self.err(
                e.span,
                "address offset does not fit in 32 bits",
                "ISA 6.4.1",
            );
        }
        let Some((name, span)) = base else {
            return Some(Address {
                base: AddrBase::Absolute,
                offset,
            });
        };
        match self.lookup(name) {
            Some(Symbol::Reg(r)) => {
                let reg = self.func.reg(r);
                let ty = reg.ty;
                if !(matches!(
                    ty.kind(),
                    TypeKind::Bits | TypeKind::Signed | TypeKind::Unsigned
                ) && (ty.bits() == 32 || ty.bits() == 64))
                {
                    return self.err(
                        span,
                        format!("an address register must be a 32- or 64-bit integer, not {ty}"),
                        "here",
                    );
                }
                Some(Address {
                    base: AddrBase::Reg(r, ty),
                    offset,
                })
            }
            _ => {
                let var = self.var_ref(name, span)?;
                Some(Address {
                    base: AddrBase::Var(var),
                    offset,
                })
            }
        }
    }

    pub fn label_operand(&mut self, op: &ast::Operand<'_>) -> Option<LabelId> {
        match &op.kind {
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Name(n),
                span,
            }) => self.label(&crate::diag::Spanned::new(n, *span)),
            _ => self.err(op.span, "expected a label", "here"),
        }
    }

    pub fn guard(&mut self, g: &ast::Guard<'_>) -> Option<Guard> {
        let (reg, ty, _) = self.register(g.pred.node, g.pred.span)?;
        if ty != ScalarType::Pred {
            return self.err(
                g.pred.span,
                format!(
                    "a guard must be a .pred register; `{}` is {ty}",
                    g.pred.node
                ),
                "not a predicate",
            );
        }
        Some(Guard {
            pred: reg,
            negated: g.negated,
        })
    }

    /// The state space of the variable behind an address, if the address names one.
    pub fn address_space(&self, a: &Address) -> Option<StateSpace> {
        match a.base {
            AddrBase::Var(v) => Some(self.var(v).space),
            _ => None,
        }
    }
}
