//! Streams: ordered queues of launches and copies, batched into command buffers.
//!
//! Work recorded on a stream goes into an open command buffer; it is submitted when the stream
//! is synchronized or flushed, when an event is recorded, when something waits for it, or when
//! the batch reaches [`MAX_BATCH`] commands. Each submission signals the stream's timeline
//! semaphore with the next value, so "has the work up to here finished" is one integer
//! comparison, waits have a timeout, and other streams can wait for any point (events).
//!
//! Every command is preceded by a full compute/transfer memory barrier, so that commands of a
//! stream (and earlier submissions on the same queue) run in order with their writes visible.
//!
//! Recording one command, with the chunks small uploads are packed into, lives in
//! `stream/record.rs`; a launch's status word in `stream/status.rs`.

mod record;
mod status;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use ash::vk;

pub(crate) use self::record::Recorder;
use self::record::{Arena, Keep, Recording, full_barrier};
pub(crate) use self::status::StatusCheck;
use crate::context::{Context, Vk};
use crate::error::{Error, Result};

/// Commands in one batch before the stream submits it on its own.
pub const MAX_BATCH: u32 = 1024;

/// An ordered queue of work on one device, like a CUDA stream.
///
/// Launches and copies on a stream run in the order they were issued, and return before the
/// device has run them; [`Stream::synchronize`] waits. Buffers and kernels that queued work
/// uses stay alive until it completes, even if their handles are dropped. Dropping the last
/// clone of a stream waits for its work.
///
/// ```no_run
/// use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};
/// # let ptx = "";
/// let ctx = Context::new(&ContextOptions::from_env())?;
/// let saxpy = ctx.load_ptx("saxpy.ptx", ptx)?.kernel("saxpy")?;
/// let stream = ctx.new_stream()?;
/// let x = DeviceBuffer::<f32>::zeroed(&ctx, 1000)?;
/// let y = DeviceBuffer::<f32>::zeroed(&ctx, 1000)?;
/// stream.copy_to_device(&x, &[1.0; 1000])?;
/// stream.fill(&y, 2.0)?;
/// let start = stream.record_event()?;
/// for _ in 0..100 {
///     // Batched into one command buffer: a few microseconds each.
///     stream.launch(&saxpy, &LaunchConfig::for_num_elems(1000, 256),
///                   &[1000u32.into(), 3.0f32.into(), (&x).into(), (&y).into()])?;
/// }
/// let end = stream.record_event()?;
/// let result = stream.copy_to_host(&y)?.wait()?;
/// println!("{:?} on the device", start.elapsed(&end)?);
/// assert_eq!(result[0], 302.0);
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    // Declared before `ctx`: dropped first (the core waits for its work).
    pub(crate) core: Arc<StreamCore>,
    pub(crate) ctx: Context,
}

impl Stream {
    pub(crate) fn from_core(ctx: Context, core: Arc<StreamCore>) -> Stream {
        Stream { core, ctx }
    }

    /// The context the stream belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Waits until all work issued on the stream so far has completed (or fails with
    /// [`Error::Timeout`] after the context's timeout).
    pub fn synchronize(&self) -> Result<()> {
        self.core.synchronize()?;
        self.ctx.after_work()
    }

    /// Submits the work batched so far without waiting for it.
    pub fn flush(&self) -> Result<()> {
        let mut st = self.core.lock()?;
        self.core.submit_locked(&mut st)
    }

    /// Whether all work issued so far has completed (submits batched work first).
    pub fn is_idle(&self) -> Result<bool> {
        let target = {
            let mut st = self.core.lock()?;
            self.core.submit_locked(&mut st)?;
            st.submitted
        };
        Ok(self.core.counter()? >= target)
    }
}

pub(crate) struct StreamCore {
    pub vk: Arc<Vk>,
    queue: usize,
    pub timeline: vk::Semaphore,
    state: Mutex<State>,
}

pub(crate) struct State {
    pool: vk::CommandPool,
    free_cbs: Vec<vk::CommandBuffer>,
    rec: Option<Recording>,
    in_flight: VecDeque<Submission>,
    /// The value the last submission signals.
    submitted: u64,
    /// A value known to be reached.
    completed: u64,
    /// Points on other streams the next submission waits for.
    waits: Vec<(Weak<StreamCore>, u64)>,
    arena: Arena,
    /// Kernels that reported a failure in completed work, not yet returned by a wait.
    failures: Vec<Error>,
}

struct Submission {
    value: u64,
    cb: vk::CommandBuffer,
    keep: Vec<Keep>,
    checks: Vec<StatusCheck>,
    labels: Vec<String>,
}

// SAFETY: the raw pointer in `Recording::chunk` is only compared, never dereferenced; the rest
// is plain handles and `Send` values, all behind the state's mutex.
unsafe impl Send for State {}

impl StreamCore {
    pub fn new(vk: Arc<Vk>, queue: usize) -> Result<StreamCore> {
        vk.check_lost()?;
        let dev = &vk.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(vk.family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device and create info.
        let pool = unsafe { dev.create_command_pool(&pool_info, None) }
            .map_err(|e| vk.error("vkCreateCommandPool", e))?;
        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut type_info);
        // SAFETY: valid device; timeline semaphores are enabled at device creation.
        let timeline = match unsafe { dev.create_semaphore(&info, None) } {
            Ok(s) => s,
            Err(e) => {
                // SAFETY: the pool was created above and holds nothing.
                unsafe { dev.destroy_command_pool(pool, None) };
                return Err(vk.error("vkCreateSemaphore", e));
            }
        };
        let queue = queue % vk.queues.len().max(1);
        Ok(StreamCore {
            vk,
            queue,
            timeline,
            state: Mutex::new(State {
                pool,
                free_cbs: Vec::new(),
                rec: None,
                in_flight: VecDeque::new(),
                submitted: 0,
                completed: 0,
                waits: Vec::new(),
                arena: Arena::default(),
                failures: Vec::new(),
            }),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| Error::DeviceLost)
    }

    /// The value the stream's timeline has reached.
    pub fn counter(&self) -> Result<u64> {
        // SAFETY: our own semaphore, alive as long as `self`.
        unsafe { self.vk.device.get_semaphore_counter_value(self.timeline) }
            .map_err(|e| self.vk.error("vkGetSemaphoreCounterValue", e))
    }

    /// Records one command: a barrier orders it after everything before it on the stream, then
    /// `f` records the command itself. Returns the timeline value that will mark it done.
    pub fn record<R>(&self, f: impl FnOnce(&mut Recorder<'_>) -> Result<R>) -> Result<(R, u64)> {
        self.vk.check_lost()?;
        let dev = &self.vk.device;
        let mut guard = self.lock()?;
        let st = &mut *guard;
        if st.rec.is_none() {
            let cb = match st.free_cbs.pop() {
                Some(cb) => cb,
                None => {
                    let alloc = vk::CommandBufferAllocateInfo::default()
                        .command_pool(st.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1);
                    // SAFETY: the pool is externally synchronized by the state mutex.
                    unsafe { dev.allocate_command_buffers(&alloc) }
                        .map_err(|e| self.vk.error("vkAllocateCommandBuffers", e))?[0]
                }
            };
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the command buffer is new or was reset after its last submission completed.
            if let Err(e) = unsafe { dev.begin_command_buffer(cb, &begin) } {
                st.free_cbs.push(cb);
                return Err(self.vk.error("vkBeginCommandBuffer", e));
            }
            st.rec = Some(Recording {
                cb,
                keep: Vec::new(),
                checks: Vec::new(),
                commands: 0,
                labels: Vec::new(),
                first_dispatches: 0,
                chunk: None,
            });
        }
        let Some(rec) = st.rec.as_mut() else {
            return Err(Error::DeviceLost);
        };
        full_barrier(dev, rec.cb);
        let mut r = Recorder {
            dev,
            cb: rec.cb,
            vk: &self.vk,
            rec,
            arena: &mut st.arena,
        };
        let out = f(&mut r)?;
        rec_count(st);
        let value = st.submitted + 1;
        if st.rec.as_ref().is_some_and(|r| r.commands >= MAX_BATCH) {
            self.submit_locked(st)?;
        }
        Ok((out, value))
    }

    /// Submits the open command buffer, if any.
    pub fn submit_locked(&self, st: &mut State) -> Result<()> {
        if st.rec.is_none() && st.waits.is_empty() {
            return Ok(());
        }
        self.vk.check_lost()?;
        if st.in_flight.len() >= 2 {
            self.retire_locked(st, self.counter()?);
        }
        let dev = &self.vk.device;
        let (cb, mut keep, labels, checks, first_dispatches) = match st.rec.take() {
            Some(rec) => {
                let to_host = vk::MemoryBarrier::default()
                    .src_access_mask(
                        vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
                    )
                    .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::HOST_WRITE);
                // SAFETY: recording into our open command buffer, then ending it.
                let ended = unsafe {
                    dev.cmd_pipeline_barrier(
                        rec.cb,
                        vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::HOST,
                        vk::DependencyFlags::empty(),
                        &[to_host],
                        &[],
                        &[],
                    );
                    dev.end_command_buffer(rec.cb)
                };
                if let Err(e) = ended {
                    self.recycle(st, rec.cb);
                    return Err(self.vk.error("vkEndCommandBuffer", e));
                }
                (
                    Some(rec.cb),
                    rec.keep,
                    rec.labels,
                    rec.checks,
                    rec.first_dispatches,
                )
            }
            None => (None, Vec::new(), Vec::new(), Vec::new(), 0),
        };
        let mut wait_sems = Vec::new();
        let mut wait_values = Vec::new();
        for (w, v) in st.waits.drain(..) {
            // A stream that is gone waited for its own work when it was dropped.
            if let Some(other) = w.upgrade() {
                wait_sems.push(other.timeline);
                wait_values.push(v);
                keep.push(other);
            }
        }
        let wait_stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; wait_sems.len()];
        let value = st.submitted + 1;
        let signal = [self.timeline];
        let signal_values = [value];
        let mut timeline = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let cbs: Vec<vk::CommandBuffer> = cb.into_iter().collect();
        let submit = vk::SubmitInfo::default()
            .command_buffers(&cbs)
            .wait_semaphores(&wait_sems)
            .wait_dst_stage_mask(&wait_stages)
            .signal_semaphores(&signal)
            .push_next(&mut timeline);
        let queue = self.vk.queues[self.queue]
            .lock()
            .map_err(|_| Error::DeviceLost)?;
        // SAFETY: the queue is externally synchronized by its mutex; the command buffer is
        // complete; every semaphore lives until the submission is retired (kept above).
        let submitted = unsafe { dev.queue_submit(*queue, &[submit], vk::Fence::null()) };
        drop(queue);
        if let Err(e) = submitted {
            if let Some(cb) = cb {
                self.recycle(st, cb);
            }
            return Err(self.vk.error("vkQueueSubmit", e));
        }
        st.submitted = value;
        if first_dispatches > 0 {
            self.vk
                .first_dispatches
                .add(self.timeline, value, first_dispatches);
        }
        st.in_flight.push_back(Submission {
            value,
            cb: cb.unwrap_or_default(),
            keep,
            checks,
            labels,
        });
        Ok(())
    }

    fn recycle(&self, st: &mut State, cb: vk::CommandBuffer) {
        if cb == vk::CommandBuffer::null() {
            return;
        }
        // SAFETY: the command buffer is not pending (its submission completed or never happened).
        if unsafe {
            self.vk
                .device
                .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
        }
        .is_ok()
        {
            st.free_cbs.push(cb);
        }
    }

    /// Releases what completed submissions held. Returns what they kept, to be dropped after
    /// the lock is released.
    fn retire_locked(&self, st: &mut State, reached: u64) -> Vec<Keep> {
        st.completed = st.completed.max(reached);
        let mut dropped = Vec::new();
        while st
            .in_flight
            .front()
            .is_some_and(|s| s.value <= st.completed)
        {
            if let Some(s) = st.in_flight.pop_front() {
                self.recycle(st, s.cb);
                st.failures
                    .extend(s.checks.iter().filter_map(StatusCheck::failure));
                dropped.extend(s.keep);
            }
        }
        dropped
    }

    /// Submits what is batched and waits for all of it.
    pub fn synchronize(&self) -> Result<()> {
        let target = {
            let mut st = self.lock()?;
            self.submit_locked(&mut st)?;
            st.submitted
        };
        self.wait_value(target)
    }

    /// Submits the marked point `value` if it is still batched, then waits for it.
    pub fn wait_value(&self, value: u64) -> Result<()> {
        let labels = {
            let mut st = self.lock()?;
            if value > st.submitted {
                self.submit_locked(&mut st)?;
            }
            if st.completed >= value {
                return Ok(());
            }
            st.in_flight
                .iter()
                .find(|s| s.value >= value.min(st.submitted))
                .map(|s| s.labels.clone())
                .unwrap_or_default()
        };
        self.vk.check_lost()?;
        if let Some(late) = crate::wait::wait(&self.vk, self.timeline, value)? {
            // The work may still run: nothing it uses may be freed, and the queue is blocked
            // behind it, so the whole context is given up (its objects leak).
            self.vk.mark_lost();
            let what = if labels.is_empty() {
                "work on a stream".to_string()
            } else {
                labels.join(", ")
            };
            tracing::error!(
                %what,
                waited = ?late.waited,
                allowance = ?late.allowance,
                "the device did not finish in time"
            );
            return Err(Error::Timeout {
                what,
                millis: late.waited.as_millis() as u64,
                compile_allowance_ms: late.allowance.as_millis() as u64,
            });
        }
        let (dropped, failure) = {
            let mut st = self.lock()?;
            let dropped = self.retire_locked(&mut st, value);
            let failure = (!st.failures.is_empty()).then(|| st.failures.remove(0));
            st.failures.clear();
            (dropped, failure)
        };
        drop(dropped);
        failure.map_or(Ok(()), Err)
    }

    /// Makes the stream's next submission wait until `other` reaches `value`.
    pub fn add_wait(&self, other: &Arc<StreamCore>, value: u64) -> Result<()> {
        if std::ptr::eq(self, Arc::as_ptr(other)) {
            return Ok(()); // a stream is ordered with itself
        }
        let mut st = self.lock()?;
        // Work already batched must not wait: the dependency is for what comes after.
        self.submit_locked(&mut st)?;
        st.waits.push((Arc::downgrade(other), value));
        Ok(())
    }

    /// Ends the open batch (for events, which mark the point after everything recorded so
    /// far) and returns the timeline value that marks it.
    pub fn mark(&self) -> Result<u64> {
        let mut st = self.lock()?;
        self.submit_locked(&mut st)?;
        Ok(st.submitted)
    }
}

fn rec_count(st: &mut State) {
    if let Some(r) = st.rec.as_mut() {
        r.commands += 1;
    }
}

impl Drop for StreamCore {
    fn drop(&mut self) {
        if !self.vk.is_lost() {
            let _ = self.synchronize();
        }
        self.vk.first_dispatches.forget(self.timeline);
        if self.vk.is_lost() {
            // Work may still run and use the command buffers and semaphore: leak them.
            return;
        }
        if let Ok(mut st) = self.state.lock() {
            st.arena = Arena::default();
            // All submissions completed (synchronized above); the pool (with its command
            // buffers) and the semaphore go once the driver is surely done with them.
            self.vk.retire(st.pool, self.timeline);
        }
    }
}
