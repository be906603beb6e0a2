//! Events: points in a stream's work, for waiting, cross-stream dependencies and timing.

use std::sync::Arc;
use std::time::Duration;

use ash::vk;

use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::stream::{Stream, StreamCore};

/// A point in a stream's work (`cudaEvent_t`): everything issued on the stream before
/// [`Stream::record_event`] returned. Other streams can wait for it ([`Stream::wait_event`]),
/// the host can wait for it ([`Event::synchronize`]), and two events give the device time
/// between them ([`Event::elapsed`]) where the device has timestamps.
///
/// ```no_run
/// # use ptxvk_runtime::*;
/// # let ctx = Context::new(&ContextOptions::from_env())?;
/// let (upload, compute) = (ctx.new_stream()?, ctx.new_stream()?);
/// let data = DeviceBuffer::<u32>::zeroed(&ctx, 1 << 20)?;
/// upload.fill(&data, 7)?;
/// let uploaded = upload.record_event()?;
/// compute.wait_event(&uploaded)?; // work issued on `compute` from now on runs after the fill
/// // compute.launch(...)
/// # Ok::<(), Error>(())
/// ```
pub struct Event {
    pub(crate) core: Arc<StreamCore>,
    pub(crate) value: u64,
    query: Option<Arc<TimestampQuery>>,
    _ctx: Context,
}

/// A one-entry timestamp query pool.
pub(crate) struct TimestampQuery {
    vk: Arc<Vk>,
    pool: vk::QueryPool,
}

impl Drop for TimestampQuery {
    fn drop(&mut self) {
        if !self.vk.is_lost() {
            // SAFETY: the query's submission completed (the pool is kept alive until then).
            unsafe { self.vk.device.destroy_query_pool(self.pool, None) };
        }
    }
}

impl Stream {
    /// Marks the point after all work issued so far (and submits that work). The event
    /// carries a device timestamp when the device has timestamps.
    pub fn record_event(&self) -> Result<Event> {
        let vk = self.core.vk.clone();
        let query = if self.ctx.info().timestamps {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(1);
            // SAFETY: valid device and create info.
            let pool = unsafe { vk.device.create_query_pool(&info, None) }
                .map_err(|e| vk.error("vkCreateQueryPool", e))?;
            // SAFETY: host query reset is enabled at device creation; the pool is new.
            unsafe { vk.device.reset_query_pool(pool, 0, 1) };
            Some(Arc::new(TimestampQuery {
                vk: vk.clone(),
                pool,
            }))
        } else {
            None
        };
        if let Some(q) = &query {
            let q2 = q.clone();
            self.core.record(|r| {
                // SAFETY: recording into the stream's open command buffer; the pool was reset.
                unsafe {
                    r.dev.cmd_write_timestamp(
                        r.cb,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                        q2.pool,
                        0,
                    )
                };
                r.keep(q2);
                Ok(())
            })?;
        }
        let value = self.core.mark()?;
        Ok(Event {
            core: self.core.clone(),
            value,
            query,
            _ctx: self.ctx.clone(),
        })
    }

    /// Marks the point after all work issued so far, without a timestamp: an event for other
    /// streams to wait on or the host to poll that adds no command, so a stream that was idle
    /// stays idle. [`Event::elapsed`] fails on it.
    pub fn record_marker(&self) -> Result<Event> {
        Ok(Event {
            core: self.core.clone(),
            value: self.core.mark()?,
            query: None,
            _ctx: self.ctx.clone(),
        })
    }

    /// Makes work issued on this stream from now on wait until `event` has completed (on the
    /// device: the host does not wait). Work already issued is not affected.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        if !Arc::ptr_eq(&self.core.vk, &event.core.vk) {
            return Err(Error::InvalidArgument(
                "the event belongs to another context".into(),
            ));
        }
        self.core.add_wait(&event.core, event.value)
    }
}

impl Event {
    /// Waits until the work before the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        self.core.wait_value(self.value)
    }

    /// Whether the work before the event has completed.
    pub fn is_complete(&self) -> Result<bool> {
        Ok(self.core.counter()? >= self.value)
    }

    /// Device time from this event to `end` (both are waited for). Fails with
    /// [`Error::Unsupported`] where the device has no timestamps.
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        let a = self.timestamp()?;
        let b = end.timestamp()?;
        let mask = self.core.vk.timestamp_mask;
        let ticks = b.wrapping_sub(a) & mask;
        let ns = ticks as f64 * self.core.vk.timestamp_period_ns;
        Ok(Duration::from_nanos(ns as u64))
    }

    fn timestamp(&self) -> Result<u64> {
        let q = self.query.as_ref().ok_or_else(|| Error::Unsupported {
            what: "event timing: the device's compute queue has no timestamps".into(),
        })?;
        self.synchronize()?;
        let mut out = [0u64; 1];
        // SAFETY: the query was written by a completed submission.
        unsafe {
            q.vk.device.get_query_pool_results(
                q.pool,
                0,
                &mut out,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(|e| q.vk.error("vkGetQueryPoolResults", e))?;
        Ok(out[0])
    }
}
