//! Reading an instruction's modifiers (`.rn`, `.s32`, ...) with errors that name the instruction.

use crate::ast;
use crate::diag::{Diagnostic, Span, Spanned};
use crate::types::ScalarType;

pub struct Mods<'s, 'a> {
    opcode: &'a str,
    opcode_span: Span,
    items: &'s [Spanned<&'a str>],
    /// Which modifiers a decoder has consumed: a bit mask (instructions have a handful; the
    /// rare longer list spills into `used_more`), so decoding allocates nothing.
    used: u64,
    used_more: Vec<bool>,
    /// One bit per first byte (mod 64) of the modifiers written: most names a decoder asks
    /// about are absent, and this answers that without looking at the modifiers.
    firsts: u64,
    pub errors: Vec<Diagnostic>,
    /// Every modifier name the decoder looked for, written or not: what the catalog's audit
    /// compares with the row's modifier set.
    #[cfg(test)]
    asked: std::cell::RefCell<Vec<String>>,
}

fn first_bit(name: &str) -> u64 {
    name.as_bytes().first().map_or(0, |&c| 1 << (c & 63))
}

/// Whether modifier `m` is `name`. Decoders look modifiers up by name many times per
/// instruction (a group such as the comparison operators is a dozen lookups), nearly all
/// misses: the length and first byte reject those without a call to `memcmp`.
fn same(m: &str, name: &str) -> bool {
    m.len() == name.len() && m.as_bytes().first() == name.as_bytes().first() && m == name
}

impl<'s, 'a> Mods<'s, 'a> {
    pub fn new(i: &'s ast::Instruction<'a>) -> Self {
        Mods {
            opcode: i.opcode.node,
            opcode_span: i.opcode.span,
            items: &i.modifiers,
            used: 0,
            used_more: vec![false; i.modifiers.len().saturating_sub(64)],
            firsts: i.modifiers.iter().fold(0, |b, m| b | first_bit(m.node)),
            errors: Vec::new(),
            #[cfg(test)]
            asked: Default::default(),
        }
    }

    /// The whole `opcode.mod.mod` text, for messages.
    pub fn full_name(&self) -> String {
        let mut s = self.opcode.to_string();
        for m in self.items {
            s.push('.');
            s.push_str(m.node);
        }
        s
    }

    pub fn span(&self) -> Span {
        self.items
            .last()
            .map_or(self.opcode_span, |m| self.opcode_span.to(m.span))
    }

    /// Inlined: most look-ups end at the first-byte test, which is cheaper than a call.
    #[inline]
    fn find(&self, name: &str) -> Option<usize> {
        #[cfg(test)]
        self.asked.borrow_mut().push(name.to_string());
        if self.firsts & first_bit(name) == 0 {
            return None;
        }
        self.find_written(name)
    }

    fn find_written(&self, name: &str) -> Option<usize> {
        let n = self.items.len();
        if n > 64 {
            return (0..n).find(|&i| !self.is_used(i) && same(self.items[i].node, name));
        }
        // Only the modifiers not consumed yet; none, once a decoder has read them all.
        let all = if n == 0 { 0 } else { u64::MAX >> (64 - n) };
        let mut free = !self.used & all;
        while free != 0 {
            let i = free.trailing_zeros() as usize;
            if same(self.items[i].node, name) {
                return Some(i);
            }
            free &= free - 1;
        }
        None
    }

    fn is_used(&self, i: usize) -> bool {
        if i < 64 {
            self.used & (1 << i) != 0
        } else {
            self.used_more[i - 64]
        }
    }

    fn set_used(&mut self, i: usize) {
        if i < 64 {
            self.used |= 1 << i;
        } else {
            self.used_more[i - 64] = true;
        }
    }

    /// Whether `.name` is present (consumed if so).
    pub fn flag(&mut self, name: &str) -> bool {
        match self.find(name) {
            Some(i) => {
                self.set_used(i);
                true
            }
            None => false,
        }
    }

    /// At most one modifier of a group such as the rounding modes.
    pub fn pick<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<T> {
        let mut found: Option<(usize, T)> = None;
        for (name, value) in table {
            if let Some(i) = self.find(name) {
                self.set_used(i);
                if let Some((prev, _)) = found {
                    let (a, b) = (self.items[prev].node, self.items[i].node);
                    self.errors.push(
                        Diagnostic::error(
                            self.items[i].span,
                            format!(
                                "`.{a}` and `.{b}` cannot both be given to `{}`",
                                self.opcode
                            ),
                        )
                        .with_label("conflicting modifier"),
                    );
                } else {
                    found = Some((i, *value));
                }
            }
        }
        found.map(|(_, v)| v)
    }

    /// The next type modifier, in written order, whatever the type.
    pub fn next_type(&mut self) -> Option<Spanned<ScalarType>> {
        for i in 0..self.items.len() {
            if self.is_used(i) {
                continue;
            }
            if let Some(t) = ScalarType::from_name(self.items[i].node) {
                self.set_used(i);
                return Some(Spanned::new(t, self.items[i].span));
            }
        }
        None
    }

    /// The next modifier, in written order, that `table` names (for instructions whose
    /// modifiers of one group are written several times, as `mma`'s element types).
    pub fn next_of<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<(T, Span)> {
        #[cfg(test)]
        self.asked
            .borrow_mut()
            .extend(table.iter().map(|(n, _)| n.to_string()));
        for i in 0..self.items.len() {
            if self.is_used(i) {
                continue;
            }
            if let Some((_, v)) = table.iter().find(|(n, _)| same(self.items[i].node, n)) {
                self.set_used(i);
                return Some((*v, self.items[i].span));
            }
        }
        None
    }

    /// The next type modifier, which must be one of `allowed`.
    pub fn ty(&mut self, allowed: &[ScalarType]) -> Option<ScalarType> {
        #[cfg(test)]
        self.asked
            .borrow_mut()
            .extend(allowed.iter().map(|t| t.name().to_string()));
        match self.next_type() {
            Some(t) if allowed.contains(&t.node) => Some(t.node),
            Some(t) => {
                self.errors.push(
                    Diagnostic::error(
                        t.span,
                        format!("`{}` does not take type {}", self.opcode, t.node),
                    )
                    .with_label(format!("expected one of {}", list(allowed))),
                );
                None
            }
            None => {
                self.errors.push(
                    Diagnostic::error(
                        self.span(),
                        format!("`{}` needs a type modifier", self.full_name()),
                    )
                    .with_label(format!("add one of {}", list(allowed))),
                );
                None
            }
        }
    }

    /// Like [`Mods::flag`], returning where the modifier was written (for errors about it).
    pub fn flag_span(&mut self, name: &str) -> Option<Span> {
        let i = self.find(name)?;
        self.set_used(i);
        Some(self.items[i].span)
    }

    /// Like [`Mods::pick`], with the chosen modifier's span.
    pub fn pick_span<T: Copy>(&mut self, table: &[(&str, T)]) -> Option<(T, Span)> {
        let before: Vec<bool> = (0..self.items.len()).map(|i| self.is_used(i)).collect();
        let v = self.pick(table)?;
        let i = (0..self.items.len()).find(|&i| self.is_used(i) && !before[i])?;
        Some((v, self.items[i].span))
    }

    /// An error pointing at one modifier (or wherever `span` says).
    pub fn error_at(&mut self, span: Span, msg: impl Into<String>, label: impl Into<String>) {
        self.errors
            .push(Diagnostic::error(span, msg).with_label(label));
    }

    /// The name of the instruction, for messages.
    pub fn opcode(&self) -> &str {
        self.opcode
    }

    /// Errors for modifiers nobody consumed, each made by `leftover` from the modifier and
    /// where it is written (the checker judges it against the catalog row's modifier set).
    pub fn finish(mut self, leftover: impl Fn(&str, Span) -> Diagnostic) -> Vec<Diagnostic> {
        for i in 0..self.items.len() {
            if !self.is_used(i) {
                let d = leftover(self.items[i].node, self.items[i].span);
                self.errors.push(d);
            }
        }
        self.errors
    }

    /// The modifier names the decoder looked for, and the modifiers it consumed.
    #[cfg(test)]
    pub(crate) fn audit(&self) -> (Vec<String>, Vec<String>) {
        let consumed = (0..self.items.len())
            .filter(|&i| self.is_used(i))
            .map(|i| self.items[i].node.to_string())
            .collect();
        (self.asked.borrow().clone(), consumed)
    }

    /// A generic error about the instruction.
    pub fn error(&mut self, msg: impl Into<String>, label: impl Into<String>) {
        let d = Diagnostic::error(self.span(), msg).with_label(label);
        self.errors.push(d);
    }

    /// An error pointing at modifier `.name` (at the whole instruction if it was not written).
    pub fn error_on(&mut self, name: &str, msg: impl Into<String>, label: impl Into<String>) {
        let span = self
            .items
            .iter()
            .find(|m| m.node == name)
            .map_or(self.span(), |m| m.span);
        self.errors
            .push(Diagnostic::error(span, msg).with_label(label));
    }

    /// An error pointing at the opcode.
    pub fn error_on_opcode(&mut self, msg: impl Into<String>, label: impl Into<String>) {
        let d = Diagnostic::error(self.opcode_span, msg).with_label(label);
        self.errors.push(d);
    }
}

fn list(types: &[ScalarType]) -> String {
    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    names.join(" ")
}
