//! Module-scope variables and what is read from them: built-ins, push constants, specialization
//! constants and the shared and local arenas.

use rspirv::spirv::{self, Capability, Decoration, StorageClass, Word};

use super::Emitter;
use crate::abi;
use crate::ir::{Builtin, Ty};

impl Emitter {
    /// A module-scope `OpVariable` (the builder would put it in the current block).
    pub(in crate::emit) fn global_variable(&mut self, ptr_ty: Word, sc: StorageClass) -> Word {
        let id = self.b.id();
        self.b
            .global(spirv::Op::Variable, Some(ptr_ty), id, &[sc as Word]);
        self.interface.push(id);
        id
    }

    /// An `Input` builtin variable of type `uvec3`.
    pub(in crate::emit) fn builtin_var(&mut self, which: spirv::BuiltIn) -> Word {
        if let Some(v) = self.builtin_vars.get(which) {
            return v;
        }
        let v3 = self.uvec3();
        let pt = self.ptr(StorageClass::Input, v3);
        let var = self.global_variable(pt, StorageClass::Input);
        self.b.decorate(var, Decoration::BuiltIn, [which as Word]);
        self.builtin_vars.insert(which, var);
        var
    }

    /// The push-constant block of `abi.rs`.
    fn push_constant_var(&mut self) -> Word {
        if let Some(v) = self.push_constants {
            return v;
        }
        let u32t = self.ty(Ty::I32);
        let u64t = self.ty(Ty::I64);
        let hints = 2 * abi::MEM_HINTS as usize;
        let mut members = vec![
            u64t, u32t, u32t, u32t, u32t, u32t, u32t, u64t, u64t, u64t, u32t,
        ];
        members.extend(std::iter::repeat_n(u64t, hints));
        let st = self.struct_of(&members);
        self.b.decorate(st, Decoration::Block, []);
        let mut offsets = vec![
            abi::PUSH_PARAM_BASE,
            abi::PUSH_CTA_BASE,
            abi::PUSH_CTA_BASE + 4,
            abi::PUSH_CTA_BASE + 8,
            abi::PUSH_GRID_DIM,
            abi::PUSH_GRID_DIM + 4,
            abi::PUSH_GRID_DIM + 8,
            abi::PUSH_GLOBALS_BASE,
            abi::PUSH_STATUS_ADDRESS,
            abi::PUSH_MEM_TABLE,
            abi::PUSH_MEM_COUNT,
        ];
        offsets.extend((0..hints as u32).map(|i| abi::PUSH_MEM_HINTS + 8 * i));
        for (i, off) in offsets.iter().enumerate() {
            self.b
                .member_decorate(st, i as u32, Decoration::Offset, *off);
        }
        let pt = self.ptr(StorageClass::PushConstant, st);
        let var = self.global_variable(pt, StorageClass::PushConstant);
        self.b.name(var, "ptxvk.push");
        self.push_constants = Some(var);
        var
    }

    /// The block size: specialization constants 0-2, also decorated as `WorkgroupSize`.
    pub(in crate::emit) fn block_dims(&mut self) -> [Word; 3] {
        if let Some(d) = self.block_dims {
            return d;
        }
        let u32t = self.ty(Ty::I32);
        let ids = [abi::SPEC_BLOCK_X, abi::SPEC_BLOCK_Y, abi::SPEC_BLOCK_Z];
        let dims = ids.map(|spec_id| {
            let c = self.b.id();
            self.b.global(spirv::Op::SpecConstant, Some(u32t), c, &[1]);
            self.b.decorate(c, Decoration::SpecId, [spec_id]);
            c
        });
        let v3 = self.uvec3();
        let size = self.b.id();
        self.b
            .global(spirv::Op::SpecConstantComposite, Some(v3), size, &dims);
        let wgs = spirv::BuiltIn::WorkgroupSize as Word;
        self.b.decorate(size, Decoration::BuiltIn, [wgs]);
        self.block_dims = Some(dims);
        dims
    }

    /// Reads a runtime-supplied value in the current block.
    pub fn builtin(&mut self, which: Builtin) -> Word {
        let u32t = self.ty(Ty::I32);
        match which {
            Builtin::LocalId(axis) | Builtin::WorkgroupId(axis) => {
                let bi = if matches!(which, Builtin::LocalId(_)) {
                    spirv::BuiltIn::LocalInvocationId
                } else {
                    spirv::BuiltIn::WorkgroupId
                };
                let var = self.builtin_var(bi);
                let v3 = self.uvec3();
                let all = self.load(v3, var, None);
                self.extract(u32t, all, u32::from(axis))
            }
            Builtin::BlockDim(axis) => {
                // The workgroup size takes part in the `WorkgroupSize` builtin, which makes the
                // block-size specialization constants part of the interface implicitly.
                self.block_dims()[axis as usize]
            }
            Builtin::GridDim(axis) => self.push_field(4 + u32::from(axis), Ty::I32),
            Builtin::CtaBase(axis) => self.push_field(1 + u32::from(axis), Ty::I32),
            Builtin::ParamBase => self.push_field(0, Ty::I64),
            Builtin::GlobalsBase => self.push_field(7, Ty::I64),
            Builtin::StatusAddress => self.push_field(8, Ty::I64),
            Builtin::MemTable => self.push_field(9, Ty::I64),
            Builtin::MemCount => self.push_field(10, Ty::I32),
            Builtin::MemHint(i) => self.push_field(11 + u32::from(i), Ty::I64),
            Builtin::MemProven(k) => self.mem_proven(k),
            Builtin::DynamicSharedBytes => self.dynamic_shared_bytes(),
            Builtin::ScratchBase => self.scratch_base(),
            Builtin::SharedLock => self.lock_index(),
            Builtin::Clock => {
                self.cap(Capability::ShaderClockKHR);
                self.b.extension("SPV_KHR_shader_clock");
                let u64t = self.ty(Ty::I64);
                let scope = self.u32_const(spirv::Scope::Subgroup as u32);
                self.op(spirv::Op::ReadClockKHR, u64t, [scope])
            }
            Builtin::BarrierWords => {
                let lock = self.lock_index();
                let one = self.u32_const(1);
                self.spec_op(spirv::Op::IAdd, lock, one)
            }
            Builtin::SubgroupLane | Builtin::SubgroupId => {
                self.cap(Capability::GroupNonUniform);
                let bi = if which == Builtin::SubgroupLane {
                    spirv::BuiltIn::SubgroupLocalInvocationId
                } else {
                    spirv::BuiltIn::SubgroupId
                };
                let var = match self.builtin_vars.get(bi) {
                    Some(v) => v,
                    None => {
                        let pt = self.ptr(StorageClass::Input, u32t);
                        let v = self.global_variable(pt, StorageClass::Input);
                        self.b.decorate(v, Decoration::BuiltIn, [bi as Word]);
                        self.builtin_vars.insert(bi, v);
                        v
                    }
                };
                self.load(u32t, var, None)
            }
        }
    }

    /// Specialization constant `SPEC_MEM_PROVEN + k`: whether the launch proved fact `k`.
    fn mem_proven(&mut self, k: u8) -> Word {
        if let Some(&c) = self.mem_proven.get(&k) {
            return c;
        }
        let bool_t = self.ty(Ty::Bool);
        let c = self.b.id();
        self.b
            .global(spirv::Op::SpecConstantFalse, Some(bool_t), c, &[]);
        let spec_id = abi::SPEC_MEM_PROVEN + u32::from(k);
        self.b.decorate(c, Decoration::SpecId, [spec_id]);
        self.mem_proven.insert(k, c);
        c
    }

    /// Specialization constant 3: this launch's dynamic shared memory in bytes.
    fn dynamic_shared_bytes(&mut self) -> Word {
        if let Some(c) = self.dynamic_shared_bytes {
            return c;
        }
        let u32t = self.ty(Ty::I32);
        let c = self.b.id();
        self.b.global(spirv::Op::SpecConstant, Some(u32t), c, &[0]);
        let spec_id = abi::SPEC_DYNAMIC_SHARED_BYTES;
        self.b.decorate(c, Decoration::SpecId, [spec_id]);
        self.b.name(c, "ptxvk.dynamic_shared_bytes");
        self.dynamic_shared_bytes = Some(c);
        c
    }

    fn spec_op(&mut self, op: spirv::Op, a: Word, b: Word) -> Word {
        let u32t = self.ty(Ty::I32);
        let id = self.b.id();
        self.b.global(
            spirv::Op::SpecConstantOp,
            Some(u32t),
            id,
            &[op as Word, a, b],
        );
        id
    }

    /// Where the warp-emulation scratch starts: after the static and dynamic shared memory.
    fn scratch_base(&mut self) -> Word {
        if let Some(b) = self.scratch_base {
            return b;
        }
        let static_words = self.u32_const(self.shared_words);
        let base = if self.dynamic_shared {
            let dyn_bytes = self.dynamic_shared_bytes();
            let three = self.u32_const(3);
            let four = self.u32_const(4);
            let rounded = self.spec_op(spirv::Op::IAdd, dyn_bytes, three);
            let words = self.spec_op(spirv::Op::UDiv, rounded, four);
            self.spec_op(spirv::Op::IAdd, static_words, words)
        } else {
            static_words
        };
        self.scratch_base = Some(base);
        base
    }

    /// The last word of the shared arena: the lock of 64-bit shared atomics (and never empty).
    fn lock_index(&mut self) -> Word {
        if let Some(i) = self.lock_index {
            return i;
        }
        let mut idx = self.scratch_base();
        if self.warp_scratch_words > 0 {
            let [x, y, z] = self.block_dims();
            let xy = self.spec_op(spirv::Op::IMul, x, y);
            let threads = self.spec_op(spirv::Op::IMul, xy, z);
            let per_thread = self.u32_const(self.warp_scratch_words);
            let words = self.spec_op(spirv::Op::IMul, threads, per_thread);
            idx = self.spec_op(spirv::Op::IAdd, idx, words);
            let one = self.u32_const(1);
            idx = self.spec_op(spirv::Op::IAdd, idx, one);
        }
        self.lock_index = Some(idx);
        idx
    }

    /// The workgroup's shared arena: static words, the launch's dynamic bytes rounded up to
    /// words, the warp-emulation scratch (its words per thread, and one), the lock word, and the
    /// counted barriers' words when used.
    pub fn shared_arena(&mut self) -> Word {
        if let Some(v) = self.shared_arena {
            return v;
        }
        let len = self.shared_arena_words();
        let v = self.arena(StorageClass::Workgroup, len, "ptxvk.shared");
        self.shared_arena = Some(v);
        v
    }

    /// The shared arena's length in words (a constant or a specialization constant).
    pub(in crate::emit) fn shared_arena_words(&mut self) -> Word {
        let last = self.lock_index();
        let tail = 1 + if self.barrier_words { 32 } else { 0 };
        if last == self.u32_const(self.shared_words) {
            self.u32_const(self.shared_words + tail)
        } else {
            let tail = self.u32_const(tail);
            self.spec_op(spirv::Op::IAdd, last, tail)
        }
    }

    /// The invocation's local arena.
    pub fn local_arena(&mut self) -> Word {
        if let Some(v) = self.local_arena {
            return v;
        }
        let len = self.u32_const(self.local_words.max(1));
        let v = self.arena(StorageClass::Private, len, "ptxvk.local");
        self.local_arena = Some(v);
        v
    }

    fn arena(&mut self, sc: StorageClass, len: Word, name: &str) -> Word {
        let u32t = self.ty(Ty::I32);
        let arr = self.array(u32t, len);
        let pt = self.ptr(sc, arr);
        let v = self.global_variable(pt, sc);
        self.b.name(v, name);
        v
    }

    fn push_field(&mut self, member: u32, t: Ty) -> Word {
        let var = self.push_constant_var();
        let ty = self.ty(t);
        let pt = self.ptr(StorageClass::PushConstant, ty);
        let idx = self.u32_const(member);
        let p = self.access_chain(pt, var, idx);
        self.load(ty, p, None)
    }
}
