//! The PTX grammar over tokens (ISA chapters 4-7).

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use super::lexer::Token;
use crate::ast::*;
use crate::diag::{Span, Spanned};
use crate::types::{ScalarType, StateSpace};

pub type ParseErr<'t, 'a> = extra::Err<Rich<'t, Token<'a>, SimpleSpan>>;

fn sp(s: SimpleSpan) -> Span {
    Span::from(s)
}

fn punct<'t, 'a: 't, I>(p: &'static str) -> impl Parser<'t, I, Token<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    just(Token::Punct(p))
}

fn dot<'t, 'a: 't, I>(name: &'static str) -> impl Parser<'t, I, Token<'a>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    just(Token::Dot(name))
}

fn ident<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<&'a str>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Ident(s) => s }
        .map_with(|s, e| Spanned::new(s, sp(e.span())))
        .labelled("identifier")
}

fn uint<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<u32>, ParseErr<'t, 'a>> + Clone
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

fn string<'t, 'a: 't, I>() -> impl Parser<'t, I, &'a str, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    select! { Token::Str(s) => s }.labelled("string")
}

/// Constant and address expressions with C precedence (ISA 4.6.3, Table 4).
pub fn expr<'t, 'a: 't, I>() -> impl Parser<'t, I, Expr<'a>, ParseErr<'t, 'a>> + Clone
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
fn operand<'t, 'a: 't, I>() -> impl Parser<'t, I, Operand<'a>, ParseErr<'t, 'a>> + Clone
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

fn linkage<'t, 'a: 't, I>() -> impl Parser<'t, I, Spanned<Linkage>, ParseErr<'t, 'a>> + Clone
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
fn var_decl<'t, 'a: 't, I>() -> impl Parser<'t, I, VarDecl<'a>, ParseErr<'t, 'a>> + Clone
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

fn param_list<'t, 'a: 't, I>() -> impl Parser<'t, I, Vec<VarDecl<'a>>, ParseErr<'t, 'a>> + Clone
where
    I: ValueInput<'t, Token = Token<'a>, Span = SimpleSpan>,
{
    var_decl()
        .separated_by(punct(","))
        .collect()
        .delimited_by(punct("("), punct(")"))
}

fn uint_list<'t, 'a: 't, I>() -> impl Parser<'t, I, Vec<u32>, ParseErr<'t, 'a>> + Clone
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
