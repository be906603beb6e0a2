//! Logging for programs that load the library: `PTXVK_LOG` is a `tracing` filter
//! (`PTXVK_LOG=ptxvk_cuda=debug` shows every call), warnings by default, to stderr.
//!
//! Events can come while a thread's storage is being torn down (at thread or process exit:
//! a per-thread stream or a cached launch dropped, the runtime logging what it releases).
//! The formatting layer keeps a buffer in thread-local storage and panics if that is gone, and
//! a panic there aborts the caller's process; so events are dropped once [`Alive`], touched
//! before every event the formatter sees, is gone. Thread-local destructors run in the reverse
//! order of their registration, so `Alive` (registered just before the formatter's buffer, on
//! the thread's first event) goes right after the buffer and before anything registered
//! earlier whose destructor might log.

use std::sync::Once;

use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let filter = tracing_subscriber::EnvFilter::try_from_env("PTXVK_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        // A program that installed its own subscriber (a Rust program using this crate)
        // keeps it.
        let _ = tracing_subscriber::registry()
            .with(filter)
            .with(TeardownGate)
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
            .try_init();
    });
}

/// A thread-local value with a destructor: readable until the thread's storage is torn down.
struct Alive;

impl Drop for Alive {
    fn drop(&mut self) {}
}

thread_local! {
    static ALIVE: Alive = const { Alive };
}

/// Whether the calling thread's storage is still there (see the module's documentation).
fn alive() -> bool {
    ALIVE.try_with(|_| ()).is_ok()
}

/// Lets an event through only while the thread's storage is alive.
struct TeardownGate;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for TeardownGate {
    fn event_enabled(&self, _event: &tracing::Event<'_>, _cx: Context<'_, S>) -> bool {
        alive()
    }
}
