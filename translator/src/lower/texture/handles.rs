//! Which texture slot a texture operand names: handle registers are traced back to the kernel
//! parameter or `.texref` they were loaded from, and each slot's record and binding are
//! reached through the kernel's table (`slots`).

use crate::check::Map as HashMap;
use crate::ir::build::Build;

use super::super::cx::Cx;
use super::slots::SlotKey;
use crate::check::inst::TexOperand;
use crate::check::{self, AddrBase, Dst, FnParam, RegId, Src, Statement, VarRef};
use crate::ir::{BinOp, Builtin, MemOrder, Op, Ptr, Ty, ValueId};
use crate::texture::{Geometry, SamplerSource, TextureBinding, TextureSource};
use crate::types::StateSpace;

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
        let base = self.b.emit(Ty::I64, Op::Builtin(Builtin::ParamBase));
        let off = self.b.konst(Ty::I64, u64::from(off));
        let addr = self.b.bin(BinOp::IAdd, base, off);
        self.b.emit(
            Ty::I32,
            Op::Load {
                ptr: Ptr::Global(addr),
                align: 4,
                order: MemOrder::Plain,
            },
        )
    }

    pub(super) fn f32(&mut self, v: f32) -> ValueId {
        self.b.konst(Ty::F32, u64::from(v.to_bits()))
    }

    pub(super) fn i32(&mut self, v: i32) -> ValueId {
        self.b.konst(Ty::I32, u64::from(v as u32))
    }
}
