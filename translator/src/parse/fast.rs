//! A recursive-descent parser for valid PTX: the same grammar as `grammar.rs`, producing the
//! same syntax tree, written by hand for speed (the chumsky grammar parses a few MB/s; this one
//! a hundred and more). It gives up (`None`) at the first thing it does not accept, and the
//! chumsky grammar then parses the file again to report the errors with recovery. The fuzz test
//! checks that both produce identical trees wherever this one succeeds.

use chumsky::span::SimpleSpan;

use super::lexer::{Lexer, Token};
use crate::ast::*;
use crate::diag::{Span, Spanned};

mod items;
mod statements;

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
