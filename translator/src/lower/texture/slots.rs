//! Which textures a kernel reads: slots (a parameter or a `.texref`), traced from the handle
//! registers, their records in the parameter block, and the descriptor bindings.

use crate::check::Map as HashMap;
use std::cell::RefCell;

use super::super::cx::Cx;
use crate::check::inst::TexOperand;
use crate::check::{
    self, AddrBase, Dst, FnParam, GlobalId, LocalId, RegId, Src, Statement, VarRef,
};
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, BinOp, Builtin, MemOrder, Op, Ptr, Ty, ValueId, VarId};
use crate::texture::{
    Geometry, SamplerSource, TextureAbi, TextureBinding, TextureSlot, TextureSource, record,
};
use crate::types::StateSpace;

/// Where a slot's texture comes from, as the checker names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SlotKey {
    Param(LocalId),
    Global(GlobalId),
}

/// The textures of the kernel being lowered (shared by its functions).
pub struct KernelTextures {
    slots: Vec<(SlotKey, TextureSlot)>,
    bindings: Vec<TextureBinding>,
    records_offset: u32,
    /// Registers of the kernel function assumed to hold a parameter's handle: each must be
    /// written exactly once (checked once the kernel is lowered).
    assumed: Vec<(VarId, Span, String)>,
    /// Per function: registers that hold a known texture handle.
    traces: HashMap<check::FuncId, HashMap<RegId, SlotKey>>,
}

impl KernelTextures {
    /// Records go after the kernel's parameters, 16-byte aligned.
    pub fn new(param_block_size: u32) -> RefCell<KernelTextures> {
        RefCell::new(KernelTextures {
            slots: Vec::new(),
            bindings: Vec::new(),
            records_offset: param_block_size.next_multiple_of(16),
            assumed: Vec::new(),
            traces: HashMap::default(),
        })
    }

    /// The ABI and the bindings once every function is lowered, after checking that the
    /// registers assumed to hold parameters' handles are written once only (`kernel` is the
    /// kernel's IR function).
    pub fn finish(
        self,
        kernel: &ir::Function,
    ) -> Result<(TextureAbi, Vec<TextureBinding>), Vec<Diagnostic>> {
        let mut diags = Vec::new();
        for (var, span, reg) in &self.assumed {
            let stores = kernel
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .filter(|i| matches!(i.op, Op::StoreVar(v, _) if v == *var))
                .count();
            if stores != 1 && !diags.iter().any(|d: &Diagnostic| d.span == *span) {
                diags.push(
                    Diagnostic::error(
                        *span,
                        format!(
                            "the texture handle in `{reg}` must come straight from a kernel parameter, but `{reg}` is written {stores} times"
                        ),
                    )
                    .with_label("ptxvk binds each launch's textures to the parameters that name them"),
                );
            }
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        let abi = TextureAbi {
            records_bytes: if self.slots.is_empty() {
                0
            } else {
                (self.records_offset + record::BYTES * self.slots.len() as u32)
                    .saturating_sub(self.records_offset)
            },
            slots: self.slots.into_iter().map(|(_, s)| s).collect(),
            bindings: self.bindings.clone(),
        };
        Ok((abi, self.bindings))
    }

    fn slot(&mut self, key: SlotKey, source: TextureSource) -> u32 {
        if let Some(i) = self.slots.iter().position(|(k, _)| *k == key) {
            return i as u32;
        }
        let i = self.slots.len() as u32;
        self.slots.push((
            key,
            TextureSlot {
                source,
                record_offset: self.records_offset + i * record::BYTES,
            },
        ));
        i
    }

    fn binding(&mut self, b: TextureBinding) -> u32 {
        if let Some(i) = self.bindings.iter().position(|x| *x == b) {
            return i as u32;
        }
        self.bindings.push(b);
        self.bindings.len() as u32 - 1
    }
}

/// Registers of `func` that hold a texture handle known at translation time: written by
/// `ld.param` of a 64-bit kernel parameter, by `mov` of a `.texref`'s address, or by `mov`
/// from such a register. Registers written in two different such ways are left out.
fn trace(cx: &Cx<'_>) -> HashMap<RegId, SlotKey> {
    let mut found: HashMap<RegId, Option<SlotKey>> = HashMap::default();
    let body = cx.func.body.as_deref().unwrap_or_default();
    let insts: Vec<&check::Inst> = body
        .iter()
        .filter_map(|s| match s {
            Statement::Inst(i) => Some(i),
            Statement::Label(_) => None,
        })
        .collect();
    let whole = |d: &Dst| match d {
        Dst::Reg {
            reg,
            comp: None,
            ty,
            ..
        } if ty.bits() == 64 => Some(*reg),
        _ => None,
    };
    let note = |found: &mut HashMap<RegId, Option<SlotKey>>, r: RegId, k: SlotKey| {
        let e = found.entry(r).or_insert(Some(k));
        if *e != Some(k) {
            *e = None;
        }
    };
    // Twice: a `mov` may come before, in program order, the write it copies.
    for _ in 0..2 {
        for i in &insts {
            match &i.op {
                check::inst::Op::Ld(l)
                    if l.space == StateSpace::Param && l.vec == 1 && l.ty.bits() == 64 =>
                {
                    if let (AddrBase::Var(VarRef::Local(p)), 0, Some(r)) =
                        (&l.addr.base, l.addr.offset, whole(&l.dst))
                        && cx.params.contains_key(p)
                    {
                        note(&mut found, r, SlotKey::Param(*p));
                    }
                }
                check::inst::Op::Mov(m) if m.ty.bits() == 64 => {
                    let Some(r) = whole(&m.dst) else { continue };
                    match &m.src {
                        Src::AddressOf(a)
                            if let (VarRef::Global(g), 0) = **a
                                && cx.module.global(g).opaque.is_some() =>
                        {
                            note(&mut found, r, SlotKey::Global(g));
                        }
                        Src::Reg {
                            reg, comp: None, ..
                        } => {
                            if let Some(Some(k)) = found.get(reg).copied() {
                                note(&mut found, r, k);
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(r, k)| k.map(|k| (r, k)))
        .collect()
}

impl Cx<'_> {
    /// The slot of a texture operand, or `None` (reported) when it cannot be known.
    pub(super) fn texture_slot(&mut self, t: &TexOperand) -> Option<u32> {
        let key = match t {
            TexOperand::Var(VarRef::Global(g)) => SlotKey::Global(*g),
            TexOperand::Var(VarRef::Local(l)) => SlotKey::Param(*l),
            TexOperand::Reg(r) => {
                let fid = self.func_id;
                let tc = self.textures;
                if !tc.borrow().traces.contains_key(&fid) {
                    let t = trace(self);
                    tc.borrow_mut().traces.insert(fid, t);
                }
                let known = tc.borrow().traces.get(&fid).and_then(|t| t.get(r)).copied();
                let name = self.func.reg(*r).name.clone();
                let Some(key) = known else {
                    self.unsupported(format!(
                        "a texture handle that is not a kernel parameter or a .texref (`{name}` is loaded from memory, computed, or written in several ways)"
                    ));
                    return None;
                };
                if let SlotKey::Param(_) = key {
                    let var = self.reg_var(*r, None);
                    let span = self.span;
                    self.textures
                        .borrow_mut()
                        .assumed
                        .push((var, span, name.to_string()));
                }
                key
            }
        };
        let source = match key {
            SlotKey::Global(g) => TextureSource::TexRef {
                name: self.module.global(g).name.clone(),
            },
            SlotKey::Param(l) => {
                let index = self
                    .func
                    .params
                    .iter()
                    .position(|p| *p == FnParam::Var(l))
                    .unwrap_or(0) as u32;
                TextureSource::Param {
                    index,
                    name: self.func.var(l).name.clone(),
                }
            }
        };
        Some(self.textures.borrow_mut().slot(key, source))
    }

    /// The sampler of a `.samplerref` operand (independent mode) or the texture's own.
    pub(super) fn sampler_source(&mut self, s: &Option<TexOperand>) -> Option<SamplerSource> {
        match s {
            None => Some(SamplerSource::Texture),
            Some(TexOperand::Var(VarRef::Global(g))) => Some(SamplerSource::Static(
                self.module.global(*g).sampler_init.unwrap_or_default(),
            )),
            Some(_) => {
                self.unsupported("samplers passed as kernel parameters (`.param .samplerref`)");
                None
            }
        }
    }

    /// The binding number for `b`, refusing what the device cannot bind.
    pub(super) fn texture_binding(&mut self, b: TextureBinding) -> u32 {
        if b.geometry == Geometry::ACube && !self.profile.image_cube_array {
            self.missing_feature("cubemap-array textures (imageCubeArray)");
        }
        let n = self.textures.borrow_mut().binding(b);
        let max = self.profile.max_texture_bindings;
        if n == max {
            self.missing_feature(&format!(
                "more than {max} texture bindings (maxPerStageDescriptorSamplers)"
            ));
        }
        n
    }

    /// Word `word` of slot `slot`'s record (u32).
    pub(super) fn record_word(&mut self, slot: u32, word: u32) -> ValueId {
        let off = self.textures.borrow().slots[slot as usize].1.record_offset + 4 * word;
        let base = self.emit(Ty::I64, Op::Builtin(Builtin::ParamBase));
        let off = self.konst(Ty::I64, u64::from(off));
        let addr = self.bin(BinOp::IAdd, base, off);
        self.emit(
            Ty::I32,
            Op::Load {
                ptr: Ptr::Global(addr),
                align: 4,
                order: MemOrder::Plain,
            },
        )
    }

    pub(super) fn f32(&mut self, v: f32) -> ValueId {
        self.konst(Ty::F32, u64::from(v.to_bits()))
    }

    pub(super) fn i32(&mut self, v: i32) -> ValueId {
        self.konst(Ty::I32, u64::from(v as u32))
    }
}
