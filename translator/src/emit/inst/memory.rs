//! Memory operands of SPIR-V instructions: pointers into device, shared and local memory,
//! memory-access masks, scopes and the semantics of atomics, barriers and fences.

use rspirv::spirv::{self, Capability, MemoryAccess, MemorySemantics, Op as S, StorageClass, Word};

use crate::emit::func::FnEmitter;
use crate::emit::module::Access;
use crate::ir::{MemOrder, Ordering, Ptr, Scope, Ty};

impl FnEmitter<'_, '_> {
    /// An atomic operation's value type and pointer.
    pub(super) fn atomic_target(&mut self, ptr: &Ptr, t: Ty) -> (Word, Word) {
        if t.bits() == 64 {
            self.e.cap(Capability::Int64Atomics);
        }
        let ty = self.e.ty(t);
        (ty, self.pointer(ptr, ty))
    }

    /// An atomic operation's scope and semantics operands.
    pub(super) fn atomic_order(&mut self, ptr: &Ptr, scope: Scope, sem: Ordering) -> (Word, Word) {
        let sc = self.ordered_scope(scope, sem);
        let sem = atomic_semantics(ptr, sem, self.e.shared_spilled);
        (sc, self.e.u32_const(sem.bits()))
    }

    /// The scope operand of an ordered memory operation (see `widen_workgroup_fences`).
    pub(super) fn ordered_scope(&mut self, scope: Scope, sem: Ordering) -> Word {
        let scope = if self.e.widen_workgroup_fences
            && sem != Ordering::Relaxed
            && scope == Scope::Workgroup
        {
            Scope::Device
        } else {
            scope
        };
        self.e.u32_const(scope_id(scope) as u32)
    }

    pub(super) fn pointer(&mut self, ptr: &Ptr, pointee: Word) -> Word {
        match ptr {
            Ptr::Global(addr) => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let a = self.value(*addr);
                self.e.op(S::ConvertUToPtr, pt, [a])
            }
            Ptr::Shared(idx) if self.e.shared_spilled => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let i = self.value(*idx);
                self.e.spilled_word(pt, i)
            }
            Ptr::Shared(idx) | Ptr::Local(idx) => {
                let (arena, sc) = if matches!(ptr, Ptr::Shared(_)) {
                    (self.e.shared_arena(), StorageClass::Workgroup)
                } else {
                    (self.e.local_arena(), StorageClass::Private)
                };
                let pt = self.e.ptr(sc, pointee);
                let i = self.value(*idx);
                self.e.access_chain(pt, arena, i)
            }
        }
    }

    /// 8- and 16-bit device-address accesses need the storage capabilities.
    pub(super) fn storage_caps(&mut self, ptr: &Ptr, ty: Ty) {
        if matches!(ptr, Ptr::Global(_)) {
            match ty.bits() {
                8 => self.e.cap(Capability::StorageBuffer8BitAccess),
                16 => self.e.cap(Capability::StorageBuffer16BitAccess),
                _ => {}
            }
        }
    }
}

/// Memory operands: device-address accesses need `Aligned`; device and shared memory accesses are
/// `NonPrivatePointer` so that barriers and fences order them (Vulkan memory model). Local memory
/// is private to the invocation. A spilled shared arena is device memory, so needs `Aligned` too
/// (its words are 4-byte aligned).
pub(super) fn memory_access(
    ptr: &Ptr,
    align: u32,
    order: MemOrder,
    spilled: bool,
) -> Option<Access> {
    let volatile = if order == MemOrder::Volatile {
        MemoryAccess::VOLATILE
    } else {
        MemoryAccess::NONE
    };
    match ptr {
        Ptr::Global(_) => Some(Access {
            mask: MemoryAccess::ALIGNED | MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: Some(align.max(1)),
        }),
        Ptr::Shared(_) if spilled => Some(Access {
            mask: MemoryAccess::ALIGNED | MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: Some(4),
        }),
        Ptr::Shared(_) => Some(Access {
            mask: MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: None,
        }),
        Ptr::Local(_) => None,
    }
}

/// PTX's `.gpu` and `.sys` scopes are the queue family's: every invocation of a dispatch is in one
/// queue family, and host visibility comes from coherent memory and queue submission. (Device
/// scope would also need the vulkanMemoryModelDeviceScope feature.)
fn scope_id(s: Scope) -> spirv::Scope {
    match s {
        Scope::Subgroup => spirv::Scope::Subgroup,
        Scope::Workgroup => spirv::Scope::Workgroup,
        Scope::Device => spirv::Scope::QueueFamily,
    }
}

/// Atomic semantics: the ordering, plus (when ordering) the storage class it orders and the
/// availability/visibility operations the Vulkan memory model needs for the plain accesses around.
/// A spilled shared arena is device memory (`UniformMemory`).
pub(super) fn atomic_semantics(ptr: &Ptr, sem: Ordering, spilled: bool) -> MemorySemantics {
    let storage = match ptr {
        Ptr::Shared(_) if !spilled => MemorySemantics::WORKGROUP_MEMORY,
        _ => MemorySemantics::UNIFORM_MEMORY,
    };
    match sem {
        Ordering::Relaxed => MemorySemantics::RELAXED,
        Ordering::Acquire => MemorySemantics::ACQUIRE | storage | MemorySemantics::MAKE_VISIBLE,
        Ordering::Release => MemorySemantics::RELEASE | storage | MemorySemantics::MAKE_AVAILABLE,
        Ordering::AcqRel => {
            MemorySemantics::ACQUIRE_RELEASE
                | storage
                | MemorySemantics::MAKE_AVAILABLE
                | MemorySemantics::MAKE_VISIBLE
        }
    }
}

/// Barriers and fences: acquire-release over shared and device memory, with the availability and
/// visibility operations the Vulkan memory model needs for plain (non-atomic) accesses.
pub(super) fn barrier_semantics() -> MemorySemantics {
    MemorySemantics::ACQUIRE_RELEASE
        | MemorySemantics::WORKGROUP_MEMORY
        | MemorySemantics::UNIFORM_MEMORY
        | MemorySemantics::MAKE_AVAILABLE
        | MemorySemantics::MAKE_VISIBLE
}
