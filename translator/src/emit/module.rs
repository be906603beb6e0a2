//! Module-wide emission state (`Emitter`): the declarations and function bodies being written,
//! the types, constants and built-in variables declared so far, and what the target asks of
//! them; and the emission error every step may return.

// FxHash maps: keys are small (types, constants), looked up for nearly every instruction.
use rustc_hash::FxHashMap as HashMap;

use rspirv::spirv::{self, Capability, Decoration, ExecutionMode, StorageClass, Word};

use super::{body, decls};
use crate::abi;
use crate::ir::{Builtin, Ty};

/// Emission errors are internal errors (an IR the emitter cannot express). The message is
/// behind one thin pointer: `EmitResult<()>`, returned by every instruction's emission, then fits in a
/// register (a `String` made it a 24-byte value returned through memory; `Box<str>`, two
/// registers, measured no better than that).
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{0}")]
    Internal(Box<String>),
}

/// What emitting returns.
pub type EmitResult<T> = Result<T, EmitError>;
/// Constants below this value are cached in arrays rather than a hash map.
const SMALL: usize = 64;

/// The few entries a kernel has of some kinds (pointer types, vector types, built-in
/// variables): searched in order, which costs less than hashing at these sizes.
struct Few<K, V>(Vec<(K, V)>);

impl<K, V> Default for Few<K, V> {
    fn default() -> Self {
        Few(Vec::new())
    }
}

impl<K: PartialEq + Copy, V: Copy> Few<K, V> {
    fn get(&self, k: K) -> Option<V> {
        self.0.iter().find(|e| e.0 == k).map(|e| e.1)
    }

    fn insert(&mut self, k: K, v: V) {
        self.0.push((k, v));
    }
}

/// Module-wide emission state: types, constants, and the globals the entry point uses.
pub(crate) struct Emitter {
    /// Declarations (and the id counter).
    pub b: decls::Decls,
    /// Function bodies.
    pub body: body::Body,
    /// Scalar types by `Ty as usize` (0: not declared yet).
    types: [Word; 8],
    ptr_types: Few<(StorageClass, Word), Word>,
    /// Pointer types by a hash of their key, in front of `ptr_types`: every memory access
    /// asks for one, and the search cost about 60 instructions.
    ptr_hot: [(StorageClass, Word, Word); 8],
    consts: HashMap<(Ty, u64), Word>,
    /// Constants below `SMALL` by `Ty as usize` (0: not declared yet): most constants are
    /// small (indices, shifts, scopes, semantics), and this spares them the hash map.
    small: [[Word; SMALL]; 8],
    /// Vector types by component type and count: rspirv's `type_vector` searches every type
    /// and constant declared so far, and built-in reads and ballots ask on every use.
    vectors: Few<(Word, u32), Word>,
    /// `void`, function types and structs, cached for the same reason as vectors: calls and
    /// `mul.hi` ask for them on every use.
    void: Option<Word>,
    fn_types: HashMap<(Word, Vec<Word>), Word>,
    /// Other types (arrays, images, signed integers) by opcode and operands: two declarations
    /// of one non-aggregate type are invalid.
    other_types: HashMap<(u32, Vec<Word>), Word>,
    structs: HashMap<Vec<Word>, Word>,
    pub glsl: Word,
    pub(super) caps: Vec<Capability>,
    /// Every module-scope variable, in the order created (each is created on its first use, and
    /// the entry point's interface lists all it uses).
    pub(super) interface: Vec<Word>,
    builtin_vars: Few<spirv::BuiltIn, Word>,
    push_constants: Option<Word>,
    block_dims: Option<[Word; 3]>,
    dynamic_shared_bytes: Option<Word>,
    /// Memory checking's proof flags made so far, by fact.
    mem_proven: std::collections::BTreeMap<u8, Word>,
    /// Sizes of the arenas (from the IR module) and their variables once created.
    pub(super) shared_words: u32,
    pub(super) dynamic_shared: bool,
    pub(super) local_words: u32,
    shared_arena: Option<Word>,
    local_arena: Option<Word>,
    /// The shared arena lives in device memory (`spill.rs`), and the variable holding the
    /// address of this workgroup's slice once created.
    pub(super) shared_spilled: bool,
    pub(super) spill_slice: Option<Word>,
    pub(super) warp_scratch_words: u32,
    scratch_base: Option<Word>,
    lock_index: Option<Word>,
    /// How warp primitives are emitted.
    pub warp: crate::profile::WarpStrategy,
    pub widen_workgroup_fences: bool,
    pub subgroup_clustered: bool,
    pub barrier_words: bool,
    /// The texture bindings (set 0) and their variables once created (`texture.rs`).
    pub(super) textures: Vec<crate::texture::TextureBinding>,
    pub(super) tex_vars: HashMap<u32, TexVar>,
}

impl Emitter {
    /// A new emitter; `reset` gives its initial state.
    pub(super) fn new() -> Self {
        let mut e = Emitter {
            b: decls::Decls::new(),
            body: body::Body::default(),
            types: [0; 8],
            ptr_types: Few::default(),
            ptr_hot: [(StorageClass::Generic, 0, 0); 8],
            consts: HashMap::default(),
            small: [[0; SMALL]; 8],
            vectors: Few::default(),
            void: None,
            fn_types: HashMap::default(),
            other_types: HashMap::default(),
            structs: HashMap::default(),
            glsl: 0,
            caps: Vec::new(),
            interface: Vec::new(),
            builtin_vars: Few::default(),
            push_constants: None,
            block_dims: None,
            dynamic_shared_bytes: None,
            mem_proven: Default::default(),
            shared_words: 0,
            dynamic_shared: false,
            local_words: 0,
            shared_arena: None,
            local_arena: None,
            shared_spilled: false,
            spill_slice: None,
            warp_scratch_words: 0,
            scratch_base: None,
            lock_index: None,
            warp: crate::profile::WarpStrategy::Emulated,
            widen_workgroup_fences: false,
            subgroup_clustered: false,
            barrier_words: false,
            textures: Vec::new(),
            tex_vars: HashMap::default(),
        };
        e.reset();
        e
    }

    /// The state a kernel's emission starts from, keeping the collections' memory (the next
    /// kernel reuses them, `Kept`). Every field is named, so that a new one cannot be
    /// left out.
    pub(super) fn reset(&mut self) {
        let Emitter {
            b,
            body,
            types,
            ptr_types,
            ptr_hot,
            consts,
            small,
            vectors,
            void,
            fn_types,
            other_types,
            structs,
            glsl,
            caps,
            interface,
            builtin_vars,
            push_constants,
            block_dims,
            dynamic_shared_bytes,
            mem_proven,
            shared_words,
            dynamic_shared,
            local_words,
            shared_arena,
            local_arena,
            shared_spilled,
            spill_slice,
            warp_scratch_words,
            scratch_base,
            lock_index,
            warp,
            widen_workgroup_fences,
            subgroup_clustered,
            barrier_words,
            textures,
            tex_vars,
        } = self;
        b.reset();
        body.reset();
        *types = [0; 8];
        ptr_types.0.clear();
        *ptr_hot = [(StorageClass::Generic, 0, 0); 8];
        consts.clear();
        *small = [[0; SMALL]; 8];
        vectors.0.clear();
        *void = None;
        fn_types.clear();
        other_types.clear();
        structs.clear();
        *glsl = b.ext_inst_import("GLSL.std.450");
        caps.clear();
        interface.clear();
        builtin_vars.0.clear();
        (*push_constants, *block_dims, *dynamic_shared_bytes) = (None, None, None);
        mem_proven.clear();
        (*shared_words, *dynamic_shared, *local_words) = (0, false, 0);
        (*shared_arena, *local_arena) = (None, None);
        (*shared_spilled, *spill_slice) = (false, None);
        (*warp_scratch_words, *scratch_base, *lock_index) = (0, None, None);
        *warp = crate::profile::WarpStrategy::Emulated;
        (*widen_workgroup_fences, *subgroup_clustered, *barrier_words) = (false, false, false);
        textures.clear();
        tex_vars.clear();
        for c in [
            Capability::Shader,
            Capability::PhysicalStorageBufferAddresses,
            Capability::VulkanMemoryModel,
            Capability::Int64,
        ] {
            self.cap(c);
        }
    }

    /// The entry point's execution modes: the block size (the runtime specializes it) and, for
    /// each float width the kernel uses and the device offers them, `DenormPreserve` (PTX keeps
    /// subnormals unless an instruction says `.ftz`; a driver's default may flush them) and
    /// `SignedZeroInfNanPreserve` (PTX's arithmetic is IEEE's; without the mode Mesa rewrites
    /// `x * ±0.0` to `+0.0` and `x + 0.0` to `x`, exact or not,
    /// docs/decisions/0198-signed-zero-inf-nan-preserve.md).
    pub(super) fn execution_modes(
        &mut self,
        keep_subnormals: crate::profile::FloatWidths,
        keep_signs: crate::profile::FloatWidths,
    ) -> decls::Modes {
        let mut modes = decls::Modes::new();
        modes.push((ExecutionMode::LocalSize, &[1, 1, 1]));
        let widths: [(Ty, &'static [Word]); 3] =
            [(Ty::F16, &[16]), (Ty::F32, &[32]), (Ty::F64, &[64])];
        let wanted = |w: crate::profile::FloatWidths, ty: Ty| match ty {
            Ty::F16 => w.f16,
            Ty::F32 => w.f32,
            _ => w.f64,
        };
        for (mode, cap, keep) in [
            (
                ExecutionMode::DenormPreserve,
                Capability::DenormPreserve,
                keep_subnormals,
            ),
            (
                ExecutionMode::SignedZeroInfNanPreserve,
                Capability::SignedZeroInfNanPreserve,
                keep_signs,
            ),
        ] {
            let before = modes.len();
            for (ty, width) in widths {
                if wanted(keep, ty) && self.types[ty as usize] != 0 {
                    modes.push((mode, width));
                }
            }
            if modes.len() > before {
                self.cap(cap);
            }
        }
        modes
    }

    pub fn cap(&mut self, c: Capability) {
        if !self.caps.contains(&c) {
            self.caps.push(c);
        }
    }

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

    pub(super) fn uvec3(&mut self) -> Word {
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

    fn array(&mut self, element: Word, len: Word) -> Word {
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

    /// An instruction with a result, appended to the current block.
    pub fn op<const N: usize>(&mut self, op: spirv::Op, ty: Word, operands: [Word; N]) -> Word {
        let id = self.b.id();
        self.body.inst(op, Some(ty), Some(id), operands);
        id
    }

    /// [`Emitter::op`] with a number of operands known only at run time.
    pub fn op_n(&mut self, op: spirv::Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.b.id();
        self.body.inst_n(op, Some(ty), Some(id), operands);
        id
    }

    /// An instruction without a result, appended to the current block.
    pub fn op_void<const N: usize>(&mut self, op: spirv::Op, operands: [Word; N]) {
        self.body.inst(op, None, None, operands);
    }

    /// `OpAccessChain` with one index.
    pub fn access_chain(&mut self, ptr_ty: Word, base: Word, index: Word) -> Word {
        self.op(spirv::Op::AccessChain, ptr_ty, [base, index])
    }

    /// `OpCompositeExtract` of one member.
    pub fn extract(&mut self, ty: Word, composite: Word, index: u32) -> Word {
        self.op(spirv::Op::CompositeExtract, ty, [composite, index])
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

    /// A constant of type `t` holding the low bits of `bits`.
    #[inline]
    pub fn konst(&mut self, t: Ty, bits: u64) -> Word {
        if bits < SMALL as u64 {
            let cached = self.small[t as usize][bits as usize];
            if cached != 0 {
                return cached;
            }
        }
        self.konst_slow(t, bits)
    }

    /// The constant of type `t` with these bits if one was declared (declares none).
    pub fn declared_konst(&self, t: Ty, bits: u64) -> Option<Word> {
        let id = if bits < SMALL as u64 {
            self.small[t as usize][bits as usize]
        } else {
            self.consts.get(&(t, bits)).copied().unwrap_or(0)
        };
        (id != 0).then_some(id)
    }

    fn konst_slow(&mut self, t: Ty, bits: u64) -> Word {
        let bits = if t.bits() >= 64 {
            bits
        } else {
            bits & ((1u64 << t.bits()) - 1)
        };
        let small = bits < SMALL as u64;
        let cached = if small {
            self.small[t as usize][bits as usize]
        } else {
            self.consts.get(&(t, bits)).copied().unwrap_or(0)
        };
        if cached != 0 {
            return cached;
        }
        let ty = self.ty(t);
        let id = self.b.id();
        match t {
            Ty::Bool if bits != 0 => self.b.global(spirv::Op::ConstantTrue, Some(ty), id, &[]),
            Ty::Bool => self.b.global(spirv::Op::ConstantFalse, Some(ty), id, &[]),
            // Wide literals: low-order word first (SPIR-V 1.6 section 2.2.1).
            Ty::I64 | Ty::F64 => {
                let words = [bits as u32, (bits >> 32) as u32];
                self.b.global(spirv::Op::Constant, Some(ty), id, &words)
            }
            _ => self
                .b
                .global(spirv::Op::Constant, Some(ty), id, &[bits as u32]),
        };
        if small {
            self.small[t as usize][bits as usize] = id;
        } else {
            self.consts.insert((t, bits), id);
        }
        id
    }

    pub fn u32_const(&mut self, v: u32) -> Word {
        self.konst(Ty::I32, u64::from(v))
    }

    /// A module-scope `OpVariable` (the builder would put it in the current block).
    pub(super) fn global_variable(&mut self, ptr_ty: Word, sc: StorageClass) -> Word {
        let id = self.b.id();
        self.b
            .global(spirv::Op::Variable, Some(ptr_ty), id, &[sc as Word]);
        self.interface.push(id);
        id
    }

    /// An `Input` builtin variable of type `uvec3`.
    pub(super) fn builtin_var(&mut self, which: spirv::BuiltIn) -> Word {
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
    pub(super) fn block_dims(&mut self) -> [Word; 3] {
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
    pub(super) fn shared_arena_words(&mut self) -> Word {
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

    /// `OpLoad` with optional memory operands.
    pub fn load(&mut self, ty: Word, ptr: Word, access: Option<Access>) -> Word {
        match access {
            None => self.op(spirv::Op::Load, ty, [ptr]),
            Some(Access { mask, align: None }) => self.op(spirv::Op::Load, ty, [ptr, mask.bits()]),
            Some(Access {
                mask,
                align: Some(a),
            }) => self.op(spirv::Op::Load, ty, [ptr, mask.bits(), a]),
        }
    }

    /// `OpStore` with optional memory operands.
    pub fn store(&mut self, ptr: Word, value: Word, access: Option<Access>) {
        match access {
            None => self.op_void(spirv::Op::Store, [ptr, value]),
            Some(Access { mask, align: None }) => {
                self.op_void(spirv::Op::Store, [ptr, value, mask.bits()])
            }
            Some(Access {
                mask,
                align: Some(a),
            }) => self.op_void(spirv::Op::Store, [ptr, value, mask.bits(), a]),
        }
    }
}

/// A binding's variable and the types around it.
#[derive(Clone, Copy)]
pub(super) struct TexVar {
    pub(super) var: Word,
    pub(super) sampled_image: Word,
    pub(super) image: Word,
    /// The scalar type of texels as sampled (`float`, signed or unsigned `int`).
    pub(super) texel: Word,
}

/// The memory operands of a load or store: the mask and, with `Aligned`, the alignment.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub mask: spirv::MemoryAccess,
    pub align: Option<u32>,
}
