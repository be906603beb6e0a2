//! A SPIR-V module writer with the calling conventions of `rspirv::dr::Builder` (the part the
//! emitter uses, and the ordinary arithmetic, logic, conversion, memory, atomic and subgroup
//! instructions besides), writing each instruction's words straight into its module section.
//!
//! Why not rspirv's builder itself: it makes one heap-allocated instruction of operand enums per
//! SPIR-V instruction, assembles them in a second pass, and deduplicates types by scanning every
//! type, constant and global variable of the module. On `cargo xtask bench translate` that was
//! half of the translation time; this writer produces the same words (same ids, same order).
//! rspirv still provides the SPIR-V enums, the operand type of the few calls that take
//! operands, and disassembly.

// Besides what the emitter calls today, the ordinary instructions an emitter change may need.
#![allow(dead_code)]

use rspirv::binary::Assemble;
use rspirv::dr::{Error, Operand};
use rspirv::spirv::{self, Op, Word};
use rustc_hash::FxHashMap;

pub type BuildResult<T> = Result<T, Error>;

/// rspirv's generator number (kept so that the output is what rspirv's builder made).
const GENERATOR: Word = 0x000f_0000;

#[derive(Default)]
pub struct Builder {
    next_id: Word,
    version: Word,
    capabilities: Vec<u32>,
    extensions: Vec<u32>,
    extension_names: Vec<String>,
    ext_inst_imports: Vec<u32>,
    memory_model: Vec<u32>,
    entry_points: Vec<u32>,
    execution_modes: Vec<u32>,
    names: Vec<u32>,
    annotations: Vec<u32>,
    globals: Vec<u32>,
    functions: Vec<u32>,
    /// The function being built: `OpFunction` and its parameters, the first block's label, its
    /// `Function` variables (which SPIR-V wants at the start of the first block), the rest.
    func_head: Vec<u32>,
    first_label: Option<Word>,
    func_vars: Vec<u32>,
    func_body: Vec<u32>,
    in_function: bool,
    /// Type instructions without their result id, to give each type one id.
    types: FxHashMap<Vec<u32>, Word>,
}

/// Appends an instruction: opcode word (with the word count filled in), then `words`.
fn inst(section: &mut Vec<u32>, op: Op, words: &[u32]) {
    section.push(((words.len() as u32 + 1) << 16) | op as u32);
    section.extend_from_slice(words);
}

/// The words of a literal string (nul-terminated, padded to a word).
fn string(s: &str, out: &mut Vec<u32>) {
    let bytes = s.as_bytes();
    let mut chunks = bytes.chunks_exact(4);
    for c in &mut chunks {
        out.push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    let mut last = [0u8; 4];
    let rest = chunks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    out.push(u32::from_le_bytes(last));
}

/// Appends an instruction whose trailing operands are rspirv operands.
fn inst_with(
    section: &mut Vec<u32>,
    op: Op,
    words: &[u32],
    operands: impl IntoIterator<Item = Operand>,
) {
    let start = section.len();
    section.push(op as u32);
    section.extend_from_slice(words);
    for o in operands {
        o.assemble_into(section);
    }
    let count = (section.len() - start) as u32;
    section[start] |= count << 16;
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            next_id: 1,
            version: 0x0001_0000,
            ..Default::default()
        }
    }

    pub fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn id_or(&mut self, id: Option<Word>) -> Word {
        match id {
            Some(id) => id,
            None => self.id(),
        }
    }

    pub fn set_version(&mut self, major: u8, minor: u8) {
        self.version = (u32::from(major) << 16) | (u32::from(minor) << 8);
    }

    /// The finished module's words.
    pub fn module_words(mut self) -> Vec<u32> {
        let mut out = Vec::with_capacity(
            5 + self.capabilities.len()
                + self.extensions.len()
                + self.ext_inst_imports.len()
                + self.memory_model.len()
                + self.entry_points.len()
                + self.execution_modes.len()
                + self.names.len()
                + self.annotations.len()
                + self.globals.len()
                + self.functions.len(),
        );
        out.extend([
            spirv::MAGIC_NUMBER,
            self.version,
            GENERATOR,
            self.next_id,
            0,
        ]);
        for section in [
            &mut self.capabilities,
            &mut self.extensions,
            &mut self.ext_inst_imports,
            &mut self.memory_model,
            &mut self.entry_points,
            &mut self.execution_modes,
            &mut self.names,
            &mut self.annotations,
            &mut self.globals,
            &mut self.functions,
        ] {
            out.append(section);
        }
        out
    }

    // ---- module-level instructions ----

    pub fn capability(&mut self, capability: spirv::Capability) {
        inst(&mut self.capabilities, Op::Capability, &[capability as u32]);
    }

    pub fn extension(&mut self, extension: impl Into<String>) {
        let name = extension.into();
        let mut w = Vec::new();
        string(&name, &mut w);
        inst(&mut self.extensions, Op::Extension, &w);
        self.extension_names.push(name);
    }

    /// Whether `OpExtension name` was emitted already.
    pub fn has_extension(&self, name: &str) -> bool {
        self.extension_names.iter().any(|n| n == name)
    }

    pub fn ext_inst_import(&mut self, set: impl Into<String>) -> Word {
        let id = self.id();
        let mut w = vec![id];
        string(&set.into(), &mut w);
        inst(&mut self.ext_inst_imports, Op::ExtInstImport, &w);
        id
    }

    pub fn memory_model(&mut self, addressing: spirv::AddressingModel, memory: spirv::MemoryModel) {
        self.memory_model.clear();
        inst(
            &mut self.memory_model,
            Op::MemoryModel,
            &[addressing as u32, memory as u32],
        );
    }

    pub fn entry_point(
        &mut self,
        model: spirv::ExecutionModel,
        entry_point: Word,
        name: impl Into<String>,
        interface: impl AsRef<[Word]>,
    ) {
        let mut w = vec![model as u32, entry_point];
        string(&name.into(), &mut w);
        w.extend_from_slice(interface.as_ref());
        inst(&mut self.entry_points, Op::EntryPoint, &w);
    }

    pub fn execution_mode(
        &mut self,
        entry_point: Word,
        mode: spirv::ExecutionMode,
        params: impl AsRef<[u32]>,
    ) {
        let mut w = vec![entry_point, mode as u32];
        w.extend_from_slice(params.as_ref());
        inst(&mut self.execution_modes, Op::ExecutionMode, &w);
    }

    pub fn name(&mut self, target: Word, name: impl AsRef<str>) {
        let start = self.names.len();
        self.names.extend([0, target]);
        string(name.as_ref(), &mut self.names);
        let count = (self.names.len() - start) as u32;
        self.names[start] = (count << 16) | Op::Name as u32;
    }

    pub fn decorate(
        &mut self,
        target: Word,
        decoration: spirv::Decoration,
        params: impl IntoIterator<Item = Operand>,
    ) {
        inst_with(
            &mut self.annotations,
            Op::Decorate,
            &[target, decoration as u32],
            params,
        );
    }

    pub fn member_decorate(
        &mut self,
        structure: Word,
        member: u32,
        decoration: spirv::Decoration,
        params: impl IntoIterator<Item = Operand>,
    ) {
        inst_with(
            &mut self.annotations,
            Op::MemberDecorate,
            &[structure, member, decoration as u32],
            params,
        );
    }

    // ---- types (one id per distinct type) ----

    fn dedup_type(&mut self, op: Op, operands: &[u32]) -> Word {
        let mut key = Vec::with_capacity(operands.len() + 1);
        key.push(op as u32);
        key.extend_from_slice(operands);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = self.id();
        self.globals
            .push(((operands.len() as u32 + 2) << 16) | op as u32);
        self.globals.push(id);
        self.globals.extend_from_slice(operands);
        self.types.insert(key, id);
        id
    }

    pub fn type_void(&mut self) -> Word {
        self.dedup_type(Op::TypeVoid, &[])
    }

    pub fn type_bool(&mut self) -> Word {
        self.dedup_type(Op::TypeBool, &[])
    }

    pub fn type_int(&mut self, width: u32, signedness: u32) -> Word {
        self.dedup_type(Op::TypeInt, &[width, signedness])
    }

    pub fn type_float(&mut self, width: u32, encoding: Option<spirv::FPEncoding>) -> Word {
        match encoding {
            Some(e) => self.dedup_type(Op::TypeFloat, &[width, e as u32]),
            None => self.dedup_type(Op::TypeFloat, &[width]),
        }
    }

    pub fn type_vector(&mut self, component: Word, count: u32) -> Word {
        self.dedup_type(Op::TypeVector, &[component, count])
    }

    pub fn type_array(&mut self, element: Word, length: Word) -> Word {
        self.dedup_type(Op::TypeArray, &[element, length])
    }

    pub fn type_runtime_array(&mut self, element: Word) -> Word {
        self.dedup_type(Op::TypeRuntimeArray, &[element])
    }

    pub fn type_struct(&mut self, members: impl IntoIterator<Item = Word>) -> Word {
        let members: Vec<Word> = members.into_iter().collect();
        self.dedup_type(Op::TypeStruct, &members)
    }

    pub fn type_pointer(
        &mut self,
        result_id: Option<Word>,
        storage_class: spirv::StorageClass,
        pointee: Word,
    ) -> Word {
        match result_id {
            Some(id) => {
                inst(
                    &mut self.globals,
                    Op::TypePointer,
                    &[id, storage_class as u32, pointee],
                );
                id
            }
            None => self.dedup_type(Op::TypePointer, &[storage_class as u32, pointee]),
        }
    }

    pub fn type_function(
        &mut self,
        return_type: Word,
        parameters: impl IntoIterator<Item = Word>,
    ) -> Word {
        let mut w = vec![return_type];
        w.extend(parameters);
        self.dedup_type(Op::TypeFunction, &w)
    }

    // ---- constants and global values ----

    fn global(&mut self, op: Op, words: &[u32]) {
        inst(&mut self.globals, op, words);
    }

    pub fn constant_true(&mut self, ty: Word) -> Word {
        let id = self.id();
        self.global(Op::ConstantTrue, &[ty, id]);
        id
    }

    pub fn constant_false(&mut self, ty: Word) -> Word {
        let id = self.id();
        self.global(Op::ConstantFalse, &[ty, id]);
        id
    }

    pub fn constant_bit32(&mut self, ty: Word, value: u32) -> Word {
        let id = self.id();
        self.global(Op::Constant, &[ty, id, value]);
        id
    }

    pub fn constant_bit64(&mut self, ty: Word, value: u64) -> Word {
        let id = self.id();
        self.global(Op::Constant, &[ty, id, value as u32, (value >> 32) as u32]);
        id
    }

    pub fn spec_constant_bit32(&mut self, ty: Word, value: u32) -> Word {
        let id = self.id();
        self.global(Op::SpecConstant, &[ty, id, value]);
        id
    }

    pub fn spec_constant_composite(
        &mut self,
        ty: Word,
        constituents: impl IntoIterator<Item = Word>,
    ) -> Word {
        let id = self.id();
        let mut w = vec![ty, id];
        w.extend(constituents);
        self.global(Op::SpecConstantComposite, &w);
        id
    }

    /// `OpSpecConstantOp` of a binary operation.
    pub fn spec_constant_op(&mut self, ty: Word, op: Op, a: Word, b: Word) -> Word {
        let id = self.id();
        self.global(Op::SpecConstantOp, &[ty, id, op as u32, a, b]);
        id
    }

    /// A module-scope `OpVariable`.
    pub fn global_variable(&mut self, ptr_ty: Word, storage_class: spirv::StorageClass) -> Word {
        let id = self.id();
        self.global(Op::Variable, &[ptr_ty, id, storage_class as u32]);
        id
    }

    /// `OpVariable`: `Function` variables go to the start of the function's first block, others
    /// to the module.
    pub fn variable(
        &mut self,
        ty: Word,
        result_id: Option<Word>,
        storage_class: spirv::StorageClass,
        initializer: Option<Word>,
    ) -> Word {
        let id = self.id_or(result_id);
        let section = if storage_class == spirv::StorageClass::Function && self.in_function {
            &mut self.func_vars
        } else {
            &mut self.globals
        };
        match initializer {
            Some(init) => inst(section, Op::Variable, &[ty, id, storage_class as u32, init]),
            None => inst(section, Op::Variable, &[ty, id, storage_class as u32]),
        }
        id
    }

    /// A `Function` variable placed before all the others (created after the first block).
    pub fn first_function_variable(&mut self, ty: Word, initializer: Word) -> Word {
        let id = self.id();
        let mut w = Vec::with_capacity(5);
        inst(
            &mut w,
            Op::Variable,
            &[ty, id, spirv::StorageClass::Function as u32, initializer],
        );
        self.func_vars.splice(0..0, w);
        id
    }

    // ---- functions and blocks ----

    pub fn begin_function(
        &mut self,
        return_type: Word,
        function_id: Option<Word>,
        control: spirv::FunctionControl,
        function_type: Word,
    ) -> BuildResult<Word> {
        if self.in_function {
            return Err(Error::NestedFunction);
        }
        let id = self.id_or(function_id);
        self.in_function = true;
        self.first_label = None;
        inst(
            &mut self.func_head,
            Op::Function,
            &[return_type, id, control.bits(), function_type],
        );
        Ok(id)
    }

    pub fn function_parameter(&mut self, ty: Word) -> BuildResult<Word> {
        if !self.in_function {
            return Err(Error::DetachedFunctionParameter);
        }
        let id = self.id();
        inst(&mut self.func_head, Op::FunctionParameter, &[ty, id]);
        Ok(id)
    }

    pub fn begin_block(&mut self, label: Option<Word>) -> BuildResult<Word> {
        if !self.in_function {
            return Err(Error::DetachedBlock);
        }
        let id = self.id_or(label);
        if self.first_label.is_none() {
            self.first_label = Some(id);
        } else {
            inst(&mut self.func_body, Op::Label, &[id]);
        }
        Ok(id)
    }

    pub fn end_function(&mut self) -> BuildResult<()> {
        if !self.in_function {
            return Err(Error::MismatchedFunctionEnd);
        }
        self.functions.append(&mut self.func_head);
        if let Some(label) = self.first_label.take() {
            inst(&mut self.functions, Op::Label, &[label]);
        }
        self.functions.append(&mut self.func_vars);
        self.functions.append(&mut self.func_body);
        inst(&mut self.functions, Op::FunctionEnd, &[]);
        self.in_function = false;
        Ok(())
    }

    /// An instruction of the current block.
    fn code(&mut self, op: Op, words: &[u32]) -> BuildResult<()> {
        if !self.in_function {
            return Err(Error::DetachedInstruction(None));
        }
        inst(&mut self.func_body, op, words);
        Ok(())
    }

    /// An instruction of the current block with a result.
    fn result(
        &mut self,
        op: Op,
        ty: Word,
        id: Option<Word>,
        operands: &[Word],
    ) -> BuildResult<Word> {
        let id = self.id_or(id);
        if !self.in_function {
            return Err(Error::DetachedInstruction(None));
        }
        let b = &mut self.func_body;
        b.push(((operands.len() as u32 + 3) << 16) | op as u32);
        b.push(ty);
        b.push(id);
        b.extend_from_slice(operands);
        Ok(id)
    }

    fn result_with(
        &mut self,
        op: Op,
        ty: Word,
        id: Option<Word>,
        words: &[Word],
        operands: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let id = self.id_or(id);
        if !self.in_function {
            return Err(Error::DetachedInstruction(None));
        }
        let mut w = Vec::with_capacity(words.len() + 2);
        w.push(ty);
        w.push(id);
        w.extend_from_slice(words);
        inst_with(&mut self.func_body, op, &w, operands);
        Ok(id)
    }

    // ---- terminators and merges ----

    pub fn branch(&mut self, target: Word) -> BuildResult<()> {
        self.code(Op::Branch, &[target])
    }

    pub fn branch_conditional(
        &mut self,
        condition: Word,
        true_label: Word,
        false_label: Word,
        weights: impl IntoIterator<Item = u32>,
    ) -> BuildResult<()> {
        let mut w = vec![condition, true_label, false_label];
        w.extend(weights);
        self.code(Op::BranchConditional, &w)
    }

    pub fn ret(&mut self) -> BuildResult<()> {
        self.code(Op::Return, &[])
    }

    pub fn ret_value(&mut self, value: Word) -> BuildResult<()> {
        self.code(Op::ReturnValue, &[value])
    }

    pub fn unreachable(&mut self) -> BuildResult<()> {
        self.code(Op::Unreachable, &[])
    }

    pub fn selection_merge(
        &mut self,
        merge: Word,
        control: spirv::SelectionControl,
    ) -> BuildResult<()> {
        self.code(Op::SelectionMerge, &[merge, control.bits()])
    }

    pub fn loop_merge(
        &mut self,
        merge: Word,
        continue_target: Word,
        control: spirv::LoopControl,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        if !self.in_function {
            return Err(Error::DetachedInstruction(None));
        }
        inst_with(
            &mut self.func_body,
            Op::LoopMerge,
            &[merge, continue_target, control.bits()],
            params,
        );
        Ok(())
    }

    // ---- instructions whose operands are not all ids ----

    pub fn load(
        &mut self,
        ty: Word,
        id: Option<Word>,
        pointer: Word,
        access: Option<spirv::MemoryAccess>,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        match access {
            Some(a) => self.result_with(Op::Load, ty, id, &[pointer, a.bits()], params),
            None => self.result(Op::Load, ty, id, &[pointer]),
        }
    }

    pub fn store(
        &mut self,
        pointer: Word,
        object: Word,
        access: Option<spirv::MemoryAccess>,
        params: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<()> {
        if !self.in_function {
            return Err(Error::DetachedInstruction(None));
        }
        match access {
            Some(a) => inst_with(
                &mut self.func_body,
                Op::Store,
                &[pointer, object, a.bits()],
                params,
            ),
            None => inst(&mut self.func_body, Op::Store, &[pointer, object]),
        }
        Ok(())
    }

    pub fn access_chain(
        &mut self,
        ty: Word,
        id: Option<Word>,
        base: Word,
        indexes: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let mut w = vec![base];
        w.extend(indexes);
        self.result(Op::AccessChain, ty, id, &w)
    }

    pub fn ptr_access_chain(
        &mut self,
        ty: Word,
        id: Option<Word>,
        base: Word,
        element: Word,
        indexes: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let mut w = vec![base, element];
        w.extend(indexes);
        self.result(Op::PtrAccessChain, ty, id, &w)
    }

    // ---- images (textures) ----

    // rspirv's signature, kept so that emitter code reads the same.
    #[allow(clippy::too_many_arguments)]
    pub fn type_image(
        &mut self,
        sampled_type: Word,
        dim: spirv::Dim,
        depth: u32,
        arrayed: u32,
        ms: u32,
        sampled: u32,
        image_format: spirv::ImageFormat,
        access_qualifier: Option<spirv::AccessQualifier>,
    ) -> Word {
        let mut w = vec![
            sampled_type,
            dim as u32,
            depth,
            arrayed,
            ms,
            sampled,
            image_format as u32,
        ];
        w.extend(access_qualifier.map(|a| a as u32));
        self.dedup_type(Op::TypeImage, &w)
    }

    pub fn type_sampled_image(&mut self, image_type: Word) -> Word {
        self.dedup_type(Op::TypeSampledImage, &[image_type])
    }

    /// `OpConstantComposite` (not deduplicated, as in rspirv).
    pub fn constant_composite(
        &mut self,
        ty: Word,
        constituents: impl IntoIterator<Item = Word>,
    ) -> Word {
        let id = self.id();
        let mut w = vec![ty, id];
        w.extend(constituents);
        self.global(Op::ConstantComposite, &w);
        id
    }

    pub fn image(&mut self, ty: Word, id: Option<Word>, sampled_image: Word) -> BuildResult<Word> {
        self.result(Op::Image, ty, id, &[sampled_image])
    }

    pub fn image_sample_explicit_lod(
        &mut self,
        ty: Word,
        id: Option<Word>,
        sampled_image: Word,
        coordinate: Word,
        image_operands: spirv::ImageOperands,
        additional: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let words = [sampled_image, coordinate, image_operands.bits()];
        self.result_with(Op::ImageSampleExplicitLod, ty, id, &words, additional)
    }

    // rspirv's signature, kept so that emitter code reads the same.
    #[allow(clippy::too_many_arguments)]
    pub fn image_sample_dref_explicit_lod(
        &mut self,
        ty: Word,
        id: Option<Word>,
        sampled_image: Word,
        coordinate: Word,
        dref: Word,
        image_operands: spirv::ImageOperands,
        additional: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let words = [sampled_image, coordinate, dref, image_operands.bits()];
        self.result_with(Op::ImageSampleDrefExplicitLod, ty, id, &words, additional)
    }

    pub fn image_fetch(
        &mut self,
        ty: Word,
        id: Option<Word>,
        image: Word,
        coordinate: Word,
        image_operands: Option<spirv::ImageOperands>,
        additional: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let mut words = vec![image, coordinate];
        words.extend(image_operands.map(|m| m.bits()));
        self.result_with(Op::ImageFetch, ty, id, &words, additional)
    }

    // rspirv's signature, kept so that emitter code reads the same.
    #[allow(clippy::too_many_arguments)]
    pub fn image_gather(
        &mut self,
        ty: Word,
        id: Option<Word>,
        sampled_image: Word,
        coordinate: Word,
        component: Word,
        image_operands: Option<spirv::ImageOperands>,
        additional: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let mut words = vec![sampled_image, coordinate, component];
        words.extend(image_operands.map(|m| m.bits()));
        self.result_with(Op::ImageGather, ty, id, &words, additional)
    }

    // rspirv's signature, kept so that emitter code reads the same.
    #[allow(clippy::too_many_arguments)]
    pub fn image_dref_gather(
        &mut self,
        ty: Word,
        id: Option<Word>,
        sampled_image: Word,
        coordinate: Word,
        dref: Word,
        image_operands: Option<spirv::ImageOperands>,
        additional: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        let mut words = vec![sampled_image, coordinate, dref];
        words.extend(image_operands.map(|m| m.bits()));
        self.result_with(Op::ImageDrefGather, ty, id, &words, additional)
    }

    pub fn read_clock_khr(&mut self, ty: Word, id: Option<Word>, scope: Word) -> BuildResult<Word> {
        self.result(Op::ReadClockKHR, ty, id, &[scope])
    }

    pub fn composite_construct(
        &mut self,
        ty: Word,
        id: Option<Word>,
        constituents: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let w: Vec<Word> = constituents.into_iter().collect();
        self.result(Op::CompositeConstruct, ty, id, &w)
    }

    pub fn composite_extract(
        &mut self,
        ty: Word,
        id: Option<Word>,
        composite: Word,
        indexes: impl IntoIterator<Item = u32>,
    ) -> BuildResult<Word> {
        let mut w = vec![composite];
        w.extend(indexes);
        self.result(Op::CompositeExtract, ty, id, &w)
    }

    pub fn composite_insert(
        &mut self,
        ty: Word,
        id: Option<Word>,
        object: Word,
        composite: Word,
        indexes: impl IntoIterator<Item = u32>,
    ) -> BuildResult<Word> {
        let mut w = vec![object, composite];
        w.extend(indexes);
        self.result(Op::CompositeInsert, ty, id, &w)
    }

    pub fn vector_shuffle(
        &mut self,
        ty: Word,
        id: Option<Word>,
        vector_1: Word,
        vector_2: Word,
        components: impl IntoIterator<Item = u32>,
    ) -> BuildResult<Word> {
        let mut w = vec![vector_1, vector_2];
        w.extend(components);
        self.result(Op::VectorShuffle, ty, id, &w)
    }

    pub fn function_call(
        &mut self,
        ty: Word,
        id: Option<Word>,
        function: Word,
        arguments: impl IntoIterator<Item = Word>,
    ) -> BuildResult<Word> {
        let mut w = vec![function];
        w.extend(arguments);
        self.result(Op::FunctionCall, ty, id, &w)
    }

    pub fn ext_inst(
        &mut self,
        ty: Word,
        id: Option<Word>,
        set: Word,
        instruction: u32,
        operands: impl IntoIterator<Item = Operand>,
    ) -> BuildResult<Word> {
        self.result_with(Op::ExtInst, ty, id, &[set, instruction], operands)
    }

    pub fn phi(
        &mut self,
        ty: Word,
        id: Option<Word>,
        incoming: impl IntoIterator<Item = (Word, Word)>,
    ) -> BuildResult<Word> {
        let w: Vec<Word> = incoming.into_iter().flat_map(|(v, b)| [v, b]).collect();
        self.result(Op::Phi, ty, id, &w)
    }
}

/// Instructions whose operands are all ids: `name(result_type, result_id, operands...)`, or
/// without a result: `name(operands...)`, as in rspirv's builder.
macro_rules! id_ops {
    ($($name:ident $op:ident ($($arg:ident),*);)*) => {
        impl Builder {
            $(
                // rspirv's calling convention, kept so that emitter code reads the same.
                #[allow(clippy::too_many_arguments)]
                pub fn $name(&mut self, ty: Word, id: Option<Word>, $($arg: Word),*) -> BuildResult<Word> {
                    self.result(Op::$op, ty, id, &[$($arg),*])
                }
            )*
        }
    };
}

macro_rules! void_ops {
    ($($name:ident $op:ident ($($arg:ident),*);)*) => {
        impl Builder {
            $(
                pub fn $name(&mut self, $($arg: Word),*) -> BuildResult<()> {
                    self.code(Op::$op, &[$($arg),*])
                }
            )*
        }
    };
}

/// Subgroup reductions and scans: `(execution scope, group operation, value, cluster size)`.
macro_rules! group_ops {
    ($($name:ident $op:ident;)*) => {
        impl Builder {
            $(
                pub fn $name(
                    &mut self,
                    ty: Word,
                    id: Option<Word>,
                    execution: Word,
                    operation: spirv::GroupOperation,
                    value: Word,
                    cluster_size: Option<Word>,
                ) -> BuildResult<Word> {
                    match cluster_size {
                        Some(c) => self.result(Op::$op, ty, id, &[execution, operation as u32, value, c]),
                        None => self.result(Op::$op, ty, id, &[execution, operation as u32, value]),
                    }
                }
            )*
        }
    };
}

void_ops! {
    control_barrier ControlBarrier (execution, memory, semantics);
    memory_barrier MemoryBarrier (memory, semantics);
    atomic_store AtomicStore (pointer, memory, semantics, value);
    atomic_flag_clear AtomicFlagClear (pointer, memory, semantics);
}

group_ops! {
    group_non_uniform_i_add GroupNonUniformIAdd;
    group_non_uniform_f_add GroupNonUniformFAdd;
    group_non_uniform_i_mul GroupNonUniformIMul;
    group_non_uniform_f_mul GroupNonUniformFMul;
    group_non_uniform_s_min GroupNonUniformSMin;
    group_non_uniform_u_min GroupNonUniformUMin;
    group_non_uniform_f_min GroupNonUniformFMin;
    group_non_uniform_s_max GroupNonUniformSMax;
    group_non_uniform_u_max GroupNonUniformUMax;
    group_non_uniform_f_max GroupNonUniformFMax;
    group_non_uniform_bitwise_and GroupNonUniformBitwiseAnd;
    group_non_uniform_bitwise_or GroupNonUniformBitwiseOr;
    group_non_uniform_bitwise_xor GroupNonUniformBitwiseXor;
    group_non_uniform_logical_and GroupNonUniformLogicalAnd;
    group_non_uniform_logical_or GroupNonUniformLogicalOr;
    group_non_uniform_logical_xor GroupNonUniformLogicalXor;
}

id_ops! {
    copy_object CopyObject (operand);
    vector_extract_dynamic VectorExtractDynamic (vector, index);
    vector_insert_dynamic VectorInsertDynamic (vector, component, index);
    convert_f_to_u ConvertFToU (float_value);
    convert_f_to_s ConvertFToS (float_value);
    convert_s_to_f ConvertSToF (signed_value);
    convert_u_to_f ConvertUToF (unsigned_value);
    u_convert UConvert (unsigned_value);
    s_convert SConvert (signed_value);
    f_convert FConvert (float_value);
    quantize_to_f16 QuantizeToF16 (value);
    convert_ptr_to_u ConvertPtrToU (pointer);
    convert_u_to_ptr ConvertUToPtr (integer_value);
    bitcast Bitcast (operand);
    s_negate SNegate (operand);
    f_negate FNegate (operand);
    i_add IAdd (operand_1, operand_2);
    f_add FAdd (operand_1, operand_2);
    i_sub ISub (operand_1, operand_2);
    f_sub FSub (operand_1, operand_2);
    i_mul IMul (operand_1, operand_2);
    f_mul FMul (operand_1, operand_2);
    u_div UDiv (operand_1, operand_2);
    s_div SDiv (operand_1, operand_2);
    f_div FDiv (operand_1, operand_2);
    u_mod UMod (operand_1, operand_2);
    s_rem SRem (operand_1, operand_2);
    s_mod SMod (operand_1, operand_2);
    f_rem FRem (operand_1, operand_2);
    f_mod FMod (operand_1, operand_2);
    vector_times_scalar VectorTimesScalar (vector, scalar);
    dot Dot (vector_1, vector_2);
    i_add_carry IAddCarry (operand_1, operand_2);
    i_sub_borrow ISubBorrow (operand_1, operand_2);
    u_mul_extended UMulExtended (operand_1, operand_2);
    s_mul_extended SMulExtended (operand_1, operand_2);
    any Any (vector);
    all All (vector);
    is_nan IsNan (x);
    is_inf IsInf (x);
    is_finite IsFinite (x);
    is_normal IsNormal (x);
    sign_bit_set SignBitSet (x);
    ordered Ordered (x, y);
    unordered Unordered (x, y);
    logical_equal LogicalEqual (operand_1, operand_2);
    logical_not_equal LogicalNotEqual (operand_1, operand_2);
    logical_or LogicalOr (operand_1, operand_2);
    logical_and LogicalAnd (operand_1, operand_2);
    logical_not LogicalNot (operand);
    select Select (condition, object_1, object_2);
    i_equal IEqual (operand_1, operand_2);
    i_not_equal INotEqual (operand_1, operand_2);
    u_greater_than UGreaterThan (operand_1, operand_2);
    s_greater_than SGreaterThan (operand_1, operand_2);
    u_greater_than_equal UGreaterThanEqual (operand_1, operand_2);
    s_greater_than_equal SGreaterThanEqual (operand_1, operand_2);
    u_less_than ULessThan (operand_1, operand_2);
    s_less_than SLessThan (operand_1, operand_2);
    u_less_than_equal ULessThanEqual (operand_1, operand_2);
    s_less_than_equal SLessThanEqual (operand_1, operand_2);
    f_ord_equal FOrdEqual (operand_1, operand_2);
    f_unord_equal FUnordEqual (operand_1, operand_2);
    f_ord_not_equal FOrdNotEqual (operand_1, operand_2);
    f_unord_not_equal FUnordNotEqual (operand_1, operand_2);
    f_ord_less_than FOrdLessThan (operand_1, operand_2);
    f_unord_less_than FUnordLessThan (operand_1, operand_2);
    f_ord_greater_than FOrdGreaterThan (operand_1, operand_2);
    f_unord_greater_than FUnordGreaterThan (operand_1, operand_2);
    f_ord_less_than_equal FOrdLessThanEqual (operand_1, operand_2);
    f_unord_less_than_equal FUnordLessThanEqual (operand_1, operand_2);
    f_ord_greater_than_equal FOrdGreaterThanEqual (operand_1, operand_2);
    f_unord_greater_than_equal FUnordGreaterThanEqual (operand_1, operand_2);
    shift_right_logical ShiftRightLogical (base, shift);
    shift_right_arithmetic ShiftRightArithmetic (base, shift);
    shift_left_logical ShiftLeftLogical (base, shift);
    bitwise_or BitwiseOr (operand_1, operand_2);
    bitwise_xor BitwiseXor (operand_1, operand_2);
    bitwise_and BitwiseAnd (operand_1, operand_2);
    not Not (operand);
    bit_field_insert BitFieldInsert (base, insert, offset, count);
    bit_field_s_extract BitFieldSExtract (base, offset, count);
    bit_field_u_extract BitFieldUExtract (base, offset, count);
    bit_reverse BitReverse (base);
    bit_count BitCount (base);
    atomic_load AtomicLoad (pointer, memory, semantics);
    atomic_exchange AtomicExchange (pointer, memory, semantics, value);
    atomic_compare_exchange AtomicCompareExchange (pointer, memory, equal, unequal, value, comparator);
    atomic_i_increment AtomicIIncrement (pointer, memory, semantics);
    atomic_i_decrement AtomicIDecrement (pointer, memory, semantics);
    atomic_i_add AtomicIAdd (pointer, memory, semantics, value);
    atomic_i_sub AtomicISub (pointer, memory, semantics, value);
    atomic_s_min AtomicSMin (pointer, memory, semantics, value);
    atomic_u_min AtomicUMin (pointer, memory, semantics, value);
    atomic_s_max AtomicSMax (pointer, memory, semantics, value);
    atomic_u_max AtomicUMax (pointer, memory, semantics, value);
    atomic_and AtomicAnd (pointer, memory, semantics, value);
    atomic_or AtomicOr (pointer, memory, semantics, value);
    atomic_xor AtomicXor (pointer, memory, semantics, value);
    atomic_f_add_ext AtomicFAddEXT (pointer, memory, semantics, value);
    atomic_f_min_ext AtomicFMinEXT (pointer, memory, semantics, value);
    atomic_f_max_ext AtomicFMaxEXT (pointer, memory, semantics, value);
    group_non_uniform_elect GroupNonUniformElect (execution);
    group_non_uniform_all GroupNonUniformAll (execution, predicate);
    group_non_uniform_any GroupNonUniformAny (execution, predicate);
    group_non_uniform_all_equal GroupNonUniformAllEqual (execution, value);
    group_non_uniform_broadcast GroupNonUniformBroadcast (execution, value, id);
    group_non_uniform_broadcast_first GroupNonUniformBroadcastFirst (execution, value);
    group_non_uniform_ballot GroupNonUniformBallot (execution, predicate);
    group_non_uniform_inverse_ballot GroupNonUniformInverseBallot (execution, value);
    group_non_uniform_ballot_bit_extract GroupNonUniformBallotBitExtract (execution, value, index);
    group_non_uniform_ballot_find_lsb GroupNonUniformBallotFindLSB (execution, value);
    group_non_uniform_ballot_find_msb GroupNonUniformBallotFindMSB (execution, value);
    group_non_uniform_shuffle GroupNonUniformShuffle (execution, value, id);
    group_non_uniform_shuffle_xor GroupNonUniformShuffleXor (execution, value, mask);
    group_non_uniform_shuffle_up GroupNonUniformShuffleUp (execution, value, delta);
    group_non_uniform_shuffle_down GroupNonUniformShuffleDown (execution, value, delta);
    group_non_uniform_quad_broadcast GroupNonUniformQuadBroadcast (execution, value, index);
    group_non_uniform_quad_swap GroupNonUniformQuadSwap (execution, value, direction);
    ptr_equal PtrEqual (operand_1, operand_2);
    ptr_not_equal PtrNotEqual (operand_1, operand_2);
    ptr_diff PtrDiff (operand_1, operand_2);
    undef Undef ();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same calls through rspirv's builder and this one give the same words.
    #[test]
    fn same_words_as_rspirv() {
        use rspirv::binary::Assemble as _;
        use spirv::{Capability, Decoration, StorageClass};
        let mut r = rspirv::dr::Builder::new();
        let mut o = Builder::new();
        r.set_version(1, 5);
        o.set_version(1, 5);
        r.capability(Capability::Shader);
        o.capability(Capability::Shader);
        r.extension("SPV_EXT_shader_atomic_float_add");
        o.extension("SPV_EXT_shader_atomic_float_add");
        let (gr, go) = (
            r.ext_inst_import("GLSL.std.450"),
            o.ext_inst_import("GLSL.std.450"),
        );
        assert_eq!(gr, go);
        r.memory_model(
            spirv::AddressingModel::PhysicalStorageBuffer64,
            spirv::MemoryModel::Vulkan,
        );
        o.memory_model(
            spirv::AddressingModel::PhysicalStorageBuffer64,
            spirv::MemoryModel::Vulkan,
        );
        macro_rules! both {
            ($($call:tt)*) => {{
                let a = r.$($call)*;
                let b = o.$($call)*;
                // rspirv's error type has no `PartialEq`.
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
                a
            }};
        }
        let u32t = both!(type_int(32, 0));
        assert_eq!(u32t, both!(type_int(32, 0)));
        let void = both!(type_void());
        let fnty = both!(type_function(void, []));
        let pt = both!(type_pointer(None, StorageClass::Function, u32t));
        let k = both!(constant_bit32(u32t, 7));
        let k64 = both!(type_int(64, 0));
        let _ = both!(constant_bit64(k64, 0x1234_5678_9abc));
        both!(decorate(k, Decoration::SpecId, [Operand::LiteralBit32(3)]));
        let f = both!(id());
        r.name(f, "kernel_name");
        o.name(f, "kernel_name");
        both!(begin_function(
            void,
            Some(f),
            spirv::FunctionControl::NONE,
            fnty
        ))
        .unwrap();
        both!(begin_block(None)).unwrap();
        let v = both!(variable(pt, None, StorageClass::Function, None));
        let x = both!(load(u32t, None, v, None, [])).unwrap();
        let y = both!(i_add(u32t, None, x, k)).unwrap();
        both!(store(v, y, Some(spirv::MemoryAccess::VOLATILE), [])).unwrap();
        let glsl = gr;
        let _ = both!(ext_inst(
            u32t,
            None,
            glsl,
            42,
            [Operand::IdRef(x), Operand::IdRef(y)]
        ))
        .unwrap();
        // Images (textures) and the clock.
        let f32t = both!(type_float(32, None));
        let v4 = both!(type_vector(f32t, 4));
        let v2 = both!(type_vector(u32t, 2));
        let img = both!(type_image(
            f32t,
            spirv::Dim::Dim2D,
            0,
            1,
            0,
            1,
            spirv::ImageFormat::Unknown,
            None
        ));
        let si = both!(type_sampled_image(img));
        let coord = both!(constant_composite(v2, [k, k]));
        use spirv::ImageOperands as Io;
        let _ = both!(image(img, None, si)).unwrap();
        let lod = [Operand::IdRef(k)];
        let _ = both!(image_sample_explicit_lod(
            v4,
            None,
            si,
            coord,
            Io::LOD,
            lod.clone()
        ))
        .unwrap();
        let _ = both!(image_sample_dref_explicit_lod(
            f32t,
            None,
            si,
            coord,
            k,
            Io::LOD,
            lod.clone()
        ))
        .unwrap();
        let _ = both!(image_fetch(
            v4,
            None,
            img,
            coord,
            Some(Io::LOD),
            lod.clone()
        ))
        .unwrap();
        let _ = both!(image_fetch(v4, None, img, coord, None, [])).unwrap();
        let _ = both!(image_gather(v4, None, si, coord, k, None, [])).unwrap();
        let _ = both!(image_dref_gather(
            v4,
            None,
            si,
            coord,
            k,
            Some(Io::CONST_OFFSET),
            [Operand::IdRef(coord)]
        ))
        .unwrap();
        let _ = both!(read_clock_khr(k64, None, k)).unwrap();
        both!(ret()).unwrap();
        both!(end_function()).unwrap();
        r.entry_point(spirv::ExecutionModel::GLCompute, f, "kernel_name", [v]);
        o.entry_point(spirv::ExecutionModel::GLCompute, f, "kernel_name", [v]);
        r.execution_mode(f, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
        o.execution_mode(f, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
        assert_eq!(r.module().assemble(), o.module_words());
    }
}
