//! `trap` (ISA: "abort execution and generate an interrupt to the host CPU") fails the launch
//! with an error naming the instruction; threads that do not trap are unaffected and the context
//! stays usable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig};

const PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.visible .entry trap_when(.param .u64 out, .param .u32 bad)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [bad];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], 1;
	setp.eq.u32 %p1, %r2, %r1;
	@%p1 trap;
	st.global.u32 [%rd3], 2;
	ret;
}

.visible .entry break_here()
{
	brkpt;
	ret;
}
"#;

fn failure(e: Error) -> String {
    match e {
        Error::KernelFailed { reason, .. } => reason,
        other => panic!("expected a kernel failure, got {other}"),
    }
}

#[test]
fn trap_fails_the_launch_and_names_the_instruction() {
    let ctx = Context::new(&common::options()).unwrap();
    let m = ctx.load_ptx("trap.ptx", PTX).unwrap();
    let k = m.kernel("trap_when").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [64, 1, 1]);
    // No thread traps: every thread reaches its second store.
    k.launch(&cfg, &[(&out).into(), 1000u32.into()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2; 64]);
    let reason = failure(k.launch(&cfg, &[(&out).into(), 5u32.into()]).unwrap_err());
    assert!(reason.contains("`trap` at trap.ptx:17:"), "{reason}");
    assert!(reason.contains("@%p1 trap"), "{reason}");
    // The trapping thread stopped at the trap; the others ran to the end.
    let got = out.to_vec().unwrap();
    for (t, v) in got.iter().enumerate() {
        assert_eq!(*v, if t == 5 { 1 } else { 2 }, "thread {t}");
    }
    // The context carries on.
    k.launch(&cfg, &[(&out).into(), 1000u32.into()]).unwrap();
}

#[test]
fn brkpt_without_a_debugger_fails_the_launch() {
    let ctx = Context::new(&common::options()).unwrap();
    let m = ctx.load_ptx("trap.ptx", PTX).unwrap();
    let k = m.kernel("break_here").unwrap();
    let cfg = LaunchConfig::new([2, 1, 1], [32, 1, 1]);
    let reason = failure(k.launch(&cfg, &[]).unwrap_err());
    assert!(reason.contains("brkpt"), "{reason}");
    assert!(reason.contains("trap.ptx:24:"), "{reason}");
}
