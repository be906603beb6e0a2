//! The thread CPU clock of the benchmark programs (`translator/benches/translate.rs` and
//! `xtask/src/bench_parse.rs`, which includes this file by path).

use std::time::Duration;

/// CPU time of this thread so far, so that other processes on a busy machine do not count
/// against what is measured; `None` (wall-clock time is used) where there is no such clock.
/// `clock_gettime` counts to the nanosecond; `/proc/thread-self/schedstat`, used before, moves
/// only at scheduler ticks (4 ms here), so a best-of-N picked the samples whose ticks fell
/// luckily.
#[cfg(unix)]
pub fn thread_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the call's duration.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

#[cfg(not(unix))]
pub fn thread_cpu() -> Option<Duration> {
    None
}
