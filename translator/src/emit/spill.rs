//! The shared arena in device memory, for kernels whose shared memory exceeds the device's
//! (docs/decisions/0078-shared-memory-in-device-memory.md). The runtime provides a buffer of one
//! slice per workgroup of the dispatch and writes its address at `abi::STATUS_SPILL_BASE` of the
//! launch's status area; a workgroup's slice starts at its linear id (within the dispatch) times
//! the arena's size. The slice's address is computed once, first thing in the kernel, into a
//! `Private` variable, so that each access is an add and a conversion to a pointer.

use rspirv::spirv::{self, Op, StorageClass, Word};

use super::module::{Access, Emitter};
use crate::abi;
use crate::ir::{Builtin, Ty};

impl Emitter {
    /// The `Private` variable holding this workgroup's slice address.
    fn spill_slice_var(&mut self) -> Word {
        if let Some(v) = self.spill_slice {
            return v;
        }
        let u64t = self.ty(Ty::I64);
        let pt = self.ptr(StorageClass::Private, u64t);
        let v = self.global_variable(pt, StorageClass::Private);
        self.b.name(v, "ptxvk.shared_slice");
        self.spill_slice = Some(v);
        v
    }

    /// Computes the workgroup's slice address into its variable; emitted at the start of the
    /// kernel's entry block, before anything could read it.
    pub(super) fn init_spill_slice(&mut self) {
        if !self.shared_spilled {
            return;
        }
        let u32t = self.ty(Ty::I32);
        let u64t = self.ty(Ty::I64);
        let status = self.builtin(Builtin::StatusAddress);
        let at = self.konst(Ty::I64, abi::STATUS_SPILL_BASE);
        let addr = self.op(Op::IAdd, u64t, [status, at]);
        let pt = self.ptr(StorageClass::PhysicalStorageBuffer, u64t);
        let p = self.op(Op::ConvertUToPtr, pt, [addr]);
        let aligned = Access {
            mask: spirv::MemoryAccess::ALIGNED,
            align: Some(8),
        };
        let base = self.load(u64t, p, Some(aligned));
        let v3 = self.uvec3();
        let id_var = self.builtin_var(spirv::BuiltIn::WorkgroupId);
        let id = self.load(v3, id_var, None);
        let count_var = self.builtin_var(spirv::BuiltIn::NumWorkgroups);
        let count = self.load(v3, count_var, None);
        let [ix, iy, iz] = [0, 1, 2].map(|i| self.extract(u32t, id, i));
        let [nx, ny] = [0, 1].map(|i| self.extract(u32t, count, i));
        // x + nx * (y + ny * z): below the dispatch's workgroup count, which the runtime bounds.
        let zy = self.op(Op::IMul, u32t, [ny, iz]);
        let yz = self.op(Op::IAdd, u32t, [iy, zy]);
        let row = self.op(Op::IMul, u32t, [nx, yz]);
        let linear = self.op(Op::IAdd, u32t, [ix, row]);
        let words = self.shared_arena_words();
        let linear = self.op(Op::UConvert, u64t, [linear]);
        let words = self.op(Op::UConvert, u64t, [words]);
        let slice_words = self.op(Op::IMul, u64t, [linear, words]);
        let two = self.konst(Ty::I64, 2);
        let offset = self.op(Op::ShiftLeftLogical, u64t, [slice_words, two]);
        let slice = self.op(Op::IAdd, u64t, [base, offset]);
        let var = self.spill_slice_var();
        self.store(var, slice, None);
    }

    /// A pointer (type `pt`, `PhysicalStorageBuffer`) to word `idx` of the spilled arena.
    pub(super) fn spilled_word(&mut self, pt: Word, idx: Word) -> Word {
        let u64t = self.ty(Ty::I64);
        let var = self.spill_slice_var();
        let slice = self.load(u64t, var, None);
        let idx = self.op(Op::UConvert, u64t, [idx]);
        let two = self.konst(Ty::I64, 2);
        let offset = self.op(Op::ShiftLeftLogical, u64t, [idx, two]);
        let addr = self.op(Op::IAdd, u64t, [slice, offset]);
        self.op(Op::ConvertUToPtr, pt, [addr])
    }
}
