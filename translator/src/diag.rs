//! Source positions and diagnostics.
//!
//! Every error the translator reports about user input is a [`Diagnostic`] with a span into the
//! PTX source; [`Diagnostics`] renders them the way rustc does (`file:line:col`, the source line and
//! a caret under the offending token).

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::{Files, SimpleFile};
use codespan_reporting::term::{self, Chars, Config};

/// A byte range in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl From<chumsky::span::SimpleSpan> for Span {
    fn from(s: chumsky::span::SimpleSpan) -> Self {
        Span::new(s.start, s.end)
    }
}

/// A value together with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned {
            node: f(self.node),
            span: self.span,
        }
    }
}

/// A PTX source file: its name (as the user gave it) and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// Byte offsets of line starts after the first, computed on the first `line_col`: a
    /// module can report thousands of sites (trap and fault messages), and counting lines
    /// from the start for each made that quadratic in the file's size.
    lines: OnceLock<Vec<u32>>,
}

impl PartialEq for SourceFile {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.text == other.text
    }
}

impl Eq for SourceFile {}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<Self> {
        Arc::new(SourceFile {
            name: name.into(),
            text: text.into(),
            lines: OnceLock::new(),
        })
    }

    /// Byte offsets of the starts of lines after the first. A line ends at `\n`, `\r\n` or a lone
    /// `\r` (old Mac files: otherwise the whole file is one line).
    fn line_starts(&self) -> &[u32] {
        self.lines.get_or_init(|| {
            let b = self.text.as_bytes();
            let mut starts = Vec::new();
            for (i, &c) in b.iter().enumerate() {
                if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
                    starts.push(i as u32 + 1);
                }
            }
            starts
        })
    }

    /// 0-based line index of a byte offset.
    fn line_index(&self, offset: usize) -> usize {
        self.line_starts()
            .partition_point(|&s| s as usize <= offset)
    }

    /// The bytes of line `index` (0-based), without its line break.
    fn line_range(&self, index: usize) -> Range<usize> {
        let starts = self.line_starts();
        let start = if index == 0 {
            0
        } else {
            starts
                .get(index - 1)
                .map_or(self.text.len(), |&s| s as usize)
        };
        let mut end = starts.get(index).map_or(self.text.len(), |&s| s as usize);
        let b = self.text.as_bytes();
        while end > start && matches!(b[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        start..end
    }

    /// Whether some line ends in a lone `\r`, which codespan's own line splitting misses.
    fn has_lone_cr(&self) -> bool {
        let b = self.text.as_bytes();
        b.iter()
            .enumerate()
            .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'))
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, (offset as usize).min(self.text.len()));
        let line = self.line_index(offset);
        let line_start = if line == 0 {
            0
        } else {
            self.line_starts()[line - 1] as usize
        };
        let col = self.text[line_start..offset].chars().count() + 1;
        (line + 1, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One message about the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text under the caret.
    pub label: String,
    /// Further places worth showing (e.g. where a symbol was declared).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

/// The longest message, label or note kept, in bytes. Messages quote the source (`unknown
/// name `...``), and a name can be as long as a line: a 100 MB operand made a 100 MB report.
pub const MAX_MESSAGE: usize = 400;

/// `text`, cut to [`MAX_MESSAGE`] bytes (at a character boundary) with `...` where it was cut.
fn bounded(text: impl Into<String>) -> String {
    let mut text = text.into();
    if text.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: bounded(message),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = bounded(label);
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, bounded(label)));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(bounded(note));
        self
    }
}

/// All diagnostics for one source file. This is the translator's error type.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostics {
    pub file: Arc<SourceFile>,
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new(file: Arc<SourceFile>, items: Vec<Diagnostic>) -> Self {
        Diagnostics { file, items }
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The diagnostics shown, and the line that counts the rest: a file of thousands of errors
    /// (one per `}` of a long line) would otherwise print megabytes no one reads.
    fn shown(&self) -> (&[Diagnostic], Option<String>) {
        let n = self.items.len().min(MAX_SHOWN);
        let rest = &self.items[n..];
        let more = (!rest.is_empty()).then(|| {
            let what = if rest.iter().all(|d| d.severity == Severity::Error) {
                "errors"
            } else {
                "errors and warnings"
            };
            format!("{} more {what} not shown\n", rest.len())
        });
        (&self.items[..n], more)
    }

    /// `file:line:col: error: message`, one line per diagnostic.
    pub fn short(&self) -> String {
        let (shown, more) = self.shown();
        let mut out = String::new();
        for d in shown {
            let (line, col) = self.file.line_col(d.span.start);
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            out.push_str(&format!(
                "{}:{line}:{col}: {sev}: {}\n",
                self.file.name, d.message
            ));
        }
        out.extend(more);
        out
    }

    /// The rustc-style rendering: message, `--> file:line:col`, the source line, a caret. A
    /// line longer than `LONG_LINE` (200) bytes is shown as an excerpt around each label.
    pub fn render(&self, color: bool) -> String {
        let files = SimpleFile::new(self.file.name.as_str(), self.file.text.as_str());
        let lone_cr = self.file.has_lone_cr();
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let (shown, more) = self.shown();
        let mut buf: Vec<u8> = Vec::new();
        for d in shown {
            let long = std::iter::once(d.span)
                .chain(d.secondary.iter().map(|(s, _)| *s))
                .any(|s| {
                    let line = self.file.line_index(s.start as usize);
                    self.file.line_range(line).len() > LONG_LINE
                });
            let result = if long || lone_cr {
                let (excerpt, cs) = Excerpt::new(&self.file, d);
                emit(&mut buf, color, &config, &excerpt, &cs)
            } else {
                let cs = to_codespan(d, self.file.text.len());
                emit(&mut buf, color, &config, &files, &cs)
            };
            if result.is_err() {
                // Rendering only fails on spans outside the file; fall back to the short form.
                let one = Diagnostics::new(self.file.clone(), vec![d.clone()]);
                buf.extend_from_slice(one.short().as_bytes());
            }
        }
        if let Some(more) = more {
            buf.extend_from_slice(more.as_bytes());
        }
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// At most this many diagnostics of a file are shown.
pub const MAX_SHOWN: usize = 100;
/// Lines longer than this (in bytes) are shown as an excerpt around the caret.
const LONG_LINE: usize = 200;
/// Bytes of a long line shown on either side of a label's start.
const CONTEXT: usize = 60;

fn emit<'f, F: Files<'f, FileId = ()>>(
    buf: &mut Vec<u8>,
    color: bool,
    config: &Config,
    files: &'f F,
    cs: &CsDiagnostic<()>,
) -> Result<(), codespan_reporting::files::Error> {
    if color {
        let mut w = term::termcolor::Ansi::new(buf);
        term::emit_to_write_style(&mut w, config, files, cs)
    } else {
        let mut w = term::termcolor::NoColor::new(buf);
        term::emit_to_write_style(&mut w, config, files, cs)
    }
}

/// The lines a diagnostic's labels fall on, each cut to a window around its first label when
/// long, as a small file whose line and column numbers are those of the real one.
struct Excerpt<'f> {
    name: &'f str,
    text: String,
    lines: Vec<ExcerptLine>,
}

/// One shown line: where it starts in the excerpt, its real 0-based index, the real column
/// (0-based, in characters) of its first byte after `prefix` (the `...` of a cut start).
struct ExcerptLine {
    start: usize,
    real: usize,
    col: usize,
    prefix: usize,
}

impl<'f> Excerpt<'f> {
    fn new(file: &'f SourceFile, d: &Diagnostic) -> (Self, CsDiagnostic<()>) {
        let len = file.text.len();
        let mut spans: Vec<(Span, bool, String)> = vec![(d.span, true, d.label.clone())];
        spans.extend(d.secondary.iter().map(|(s, m)| (*s, false, m.clone())));
        let mut windows: Vec<(usize, Range<usize>)> = Vec::new();
        for (s, _, _) in &spans {
            let at = floor_char_boundary(&file.text, (s.start as usize).min(len));
            let line = file.line_index(at);
            if windows.iter().any(|(l, _)| *l == line) {
                continue;
            }
            let r = file.line_range(line);
            let lo = floor_char_boundary(&file.text, at.saturating_sub(CONTEXT).max(r.start));
            let hi = floor_char_boundary(&file.text, (at + CONTEXT).min(r.end));
            let w = if r.len() <= LONG_LINE { r } else { lo..hi };
            windows.push((line, w));
        }
        windows.sort_by_key(|(l, _)| *l);
        let mut text = String::new();
        let mut lines = Vec::new();
        for (line, w) in &windows {
            let r = file.line_range(*line);
            let start = text.len();
            let prefix = if w.start > r.start { "..." } else { "" };
            text.push_str(prefix);
            text.push_str(&file.text[w.clone()]);
            if w.end < r.end {
                text.push_str("...");
            }
            text.push('\n');
            lines.push(ExcerptLine {
                start,
                real: *line,
                col: file.text[r.start..w.start].chars().count(),
                prefix: prefix.len(),
            });
        }
        // Each label cut to its window, at its place in the excerpt; one outside it is dropped.
        let labels = spans
            .into_iter()
            .filter_map(|(s, primary, msg)| {
                let at = floor_char_boundary(&file.text, (s.start as usize).min(len));
                let i = windows
                    .iter()
                    .position(|(l, _)| *l == file.line_index(at))?;
                let w = &windows[i].1;
                if !w.contains(&at) && at != w.end {
                    return None;
                }
                let end = floor_char_boundary(&file.text, (s.end as usize).clamp(at, w.end));
                let base = lines[i].start + lines[i].prefix;
                let r = base + (at - w.start)..base + (end - w.start);
                let l = if primary {
                    Label::primary((), r)
                } else {
                    Label::secondary((), r)
                };
                Some(l.with_message(msg))
            })
            .collect();
        let base = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let cs = base
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(d.notes.clone());
        let name = file.name.as_str();
        (Excerpt { name, text, lines }, cs)
    }

    fn line(&self, index: usize) -> Result<&ExcerptLine, codespan_reporting::files::Error> {
        self.lines
            .get(index)
            .ok_or(codespan_reporting::files::Error::LineTooLarge {
                given: index,
                max: self.lines.len(),
            })
    }
}

impl<'a> Files<'a> for Excerpt<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(&self.text)
    }

    fn line_index(
        &'a self,
        (): (),
        byte: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self
            .lines
            .partition_point(|l| l.start <= byte)
            .saturating_sub(1))
    }

    fn line_number(
        &'a self,
        (): (),
        index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.line(index)?.real + 1)
    }

    fn column_number(
        &'a self,
        (): (),
        index: usize,
        byte: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let l = self.line(index)?;
        let from = l.start + l.prefix;
        let byte = floor_char_boundary(&self.text, byte.clamp(from, self.text.len()));
        Ok(l.col + self.text[from..byte].chars().count() + 1)
    }

    fn line_range(
        &'a self,
        (): (),
        index: usize,
    ) -> Result<Range<usize>, codespan_reporting::files::Error> {
        let start = self.line(index)?.start;
        let end = self
            .lines
            .get(index + 1)
            .map_or(self.text.len(), |l| l.start);
        Ok(start..end)
    }
}

fn to_codespan(d: &Diagnostic, len: usize) -> CsDiagnostic<()> {
    let clamp = |s: Span| {
        let r = s.range();
        r.start.min(len)..r.end.min(len).max(r.start.min(len))
    };
    let mut labels = vec![Label::primary((), clamp(d.span)).with_message(d.label.clone())];
    for (span, msg) in &d.secondary {
        labels.push(Label::secondary((), clamp(*span)).with_message(msg.clone()));
    }
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    base.with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone())
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render(false).trim_end())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_lines_and_chars() {
        let f = SourceFile::new("a.ptx", "ab\ncd\n  ef");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(8), (3, 3));
        // Past the end, on a newline, and inside a multi-byte character.
        assert_eq!(f.line_col(99), (3, 5));
        assert_eq!(f.line_col(2), (1, 3));
        let g = SourceFile::new("b.ptx", "é\nx");
        assert_eq!(g.line_col(1), (1, 1));
        assert_eq!(g.line_col(3), (2, 1));
    }

    /// At every offset of a text with empty lines, multi-byte characters, `\r\n` and no final
    /// newline: the same line and column as counting from the start of the text.
    #[test]
    fn line_col_agrees_with_counting_from_the_start() {
        let text = "ab\n\nç€d\n  x\r\n\t€\nlast";
        let file = SourceFile::new("t.ptx", text);
        for offset in 0..=text.len() as u32 + 2 {
            let end = floor_char_boundary(text, (offset as usize).min(text.len()));
            let before = &text[..end];
            let line = before.matches('\n').count() + 1;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            let col = before[start..].chars().count() + 1;
            assert_eq!(file.line_col(offset), (line, col), "offset {offset}");
        }
    }

    #[test]
    fn render_shows_location_line_and_caret() {
        let f = SourceFile::new("k.ptx", ".version 7.0\n  add.s32 %r1, ;\n");
        let d = Diagnostic::error(Span::new(28, 29), "expected an operand").with_label("here");
        let text = Diagnostics::new(f, vec![d]).render(false);
        assert!(text.contains("k.ptx:2:16"), "{text}");
        assert!(text.contains("add.s32 %r1, ;"), "{text}");
        assert!(text.contains("^ here"), "{text}");
    }
}
