//! PTX text to [`ast::Module`](crate::ast::Module): a chumsky lexer, then a chumsky parser over tokens.

mod grammar;
mod lexer;

use chumsky::error::{Rich, RichPattern, RichReason};
use chumsky::input::Input;
use chumsky::prelude::*;

use crate::ast::Module;
use crate::diag::{Diagnostic, Span};

pub use lexer::Token;

/// Parses a whole module. Errors come back as diagnostics; where the parser could recover, the
/// module is returned too, with the unreadable statements marked.
pub fn parse(src: &str) -> (Option<Module<'_>>, Vec<Diagnostic>) {
    let (tokens, lex_errs) = lexer::lexer().parse(src).into_output_errors();
    let mut diags: Vec<Diagnostic> = lex_errs.into_iter().map(|e| to_diag(&e)).collect();
    let Some(tokens) = tokens else {
        return (None, diags);
    };
    let eoi = SimpleSpan::from(src.len()..src.len());
    let input = tokens.as_slice().map(eoi, |(t, s)| (t, s));
    let (module, errs) = grammar::module(src).parse(input).into_output_errors();
    diags.extend(errs.into_iter().map(|e| to_diag(&e)));
    (module, diags)
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
