//! The token-level parsers every part of the grammar builds on.

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use crate::diag::{Span, Spanned};
use crate::parse::lexer::Token;

pub(super) type ParseErr<'t, 'a> = extra::Err<Rich<'t, Token<'a>, SimpleSpan>>;

pub(super) fn sp(s: SimpleSpan) -> Span {
    Span::from(s)
}

pub(super) fn punct<'t, 'a: 't, I>(
    p: &'static str,
) -> impl Parser<'t, I, Token<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    just(Token::Punct(p))
}

pub(super) fn dot<'t, 'a: 't, I>(
    name: &'static str,
) -> impl Parser<'t, I, Token<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    just(Token::Dot(name))
}

pub(super) fn ident<'t, 'a: 't, I>()
-> impl Parser<'t, I, Spanned<&'a str>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Ident(s) => s }
        .map_with(|s, e| Spanned::new(s, sp(e.span())))
        .labelled("identifier")
}

pub(super) fn uint<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<u32>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Int { value, .. } => value }
        .validate(|v, e, emitter| {
            u32::try_from(v).unwrap_or_else(|_| {
                emitter.emit(Rich::custom(e.span(), "value does not fit in 32 bits"));
                u32::MAX
            })
        })
        .map_with(|v, e| Spanned::new(v, sp(e.span())))
        .labelled("integer")
}

pub(super) fn string<'t, 'a: 't, I>() -> impl Parser<'t, I, &'a str, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Str(s) => s }.labelled("string")
}
