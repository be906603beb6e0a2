//! Function bodies, written as SPIR-V words while they are emitted.
//!
//! Bodies are nearly all of a module's instructions and are only ever appended to, so they are
//! encoded as they are emitted rather than built as rspirv `dr::Instruction`s (an operand vector
//! allocated, assembled and dropped per instruction: half of the translation time). Opcodes and
//! operand enums are rspirv's (`rspirv::spirv`). See docs/decisions/0025-emission-as-words.md.

use rspirv::spirv::{Op, Word};

/// The module's functions as words, each in three parts that are only joined in the output.
#[derive(Default)]
pub(crate) struct Body {
    /// `OpFunction`, `OpFunctionParameter`s and the first label, of every function.
    heads: Vec<Word>,
    /// `OpVariable`s: they must open a function's first block.
    vars: Vec<Word>,
    /// Everything else.
    code: Vec<Word>,
    /// Where each finished function's parts end in `heads`, `vars` and `code`.
    ends: Vec<[usize; 3]>,
    /// Instructions taken out of `code` (start, length), ascending: skipped when the words
    /// are written out, which copies them anyway, rather than moved down in place.
    removed: Vec<(usize, usize)>,
    /// Their words in all.
    removed_words: usize,
}

/// The most words an instruction is built from on the stack (the header, a type, an id and
/// five operands): nearly every instruction.
const SHORT: usize = 8;

#[inline(always)]
pub(super) fn encode(
    out: &mut Vec<Word>,
    op: Op,
    ty: Option<Word>,
    id: Option<Word>,
    operands: &[Word],
) {
    let len = 1 + usize::from(ty.is_some()) + usize::from(id.is_some()) + operands.len();
    if len > SHORT {
        return encode_long(out, len, op, ty, id, operands);
    }
    // Built in a fixed-size array and appended whole, then cut to length: one capacity check
    // and two vector stores, where pushing word by word checked the capacity for each.
    let mut words = [0; SHORT];
    words[0] = ((len as Word) << 16) | op as Word;
    let mut i = 1;
    if let Some(t) = ty {
        words[i] = t;
        i += 1;
    }
    if let Some(d) = id {
        words[i] = d;
        i += 1;
    }
    // Short operand lists one by one: a copy of unknown length is a call to `memcpy`.
    match *operands {
        [] => {}
        [a] => words[i] = a,
        [a, b] => {
            words[i] = a;
            words[i + 1] = b;
        }
        [a, b, c] => {
            words[i] = a;
            words[i + 1] = b;
            words[i + 2] = c;
        }
        _ => words[i..len].copy_from_slice(operands),
    }
    let at = out.len();
    out.extend_from_slice(&words);
    out.truncate(at + len);
}

#[inline(never)]
fn encode_long(
    out: &mut Vec<Word>,
    len: usize,
    op: Op,
    ty: Option<Word>,
    id: Option<Word>,
    operands: &[Word],
) {
    out.reserve(len);
    out.push(((len as Word) << 16) | op as Word);
    out.extend(ty);
    out.extend(id);
    out.extend_from_slice(operands);
}

const FUNCTION_END: Word = (1 << 16) | Op::FunctionEnd as Word;

impl Body {
    /// `self` emptied for another module, keeping its memory.
    pub fn reset(&mut self) {
        let Body {
            heads,
            vars,
            code,
            ends,
            removed,
            removed_words,
        } = self;
        heads.clear();
        vars.clear();
        code.clear();
        ends.clear();
        removed.clear();
        *removed_words = 0;
    }

    /// An instruction of the current block.
    pub fn inst<const N: usize>(
        &mut self,
        op: Op,
        ty: Option<Word>,
        id: Option<Word>,
        operands: [Word; N],
    ) {
        // A fixed operand count: the copy below compiles to a few stores.
        encode(&mut self.code, op, ty, id, &operands);
    }

    /// [`Body::inst`] with a number of operands known only at run time.
    pub fn inst_n(&mut self, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Word]) {
        encode(&mut self.code, op, ty, id, operands);
    }

    /// `OpFunction`, `OpFunctionParameter` and the first block's label.
    pub fn head(&mut self, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Word]) {
        encode(&mut self.heads, op, ty, id, operands);
    }

    /// A function-scope variable: after the ones declared so far, or before them.
    pub fn var(&mut self, ptr_ty: Word, id: Word, operands: &[Word], first: bool) {
        if first {
            let start = self.ends.last().map_or(0, |e| e[1]);
            // `encode` appends a whole `SHORT`-word array before cutting it to length.
            let mut v = Vec::with_capacity(SHORT.max(3 + operands.len()));
            encode(&mut v, Op::Variable, Some(ptr_ty), Some(id), operands);
            self.vars.splice(start..start, v);
        } else {
            encode(
                &mut self.vars,
                Op::Variable,
                Some(ptr_ty),
                Some(id),
                operands,
            );
        }
    }

    /// The length of the code words so far (where the next instruction will start).
    pub fn code_len(&self) -> usize {
        self.code.len()
    }

    /// Removes the `len`-word instruction starting at `at` from the code words; removals come
    /// in ascending order.
    pub fn remove_code(&mut self, at: usize, len: usize) {
        debug_assert!(self.removed.last().is_none_or(|&(a, l)| a + l <= at));
        self.removed.push((at, len));
        self.removed_words += len;
    }

    /// Room for about `n` more instructions.
    pub fn reserve(&mut self, n: usize) {
        self.code.reserve(4 * n);
    }

    pub fn end_function(&mut self) {
        self.ends
            .push([self.heads.len(), self.vars.len(), self.code.len()]);
    }

    /// The length in words of every function ended so far.
    pub fn len(&self) -> usize {
        self.heads.len() + self.vars.len() + self.code.len() - self.removed_words + self.ends.len()
    }

    /// Appends every function ended so far to `out`.
    pub fn write_to(&self, out: &mut Vec<Word>) {
        let mut start = [0; 3];
        let mut removed = self.removed.iter().peekable();
        for end in &self.ends {
            out.extend_from_slice(&self.heads[start[0]..end[0]]);
            out.extend_from_slice(&self.vars[start[1]..end[1]]);
            let mut from = start[2];
            while let Some(&(at, len)) = removed.next_if(|r| r.0 < end[2]) {
                out.extend_from_slice(&self.code[from..at]);
                from = at + len;
            }
            out.extend_from_slice(&self.code[from..end[2]]);
            out.push(FUNCTION_END);
            start = *end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of SPIR-V 1.6 section 2.3 ("Physical Layout of a SPIR-V Module and
    /// Instruction"): word count in the high half of the first word, opcode in the low half.
    #[test]
    fn instructions_are_encoded_as_the_spec_lays_them_out() {
        let mut b = Body::default();
        b.head(Op::Function, Some(2), Some(3), &[0, 4]);
        b.head(Op::Label, None, Some(5), &[]);
        b.var(6, 7, &[7], false);
        b.inst(Op::IAdd, Some(8), Some(9), [10, 11]);
        b.var(6, 12, &[7, 13], true);
        b.inst(Op::Return, None, None, []);
        b.end_function();
        b.head(Op::Function, Some(2), Some(14), &[0, 4]);
        b.head(Op::Label, None, Some(15), &[]);
        b.var(6, 16, &[7], true);
        b.inst(Op::Return, None, None, []);
        b.end_function();
        let want: Vec<Word> = vec![
            (5 << 16) | 54,
            2,
            3,
            0,
            4,
            (2 << 16) | 248,
            5,
            (5 << 16) | 59,
            6,
            12,
            7,
            13,
            (4 << 16) | 59,
            6,
            7,
            7,
            (5 << 16) | 128,
            8,
            9,
            10,
            11,
            (1 << 16) | 253,
            (1 << 16) | 56,
            (5 << 16) | 54,
            2,
            14,
            0,
            4,
            (2 << 16) | 248,
            15,
            (4 << 16) | 59,
            6,
            16,
            7,
            (1 << 16) | 253,
            (1 << 16) | 56,
        ];
        let mut words = Vec::new();
        b.write_to(&mut words);
        assert_eq!(words, want);
        assert_eq!(b.len(), want.len());
    }

    /// Removed instructions are left out of the output, wherever they are in a function and
    /// in whichever function, and `len` counts what is written.
    #[test]
    fn removed_instructions_are_not_written() {
        let mut b = Body::default();
        let head = |b: &mut Body, id| {
            b.head(Op::Function, Some(2), Some(id), &[0, 4]);
            b.head(Op::Label, None, Some(id + 1), &[]);
        };
        head(&mut b, 10);
        let first = b.code_len();
        b.inst(Op::Store, None, None, [20, 21]);
        b.inst(Op::IAdd, Some(8), Some(22), [23, 24]);
        let middle = b.code_len();
        b.inst(Op::Store, None, None, [25, 26]);
        b.inst(Op::Return, None, None, []);
        b.end_function();
        head(&mut b, 30);
        let second = b.code_len();
        b.inst(Op::Store, None, None, [40, 41]);
        b.inst(Op::Return, None, None, []);
        b.end_function();
        for at in [first, middle, second] {
            b.remove_code(at, 3);
        }
        let fun = |id| [(5 << 16) | 54, 2, id, 0, 4, (2 << 16) | 248, id + 1];
        let mut want = fun(10).to_vec();
        want.extend([
            (5 << 16) | 128,
            8,
            22,
            23,
            24,
            (1 << 16) | 253,
            (1 << 16) | 56,
        ]);
        want.extend(fun(30));
        want.extend([(1 << 16) | 253, (1 << 16) | 56]);
        let mut words = Vec::new();
        b.write_to(&mut words);
        assert_eq!(words, want);
        assert_eq!(b.len(), want.len());
    }
}
