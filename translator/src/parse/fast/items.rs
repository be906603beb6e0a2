//! Module items for the fast parser: directives, functions and their headers, variable
//! declarations and initializers.

use super::{Accepted, DEFAULT_BODY, MAX_BODY_ESTIMATE, Parser};
use crate::ast::*;
use crate::diag::{Span, Spanned};
use crate::parse::lexer::Token;
use crate::types::{ScalarType, StateSpace};

impl<'a> Parser<'a> {
    pub(super) fn item(&mut self) -> Accepted<Item<'a>> {
        let from = self.mark();
        match self.peek() {
            Some(Token::Dot("version")) => {
                self.advance();
                let (tok, span) = self.bump()?;
                if !matches!(tok, Token::Float(_) | Token::Int { .. }) {
                    return Err(());
                }
                let text = &self.src[span.start..span.end];
                let (major, minor) = text.split_once('.').unwrap_or((text, "0"));
                let (major, minor) = (
                    major.parse::<u32>().map_err(|_| ())?,
                    minor.parse::<u32>().map_err(|_| ())?,
                );
                Ok(Item::Version {
                    major,
                    minor,
                    span: self.span_from(from),
                })
            }
            Some(Token::Dot("target")) => {
                self.advance();
                Ok(Item::Target(self.comma_list(Self::ident)?))
            }
            Some(Token::Dot("address_size")) => {
                self.advance();
                Ok(Item::AddressSize(self.uint()?))
            }
            Some(Token::Dot("file")) => {
                self.advance();
                if !matches!(self.bump()?.0, Token::Int { .. }) {
                    return Err(());
                }
                self.string()?;
                while self.is_punct(",") && matches!(self.peek_at(1), Some(Token::Int { .. })) {
                    self.advance();
                    self.advance();
                }
                Ok(Item::Ignored(self.span_from(from)))
            }
            Some(Token::Dot("section")) => {
                self.advance();
                if !matches!(self.bump()?.0, Token::Dot(_)) {
                    return Err(());
                }
                self.balanced()?;
                Ok(Item::Ignored(self.span_from(from)))
            }
            Some(Token::Dot("pragma")) => {
                self.advance();
                self.string()?;
                self.punct(";")?;
                Ok(Item::Ignored(self.span_from(from)))
            }
            _ => {
                let at = if self.linkage_at(0).is_some() { 1 } else { 0 };
                if matches!(self.peek_at(at), Some(Token::Dot("entry" | "func"))) {
                    Ok(Item::Function(Box::new(self.function()?)))
                } else {
                    let d = self.var_decl()?;
                    self.punct(";")?;
                    Ok(Item::Var(d))
                }
            }
        }
    }

    /// A `{ ... }` group with balanced braces, skipped but held to what the grammar path's
    /// `prescan` refuses there (a statement's unclosed `(`, nesting past `MAX_NESTING`), so
    /// that the two parsers agree on which files are valid.
    fn balanced(&mut self) -> Accepted<()> {
        let mut toks = vec![self.cur().ok_or(())?];
        self.punct("{")?;
        let mut depth = 1;
        while depth > 0 {
            let t = self.bump()?;
            match t.0 {
                Token::Punct("{") => depth += 1,
                Token::Punct("}") => depth -= 1,
                _ => {}
            }
            toks.push(t);
        }
        if crate::parse::prescan(&toks).is_empty() {
            Ok(())
        } else {
            Err(())
        }
    }

    fn linkage_at(&mut self, k: usize) -> Option<Linkage> {
        match self.peek_at(k)? {
            Token::Dot("visible") => Some(Linkage::Visible),
            Token::Dot("extern") => Some(Linkage::Extern),
            Token::Dot("weak") => Some(Linkage::Weak),
            Token::Dot("common") => Some(Linkage::Common),
            _ => None,
        }
    }

    fn linkage(&mut self) -> Option<Spanned<Linkage>> {
        let l = self.linkage_at(0)?;
        let span = self.cur_span();
        self.advance();
        Some(Spanned::new(l, span))
    }

    fn function(&mut self) -> Accepted<Function<'a>> {
        let from = self.mark();
        let linkage = self.linkage();
        let kind = match self.bump()?.0 {
            Token::Dot("entry") => FunctionKind::Entry,
            Token::Dot("func") => FunctionKind::Func,
            _ => return Err(()),
        };
        let returns = if self.is_punct("(") {
            self.param_list()?
        } else {
            Vec::new()
        };
        let name = self.ident()?;
        let params = if self.is_punct("(") {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        while let Some(d) = self.function_directive()? {
            directives.push(d);
        }
        let body = if self.eat(Token::Punct(";")) {
            None
        } else {
            self.punct("{")?;
            self.labels.clear();
            let (estimate, end) = self.body_estimate();
            let mut body = self.statements(estimate)?;
            if end != Some(self.mark()) {
                // Not where the estimate expected the body to end: it may be far too large.
                self.no_estimate = true;
                if body.capacity() > 2 * body.len() + DEFAULT_BODY {
                    body.shrink_to_fit();
                }
            }
            self.punct("}")?;
            Some(body)
        };
        Ok(Function {
            linkage,
            kind,
            name,
            returns,
            params,
            directives,
            body,
            labels: std::mem::take(&mut self.labels),
            span: self.span_from(from),
        })
    }

    /// About how many statements the function body starting here has, and where it should
    /// end: its lines, up to the `}` that compilers put in column 0 at the end of a function.
    /// The statement vector is allocated once at that size instead of growing by copies of its
    /// large elements (an overestimate costs address space that is never touched). A file whose
    /// bodies do not end that way turns the estimate off after the first body, so that the
    /// search never runs over the rest of the file more than once.
    fn body_estimate(&mut self) -> (usize, Option<usize>) {
        if self.no_estimate {
            return (DEFAULT_BODY, None);
        }
        let from = self.mark();
        let rest = self.src.get(from..).unwrap_or_default();
        // Braces are rarer than newlines: look for the closing one by `}` (memchr), then count
        // the lines before it in one pass that vectorizes.
        let mut at = 0;
        while let Some(k) = rest[at..].find('}') {
            let k = at + k;
            if k > 0 && rest.as_bytes()[k - 1] == b'\n' {
                let lines = rest.as_bytes()[..k].iter().filter(|&&b| b == b'\n').count();
                return ((lines + 1).min(MAX_BODY_ESTIMATE), Some(from + k));
            }
            at = k + 1;
        }
        self.no_estimate = true;
        (DEFAULT_BODY, None)
    }

    pub(super) fn param_list(&mut self) -> Accepted<Vec<VarDecl<'a>>> {
        self.punct("(")?;
        if self.eat(Token::Punct(")")) {
            return Ok(Vec::new());
        }
        let out = self.comma_list(Self::var_decl)?;
        self.punct(")")?;
        Ok(out)
    }

    fn uint_list(&mut self) -> Accepted<Vec<u32>> {
        let mut out = vec![self.uint()?.node];
        while out.len() < 3
            && self.is_punct(",")
            && matches!(self.peek_at(1), Some(Token::Int { .. }))
        {
            self.advance();
            out.push(self.uint()?.node);
        }
        Ok(out)
    }

    /// `Ok(None)` when the next token starts no function directive.
    fn function_directive(&mut self) -> Accepted<Option<FunctionDirective>> {
        let from = self.mark();
        let Some(Token::Dot(d)) = self.peek() else {
            return Ok(None);
        };
        let d = match d {
            "maxntid" | "reqntid" => {
                self.advance();
                let v = self.uint_list()?;
                let s = self.span_from(from);
                if d == "maxntid" {
                    FunctionDirective::MaxNtid(v, s)
                } else {
                    FunctionDirective::ReqNtid(v, s)
                }
            }
            "minnctapersm" | "maxnctapersm" | "maxnreg" | "maxclusterrank" => {
                self.advance();
                let v = self.uint()?.node;
                let s = self.span_from(from);
                match d {
                    "minnctapersm" => FunctionDirective::MinNctaPerSm(v, s),
                    "maxnctapersm" => FunctionDirective::MaxNctaPerSm(v, s),
                    "maxnreg" => FunctionDirective::MaxNreg(v, s),
                    _ => FunctionDirective::Other(s),
                }
            }
            "noreturn" => {
                self.advance();
                FunctionDirective::NoReturn(self.span_from(from))
            }
            "explicitcluster" | "reqnctapercluster" => {
                self.advance();
                let dims = if matches!(self.peek(), Some(Token::Int { .. })) {
                    Some(self.uint_list()?)
                } else {
                    None
                };
                let s = self.span_from(from);
                match dims {
                    Some(v) if d == "reqnctapercluster" => {
                        FunctionDirective::ReqNctaPerCluster(v, s)
                    }
                    _ => FunctionDirective::Other(s),
                }
            }
            "pragma" => {
                self.advance();
                let s = self.string()?;
                self.eat(Token::Punct(";"));
                FunctionDirective::Pragma(s.to_string(), self.span_from(from))
            }
            _ => return Ok(None),
        };
        Ok(Some(d))
    }

    // Declarations.

    fn space(&mut self) -> Accepted<Spanned<StateSpace>> {
        match self.cur() {
            Some((Token::Dot(s), span)) => {
                let sp = StateSpace::from_name(s)
                    .filter(|s| *s != StateSpace::Sreg)
                    .ok_or(())?;
                self.advance();
                Ok(Spanned::new(sp, Span::from(span)))
            }
            _ => Err(()),
        }
    }

    fn decl_mods(&mut self, d: &mut VarDecl<'a>) -> Accepted<()> {
        loop {
            match self.peek() {
                Some(Token::Dot("align")) => {
                    self.advance();
                    d.align = Some(self.uint()?);
                }
                Some(Token::Dot(v @ ("v2" | "v4" | "v8"))) => {
                    let n = match v {
                        "v2" => 2,
                        "v4" => 4,
                        _ => 8,
                    };
                    d.vector = Some(Spanned::new(n, self.cur_span()));
                    self.advance();
                }
                Some(Token::Dot("attribute")) => {
                    self.advance();
                    self.punct("(")?;
                    if !self.eat(Token::Punct(")")) {
                        loop {
                            match self.cur() {
                                Some((Token::Dot(a), span)) => {
                                    d.attributes.push(Spanned::new(a, Span::from(span)));
                                    self.advance();
                                }
                                _ => return Err(()),
                            }
                            if !self.eat(Token::Punct(",")) {
                                break;
                            }
                        }
                        self.punct(")")?;
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn var_type(&mut self) -> Accepted<Spanned<VarType>> {
        match self.cur() {
            Some((Token::Dot(s), span)) => {
                let t = match s {
                    "texref" => VarType::TexRef,
                    "samplerref" => VarType::SamplerRef,
                    "surfref" => VarType::SurfRef,
                    _ => VarType::Scalar(ScalarType::from_name(s).ok_or(())?),
                };
                self.advance();
                Ok(Spanned::new(t, Span::from(span)))
            }
            _ => Err(()),
        }
    }

    /// `linkage? space mods type ptr? mods name, name...` (no `;`).
    pub(super) fn var_decl(&mut self) -> Accepted<VarDecl<'a>> {
        let from = self.mark();
        let linkage = self.linkage();
        let space = self.space()?;
        let mut d = VarDecl {
            linkage,
            space,
            align: None,
            vector: None,
            ty: Spanned::new(VarType::TexRef, Span::default()),
            ptr: None,
            attributes: Vec::new(),
            names: Vec::new(),
            span: Span::default(),
        };
        // The two modifier groups are read into one declaration, the later winning.
        let mut first = d.clone();
        self.decl_mods(&mut first)?;
        d.ty = self.var_type()?;
        if self.is_dot("ptr") {
            let pfrom = self.mark();
            self.advance();
            let space = self.space().ok();
            let align = if self.is_dot("align") {
                self.advance();
                Some(self.uint()?)
            } else {
                None
            };
            d.ptr = Some(PtrAttr {
                space,
                align,
                span: self.span_from(pfrom),
            });
        }
        let mut second = d.clone();
        self.decl_mods(&mut second)?;
        d.align = second.align.or(first.align);
        d.vector = second.vector.or(first.vector);
        d.attributes = first.attributes;
        d.attributes.extend(second.attributes);
        d.names.push(self.decl_name()?);
        // In a parameter list the `,` may separate declarations instead of names.
        while self.is_punct(",") && matches!(self.peek_at(1), Some(Token::Ident(_))) {
            self.advance();
            d.names.push(self.decl_name()?);
        }
        d.span = self.span_from(from);
        Ok(d)
    }

    fn decl_name(&mut self) -> Accepted<DeclName<'a>> {
        let name = self.ident()?;
        let count = if self.is_punct("<") {
            self.advance();
            let c = self.uint()?;
            self.punct(">")?;
            Some(c)
        } else {
            None
        };
        let mut dims = Vec::new();
        while self.eat(Token::Punct("[")) {
            if self.eat(Token::Punct("]")) {
                dims.push(None);
            } else {
                dims.push(Some(self.expr(true)?));
                self.punct("]")?;
            }
        }
        let init = if self.eat(Token::Punct("=")) {
            Some(self.initializer()?)
        } else {
            None
        };
        Ok(DeclName {
            name,
            count,
            dims,
            init,
        })
    }

    fn initializer(&mut self) -> Accepted<Initializer<'a>> {
        if !self.is_punct("{") {
            return Ok(Initializer::Expr(self.expr(true)?));
        }
        let from = self.mark();
        self.advance();
        self.enter()?;
        let mut items = Vec::new();
        while !self.eat(Token::Punct("}")) {
            items.push(self.initializer()?);
            if !self.eat(Token::Punct(",")) {
                self.punct("}")?;
                break;
            }
        }
        self.nest -= 1;
        Ok(Initializer::List(items, self.span_from(from)))
    }
}
