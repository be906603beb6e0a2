//! Operands (ISA chapter 6) and the type rules of ISA 9.4: Table 26 for ordinary instructions,
//! Tables 27 and 28 for the relaxed rules of `ld`, `st` and `cvt`.

use super::consteval::{self, Const};
use super::{FnCx, Symbol};
use crate::ast::{self, BinaryOp, Component, ExprKind, OperandKind, UnaryOp};
use crate::check::typed::*;
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, StateSpace, TypeKind};

/// Which of the ISA's operand type rules an operand follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRule {
    /// Table 26: same size; kinds as the table allows.
    Strict,
    /// Tables 27/28 (`ld`, `st`, `cvt`): registers may be wider than the instruction type.
    Relaxed,
}

/// Table 26: may an operand of type `op` be used with instruction type `inst` (sizes aside)?
pub fn kinds_agree(inst: ScalarType, op: ScalarType) -> bool {
    use TypeKind::*;
    match (inst.kind(), op.kind()) {
        (Pred, Pred) => true,
        (Pred, _) | (_, Pred) => false,
        (Bits, _) => true,
        (Signed | Unsigned, Float) => false,
        (Signed | Unsigned, _) => true,
        (Float, Bits) => true,
        (Float, Float) => inst == op,
        (Float, _) => false,
    }
}

/// The conversion from a source register of type `reg` to instruction type `inst`, or why the
/// pair is invalid (Table 26 under `Strict`, Table 27 under `Relaxed`).
pub fn src_conv(inst: ScalarType, reg: ScalarType, rule: TypeRule) -> Result<Conv, String> {
    let (ib, rb) = (inst.bits(), reg.bits());
    if !kinds_agree(inst, reg) {
        return Err(format!(
            "a {reg} operand cannot be used with a {inst} instruction"
        ));
    }
    if ib == rb {
        return Ok(Conv::None);
    }
    if rule == TypeRule::Strict {
        return Err(format!(
            "a {reg} operand does not match the {inst} instruction type (sizes differ)"
        ));
    }
    if rb < ib {
        return Err(format!(
            "a {reg} register is narrower than the {inst} instruction type (Table 27: the register must be at least as wide)"
        ));
    }
    if inst.is_float() && reg.kind() != TypeKind::Bits {
        return Err(format!(
            "a {reg} register cannot be used with a {inst} instruction (Table 27: floating-point sizes must match)"
        ));
    }
    if inst == ScalarType::B128 {
        return Err(format!(
            "a .b128 instruction needs a .b128 operand, not {reg}"
        ));
    }
    Ok(Conv::Chop)
}

/// The conversion from instruction type `inst` to a destination register of type `reg`
/// (Table 26 under `Strict`, Table 28 under `Relaxed`).
pub fn dst_conv(inst: ScalarType, reg: ScalarType, rule: TypeRule) -> Result<Conv, String> {
    match src_conv(inst, reg, rule) {
        Ok(Conv::Chop) => Ok(if inst.is_signed() {
            Conv::Sext
        } else {
            Conv::Zext
        }),
        Ok(c) => Ok(c),
        Err(e) => Err(e.replace("Table 27", "Table 28")),
    }
}

/// Converts a constant to the bits of `ty` (ISA 4.5-4.6: integers are truncated to the size,
/// floating-point constants rounded to the size, predicates are "non-zero").
pub fn convert_const(c: Const, ty: ScalarType) -> Result<u64, String> {
    let mask = |bits: u32| {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    };
    match ty.kind() {
        TypeKind::Pred => match c {
            Const::S64(_) | Const::U64(_) => Ok(u64::from(c.as_bits_u64() != 0)),
            _ => Err("a predicate constant must be an integer".into()),
        },
        TypeKind::Signed | TypeKind::Unsigned => match c {
            Const::S64(_) | Const::U64(_) => Ok(c.as_bits_u64() & mask(ty.bits())),
            _ => Err(format!(
                "a floating-point constant cannot be used as {ty}; write an integer"
            )),
        },
        TypeKind::Float => {
            let v = match c {
                Const::F64(v) => v,
                Const::F32(v) => f64::from(v),
                Const::S64(_) | Const::U64(_) => {
                    return Err(format!(
                        "an integer constant cannot be used as {ty}; write a floating-point constant such as 1.0 or 0f3F800000"
                    ));
                }
            };
            float_bits(v, c, ty)
        }
        TypeKind::Bits => match c {
            Const::S64(_) | Const::U64(_) => Ok(c.as_bits_u64() & mask(ty.bits())),
            Const::F32(v) if ty.bits() == 32 => Ok(u64::from(v.to_bits())),
            Const::F64(v) => {
                let fty = match ty.bits() {
                    16 => ScalarType::F16,
                    32 => ScalarType::F32,
                    64 => ScalarType::F64,
                    _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
                };
                float_bits(v, c, fty)
            }
            Const::F32(v) => {
                let fty = match ty.bits() {
                    16 => ScalarType::F16,
                    64 => ScalarType::F64,
                    _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
                };
                float_bits(f64::from(v), c, fty)
            }
        },
    }
}

fn float_bits(v: f64, c: Const, ty: ScalarType) -> Result<u64, String> {
    Ok(match ty {
        ScalarType::F64 => v.to_bits(),
        ScalarType::F32 => match c {
            Const::F32(f) => u64::from(f.to_bits()),
            _ => u64::from((v as f32).to_bits()),
        },
        ScalarType::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        ScalarType::Bf16 => u64::from(half::bf16::from_f64(v).to_bits()),
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            return Err(format!("{ty} operands must be registers"));
        }
        _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
    })
}

/// Special registers: name, whether it has `.x/.y/.z` components, and its type.
pub fn special_register(name: &str) -> Option<(SpecialReg, bool, ScalarType)> {
    use ScalarType::*;
    use SpecialReg::*;
    Some(match name {
        "%tid" => (Tid, true, U32),
        "%ntid" => (Ntid, true, U32),
        "%ctaid" => (Ctaid, true, U32),
        "%nctaid" => (Nctaid, true, U32),
        "%laneid" => (LaneId, false, U32),
        "%warpid" => (WarpId, false, U32),
        "%nwarpid" => (NWarpId, false, U32),
        "%smid" => (SmId, false, U32),
        "%nsmid" => (NSmId, false, U32),
        "%gridid" => (GridId, false, U64),
        "%lanemask_eq" => (LanemaskEq, false, U32),
        "%lanemask_le" => (LanemaskLe, false, U32),
        "%lanemask_lt" => (LanemaskLt, false, U32),
        "%lanemask_ge" => (LanemaskGe, false, U32),
        "%lanemask_gt" => (LanemaskGt, false, U32),
        "%clock" => (Clock, false, U32),
        "%clock_hi" => (ClockHi, false, U32),
        "%clock64" => (Clock64, false, U64),
        "%globaltimer" => (GlobalTimer, false, U64),
        "%globaltimer_lo" => (GlobalTimerLo, false, U32),
        "%globaltimer_hi" => (GlobalTimerHi, false, U32),
        "%dynamic_smem_size" => (DynamicSmemSize, false, U32),
        "%total_smem_size" => (TotalSmemSize, false, U32),
        "WARP_SZ" | "%WARP_SZ" => (WarpSize, false, U32),
        "%clusterid" => (ClusterId, true, U32),
        "%nclusterid" => (NClusterId, true, U32),
        "%cluster_ctaid" => (ClusterCtaId, true, U32),
        "%cluster_nctaid" => (ClusterNCtaId, true, U32),
        "%cluster_ctarank" => (ClusterCtaRank, false, U32),
        "%cluster_nctarank" => (ClusterNCtaRank, false, U32),
        "%is_explicit_cluster" => (IsExplicitCluster, false, Pred),
        _ => {
            if let Some(n) = name.strip_prefix("%envreg") {
                let n: u8 = n.parse().ok().filter(|n| *n < 32)?;
                (EnvReg(n), false, B32)
            } else if let Some(n) = name.strip_prefix("%pm").and_then(|n| n.strip_suffix("_64")) {
                let n: u8 = n.parse().ok().filter(|n| *n < 8)?;
                (Pm64(n), false, U64)
            } else if let Some(n) = name.strip_prefix("%pm") {
                let n: u8 = n.parse().ok().filter(|n| *n < 8)?;
                (Pm(n), false, U32)
            } else {
                return None;
            }
        }
    })
}

impl FnCx<'_, '_> {
    fn err<T>(&mut self, span: Span, msg: impl Into<String>, label: &str) -> Option<T> {
        self.error(Diagnostic::error(span, msg).with_label(label));
        None
    }

    fn not_video<T>(&mut self, span: Span) -> Option<T> {
        self.err(
            span,
            "byte and half-word selectors (`.b0`, `.h1`, ...) are operands of the video instructions only",
            "a selector here",
        )
    }

    /// Resolves a register name, with its vector component.
    fn register(&mut self, name: &str, span: Span) -> Option<(RegId, ScalarType, u32)> {
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
    fn range_miss(&self, name: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    /// ISA Tables 27 and 28, transcribed once for this test and the conformance suite: rows
    /// are instruction types, columns source (27) or destination (28) operand types in the
    /// order of `COLS`; `-` no conversion, `c` chop, `z`/`s` zero/sign extension, `x` invalid.
    fn table(n: &str) -> Vec<(ScalarType, &'static str)> {
        include_str!("../../../conformance/data/isa-9.4.1-tables-27-28.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next()? == n).then_some(())?;
                Some((ScalarType::from_name(w.next()?)?, w.next()?))
            })
            .collect()
    }

    const COLS: [ScalarType; 16] = [
        B8, B16, B32, B64, B128, S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, F64,
    ];

    fn row(s: &str) -> Vec<char> {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn table_27_every_cell() {
        let rows = table("27");
        assert_eq!(rows.len(), 16);
        for (inst, cells) in rows {
            let cells = row(cells);
            assert_eq!(cells.len(), 16, "{inst}");
            for (col, want) in COLS.iter().zip(cells) {
                let got = src_conv(inst, *col, TypeRule::Relaxed);
                match want {
                    '-' => assert_eq!(got, Ok(Conv::None), "{inst} <- {col}"),
                    'c' => assert_eq!(got, Ok(Conv::Chop), "{inst} <- {col}"),
                    _ => assert!(
                        got.is_err(),
                        "{inst} <- {col} should be invalid, got {got:?}"
                    ),
                }
            }
        }
    }

    #[test]
    fn table_28_every_cell() {
        let rows = table("28");
        assert_eq!(rows.len(), 16);
        for (inst, cells) in rows {
            let cells = row(cells);
            assert_eq!(cells.len(), 16, "{inst}");
            for (col, want) in COLS.iter().zip(cells) {
                let got = dst_conv(inst, *col, TypeRule::Relaxed);
                match want {
                    '-' => assert_eq!(got, Ok(Conv::None), "{inst} -> {col}"),
                    's' => assert_eq!(got, Ok(Conv::Sext), "{inst} -> {col}"),
                    'z' => assert_eq!(got, Ok(Conv::Zext), "{inst} -> {col}"),
                    _ => assert!(
                        got.is_err(),
                        "{inst} -> {col} should be invalid, got {got:?}"
                    ),
                }
            }
        }
    }

    /// ISA Table 26 (same sizes): rows instruction kind, columns operand kind b s u f.
    #[test]
    fn table_26_every_cell() {
        let by_kind = [B32, S32, U32, F32];
        let table = [(B32, "oooo"), (S32, "ooox"), (U32, "ooox"), (F32, "oxxo")];
        for (inst, cells) in table {
            for (op, want) in by_kind.iter().zip(cells.chars()) {
                let got = src_conv(inst, *op, TypeRule::Strict);
                assert_eq!(got.is_ok(), want == 'o', "{inst} with {op}: {got:?}");
            }
        }
        // Strict rules need equal sizes.
        assert!(src_conv(U32, U64, TypeRule::Strict).is_err());
        assert!(src_conv(B16, B32, TypeRule::Strict).is_err());
    }

    #[test]
    fn constants_convert_per_isa_4_5() {
        assert_eq!(convert_const(Const::S64(-1), U16), Ok(0xffff));
        assert_eq!(convert_const(Const::F64(1.0), F32), Ok(0x3f80_0000));
        assert_eq!(convert_const(Const::F32(1.5), F64), Ok(1.5f64.to_bits()));
        assert_eq!(convert_const(Const::F64(1.0), B32), Ok(0x3f80_0000));
        assert_eq!(convert_const(Const::S64(5), Pred), Ok(1));
        assert!(convert_const(Const::S64(1), F32).is_err());
        assert!(convert_const(Const::F64(1.0), S32).is_err());
    }
}
