//! The calling thread's last launch: the function and stream its handles named, and the
//! argument vector it filled. A program launches the same kernels on the same streams over and
//! over; looking their handles up again (a locked table and a reference count each) was most of
//! what a launch through the C ABI cost over one through the Rust API.
//!
//! A cached lookup stays valid while no handle table has lost an entry since it was made
//! ([`handles::removals`]) and the same context is current (a `CUkernel` names a different
//! function in each context, and the per-thread stream is per context). It holds its objects
//! alive: the thread that destroys one drops its own cache at once, other threads at their next
//! launch or exit.

use std::sync::Arc;

use ptxvk_runtime::{KernelArg, LaunchConfig};

use crate::error::{CuError, CuResult};
use crate::handles;
use crate::module::Func;
use crate::stream::Strm;
use crate::thread_state::THREAD;

/// One cached lookup: a handle and what it named.
pub struct Slot<T>(Option<(usize, Arc<T>)>);

impl<T> Slot<T> {
    /// What `handle` names, from the cache or from `lookup` (whose result is then cached).
    /// The hit is inlined into the launch; the lookup is not.
    #[inline(always)]
    pub fn get(
        &mut self,
        handle: usize,
        lookup: impl FnOnce(usize) -> CuResult<Arc<T>>,
    ) -> CuResult<&Arc<T>> {
        let hit = matches!(&self.0, Some((h, _)) if *h == handle);
        if !hit {
            self.fill(handle, lookup)?;
        }
        match &self.0 {
            Some((_, v)) => Ok(v),
            None => Err(CuError::Unknown("launch cache".into())),
        }
    }

    #[inline(never)]
    fn fill(
        &mut self,
        handle: usize,
        lookup: impl FnOnce(usize) -> CuResult<Arc<T>>,
    ) -> CuResult<()> {
        self.0 = None;
        let value = lookup(handle)?;
        self.0 = Some((handle, value));
        Ok(())
    }
}

pub struct Cache {
    removals: u64,
    ctx: Option<usize>,
    pub function: Slot<Func>,
    pub stream: Slot<Strm>,
    /// The last configuration found valid, with the function it was checked for: the limits
    /// it was checked against are its context's, fixed for the context's life.
    pub checked: Option<(usize, LaunchConfig)>,
    /// The packed parameter block of a launch, one buffer reused by each.
    pub block: Vec<u8>,
    /// The runtime's typed arguments, for the kernels that read a texture object from a
    /// parameter (which the runtime needs as a texture, not as bytes).
    pub args: Vec<KernelArg>,
}

impl Cache {
    pub const EMPTY: Cache = Cache {
        removals: 0,
        ctx: None,
        function: Slot(None),
        stream: Slot(None),
        checked: None,
        block: Vec::new(),
        args: Vec::new(),
    };

    /// Drops the cached lookups if a table lost an entry since they were made or another
    /// context is current. The count is read before any lookup it will vouch for.
    #[inline]
    fn validate(&mut self, ctx: Option<usize>) {
        let now = handles::removals();
        if now != self.removals || ctx != self.ctx {
            self.function.0 = None;
            self.stream.0 = None;
            self.checked = None;
            self.removals = now;
            self.ctx = ctx;
        }
    }
}

/// Runs `f` with the current context's id and the calling thread's cache, made valid for that
/// context, both from one thread-local lookup. A thread whose storage is being torn down, or a
/// call made from within `f`, gets an empty cache of its own.
#[inline]
pub fn with<T>(f: impl FnOnce(Option<usize>, &mut Cache) -> CuResult<T>) -> CuResult<T> {
    let mut f = Some(f);
    let cached = THREAD.try_with(|t| {
        let current = t.stack.borrow().last().copied();
        let mut c = t.launch.try_borrow_mut().ok()?;
        let f = f.take()?;
        c.validate(current);
        Some(f(current, &mut c))
    });
    if let Ok(Some(r)) = cached {
        return r;
    }
    uncached(f)
}

#[inline(never)]
fn uncached<T>(f: Option<impl FnOnce(Option<usize>, &mut Cache) -> CuResult<T>>) -> CuResult<T> {
    let current = crate::context::current_id();
    let mut fresh = Cache::EMPTY;
    fresh.validate(current);
    match f {
        Some(f) => f(current, &mut fresh),
        None => Err(CuError::Unknown("launch cache".into())),
    }
}

/// Drops the calling thread's cached lookups (after it removed a handle), unless they are in
/// use right now.
pub fn forget() {
    let _ = THREAD.try_with(|t| {
        if let Ok(mut c) = t.launch.try_borrow_mut() {
            c.function.0 = None;
            c.stream.0 = None;
            c.checked = None;
        }
    });
}
