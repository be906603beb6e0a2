//! Arithmetic: binary operations (with float operations kept exact) and GLSL.std.450
//! extended instructions.

use rspirv::spirv::{Decoration, GlslStd450Op, Op as S, Word};

use crate::emit::func::FnEmitter;
use crate::ir::{BinOp, ExtOp, FpFlags, Ty};

impl FnEmitter<'_, '_> {
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        rt: Word,
        operand_ty: Ty,
        a: Word,
        b: Word,
        flags: FpFlags,
    ) -> Word {
        if let Some(id) = self.zero_operand(op, rt, operand_ty, a, b) {
            return id;
        }
        let boolean = operand_ty == Ty::Bool;
        let code = match op {
            BinOp::IAdd => S::IAdd,
            BinOp::ISub => S::ISub,
            BinOp::IMul => S::IMul,
            BinOp::UDiv => S::UDiv,
            BinOp::SDiv => S::SDiv,
            BinOp::UMod => S::UMod,
            BinOp::Shl => S::ShiftLeftLogical,
            BinOp::LShr => S::ShiftRightLogical,
            BinOp::AShr => S::ShiftRightArithmetic,
            BinOp::And if boolean => S::LogicalAnd,
            BinOp::Or if boolean => S::LogicalOr,
            BinOp::Xor if boolean => S::LogicalNotEqual,
            BinOp::And => S::BitwiseAnd,
            BinOp::Or => S::BitwiseOr,
            BinOp::Xor => S::BitwiseXor,
            BinOp::UMulHi | BinOp::SMulHi => {
                let st = self.e.struct_of(&[rt, rt]);
                let code = if op == BinOp::UMulHi {
                    S::UMulExtended
                } else {
                    S::SMulExtended
                };
                let both = self.e.op(code, st, [a, b]);
                return self.e.extract(rt, both, 1);
            }
            BinOp::FAdd => S::FAdd,
            BinOp::FSub => S::FSub,
            BinOp::FMul => S::FMul,
            BinOp::FDiv => S::FDiv,
            BinOp::IEq if boolean => S::LogicalEqual,
            BinOp::INe if boolean => S::LogicalNotEqual,
            BinOp::IEq => S::IEqual,
            BinOp::INe => S::INotEqual,
            BinOp::ULt => S::ULessThan,
            BinOp::ULe => S::ULessThanEqual,
            BinOp::UGt => S::UGreaterThan,
            BinOp::UGe => S::UGreaterThanEqual,
            BinOp::SLt => S::SLessThan,
            BinOp::SLe => S::SLessThanEqual,
            BinOp::SGt => S::SGreaterThan,
            BinOp::SGe => S::SGreaterThanEqual,
            BinOp::FOrdEq => S::FOrdEqual,
            BinOp::FOrdNe => S::FOrdNotEqual,
            BinOp::FOrdLt => S::FOrdLessThan,
            BinOp::FOrdLe => S::FOrdLessThanEqual,
            BinOp::FOrdGt => S::FOrdGreaterThan,
            BinOp::FOrdGe => S::FOrdGreaterThanEqual,
            BinOp::FUnordEq => S::FUnordEqual,
            BinOp::FUnordNe => S::FUnordNotEqual,
            BinOp::FUnordLt => S::FUnordLessThan,
            BinOp::FUnordLe => S::FUnordLessThanEqual,
            BinOp::FUnordGt => S::FUnordGreaterThan,
            BinOp::FUnordGe => S::FUnordGreaterThanEqual,
        };
        let id = self.e.op(code, rt, [a, b]);
        // Every add, sub and mul is exact: Mesa folds `x - x`, `x + 0`, `x * 0` and `0 - -x`
        // of the others, wrong for infinities, NaNs and signed zeros (PTX only lets a driver
        // fuse them into fmas). docs/decisions/0192-float-arithmetic-is-exact.md.
        if matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul) || flags.exact && op == BinOp::FDiv
        {
            self.e.b.decorate(id, Decoration::NoContraction, []);
        }
        id
    }
}

impl FnEmitter<'_, '_> {
    /// An add, sub or mul with a constant zero operand, spelled without it. lavapipe's code
    /// builder takes `x + 0.0` for `x` and `x * 0.0` for `+0.0` whatever the float controls say,
    /// and Mesa's NIR rewrites `x - -0.0` to `x + 0.0` and `0.0 - x` to `-x`: wrong for signed
    /// zeros, infinities and NaNs (docs/decisions/0192-float-arithmetic-is-exact.md,
    /// docs/decisions/0198-signed-zero-inf-nan-preserve.md).
    fn zero_operand(&mut self, op: BinOp, rt: Word, ty: Ty, a: Word, b: Word) -> Option<Word> {
        let int = match ty {
            Ty::F32 => Ty::I32,
            Ty::F64 => Ty::I64,
            _ => return None,
        };
        if !matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul) {
            return None;
        }
        let sign_bit = 1u64 << (int.bits() - 1);
        let zero = self.e.konst(ty, 0);
        // (0 is no id: with no `-0.0` declared, no operand is one.)
        let neg_zero = self.e.declared_konst(ty, sign_bit).unwrap_or(0);
        let is_zero = |w: Word| w == zero || w == neg_zero;
        if !is_zero(a) && !is_zero(b) {
            return None;
        }
        let bool_ty = self.e.ty(Ty::Bool);
        // `+0.0` for a zero `x` (`-0.0 + 0.0` and `0.0 - 0.0` are `+0.0`), else `other`.
        let zero_or = |s: &mut Self, x: Word, other: Word| {
            let is_zero = s.e.op(S::FOrdEqual, bool_ty, [x, zero]);
            s.e.op(S::Select, rt, [is_zero, zero, other])
        };
        match op {
            // `x + -0.0` is `x` for every `x`.
            BinOp::FAdd if a == neg_zero => Some(b),
            BinOp::FAdd if b == neg_zero => Some(a),
            BinOp::FAdd => {
                let x = if a == zero { b } else { a };
                Some(zero_or(self, x, x))
            }
            // `x - 0.0` is `x + -0.0`; `x - -0.0` is `x + 0.0`.
            BinOp::FSub if b == zero => Some(a),
            BinOp::FSub if b == neg_zero => Some(zero_or(self, a, a)),
            BinOp::FSub => {
                let neg = self.e.op(S::FNegate, rt, [b]);
                // `-0.0 - x` is `-x` for every `x`.
                Some(if a == zero {
                    zero_or(self, b, neg)
                } else {
                    neg
                })
            }
            _ => {
                // `x - x` is `+0.0` for a finite `x` and NaN otherwise; the product's sign is
                // `x`'s, flipped by a `-0.0`.
                let (x, k) = if is_zero(a) { (b, a) } else { (a, b) };
                let diff = self.e.op(S::FSub, rt, [x, x]);
                self.e.b.decorate(diff, Decoration::NoContraction, []);
                let it = self.e.ty(int);
                let sign = self.e.konst(int, sign_bit);
                let xb = self.e.op(S::Bitcast, it, [x]);
                let db = self.e.op(S::Bitcast, it, [diff]);
                let mut xs = self.e.op(S::BitwiseAnd, it, [xb, sign]);
                if k == neg_zero {
                    xs = self.e.op(S::BitwiseXor, it, [xs, sign]);
                }
                let r = self.e.op(S::BitwiseOr, it, [db, xs]);
                Some(self.e.op(S::Bitcast, rt, [r]))
            }
        }
    }
}

pub(super) fn ext_opcode(op: ExtOp) -> GlslStd450Op {
    match op {
        ExtOp::Fma => GlslStd450Op::Fma,
        ExtOp::FAbs => GlslStd450Op::FAbs,
        ExtOp::SAbs => GlslStd450Op::SAbs,
        ExtOp::FMin => GlslStd450Op::FMin,
        ExtOp::FMax => GlslStd450Op::FMax,
        ExtOp::UMin => GlslStd450Op::UMin,
        ExtOp::UMax => GlslStd450Op::UMax,
        ExtOp::SMin => GlslStd450Op::SMin,
        ExtOp::SMax => GlslStd450Op::SMax,
        ExtOp::Sqrt => GlslStd450Op::Sqrt,
        ExtOp::InverseSqrt => GlslStd450Op::InverseSqrt,
        ExtOp::Sin => GlslStd450Op::Sin,
        ExtOp::Cos => GlslStd450Op::Cos,
        ExtOp::Exp2 => GlslStd450Op::Exp2,
        ExtOp::Log2 => GlslStd450Op::Log2,
        ExtOp::Floor => GlslStd450Op::Floor,
        ExtOp::Ceil => GlslStd450Op::Ceil,
        ExtOp::Trunc => GlslStd450Op::Trunc,
        ExtOp::RoundEven => GlslStd450Op::RoundEven,
        ExtOp::FindUMsb => GlslStd450Op::FindUMsb,
        ExtOp::FindSMsb => GlslStd450Op::FindSMsb,
    }
}
