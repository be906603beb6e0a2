//! Memory checking (on by default on CPU devices, `PTXVK_MEMCHECK`): a kernel that reads or
//! writes outside its memory fails with an error naming the instruction, and the process and
//! the context carry on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, Error, KernelArg, LaunchConfig};

const PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.visible .entry copy_n(.param .u64 dst, .param .u64 src, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [dst];
	ld.param.u64 %rd2, [src];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra END;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r3, [%rd4];
	add.s64 %rd5, %rd1, %rd3;
	st.global.u32 [%rd5], %r3;
END:
	ret;
}

.visible .entry shared_index(.param .u64 out, .param .u32 i)
{
	.shared .align 4 .u32 cells[64];
	.reg .b32 %r<6>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [i];
	mov.u32 %r2, cells;
	shl.b32 %r3, %r1, 2;
	add.u32 %r2, %r2, %r3;
	st.shared.u32 [%r2], 7;
	ld.shared.u32 %r4, [%r2];
	st.global.u32 [%rd1], %r4;
	ret;
}

.visible .entry local_index(.param .u64 out, .param .u32 i)
{
	.local .align 4 .b8 scratch[32];
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [i];
	mov.u64 %rd2, scratch;
	cvta.local.u64 %rd2, %rd2;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.u32 [%rd2], 5;
	ld.u32 %r2, [%rd2];
	st.global.u32 [%rd1], %r2;
	ret;
}

.visible .entry walk(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u64 %rd3, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	and.b32 %r4, %r2, 1;
	setp.eq.u32 %p2, %r4, 1;
	shr.u32 %r5, %r2, 1;
	mul.wide.u32 %rd4, %r5, 4;
	selp.b64 %rd5, %rd2, %rd1, %p2;
	add.s64 %rd6, %rd5, %rd4;
	ld.global.u32 %r6, [%rd6];
	add.u32 %r3, %r3, %r6;
	add.u32 %r2, %r2, 1;
	bra LOOP;
DONE:
	st.global.u32 [%rd3], %r3;
	ret;
}

.visible .entry indirect(.param .u64 table, .param .u64 out, .param .u32 slot, .param .u32 i)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [table];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [slot];
	ld.param.u32 %r2, [i];
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u64 %rd5, [%rd4];
	mul.wide.u32 %rd6, %r2, 4;
	add.s64 %rd7, %rd5, %rd6;
	ld.global.u32 %r3, [%rd7];
	st.global.u32 [%rd2], %r3;
	ret;
}
"#;

fn checked_context() -> Context {
    let opts = ContextOptions {
        memcheck: Some(true),
        ..common::options()
    };
    Context::new(&opts).unwrap()
}

fn failure(e: Error) -> String {
    match e {
        Error::KernelFailed { reason, .. } => reason,
        other => panic!("expected a kernel failure, got {other}"),
    }
}

#[test]
fn out_of_bounds_global_accesses_are_errors() {
    let ctx = checked_context();
    let m = ctx.load_ptx("oob.ptx", PTX).unwrap();
    let k = m.kernel("copy_n").unwrap();
    let src = DeviceBuffer::from_slice(&ctx, &(0..100u32).collect::<Vec<_>>()).unwrap();
    let dst = DeviceBuffer::<u32>::zeroed(&ctx, 100).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [128, 1, 1]);
    // In bounds: fine, and checked.
    k.launch(&cfg, &[(&dst).into(), (&src).into(), 100u32.into()])
        .unwrap();
    assert_eq!(dst.to_vec().unwrap(), (0..100u32).collect::<Vec<_>>());
    // One element past the end of `src`.
    let reason = failure(
        k.launch(&cfg, &[(&dst).into(), (&src).into(), 101u32.into()])
            .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds global load of 4 bytes"),
        "{reason}"
    );
    assert!(reason.contains("oob.ptx:18:"), "{reason}");
    assert!(reason.contains("ld.global.u32 %r3, [%rd4]"), "{reason}");
    // A wild pointer to store through.
    let reason = failure(
        k.launch(&cfg, &[KernelArg::Ptr(0x1000), (&src).into(), 10u32.into()])
            .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds global store of 4 bytes"),
        "{reason}"
    );
    assert!(reason.contains("oob.ptx:20:"), "{reason}");
    // The context is still usable.
    k.launch(&cfg, &[(&dst).into(), (&src).into(), 50u32.into()])
        .unwrap();
}

#[test]
fn one_access_alternating_between_buffers_is_checked_each_time() {
    // The site's last allocation changes at every access, then an access steps past the end
    // of the one it had just used.
    let ctx = checked_context();
    let m = ctx.load_ptx("oob.ptx", PTX).unwrap();
    let k = m.kernel("walk").unwrap();
    let a = DeviceBuffer::from_slice(&ctx, &(0..100u32).collect::<Vec<_>>()).unwrap();
    let b = DeviceBuffer::from_slice(&ctx, &(1000..1100u32).collect::<Vec<_>>()).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    let args = |n: u32| [(&a).into(), (&b).into(), (&out).into(), n.into()];
    k.launch(&cfg, &args(200)).unwrap();
    let want: u32 = (0..100u32).chain(1000..1100).sum();
    assert_eq!(out.to_vec().unwrap(), [want]);
    let reason = failure(k.launch(&cfg, &args(201)).unwrap_err());
    assert!(
        reason.contains("out-of-bounds global load of 4 bytes"),
        "{reason}"
    );
}

#[test]
fn pointers_no_parameter_points_into_are_checked_too() {
    // The launch's table puts the allocations its parameters point into first; these buffers
    // are reached only through pointers stored in memory, and there are more of them than the
    // table holds first, so each access is found by the search.
    let ctx = checked_context();
    let m = ctx.load_ptx("oob.ptx", PTX).unwrap();
    let k = m.kernel("indirect").unwrap();
    let targets: Vec<DeviceBuffer<u32>> = (0..8u32)
        .map(|t| DeviceBuffer::from_slice(&ctx, &(t * 100..t * 100 + 10).collect::<Vec<_>>()))
        .collect::<Result<_, _>>()
        .unwrap();
    let addrs: Vec<u64> = targets.iter().map(|b| b.address()).collect();
    let table = DeviceBuffer::from_slice(&ctx, &addrs).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let one = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    for slot in 0..8u32 {
        k.launch(
            &one,
            &[(&table).into(), (&out).into(), slot.into(), 9u32.into()],
        )
        .unwrap();
        assert_eq!(out.to_vec().unwrap(), [slot * 100 + 9]);
        let reason = failure(
            k.launch(
                &one,
                &[
                    (&table).into(),
                    (&out).into(),
                    slot.into(),
                    (1u32 << 20).into(),
                ],
            )
            .unwrap_err(),
        );
        assert!(
            reason.contains("out-of-bounds global load of 4 bytes"),
            "{reason}"
        );
    }
    // A slot past the table's end: the pointer load itself is out of bounds.
    let reason = failure(
        k.launch(
            &one,
            &[(&table).into(), (&out).into(), 4096u32.into(), 0u32.into()],
        )
        .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds global load of 8 bytes"),
        "{reason}"
    );
}

#[test]
fn out_of_bounds_shared_and_local_accesses_are_errors() {
    let ctx = checked_context();
    let m = ctx.load_ptx("oob.ptx", PTX).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let one = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    let shared = m.kernel("shared_index").unwrap();
    shared.launch(&one, &[(&out).into(), 63u32.into()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), [7]);
    let reason = failure(
        shared
            .launch(&one, &[(&out).into(), 64u32.into()])
            .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds shared store of 4 bytes"),
        "{reason}"
    );
    let local = m.kernel("local_index").unwrap();
    local.launch(&one, &[(&out).into(), 7u32.into()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), [5]);
    let reason = failure(
        local
            .launch(&one, &[(&out).into(), 1000u32.into()])
            .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds local store of 4 bytes"),
        "{reason}"
    );
}

const BENCH: &str = include_str!("../../shaders/bench/bench.ptx");

#[test]
fn a_short_buffer_behind_proven_guards_is_still_caught() {
    // The stencil's loads are bounded by its guards (`x < n`, `x != 0`, `x != n - 1`, ...):
    // with `n^3` floats behind `in`, the launch proves them in bounds and skips their checks;
    // with fewer, the same launch shape must check them and fail.
    let ctx = checked_context();
    let m = ctx.load_ptx("bench.ptx", BENCH).unwrap();
    let k = m.kernel("stencil3d").unwrap();
    let n = 8usize;
    let cells = n * n * n;
    let input: Vec<f32> = (0..cells).map(|i| (i % 17) as f32).collect();
    let out = DeviceBuffer::<f32>::zeroed(&ctx, cells).unwrap();
    let full = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    // Allocated last, so that what lies past its end belongs to no allocation (a read that
    // lands in another live buffer is not an error).
    let short = DeviceBuffer::from_slice(&ctx, &input[..cells - 64]).unwrap();
    let cfg = LaunchConfig::new([1, 1, 2], [8, 8, 4]);
    let args = |src: &DeviceBuffer<f32>| [src.into(), (&out).into(), (n as u32).into()];
    k.launch(&cfg, &args(&full)).unwrap();
    let got = out.to_vec().unwrap();
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let i = (z * n + y) * n + x;
                let edge = [x, y, z].iter().any(|&c| c == 0 || c == n - 1);
                let want = if edge {
                    input[i]
                } else {
                    let s = n * n;
                    let around = input[i - 1]
                        + input[i + 1]
                        + input[i - n]
                        + input[i + n]
                        + input[i - s]
                        + input[i + s];
                    0.4 * input[i] + 0.1 * around
                };
                assert!(
                    (got[i] - want).abs() < 1e-4,
                    "{x} {y} {z}: {} {want}",
                    got[i]
                );
            }
        }
    }
    let reason = failure(k.launch(&cfg, &args(&short)).unwrap_err());
    assert!(
        reason.contains("out-of-bounds global load of 4 bytes"),
        "{reason}"
    );
    assert!(reason.contains("bench.ptx:"), "{reason}");
}

#[test]
fn a_short_output_behind_a_proven_row_loop_is_still_caught() {
    // softmax's last loop steps the row pointer its earlier loops copied and tests its counter
    // before stepping it: with whole rows behind both pointers the launch proves every global
    // access and skips their checks; with a short output the same launch must check the store
    // and fail.
    let ctx = checked_context();
    let m = ctx.load_ptx("bench.ptx", BENCH).unwrap();
    let k = m.kernel("softmax").unwrap();
    let (rows, cols) = (2usize, 1024usize);
    let input: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7) % 23) as f32 * 0.25)
        .collect();
    let src = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    let out = DeviceBuffer::<f32>::zeroed(&ctx, rows * cols).unwrap();
    // Allocated last, so that what lies past its end belongs to no allocation.
    let short = DeviceBuffer::<f32>::zeroed(&ctx, rows * cols - 64).unwrap();
    let cfg = LaunchConfig::new([rows as u32, 1, 1], [256, 1, 1]);
    k.launch(&cfg, &[(&src).into(), (&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for r in 0..rows {
        let row = &input[r * cols..(r + 1) * cols];
        let max = row.iter().copied().fold(f32::MIN, f32::max);
        let sum: f64 = row.iter().map(|&x| f64::from(x - max).exp()).sum();
        for (c, &x) in row.iter().enumerate() {
            let want = f64::from(x - max).exp() / sum;
            let g = f64::from(got[r * cols + c]);
            assert!(
                (g - want).abs() <= 1e-4 * want + 1e-9,
                "{r} {c}: {g} {want}"
            );
        }
    }
    let reason = failure(
        k.launch(&cfg, &[(&src).into(), (&short).into()])
            .unwrap_err(),
    );
    assert!(
        reason.contains("out-of-bounds global store of 4 bytes"),
        "{reason}"
    );
    assert!(reason.contains("bench.ptx:"), "{reason}");
}
