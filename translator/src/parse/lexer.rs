//! Tokens of PTX source (ISA 4.1-4.6).

use std::fmt;

use chumsky::span::SimpleSpan;

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

const PUNCT2: [&str; 8] = ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];
const PUNCT1: [&str; 24] = [
    "{", "}", "(", ")", "[", "]", ",", ";", ":", "@", "!", "+", "-", "*", "/", "%", "~", "&", "|",
    "^", "<", ">", "=", "?",
];

/// Which bytes continue a name (ISA 4.4: letters, digits, `_`, `$`), as a table: the lexer asks
/// this of nearly every byte of a module.
const FOLLOW: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        c += 1;
    }
    t
};

/// `PUNCT1`'s index of each byte, `u8::MAX` for none.
const PUNCT1_INDEX: [u8; 256] = {
    let mut t = [u8::MAX; 256];
    let mut i = 0;
    while i < PUNCT1.len() {
        t[PUNCT1[i].as_bytes()[0] as usize] = i as u8;
        i += 1;
    }
    t
};

fn is_follow(c: u8) -> bool {
    FOLLOW[c as usize]
}

/// A lexical error: what is wrong and where.
#[derive(Clone, Debug, PartialEq)]
pub struct LexError {
    pub span: SimpleSpan,
    pub message: String,
}

/// Splits `src` into tokens (ISA 4.1-4.6), all at once, with every lexical error.
pub fn lex(src: &str) -> (Vec<(Token<'_>, SimpleSpan)>, Vec<LexError>) {
    let mut tokens = Vec::with_capacity(src.len() / 4 + 16);
    let mut errors = Vec::new();
    for t in Lexer::new(src) {
        match t {
            Ok(t) => tokens.push(t),
            Err(e) => errors.push(e),
        }
    }
    (tokens, errors)
}

/// The tokens of a source text, one at a time. Written by hand rather than with chumsky: the
/// lexer touches every byte, and a combinator lexer ran at about 2 MB/s. A character that starts
/// no token is reported and skipped, so everything after it is still read; a malformed number is
/// reported and still yields a token.
pub struct Lexer<'a> {
    src: &'a str,
    i: usize,
    /// A token to hand out after the error reported for it.
    pending: Option<(Token<'a>, SimpleSpan)>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            i: 0,
            pending: None,
        }
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<(Token<'a>, SimpleSpan), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(t) = self.pending.take() {
            return Some(Ok(t));
        }
        let src = self.src;
        let bytes = src.as_bytes();
        let span = |a: usize, b: usize| SimpleSpan::from(a..b);
        let mut i = self.i;
        let result = loop {
            if i >= bytes.len() {
                self.i = i;
                return None;
            }
            let c = bytes[i];
            // Whitespace and comments.
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
                i = memchr_newline(bytes, i);
                continue;
            }
            if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
                match src[i + 2..].find("*/") {
                    Some(k) => {
                        i += 2 + k + 2;
                        continue;
                    }
                    None => {
                        let e = LexError {
                            span: span(i, i + 2),
                            message: "unterminated `/*` comment".into(),
                        };
                        i = bytes.len();
                        break Err(e);
                    }
                }
            }
            let start = i;
            if c.is_ascii_digit() {
                let (tok, end, err) = number(src, i);
                i = end;
                match err {
                    Some(message) => {
                        self.pending = Some((tok, span(start, end)));
                        break Err(LexError {
                            span: span(start, end),
                            message,
                        });
                    }
                    None => break Ok((tok, span(start, end))),
                }
            }
            // `.name`; also the texture geometries `.1d .2d .3d .2dms` (ISA 8.7.7.3) and the
            // tensor ranks `.1d` to `.5d` of `cp.async.bulk.tensor`, which start with a digit: a
            // float never starts with a dot, so they are unambiguous.
            if c == b'.'
                && (bytes
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_alphabetic() || *d == b'_')
                    || (matches!(bytes.get(i + 1), Some(b'1'..=b'5'))
                        && bytes.get(i + 2) == Some(&b'd')))
            {
                let mut j = i + 2;
                while j < bytes.len() && is_follow(bytes[j]) {
                    j += 1;
                }
                // `.shared::cta`, `.L2::cache_hint`, `.mbarrier::complete_tx::bytes`
                while bytes.get(j) == Some(&b':')
                    && bytes.get(j + 1) == Some(&b':')
                    && bytes.get(j + 2).is_some_and(|d| is_follow(*d))
                {
                    j += 3;
                    while j < bytes.len() && is_follow(bytes[j]) {
                        j += 1;
                    }
                }
                i = j;
                break Ok((Token::Dot(&src[start + 1..j]), span(start, j)));
            }
            if c.is_ascii_alphabetic()
                || ((c == b'_' || c == b'$' || c == b'%')
                    && bytes.get(i + 1).is_some_and(|d| is_follow(*d)))
                || (c == b'_')
            {
                let mut j = i + 1;
                while j < bytes.len() && is_follow(bytes[j]) {
                    j += 1;
                }
                i = j;
                break Ok((Token::Ident(&src[start..j]), span(start, j)));
            }
            if c == b'"' {
                let rest = &src[i + 1..];
                match rest.find(['"', '\n']) {
                    Some(k) if rest.as_bytes()[k] == b'"' => {
                        i += k + 2;
                        break Ok((Token::Str(&rest[..k]), span(start, i)));
                    }
                    _ => {
                        let end = i + 1 + rest.find('\n').unwrap_or(rest.len());
                        i = end;
                        break Err(LexError {
                            span: span(start, end),
                            message: "unterminated string".into(),
                        });
                    }
                }
            }
            if let Some(p) = punct(c, bytes.get(i + 1).copied()) {
                i += p.len();
                break Ok((Token::Punct(p), span(start, i)));
            }
            // Not ASCII whitespace nor any token: a Unicode space is skipped, anything else
            // reported.
            let ch = src[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8();
            if !ch.is_whitespace() {
                break Err(LexError {
                    span: span(start, i),
                    message: format!("unexpected character `{}`", ch.escape_debug()),
                });
            }
        };
        self.i = i;
        Some(result)
    }
}

/// The punctuation token starting with `c` (then `next`): two-character ones first.
fn punct(c: u8, next: Option<u8>) -> Option<&'static str> {
    let two = match (c, next) {
        (b'<', Some(b'<')) => Some(PUNCT2[0]),
        (b'>', Some(b'>')) => Some(PUNCT2[1]),
        (b'<', Some(b'=')) => Some(PUNCT2[2]),
        (b'>', Some(b'=')) => Some(PUNCT2[3]),
        (b'=', Some(b'=')) => Some(PUNCT2[4]),
        (b'!', Some(b'=')) => Some(PUNCT2[5]),
        (b'&', Some(b'&')) => Some(PUNCT2[6]),
        (b'|', Some(b'|')) => Some(PUNCT2[7]),
        _ => None,
    };
    two.or_else(|| {
        let i = PUNCT1_INDEX[c as usize];
        (i != u8::MAX).then(|| PUNCT1[i as usize])
    })
}

fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |k| from + k)
}

/// A token starting with a digit: `0fXXXXXXXX`, `0dXXXXXXXXXXXXXXXX`, a decimal float, or an
/// integer. Returns the token, its end, and an error for a malformed or oversized integer (the
/// token is still produced, so parsing goes on with one clear error).
fn number(src: &str, start: usize) -> (Token<'_>, usize, Option<String>) {
    let bytes = src.as_bytes();
    let follow_at = |k: usize| bytes.get(k).is_some_and(|c| is_follow(*c));
    let hex_run = |from: usize, n: usize| {
        bytes.len() >= from + n && bytes[from..from + n].iter().all(u8::is_ascii_hexdigit)
    };
    if bytes[start] == b'0' && bytes.len() > start + 1 {
        let k = bytes[start + 1];
        if (k == b'f' || k == b'F') && hex_run(start + 2, 8) && !follow_at(start + 10) {
            let v = u32::from_str_radix(&src[start + 2..start + 10], 16).unwrap_or(0);
            return (Token::F32Bits(v), start + 10, None);
        }
        if (k == b'd' || k == b'D') && hex_run(start + 2, 16) && !follow_at(start + 18) {
            let v = u64::from_str_radix(&src[start + 2..start + 18], 16).unwrap_or(0);
            return (Token::F64Bits(v), start + 18, None);
        }
    }
    // Decimal float: digits '.' digits* exponent?, or digits exponent; not followed by a name
    // character.
    let digits_end = |from: usize| {
        let mut j = from;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let int_part = digits_end(start);
    let exponent = |from: usize| -> Option<usize> {
        if !matches!(bytes.get(from), Some(b'e' | b'E')) {
            return None;
        }
        let mut j = from + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e = digits_end(j);
        (e > j).then_some(e)
    };
    let float_end = if bytes.get(int_part) == Some(&b'.') {
        let frac = digits_end(int_part + 1);
        Some(exponent(frac).unwrap_or(frac))
    } else {
        exponent(int_part)
    };
    if let Some(end) = float_end
        && !follow_at(end)
    {
        let v = src[start..end].parse::<f64>().unwrap_or(0.0);
        return (Token::Float(v), end, None);
    }
    let mut end = start + 1;
    while end < bytes.len() && is_follow(bytes[end]) {
        end += 1;
    }
    let text = &src[start..end];
    match int_literal(text) {
        Some(t) => (t, end, None),
        None => (
            Token::Int {
                value: 0,
                unsigned: false,
            },
            end,
            Some(bad_int(text)),
        ),
    }
}

fn bad_int(s: &str) -> String {
    let digits_ok = int_digits_ok(s);
    if digits_ok {
        format!("integer constant `{s}` does not fit in 64 bits")
    } else {
        format!("invalid integer constant `{s}`")
    }
}

/// Whether `s` is written correctly as an integer literal (whatever its value).
fn int_digits_ok(s: &str) -> bool {
    let body = s.strip_suffix(['U', 'u']).unwrap_or(s);
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
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
            lex("tex.2d.v4 tex.2dms .3d .5d"),
            vec![
                Token::Ident("tex"),
                Token::Dot("2d"),
                Token::Dot("v4"),
                Token::Ident("tex"),
                Token::Dot("2dms"),
                Token::Dot("3d"),
                Token::Dot("5d"),
            ]
        );
    }

    fn lex(s: &str) -> Vec<Token<'_>> {
        let (out, errs) = super::lex(s);
        assert!(errs.is_empty(), "{errs:?}");
        out.into_iter().map(|(t, _)| t).collect()
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
        let (toks, errs) = super::lex("add 09x;");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].message, "invalid integer constant `09x`");
        assert_eq!(toks.len(), 3, "the bad literal is still a token");
        let (_, errs) = super::lex("mov 99999999999999999999;");
        assert_eq!(
            errs[0].message,
            "integer constant `99999999999999999999` does not fit in 64 bits"
        );
    }

    #[test]
    fn unexpected_characters_and_unterminated_pieces() {
        let (toks, errs) = super::lex("add # 1 /* x");
        let msgs: Vec<&str> = errs.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            msgs,
            ["unexpected character `#`", "unterminated `/*` comment"]
        );
        assert_eq!(errs[0].span, SimpleSpan::from(4..5));
        assert_eq!(toks.len(), 2);
        let (_, errs) = super::lex("\"abc\n");
        assert_eq!(errs[0].message, "unterminated string");
    }

    #[test]
    fn numbers_next_to_names() {
        // `1.x` is the integer 1 and the modifier `.x`; `0f` needs exactly 8 hex digits.
        assert_eq!(
            lex("1.x"),
            vec![
                Token::Int {
                    value: 1,
                    unsigned: false
                },
                Token::Dot("x")
            ]
        );
        assert_eq!(
            lex("2e3 4.5E-1"),
            vec![Token::Float(2000.0), Token::Float(0.45)]
        );
        let (_, errs) = super::lex("0f3F80");
        assert_eq!(errs[0].message, "invalid integer constant `0f3F80`");
        assert_eq!(
            lex("%p|%q"),
            vec![Token::Ident("%p"), Token::Punct("|"), Token::Ident("%q")]
        );
    }
}
