//! Constant and address expressions, and instruction operands.

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use super::tokens::{ParseErr, ident, punct, sp};
use crate::ast::*;
use crate::parse::lexer::Token;
use crate::types::ScalarType;

/// Constant and address expressions with C precedence (ISA 4.6.3, Table 4).
pub(super) fn expr<'t, 'a: 't, I>() -> impl Parser<'t, I, Expr<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    expr_impl(true)
}

/// `allow_or: false` leaves a top-level `|` alone, so that the operand `%p|%q` reads as a pair;
/// inside parentheses the full grammar applies.
fn expr_impl<'t, 'a: 't, I>(
    allow_or: bool,
) -> impl Parser<'t, I, Expr<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let full = recursive(|expr| {
        let literal = select! {
            Token::Int { value, unsigned } => ExprKind::Int { value, unsigned },
            Token::Float(v) => ExprKind::Float(v),
            Token::F32Bits(b) => ExprKind::F32Bits(b),
            Token::F64Bits(b) => ExprKind::F64Bits(b),
        };
        let generic = just(Token::Ident("generic"))
            .ignore_then(ident().delimited_by(punct("("), punct(")")))
            .map(ExprKind::Generic);
        let name = select! { Token::Ident(s) => ExprKind::Name(s) };
        let atom = literal
            .or(generic)
            .or(name)
            .map_with(|kind, e| Expr {
                kind,
                span: sp(e.span()),
            })
            .or(expr.clone().delimited_by(punct("("), punct(")")))
            .labelled("expression")
            .boxed();
        grammar_levels(atom, expr, true)
    });
    if allow_or {
        full.boxed()
    } else {
        let atom = select! {
            Token::Int { value, unsigned } => ExprKind::Int { value, unsigned },
            Token::Float(v) => ExprKind::Float(v),
            Token::F32Bits(b) => ExprKind::F32Bits(b),
            Token::F64Bits(b) => ExprKind::F64Bits(b),
            Token::Ident(s) => ExprKind::Name(s),
        }
        .map_with(|kind, e| Expr {
            kind,
            span: sp(e.span()),
        })
        .or(full.clone().delimited_by(punct("("), punct(")")))
        .labelled("expression")
        .boxed();
        grammar_levels(atom, full, false).boxed()
    }
}

fn grammar_levels<'t, 'a: 't, I>(
    atom: Boxed<'t, 't, I, Expr<'a>, ParseErr<'t, 'a>>,
    expr: impl Parser<'t, I, Expr<'a>, ParseErr<'t, 'a>> + Clone + 't,
    allow_or: bool,
) -> impl Parser<'t, I, Expr<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let cast = select! {
        Token::Dot("s64") => ScalarType::S64,
        Token::Dot("u64") => ScalarType::U64,
    }
    .delimited_by(punct("("), punct(")"));
    let unary_op = select! {
        Token::Punct("+") => Some(UnaryOp::Plus),
        Token::Punct("-") => Some(UnaryOp::Neg),
        Token::Punct("~") => Some(UnaryOp::Not),
        Token::Punct("!") => Some(UnaryOp::LogicalNot),
    }
    .map(|op| (op, None))
    .or(cast.map(|t| (None, Some(t))))
    .map_with(|op, e| (op, sp(e.span())));
    let unary = unary_op
        .repeated()
        .foldr(atom, |((op, cast), span), inner| {
            let span = span.to(inner.span);
            let kind = match (op, cast) {
                (Some(op), _) => ExprKind::Unary(op, Box::new(inner)),
                (None, Some(t)) => ExprKind::Cast(t, Box::new(inner)),
                (None, None) => return inner,
            };
            Expr { kind, span }
        });

    let level = |ops: &'static [(&'static str, BinaryOp)],
                 next: Boxed<'t, 't, I, Expr<'a>, ParseErr<'t, 'a>>| {
        let op = select! { Token::Punct(p) => p }.try_map(move |p, span| {
            ops.iter()
                .find(|(s, _)| *s == p)
                .map(|(_, op)| *op)
                .ok_or_else(|| Rich::custom(span, "operator"))
        });
        next.clone()
            .foldl(op.then(next).repeated(), |a, (op, b)| Expr {
                span: a.span.to(b.span),
                kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            })
            .boxed()
    };
    let product = level(
        &[
            ("*", BinaryOp::Mul),
            ("/", BinaryOp::Div),
            ("%", BinaryOp::Rem),
        ],
        unary.boxed(),
    );
    let sum = level(&[("+", BinaryOp::Add), ("-", BinaryOp::Sub)], product);
    let shift = level(&[("<<", BinaryOp::Shl), (">>", BinaryOp::Shr)], sum);
    let order = level(
        &[
            ("<", BinaryOp::Lt),
            (">", BinaryOp::Gt),
            ("<=", BinaryOp::Le),
            (">=", BinaryOp::Ge),
        ],
        shift,
    );
    let equal = level(&[("==", BinaryOp::Eq), ("!=", BinaryOp::Ne)], order);
    let band = level(&[("&", BinaryOp::BitAnd)], equal);
    let bxor = level(&[("^", BinaryOp::BitXor)], band);
    let bor = if allow_or {
        level(&[("|", BinaryOp::BitOr)], bxor)
    } else {
        bxor
    };
    let land = level(&[("&&", BinaryOp::LogicalAnd)], bor);
    let lor = level(&[("||", BinaryOp::LogicalOr)], land);

    lor.clone()
        .then(
            punct("?")
                .ignore_then(expr.clone())
                .then_ignore(punct(":"))
                .then(expr)
                .or_not(),
        )
        .map(|(c, rest)| match rest {
            None => c,
            Some((a, b)) => Expr {
                span: c.span.to(b.span),
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            },
        })
}

/// An instruction operand (ISA chapter 6).
pub(super) fn operand<'t, 'a: 't, I>() -> impl Parser<'t, I, Operand<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    recursive(|operand| {
        let vector = operand
            .clone()
            .separated_by(punct(","))
            .at_least(1)
            .collect::<Vec<_>>()
            .delimited_by(punct("{"), punct("}"))
            .map(OperandKind::Vector);
        let bracket = operand
            .clone()
            .separated_by(punct(","))
            .at_least(1)
            .collect::<Vec<Operand<'a>>>()
            .delimited_by(punct("["), punct("]"))
            .map(|mut items| {
                if items.len() == 1 {
                    match items.pop() {
                        Some(Operand {
                            kind: OperandKind::Imm(e),
                            ..
                        }) => OperandKind::Address(e),
                        Some(other) => OperandKind::Tuple(vec![other]),
                        None => OperandKind::Tuple(Vec::new()),
                    }
                } else {
                    OperandKind::Tuple(items)
                }
            });
        // `()` and `(a, b, ...)`; a single parenthesized item reads as an expression.
        let list = operand
            .clone()
            .separated_by(punct(","))
            .at_least(2)
            .collect::<Vec<_>>()
            .or(empty().to(Vec::new()))
            .delimited_by(punct("("), punct(")"))
            .map(OperandKind::List);
        let component = select! { Token::Ident(s) => s }
            .then(select! { Token::Dot(c) => c }.try_map(|c, span| {
                if crate::ast::is_video_selector(c) {
                    return Ok(Err(c));
                }
                Component::from_name(c)
                    .map(Ok)
                    .ok_or_else(|| Rich::custom(span, "a vector component"))
            }))
            .map(|(n, c)| match c {
                Ok(c) => OperandKind::Component(n, c),
                Err(sel) => OperandKind::Select(n, sel, false),
            });
        let negated_select = punct("-")
            .ignore_then(select! { Token::Ident(s) => s })
            .then(select! { Token::Dot(c) if crate::ast::is_video_selector(c) => c })
            .map(|(n, sel)| OperandKind::Select(n, sel, true));
        let index = ident()
            .then(expr().delimited_by(punct("["), punct("]")))
            .map(|(n, e)| OperandKind::Index(n, Box::new(e)));
        let sink = just(Token::Ident("_")).to(OperandKind::Sink);
        let single = choice((
            vector,
            bracket,
            list,
            component,
            negated_select,
            index,
            sink,
            expr_impl(false).map(OperandKind::Imm),
        ))
        .map_with(|kind, e| Operand {
            kind,
            span: sp(e.span()),
        })
        .boxed();
        single
            .clone()
            .then(punct("|").ignore_then(single).or_not())
            .map(|(a, b)| match b {
                None => a,
                Some(b) => Operand {
                    span: a.span.to(b.span),
                    kind: OperandKind::Pair(Box::new(a), Box::new(b)),
                },
            })
    })
}
