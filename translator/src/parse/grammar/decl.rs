//! Declarations: linkage, state spaces, types, variables and parameter lists.

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use super::expr::expr;
use super::tokens::{ParseErr, dot, ident, punct, sp, uint};
use crate::ast::*;
use crate::diag::Spanned;
use crate::parse::lexer::Token;
use crate::types::{ScalarType, StateSpace};

pub(super) fn linkage<'t, 'a: 't, I>()
-> impl Parser<'t, I, Spanned<Linkage>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! {
        Token::Dot("visible") => Linkage::Visible,
        Token::Dot("extern") => Linkage::Extern,
        Token::Dot("weak") => Linkage::Weak,
        Token::Dot("common") => Linkage::Common,
    }
    .map_with(|l, e| Spanned::new(l, sp(e.span())))
}

fn space<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<StateSpace>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Dot(s) => s }
        .try_map(|s, span| {
            StateSpace::from_name(s)
                .filter(|s| *s != StateSpace::Sreg)
                .ok_or_else(|| Rich::custom(span, "a state space"))
        })
        .map_with(|s, e| Spanned::new(s, sp(e.span())))
        .labelled("state space")
}

fn var_type<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<VarType>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Dot(s) => s }
        .try_map(|s, span| match s {
            "texref" => Ok(VarType::TexRef),
            "samplerref" => Ok(VarType::SamplerRef),
            "surfref" => Ok(VarType::SurfRef),
            _ => ScalarType::from_name(s)
                .map(VarType::Scalar)
                .ok_or_else(|| Rich::custom(span, "a type")),
        })
        .map_with(|t, e| Spanned::new(t, sp(e.span())))
        .labelled("type")
}

enum DeclMod<'a> {
    Align(Spanned<u32>),
    Vector(Spanned<u32>),
    Attribute(Vec<Spanned<&'a str>>),
}

fn decl_mods<'t, 'a: 't, I>() -> impl Parser<'t, I, Vec<DeclMod<'a>>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let align = dot("align").ignore_then(uint()).map(DeclMod::Align);
    let vector = select! {
        Token::Dot("v2") => 2u32,
        Token::Dot("v4") => 4u32,
        Token::Dot("v8") => 8u32,
    }
    .map_with(|n, e| DeclMod::Vector(Spanned::new(n, sp(e.span()))));
    let attribute = dot("attribute")
        .ignore_then(
            select! { Token::Dot(s) => s }
                .map_with(|s, e| Spanned::new(s, sp(e.span())))
                .separated_by(punct(","))
                .collect::<Vec<_>>()
                .delimited_by(punct("("), punct(")")),
        )
        .map(DeclMod::Attribute);
    choice((align, vector, attribute)).repeated().collect()
}

fn ptr_attr<'t, 'a: 't, I>() -> impl Parser<'t, I, PtrAttr, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    dot("ptr")
        .ignore_then(space().or_not())
        .then(dot("align").ignore_then(uint()).or_not())
        .map_with(|(space, align), e| PtrAttr {
            space,
            align,
            span: sp(e.span()),
        })
}

fn decl_name<'t, 'a: 't, I>() -> impl Parser<'t, I, DeclName<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let initializer = recursive(|init| {
        // `name = value` members of opaque variables, or ordinary initializers.
        let member = ident()
            .then_ignore(punct("="))
            .then(expr())
            .map(|(n, e)| Initializer::Member(n, e));
        member
            .or(init)
            .separated_by(punct(","))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(punct("{"), punct("}"))
            .map_with(|items, e| Initializer::List(items, sp(e.span())))
            .or(expr().map(Initializer::Expr))
    });
    ident()
        .then(uint().delimited_by(punct("<"), punct(">")).or_not())
        .then(
            expr()
                .or_not()
                .delimited_by(punct("["), punct("]"))
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(punct("=").ignore_then(initializer).or_not())
        .map(|(((name, count), dims), init)| DeclName {
            name,
            count,
            dims,
            init,
        })
}

/// `linkage? space mods type ptr? name, name...` (no terminating `;`).
pub(super) fn var_decl<'t, 'a: 't, I>() -> impl Parser<'t, I, VarDecl<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    linkage()
        .or_not()
        .then(space())
        .then(decl_mods())
        .then(var_type())
        .then(ptr_attr().or_not())
        .then(decl_mods())
        .then(decl_name().separated_by(punct(",")).at_least(1).collect())
        .map_with(|((((((linkage, space), m1), ty), ptr), m2), names), e| {
            let mut d = VarDecl {
                linkage,
                space,
                align: None,
                vector: None,
                ty,
                ptr,
                attributes: Vec::new(),
                names,
                span: sp(e.span()),
            };
            for m in m1.into_iter().chain(m2) {
                match m {
                    DeclMod::Align(a) => d.align = Some(a),
                    DeclMod::Vector(v) => d.vector = Some(v),
                    DeclMod::Attribute(a) => d.attributes.extend(a),
                }
            }
            d
        })
}

pub(super) fn param_list<'t, 'a: 't, I>()
-> impl Parser<'t, I, Vec<VarDecl<'a>>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    var_decl()
        .separated_by(punct(","))
        .collect()
        .delimited_by(punct("("), punct(")"))
}

pub(super) fn uint_list<'t, 'a: 't, I>() -> impl Parser<'t, I, Vec<u32>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    uint()
        .map(|v| v.node)
        .separated_by(punct(","))
        .at_least(1)
        .at_most(3)
        .collect()
}
