//! Bitwise expressions for a truth table of three inputs (for `lop3`): Shannon expansion with
//! constant folding and De Morgan's laws, over every order of the inputs, keeping the expression
//! with the fewest distinct operations.

use crate::check::Map as HashMap;
use crate::ir::build::Build;

use super::cx::Cx;
use crate::ir::{BinOp, Ty, UnOp, ValueId};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Expr {
    Zero,
    Ones,
    /// Input `k` (0 = `a`, the table's most significant selector).
    Var(usize),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
}

use Expr::*;

fn not(x: Expr) -> Expr {
    match x {
        Zero => Ones,
        Ones => Zero,
        Not(x) => *x,
        x => Not(Box::new(x)),
    }
}

fn and(x: Expr, y: Expr) -> Expr {
    match (x, y) {
        (Zero, _) | (_, Zero) => Zero,
        (Ones, z) | (z, Ones) => z,
        // ~a & ~b = ~(a | b)
        (Not(a), Not(b)) => not(Or(a, b)),
        (x, y) => And(Box::new(x), Box::new(y)),
    }
}

fn or(x: Expr, y: Expr) -> Expr {
    not(and(not(x), not(y)))
}

fn xor(x: Expr, y: Expr) -> Expr {
    match (x, y) {
        (Zero, z) | (z, Zero) => z,
        (Ones, z) | (z, Ones) => not(z),
        (Not(a), Not(b)) => Xor(a, b),
        (Not(a), b) | (b, Not(a)) => not(Xor(a, Box::new(b))),
        (x, y) => Xor(Box::new(x), Box::new(y)),
    }
}

/// The function of `vars` (input numbers, most significant selector first) whose truth table
/// over them is `table`.
fn shannon(vars: &[usize], table: u32) -> Expr {
    let Some((&first, rest)) = vars.split_first() else {
        return if table & 1 == 1 { Ones } else { Zero };
    };
    let half = 1u32 << rest.len();
    let mask = (1u32 << half) - 1;
    let (hi, lo) = ((table >> half) & mask, table & mask);
    let x = Var(first);
    if hi == lo {
        return shannon(rest, lo);
    }
    if hi == !lo & mask {
        // x ? ~f0 : f0
        return xor(x, shannon(rest, lo));
    }
    let (f0, f1) = (shannon(rest, lo), shannon(rest, hi));
    match (f0, f1) {
        (Zero, f1) => and(x, f1),
        (f0, Zero) => and(not(x), f0),
        (f0, Ones) => or(x, f0),
        (Ones, f1) => or(not(x), f1),
        // f0 ^ (x & (f0 ^ f1)) picks f1 where x is set and f0 elsewhere.
        (f0, f1) => xor(f0.clone(), and(x, xor(f0, f1))),
    }
}

/// The truth table of inputs `order` (a permutation of 0, 1, 2) for the `lop3` table `lut`,
/// whose bit `4a + 2b + c` is `F(a, b, c)`.
fn permuted(lut: u8, order: [usize; 3]) -> u32 {
    (0..8u32).fold(0, |t, i| {
        let bit = |k: usize| (i >> (2 - order.iter().position(|&o| o == k).unwrap_or(k))) & 1;
        let j = (bit(0) << 2) | (bit(1) << 1) | bit(2);
        t | ((u32::from(lut) >> j) & 1) << i
    })
}

/// The distinct operations of `e`.
fn cost(e: &Expr, seen: &mut Vec<Expr>) -> usize {
    match e {
        Zero | Ones | Var(_) => 0,
        _ if seen.contains(e) => 0,
        Not(x) => {
            seen.push(e.clone());
            1 + cost(x, seen)
        }
        And(x, y) | Or(x, y) | Xor(x, y) => {
            seen.push(e.clone());
            1 + cost(x, seen) + cost(y, seen)
        }
    }
}

/// The cheapest expression found for the `lop3` table `lut`.
pub(super) fn lop3_expr(lut: u8) -> Expr {
    const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    ORDERS
        .iter()
        .map(|&o| shannon(&o, permuted(lut, o)))
        .min_by_key(|e| cost(e, &mut Vec::new()))
        .unwrap_or(Zero)
}

/// Emits `e` over the 32-bit `inputs`, each distinct subexpression once.
pub(super) fn emit(cx: &mut Cx<'_>, e: &Expr, inputs: &[ValueId; 3]) -> ValueId {
    fn go(
        cx: &mut Cx<'_>,
        e: &Expr,
        inputs: &[ValueId; 3],
        done: &mut HashMap<Expr, ValueId>,
    ) -> ValueId {
        if let Some(v) = done.get(e) {
            return *v;
        }
        let v = match e {
            Zero => cx.b.konst(Ty::I32, 0),
            Ones => cx.b.konst(Ty::I32, u64::from(u32::MAX)),
            Var(k) => inputs[*k],
            Not(x) => {
                let x = go(cx, x, inputs, done);
                cx.b.un(UnOp::Not, x)
            }
            And(x, y) | Or(x, y) | Xor(x, y) => {
                let op = match e {
                    And(..) => BinOp::And,
                    Or(..) => BinOp::Or,
                    _ => BinOp::Xor,
                };
                let x = go(cx, x, inputs, done);
                let y = go(cx, y, inputs, done);
                cx.b.bin(op, x, y)
            }
        };
        done.insert(e.clone(), v);
        v
    }
    go(cx, e, inputs, &mut HashMap::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(e: &Expr, v: [u8; 3]) -> u8 {
        match e {
            Zero => 0,
            Ones => 0xff,
            Var(k) => v[*k],
            Not(x) => !eval(x, v),
            And(x, y) => eval(x, v) & eval(y, v),
            Or(x, y) => eval(x, v) | eval(y, v),
            Xor(x, y) => eval(x, v) ^ eval(y, v),
        }
    }

    /// The ISA defines immLut as F(0xF0, 0xCC, 0xAA): evaluating the expression on those
    /// constants must give the table back, for every table.
    #[test]
    fn every_lut_is_its_own_function() {
        for lut in 0..=255u8 {
            let e = lop3_expr(lut);
            assert_eq!(eval(&e, [0xF0, 0xCC, 0xAA]), lut, "{lut:#04x}: {e:?}");
        }
    }

    #[test]
    fn expressions_are_small() {
        let costs: Vec<usize> = (0..=255u8)
            .map(|l| cost(&lop3_expr(l), &mut Vec::new()))
            .collect();
        // a & b & c, a | b | c, a ^ b ^ c, a, ~c, constants.
        assert_eq!(costs[0x80], 2);
        assert_eq!(costs[0xfe], 2);
        assert_eq!(costs[0x96], 2);
        assert_eq!(costs[0xf0], 0);
        assert_eq!(costs[0x55], 1);
        assert_eq!(costs[0x00], 0);
        assert_eq!(costs[0xff], 0);
        let max = costs.iter().max().copied().unwrap_or(0);
        let total: usize = costs.iter().sum();
        assert!(
            max <= 7 && total <= 1000,
            "max {max}, total {total}: {costs:?}"
        );
    }
}
