//! Module-level declarations, written as words into the sections of SPIR-V's logical layout
//! (SPIR-V 1.6 section 2.4), and the assembly of the whole module.
//!
//! rspirv's `dr::Builder` kept these as `dr::Instruction`s (an operand vector and, for names,
//! a `String` each) and assembled them at the end: an eighth of the translation time for a
//! few dozen instructions per kernel. The emitter caches every type and constant it declares,
//! so nothing here searches; see docs/decisions/0025-emission-as-words.md.

use rspirv::spirv::{
    AddressingModel, Capability, Decoration, ExecutionMode, ExecutionModel, MemoryModel, Op, Word,
};

use super::body::{Body, encode};

/// The magic number, version and generator words of the module header (section 2.3).
const MAGIC: Word = 0x0723_0203;
/// Generator 0: a tool without a registered id (the value has no meaning for consumers).
const GENERATOR: Word = 0;

/// The declaration sections that are filled while emitting.
pub(crate) struct Decls {
    next_id: Word,
    extensions: Vec<Word>,
    ext_imports: Vec<Word>,
    /// `OpName`.
    names: Vec<Word>,
    /// `OpDecorate`, `OpMemberDecorate`.
    annotations: Vec<Word>,
    /// Types, constants and module-scope variables, in the order they were declared (each
    /// refers only to ids declared before it).
    globals: Vec<Word>,
}

/// The words of a literal string: UTF-8, nul-terminated, padded with nuls to a word boundary.
fn string_len(s: &str) -> usize {
    s.len() / 4 + 1
}

fn push_string(out: &mut Vec<Word>, s: &str) {
    let bytes = s.as_bytes();
    let mut chunks = bytes.chunks_exact(4);
    for c in &mut chunks {
        out.push(Word::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    let mut last = [0u8; 4];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    out.push(Word::from_le_bytes(last));
}

/// An instruction whose operands are `before`, a literal string, then `after`.
fn with_string(out: &mut Vec<Word>, op: Op, before: &[Word], s: &str, after: &[Word]) {
    let len = 1 + before.len() + string_len(s) + after.len();
    out.reserve(len);
    out.push(((len as Word) << 16) | op as Word);
    out.extend_from_slice(before);
    push_string(out, s);
    out.extend_from_slice(after);
}

/// What `finish` needs besides the sections: the capabilities, the memory model and the entry
/// point.
pub(crate) struct Header<'a> {
    pub caps: &'a [Capability],
    pub addressing: AddressingModel,
    pub memory: MemoryModel,
    pub model: ExecutionModel,
    pub entry: Word,
    pub name: &'a str,
    pub interface: &'a [Word],
    /// The entry point's `OpExecutionMode`s: each mode and its literals.
    pub modes: &'a [(ExecutionMode, &'static [Word])],
}

/// Few: the block size and up to three widths each of `DenormPreserve` and
/// `SignedZeroInfNanPreserve`.
pub(crate) type Modes = smallvec::SmallVec<[(ExecutionMode, &'static [Word]); 7]>;

impl Decls {
    pub fn new() -> Self {
        Decls {
            next_id: 1,
            extensions: Vec::new(),
            ext_imports: Vec::new(),
            names: Vec::with_capacity(64),
            annotations: Vec::with_capacity(64),
            globals: Vec::with_capacity(128),
        }
    }

    /// `self` emptied for another module, keeping its memory.
    pub fn reset(&mut self) {
        let Decls {
            next_id,
            extensions,
            ext_imports,
            names,
            annotations,
            globals,
        } = self;
        *next_id = 1;
        for v in [extensions, ext_imports, names, annotations, globals] {
            v.clear();
        }
    }

    /// A fresh result id.
    #[inline]
    pub fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn name(&mut self, target: Word, name: &str) {
        with_string(&mut self.names, Op::Name, &[target], name, &[]);
    }

    pub fn decorate<const N: usize>(&mut self, target: Word, d: Decoration, extra: [Word; N]) {
        let a = &mut self.annotations;
        a.push((((3 + N) as Word) << 16) | Op::Decorate as Word);
        a.extend_from_slice(&[target, d as Word]);
        a.extend_from_slice(&extra);
    }

    pub fn member_decorate(&mut self, target: Word, member: u32, d: Decoration, extra: Word) {
        let ops = [target, member, d as Word, extra];
        encode(&mut self.annotations, Op::MemberDecorate, None, None, &ops);
    }

    /// A type, constant or module-scope variable.
    pub fn global(&mut self, op: Op, ty: Option<Word>, id: Word, operands: &[Word]) {
        encode(&mut self.globals, op, ty, Some(id), operands);
    }

    /// `OpExtension`, once per name.
    pub fn extension(&mut self, name: &str) {
        let mut s = Vec::with_capacity(string_len(name));
        push_string(&mut s, name);
        let mut at = 0;
        while at < self.extensions.len() {
            let len = (self.extensions[at] >> 16) as usize;
            if self.extensions[at + 1..at + len] == s[..] {
                return;
            }
            at += len;
        }
        with_string(&mut self.extensions, Op::Extension, &[], name, &[]);
    }

    pub fn ext_inst_import(&mut self, name: &str) -> Word {
        let id = self.id();
        with_string(&mut self.ext_imports, Op::ExtInstImport, &[id], name, &[]);
        id
    }

    /// The module: header, declarations in layout order, then the functions of `body`.
    pub fn finish(&self, h: &Header, version: (u8, u8), body: &Body) -> Vec<Word> {
        let entry_len = 3 + string_len(h.name) + h.interface.len();
        let mode_len: usize = h.modes.iter().map(|m| 3 + m.1.len()).sum();
        let len = 5
            + 2 * h.caps.len()
            + self.extensions.len()
            + self.ext_imports.len()
            + 3
            + entry_len
            + mode_len
            + self.names.len()
            + self.annotations.len()
            + self.globals.len()
            + body.len();
        let mut out = Vec::with_capacity(len);
        let version = (Word::from(version.0) << 16) | (Word::from(version.1) << 8);
        out.extend_from_slice(&[MAGIC, version, GENERATOR, self.next_id, 0]);
        for c in h.caps {
            encode(&mut out, Op::Capability, None, None, &[*c as Word]);
        }
        out.extend_from_slice(&self.extensions);
        out.extend_from_slice(&self.ext_imports);
        let mm = [h.addressing as Word, h.memory as Word];
        encode(&mut out, Op::MemoryModel, None, None, &mm);
        with_string(
            &mut out,
            Op::EntryPoint,
            &[h.model as Word, h.entry],
            h.name,
            h.interface,
        );
        for (mode, literals) in h.modes {
            let len = 3 + literals.len() as Word;
            out.extend_from_slice(&[
                (len << 16) | Op::ExecutionMode as Word,
                h.entry,
                *mode as Word,
            ]);
            out.extend_from_slice(literals);
        }
        out.extend_from_slice(&self.names);
        out.extend_from_slice(&self.annotations);
        out.extend_from_slice(&self.globals);
        body.write_to(&mut out);
        debug_assert_eq!(out.len(), len);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Literal strings per SPIR-V 1.6 section 2.2.1: UTF-8 octets packed four per word, the
    /// first octet in the lowest-order 8 bits, nul-terminated, padded with nuls; a string of
    /// a multiple of four octets takes a whole word of nuls after it.
    #[test]
    fn strings_are_packed_low_octet_first_and_nul_terminated() {
        let mut w = Vec::new();
        push_string(&mut w, "abc");
        assert_eq!(w, [0x0063_6261]);
        w.clear();
        push_string(&mut w, "abcd");
        assert_eq!(w, [0x6463_6261, 0]);
        w.clear();
        push_string(&mut w, "");
        assert_eq!(w, [0]);
        assert_eq!(string_len("abc"), 1);
        assert_eq!(string_len("abcd"), 2);
    }

    #[test]
    fn extensions_are_declared_once() {
        let mut d = Decls::new();
        d.extension("SPV_KHR_shader_clock");
        d.extension("SPV_EXT_shader_atomic_float_add");
        d.extension("SPV_KHR_shader_clock");
        let mut want = Vec::new();
        with_string(&mut want, Op::Extension, &[], "SPV_KHR_shader_clock", &[]);
        with_string(
            &mut want,
            Op::Extension,
            &[],
            "SPV_EXT_shader_atomic_float_add",
            &[],
        );
        assert_eq!(d.extensions, want);
    }
}
