//! The evaluation rules of ISA 4.6 (sections 4.6.1-4.6.5, Tables 4 and 5), one assertion per
//! rule, with the text's own examples where it gives them.

use super::*;
use crate::ast::{Initializer, Item};

/// Evaluates `e` as written in an initializer, through the real lexer and grammar.
fn eval_str(e: &str) -> Result<Const, String> {
    let src = format!(".global .u64 x = {e};");
    let (module, diags) = crate::parse::parse(&src);
    assert!(diags.is_empty(), "`{e}` does not parse: {diags:?}");
    let module = module.expect("a module");
    let Some(Item::Var(d)) = module.items.first() else {
        panic!("no declaration");
    };
    let Some(Initializer::Expr(expr)) = &d.names[0].init else {
        panic!("no initializer");
    };
    eval(expr).map_err(|d| d.message)
}

fn s(e: &str) -> i64 {
    match eval_str(e) {
        Ok(Const::S64(v)) => v,
        other => panic!("`{e}` should be .s64, got {other:?}"),
    }
}

fn u(e: &str) -> u64 {
    match eval_str(e) {
        Ok(Const::U64(v)) => v,
        other => panic!("`{e}` should be .u64, got {other:?}"),
    }
}

fn f(e: &str) -> f64 {
    match eval_str(e) {
        Ok(Const::F64(v)) => v,
        other => panic!("`{e}` should be .f64, got {other:?}"),
    }
}

fn err(e: &str) -> String {
    match eval_str(e) {
        Err(m) => m,
        Ok(v) => panic!("`{e}` should be an error, got {v:?}"),
    }
}

#[test]
fn literal_types() {
    // 4.6.4: "42, 0x1234, 0123 are signed. 0xfabc123400000000, 42U, 0x1234U are unsigned."
    assert_eq!(s("42"), 42);
    assert_eq!(s("0x1234"), 0x1234);
    assert_eq!(s("0123"), 0o123);
    assert_eq!(s("0b101"), 5);
    assert_eq!(u("0xfabc123400000000"), 0xfabc_1234_0000_0000);
    assert_eq!(u("42U"), 42);
    assert_eq!(u("0x1234U"), 0x1234);
    // The largest .s64 is signed; one more needs .u64.
    assert_eq!(s("9223372036854775807"), i64::MAX);
    assert_eq!(u("9223372036854775808"), 1 << 63);
    // 4.6: WARP_SZ is 32 on every target.
    assert_eq!(s("WARP_SZ"), 32);
    // 4.6.1: floating-point literals are .f64.
    assert_eq!(f("1.5e3"), 1500.0);
    assert_eq!(f("0d3FF0000000000000"), 1.0);
}

#[test]
fn unary_operators() {
    // "+123, -1, -(-42) are signed. -1U, -0xfabc123400000000 are unsigned."
    assert_eq!(s("+123"), 123);
    assert_eq!(s("-1"), -1);
    assert_eq!(s("-(-42)"), 42);
    assert_eq!(u("-1U"), u64::MAX);
    assert_eq!(
        u("-0xfabc123400000000"),
        0xfabc_1234_0000_0000u64.wrapping_neg()
    );
    // "!" gives .s64 0 or 1; "~" reads its operand as .u64 and gives .u64.
    assert_eq!(s("!0"), 1);
    assert_eq!(s("!7U"), 0);
    assert_eq!(u("~0"), u64::MAX);
    assert_eq!(u("~-1"), 0);
    // Unary operators associate right to left.
    assert_eq!(s("- - 3"), 3);
    assert_eq!(s("!~0"), 0);
    assert_eq!(f("-2.5"), -2.5);
}

#[test]
fn usual_arithmetic_conversions() {
    // "converts both operands to unsigned type if either operand is unsigned"
    assert_eq!(s("7 / 2"), 3);
    assert_eq!(s("-7 / 2"), -3);
    assert_eq!(u("-7 / 2U"), (-7i64 as u64) / 2);
    assert_eq!(u("1U - 2"), u64::MAX);
    assert_eq!(s("1 - 2"), -1);
    assert_eq!(u("3 * 5U"), 15);
    // Ordered comparisons convert, then give .s64: -1 < 1U compares as unsigned.
    assert_eq!(s("-1 < 1"), 1);
    assert_eq!(s("-1 < 1U"), 0);
    assert_eq!(s("2 >= 2"), 1);
    assert_eq!(s("3 == 3U"), 1);
    assert_eq!(s("3 != 3"), 0);
    // &, |, ^ (4.6.4: "perform the usual arithmetic conversions and produce a result with the
    // same type as the converted operands").
    assert_eq!(s("-1 & 3"), 3);
    assert_eq!(u("-1 & 3U"), 3);
    assert_eq!(s("6 ^ 3"), 5);
    assert_eq!(s("4 | 1"), 5);
    // && and || give .s64 0 or 1.
    assert_eq!(s("2 && 3"), 1);
    assert_eq!(s("0 || 0U"), 0);
}

#[test]
fn remainder_is_unsigned() {
    // Table 5: % reads both operands as .u64 and gives .s64 (unlike C for negative operands).
    assert_eq!(s("7 % 3"), 1);
    assert_eq!(s("-7 % 3"), ((-7i64 as u64) % 3) as i64);
    assert_eq!(s("7 % -3"), (7u64 % (-3i64 as u64)) as i64);
}

#[test]
fn shifts() {
    // "interpret the second operand as unsigned and produce a result with the same type as the
    // first operand": right shift is arithmetic for signed, logical for unsigned.
    assert_eq!(s("1 << 4"), 16);
    assert_eq!(s("-16 >> 2"), -4);
    assert_eq!(u("0xFFFFFFFFFFFFFFF0U >> 60"), 0xF);
    assert_eq!(s("1 << 4U"), 16);
    assert_eq!(u("1U << 63"), 1 << 63);
    // A count of 64 or more (-1 read as .u64 is one) shifts every bit out.
    assert_eq!(s("1 << 64"), 0);
    assert_eq!(s("1 << -1"), 0);
    assert_eq!(s("-8 >> 70"), -1);
    assert_eq!(u("8U >> 64"), 0);
}

#[test]
fn casts() {
    // (.s64) and (.u64) change the type, not the bits.
    assert_eq!(u("(.u64) -1"), u64::MAX);
    assert_eq!(s("(.s64) 0xFFFFFFFFFFFFFFFF"), -1);
    assert_eq!(s("(.s64) 0xFFFFFFFFFFFFFFFF >> 1"), -1);
    assert_eq!(u("(.u64) -2 >> 1"), u64::MAX >> 1);
    // "Constant expressions in PTX do not support casts between integer and floating-point."
    assert!(err("(.u64) 1.5").contains("integer"));
}

#[test]
fn ternary() {
    assert_eq!(s("1 ? 2 : 3"), 2);
    assert_eq!(s("0 ? 2 : 3"), 3);
    // The usual conversions apply to the second and third operands.
    assert_eq!(u("1 ? 2 : 3U"), 2);
    assert_eq!(f("0 ? 1.0 : 2.5"), 2.5);
    // Right-associative.
    assert_eq!(s("0 ? 1 : 0 ? 2 : 3"), 3);
    assert_eq!(s("1 ? 1 : 0 ? 2 : 3"), 1);
    // "the first operand must be an integer, and the second and third operands are either both
    // integers or both floating-point"
    assert!(err("1.0 ? 1 : 2").contains("integer"));
    assert!(err("1 ? 1 : 2.0").contains("both"));
}

#[test]
fn precedence_follows_table_4() {
    assert_eq!(s("1 + 2 * 3"), 7);
    assert_eq!(s("(1 + 2) * 3"), 9);
    assert_eq!(s("10 - 4 - 3"), 3);
    assert_eq!(s("24 / 4 / 2"), 3);
    // Shifts bind looser than + and tighter than <.
    assert_eq!(s("1 << 2 + 1"), 8);
    assert_eq!(s("1 << 2 < 5"), 1);
    // < before ==, == before &, & before ^, ^ before |.
    assert_eq!(s("1 < 2 == 1"), 1);
    assert_eq!(s("2 == 2 & 3"), 1);
    assert_eq!(s("1 | 2 ^ 3 & 4"), 3);
    // | before &&, && before ||, || before ?:.
    assert_eq!(s("0 && 0 || 1"), 1);
    assert_eq!(s("1 || 0 && 0"), 1);
    assert_eq!(s("0 || 1 ? 5 : 6"), 5);
    // Unary binds tighter than binary.
    assert_eq!(s("-2 * -3"), 6);
    // `==` before `&`: `~0 & (7 == 7)`, unsigned because `~` is.
    assert_eq!(u("~0 & 7 == 7"), 1);
}

#[test]
fn floating_point_rules() {
    // 4.6.1: evaluated in 64-bit double precision.
    assert_eq!(f("1.5 * 2.0"), 3.0);
    assert_eq!(f("1.0 / 3.0"), 1.0 / 3.0);
    assert_eq!(f("0.1 + 0.2"), 0.1 + 0.2);
    assert_eq!(s("1.5 < 2.0"), 1);
    assert_eq!(s("1.5 == 1.5"), 1);
    // Integer-only operators refuse floating-point operands.
    for e in [
        "1.0 % 2.0",
        "1.0 << 1",
        "1.0 & 1.0",
        "~1.0",
        "!1.0",
        "1.0 && 1.0",
    ] {
        let _ = err(e);
    }
    // No implicit conversion between integer and floating point.
    assert!(err("1 + 1.0").contains("do not convert"));
    // "the 32-bit hex notation ... may not be used in constant expressions"
    assert!(err("0f3F800000 + 1.0").contains("single-precision"));
    assert!(matches!(eval_str("0f3F800000"), Ok(Const::F32(v)) if v == 1.0));
}

#[test]
fn division_by_zero_is_an_error() {
    assert!(err("1 / 0").contains("division by zero"));
    assert!(err("1U % 0").contains("division by zero"));
    assert!(err("5 / (3 - 3)").contains("division by zero"));
    // Floating-point division by zero follows IEEE 754 (it is not an integer operation).
    assert_eq!(f("1.0 / 0.0"), f64::INFINITY);
    // The most negative value divided by -1 wraps (the ISA defines every case; C does not).
    assert_eq!(s("(-9223372036854775807 - 1) / -1"), i64::MIN);
}

#[test]
fn names_that_are_not_constants() {
    assert!(err("foo + 1").contains("not a constant"));
}
