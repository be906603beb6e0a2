//! Module-wide emission state (`Emitter`): the declarations and function bodies being written,
//! the types, constants and built-in variables declared so far, and what the target asks of
//! them; and the emission error every step may return.

mod consts;
mod globals;
mod types;

// FxHash maps: keys are small (types, constants), looked up for nearly every instruction.
use rustc_hash::FxHashMap as HashMap;

use rspirv::spirv::{self, Capability, ExecutionMode, StorageClass, Word};

use super::{body, decls};
use crate::ir::Ty;

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
