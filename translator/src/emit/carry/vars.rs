//! A function's variable loads and stores as its body is written: a load that a held value
//! stands for is not written, and the variables no written load reads are not declared.

use rspirv::spirv::{StorageClass, Word};

use super::super::func::FnEmitter;
use super::{Carry, NONE, STORE_WORDS};
use crate::ir::VarId;

impl FnEmitter<'_, '_> {
    /// The value of variable `v` (of SPIR-V type `ty`): the id it holds, or a load.
    pub(in crate::emit) fn load_var(&mut self, v: VarId, ty: Word) -> Word {
        let held = self.carry.held[v.0 as usize];
        if held != NONE {
            return held;
        }
        let var = self.var_id(v);
        let id = self.e.load(ty, var, None);
        self.carry.set(v.0, id, false);
        self.carry.read[v.0 as usize] = true;
        id
    }

    pub(in crate::emit) fn store_var(&mut self, v: VarId, value: Word) {
        let var = self.var_id(v);
        let at = self.e.body.code_len();
        self.e.store(var, value, None);
        self.carry.stores.push((v.0, at));
        self.carry.set(v.0, value, true);
    }

    /// The id of variable `v`, given at its first access.
    #[inline]
    fn var_id(&mut self, v: VarId) -> Word {
        let slot = &mut self.vars[v.0 as usize];
        if *slot == NONE {
            *slot = self.e.b.id();
        }
        *slot
    }

    /// Declares the variables some load reads, and drops the stores to the others.
    pub(in crate::emit) fn finish_vars(&mut self) {
        let Carry { read, stores, .. } = &self.carry;
        for &(v, at) in stores {
            if !read[v as usize] {
                self.e.body.remove_code(at, STORE_WORDS);
            }
        }
        for (i, v) in self.f.vars.iter().enumerate() {
            if !read[i] {
                continue;
            }
            let t = self.e.ty(v.ty);
            let pt = self.e.ptr(StorageClass::Function, t);
            let var = self.vars[i];
            self.e
                .body
                .var(pt, var, &[StorageClass::Function as Word], false);
            self.e.b.name(var, &v.name.text(self.source));
        }
    }
}
