//! Streams and events.

use std::ffi::{c_int, c_uint, c_void};

use super::{Handle, entry, handle, id, put, put_new};
use crate::error::{CUresult, CuError, CuResult};
use crate::stream::{self, EVENTS, STREAMS};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreate(ps: *mut Handle, flags: c_uint) -> CUresult {
    entry(
        "cuStreamCreate",
        format_args!("ps={:#x?} flags={:#x?}", ps, flags),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(ps, || stream::create(flags)) }
        },
    )
}

fn destroy_stream(s: Handle) -> CuResult<()> {
    crate::device::check_init()?;
    // Work already queued completes: the runtime's stream waits for it when dropped.
    STREAMS.remove(id(s)).map(drop)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamDestroy_v2(s: Handle) -> CUresult {
    entry("cuStreamDestroy_v2", format_args!("s={:#x?}", s), || {
        destroy_stream(s)
    })
}

fn synchronize(s: Handle) -> CuResult<()> {
    Ok(stream::lookup(id(s))?.synchronize()?)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamSynchronize(s: Handle) -> CUresult {
    entry("cuStreamSynchronize", format_args!("s={:#x?}", s), || {
        synchronize(s)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamQuery(s: Handle) -> CUresult {
    entry("cuStreamQuery", format_args!("s={:#x?}", s), || {
        stream::query(id(s))
    })
}

fn wait_event(s: Handle, e: Handle, flags: c_uint) -> CuResult<()> {
    // CU_EVENT_WAIT_DEFAULT (0) or CU_EVENT_WAIT_EXTERNAL (1, graphs only).
    if flags > 1 {
        return Err(CuError::invalid(format!("flags {flags:#x}")));
    }
    stream::wait_event(id(s), id(e))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint) -> CUresult {
    entry(
        "cuStreamWaitEvent",
        format_args!("s={:#x?} e={:#x?} flags={:#x?}", s, e, flags),
        || wait_event(s, e, flags),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventCreate(pe: *mut Handle, flags: c_uint) -> CUresult {
    entry(
        "cuEventCreate",
        format_args!("pe={:#x?} flags={:#x?}", pe, flags),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(pe, || stream::event_create(flags)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventRecord(e: Handle, s: Handle) -> CUresult {
    entry(
        "cuEventRecord",
        format_args!("e={:#x?} s={:#x?}", e, s),
        || stream::record(id(e), id(s)),
    )
}

/// CU_EVENT_RECORD_DEFAULT; CU_EVENT_RECORD_EXTERNAL matters only inside graph capture.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint) -> CUresult {
    entry(
        "cuEventRecordWithFlags",
        format_args!("e={e:#x?} s={s:#x?} flags={flags:#x}"),
        || {
            if flags > 1 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            stream::record(id(e), id(s))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventQuery(e: Handle) -> CUresult {
    entry("cuEventQuery", format_args!("e={:#x?}", e), || {
        stream::event_query(id(e))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    entry("cuEventSynchronize", format_args!("e={:#x?}", e), || {
        stream::event_synchronize(id(e))
    })
}

fn elapsed(ms: *mut f32, start: Handle, end: Handle) -> CuResult<()> {
    crate::device::check_init()?;
    if ms.is_null() {
        return Err(CuError::invalid("pMilliseconds is NULL"));
    }
    let v = stream::elapsed_ms(id(start), id(end))?;
    // SAFETY: non-NULL and writable by the caller's contract.
    unsafe { put(ms, v) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    entry(
        "cuEventElapsedTime",
        format_args!("ms={:#x?} start={:#x?} end={:#x?}", ms, start, end),
        || elapsed(ms, start, end),
    )
}

fn destroy_event(e: Handle) -> CuResult<()> {
    crate::device::check_init()?;
    EVENTS.remove(id(e)).map(drop)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventDestroy_v2(e: Handle) -> CUresult {
    entry("cuEventDestroy_v2", format_args!("e={:#x?}", e), || {
        destroy_event(e)
    })
}

fn get_flags(s: Handle, flags: *mut c_uint) -> CuResult<()> {
    let f = if stream::is_default(id(s)) {
        crate::context::current()?;
        0
    } else {
        crate::device::check_init()?;
        STREAMS.get(id(s))?.flags
    };
    // SAFETY: NULL or writable by the caller's contract.
    unsafe { put(flags, f) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetFlags(s: Handle, flags: *mut c_uint) -> CUresult {
    entry(
        "cuStreamGetFlags",
        format_args!("s={:#x?} flags={:#x?}", s, flags),
        || get_flags(s, flags),
    )
}

/// Priorities are accepted and have no effect: Vulkan queues are taken as they come, and
/// `cuCtxGetStreamPriorityRange` reports the single priority 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    ps: *mut Handle,
    flags: c_uint,
    priority: c_int,
) -> CUresult {
    entry(
        "cuStreamCreateWithPriority",
        format_args!("ps={ps:#x?} flags={flags:#x} priority={priority}"),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(ps, || stream::create(flags)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetPriority(s: Handle, priority: *mut c_int) -> CUresult {
    entry(
        "cuStreamGetPriority",
        format_args!("s={s:#x?} priority={priority:#x?}"),
        || {
            stream::context_of(id(s))?;
            // SAFETY: NULL or writable.
            unsafe { put(priority, 0) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx(s: Handle, ctx: *mut Handle) -> CUresult {
    entry(
        "cuStreamGetCtx",
        format_args!("s={s:#x?} ctx={ctx:#x?}"),
        || {
            let c = stream::context_of(id(s))?;
            // SAFETY: NULL or writable.
            unsafe { put(ctx, handle(c)) }
        },
    )
}

/// Green contexts do not exist here: the second result is always NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetCtx_v2(
    s: Handle,
    ctx: *mut Handle,
    green: *mut Handle,
) -> CUresult {
    entry(
        "cuStreamGetCtx_v2",
        format_args!("s={s:#x?} ctx={ctx:#x?} green={green:#x?}"),
        || {
            let c = stream::context_of(id(s))?;
            // SAFETY: each NULL or writable.
            unsafe {
                put(ctx, handle(c))?;
                put(green, std::ptr::null_mut())
            }
        },
    )
}

/// The handle's id (0 for the legacy default stream), unique in the process.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamGetId(s: Handle, out: *mut u64) -> CUresult {
    entry(
        "cuStreamGetId",
        format_args!("s={s:#x?} out={out:#x?}"),
        || {
            let v = stream::id_of(id(s))?;
            // SAFETY: NULL or writable.
            unsafe { put(out, v) }
        },
    )
}

/// `CUhostFn`.
pub type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;
/// `CUstreamCallback`.
pub type StreamCallback = Option<unsafe extern "C" fn(Handle, CUresult, *mut c_void)>;

fn launch_host_func(s: Handle, f: HostFn, user: *mut c_void) -> CuResult<()> {
    let f = f.ok_or_else(|| CuError::invalid("fn is NULL"))?;
    stream::host_call(id(s), |done| {
        if done.is_ok() {
            // SAFETY: the caller's function with its own data, called once in stream order.
            unsafe { f(user) }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchHostFunc(s: Handle, f: HostFn, user: *mut c_void) -> CUresult {
    entry(
        "cuLaunchHostFunc",
        format_args!("s={s:#x?} user={user:#x?}"),
        || launch_host_func(s, f, user),
    )
}

/// `syncMode` only says whether later work may start before the function returns; here it
/// never does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchHostFunc_v2(
    s: Handle,
    f: HostFn,
    user: *mut c_void,
    sync_mode: c_uint,
) -> CUresult {
    entry(
        "cuLaunchHostFunc_v2",
        format_args!("s={s:#x?} user={user:#x?} syncMode={sync_mode}"),
        || launch_host_func(s, f, user),
    )
}

/// The callback gets the stream's status: CUDA_SUCCESS, or the error of earlier work.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamAddCallback(
    s: Handle,
    cb: StreamCallback,
    user: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuStreamAddCallback",
        format_args!("s={s:#x?} user={user:#x?} flags={flags:#x}"),
        || {
            if flags != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            let cb = cb.ok_or_else(|| CuError::invalid("callback is NULL"))?;
            stream::host_call(id(s), |done| {
                let status = done.err().map_or(crate::error::CUDA_SUCCESS, |e| e.code());
                // SAFETY: the caller's callback with its own data, called once in stream order.
                unsafe { cb(s, status, user) }
            })
        },
    )
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuStreamDestroy => cuStreamDestroy_v2(s: Handle));
alias!(cuStreamSynchronize_ptsz => cuStreamSynchronize(s: Handle), per_thread s);
alias!(cuStreamQuery_ptsz => cuStreamQuery(s: Handle), per_thread s);
alias!(cuStreamWaitEvent_ptsz => cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint), per_thread s);
alias!(cuEventRecord_ptsz => cuEventRecord(e: Handle, s: Handle), per_thread s);
alias!(cuEventElapsedTime_v2 => cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle));
alias!(cuEventDestroy => cuEventDestroy_v2(e: Handle));
alias!(cuStreamGetFlags_ptsz => cuStreamGetFlags(s: Handle, flags: *mut c_uint), per_thread s);
alias!(cuStreamGetPriority_ptsz => cuStreamGetPriority(s: Handle, priority: *mut c_int), per_thread s);
alias!(cuStreamGetCtx_ptsz => cuStreamGetCtx(s: Handle, ctx: *mut Handle), per_thread s);
alias!(cuStreamGetCtx_v2_ptsz => cuStreamGetCtx_v2(s: Handle, ctx: *mut Handle, green: *mut Handle), per_thread s);
alias!(cuStreamGetId_ptsz => cuStreamGetId(s: Handle, out: *mut u64), per_thread s);
alias!(cuLaunchHostFunc_ptsz => cuLaunchHostFunc(s: Handle, f: HostFn, user: *mut c_void), per_thread s);
alias!(cuLaunchHostFunc_v2_ptsz => cuLaunchHostFunc_v2(s: Handle, f: HostFn, user: *mut c_void, sync_mode: c_uint), per_thread s);
alias!(cuStreamAddCallback_ptsz => cuStreamAddCallback(s: Handle, cb: StreamCallback, user: *mut c_void, flags: c_uint), per_thread s);
alias!(cuEventRecordWithFlags_ptsz => cuEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint), per_thread s);
