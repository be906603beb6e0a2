//! A kernel that never finishes gives `Error::Timeout` within the configured time; the context
//! then reports itself lost, and a new context runs kernels again. (Alone in its own test
//! binary: the hung kernel occupies the driver until it is released.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use ptxvk_runtime::{Buffer, Context, DeviceBuffer, Error, LaunchConfig};

fn ptx() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/hang.ptx")).unwrap()
}

#[test]
fn a_hung_kernel_times_out_and_a_new_context_works() {
    let ctx = Context::new(&common::hang_options()).unwrap();
    let module = ctx.load_ptx("hang.ptx", &ptx()).unwrap();
    let spin = module.kernel("spin").unwrap();
    let flag = Buffer::new(&ctx, 4).unwrap();
    let hang = LaunchConfig::new([65535, 4, 1], [256, 1, 1]);
    let start = Instant::now();
    let err = spin.launch(&hang, &[(&flag).into()]).unwrap_err();
    let waited = start.elapsed();
    common::assert_hang_timeout(&err, "spin", waited);
    assert!(ctx.is_lost());
    // Everything after the timeout is refused with a typed error, not a hang.
    assert!(matches!(
        spin.launch(&hang, &[(&flag).into()]),
        Err(Error::DeviceLost)
    ));
    assert!(matches!(ctx.synchronize(), Err(Error::DeviceLost)));
    assert!(matches!(ctx.new_stream(), Err(Error::DeviceLost)));

    // A new context on the same device works.
    let ctx2 = common::context();
    let m2 = ctx2.load_ptx("hang.ptx", &ptx()).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx2, 1).unwrap();
    m2.kernel("answer")
        .unwrap()
        .launch(&LaunchConfig::for_num_elems(1, 1), &[(&out).into()])
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [42]);

    // Release the spinning kernel: mapped memory of a lost context stays writable (on devices
    // with host-visible device memory, which lavapipe has).
    if !ctx.uses_staging() {
        flag.write_bytes(0, &1u32.to_le_bytes()).unwrap();
    }
}
