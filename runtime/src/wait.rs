//! Waits for a stream's timeline, bounded by the hang timeout and the compile allowance: a
//! wait that covers a pipeline's first dispatch may take longer.
//!
//! Lavapipe (llvmpipe) runs LLVM over a compute pipeline when the pipeline is first dispatched,
//! on the queue's thread, not in `vkCreateComputePipelines`: the compile happens inside the
//! wait for the launch, and for a large kernel with an empty shader cache it can take longer
//! than the hang timeout. So each submission that holds first dispatches is registered here
//! until it is seen complete, and a wait that runs out of its hang timeout while any is pending
//! (or that began while one was) waits longer before it declares a hang
//! (docs/decisions/0213-first-dispatch-compile-allowance.md). The registry is the context's, not
//! the stream's: a wait is also held up by another stream's compile that its work waits for
//! (events) or queues behind (streams sharing a queue).

use std::sync::Mutex;
use std::time::Duration;

use ash::vk;

use crate::context::Vk;
use crate::error::Result;

/// First dispatches counted for one wait's allowance, at most: bounds how late a real hang in
/// a batch of new kernels is reported.
pub(crate) const MAX_COUNTED: u32 = 4;

/// Submissions holding first dispatches that have not been seen complete.
#[derive(Default)]
pub(crate) struct FirstDispatches {
    /// (stream timeline, the value its submission signals, first dispatches in it).
    pending: Mutex<Vec<(vk::Semaphore, u64, u32)>>,
}

impl FirstDispatches {
    /// Registers the submission that signals `value` on `timeline` and holds `count` first
    /// dispatches.
    pub fn add(&self, timeline: vk::Semaphore, value: u64, count: u32) {
        if let Ok(mut p) = self.pending.lock() {
            p.push((timeline, value, count));
        }
    }

    /// Forgets the submissions of a stream going away, before its timeline is destroyed.
    pub fn forget(&self, timeline: vk::Semaphore) {
        if let Ok(mut p) = self.pending.lock() {
            p.retain(|&(t, _, _)| t != timeline);
        }
    }

    /// First dispatches in registered submissions not complete yet; complete ones are dropped.
    pub fn pending(&self, dev: &ash::Device) -> u32 {
        let Ok(mut p) = self.pending.lock() else {
            return 0;
        };
        p.retain(|&(timeline, value, _)| {
            // SAFETY: a registered timeline belongs to a live stream (streams forget theirs
            // before it is destroyed). An error (a lost device) counts as not complete.
            unsafe { dev.get_semaphore_counter_value(timeline) }.map_or(true, |v| v < value)
        });
        p.iter().map(|&(_, _, n)| n).sum()
    }
}

/// How much longer than its hang timeout a wait covering `first_dispatches` may take.
pub(crate) fn allowance(per_compile: Duration, first_dispatches: u32) -> Duration {
    per_compile.saturating_mul(first_dispatches.min(MAX_COUNTED))
}

/// A wait that ran out of time.
#[derive(Debug)]
pub(crate) struct TimedOut {
    /// All it waited: the hang timeout and the allowance.
    pub waited: Duration,
    /// The compile allowance it included (zero where it covered no first dispatch).
    pub allowance: Duration,
}

/// Waits for `timeline` to reach `value`: for the context's hang timeout, then, where the work
/// holds first dispatches, for the compile allowance. `None` once it is reached.
pub(crate) fn wait(vk: &Vk, timeline: vk::Semaphore, value: u64) -> Result<Option<TimedOut>> {
    // Counted before as well as at the timeout: a compile that ended just before the timeout
    // may still have delayed the work queued behind it past it.
    let before = vk.first_dispatches.pending(&vk.device);
    if wait_for(vk, timeline, value, vk.timeout)? {
        return Ok(None);
    }
    let compiling = before.max(vk.first_dispatches.pending(&vk.device));
    let allowance = allowance(vk.compile_timeout, compiling);
    if !allowance.is_zero() {
        tracing::debug!(
            pipelines = compiling,
            ?allowance,
            "past the timeout with first dispatches in flight: waiting for the driver's compile"
        );
        if wait_for(vk, timeline, value, allowance)? {
            return Ok(None);
        }
    }
    Ok(Some(TimedOut {
        waited: vk.timeout.saturating_add(allowance),
        allowance,
    }))
}

/// Waits at most `timeout` for `timeline` to reach `value`; false if it did not.
fn wait_for(vk: &Vk, timeline: vk::Semaphore, value: u64, timeout: Duration) -> Result<bool> {
    let sems = [timeline];
    let values = [value];
    let info = vk::SemaphoreWaitInfo::default()
        .semaphores(&sems)
        .values(&values);
    let nanos = timeout.as_nanos().min(u128::from(u64::MAX)) as u64;
    // SAFETY: the caller's own timeline semaphore; the wait is bounded by the timeout.
    match unsafe { vk.device.wait_semaphores(&info, nanos) } {
        Ok(()) => Ok(true),
        Err(vk::Result::TIMEOUT) => Ok(false),
        Err(e) => Err(vk.error("vkWaitSemaphores", e)),
    }
}
