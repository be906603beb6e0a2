//! Instruction buffers handed from one kernel's lowering to the next (`Program::translate_all`).
//!
//! A kernel's IR is a few hundred small vectors, freed when its SPIR-V is done. Allocating them
//! afresh for the next kernel read a cold free-list entry per allocation (mimalloc hands out a
//! page's older blocks first): the allocator's fast path was about 8% of `translate_all`, most
//! of it one load. Reusing the last kernel's buffers, whose memory was just touched, avoids both
//! the call and the miss (docs/translation-speed.md, "Memory"). Every pass keeps its own buffers
//! the same way; the pipeline holds one of each (`pipeline.rs`).

use crate::ir::{Inst, Module};

/// Most buffers kept: more than a kernel of the benchmark module uses, so that a large kernel's
/// buffers cannot pile up.
const MAX_KEPT: usize = 512;
/// Buffers larger than this (in instructions) are freed instead of kept.
const MAX_INSTS: usize = 4096;

/// Emptied instruction buffers of the kernels lowered before.
#[derive(Default)]
pub struct Buffers {
    pub(super) insts: Vec<Vec<Inst>>,
}

impl Buffers {
    /// Keeps the buffers of `m`, a kernel whose translation is done.
    pub fn recycle(&mut self, m: Module) {
        for f in m.functions {
            for b in f.blocks {
                let mut v = b.insts;
                if self.insts.len() >= MAX_KEPT {
                    return;
                }
                if v.capacity() > 0 && v.capacity() <= MAX_INSTS {
                    v.clear();
                    self.insts.push(v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::build::spare_insts;
    use crate::ir::{Function, Op, Ty};

    #[test]
    fn a_recycled_buffer_comes_back_empty_with_its_room() {
        let mut s = Buffers::default();
        let mut f = Function::new("k");
        let b = f.entry;
        f.block_mut(b).insts = spare_insts(&mut s.insts, 40);
        f.push(b, Ty::I32, Op::Const(7));
        let cap = f.block(b).insts.capacity();
        assert!(cap >= 40);
        s.recycle(Module {
            functions: vec![f],
            ..Default::default()
        });
        let v = spare_insts(&mut s.insts, 8);
        assert!(v.is_empty());
        assert_eq!(v.capacity(), cap);
        // A request larger than the kept buffers gets a new one; they stay for smaller ones.
        let mut spare = vec![Vec::with_capacity(200), Vec::with_capacity(4)];
        assert!(spare_insts(&mut spare, 100).capacity() >= 200);
        assert!(spare_insts(&mut spare, 100).capacity() >= 100);
        assert_eq!(spare.len(), 1);
        assert_eq!(spare_insts(&mut spare, 2).capacity(), 4);
    }
}
