//! Source positions and diagnostics.
//!
//! Every error the translator reports about user input is a [`Diagnostic`] with a span into the
//! PTX source; [`Diagnostics`] renders them the way rustc does (`file:line:col`, the source line and
//! a caret under the offending token).

use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
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

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, (offset as usize).min(self.text.len()));
        let starts = self.lines.get_or_init(|| {
            let nl = self.text.bytes().enumerate().filter(|(_, b)| *b == b'\n');
            nl.map(|(i, _)| i as u32 + 1).collect()
        });
        // Line starts at or before `offset`.
        let line = starts.partition_point(|&s| s as usize <= offset);
        let line_start = if line == 0 {
            0
        } else {
            starts[line - 1] as usize
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

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
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
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
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

    /// `file:line:col: error: message`, one line per diagnostic.
    pub fn short(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
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
        out
    }

    /// The rustc-style rendering: message, `--> file:line:col`, the source line, a caret.
    pub fn render(&self, color: bool) -> String {
        let files = SimpleFile::new(self.file.name.as_str(), self.file.text.as_str());
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut buf: Vec<u8> = Vec::new();
        for d in &self.items {
            let cs = to_codespan(d, self.file.text.len());
            let result = if color {
                let mut w = term::termcolor::Ansi::new(&mut buf);
                term::emit_to_write_style(&mut w, &config, &files, &cs)
            } else {
                let mut w = term::termcolor::NoColor::new(&mut buf);
                term::emit_to_write_style(&mut w, &config, &files, &cs)
            };
            if result.is_err() {
                // Rendering only fails on spans outside the file; fall back to the short form.
                buf.extend_from_slice(self.short().as_bytes());
            }
        }
        String::from_utf8_lossy(&buf).into_owned()
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
