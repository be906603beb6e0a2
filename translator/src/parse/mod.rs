//! PTX text to [`ast::Module`](crate::ast::Module): a hand-written lexer, then a hand-written parser
//! for valid files and the chumsky grammar over the same tokens for everything else (diagnostics).

mod fast;
mod grammar;
mod lexer;

use chumsky::error::{Rich, RichPattern, RichReason};
use chumsky::input::Input;
use chumsky::prelude::*;

use crate::ast::Module;
use crate::diag::{Diagnostic, Span};

pub use fast::MAX_NESTING;
pub use lexer::Token;
pub(crate) use lexer::lex;

/// Parses a whole module. Errors come back as diagnostics; where the parser could recover, the
/// module is returned too, with the unreadable statements marked.
///
/// A valid file is read by the hand-written parser (`fast.rs`); anything it does not accept is
/// parsed again by the chumsky grammar, which reports every error it can recover from.
pub fn parse(src: &str) -> (Option<Module<'_>>, Vec<Diagnostic>) {
    if let Some(m) = fast::module(src) {
        return (Some(m), Vec::new());
    }
    let (tokens, lex_errs) = lexer::lex(src);
    with_grammar(src, &tokens, lex_errs)
}

/// Parses with the chumsky grammar alone (what [`parse`] falls back to). For tests that compare
/// the two parsers.
#[doc(hidden)]
pub fn parse_with_grammar(src: &str) -> (Option<Module<'_>>, Vec<Diagnostic>) {
    let (tokens, lex_errs) = lexer::lex(src);
    with_grammar(src, &tokens, lex_errs)
}

/// Whether the hand-written parser alone accepts `src` (for tests: it must accept every valid
/// file).
#[doc(hidden)]
pub fn fast_parser_accepts(src: &str) -> bool {
    fast::module(src).is_some()
}

fn with_grammar<'a>(
    src: &'a str,
    tokens: &[(Token<'a>, SimpleSpan)],
    lex_errs: Vec<lexer::LexError>,
) -> (Option<Module<'a>>, Vec<Diagnostic>) {
    let mut diags: Vec<Diagnostic> = lex_errs
        .into_iter()
        .map(|e| Diagnostic::error(Span::from(e.span), e.message).with_label("here"))
        .collect();
    let shape = prescan(tokens);
    if !shape.is_empty() {
        diags.extend(shape);
        return (None, diags);
    }
    let eoi = SimpleSpan::from(src.len()..src.len());
    let input = tokens.map(eoi, |(t, s)| (t, s));
    let (module, errs) = grammar::module(src).parse(input).into_output_errors();
    diags.extend(errs.into_iter().map(|e| to_diag(&e)));
    (module, diags)
}

/// What the chumsky grammar must not see: nesting past [`MAX_NESTING`] (it needs about 50 KB of
/// stack a level) and unclosed `(` (it backtracks over them in cubic time). One linear pass.
///
/// An expression's level counts the brackets around it plus every operator and `(` since the
/// last `,`, `;`, `{` or `}`: a bound on the depth of any expression tree built from it, which
/// the hand-written parser's own count never exceeds, so input it gives up on is reported here.
fn prescan(tokens: &[(Token<'_>, SimpleSpan)]) -> Vec<Diagnostic> {
    let mut open: Vec<(&str, SimpleSpan)> = Vec::new();
    let mut ops = 0usize;
    let mut diags = Vec::new();
    // Reports the `(` left open in the statement that ends here and forgets it.
    let close_parens = |open: &mut Vec<(&str, SimpleSpan)>, diags: &mut Vec<Diagnostic>| {
        let first = open
            .iter()
            .rposition(|(p, _)| *p == "{")
            .map_or(0, |i| i + 1);
        if let Some(&(_, at)) = open[first..].iter().find(|(p, _)| *p == "(") {
            diags.push(
                Diagnostic::error(Span::from(at), "unclosed `(`")
                    .with_label("this `(` has no matching `)`"),
            );
        }
        open.truncate(first);
    };
    for &(tok, span) in tokens {
        let Token::Punct(p) = tok else { continue };
        match p {
            "(" | "[" | "{" => {
                if p == "{" {
                    close_parens(&mut open, &mut diags);
                    ops = 0;
                } else if p == "(" {
                    ops += 1;
                }
                open.push((p, span));
            }
            ")" | "]" => {
                let want = if p == ")" { "(" } else { "[" };
                if open.last().is_some_and(|(o, _)| *o == want) {
                    open.pop();
                }
            }
            "}" => {
                close_parens(&mut open, &mut diags);
                open.pop();
                ops = 0;
            }
            ";" => {
                close_parens(&mut open, &mut diags);
                ops = 0;
            }
            "," => ops = 0,
            ":" => {}
            _ => ops += 1,
        }
        if open.len() + ops > MAX_NESTING {
            let what = match p {
                "(" | "[" | "{" => format!("`{p}`"),
                _ => "expression".to_string(),
            };
            diags.push(
                Diagnostic::error(
                    Span::from(span),
                    format!("{what} nested deeper than {MAX_NESTING} levels"),
                )
                .with_label(format!("level {} starts here", open.len() + ops))
                .with_note(
                    "each bracket, block and initializer brace, and each operator and \
                     parenthesis of an expression, is one level",
                ),
            );
            return diags;
        }
    }
    close_parens(&mut open, &mut diags);
    diags
}

/// The number of tokens in `src`, or `None` if it does not lex: the lexer alone, as a reference
/// for the parser's speed (`cargo xtask bench parse`).
pub fn token_count(src: &str) -> Option<usize> {
    let (tokens, errs) = lexer::lex(src);
    errs.is_empty().then_some(tokens.len())
}

fn to_diag<T: std::fmt::Display>(e: &Rich<'_, T, SimpleSpan>) -> Diagnostic {
    let span = Span::from(*e.span());
    match e.reason() {
        RichReason::Custom(msg) => Diagnostic::error(span, msg.to_string()),
        RichReason::ExpectedFound { expected, found } => {
            let found = match found {
                Some(t) => format!("`{}`", &**t),
                None => "end of input".to_string(),
            };
            let mut exp: Vec<String> = expected
                .iter()
                .filter(|p| !matches!(p, RichPattern::SomethingElse))
                .map(pattern_name)
                .collect();
            exp.sort();
            exp.dedup();
            let expected = match exp.len() {
                0 => "something else".to_string(),
                1 => exp.remove(0),
                _ => {
                    let last = exp.pop().unwrap_or_default();
                    format!("{} or {last}", exp.join(", "))
                }
            };
            Diagnostic::error(span, format!("expected {expected}, found {found}"))
                .with_label(format!("expected {expected}"))
        }
    }
}

fn pattern_name<T: std::fmt::Display>(p: &RichPattern<'_, T>) -> String {
    match p {
        RichPattern::Token(t) => format!("`{}`", &**t),
        RichPattern::Label(l) => l.to_string(),
        RichPattern::Identifier(i) => format!("`{i}`"),
        RichPattern::Any => "any token".to_string(),
        RichPattern::SomethingElse => "something else".to_string(),
        RichPattern::EndOfInput => "end of input".to_string(),
        _ => "something else".to_string(),
    }
}
