//! Streams and events: the runtime's handles are the driver's (a `cudaStream_t` is a
//! `CUstream`, NULL the legacy default stream, `cudaStreamPerThread` the driver's
//! CU_STREAM_PER_THREAD), so they pass through unchanged.

use std::ffi::{c_int, c_uint, c_void};

use super::{Stream, entry, out, per_thread};
use crate::driver::{self, Ptr};
use crate::error::{CudaError, Result};
use crate::state;

pub type Event = *mut c_void;

fn create(s: *mut Stream, flags: c_uint, priority: c_int) -> Result<()> {
    let p = out(s)?;
    let (d, _) = state::ready()?;
    let mut stream = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuStreamCreateWithPriority)(&mut stream, flags, priority) })?;
    *p = stream;
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreate(s: *mut Stream) -> CudaError {
    entry(|| create(s, 0, 0))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(s: *mut Stream, flags: c_uint) -> CudaError {
    entry(|| create(s, flags, 0))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(
    s: *mut Stream,
    flags: c_uint,
    priority: c_int,
) -> CudaError {
    entry(|| create(s, flags, priority))
}

/// A driver call on a stream or event handle the program holds.
fn call(f: impl FnOnce(&driver::Driver) -> driver::CUresult) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        driver::check(f(d))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamDestroy(s: Stream) -> CudaError {
    // SAFETY: the program's stream.
    call(|d| unsafe { (d.cuStreamDestroy_v2)(s) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSynchronize(s: Stream) -> CudaError {
    // SAFETY: the program's stream.
    call(|d| unsafe { (d.cuStreamSynchronize)(s) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamQuery(s: Stream) -> CudaError {
    // SAFETY: the program's stream.
    call(|d| unsafe { (d.cuStreamQuery)(s) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamWaitEvent(s: Stream, e: Event, flags: c_uint) -> CudaError {
    // SAFETY: the program's stream and event.
    call(|d| unsafe { (d.cuStreamWaitEvent)(s, e, flags) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetPriority(s: Stream, priority: *mut c_int) -> CudaError {
    // SAFETY: the program's stream; the driver checks the out-pointer.
    call(|d| unsafe { (d.cuStreamGetPriority)(s, priority) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetFlags(s: Stream, flags: *mut c_uint) -> CudaError {
    // SAFETY: the program's stream; the driver checks the out-pointer.
    call(|d| unsafe { (d.cuStreamGetFlags)(s, flags) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc(s: Stream, f: Ptr, data: Ptr) -> CudaError {
    // SAFETY: the program's stream and function.
    call(|d| unsafe { (d.cuLaunchHostFunc)(s, f, data) })
}

/// `cudaStreamCallback_t`: called with the stream, a status and the program's pointer.
type Callback = unsafe extern "C" fn(Stream, CudaError, *mut c_void);

struct Pending {
    callback: Callback,
    stream: Stream,
    data: *mut c_void,
}

unsafe extern "C" fn run_callback(p: *mut c_void) {
    // SAFETY: the box `cudaStreamAddCallback` leaked for this call, run once.
    let p = unsafe { Box::from_raw(p.cast::<Pending>()) };
    // SAFETY: the program's callback with its own arguments.
    let _ = std::panic::catch_unwind(|| unsafe { (p.callback)(p.stream, 0, p.data) });
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAddCallback(
    s: Stream,
    callback: Option<Callback>,
    data: *mut c_void,
    _flags: c_uint,
) -> CudaError {
    entry(|| {
        let callback = callback.ok_or(crate::error::Error(crate::error::INVALID_VALUE))?;
        let (d, _) = state::ready()?;
        let p = Box::into_raw(Box::new(Pending {
            callback,
            stream: s,
            data,
        }));
        // SAFETY: the trampoline takes the box back when it runs.
        let r = unsafe { (d.cuLaunchHostFunc)(s, run_callback as Ptr, p.cast()) };
        if r != 0 {
            // SAFETY: not queued: still ours.
            drop(unsafe { Box::from_raw(p) });
        }
        driver::check(r)
    })
}

fn create_event(e: *mut Event, flags: c_uint) -> Result<()> {
    let p = out(e)?;
    let (d, _) = state::ready()?;
    let mut ev = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuEventCreate)(&mut ev, flags) })?;
    *p = ev;
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreate(e: *mut Event) -> CudaError {
    entry(|| create_event(e, 0))
}

/// cudaEventDisableTiming/BlockingSync/Interprocess are the driver's CU_EVENT_* bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreateWithFlags(e: *mut Event, flags: c_uint) -> CudaError {
    entry(|| create_event(e, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecord(e: Event, s: Stream) -> CudaError {
    // SAFETY: the program's event and stream.
    call(|d| unsafe { (d.cuEventRecord)(e, s) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecordWithFlags(
    e: Event,
    s: Stream,
    _flags: c_uint,
) -> CudaError {
    // SAFETY: the program's event and stream.
    call(|d| unsafe { (d.cuEventRecord)(e, s) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventSynchronize(e: Event) -> CudaError {
    // SAFETY: the program's event.
    call(|d| unsafe { (d.cuEventSynchronize)(e) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventQuery(e: Event) -> CudaError {
    // SAFETY: the program's event.
    call(|d| unsafe { (d.cuEventQuery)(e) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventElapsedTime(ms: *mut f32, start: Event, end: Event) -> CudaError {
    // SAFETY: the program's events; the driver checks the out-pointer.
    call(|d| unsafe { (d.cuEventElapsedTime_v2)(ms, start, end) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventDestroy(e: Event) -> CudaError {
    // SAFETY: the program's event.
    call(|d| unsafe { (d.cuEventDestroy_v2)(e) })
}

/// The `_ptsz` forms (`--default-stream per-thread`): NULL is the thread's default stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSynchronize_ptsz(s: Stream) -> CudaError {
    // SAFETY: the program's stream.
    unsafe { cudaStreamSynchronize(per_thread(s)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamQuery_ptsz(s: Stream) -> CudaError {
    // SAFETY: the program's stream.
    unsafe { cudaStreamQuery(per_thread(s)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamWaitEvent_ptsz(s: Stream, e: Event, flags: c_uint) -> CudaError {
    // SAFETY: the program's stream and event.
    unsafe { cudaStreamWaitEvent(per_thread(s), e, flags) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetPriority_ptsz(s: Stream, priority: *mut c_int) -> CudaError {
    // SAFETY: the program's stream and out-pointer.
    unsafe { cudaStreamGetPriority(per_thread(s), priority) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetFlags_ptsz(s: Stream, flags: *mut c_uint) -> CudaError {
    // SAFETY: the program's stream and out-pointer.
    unsafe { cudaStreamGetFlags(per_thread(s), flags) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc_ptsz(s: Stream, f: Ptr, data: Ptr) -> CudaError {
    // SAFETY: the program's stream and function.
    unsafe { cudaLaunchHostFunc(per_thread(s), f, data) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAddCallback_ptsz(
    s: Stream,
    callback: Option<Callback>,
    data: *mut c_void,
    flags: c_uint,
) -> CudaError {
    // SAFETY: the program's stream and callback.
    unsafe { cudaStreamAddCallback(per_thread(s), callback, data, flags) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecord_ptsz(e: Event, s: Stream) -> CudaError {
    // SAFETY: the program's event and stream.
    unsafe { cudaEventRecord(e, per_thread(s)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventRecordWithFlags_ptsz(
    e: Event,
    s: Stream,
    flags: c_uint,
) -> CudaError {
    // SAFETY: the program's event and stream.
    unsafe { cudaEventRecordWithFlags(e, per_thread(s), flags) }
}
