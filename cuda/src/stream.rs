//! Streams and events.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
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
    work: WorkHint,
}

/// Whether a stream may have work in flight, known without asking the driver: spares the
/// legacy stream's check (a submission and a driver query) on streams that have done nothing
/// since they were last found idle. `issues` counts the calls that put work on the stream,
/// each counted once its work is recorded ([`Issue`]'s drop); `idle_at` is the count read
/// before the stream was last found idle. Counting after recording is what makes the hint
/// safe across threads: a count read before an idle check covers only work the check saw.
#[derive(Default)]
pub struct WorkHint {
    issues: AtomicU64,
    idle_at: AtomicU64,
}

impl WorkHint {
    fn count(&self) {
        self.issues.fetch_add(1, Ordering::AcqRel);
    }
}

/// A stream handed out for work, with its context. Dropping it, once the work is recorded,
/// counts the work in the stream's [`WorkHint`].
pub enum Issue {
    Legacy {
        ctx: Arc<Ctx>,
        stream: Stream,
    },
    /// A created or per-thread stream, which holds its context and runtime stream itself.
    Stream(Arc<Strm>),
}

impl Issue {
    pub fn ctx(&self) -> &Arc<Ctx> {
        match self {
            Issue::Legacy { ctx, .. } => ctx,
            Issue::Stream(s) => &s.ctx,
        }
    }

    pub fn stream(&self) -> &Stream {
        match self {
            Issue::Legacy { stream, .. } => stream,
            Issue::Stream(s) => &s.stream,
        }
    }
}

impl Drop for Issue {
    fn drop(&mut self) {
        match self {
            Issue::Legacy { ctx, .. } => ctx.default_work.count(),
            Issue::Stream(s) => s.work.count(),
        }
    }
}

pub struct Evt {
    pub ctx_id: usize,
    pub flags: u32,
    recorded: Mutex<Option<Event>>,
}

pub static STREAMS: Table<Strm> = Table::new("stream");
pub static EVENTS: Table<Evt> = Table::new("event");

/// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD: handles that name a default stream.
const STREAM_LEGACY: usize = 0x1;
pub const STREAM_PER_THREAD: usize = 0x2;
const EVENT_DISABLE_TIMING: u32 = 0x2;

/// NULL, CU_STREAM_LEGACY or CU_STREAM_PER_THREAD.
pub fn is_default(handle: usize) -> bool {
    matches!(handle, 0 | STREAM_LEGACY | STREAM_PER_THREAD)
}

/// The stream a handle names, with its context, ready for work issued on it now. NULL and
/// CU_STREAM_LEGACY are the current context's legacy default stream, which ptxvk serves with
/// the runtime's default stream; CU_STREAM_PER_THREAD is the calling thread's own default
/// stream of the current context (see [`per_thread`]).
///
/// The legacy default stream synchronises with the context's blocking streams (created
/// without CU_STREAM_NON_BLOCKING, and every thread's per-thread stream), as CUDA's does: its
/// work waits for what they issued before, and their work waits for what it issued before.
/// The waits are only added where the other side still has work in flight.
pub fn resolve(handle: usize) -> CuResult<Issue> {
    if handle == STREAM_PER_THREAD {
        let (ctx_id, ctx) = context::current()?;
        return issue_on(per_thread(ctx_id, &ctx)?.1);
    }
    if is_default(handle) {
        let (ctx_id, ctx) = context::current()?;
        let stream = ctx.rt.default_stream()?;
        for other in blocking_streams(ctx_id) {
            wait_for(&stream, &other.work, || Ok(other.stream.clone()))?;
        }
        return Ok(Issue::Legacy { ctx, stream });
    }
    crate::device::check_init()?;
    issue_on(STREAMS.get(handle)?)
}

/// The stream a handle names, to wait for or ask about rather than to issue work on: the
/// work it already holds waited for what it had to when it was issued, so only the legacy
/// stream (whose rule is about everything before the call) adds waits here.
pub fn lookup(handle: usize) -> CuResult<Stream> {
    if handle == STREAM_PER_THREAD {
        let (ctx_id, ctx) = context::current()?;
        let (_, s) = per_thread(ctx_id, &ctx)?;
        s.ctx.check_sticky()?;
        return Ok(s.stream.clone());
    }
    if is_default(handle) {
        return Ok(resolve(handle)?.stream().clone());
    }
    crate::device::check_init()?;
    let s = STREAMS.get(handle)?;
    s.ctx.check_sticky()?;
    Ok(s.stream.clone())
}

/// A created or per-thread stream, ready for work: a blocking one first waits for the legacy
/// default stream's work in flight.
fn issue_on(s: Arc<Strm>) -> CuResult<Issue> {
    ready(&s)?;
    Ok(Issue::Stream(s))
}

fn ready(s: &Strm) -> CuResult<()> {
    s.ctx.check_sticky()?;
    ordered(s)
}

/// Orders work issued on `s` from now on after the legacy stream's, where `s` is blocking.
#[inline]
fn ordered(s: &Strm) -> CuResult<()> {
    if s.flags & STREAM_NON_BLOCKING == 0 {
        wait_for(&s.stream, &s.ctx.default_work, || {
            Ok(s.ctx.rt.default_stream()?)
        })?;
    }
    Ok(())
}

/// Whether a handle names the legacy default stream (NULL or CU_STREAM_LEGACY), whose work is
/// ordered against every blocking stream of its context at each call.
pub fn is_legacy(handle: usize) -> bool {
    matches!(handle, 0 | STREAM_LEGACY)
}

/// The created or per-thread stream a handle other than the legacy stream's names (the
/// per-thread one in the current context), to issue work on with [`issue_checked`]: a lookup
/// the caller may keep while the handle tables lose nothing
/// ([`crate::handles::removals`]).
pub fn issuable(handle: usize) -> CuResult<Arc<Strm>> {
    if handle == STREAM_PER_THREAD {
        let (ctx_id, ctx) = context::current()?;
        return Ok(per_thread(ctx_id, &ctx)?.1);
    }
    crate::device::check_init()?;
    STREAMS.get(handle)
}

/// Issues work on a stream from [`issuable`] as [`resolve`] and [`Issue`] do: after what it
/// must wait for, and counted in its hint once recorded (whether or not it succeeded). The
/// caller has just checked the sticky error of the stream's context (a launch checks its
/// function's context, and that the stream is of it).
#[inline(always)]
pub fn issue_checked<R>(s: &Strm, issue: impl FnOnce(&Stream) -> CuResult<R>) -> CuResult<R> {
    ordered(s)?;
    let r = issue(&s.stream);
    s.work.count();
    r
}

/// This thread's per-thread default streams, by context id, as stream-table ids. They are
/// blocking streams of their context (so the legacy stream orders against them) that no
/// program was handed; they go when the thread ends or their context is destroyed.
struct PerThread(RefCell<BTreeMap<usize, usize>>);

impl Drop for PerThread {
    fn drop(&mut self) {
        for id in std::mem::take(self.0.get_mut()).into_values() {
            // Work already issued keeps its stream alive in the runtime.
            let _ = STREAMS.remove(id);
        }
    }
}

thread_local! {
    static PER_THREAD: PerThread = const { PerThread(RefCell::new(BTreeMap::new())) };
}

/// The calling thread's default stream in the context `ctx_id`, created on first use: what
/// CU_STREAM_PER_THREAD, and the NULL stream of the `_ptsz`/`_ptds` entry points, name.
fn per_thread(ctx_id: usize, ctx: &Arc<Ctx>) -> CuResult<(usize, Arc<Strm>)> {
    PER_THREAD
        .try_with(|map| {
            let mut map = map.0.borrow_mut();
            if let Some(&id) = map.get(&ctx_id)
                && let Ok(s) = STREAMS.get(id)
            {
                return Ok((id, s));
            }
            let (id, s) = STREAMS.insert(Strm {
                ctx_id,
                ctx: ctx.clone(),
                stream: ctx.rt.new_stream()?,
                flags: 0,
                work: WorkHint::default(),
            });
            map.insert(ctx_id, id);
            Ok((id, s))
        })
        .map_err(|_| CuError::Unknown("the per-thread stream of an exiting thread".into()))?
}

/// `cuStreamGetId`: the table id of a created or per-thread stream, 0 for the legacy one.
pub fn id_of(handle: usize) -> CuResult<u64> {
    if handle == STREAM_PER_THREAD {
        let (ctx_id, ctx) = context::current()?;
        return Ok(per_thread(ctx_id, &ctx)?.0 as u64);
    }
    context_of(handle)?;
    Ok(if is_default(handle) { 0 } else { handle as u64 })
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

/// Makes work issued on `stream` from now on wait for the work issued on another stream so
/// far: `hint` is the other stream's, and `other` gives the stream itself, which is only
/// needed (and only fetched) when the hint says it may be busy.
#[inline]
fn wait_for(
    stream: &Stream,
    hint: &WorkHint,
    other: impl FnOnce() -> CuResult<Stream>,
) -> CuResult<()> {
    let before = hint.issues.load(Ordering::Acquire);
    if before == hint.idle_at.load(Ordering::Acquire) {
        return Ok(());
    }
    wait_for_busy(stream, hint, before, other)
}

/// [`wait_for`] once the hint says `other` may have work in flight: `before` is the count read.
#[inline(never)]
fn wait_for_busy(
    stream: &Stream,
    hint: &WorkHint,
    before: u64,
    other: impl FnOnce() -> CuResult<Stream>,
) -> CuResult<()> {
    let other = other()?;
    if other.is_idle()? {
        // Work counted after `before` was read may not have been seen by the check.
        hint.idle_at.fetch_max(before, Ordering::AcqRel);
    } else {
        // A marker, not a timed event: it adds no work to `other`, which may be idle by now.
        stream.wait_event(&other.record_marker()?)?;
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
        work: WorkHint::default(),
    });
    Ok(id)
}

pub fn query(handle: usize) -> CuResult<()> {
    let s = lookup(handle)?;
    if s.is_idle()? {
        Ok(())
    } else {
        Err(CuError::NotReady)
    }
}

pub fn wait_event(stream: usize, event: usize) -> CuResult<()> {
    let s = resolve(stream)?;
    let e = EVENTS.get(event)?;
    let recorded = e.recorded.lock().unwrap_or_else(|p| p.into_inner());
    // Waiting for an event never recorded waits for nothing, as in CUDA.
    if let Some(ev) = recorded.as_ref() {
        s.stream().wait_event(ev)?;
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

/// `cuEventRecord`. An event created with CU_EVENT_DISABLE_TIMING is an untimed marker: no
/// timestamp command, so recording it on an idle stream leaves the stream idle.
pub fn record(event: usize, stream: usize) -> CuResult<()> {
    let e = EVENTS.get(event)?;
    let issue = resolve(stream)?;
    let ev = if e.flags & EVENT_DISABLE_TIMING != 0 {
        issue.stream().record_marker()?
    } else {
        issue.stream().record_event()?
    };
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
    let s = lookup(handle)?;
    let done = s.synchronize().map_err(CuError::from);
    f(done.as_ref().map(|_| ()));
    done
}
