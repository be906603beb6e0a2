//! Streams and events.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ptxvk_runtime::{Event, Stream};

use crate::context::{self, Ctx};
use crate::error::{CuError, CuResult};
use crate::handles::Table;

pub struct Strm {
    pub ctx_id: usize,
    pub ctx: Arc<Ctx>,
    pub stream: Stream,
    pub flags: u32,
    /// Work may be in flight: set when the stream is handed out for work, cleared when it is
    /// found idle. Spares the legacy stream's check (a submission and a driver query) on
    /// streams that have done nothing since.
    issued: AtomicBool,
}

pub struct Evt {
    pub ctx_id: usize,
    pub flags: u32,
    recorded: Mutex<Option<Event>>,
}

pub static STREAMS: Table<Strm> = Table::new("stream");
pub static EVENTS: Table<Evt> = Table::new("event");

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: handles that name the default stream.
const STREAM_LEGACY: usize = 0x1;
const STREAM_PER_THREAD: usize = 0x2;
const EVENT_DISABLE_TIMING: u32 = 0x2;

/// NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD.
pub fn is_default(handle: usize) -> bool {
    matches!(handle, 0 | STREAM_LEGACY | STREAM_PER_THREAD)
}

/// The stream a handle names, with its context, ready for work issued on it now. NULL and the
/// two special handles are the current context's default stream, which ptxvk serves with the
/// runtime's default stream.
///
/// The legacy default stream (NULL, CU_STREAM_LEGACY) synchronises with the context's
/// blocking streams (created without CU_STREAM_NON_BLOCKING), as CUDA's does: its work waits
/// for what they issued before, and their work waits for what it issued before. The waits are
/// only added where the other side still has work in flight.
pub fn resolve(handle: usize) -> CuResult<(Arc<Ctx>, Stream)> {
    if is_default(handle) {
        let (ctx_id, ctx) = context::current()?;
        let stream = ctx.rt.default_stream()?;
        if handle != STREAM_PER_THREAD {
            for other in blocking_streams(ctx_id) {
                wait_for(&stream, (&other.stream, &other.issued))?;
            }
        }
        ctx.default_issued.store(true, Ordering::Release);
        return Ok((ctx, stream));
    }
    crate::device::check_init()?;
    let s = STREAMS.get(handle)?;
    s.ctx.check_sticky()?;
    if s.flags & STREAM_NON_BLOCKING == 0 && s.ctx.default_issued.load(Ordering::Acquire) {
        let default = s.ctx.rt.default_stream()?;
        wait_for(&s.stream, (&default, &s.ctx.default_issued))?;
    }
    s.issued.store(true, Ordering::Release);
    Ok((s.ctx.clone(), s.stream.clone()))
}

const STREAM_NON_BLOCKING: u32 = 0x1;

fn blocking_streams(ctx_id: usize) -> Vec<Arc<Strm>> {
    STREAMS
        .all()
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.ctx_id == ctx_id && s.flags & STREAM_NON_BLOCKING == 0)
        .collect()
}

/// Makes work issued on `stream` from now on wait for the work issued on `other` so far;
/// `issued` is `other`'s hint that it may have work in flight.
fn wait_for(stream: &Stream, (other, issued): (&Stream, &AtomicBool)) -> CuResult<()> {
    if !issued.load(Ordering::Acquire) {
        return Ok(());
    }
    if other.is_idle()? {
        issued.store(false, Ordering::Release);
    } else {
        stream.wait_event(&other.record_event()?)?;
    }
    Ok(())
}

pub fn create(flags: u32) -> CuResult<usize> {
    // CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING.
    if flags & !STREAM_NON_BLOCKING != 0 {
        return Err(CuError::invalid(format!("stream flags {flags:#x}")));
    }
    let (ctx_id, ctx) = context::current()?;
    let stream = ctx.rt.new_stream()?;
    let (id, _) = STREAMS.insert(Strm {
        ctx_id,
        ctx,
        stream,
        flags,
        issued: AtomicBool::new(false),
    });
    Ok(id)
}

pub fn query(handle: usize) -> CuResult<()> {
    let (_, s) = resolve(handle)?;
    if s.is_idle()? {
        Ok(())
    } else {
        Err(CuError::NotReady)
    }
}

pub fn wait_event(stream: usize, event: usize) -> CuResult<()> {
    let (_, s) = resolve(stream)?;
    let e = EVENTS.get(event)?;
    let recorded = e.recorded.lock().unwrap_or_else(|p| p.into_inner());
    // Waiting for an event never recorded waits for nothing, as in CUDA.
    if let Some(ev) = recorded.as_ref() {
        s.wait_event(ev)?;
    }
    Ok(())
}

/// Streams and events of a destroyed context.
pub fn forget_context(ctx_id: usize) {
    STREAMS.remove_where(|s| s.ctx_id == ctx_id);
    EVENTS.remove_where(|e| e.ctx_id == ctx_id);
}

pub fn event_create(flags: u32) -> CuResult<usize> {
    // CU_EVENT_DEFAULT, BLOCKING_SYNC (1), DISABLE_TIMING (2), INTERPROCESS (4).
    if flags & !0x7 != 0 {
        return Err(CuError::invalid(format!("event flags {flags:#x}")));
    }
    let (ctx_id, _) = context::current()?;
    let (id, _) = EVENTS.insert(Evt {
        ctx_id,
        flags,
        recorded: Mutex::new(None),
    });
    Ok(id)
}

pub fn record(event: usize, stream: usize) -> CuResult<()> {
    let e = EVENTS.get(event)?;
    let (_, s) = resolve(stream)?;
    let ev = s.record_event()?;
    *e.recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(ev);
    Ok(())
}

/// `cuEventQuery`: an event never recorded counts as complete.
pub fn event_query(event: usize) -> CuResult<()> {
    let e = EVENTS.get(event)?;
    let recorded = e.recorded.lock().unwrap_or_else(|p| p.into_inner());
    match recorded.as_ref() {
        Some(ev) if !ev.is_complete()? => Err(CuError::NotReady),
        _ => Ok(()),
    }
}

pub fn event_synchronize(event: usize) -> CuResult<()> {
    let e = EVENTS.get(event)?;
    let recorded = e.recorded.lock().unwrap_or_else(|p| p.into_inner());
    match recorded.as_ref() {
        Some(ev) => Ok(ev.synchronize()?),
        None => Ok(()),
    }
}

/// `cuEventElapsedTime` in milliseconds. CUDA's codes: INVALID_HANDLE for an event without
/// timing or never recorded, NOT_READY while either has not completed.
pub fn elapsed_ms(start: usize, end: usize) -> CuResult<f32> {
    let (a, b) = (EVENTS.get(start)?, EVENTS.get(end)?);
    if (a.flags | b.flags) & EVENT_DISABLE_TIMING != 0 {
        return Err(CuError::InvalidHandle(
            "event (created with CU_EVENT_DISABLE_TIMING)",
        ));
    }
    let ea = a.recorded.lock().unwrap_or_else(|p| p.into_inner());
    let eb = b.recorded.lock().unwrap_or_else(|p| p.into_inner());
    let (Some(ea), Some(eb)) = (ea.as_ref(), eb.as_ref()) else {
        return Err(CuError::InvalidHandle("event (never recorded)"));
    };
    if !ea.is_complete()? || !eb.is_complete()? {
        return Err(CuError::NotReady);
    }
    let d = ea.elapsed(eb)?;
    Ok(d.as_secs_f64() as f32 * 1000.0)
}

/// The context a stream handle belongs to (the current one for the default stream).
pub fn context_of(handle: usize) -> CuResult<usize> {
    if is_default(handle) {
        return Ok(context::current()?.0);
    }
    crate::device::check_init()?;
    Ok(STREAMS.get(handle)?.ctx_id)
}

/// Runs a host function in stream order (`cuLaunchHostFunc`, `cuStreamAddCallback`): after
/// the work queued before it and before any queued after it. It runs on the calling thread once
/// the stream is idle, which gives that order at the price of the caller's waiting.
pub fn host_call(handle: usize, f: impl FnOnce(Result<(), &CuError>)) -> CuResult<()> {
    let (_, s) = resolve(handle)?;
    let done = s.synchronize().map_err(CuError::from);
    f(done.as_ref().map(|_| ()));
    done
}
