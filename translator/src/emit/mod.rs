//! Emission: the IR and its structured tree to Vulkan SPIR-V (1.5, `GLCompute`, Vulkan memory model,
//! physical storage buffer addressing), written as words: declarations in their sections
//! (`decls.rs`), function bodies as they are emitted (`body.rs`).

mod body;
mod carry;
mod decls;
mod func;
mod inst;
mod module;
mod spill;
mod texture;
mod warp;

pub use module::EmitError;

use rspirv::spirv::{self, Word};

use crate::abi::KernelAbi;
use crate::ir;
use crate::structurize::Node;
use crate::target::TargetOptions;
use module::{EmitResult, Emitter};

/// The SPIR-V version we emit: 1.5 is core in Vulkan 1.2.
pub const SPIRV_VERSION: (u8, u8) = (1, 5);

/// Emits one kernel for the device `target` describes: `module.entry` is the entry point;
/// `trees[i]` is function `i`'s body. `kept` holds the previous kernel's emitter, whose memory
/// this one reuses. `source`, the module the IR was lowered from, names register variables
/// (`OpName`); without it they are named by number.
pub fn emit_kernel(
    module: &ir::Module,
    trees: &[Vec<Node>],
    kernel: &KernelAbi,
    target: &TargetOptions,
    kept: &mut Kept,
    source: Option<&dyn ir::RegisterNames>,
) -> EmitResult<Vec<u32>> {
    let e: &mut Emitter = match &mut kept.emitter {
        Some(e) => {
            e.reset();
            e
        }
        None => kept.emitter.insert(Box::new(Emitter::new())),
    };
    e.shared_words = module.shared_words;
    e.dynamic_shared = module.dynamic_shared;
    e.local_words = module.local_words;
    e.warp_scratch_words = module.warp_scratch_words;
    e.warp = target.warp;
    e.widen_workgroup_fences = target.widen_workgroup_fences;
    e.subgroup_clustered = target.subgroup_clustered;
    e.barrier_words = module.barrier_words;
    e.shared_spilled = module.shared_spilled;
    e.textures = module.textures.clone();
    // The block size must be declared even when the kernel never reads %ntid.
    e.block_dims();
    // An IR instruction is about one SPIR-V instruction of four words: the code grows once.
    let insts: usize = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .map(|b| b.insts.len() + 2)
        .sum();
    e.body.reserve(insts);
    let entry_fn = e.b.id();
    let fn_ids: Vec<Word> = module
        .functions
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i == module.entry.0 as usize {
                entry_fn
            } else {
                e.b.id()
            }
        })
        .collect();
    for (i, f) in module.functions.iter().enumerate() {
        let kernel = i == module.entry.0 as usize;
        func::emit_function(
            e,
            &mut kept.fn_buffers,
            (f, &trees[i]),
            fn_ids[i],
            &fn_ids,
            source,
            kernel,
        )?;
    }
    e.b.name(entry_fn, &kernel.name);
    let modes = e.execution_modes(target.denorm_preserve, target.signed_zero_inf_nan_preserve);
    let entry_name = crate::abi::entry_point_name(&kernel.name);
    let header = decls::Header {
        caps: &e.caps,
        addressing: spirv::AddressingModel::PhysicalStorageBuffer64,
        memory: spirv::MemoryModel::Vulkan,
        model: spirv::ExecutionModel::GLCompute,
        entry: entry_fn,
        name: &entry_name,
        interface: &e.interface,
        modes: &modes,
    };
    Ok(e.b.finish(&header, SPIRV_VERSION, &e.body))
}

/// The last kernel's emitter, whose memory the next kernel reuses (boxed: it is large, and
/// moved it would be copied), and the function tables kept from function to function.
#[derive(Default)]
pub struct Kept {
    emitter: Option<Box<Emitter>>,
    fn_buffers: func::FnBuffers,
}
