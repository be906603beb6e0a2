//! Register values carried from block to block while a function body is written.
//!
//! `ir::forward` works inside one basic block, so each block still loads the registers it reads
//! from their variables. The emitter writes the tree in an order where each `Code` node is
//! emitted once and everything earlier on the path through the tree dominates it in the SPIR-V
//! (constructs only add headers, merges and break edges, see `func.rs`). So the value a variable
//! was last given (or read as) there can stand for a later load, unless something in between may
//! have stored the variable:
//!
//! - in a sequence, what one node leaves holds for the next;
//! - an `if`/`switch` arm starts from what held before it; after it, what held before it still
//!   holds for the variables no arm stores;
//! - a `Block` is left by falling off its end or by a branch from anywhere inside: after it,
//!   what held before it, less the variables stored inside;
//! - a `Loop` is entered again by its back edges: the variables stored anywhere in it are
//!   forgotten before its body and stay forgotten after it.
//!
//! A load that a held value stands for is not written at all (its result is the held value's
//! id). When the function is finished, a variable no written load reads loses its stores and is
//! not declared. Run after everything that rewrites the tree (the SIMT emulation moves code into
//! guarded constructs), it sees the control flow the SPIR-V will have.

use rspirv::spirv::Word;

use crate::ir::{Function, Op};
use crate::structurize::Node;

mod vars;

/// No value known (SPIR-V ids start at 1).
const NONE: Word = 0;

/// Words of `OpStore %var %value` without memory operands.
const STORE_WORDS: usize = 3;

#[derive(Default)]
pub(super) struct Carry {
    /// Per variable: the id of the value it holds here, or `NONE`.
    held: Vec<Word>,
    /// Undo log of `held`: (variable, previous id, whether a store made the change).
    log: Vec<(u32, Word, bool)>,
    /// Variables stored in the arms or constructs just left.
    stored: Vec<u32>,
    /// Variables some written load reads.
    read: Vec<bool>,
    /// Every variable store written: (variable, its position in the code words).
    stores: Vec<(u32, usize)>,
}

/// Where a construct or an `if` began: the undo log's and the stored list's lengths.
#[derive(Clone, Copy)]
pub(super) struct Mark(usize, usize);

impl Carry {
    /// `self` emptied for a function of `vars` variables, keeping its memory.
    pub fn reset(mut self, vars: usize) -> Self {
        let Carry {
            held,
            log,
            stored,
            read,
            stores,
        } = &mut self;
        held.clear();
        held.resize(vars, NONE);
        read.clear();
        read.resize(vars, false);
        log.clear();
        stored.clear();
        stores.clear();
        self
    }

    fn set(&mut self, v: u32, id: Word, store: bool) {
        let h = &mut self.held[v as usize];
        self.log.push((v, *h, store));
        *h = id;
    }

    pub fn mark(&self) -> Mark {
        Mark(self.log.len(), self.stored.len())
    }

    /// Back to what held at `m` (the start of another arm), noting what was stored since.
    pub fn restore(&mut self, m: Mark) {
        for (v, old, store) in self.log.drain(m.0..).rev() {
            self.held[v as usize] = old;
            if store {
                self.stored.push(v);
            }
        }
    }

    /// After an `if`, a `switch` or a `Block` that began at `m`: what held at `m`, less the
    /// variables stored since.
    pub fn join(&mut self, m: Mark) {
        self.restore(m);
        self.forget_stored(m.1);
    }

    fn forget_stored(&mut self, from: usize) {
        for k in from..self.stored.len() {
            let v = self.stored[k];
            if self.held[v as usize] != NONE {
                self.set(v, NONE, true);
            }
        }
        self.stored.truncate(from);
    }

    /// Before a loop's body: forgets the variables stored anywhere in it, for good.
    pub fn enter_loop(&mut self, f: &Function, body: &[Node]) -> Mark {
        let from = self.stored.len();
        stores_in(f, body, &mut self.stored);
        self.forget_stored(from);
        self.mark()
    }

    /// After the loop's body: what held at its start (the variables it stores already gone).
    pub fn leave_loop(&mut self, m: Mark) {
        self.restore(m);
        self.stored.truncate(m.1);
    }
}

/// Pushes the variables that `nodes` may store (stores, call and texture results).
fn stores_in(f: &Function, nodes: &[Node], out: &mut Vec<u32>) {
    for n in nodes {
        match n {
            Node::Code(b) => {
                for i in &f.block(*b).insts {
                    match &i.op {
                        Op::StoreVar(v, _) => out.push(v.0),
                        op => out.extend(op.result_vars(&f.side).iter().map(|v| v.0)),
                    }
                }
            }
            Node::If { then, else_, .. } => {
                stores_in(f, then, out);
                stores_in(f, else_, out);
            }
            Node::Switch { cases, default, .. } => {
                cases.iter().for_each(|c| stores_in(f, c, out));
                stores_in(f, default, out);
            }
            Node::Block(body) | Node::Loop(body) => stores_in(f, body, out),
            Node::Branch(_) | Node::Return(_) | Node::Exit | Node::Unreachable => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{DeviceProfile, Program, SourceFile};

    /// A kernel whose `%live` register is written in one block and read in the next, plus
    /// `extra` registers written and never read.
    fn kernel(extra: usize) -> String {
        let dead: String = (0..extra)
            .map(|i| format!("    .reg .b32 %dead{i};\n    mov.u32 %dead{i}, {i};\n"))
            .collect();
        format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n\
             .reg .b32 %live;\n.reg .pred %p;\n.reg .b64 %rd;\n{dead}\
             mov.u32 %live, 7;\n\
             setp.eq.u32 %p, %live, 7;\n\
             @%p bra DONE;\n\
             add.u32 %live, %live, 1;\n\
             DONE:\n\
             ld.param.u64 %rd, [out];\n\
             st.global.u32 [%rd], %live;\n\
             ret;\n}}\n"
        )
    }

    fn translate(src: &str) -> (Vec<u32>, String) {
        let program =
            Program::parse(SourceFile::new("vars.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
        let profile = DeviceProfile::named("nvidia").expect("a named profile");
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{d}"));
        #[cfg(feature = "validate")]
        crate::validate(&k.spirv).unwrap_or_else(|e| panic!("{e}"));
        let text = crate::disassemble(&k.spirv);
        (k.spirv, text)
    }

    /// Only a register read after its block gets an `OpVariable`, and registers that are never
    /// read take no ids at all: the module's id bound (SPIR-V 1.6 section 2.3, header word 3) is
    /// the same with twenty of them as with none.
    #[test]
    fn only_read_variables_are_declared_and_numbered() {
        let (plain, text) = translate(&kernel(0));
        let (padded, padded_text) = translate(&kernel(20));
        for t in [&text, &padded_text] {
            let vars: Vec<&str> = t
                .lines()
                .filter(|l| l.contains("OpVariable") && l.contains("Function"))
                .collect();
            assert_eq!(vars.len(), 1, "{t}");
            assert!(t.contains("\"%live\""), "{t}");
            assert!(!t.contains("%dead"), "{t}");
        }
        assert_eq!(plain[3], padded[3], "{text}\n{padded_text}");
    }
}
