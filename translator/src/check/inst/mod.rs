//! Instruction decoding: opcode + modifiers + operands -> a typed [`Op`].
//!
//! One file per instruction family; each decoder applies the ISA's syntax and type rules for its
//! instructions. What an instruction *does* is in `lower/`, in the file of the same name.

mod arith;
mod cmp;
mod control;
mod data;
// --- float ---
mod float;
mod float_rules;
// --- end float ---
mod logic;
mod sync;

use super::FnCx;
use super::mods::Mods;
use super::typed::*;
use crate::ast;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

pub use arith::{Arith, MulMode};
pub use cmp::{BoolOp, CmpOp, Setp};
pub use control::{Bra, Call, CallArg};
pub use data::{Cvt, Cvta, Isspacep, Ld, MemSem, Mov, Scope, St};
pub use sync::{Bar, BarKind, BarRed};
// --- float ---
pub use cmp::{SETP_TYPES, Set, Slct};
pub use float::{Float, FloatOp, Precision, TestOp};
// --- end float ---

/// A decoded instruction.
#[derive(Clone, Debug)]
pub enum Op {
    Add(Arith),
    Sub(Arith),
    Mul(Arith),
    Mad(Arith),
    Div(Arith),
    Rem(Arith),
    Abs(Arith),
    Neg(Arith),
    Min(Arith),
    Max(Arith),
    Setp(Setp),
    Selp(Arith),
    And(Arith),
    Or(Arith),
    Xor(Arith),
    Not(Arith),
    Shl(Arith),
    Shr(Arith),
    Mov(Mov),
    Ld(Ld),
    St(St),
    Cvta(Cvta),
    Cvt(Cvt),
    Isspacep(Isspacep),
    Bra(Bra),
    Call(Call),
    Bar(Bar),
    /// `membar`/`fence` at a scope.
    Membar(Scope),
    Ret,
    Exit,
    // --- float ---
    /// Every floating-point instruction form (ISA 8.7.3 and the half-precision forms).
    Float(Float),
    Set(Set),
    Slct(Slct),
    // --- end float ---
}

/// Rounding modifiers (ISA 6.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Floating-point results: nearest even, toward zero, toward -inf, toward +inf.
    Rn,
    Rz,
    Rm,
    Rp,
    /// Integer results (cvt to integer, cvt.rni.f32.f32): same directions, to an integer.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

pub const FLOAT_ROUNDING: [(&str, Rounding); 4] = [
    ("rn", Rounding::Rn),
    ("rz", Rounding::Rz),
    ("rm", Rounding::Rm),
    ("rp", Rounding::Rp),
];

pub const INT_ROUNDING: [(&str, Rounding); 4] = [
    ("rni", Rounding::Rni),
    ("rzi", Rounding::Rzi),
    ("rmi", Rounding::Rmi),
    ("rpi", Rounding::Rpi),
];

use ScalarType::*;
pub const INTS: &[ScalarType] = &[U16, U32, U64, S16, S32, S64];
pub const SIGNED: &[ScalarType] = &[S16, S32, S64];
pub const FLOATS: &[ScalarType] = &[F32, F64];
pub const BITS: &[ScalarType] = &[B16, B32, B64];

/// Decodes one instruction statement. Errors are reported on `cx`; `None` means it was invalid.
pub(crate) fn decode(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) -> Option<Inst> {
    let guard = match &i.guard {
        Some(g) => Some(cx.guard(g)?),
        None => None,
    };
    let mut m = Mods::new(i);
    let op = match i.opcode.node {
        // --- float ---
        "add" | "sub" | "mul" | "mad" | "div" | "abs" | "neg" | "min" | "max"
            if float::has_float_type(i) =>
        {
            float::decode(cx, i, &mut m)
        }
        "fma" | "testp" | "copysign" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2"
        | "tanh" => float::decode(cx, i, &mut m),
        "set" => cmp::set(cx, i, &mut m).map(Op::Set),
        "slct" => cmp::slct(cx, i, &mut m).map(Op::Slct),
        // --- end float ---
        "add" => arith::add(cx, i, &mut m).map(Op::Add),
        "sub" => arith::add(cx, i, &mut m).map(Op::Sub),
        "mul" => arith::mul(cx, i, &mut m).map(Op::Mul),
        "mad" => arith::mad(cx, i, &mut m).map(Op::Mad),
        "div" => arith::div(cx, i, &mut m).map(Op::Div),
        "rem" => arith::rem(cx, i, &mut m).map(Op::Rem),
        "abs" => arith::abs_neg(cx, i, &mut m, false).map(Op::Abs),
        "neg" => arith::abs_neg(cx, i, &mut m, true).map(Op::Neg),
        "min" => arith::min_max(cx, i, &mut m).map(Op::Min),
        "max" => arith::min_max(cx, i, &mut m).map(Op::Max),
        "setp" => cmp::setp(cx, i, &mut m).map(Op::Setp),
        "selp" => cmp::selp(cx, i, &mut m).map(Op::Selp),
        "and" => logic::bitwise(cx, i, &mut m, 3).map(Op::And),
        "or" => logic::bitwise(cx, i, &mut m, 3).map(Op::Or),
        "xor" => logic::bitwise(cx, i, &mut m, 3).map(Op::Xor),
        "not" => logic::bitwise(cx, i, &mut m, 2).map(Op::Not),
        "shl" => logic::shift(cx, i, &mut m, false).map(Op::Shl),
        "shr" => logic::shift(cx, i, &mut m, true).map(Op::Shr),
        "mov" => data::mov(cx, i, &mut m).map(Op::Mov),
        "ld" => data::ld(cx, i, &mut m).map(Op::Ld),
        "st" => data::st(cx, i, &mut m).map(Op::St),
        "cvta" => data::cvta(cx, i, &mut m).map(Op::Cvta),
        "cvt" => data::cvt(cx, i, &mut m).map(Op::Cvt),
        "isspacep" => data::isspacep(cx, i, &mut m).map(Op::Isspacep),
        "bra" => control::bra(cx, i, &mut m).map(Op::Bra),
        "call" => control::call(cx, i, &mut m).map(Op::Call),
        "bar" | "barrier" => sync::bar(cx, i, &mut m).map(Op::Bar),
        "membar" | "fence" => sync::membar(cx, i, &mut m).map(Op::Membar),
        "ret" => control::no_operands(cx, i, &mut m, &["uni"]).map(|_| Op::Ret),
        "exit" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Exit),
        other => {
            cx.error(
                Diagnostic::error(
                    i.opcode.span,
                    format!("unknown or unsupported instruction `{other}`"),
                )
                .with_label("not an instruction ptxvk translates yet"),
            );
            return None;
        }
    };
    let errors = if op.is_some() {
        m.finish()
    } else {
        std::mem::take(&mut m.errors)
    };
    let failed = !errors.is_empty();
    for e in errors {
        cx.error(e);
    }
    if failed {
        return None;
    }
    Some(Inst {
        guard,
        op: op?,
        span: i.span,
    })
}

/// The operands, which must be exactly `n`.
pub(super) fn operands<'o, 'a>(
    cx: &mut FnCx<'_, '_>,
    i: &'o ast::Instruction<'a>,
    n: usize,
) -> Option<&'o [ast::Operand<'a>]> {
    if i.operands.len() != n {
        let found = i.operands.len();
        cx.error(
            Diagnostic::error(
                i.span,
                format!(
                    "`{}` takes {n} operand{}, found {found}",
                    i.opcode.node,
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_label(format!("expected {n}")),
        );
        return None;
    }
    Some(&i.operands)
}

/// State-space modifiers of memory instructions; `None` means generic.
pub(super) fn space_modifier(m: &mut Mods<'_, '_>) -> Option<StateSpace> {
    m.pick(&[
        ("global", StateSpace::Global),
        ("shared", StateSpace::Shared),
        ("shared::cta", StateSpace::Shared),
        ("local", StateSpace::Local),
        ("param", StateSpace::Param),
        ("param::entry", StateSpace::Param),
        ("param::func", StateSpace::Param),
        ("const", StateSpace::Const),
    ])
}
