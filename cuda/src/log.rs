//! Logging for programs that load the library: `PTXVK_LOG` is a `tracing` filter
//! (`PTXVK_LOG=ptxvk_cuda=debug` shows every call), warnings by default, to stderr.

use std::sync::Once;

pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let filter = tracing_subscriber::EnvFilter::try_from_env("PTXVK_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        // A program that installed its own subscriber (a Rust program using this crate)
        // keeps it.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    });
}
