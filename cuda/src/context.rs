//! Contexts: each owns a ptxvk-runtime context (its own Vulkan device), the allocations made in
//! it, and its limits. Each thread has its own stack of current contexts, as in CUDA; the
//! primary context of a device is shared by reference count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ptxvk_runtime::ContextOptions;

use crate::device;
use crate::error::{CUresult, CuError, CuResult};
use crate::handles::Table;
use crate::memory::Allocations;
use crate::thread_state::THREAD;

pub struct Ctx {
    pub device: i32,
    pub rt: ptxvk_runtime::Context,
    pub flags: u32,
    pub memory: Allocations,
    limits: Mutex<BTreeMap<u32, usize>>,
    /// The first kernel fault seen in the context: CUDA returns it from every later call
    /// until the context is destroyed (the runtime's context itself carries on).
    sticky: Mutex<Option<(CUresult, String)>>,
    /// Set once `sticky` holds an error: every call checks this, and only a poisoned context
    /// takes the lock.
    poisoned: AtomicBool,
    /// The device limits a launch is checked against, read once.
    pub launch_limits: std::sync::OnceLock<crate::launch::Limits>,
    /// Whether the legacy default stream may have work in flight (see `stream::resolve`).
    pub default_work: crate::stream::WorkHint,
}

pub static CONTEXTS: Table<Ctx> = Table::new("context");

/// `CUlimit` values and their defaults. The stack size is the per-thread stack ptxvk gives
/// recursive functions; the others are CUDA's defaults, kept so that programs that read, set
/// and read back see their own values.
const LIMITS: &[(u32, usize)] = &[
    (0x0, 4096),    // CU_LIMIT_STACK_SIZE
    (0x1, 1 << 20), // CU_LIMIT_PRINTF_FIFO_SIZE
    (0x2, 8 << 20), // CU_LIMIT_MALLOC_HEAP_SIZE
    (0x3, 2),       // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH
    (0x4, 2048),    // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
    (0x5, 64),      // CU_LIMIT_MAX_L2_FETCH_GRANULARITY
    (0x6, 0),       // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
];

impl Ctx {
    fn new(device: i32, flags: u32) -> CuResult<Ctx> {
        let info = device::get(device)?;
        let opts = ContextOptions {
            device: Some(info.index.to_string()),
            ..ContextOptions::from_env()
        };
        let rt = ptxvk_runtime::Context::new(&opts)?;
        #[cfg(target_os = "linux")]
        rt.set_printf_sink(std::sync::Arc::new(c_stdout))?;
        Ok(Ctx {
            device,
            rt,
            flags,
            memory: Allocations::default(),
            limits: Mutex::new(LIMITS.iter().copied().collect()),
            sticky: Mutex::new(None),
            poisoned: AtomicBool::new(false),
            launch_limits: std::sync::OnceLock::new(),
            default_work: Default::default(),
        })
    }

    /// The sticky error, if a kernel of this context faulted. Every launch asks: the check
    /// of the flag is inlined, the error is built out of line.
    #[inline]
    pub fn check_sticky(&self) -> CuResult<()> {
        if !self.poisoned.load(Ordering::Acquire) {
            return Ok(());
        }
        self.sticky_error()
    }

    #[cold]
    fn sticky_error(&self) -> CuResult<()> {
        match &*self.sticky.lock().unwrap_or_else(|p| p.into_inner()) {
            Some((code, message)) => Err(CuError::Sticky {
                code: *code,
                message: message.clone(),
            }),
            None => Ok(()),
        }
    }

    fn poison(&self, e: &CuError) {
        let mut sticky = self.sticky.lock().unwrap_or_else(|p| p.into_inner());
        if sticky.is_none() {
            *sticky = Some((e.code(), e.to_string()));
            self.poisoned.store(true, Ordering::Release);
        }
    }

    pub fn limit(&self, limit: u32) -> CuResult<usize> {
        if limit == 0x7 {
            // CU_LIMIT_SHMEM_SIZE: the shared memory a kernel may use.
            return Ok(self.rt.info().max_shared_memory_bytes as usize);
        }
        if let Some(l) = device_limit(limit) {
            return Ok(self.rt.limit(l)? as usize);
        }
        let limits = self.limits.lock().unwrap_or_else(|p| p.into_inner());
        limits
            .get(&limit)
            .copied()
            .ok_or(CuError::UnsupportedLimit(limit))
    }

    pub fn set_limit(&self, limit: u32, value: usize) -> CuResult<()> {
        if let Some(l) = device_limit(limit) {
            return Ok(self.rt.set_limit(l, value as u64)?);
        }
        let mut limits = self.limits.lock().unwrap_or_else(|p| p.into_inner());
        match limits.get_mut(&limit) {
            Some(v) => {
                *v = value;
                Ok(())
            }
            None => Err(CuError::UnsupportedLimit(limit)),
        }
    }
}

/// The limits the runtime keeps: sizes of the structures device printf and malloc use.
fn device_limit(limit: u32) -> Option<ptxvk_runtime::Limit> {
    match limit {
        0x1 => Some(ptxvk_runtime::Limit::PrintfFifoSize),
        0x2 => Some(ptxvk_runtime::Limit::MallocHeapSize),
        _ => None,
    }
}

/// Device printf output goes through the C library's `stdout`, as NVIDIA's does, so that it
/// keeps its place among the program's own `printf` output.
#[cfg(target_os = "linux")]
fn c_stdout(bytes: &[u8]) {
    unsafe extern "C" {
        static mut stdout: *mut libc::FILE;
    }
    // SAFETY: the C library's stream, written and flushed under its own lock.
    unsafe {
        let out = stdout;
        libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), out);
        libc::fflush(out);
    }
}

/// `cuCtxCreate`: a new context, made current to the calling thread.
pub fn create(device: i32, flags: u32) -> CuResult<usize> {
    let (id, _) = CONTEXTS.insert(Ctx::new(device, flags)?);
    push(id)?;
    Ok(id)
}

/// `cuCtxDestroy`: the context is gone for every thread; the caller's stack drops it.
pub fn destroy(id: usize) -> CuResult<()> {
    let ctx = CONTEXTS.get(id)?;
    if primary_of(id).is_some() {
        return Err(CuError::InvalidContext);
    }
    release(id, &ctx)?;
    THREAD.with(|t| t.stack.borrow_mut().retain(|&c| c != id));
    Ok(())
}

/// Removes a context from the table after its work is done, and everything made in it.
fn release(id: usize, ctx: &Ctx) -> CuResult<()> {
    // Errors of earlier work belong to the context being destroyed.
    let _ = ctx.rt.synchronize();
    crate::module::forget_context(id);
    crate::stream::forget_context(id);
    crate::texture::forget_context(id);
    CONTEXTS.remove(id).map(drop)
}

/// The context on top of the calling thread's stack.
pub fn current() -> CuResult<(usize, Arc<Ctx>)> {
    device::check_init()?;
    let id = current_id().ok_or(CuError::InvalidContext)?;
    // A context destroyed by another thread is no longer valid here either.
    let ctx = CONTEXTS.get(id).map_err(|_| CuError::InvalidContext)?;
    ctx.check_sticky()?;
    Ok((id, ctx))
}

/// Makes a kernel fault sticky in the calling thread's current context, where the work that
/// reported it ran.
pub fn poison_current(e: &CuError) {
    if e.is_sticky()
        && let Some(ctx) = current_id().and_then(|id| CONTEXTS.get(id).ok())
    {
        ctx.poison(e);
    }
}

pub fn current_id() -> Option<usize> {
    THREAD.with(|t| t.stack.borrow().last().copied())
}

pub fn push(id: usize) -> CuResult<()> {
    CONTEXTS.get(id).map_err(|_| CuError::InvalidContext)?;
    THREAD.with(|t| t.stack.borrow_mut().push(id));
    Ok(())
}

pub fn pop() -> CuResult<usize> {
    device::check_init()?;
    THREAD
        .with(|t| t.stack.borrow_mut().pop())
        .ok_or(CuError::InvalidContext)
}

/// `cuCtxSetCurrent`: replaces the top of the stack (NULL pops it).
pub fn set_current(id: usize) -> CuResult<()> {
    device::check_init()?;
    if id == 0 {
        THREAD.with(|t| t.stack.borrow_mut().pop());
        return Ok(());
    }
    CONTEXTS.get(id).map_err(|_| CuError::InvalidContext)?;
    THREAD.with(|t| {
        let mut s = t.stack.borrow_mut();
        s.pop();
        s.push(id);
    });
    Ok(())
}

/// A device's primary context: created on first retain, destroyed when the last reference is
/// released (or on reset).
#[derive(Default)]
struct Primary {
    id: Option<usize>,
    refs: u32,
    flags: u32,
}

static PRIMARY: Mutex<BTreeMap<i32, Primary>> = Mutex::new(BTreeMap::new());

fn primaries() -> std::sync::MutexGuard<'static, BTreeMap<i32, Primary>> {
    PRIMARY.lock().unwrap_or_else(|p| p.into_inner())
}

fn primary_of(id: usize) -> Option<i32> {
    primaries()
        .iter()
        .find(|(_, p)| p.id == Some(id))
        .map(|(d, _)| *d)
}

pub fn primary_retain(device: i32) -> CuResult<usize> {
    device::get(device)?;
    let mut all = primaries();
    let p = all.entry(device).or_default();
    let id = match p.id {
        Some(id) => id,
        None => {
            let (id, _) = CONTEXTS.insert(Ctx::new(device, p.flags)?);
            p.id = Some(id);
            id
        }
    };
    p.refs += 1;
    Ok(id)
}

pub fn primary_release(device: i32) -> CuResult<()> {
    device::get(device)?;
    let mut all = primaries();
    let p = all.entry(device).or_default();
    if p.refs == 0 {
        return Err(CuError::InvalidContext);
    }
    p.refs -= 1;
    if p.refs == 0
        && let Some(id) = p.id.take()
        && let Ok(ctx) = CONTEXTS.get(id)
    {
        release(id, &ctx)?;
    }
    Ok(())
}

pub fn primary_reset(device: i32) -> CuResult<()> {
    device::get(device)?;
    let mut all = primaries();
    let p = all.entry(device).or_default();
    p.refs = 0;
    if let Some(id) = p.id.take()
        && let Ok(ctx) = CONTEXTS.get(id)
    {
        release(id, &ctx)?;
    }
    Ok(())
}

/// (flags, active).
pub fn primary_state(device: i32) -> CuResult<(u32, bool)> {
    device::get(device)?;
    let all = primaries();
    Ok(all
        .get(&device)
        .map_or((0, false), |p| (p.flags, p.id.is_some())))
}

pub fn primary_set_flags(device: i32, flags: u32) -> CuResult<()> {
    device::get(device)?;
    // The scheduling flags (bits 0-2), CU_CTX_MAP_HOST (0x8), CU_CTX_LMEM_RESIZE_TO_MAX (0x10)
    // and CU_CTX_COREDUMP/SYNC_MEMOPS bits up to 0xff are CUDA's valid flags.
    if flags & !0xff != 0 || !matches!(flags & 0x7, 0 | 1 | 2 | 4) {
        return Err(CuError::invalid(format!("context flags {flags:#x}")));
    }
    primaries().entry(device).or_default().flags = flags;
    Ok(())
}
