//! A recursive-descent parser for valid PTX: the same grammar as `grammar.rs`, producing the
//! same syntax tree, written by hand for speed (the chumsky grammar parses a few MB/s; this one
//! a hundred and more). It gives up (`None`) at the first thing it does not accept, and the
//! chumsky grammar then parses the file again to report the errors with recovery. The fuzz test
//! checks that both produce identical trees wherever this one succeeds.

use chumsky::span::SimpleSpan;

use super::lexer::{Lexer, Token};
use crate::ast::*;
use crate::diag::{Span, Spanned};
use crate::types::{ScalarType, StateSpace};

/// How deep brackets, blocks, initializer braces and expressions may nest
/// (docs/decisions/0014-nesting-limit.md). Every later stage walks these trees recursively; the
/// limit keeps them within any thread's stack.
pub const MAX_NESTING: usize = 256;

type Tok<'a> = (Token<'a>, SimpleSpan);

/// The largest estimate taken: a file whose first `}` in column 0 is far away (bodies closed
/// elsewhere) must not reserve a vector the size of the whole file.
const MAX_BODY_ESTIMATE: usize = 1 << 16;

/// The initial capacity of a body's statement vector when there is no estimate.
const DEFAULT_BODY: usize = 32;

/// `Err(())` means "not accepted here"; the caller gives up.
type Accepted<T> = Result<T, ()>;

/// The parser reads tokens from the lexer as it goes, keeping only a small window of them: a
/// token vector for a whole large module was a fifth of the parse time in page faults.
struct Parser<'a> {
    lexer: Lexer<'a>,
    buf: Vec<Tok<'a>>,
    /// The next token's index in `buf`.
    pos: usize,
    src: &'a str,
    /// End of the last token consumed.
    last_end: usize,
    first_start: Option<usize>,
    /// The lexer reported an error: this parser gives up.
    failed: bool,
    /// The lexer has reached the end of the text or an error.
    lexed_all: bool,
    /// Function bodies do not end with a `}` in column 0 ([`Parser::body_estimate`]).
    no_estimate: bool,
    /// The labels of the function body being read ([`Function::labels`]).
    labels: Vec<Spanned<&'a str>>,
    /// Brackets, blocks and operators open on the current path: past [`MAX_NESTING`] this parser
    /// gives up (rather than overflow its stack) and the grammar path reports where.
    nest: usize,
}

pub fn module(src: &str) -> Option<Module<'_>> {
    let mut p = Parser {
        lexer: Lexer::new(src),
        buf: Vec::with_capacity(2048),
        pos: 0,
        src,
        last_end: 0,
        first_start: None,
        failed: false,
        lexed_all: false,
        no_estimate: false,
        labels: Vec::new(),
        nest: 0,
    };
    let mut items = Vec::new();
    while p.peek().is_some() {
        p.compact();
        items.push(p.item().ok()?);
    }
    if p.failed {
        return None;
    }
    let span = match p.first_start {
        Some(a) => Span::new(a, p.last_end),
        None => Span::new(src.len(), src.len()),
    };
    Some(Module { items, span })
}

impl<'a> Parser<'a> {
    /// Makes sure `buf` holds the token `k` places ahead; false at the end or on a lexical
    /// error. Every look at a token asks this, nearly always of a token already read: that
    /// answer is inlined, the lexing is not.
    #[inline]
    fn fill(&mut self, k: usize) -> bool {
        self.pos + k < self.buf.len() || self.lex_until(k)
    }

    /// Lexes a batch of tokens past the one asked for: the lexer runs in longer stretches
    /// (its code and the text stay in cache), and the parser's look-ahead rarely comes here.
    #[inline(never)]
    fn lex_until(&mut self, k: usize) -> bool {
        const BATCH: usize = 64;
        let want = self.pos + k + 1;
        while !self.lexed_all && self.buf.len() < want + BATCH {
            match self.lexer.next() {
                Some(Ok(t)) => {
                    if self.first_start.is_none() {
                        self.first_start = Some(t.1.start);
                    }
                    self.buf.push(t);
                }
                // A lexical error anywhere makes this parser give up (`module` checks
                // `failed`), so nothing after it is needed.
                Some(Err(_)) => {
                    self.failed = true;
                    self.lexed_all = true;
                }
                None => self.lexed_all = true,
            }
        }
        self.buf.len() >= want
    }

    /// Drops consumed tokens; only between statements, where nothing rewinds. Rarely, so that
    /// the look-ahead batch moves seldom.
    fn compact(&mut self) {
        if self.pos > 1024 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
    }

    #[inline]
    fn cur(&mut self) -> Option<Tok<'a>> {
        if self.fill(0) {
            Some(self.buf[self.pos])
        } else {
            None
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<Token<'a>> {
        self.cur().map(|t| t.0)
    }

    #[inline]
    fn peek_at(&mut self, k: usize) -> Option<Token<'a>> {
        if self.fill(k) {
            Some(self.buf[self.pos + k].0)
        } else {
            None
        }
    }

    #[inline]
    fn advance(&mut self) {
        if self.fill(0) {
            self.last_end = self.buf[self.pos].1.end;
            self.pos += 1;
        }
    }

    /// One more level of nesting; an error past the limit.
    fn enter(&mut self) -> Accepted<()> {
        self.nest += 1;
        if self.nest > MAX_NESTING {
            self.failed = true;
            return Err(());
        }
        Ok(())
    }

    fn bump(&mut self) -> Accepted<Tok<'a>> {
        let t = self.cur().ok_or(())?;
        self.advance();
        Ok(t)
    }

    fn cur_span(&mut self) -> Span {
        self.cur().map_or(Span::default(), |t| Span::from(t.1))
    }

    /// Where the next node starts: the next token's start.
    fn mark(&mut self) -> usize {
        self.cur().map_or(self.src.len(), |t| t.1.start)
    }

    /// The span from `mark` to the end of the last token consumed.
    fn span_from(&self, mark: usize) -> Span {
        Span::new(mark, self.last_end.max(mark))
    }

    #[inline]
    fn eat(&mut self, t: Token<'_>) -> bool {
        if self.peek().is_some_and(|c| same_token(c, t)) {
            self.advance();
            true
        } else {
            false
        }
    }

    #[inline]
    fn expect(&mut self, t: Token<'_>) -> Accepted<()> {
        if self.eat(t) { Ok(()) } else { Err(()) }
    }

    #[inline]
    fn punct(&mut self, p: &'static str) -> Accepted<()> {
        self.expect(Token::Punct(p))
    }

    #[inline]
    fn is_punct(&mut self, p: &'static str) -> bool {
        self.peek().is_some_and(|c| same_token(c, Token::Punct(p)))
    }

    #[inline]
    fn is_dot(&mut self, d: &str) -> bool {
        matches!(self.peek(), Some(Token::Dot(q)) if q == d)
    }

    fn ident(&mut self) -> Accepted<Spanned<&'a str>> {
        match self.cur() {
            Some((Token::Ident(s), span)) => {
                self.advance();
                Ok(Spanned::new(s, Span::from(span)))
            }
            _ => Err(()),
        }
    }

    fn uint(&mut self) -> Accepted<Spanned<u32>> {
        match self.cur() {
            Some((Token::Int { value, .. }, span)) => {
                let v = u32::try_from(value).map_err(|_| ())?;
                self.advance();
                Ok(Spanned::new(v, Span::from(span)))
            }
            _ => Err(()),
        }
    }

    fn string(&mut self) -> Accepted<&'a str> {
        match self.peek() {
            Some(Token::Str(s)) => {
                self.advance();
                Ok(s)
            }
            _ => Err(()),
        }
    }

    // Module items.

    fn item(&mut self) -> Accepted<Item<'a>> {
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

    /// A `{ ... }` group with balanced braces.
    fn balanced(&mut self) -> Accepted<()> {
        self.punct("{")?;
        let mut depth = 1;
        while depth > 0 {
            match self.bump()?.0 {
                Token::Punct("{") => depth += 1,
                Token::Punct("}") => depth -= 1,
                _ => {}
            }
        }
        Ok(())
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

    fn param_list(&mut self) -> Accepted<Vec<VarDecl<'a>>> {
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
    fn var_decl(&mut self) -> Accepted<VarDecl<'a>> {
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

    // Statements.

    fn statements(&mut self, capacity: usize) -> Accepted<Vec<Statement<'a>>> {
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
    fn comma_list<T>(
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
    fn expr(&mut self, allow_or: bool) -> Accepted<Expr<'a>> {
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

/// `a == b`, without a call to `memcmp` for punctuation (at most two bytes: the first and
/// last byte and the length say it all), which the parser compares at nearly every token.
fn same_token(a: Token<'_>, b: Token<'_>) -> bool {
    match (a, b) {
        (Token::Punct(x), Token::Punct(y)) if x.len() <= 2 => {
            x.len() == y.len()
                && x.as_bytes().first() == y.as_bytes().first()
                && x.as_bytes().last() == y.as_bytes().last()
        }
        _ => a == b,
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
