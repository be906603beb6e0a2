//! Function bodies, written as SPIR-V words while they are emitted.
//!
//! Bodies are nearly all of a module's instructions and are only ever appended to, so they are
//! encoded as they are emitted rather than built as rspirv `dr::Instruction`s (an operand vector
//! allocated, assembled and dropped per instruction: half of the translation time). Opcodes and
//! operand enums are rspirv's (`rspirv::spirv`). See docs/decisions.md, "Emission".

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
}

#[inline(always)]
pub(super) fn encode(
    out: &mut Vec<Word>,
    op: Op,
    ty: Option<Word>,
    id: Option<Word>,
    operands: &[Word],
) {
    let len = 1 + usize::from(ty.is_some()) + usize::from(id.is_some()) + operands.len();
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
        } = self;
        heads.clear();
        vars.clear();
        code.clear();
        ends.clear();
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
            let mut v = Vec::with_capacity(3 + operands.len());
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

    /// Removes the `len`-word instructions starting at `at` (ascending) from the code words.
    pub fn remove_code(&mut self, at: &[usize], len: usize) {
        let Some(&first) = at.first() else {
            return;
        };
        let mut w = first;
        for (k, &a) in at.iter().enumerate() {
            let next = at.get(k + 1).copied().unwrap_or(self.code.len());
            self.code.copy_within(a + len..next, w);
            w += next - a - len;
        }
        self.code.truncate(w);
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
        self.heads.len() + self.vars.len() + self.code.len() + self.ends.len()
    }

    /// Appends every function ended so far to `out`.
    pub fn write_to(&self, out: &mut Vec<Word>) {
        let mut start = [0; 3];
        for end in &self.ends {
            out.extend_from_slice(&self.heads[start[0]..end[0]]);
            out.extend_from_slice(&self.vars[start[1]..end[1]]);
            out.extend_from_slice(&self.code[start[2]..end[2]]);
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
}
