//! `%clock`, `%clock64` and `%globaltimer` on a device without a shader clock (the runtime does
//! not enable VK_KHR_shader_clock): the substitute counter of
//! docs/decisions/0101-clocks-substitute-counter.md. Later reads give larger values, the 32-bit
//! registers are the halves of the 64-bit ones, and a loop that waits for a span of time ends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry clocks(.param .u64 out)
{
    .reg .b64 %rd<12>;
    .reg .b32 %r<8>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 64;
    add.u64 %rd1, %rd1, %rd2;
    mov.u64 %rd3, %clock64;
    mov.u32 %r2, %clock;
    mov.u32 %r3, %clock_hi;
    mov.u64 %rd4, %globaltimer;
    mov.u32 %r4, %globaltimer_lo;
    mov.u32 %r5, %globaltimer_hi;
    mov.u32 %r6, 0;
    // Wait for 100000 cycles, counting the turns.
WAIT:
    add.u32 %r6, %r6, 1;
    mov.u64 %rd5, %clock64;
    sub.s64 %rd6, %rd5, %rd3;
    setp.lt.s64 %p, %rd6, 100000;
    @%p bra WAIT;
    mov.u64 %rd7, %globaltimer;
    st.global.u64 [%rd1], %rd3;
    st.global.u32 [%rd1+8], %r2;
    st.global.u32 [%rd1+12], %r3;
    st.global.u64 [%rd1+16], %rd4;
    st.global.u32 [%rd1+24], %r4;
    st.global.u32 [%rd1+28], %r5;
    st.global.u64 [%rd1+32], %rd5;
    st.global.u64 [%rd1+40], %rd7;
    st.global.u32 [%rd1+48], %r6;
    ret;
}
"#;

#[test]
fn clocks_advance_and_timing_loops_end() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = ctx
        .load_ptx("clocks.ptx", PTX)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("clocks").unwrap();
    let threads = 8usize;
    let out = DeviceBuffer::<u64>::zeroed(&ctx, threads * 8).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads as u32, 1, 1],
        shared_bytes: 0,
    };
    k.launch(&cfg, &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..threads {
        let w = &got[8 * t..8 * t + 8];
        let (clock64, lo_hi_clock) = (w[0], w[1]);
        let (clock_lo, clock_hi) = (lo_hi_clock & 0xffff_ffff, lo_hi_clock >> 32);
        let (timer, timer_lo, timer_hi) = (w[2], w[3] & 0xffff_ffff, w[3] >> 32);
        let (after_wait, timer_after, turns) = (w[4], w[5], w[6] & 0xffff_ffff);
        // Each read is later than the one before it.
        assert!(clock_lo > clock64 & 0xffff_ffff, "thread {t}: {w:x?}");
        assert!(clock_hi >= clock64 >> 32, "thread {t}: {w:x?}");
        assert!(timer_lo > timer & 0xffff_ffff, "thread {t}: {w:x?}");
        assert!(timer_hi >= timer >> 32, "thread {t}: {w:x?}");
        assert!(timer_after > timer, "thread {t}: {w:x?}");
        // The wait ended once 100000 cycles had passed, after a bounded number of turns.
        assert!(after_wait - clock64 >= 100_000, "thread {t}: {w:x?}");
        assert!((1..=100_000).contains(&turns), "thread {t}: {turns} turns");
    }
}
