//! What a pointer is (`cuPointerGetAttribute`): device memory of some context, page-locked
//! host memory from this library, or unknown.

use std::sync::Arc;

use crate::context::{CONTEXTS, Ctx};
use crate::host;
use crate::memory::Allocation;

pub enum Pointer {
    Device {
        ctx_id: usize,
        ctx: Arc<Ctx>,
        alloc: Allocation,
    },
    Host {
        base: usize,
        size: usize,
    },
}

/// Looks `ptr` up in the current context first, then in every other context (addresses are
/// unified across contexts), then among page-locked host allocations.
pub fn classify(ptr: u64) -> Option<Pointer> {
    let current = crate::context::current_id();
    let mut contexts = CONTEXTS.all();
    contexts.sort_by_key(|(id, _)| Some(*id) != current);
    for (ctx_id, ctx) in contexts {
        if let Some(alloc) = ctx.memory.containing(ptr) {
            return Some(Pointer::Device { ctx_id, ctx, alloc });
        }
    }
    let (base, size) = host::containing(usize::try_from(ptr).ok()?)?;
    Some(Pointer::Host { base, size })
}
