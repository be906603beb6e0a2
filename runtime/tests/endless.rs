//! A kernel whose loop never ends, whatever the host does: the launch ends in the timeout
//! error, the context reports itself lost, a new context works, and the process still exits
//! normally. The scenario runs in a child process (this test binary, running the ignored test
//! below) so that a process that could not exit fails the test instead of hanging it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig};

// The loop has a side effect (an atomic add): a loop without one may be removed by the
// driver's compiler, as C++ and LLVM allow, and then the kernel finishes at once.
const PTX: &str = include_str!("../../shaders/endless.ptx");

/// CPU time of this process so far (user + system), from /proc.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux configuration Rust supports.
    Some(Duration::from_millis(ticks * 10))
}

#[test]
#[ignore = "run by `an_endless_kernel_times_out_and_the_process_exits` in a child process"]
fn endless_kernel_child() {
    let ctx = Context::new(&common::hang_options()).unwrap();
    let module = ctx.load_ptx("endless.ptx", PTX).unwrap();
    let endless = module.kernel("endless").unwrap();
    let counter = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let start = Instant::now();
    let err = endless
        .launch(
            &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
            &[(&counter).into()],
        )
        .unwrap_err();
    let waited = start.elapsed();
    common::assert_hang_timeout(&err, "endless", waited);
    assert!(ctx.is_lost());
    // Every later call on the lost context is refused with a typed error, not a hang.
    assert!(matches!(
        endless.launch(
            &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
            &[(&counter).into()]
        ),
        Err(Error::DeviceLost)
    ));
    assert!(matches!(ctx.synchronize(), Err(Error::DeviceLost)));
    assert!(matches!(ctx.new_stream(), Err(Error::DeviceLost)));
    drop(counter);
    drop(module);
    drop(ctx);

    let ctx2 = common::context();
    let m2 = ctx2.load_ptx("endless.ptx", PTX).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx2, 1).unwrap();
    m2.kernel("answer")
        .unwrap()
        .launch(&LaunchConfig::for_num_elems(1, 1), &[(&out).into()])
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), [42]);

    // What the kernel still costs: the driver's thread running it (on lavapipe, a CPU thread;
    // docs/decisions/0143-timeouts-and-lost-contexts.md).
    if let (Some(before), wall) = (cpu_time(), Instant::now()) {
        std::thread::sleep(Duration::from_millis(1000));
        if let Some(after) = cpu_time() {
            println!(
                "cpu while idle: {:.0}% of one core",
                100.0 * (after - before).as_secs_f64() / wall.elapsed().as_secs_f64()
            );
        }
    }
    println!("child done");
}

#[test]
fn an_endless_kernel_times_out_and_the_process_exits() {
    common::run_child_test("endless_kernel_child", &[], Duration::from_secs(120));
}
