//! Types, each declared once: the emitter's caches stand in for rspirv's searches.

use rspirv::spirv::{self, Capability, StorageClass, Word};

use super::Emitter;
use crate::ir::Ty;

impl Emitter {
    /// Nearly every instruction asks for its result type: the cached case is inlined.
    #[inline]
    pub fn ty(&mut self, t: Ty) -> Word {
        match self.types[t as usize] {
            0 => self.declare_ty(t),
            cached => cached,
        }
    }

    #[cold]
    fn declare_ty(&mut self, t: Ty) -> Word {
        // Declared once, with its id given: the cache replaces rspirv's search.
        let id = self.b.id();
        let b = &mut self.b;
        match t {
            Ty::Bool => b.global(spirv::Op::TypeBool, None, id, &[]),
            Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 => {
                b.global(spirv::Op::TypeInt, None, id, &[t.bits(), 0])
            }
            Ty::F16 | Ty::F32 | Ty::F64 => b.global(spirv::Op::TypeFloat, None, id, &[t.bits()]),
        };
        match t {
            Ty::I8 => self.cap(Capability::Int8),
            Ty::I16 => self.cap(Capability::Int16),
            Ty::F16 => self.cap(Capability::Float16),
            Ty::F64 => self.cap(Capability::Float64),
            _ => {}
        }
        self.types[t as usize] = id;
        id
    }

    /// A vector type (declared once: the cache replaces rspirv's search).
    pub fn vector(&mut self, component: Word, n: u32) -> Word {
        if let Some(id) = self.vectors.get((component, n)) {
            return id;
        }
        let id = self.b.id();
        self.b
            .global(spirv::Op::TypeVector, None, id, &[component, n]);
        self.vectors.insert((component, n), id);
        id
    }

    pub(in crate::emit) fn uvec3(&mut self) -> Word {
        let u32t = self.ty(Ty::I32);
        self.vector(u32t, 3)
    }

    pub fn void(&mut self) -> Word {
        if let Some(id) = self.void {
            return id;
        }
        let id = self.b.id();
        self.b.global(spirv::Op::TypeVoid, None, id, &[]);
        self.void = Some(id);
        id
    }

    /// A struct type of `members`, declared once (every struct goes through here, so the cache
    /// replaces rspirv's search).
    pub fn struct_of(&mut self, members: &[Word]) -> Word {
        if let Some(&id) = self.structs.get(members) {
            return id;
        }
        let id = self.b.id();
        self.b.global(spirv::Op::TypeStruct, None, id, members);
        self.structs.insert(members.to_vec(), id);
        id
    }

    /// A type other than the ones cached above, declared once.
    pub fn type_once(&mut self, op: spirv::Op, operands: &[Word]) -> Word {
        let key = (op as u32, operands.to_vec());
        if let Some(&id) = self.other_types.get(&key) {
            return id;
        }
        let id = self.b.id();
        self.b.global(op, None, id, operands);
        self.other_types.insert(key, id);
        id
    }

    pub(super) fn array(&mut self, element: Word, len: Word) -> Word {
        self.type_once(spirv::Op::TypeArray, &[element, len])
    }

    pub fn fn_type(&mut self, ret: Word, params: &[Word]) -> Word {
        let key = (ret, params.to_vec());
        if let Some(&id) = self.fn_types.get(&key) {
            return id;
        }
        let id = self.b.id();
        let mut ops = Vec::with_capacity(1 + params.len());
        ops.push(ret);
        ops.extend_from_slice(params);
        self.b.global(spirv::Op::TypeFunction, None, id, &ops);
        self.fn_types.insert(key, id);
        id
    }

    pub fn ptr(&mut self, sc: StorageClass, pointee: Word) -> Word {
        let slot = (pointee as usize ^ (sc as usize).wrapping_mul(5)) % self.ptr_hot.len();
        let (hot_sc, hot_pointee, hot) = self.ptr_hot[slot];
        if hot != 0 && hot_sc == sc && hot_pointee == pointee {
            return hot;
        }
        if let Some(id) = self.ptr_types.get((sc, pointee)) {
            self.ptr_hot[slot] = (sc, pointee, id);
            return id;
        }
        // Declared once (the cache replaces rspirv's search of every declared type).
        let id = self.b.id();
        self.b
            .global(spirv::Op::TypePointer, None, id, &[sc as Word, pointee]);
        self.ptr_types.insert((sc, pointee), id);
        self.ptr_hot[slot] = (sc, pointee, id);
        id
    }
}
