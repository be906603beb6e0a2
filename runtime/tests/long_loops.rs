//! Loops of a million iterations per thread run to their end, and a driver that ends loops
//! early (Mesa 22.3's lavapipe stops every loop after 65,535 iterations of a SIMD batch) fails
//! the launch with an error naming the cause and the fix instead of returning wrong results.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use ptxvk_runtime::{Buffer, Context, Error, LaunchConfig};

const PTX: &str = include_str!("ptx/long_loops.ptx");
const THREADS: u32 = 64;

/// Runs `count_to(n)` on 64 threads and returns what each thread counted to.
fn count_to(ctx: &Context, n: u32) -> Result<Vec<u32>, Error> {
    let module = ctx.load_ptx("long_loops.ptx", PTX)?;
    let out = Buffer::new(ctx, u64::from(THREADS) * 4)?;
    module.kernel("count_to")?.launch(
        &LaunchConfig::new([2, 1, 1], [THREADS / 2, 1, 1]),
        &[(&out).into(), n.into()],
    )?;
    let mut bytes = vec![0u8; THREADS as usize * 4];
    out.read_bytes(0, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn a_million_iterations_per_thread_run_to_the_end() {
    let ctx = common::context();
    match (count_to(&ctx, 1_000_007), ctx.profile().loop_limit) {
        (Ok(got), None) => assert!(got.iter().all(|&c| c == 1_000_007), "{got:?}"),
        (Err(Error::KernelFailed { reason, .. }), Some(limit)) => {
            assert!(reason.contains(&limit.to_string()), "{reason}");
        }
        (r, limit) => panic!("loop limit {limit:?}, launch gave {r:?}"),
    }
}

#[test]
fn checking_loops_refuses_nothing_that_ran_to_the_end() {
    // The check on a driver without the limit: every count still comes out whole.
    let mut opts = common::options();
    opts.restrict.loop_limit = Some(65_535);
    let ctx = Context::new(&opts).unwrap();
    if ctx.profile().loop_limit != Some(65_535) {
        // The device has a limit of its own; the test above covers it.
        return;
    }
    for n in [0, 1, 999, 65_536, 300_001] {
        let got = count_to(&ctx, n).unwrap();
        assert!(got.iter().all(|&c| c == n), "n = {n}: {got:?}");
    }
}

#[test]
fn a_driver_that_ends_loops_early_fails_the_launch_with_the_cause() {
    let Some(icd) = common::old_lavapipe() else {
        return;
    };
    let dir = common::temp_dir("long-loops");
    let ptx = dir.join("long_loops.ptx");
    std::fs::write(&ptx, PTX).unwrap();
    let run = |n: &str| {
        Command::new(env!("CARGO_BIN_EXE_ptxvk"))
            .arg("run")
            .arg(&ptx)
            .args(["--kernel", "count_to", "--grid", "1", "--block", "32"])
            .args(["--arg", "out=u32[32]:0", "--arg", n, "--print", "4"])
            .env("VK_DRIVER_FILES", &icd)
            .env("VK_ICD_FILENAMES", &icd)
            .env("PTXVK_VALIDATION", "0")
            .env("PTXVK_CACHE_DIR", "off")
            .output()
            .expect("run ptxvk")
    };
    let info = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .arg("info")
        .env("VK_DRIVER_FILES", &icd)
        .env("VK_ICD_FILENAMES", &icd)
        .output()
        .expect("run ptxvk info");
    let info = String::from_utf8_lossy(&info.stdout).into_owned();
    assert!(info.contains("Mesa 22.3"), "not the old driver: {info}");

    // Under the limit: the right answer.
    let short = run("50000");
    let out = String::from_utf8_lossy(&short.stdout).into_owned();
    assert!(
        short.status.success(),
        "{}",
        String::from_utf8_lossy(&short.stderr)
    );
    assert!(out.contains("[50000, 50000, 50000, 50000, ...]"), "{out}");

    // Past it: the launch fails naming the cause and the fix, and prints no results.
    let long = run("1000000");
    let err = String::from_utf8_lossy(&long.stderr).into_owned();
    let out = String::from_utf8_lossy(&long.stdout).into_owned();
    assert_eq!(long.status.code(), Some(1), "stdout: {out}\nstderr: {err}");
    assert!(err.contains("ended the kernel's loops early"), "{err}");
    // The probe counts how far a loop gets on this driver: 65,536 iterations.
    assert!(err.contains("after 65536 iterations"), "{err}");
    assert!(err.contains("bookworm-backports"), "{err}");
    assert!(!out.contains("1000000"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
}
