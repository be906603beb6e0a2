//! Texture operations: one `UniformConstant` combined-image-sampler variable per binding of
//! descriptor set 0, and the explicit-LOD sample, fetch and gather instructions on them.

use rspirv::spirv::{self, Capability, Decoration, ImageOperands, Op as S, StorageClass, Word};

use super::func::FnEmitter;
use super::module::{EmitError, EmitResult, Emitter, TexVar};
use crate::ir::{TexOp, TexOpKind, Ty};
use crate::texture::{Geometry, SampledKind};

impl Emitter {
    fn texture_var(&mut self, binding: u32) -> EmitResult<TexVar> {
        if let Some(v) = self.tex_vars.get(&binding) {
            return Ok(*v);
        }
        let b = self
            .textures
            .get(binding as usize)
            .cloned()
            .ok_or_else(|| {
                EmitError::Internal(Box::new(format!("no texture binding {binding}")))
            })?;
        let texel = match b.kind {
            SampledKind::Float => self.ty(Ty::F32),
            // Vulkan wants the sampled type's signedness to match the format's.
            SampledKind::Sint => self.type_once(S::TypeInt, &[32, 1]),
            SampledKind::Uint => self.ty(Ty::I32),
        };
        let dim = match b.geometry {
            Geometry::D1 | Geometry::A1D => {
                self.cap(Capability::Sampled1D);
                spirv::Dim::Dim1D
            }
            Geometry::D2 | Geometry::A2D => spirv::Dim::Dim2D,
            Geometry::D3 => spirv::Dim::Dim3D,
            Geometry::Cube | Geometry::ACube => spirv::Dim::DimCube,
        };
        if b.geometry == Geometry::ACube {
            self.cap(Capability::SampledCubeArray);
        }
        // Not multisampled, used with a sampler.
        let image = self.type_once(
            S::TypeImage,
            &[
                texel,
                dim as Word,
                u32::from(b.compare),
                u32::from(b.geometry.is_array()),
                0,
                1,
                spirv::ImageFormat::Unknown as Word,
            ],
        );
        let sampled_image = self.type_once(S::TypeSampledImage, &[image]);
        let pt = self.ptr(StorageClass::UniformConstant, sampled_image);
        let var = self.global_variable(pt, StorageClass::UniformConstant);
        self.b.decorate(var, Decoration::DescriptorSet, [0]);
        self.b.decorate(var, Decoration::Binding, [binding]);
        self.b.name(var, &format!("ptxvk.texture{binding}"));
        let v = TexVar {
            var,
            sampled_image,
            image,
            texel,
        };
        self.tex_vars.insert(binding, v);
        Ok(v)
    }
}

impl FnEmitter<'_, '_> {
    /// A scalar, or a vector of the values.
    fn vector_of(&mut self, scalar: Ty, vals: &[Word]) -> EmitResult<Word> {
        if vals.len() == 1 {
            return Ok(vals[0]);
        }
        let t = self.e.ty(scalar);
        let vt = self.e.vector(t, vals.len() as u32);
        Ok(self.e.op_n(S::CompositeConstruct, vt, vals))
    }

    pub(super) fn texture(&mut self, t: &TexOp) -> EmitResult<()> {
        let tv = self.e.texture_var(t.binding)?;
        let si = self.e.load(tv.sampled_image, tv.var, None);
        let coord_ty = if matches!(t.kind, TexOpKind::Fetch(_)) {
            Ty::I32
        } else {
            Ty::F32
        };
        let coords: Vec<Word> = t.coords.iter().map(|c| self.value(*c)).collect();
        let coord = self.vector_of(coord_ty, &coords)?;
        let v4 = self.e.vector(tv.texel, 4);
        let mut mask = ImageOperands::NONE;
        let mut extra = Vec::new();
        match &t.kind {
            TexOpKind::SampleLod(l) | TexOpKind::Fetch(l) => {
                mask |= ImageOperands::LOD;
                extra.push(self.value(*l));
            }
            TexOpKind::SampleGrad(dx, dy) => {
                mask |= ImageOperands::GRAD;
                let dx: Vec<Word> = dx.iter().map(|v| self.value(*v)).collect();
                let dy: Vec<Word> = dy.iter().map(|v| self.value(*v)).collect();
                let gx = self.vector_of(Ty::F32, &dx)?;
                let gy = self.vector_of(Ty::F32, &dy)?;
                extra.push(gx);
                extra.push(gy);
            }
            TexOpKind::Gather(_) => {}
        }
        if let Some(off) = &t.offset {
            mask |= ImageOperands::CONST_OFFSET;
            let i32t = self.e.type_once(S::TypeInt, &[32, 1]);
            let parts: Vec<Word> = off
                .iter()
                .map(|o| {
                    let id = self.e.b.id();
                    self.e.b.global(S::Constant, Some(i32t), id, &[*o as u32]);
                    id
                })
                .collect();
            let c = if parts.len() == 1 {
                parts[0]
            } else {
                let vt = self.e.vector(i32t, parts.len() as u32);
                let id = self.e.b.id();
                self.e.b.global(S::ConstantComposite, Some(vt), id, &parts);
                id
            };
            extra.push(c);
        }
        // Image operands: the mask, then its operands (none at all when the mask is empty and
        // the instruction takes them optionally).
        let mut ops = Vec::with_capacity(4 + extra.len());
        let tail = |ops: &mut Vec<Word>, always: bool| {
            if always || mask != ImageOperands::NONE {
                ops.push(mask.bits());
                ops.extend_from_slice(&extra);
            }
        };
        let dref = t.dref.map(|d| self.value(d));
        let result = match (&t.kind, dref) {
            (TexOpKind::SampleLod(_) | TexOpKind::SampleGrad(..), None) => {
                ops.extend([si, coord]);
                tail(&mut ops, true);
                self.e.op_n(S::ImageSampleExplicitLod, v4, &ops)
            }
            (TexOpKind::SampleLod(_) | TexOpKind::SampleGrad(..), Some(d)) => {
                // One filtered comparison result: (r, 0, 0, 1) as Vulkan reads depth.
                let f = self.e.ty(Ty::F32);
                ops.extend([si, coord, d]);
                tail(&mut ops, true);
                let r = self.e.op_n(S::ImageSampleDrefExplicitLod, f, &ops);
                let zero = self.e.konst(Ty::F32, 0);
                let one = self.e.konst(Ty::F32, u64::from(1f32.to_bits()));
                self.e.op(S::CompositeConstruct, v4, [r, zero, zero, one])
            }
            (TexOpKind::Fetch(_), _) => {
                let img = self.e.op(S::Image, tv.image, [si]);
                ops.extend([img, coord]);
                tail(&mut ops, false);
                self.e.op_n(S::ImageFetch, v4, &ops)
            }
            (TexOpKind::Gather(c), None) => {
                let comp = self.e.u32_const(*c);
                ops.extend([si, coord, comp]);
                tail(&mut ops, false);
                self.e.op_n(S::ImageGather, v4, &ops)
            }
            (TexOpKind::Gather(_), Some(d)) => {
                ops.extend([si, coord, d]);
                tail(&mut ops, false);
                self.e.op_n(S::ImageDrefGather, v4, &ops)
            }
        };
        for (k, r) in t.results.iter().enumerate() {
            let ty = self.f.vars[r.0 as usize].ty;
            let st = self.e.ty(ty);
            let mut part = self.e.extract(tv.texel, result, k as u32);
            if st != tv.texel {
                part = self.e.op(S::Bitcast, st, [part]);
            }
            self.store_var(*r, part);
        }
        Ok(())
    }
}
