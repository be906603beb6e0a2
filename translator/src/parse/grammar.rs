//! The PTX grammar over tokens (ISA chapters 4-7).

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use super::lexer::Token;
use crate::ast::*;
use crate::diag::Spanned;

mod decl;
mod expr;
mod tokens;

use decl::{linkage, param_list, uint_list, var_decl};
use expr::operand;
use tokens::{ParseErr, dot, ident, punct, sp, string, uint};

fn function_directive<'t, 'a: 't, I>()
-> impl Parser<'t, I, FunctionDirective, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let maxntid = dot("maxntid")
        .ignore_then(uint_list())
        .map_with(|v, e| FunctionDirective::MaxNtid(v, sp(e.span())));
    let reqntid = dot("reqntid")
        .ignore_then(uint_list())
        .map_with(|v, e| FunctionDirective::ReqNtid(v, sp(e.span())));
    let single = select! { Token::Dot(d) => d }
        .then(uint())
        .try_map(|(d, v), span| {
            let s = sp(span);
            Ok(match d {
                "minnctapersm" => FunctionDirective::MinNctaPerSm(v.node, s),
                "maxnctapersm" => FunctionDirective::MaxNctaPerSm(v.node, s),
                "maxnreg" => FunctionDirective::MaxNreg(v.node, s),
                "maxclusterrank" => FunctionDirective::Other(s),
                _ => return Err(Rich::custom(span, "a function directive")),
            })
        });
    let noreturn = dot("noreturn").map_with(|_, e| FunctionDirective::NoReturn(sp(e.span())));
    let cluster = choice((dot("explicitcluster"), dot("reqnctapercluster")))
        .then(uint_list().or_not())
        .map_with(|(d, dims), e| match dims {
            Some(v) if d == Token::Dot("reqnctapercluster") => {
                FunctionDirective::ReqNctaPerCluster(v, sp(e.span()))
            }
            _ => FunctionDirective::Other(sp(e.span())),
        });
    let pragma = dot("pragma")
        .ignore_then(string())
        .then_ignore(punct(";").or_not())
        .map_with(|s, e| FunctionDirective::Pragma(s.to_string(), sp(e.span())));
    choice((maxntid, reqntid, single, noreturn, cluster, pragma))
}

fn statements<'t, 'a: 't, I>() -> impl Parser<'t, I, Vec<Statement<'a>>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    recursive(|stmts| {
        let label = ident().then_ignore(punct(":")).map(Statement::Label);
        let guard = punct("@")
            .ignore_then(punct("!").or_not())
            .then(ident())
            .map_with(|(neg, pred), e| Guard {
                negated: neg.is_some(),
                pred,
                span: sp(e.span()),
            });
        let modifier =
            select! { Token::Dot(m) => m }.map_with(|m, e| Spanned::new(m, sp(e.span())));
        let instruction = guard
            .or_not()
            .then(ident())
            .then(modifier.repeated().collect::<Modifiers<'_>>())
            .then(operand().separated_by(punct(",")).collect::<Operands<'_>>())
            .then_ignore(punct(";"))
            .map_with(|(((guard, opcode), modifiers), operands), e| {
                Statement::Instruction(Instruction {
                    guard,
                    opcode,
                    modifiers,
                    operands,
                    span: sp(e.span()),
                })
            });
        let var = var_decl()
            .then_ignore(punct(";"))
            .map(|d| Statement::Var(Box::new(d)));
        let block = stmts
            .delimited_by(punct("{"), punct("}"))
            .map_with(|body, e| Statement::Block(body, sp(e.span())));
        let names = ident()
            .separated_by(punct(","))
            .at_least(1)
            .collect::<Vec<_>>();
        let target_names = ident()
            .then(uint().delimited_by(punct("<"), punct(">")).or_not())
            .separated_by(punct(","))
            .at_least(1)
            .collect::<Vec<_>>();
        let branch_targets = dot("branchtargets")
            .ignore_then(target_names)
            .then_ignore(punct(";"))
            .map_with(|l, e| Statement::BranchTargets(l, sp(e.span())));
        let call_targets = dot("calltargets")
            .ignore_then(names)
            .then_ignore(punct(";"))
            .map_with(|l, e| Statement::CallTargets(l, sp(e.span())));
        let prototype = dot("callprototype")
            .ignore_then(param_list().or_not())
            .then_ignore(just(Token::Ident("_")))
            .then(param_list().or_not())
            .then(dot("noreturn").to_span().or_not())
            .then_ignore(punct(";"))
            .map_with(
                |((returns, params), noreturn), e| Statement::CallPrototype {
                    returns: returns.unwrap_or_default(),
                    params: params.unwrap_or_default(),
                    noreturn: noreturn.map(sp),
                    span: sp(e.span()),
                },
            );
        let pragma = dot("pragma")
            .ignore_then(
                string()
                    .separated_by(punct(","))
                    .at_least(1)
                    .collect::<Vec<_>>(),
            )
            .then_ignore(punct(";"))
            .map_with(|s, e| Statement::Pragma(s.join(","), sp(e.span())));
        let loc = loc().map_with(|_, e| Statement::Ignored(sp(e.span())));

        let statement = choice((
            label,
            var,
            block,
            branch_targets,
            call_targets,
            prototype,
            pragma,
            loc,
            instruction,
        ))
        .boxed();

        // Recovery: skip to the end of the statement and go on, so later errors are reported too.
        let skip = none_of([Token::Punct(";"), Token::Punct("}"), Token::Punct("{")])
            .repeated()
            .at_least(1)
            .then(punct(";").or_not())
            .ignored()
            .or(punct(";").ignored())
            .map_with(|_, e| Statement::Error(sp(e.span())));
        statement
            .recover_with(via_parser(skip))
            .repeated()
            .collect::<Vec<_>>()
    })
}

/// `.loc file line col` with the optional `, function_name f, inlined_at a b c` tail.
fn loc<'t, 'a: 't, I>() -> impl Parser<'t, I, (), ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let int = select! { Token::Int { .. } => () };
    dot("loc")
        .ignore_then(int.repeated().at_least(2).at_most(3))
        .then(
            punct(",")
                .then(ident())
                .then(choice((
                    ident().ignored(),
                    int.repeated().at_least(1).ignored(),
                )))
                .repeated(),
        )
        .ignored()
}

fn function<'t, 'a: 't, I>() -> impl Parser<'t, I, Function<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let kind = select! {
        Token::Dot("entry") => FunctionKind::Entry,
        Token::Dot("func") => FunctionKind::Func,
    };
    // A body cut off by the end of the file still counts as a body (its error is reported), so
    // the statements before the cut are checked too.
    let close = punct("}")
        .ignored()
        .or(end().rewind().validate(|(), e, emitter| {
            emitter.emit(Rich::custom(
                e.span(),
                "the file ends inside a function body: expected `}`",
            ))
        }));
    let body = punct("{")
        .ignore_then(statements())
        .then_ignore(close)
        .map(Some)
        .or(punct(";").to(None));
    linkage()
        .or_not()
        .then(kind)
        .then(param_list().or_not())
        .then(ident())
        .then(param_list().or_not())
        .then(function_directive().repeated().collect::<Vec<_>>())
        .then(body)
        .map_with(
            |((((((linkage, kind), returns), name), params), directives), body), e| {
                let mut labels = Vec::new();
                if let Some(b) = &body {
                    Function::collect_labels(b, &mut labels);
                }
                Function {
                    linkage,
                    kind,
                    name,
                    returns: returns.unwrap_or_default(),
                    params: params.unwrap_or_default(),
                    directives,
                    body,
                    labels,
                    span: sp(e.span()),
                }
            },
        )
}

/// Skips a `{ ... }` group with balanced braces (debug sections).
fn balanced<'t, 'a: 't, I>() -> impl Parser<'t, I, (), ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    recursive(|inner| {
        choice((
            inner.delimited_by(punct("{"), punct("}")).ignored(),
            none_of([Token::Punct("{"), Token::Punct("}")]).ignored(),
        ))
        .repeated()
    })
    .delimited_by(punct("{"), punct("}"))
}

pub fn module<'t, 'a: 't, I>(src: &'a str) -> impl Parser<'t, I, Module<'a>, ParseErr<'t, 'a>>
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    let version = dot("version")
        .ignore_then(
            select! {
                Token::Float(_) => (),
                Token::Int { .. } => (),
            }
            .to_span()
            .labelled("a version number such as 7.0"),
        )
        .try_map(move |num_span: SimpleSpan, span| {
            let text = &src[num_span.start..num_span.end];
            let (major, minor) = text.split_once('.').unwrap_or((text, "0"));
            match (major.parse::<u32>(), minor.parse::<u32>()) {
                (Ok(major), Ok(minor)) => Ok((major, minor)),
                _ => Err(Rich::custom(span, "expected a version such as 7.0")),
            }
        })
        .map_with(|(major, minor), e| Item::Version {
            major,
            minor,
            span: sp(e.span()),
        });
    let target_name = ident();
    let target = dot("target")
        .ignore_then(target_name.separated_by(punct(",")).at_least(1).collect())
        .map(Item::Target);
    let address_size = dot("address_size")
        .ignore_then(uint())
        .map(Item::AddressSize);
    let int = select! { Token::Int { .. } => () };
    let file = dot("file")
        .ignore_then(int)
        .then(string())
        .then(punct(",").then(int).repeated())
        .map_with(|_, e| Item::Ignored(sp(e.span())));
    let section = dot("section")
        .ignore_then(select! { Token::Dot(_) => () })
        .then(balanced())
        .map_with(|_, e| Item::Ignored(sp(e.span())));
    let pragma = dot("pragma")
        .then(string())
        .then(punct(";"))
        .map_with(|_, e| Item::Ignored(sp(e.span())));
    let var = var_decl().then_ignore(punct(";")).map(Item::Var);
    let func = function().map(|f| Item::Function(Box::new(f)));

    let item = choice((
        version,
        target,
        address_size,
        file,
        section,
        pragma,
        func,
        var,
    ))
    .boxed();
    let skip = none_of([Token::Punct(";"), Token::Punct("}")])
        .repeated()
        .then(one_of([Token::Punct(";"), Token::Punct("}")]))
        .map_with(|_, e| Item::Ignored(sp(e.span())));
    item.recover_with(via_parser(skip))
        .repeated()
        .collect::<Vec<_>>()
        .map_with(|items, e| Module {
            items,
            span: sp(e.span()),
        })
}
