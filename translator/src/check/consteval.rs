//! Constant expression evaluation (ISA 4.6.3-4.6.5, Table 5).

use crate::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::diag::Diagnostic;
use crate::types::ScalarType;

/// The value of a constant expression: `.s64`, `.u64` or `.f64`, or an exact `.f32` literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    S64(i64),
    U64(u64),
    F64(f64),
    /// `0fXXXXXXXX`: kept exact; ISA 4.6.1 forbids it inside larger expressions.
    F32(f32),
}

impl Const {
    fn is_float(self) -> bool {
        matches!(self, Const::F64(_) | Const::F32(_))
    }

    pub fn as_bits_u64(self) -> u64 {
        match self {
            Const::S64(v) => v as u64,
            Const::U64(v) => v,
            Const::F64(v) => v.to_bits(),
            Const::F32(v) => u64::from(v.to_bits()),
        }
    }
}

/// Looks up names that are constants (only `WARP_SZ` in PTX).
pub fn named_constant(name: &str) -> Option<Const> {
    match name {
        "WARP_SZ" | "%WARP_SZ" => Some(Const::S64(32)),
        _ => None,
    }
}

pub fn eval(e: &Expr<'_>) -> Result<Const, Diagnostic> {
    let span = e.span;
    let int_only = |what: &str| {
        Diagnostic::error(span, format!("{what} needs integer operands"))
            .with_label("a floating-point value here")
    };
    Ok(match &e.kind {
        ExprKind::Int { value, unsigned } => {
            if *unsigned {
                Const::U64(*value)
            } else {
                Const::S64(*value as i64)
            }
        }
        ExprKind::Float(v) => Const::F64(*v),
        ExprKind::F64Bits(b) => Const::F64(f64::from_bits(*b)),
        ExprKind::F32Bits(b) => Const::F32(f32::from_bits(*b)),
        ExprKind::Name(n) => named_constant(n).ok_or_else(|| {
            Diagnostic::error(span, format!("`{n}` is not a constant"))
                .with_label("expected a constant expression")
        })?,
        ExprKind::Generic(_) => {
            return Err(Diagnostic::error(
                span,
                "`generic(...)` is only allowed in variable initializers",
            ));
        }
        ExprKind::Unary(op, inner) => {
            let v = eval_operand(inner)?;
            match (op, v) {
                (UnaryOp::Plus, v) => v,
                (UnaryOp::Neg, Const::S64(x)) => Const::S64(x.wrapping_neg()),
                (UnaryOp::Neg, Const::U64(x)) => Const::U64(x.wrapping_neg()),
                (UnaryOp::Neg, Const::F64(x)) => Const::F64(-x),
                (UnaryOp::Neg, Const::F32(x)) => Const::F32(-x),
                (UnaryOp::Not, v) if !v.is_float() => Const::U64(!v.as_bits_u64()),
                (UnaryOp::LogicalNot, v) if !v.is_float() => {
                    Const::S64(i64::from(v.as_bits_u64() == 0))
                }
                _ => return Err(int_only("`~` and `!`")),
            }
        }
        ExprKind::Cast(ty, inner) => {
            let v = eval_operand(inner)?;
            if v.is_float() {
                return Err(int_only("a cast"));
            }
            match ty {
                ScalarType::U64 => Const::U64(v.as_bits_u64()),
                _ => Const::S64(v.as_bits_u64() as i64),
            }
        }
        ExprKind::Cond(c, a, b) => {
            let c = eval_operand(c)?;
            if c.is_float() {
                return Err(int_only("the condition of `?:`"));
            }
            let (a, b) = (eval_operand(a)?, eval_operand(b)?);
            let pick_a = c.as_bits_u64() != 0;
            match (a, b) {
                (Const::F64(_), Const::F64(_)) => {
                    if pick_a {
                        a
                    } else {
                        b
                    }
                }
                (x, y) if !x.is_float() && !y.is_float() => {
                    let unsigned = matches!(x, Const::U64(_)) || matches!(y, Const::U64(_));
                    let v = if pick_a { x } else { y };
                    if unsigned {
                        Const::U64(v.as_bits_u64())
                    } else {
                        v
                    }
                }
                _ => {
                    return Err(Diagnostic::error(
                        span,
                        "the two arms of `?:` must both be integers or both floating-point",
                    ));
                }
            }
        }
        ExprKind::Binary(op, a, b) => binary(*op, eval_operand(a)?, eval_operand(b)?, span)?,
    })
}

/// An operand of a larger expression: `0f` literals may not appear there (ISA 4.6.1).
fn eval_operand(e: &Expr<'_>) -> Result<Const, Diagnostic> {
    match eval(e)? {
        Const::F32(_) => Err(Diagnostic::error(
            e.span,
            "a `0f` single-precision constant cannot be used in a constant expression",
        )
        .with_note("ISA 4.6.1: such values keep their exact 32-bit value and may not be combined")),
        v => Ok(v),
    }
}

fn binary(op: BinaryOp, a: Const, b: Const, span: crate::diag::Span) -> Result<Const, Diagnostic> {
    use BinaryOp::*;
    if a.is_float() || b.is_float() {
        let (Const::F64(x), Const::F64(y)) = (a, b) else {
            return Err(Diagnostic::error(
                span,
                "constant expressions do not convert between integer and floating-point",
            ));
        };
        let t = |c: bool| Const::S64(i64::from(c));
        return Ok(match op {
            Add => Const::F64(x + y),
            Sub => Const::F64(x - y),
            Mul => Const::F64(x * y),
            Div => Const::F64(x / y),
            Lt => t(x < y),
            Gt => t(x > y),
            Le => t(x <= y),
            Ge => t(x >= y),
            Eq => t(x == y),
            Ne => t(x != y),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "this operator needs integer operands",
                ));
            }
        });
    }
    let unsigned = matches!(a, Const::U64(_)) || matches!(b, Const::U64(_));
    let (x, y) = (a.as_bits_u64(), b.as_bits_u64());
    let (sx, sy) = (x as i64, y as i64);
    let typed = |v: u64| {
        if unsigned {
            Const::U64(v)
        } else {
            Const::S64(v as i64)
        }
    };
    let t = |c: bool| Const::S64(i64::from(c));
    let div_zero = || Diagnostic::error(span, "division by zero in a constant expression");
    Ok(match op {
        Add => typed(x.wrapping_add(y)),
        Sub => typed(x.wrapping_sub(y)),
        Mul => typed(x.wrapping_mul(y)),
        Div => {
            if y == 0 {
                return Err(div_zero());
            }
            if unsigned {
                Const::U64(x / y)
            } else {
                Const::S64(sx.wrapping_div(sy))
            }
        }
        // Table 5: `%` interprets its operands as .u64 and yields .s64.
        Rem => {
            if y == 0 {
                return Err(div_zero());
            }
            Const::S64((x % y) as i64)
        }
        // Shifts keep the first operand's type; the count is .u64; counts >= 64 shift everything out.
        Shl => {
            let v = if y >= 64 { 0 } else { x << y };
            match a {
                Const::U64(_) => Const::U64(v),
                _ => Const::S64(v as i64),
            }
        }
        Shr => match a {
            Const::U64(_) => Const::U64(if y >= 64 { 0 } else { x >> y }),
            _ => Const::S64(if y >= 64 { sx >> 63 } else { sx >> y }),
        },
        Lt => t(if unsigned { x < y } else { sx < sy }),
        Gt => t(if unsigned { x > y } else { sx > sy }),
        Le => t(if unsigned { x <= y } else { sx <= sy }),
        Ge => t(if unsigned { x >= y } else { sx >= sy }),
        Eq => t(x == y),
        Ne => t(x != y),
        // Table 5 lists `& | ^` as .u64 in, .u64 out; section 4.6.4 says "usual conversions". The
        // bit pattern is the same either way; we follow the usual conversions so `-1 & 3` stays signed.
        BitAnd => typed(x & y),
        BitOr => typed(x | y),
        BitXor => typed(x ^ y),
        LogicalAnd => t(x != 0 && y != 0),
        LogicalOr => t(x != 0 || y != 0),
    })
}

#[cfg(test)]
mod tests;
