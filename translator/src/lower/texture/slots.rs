//! Which textures a kernel reads: slots (a parameter or a `.texref`, found from the handles in
//! `handles`), their records in the parameter block, and the descriptor bindings.

use crate::check::Map as HashMap;
use std::cell::RefCell;

use crate::check::{self, GlobalId, LocalId, RegId};
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, Op, VarId};
use crate::texture::{TextureAbi, TextureBinding, TextureSlot, TextureSource, record};

/// Where a slot's texture comes from, as the checker names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum SlotKey {
    Param(LocalId),
    Global(GlobalId),
}

/// The textures of the kernel being lowered (shared by its functions).
pub struct KernelTextures {
    pub(super) slots: Vec<(SlotKey, TextureSlot)>,
    bindings: Vec<TextureBinding>,
    records_offset: u32,
    /// Registers of the kernel function assumed to hold a parameter's handle: each must be
    /// written exactly once (checked once the kernel is lowered).
    pub(super) assumed: Vec<(VarId, Span, String)>,
    /// Per function: registers that hold a known texture handle.
    pub(super) traces: HashMap<check::FuncId, HashMap<RegId, SlotKey>>,
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

    pub(super) fn slot(&mut self, key: SlotKey, source: TextureSource) -> u32 {
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

    pub(super) fn binding(&mut self, b: TextureBinding) -> u32 {
        if let Some(i) = self.bindings.iter().position(|x| *x == b) {
            return i as u32;
        }
        self.bindings.push(b);
        self.bindings.len() as u32 - 1
    }
}
