//! Device printf and malloc through the runtime's API: printf records drained into a sink when
//! the launch completes, a FIFO too small for them dropping whole records, and a heap that
//! answers NULL once it is used up (`docs/decisions/0179-device-printf-and-heap.md`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Limit};

/// `speak` prints one line per thread, its format's address held in a register set before a
/// loop, as compilers hoist it; `grab` mallocs `size` bytes per thread and keeps the pointer.
const PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.extern .func (.param .b32 r) vprintf (.param .b64 fmt, .param .b64 args);
.extern .func (.param .b64 r) malloc (.param .b64 size);
.extern .func free (.param .b64 ptr);
.global .align 1 .b8 fmt[24] = {116, 61, 37, 100, 32, 105, 61, 37, 117, 32, 118, 61, 37, 46, 50, 102, 32, 115, 61, 37, 115, 10, 0};
.global .align 1 .b8 word[5] = {119, 111, 114, 100, 0};

.visible .entry speak(.param .u64 out, .param .u32 rounds)
{
	.local .align 8 .b8 depot[32];
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	.reg .f64 %fd<2>;
	mov.u64 %rd1, fmt;
	cvta.global.u64 %rd2, %rd1;
	mov.u64 %rd3, depot;
	cvta.local.u64 %rd4, %rd3;
	mov.u64 %rd5, word;
	cvta.global.u64 %rd6, %rd5;
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [rounds];
	mov.u32 %r3, 0;
	mov.u32 %r7, 0;
LOOP:
	st.local.u32 [%rd3], %r1;
	st.local.u32 [%rd3+4], %r3;
	cvt.rn.f64.u32 %fd1, %r1;
	mul.f64 %fd1, %fd1, 0d3FD0000000000000;
	st.local.f64 [%rd3+8], %fd1;
	st.local.u64 [%rd3+16], %rd6;
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd2;
	.param .b64 p1;
	st.param.b64 [p1], %rd4;
	.param .b32 r0;
	call.uni (r0), vprintf, (p0, p1);
	ld.param.b32 %r4, [r0];
	}
	add.u32 %r7, %r7, %r4;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r2;
	@%p1 bra LOOP;
	ld.param.u64 %rd7, [out];
	mul.wide.u32 %rd8, %r1, 4;
	add.s64 %rd9, %rd7, %rd8;
	st.global.u32 [%rd9], %r7;
	ret;
}

.visible .entry grab(.param .u64 out, .param .u64 size, .param .u32 keep)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [size];
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd1;
	.param .b64 r0;
	call.uni (r0), malloc, (p0);
	ld.param.b64 %rd2, [r0];
	}
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd3, [out];
	mul.wide.u32 %rd4, %r1, 8;
	add.s64 %rd5, %rd3, %rd4;
	st.global.u64 [%rd5], %rd2;
	ld.param.u32 %r2, [keep];
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra DONE;
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd2;
	call.uni free, (p0);
	}
DONE:
	ret;
}

.visible .entry release(.param .u64 ptrs)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<6>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [ptrs];
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u64 %rd4, [%rd3];
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd4;
	call.uni free, (p0);
	}
	ret;
}
"#;

fn capture(ctx: &Context) -> Arc<Mutex<Vec<u8>>> {
    let out = Arc::new(Mutex::new(Vec::new()));
    let sink = out.clone();
    ctx.set_printf_sink(Arc::new(move |b: &[u8]| {
        sink.lock().unwrap().extend_from_slice(b)
    }))
    .unwrap();
    out
}

fn sorted_lines(out: &Mutex<Vec<u8>>) -> Vec<String> {
    let text = String::from_utf8(std::mem::take(&mut *out.lock().unwrap())).unwrap();
    let mut v: Vec<String> = text.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn printf_lines_arrive_when_the_launch_completes() {
    let ctx = common::context();
    let out = capture(&ctx);
    let module = ctx.load_ptx("services.ptx", PTX).unwrap();
    let speak = module.kernel("speak").unwrap();
    let threads = 40u32;
    let counts = DeviceBuffer::<u32>::zeroed(&ctx, threads as usize).unwrap();
    let stream = ctx.new_stream().unwrap();
    stream
        .launch(
            &speak,
            &LaunchConfig::new([1, 1, 1], [threads, 1, 1]),
            &[(&counts).into(), 3u32.into()],
        )
        .unwrap();
    stream.synchronize().unwrap();
    let mut want: Vec<String> = (0..threads)
        .flat_map(|t| {
            (0..3).map(move |i| format!("t={t} i={i} v={:.2} s=word", f64::from(t) * 0.25))
        })
        .collect();
    want.sort();
    assert_eq!(sorted_lines(&out), want);
    // printf returns its number of arguments: 4 per call.
    assert!(counts.to_vec().unwrap().iter().all(|&c| c == 12));
}

#[test]
fn a_full_fifo_drops_whole_records() {
    let ctx = common::context();
    let out = capture(&ctx);
    // Each record is 16 bytes of header and 24 of arguments: 4096 bytes hold 102 of them.
    ctx.set_limit(Limit::PrintfFifoSize, 4096).unwrap();
    let module = ctx.load_ptx("services.ptx", PTX).unwrap();
    let speak = module.kernel("speak").unwrap();
    let counts = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
    speak
        .launch(&cfg, &[(&counts).into(), 2u32.into()])
        .unwrap();
    let lines = sorted_lines(&out);
    assert_eq!(lines.len(), 4096 / 40);
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("t=") && l.ends_with(" s=word"))
    );
    // Drained: the next launch has the whole FIFO again.
    speak
        .launch(&cfg, &[(&counts).into(), 1u32.into()])
        .unwrap();
    assert_eq!(sorted_lines(&out).len(), 64);
    assert!(ctx.set_limit(Limit::PrintfFifoSize, 8192).is_err());
    assert_eq!(ctx.limit(Limit::PrintfFifoSize).unwrap(), 4096);
}

#[test]
fn freed_blocks_are_reused_and_malloc_answers_null_once_the_heap_is_used_up() {
    let ctx = common::context();
    ctx.set_limit(Limit::MallocHeapSize, 64 * 1024).unwrap();
    let module = ctx.load_ptx("services.ptx", PTX).unwrap();
    let grab = module.kernel("grab").unwrap();
    let release = module.kernel("release").unwrap();
    let ptrs = DeviceBuffer::<u64>::zeroed(&ctx, 32).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
    let run = |size: u64, keep: u32| {
        grab.launch(&cfg, &[(&ptrs).into(), size.into(), keep.into()])
            .unwrap();
        ptrs.to_vec().unwrap()
    };
    let free_all = || release.launch(&cfg, &[(&ptrs).into()]).unwrap();
    // 1000 bytes are 63 granules of 16, a block of 64 and a granule of header: 64 KiB (4096
    // granules) hold 63 such blocks.
    let mut first = run(1000, 1);
    first.sort();
    assert!(first.iter().all(|&p| p != 0 && p % 16 == 0), "{first:x?}");
    assert!(first.windows(2).all(|w| w[1] - w[0] >= 1024), "{first:x?}");
    // Freed, the same 32 blocks come back.
    free_all();
    let mut again = run(1000, 1);
    again.sort();
    assert_eq!(again, first);
    free_all();
    // Ten rounds that free their blocks at once need them back (the threads may share).
    for _ in 0..10 {
        assert!(run(1000, 0).iter().all(|&p| p != 0));
    }
    // Whatever the rounds left on the free list and under the cursor, 63 blocks in all.
    let kept: usize = (0..3)
        .map(|_| run(1000, 1).iter().filter(|&&p| p != 0).count())
        .sum();
    assert_eq!(kept, 63);
    // A request larger than the heap fails without using it up.
    assert!(run(1 << 40, 1).iter().all(|&p| p == 0));
    // One granule is left; the smallest block needs two.
    assert!(run(1, 1).iter().all(|&p| p == 0));
}

/// Without 64-bit atomics (as on some Apple GPUs) the heap is a bump allocator: blocks are
/// distinct and aligned, freeing gives nothing back, and a full heap answers NULL.
#[test]
fn without_64_bit_atomics_malloc_only_bumps() {
    let mut opts = common::options();
    opts.restrict.no_int64_atomics = true;
    let ctx = ptxvk_runtime::Context::new(&opts).unwrap();
    ctx.set_limit(Limit::MallocHeapSize, 64 * 1024).unwrap();
    let module = ctx.load_ptx("services.ptx", PTX).unwrap();
    let grab = module.kernel("grab").unwrap();
    let ptrs = DeviceBuffer::<u64>::zeroed(&ctx, 32).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
    // 63 granules a block, headerless: 65 blocks of 1000 bytes in 4096 granules, freed or not.
    let mut total = 0;
    for _ in 0..3 {
        grab.launch(&cfg, &[(&ptrs).into(), 1000u64.into(), 0u32.into()])
            .unwrap();
        let mut got: Vec<u64> = ptrs
            .to_vec()
            .unwrap()
            .into_iter()
            .filter(|&p| p != 0)
            .collect();
        got.sort();
        assert!(got.iter().all(|&p| p % 16 == 0));
        assert!(got.windows(2).all(|w| w[1] - w[0] >= 1008), "{got:x?}");
        total += got.len();
    }
    assert_eq!(total, 65);
}

/// `relay` prints with a format it is handed (a device buffer, not a module constant) and a
/// `%s` argument in another device buffer; `fmt` NULL prints nothing.
const RELAY_PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.extern .func (.param .b32 r) vprintf (.param .b64 fmt, .param .b64 args);

.visible .entry relay(.param .u64 fmt, .param .u64 text, .param .u64 out)
{
	.local .align 8 .b8 depot[32];
	.reg .b32 %r<4>;
	.reg .b64 %rd<10>;
	.reg .f64 %fd<2>;
	ld.param.u64 %rd1, [fmt];
	ld.param.u64 %rd2, [text];
	mov.u64 %rd3, depot;
	cvta.local.u64 %rd4, %rd3;
	mov.u32 %r1, %tid.x;
	st.local.u64 [%rd3], %rd2;
	st.local.u32 [%rd3+8], %r1;
	cvt.rn.f64.u32 %fd1, %r1;
	mul.f64 %fd1, %fd1, 0d3FF8000000000000;
	st.local.f64 [%rd3+16], %fd1;
	add.u32 %r2, %r1, 65;
	st.local.u32 [%rd3+24], %r2;
	{
	.param .b64 p0;
	st.param.b64 [p0], %rd1;
	.param .b64 p1;
	st.param.b64 [p1], %rd4;
	.param .b32 r0;
	call.uni (r0), vprintf, (p0, p1);
	ld.param.b32 %r3, [r0];
	}
	ld.param.u64 %rd7, [out];
	mul.wide.u32 %rd8, %r1, 4;
	add.s64 %rd9, %rd7, %rd8;
	st.global.u32 [%rd9], %r3;
	ret;
}
"#;

/// A format and a `%s` string in device memory, read by the host when it drains the FIFO:
/// each line is what C's printf makes of the format and the thread's arguments.
#[test]
fn formats_and_strings_from_device_memory() {
    let ctx = common::context();
    let out = capture(&ctx);
    let module = ctx.load_ptx("relay.ptx", RELAY_PTX).unwrap();
    let relay = module.kernel("relay").unwrap();
    let fmt = DeviceBuffer::from_slice(&ctx, b"%s #%d %5.1f|%c\n\0").unwrap();
    let text = DeviceBuffer::from_slice(&ctx, b"from a buffer\0ignored").unwrap();
    let threads = 8u32;
    let counts = DeviceBuffer::<i32>::zeroed(&ctx, threads as usize).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [threads, 1, 1]);
    relay
        .launch(&cfg, &[(&fmt).into(), (&text).into(), (&counts).into()])
        .unwrap();
    let mut want: Vec<String> = (0..threads)
        .map(|t| {
            let c = char::from(b'A' + t as u8);
            format!("from a buffer #{t} {:5.1}|{c}", f64::from(t) * 1.5)
        })
        .collect();
    want.sort();
    assert_eq!(sorted_lines(&out), want);
    // The count of arguments needs the format parsed, which the device does not: 0.
    assert!(counts.to_vec().unwrap().iter().all(|&c| c == 0));
    // A NULL format prints nothing and returns -1, as CUDA documents.
    relay
        .launch(&cfg, &[0u64.into(), (&text).into(), (&counts).into()])
        .unwrap();
    assert!(sorted_lines(&out).is_empty());
    assert!(counts.to_vec().unwrap().iter().all(|&c| c == -1));
    // A `%s` pointer no buffer holds prints a marker instead of reading it.
    let bad = DeviceBuffer::from_slice(&ctx, b"[%s]\n\0").unwrap();
    relay
        .launch(&cfg, &[(&bad).into(), 16u64.into(), (&counts).into()])
        .unwrap();
    let lines = sorted_lines(&out);
    assert_eq!(
        lines,
        vec!["[<string at 0x10>]".to_string(); threads as usize]
    );
}
