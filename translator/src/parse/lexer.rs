//! Tokens of PTX source (ISA 4.1-4.6).

use std::fmt;

use chumsky::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'a> {
    /// `.name`: a directive, a modifier or a vector selector, without the dot.
    Dot(&'a str),
    /// An identifier (ISA 4.4), including `%`- and `$`-names and the sink `_`.
    Ident(&'a str),
    /// An integer literal; `unsigned` per ISA 4.6 (a `U` suffix, or too large for `.s64`).
    Int {
        value: u64,
        unsigned: bool,
    },
    /// A decimal floating-point literal.
    Float(f64),
    F32Bits(u32),
    F64Bits(u64),
    Str(&'a str),
    Punct(&'static str),
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Dot(s) => write!(f, ".{s}"),
            Token::Ident(s) => write!(f, "{s}"),
            Token::Int { value, unsigned } => {
                write!(f, "{value}{}", if *unsigned { "U" } else { "" })
            }
            Token::Float(v) => write!(f, "{v}"),
            Token::F32Bits(b) => write!(f, "0f{b:08X}"),
            Token::F64Bits(b) => write!(f, "0d{b:016X}"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Punct(p) => write!(f, "{p}"),
        }
    }
}

pub type LexErr<'a> = extra::Err<Rich<'a, char, SimpleSpan>>;

const PUNCT2: [&str; 8] = ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];
const PUNCT1: [&str; 23] = [
    "{", "}", "(", ")", "[", "]", ",", ";", ":", "@", "!", "+", "-", "*", "/", "%", "~", "&", "|",
    "^", "<", ">", "=",
];

fn is_follow(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

pub fn lexer<'a>() -> impl Parser<'a, &'a str, Vec<(Token<'a>, SimpleSpan)>, LexErr<'a>> {
    let follow = any().filter(|c: &char| is_follow(*c));

    // A name: [a-zA-Z]{followsym}* | [_$%]{followsym}+ ; the sink `_` alone is allowed too.
    let ident = any()
        .filter(|c: &char| c.is_ascii_alphabetic())
        .then(follow.repeated())
        .to_slice()
        .or(one_of("_$%").then(follow.repeated().at_least(1)).to_slice())
        .or(just("_").to_slice())
        .map(Token::Ident);

    // `.name`, and the newer scoped forms `.shared::cta`, `.L2::128B`.
    let dot = just('.')
        .ignore_then(
            any()
                .filter(|c: &char| c.is_ascii_alphabetic() || *c == '_')
                .then(follow.repeated())
                .then(just("::").then(follow.repeated().at_least(1)).repeated())
                .to_slice(),
        )
        .map(Token::Dot);
    // The texture geometries `.1d .2d .3d .2dms` start with a digit (ISA 8.7.7.3); floats
    // never start with a dot, so these are unambiguous.
    let geometry_dot = just('.')
        .ignore_then(
            one_of("123")
                .then(just('d'))
                .then(follow.repeated())
                .to_slice(),
        )
        .map(Token::Dot);
    let dot = geometry_dot.or(dot);

    let hex_bits = |n: usize| {
        any()
            .filter(|c: &char| c.is_ascii_hexdigit())
            .repeated()
            .exactly(n)
            .to_slice()
    };
    let f32_bits = just('0')
        .then(one_of("fF"))
        .ignore_then(hex_bits(8))
        .then_ignore(follow.not().rewind())
        .try_map(|s: &str, span| {
            u32::from_str_radix(s, 16)
                .map(Token::F32Bits)
                .map_err(|_| Rich::custom(span, "invalid .f32 hex constant"))
        });
    let f64_bits = just('0')
        .then(one_of("dD"))
        .ignore_then(hex_bits(16))
        .then_ignore(follow.not().rewind())
        .try_map(|s: &str, span| {
            u64::from_str_radix(s, 16)
                .map(Token::F64Bits)
                .map_err(|_| Rich::custom(span, "invalid .f64 hex constant"))
        });

    let digits = any().filter(|c: &char| c.is_ascii_digit()).repeated();
    let exponent = one_of("eE")
        .then(one_of("+-").or_not())
        .then(digits.at_least(1));
    let float = digits
        .at_least(1)
        .then(just('.'))
        .then(digits)
        .then(exponent.or_not())
        .ignored()
        .or(digits.at_least(1).then(exponent).ignored())
        .to_slice()
        .then_ignore(follow.not().rewind())
        .try_map(|s: &str, span| {
            s.parse::<f64>()
                .map(Token::Float)
                .map_err(|_| Rich::custom(span, "invalid floating-point constant"))
        });

    // Integers: the digits and radix are validated here, the value after.
    let int = any()
        .filter(|c: &char| c.is_ascii_digit())
        .then(follow.repeated())
        .to_slice()
        .try_map(|s: &str, span| int_literal(s).ok_or_else(|| Rich::custom(span, bad_int(s))));

    let string = just('"')
        .ignore_then(none_of("\"\n").repeated().to_slice())
        .then_ignore(just('"'))
        .map(Token::Str);

    let punct2 = choice(PUNCT2.map(|p| just(p).to(Token::Punct(p))));
    let punct1 = choice(PUNCT1.map(|p| just(p).to(Token::Punct(p))));

    let token = choice((
        f32_bits, f64_bits, float, int, dot, ident, string, punct2, punct1,
    ));

    let line_comment = just("//")
        .then(any().and_is(just('\n').not()).repeated())
        .ignored();
    let block_comment = just("/*")
        .then(any().and_is(just("*/").not()).repeated())
        .then(just("*/"))
        .ignored();
    let space = any()
        .filter(|c: &char| c.is_whitespace())
        .ignored()
        .or(line_comment)
        .or(block_comment)
        .repeated();

    token
        .map_with(|t, e| (t, e.span()))
        .padded_by(space)
        .recover_with(skip_then_retry_until(any().ignored(), end()))
        .repeated()
        .collect()
        .then_ignore(space)
        .then_ignore(end())
}

fn bad_int(s: &str) -> String {
    format!("invalid integer constant `{s}`")
}

/// Reads an integer literal per ISA 4.6: decimal, `0x` hex, `0b` binary, leading-`0` octal, `U`.
fn int_literal(s: &str) -> Option<Token<'static>> {
    let (body, suffix_u) = match s.strip_suffix(['U', 'u']) {
        Some(b) => (b, true),
        None => (s, false),
    };
    let value = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(Token::Int {
        value,
        unsigned: suffix_u || value > i64::MAX as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_geometries_are_modifiers() {
        assert_eq!(
            lex("tex.2d.v4 tex.2dms .3d"),
            vec![
                Token::Ident("tex"),
                Token::Dot("2d"),
                Token::Dot("v4"),
                Token::Ident("tex"),
                Token::Dot("2dms"),
                Token::Dot("3d"),
            ]
        );
    }

    fn lex(s: &str) -> Vec<Token<'_>> {
        let (out, errs) = lexer().parse(s).into_output_errors();
        assert!(errs.is_empty(), "{errs:?}");
        out.unwrap().into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn instruction_tokens() {
        assert_eq!(
            lex("@!%p1 add.s32 %r1, %r2, -4; // c"),
            vec![
                Token::Punct("@"),
                Token::Punct("!"),
                Token::Ident("%p1"),
                Token::Ident("add"),
                Token::Dot("s32"),
                Token::Ident("%r1"),
                Token::Punct(","),
                Token::Ident("%r2"),
                Token::Punct(","),
                Token::Punct("-"),
                Token::Int {
                    value: 4,
                    unsigned: false
                },
                Token::Punct(";"),
            ]
        );
    }

    #[test]
    fn literals_follow_isa_4_6() {
        assert_eq!(lex("0f3F800000"), vec![Token::F32Bits(0x3F80_0000)]);
        assert_eq!(
            lex("0D3FF0000000000000"),
            vec![Token::F64Bits(0x3FF0_0000_0000_0000)]
        );
        assert_eq!(
            lex("0x10 010 0b101 42U 0xfabc123400000000"),
            vec![
                Token::Int {
                    value: 16,
                    unsigned: false
                },
                Token::Int {
                    value: 8,
                    unsigned: false
                },
                Token::Int {
                    value: 5,
                    unsigned: false
                },
                Token::Int {
                    value: 42,
                    unsigned: true
                },
                Token::Int {
                    value: 0xfabc_1234_0000_0000,
                    unsigned: true
                },
            ]
        );
        assert_eq!(lex("1.5e3"), vec![Token::Float(1500.0)]);
        assert_eq!(
            lex(".version 7.0"),
            vec![Token::Dot("version"), Token::Float(7.0)]
        );
    }

    #[test]
    fn scoped_modifiers() {
        assert_eq!(
            lex("ld.shared::cta.L2::128B.u32"),
            vec![
                Token::Ident("ld"),
                Token::Dot("shared::cta"),
                Token::Dot("L2::128B"),
                Token::Dot("u32"),
            ]
        );
    }

    #[test]
    fn comments_and_names() {
        assert_eq!(
            lex("/* a */ $L__BB0_2: %tid.x _"),
            vec![
                Token::Ident("$L__BB0_2"),
                Token::Punct(":"),
                Token::Ident("%tid"),
                Token::Dot("x"),
                Token::Ident("_"),
            ]
        );
    }

    #[test]
    fn bad_integer_is_an_error() {
        let (_, errs) = lexer().parse("add 09x;").into_output_errors();
        assert!(!errs.is_empty());
    }
}
