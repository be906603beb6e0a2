//! Statements for the fast parser: labels, blocks, instructions, operands and expressions.

use super::{Accepted, DEFAULT_BODY, Parser, same_token};
use crate::ast::*;
use crate::diag::{Span, Spanned};
use crate::parse::lexer::Token;
use crate::types::ScalarType;

impl<'a> Parser<'a> {
    pub(super) fn statements(&mut self, capacity: usize) -> Accepted<Vec<Statement<'a>>> {
        let mut out = Vec::with_capacity(capacity);
        while !self.is_punct("}") {
            if self.peek().is_none() {
                return Err(());
            }
            out.push(self.statement()?);
        }
        Ok(out)
    }

    fn statement(&mut self) -> Accepted<Statement<'a>> {
        self.compact();
        let from = self.mark();
        match self.peek() {
            Some(Token::Ident(_))
                if self
                    .peek_at(1)
                    .is_some_and(|t| same_token(t, Token::Punct(":"))) =>
            {
                let l = self.ident()?;
                self.advance();
                self.labels.push(l.clone());
                Ok(Statement::Label(l))
            }
            Some(Token::Punct("{")) => {
                self.advance();
                self.enter()?;
                let body = self.statements(DEFAULT_BODY)?;
                self.punct("}")?;
                self.nest -= 1;
                Ok(Statement::Block(body, self.span_from(from)))
            }
            Some(Token::Dot("branchtargets")) => {
                self.advance();
                let mut list = Vec::new();
                loop {
                    let n = self.ident()?;
                    let count = if self.is_punct("<") {
                        self.advance();
                        let c = self.uint()?;
                        self.punct(">")?;
                        Some(c)
                    } else {
                        None
                    };
                    list.push((n, count));
                    if !self.eat(Token::Punct(",")) {
                        break;
                    }
                }
                self.punct(";")?;
                Ok(Statement::BranchTargets(list, self.span_from(from)))
            }
            Some(Token::Dot("calltargets")) => {
                self.advance();
                let names = self.comma_list(Self::ident)?;
                self.punct(";")?;
                Ok(Statement::CallTargets(names, self.span_from(from)))
            }
            Some(Token::Dot("callprototype")) => {
                self.advance();
                let returns = if self.is_punct("(") {
                    self.param_list()?
                } else {
                    Vec::new()
                };
                self.expect(Token::Ident("_"))?;
                let params = if self.is_punct("(") {
                    self.param_list()?
                } else {
                    Vec::new()
                };
                let noreturn = if self.is_dot("noreturn") {
                    let s = self.cur_span();
                    self.advance();
                    Some(s)
                } else {
                    None
                };
                self.punct(";")?;
                Ok(Statement::CallPrototype {
                    returns,
                    params,
                    noreturn,
                    span: self.span_from(from),
                })
            }
            Some(Token::Dot("pragma")) => {
                self.advance();
                let strs = self.comma_list(Self::string)?;
                self.punct(";")?;
                Ok(Statement::Pragma(strs.join(","), self.span_from(from)))
            }
            Some(Token::Dot("loc")) => {
                self.advance();
                let mut ints = 0;
                while ints < 3 && matches!(self.peek(), Some(Token::Int { .. })) {
                    self.advance();
                    ints += 1;
                }
                if ints < 2 {
                    return Err(());
                }
                while self.is_punct(",") && matches!(self.peek_at(1), Some(Token::Ident(_))) {
                    self.advance();
                    self.advance();
                    match self.peek() {
                        Some(Token::Ident(_)) => self.advance(),
                        Some(Token::Int { .. }) => {
                            while matches!(self.peek(), Some(Token::Int { .. })) {
                                self.advance();
                            }
                        }
                        _ => return Err(()),
                    }
                }
                Ok(Statement::Ignored(self.span_from(from)))
            }
            Some(Token::Dot(_)) => {
                let d = self.var_decl()?;
                self.punct(";")?;
                Ok(Statement::Var(Box::new(d)))
            }
            Some(Token::Ident(_) | Token::Punct("@")) => self.instruction(),
            _ => Err(()),
        }
    }

    fn instruction(&mut self) -> Accepted<Statement<'a>> {
        let from = self.mark();
        let guard = if self.eat(Token::Punct("@")) {
            let negated = self.eat(Token::Punct("!"));
            let pred = self.ident()?;
            Some(Guard {
                negated,
                pred,
                span: self.span_from(from),
            })
        } else {
            None
        };
        let opcode = self.ident()?;
        let mut modifiers = Modifiers::new();
        while let Some((Token::Dot(m), span)) = self.cur() {
            modifiers.push(Spanned::new(m, Span::from(span)));
            self.advance();
        }
        let mut operands = Operands::new();
        if !self.is_punct(";") {
            operands.push(self.operand()?);
            while self.eat(Token::Punct(",")) {
                operands.push(self.operand()?);
            }
        }
        self.punct(";")?;
        Ok(Statement::Instruction(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            span: self.span_from(from),
        }))
    }

    // Operands.

    fn operand(&mut self) -> Accepted<Operand<'a>> {
        let a = self.single_operand()?;
        if self.eat(Token::Punct("|")) {
            let b = self.single_operand()?;
            return Ok(Operand {
                span: a.span.to(b.span),
                kind: OperandKind::Pair(Box::new(a), Box::new(b)),
            });
        }
        Ok(a)
    }

    /// One or more `item`s separated by commas.
    pub(super) fn comma_list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Accepted<T>,
    ) -> Accepted<Vec<T>> {
        let mut out = vec![item(self)?];
        while self.eat(Token::Punct(",")) {
            out.push(item(self)?);
        }
        Ok(out)
    }

    fn operand_list(&mut self, close: &'static str) -> Accepted<Vec<Operand<'a>>> {
        let items = self.comma_list(Self::operand)?;
        self.punct(close)?;
        Ok(items)
    }

    fn single_operand(&mut self) -> Accepted<Operand<'a>> {
        let from = self.mark();
        // Vectors, addresses and lists nest operands in operands.
        let base = self.nest;
        let kind = match self.peek() {
            Some(Token::Punct("{")) => {
                self.advance();
                self.enter()?;
                OperandKind::Vector(self.operand_list("}")?)
            }
            Some(Token::Punct("[")) => {
                self.advance();
                self.enter()?;
                let mut items = self.operand_list("]")?;
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
            }
            Some(Token::Punct("(")) if self.peek_at(1) == Some(Token::Punct(")")) => {
                self.advance();
                self.advance();
                OperandKind::List(Vec::new())
            }
            Some(Token::Punct("(")) => {
                // `(a, b, ...)` is a list; `(a)` an expression (or the start of one).
                let save = (self.pos, self.last_end);
                self.advance();
                self.enter()?;
                let list = self.operand().ok().and_then(|first| {
                    if self.is_punct(",") {
                        let mut items = vec![first];
                        while self.eat(Token::Punct(",")) {
                            items.push(self.operand().ok()?);
                        }
                        self.eat(Token::Punct(")")).then_some(items)
                    } else {
                        None
                    }
                });
                match list {
                    Some(items) => OperandKind::List(items),
                    None => {
                        (self.pos, self.last_end) = save;
                        self.nest = base;
                        OperandKind::Imm(self.expr(false)?)
                    }
                }
            }
            Some(Token::Punct("-"))
                if matches!(
                    (self.peek_at(1), self.peek_at(2)),
                    (Some(Token::Ident(_)), Some(Token::Dot(c))) if crate::ast::is_video_selector(c)
                ) =>
            {
                self.advance();
                let (Some(Token::Ident(n)), Some(Token::Dot(c))) = (self.peek(), self.peek_at(1))
                else {
                    return Err(());
                };
                self.advance();
                self.advance();
                OperandKind::Select(n, c, true)
            }
            Some(Token::Ident(n)) => match self.peek_at(1) {
                Some(Token::Dot(c)) if Component::from_name(c).is_some() => {
                    self.advance();
                    self.advance();
                    OperandKind::Component(n, Component::from_name(c).ok_or(())?)
                }
                Some(Token::Dot(c)) if crate::ast::is_video_selector(c) => {
                    self.advance();
                    self.advance();
                    OperandKind::Select(n, c, false)
                }
                Some(Token::Punct("[")) => {
                    let name = self.ident()?;
                    self.advance();
                    let e = self.expr(true)?;
                    self.punct("]")?;
                    OperandKind::Index(name, Box::new(e))
                }
                _ if n == "_" => {
                    self.advance();
                    OperandKind::Sink
                }
                _ => OperandKind::Imm(self.expr(false)?),
            },
            _ => OperandKind::Imm(self.expr(false)?),
        };
        self.nest = base;
        Ok(Operand {
            kind,
            span: self.span_from(from),
        })
    }

    // Expressions (ISA 4.6.3, Table 4).

    /// `allow_or: false` at the top of an operand, where `|` separates a pair.
    pub(super) fn expr(&mut self, allow_or: bool) -> Accepted<Expr<'a>> {
        let c = self.binary(0, allow_or)?;
        if self.eat(Token::Punct("?")) {
            self.enter()?;
            let a = self.expr(true)?;
            self.punct(":")?;
            let b = self.expr(true)?;
            self.nest -= 1;
            return Ok(Expr {
                span: c.span.to(b.span),
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            });
        }
        Ok(c)
    }

    /// Precedence climbing over Table 4's binary levels, all left-associative.
    fn binary(&mut self, min_level: u8, allow_or: bool) -> Accepted<Expr<'a>> {
        // Each operator of a left-associative chain deepens the tree without a call here, so
        // the chain counts towards the limit too (the tree is walked recursively later).
        let base = self.nest;
        let mut a = self.unary(allow_or)?;
        loop {
            let Some(Token::Punct(p)) = self.peek() else {
                self.nest = base;
                return Ok(a);
            };
            let Some((level, op)) = binary_op(p) else {
                self.nest = base;
                return Ok(a);
            };
            if level < min_level || (op == BinaryOp::BitOr && !allow_or) {
                self.nest = base;
                return Ok(a);
            }
            self.advance();
            self.enter()?;
            let b = self.binary(level + 1, allow_or)?;
            a = Expr {
                span: a.span.to(b.span),
                kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            };
        }
    }

    fn unary(&mut self, allow_or: bool) -> Accepted<Expr<'a>> {
        let from = self.mark();
        let op = match self.peek() {
            Some(Token::Punct("+")) => Some(UnaryOp::Plus),
            Some(Token::Punct("-")) => Some(UnaryOp::Neg),
            Some(Token::Punct("~")) => Some(UnaryOp::Not),
            Some(Token::Punct("!")) => Some(UnaryOp::LogicalNot),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let span = self.span_from(from);
            self.enter()?;
            let inner = self.unary(allow_or)?;
            self.nest -= 1;
            return Ok(Expr {
                span: span.to(inner.span),
                kind: ExprKind::Unary(op, Box::new(inner)),
            });
        }
        if self.is_punct("(")
            && matches!(self.peek_at(1), Some(Token::Dot("s64" | "u64")))
            && self.peek_at(2) == Some(Token::Punct(")"))
        {
            let ty = match self.peek_at(1) {
                Some(Token::Dot("s64")) => ScalarType::S64,
                _ => ScalarType::U64,
            };
            self.advance();
            self.advance();
            self.advance();
            let span = self.span_from(from);
            self.enter()?;
            let inner = self.unary(allow_or)?;
            self.nest -= 1;
            return Ok(Expr {
                span: span.to(inner.span),
                kind: ExprKind::Cast(ty, Box::new(inner)),
            });
        }
        self.atom(allow_or)
    }

    fn atom(&mut self, allow_or: bool) -> Accepted<Expr<'a>> {
        let (tok, span) = self.cur().ok_or(())?;
        let kind = match tok {
            Token::Int { value, unsigned } => ExprKind::Int { value, unsigned },
            Token::Float(v) => ExprKind::Float(v),
            Token::F32Bits(b) => ExprKind::F32Bits(b),
            Token::F64Bits(b) => ExprKind::F64Bits(b),
            Token::Ident("generic") if allow_or && self.peek_at(1) == Some(Token::Punct("(")) => {
                let from = self.mark();
                self.advance();
                self.advance();
                let n = self.ident()?;
                self.punct(")")?;
                return Ok(Expr {
                    kind: ExprKind::Generic(n),
                    span: self.span_from(from),
                });
            }
            Token::Ident(s) => ExprKind::Name(s),
            Token::Punct("(") => {
                self.advance();
                self.enter()?;
                let e = self.expr(true)?;
                self.punct(")")?;
                self.nest -= 1;
                return Ok(e);
            }
            _ => return Err(()),
        };
        self.advance();
        Ok(Expr {
            kind,
            span: Span::from(span),
        })
    }
}

/// A binary operator's precedence level (0 binds loosest) and meaning (ISA Table 4).
fn binary_op(p: &str) -> Option<(u8, BinaryOp)> {
    Some(match p {
        "||" => (0, BinaryOp::LogicalOr),
        "&&" => (1, BinaryOp::LogicalAnd),
        "|" => (2, BinaryOp::BitOr),
        "^" => (3, BinaryOp::BitXor),
        "&" => (4, BinaryOp::BitAnd),
        "==" => (5, BinaryOp::Eq),
        "!=" => (5, BinaryOp::Ne),
        "<" => (6, BinaryOp::Lt),
        ">" => (6, BinaryOp::Gt),
        "<=" => (6, BinaryOp::Le),
        ">=" => (6, BinaryOp::Ge),
        "<<" => (7, BinaryOp::Shl),
        ">>" => (7, BinaryOp::Shr),
        "+" => (8, BinaryOp::Add),
        "-" => (8, BinaryOp::Sub),
        "*" => (9, BinaryOp::Mul),
        "/" => (9, BinaryOp::Div),
        "%" => (9, BinaryOp::Rem),
        _ => return None,
    })
}
