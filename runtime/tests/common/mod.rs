//! Shared by the runtime's integration tests.

#![allow(dead_code)]

use ptxvk_runtime::{Context, ContextOptions, Validation};

/// A context on the default device with the validation layer required (PTXVK_VALIDATION=1 makes
/// it optional, =0 turns it off), so that any validation message fails the test.
pub fn context() -> Context {
    Context::new(&options()).unwrap_or_else(|e| panic!("cannot create a Vulkan context: {e}"))
}

/// The options `context()` uses, to be changed by a test. The on-disk pipeline cache is off
/// unless a test turns it on (with a directory of its own).
pub fn options() -> ContextOptions {
    let mut opts = ContextOptions::from_env();
    opts.validation = match std::env::var("PTXVK_VALIDATION").as_deref() {
        Ok("0" | "off") => Validation::Off,
        Ok("1" | "on") => Validation::IfAvailable,
        _ => Validation::Required,
    };
    opts.pipeline_cache_dir = None;
    opts
}

/// A fresh empty directory under the system's temporary directory.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ptxvk-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

pub fn shader(name: &str) -> String {
    let path = format!("{}/../shaders/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Deterministic pseudo-random floats in [-8, 8).
pub fn floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 16.0 - 8.0
        })
        .collect()
}

/// What `shaders/matmul_clang.ptx`'s tiled matmul computes for `n` x `n` matrices: each
/// element's products added in k order with fused multiply-adds, zero padding to whole 16-wide
/// tiles included.
pub fn tiled_matmul_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0.0f32;
            for kk in 0..n.div_ceil(16) * 16 {
                let (x, y) = if kk < n {
                    (a[i * n + kk], b[kk * n + j])
                } else {
                    (0.0, 0.0)
                };
                acc = x.mul_add(y, acc);
            }
            c[i * n + j] = acc;
        }
    }
    c
}

/// Prints the subgroup size and warp strategy of `ctx`, for `at_every_subgroup_size` to check.
pub fn announce(ctx: &Context) {
    eprintln!(
        "subgroup size {} strategy {:?}",
        ctx.info().subgroup_size,
        ctx.profile().warp_strategy()
    );
}

/// Runs the test `name` of this test binary again on lavapipe at each vector width it supports:
/// subgroups of 4, 8 and 16. (Widths 1024 to 4096 report subgroups of 32 to 128, but Mesa 22.3
/// then runs some invocations twice — saxpy adds twice — so the native and partitioned
/// strategies cannot be executed on lavapipe.) `name` must call `announce` first.
pub fn at_every_subgroup_size(name: &str) {
    let ctx = context();
    if !ctx.info().name.contains("llvmpipe") {
        eprintln!("not lavapipe: its vector width does not apply; {name} covers this device");
        return;
    }
    drop(ctx);
    let exe = std::env::current_exe().expect("the test binary's path");
    let widths = [
        ("128", "subgroup size 4 strategy Emulated"),
        ("256", "subgroup size 8 strategy Emulated"),
        ("512", "subgroup size 16 strategy Emulated"),
    ];
    for (width, expect) in widths {
        let out = std::process::Command::new(&exe)
            .args(["--exact", name, "--nocapture", "--test-threads", "1"])
            .env("LP_NATIVE_VECTOR_WIDTH", width)
            .output()
            .expect("run the test binary");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{name} at LP_NATIVE_VECTOR_WIDTH={width}:\n{stderr}\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            stderr.contains(expect),
            "LP_NATIVE_VECTOR_WIDTH={width} should give `{expect}`: {stderr}"
        );
    }
}

/// A PTX file of runtime/tests/ptx.
pub fn read_test_ptx(name: &str) -> String {
    let path = format!("{}/tests/ptx/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs the ignored test `name` of the calling test binary alone in a child process, with
/// `envs` set, kills it after `limit`, and checks that it passed and printed "child done": for
/// tests that lose their context or must start with a fresh driver.
pub fn run_child_test(name: &str, envs: &[(&str, &str)], limit: std::time::Duration) {
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(exe)
        .args(["--ignored", "--exact", name, "--nocapture"])
        .envs(envs.iter().copied())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the test binary");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("the child's status") {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{name}` did not end within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut out = String::new();
    if let Some(mut s) = child.stdout.take() {
        std::io::Read::read_to_string(&mut s, &mut out).expect("the child's output");
    }
    eprintln!("{out}");
    assert!(status.success(), "{status}\n{out}");
    assert!(out.contains("child done"), "{out}");
}

/// `options()` with the short hang timeout the timeout tests wait out: 1.5 s, plus 0.5 s of
/// compile allowance, since the hung launch is its kernel's first.
pub fn hang_options() -> ContextOptions {
    let mut opts = options();
    opts.timeout = std::time::Duration::from_millis(1500);
    opts.compile_timeout = std::time::Duration::from_millis(500);
    opts
}

/// Checks that a launch of `kernel` under `hang_options()` ended in the timeout error, after
/// the timeout and the allowance (`waited`), and well before a stuck process would.
pub fn assert_hang_timeout(err: &ptxvk_runtime::Error, kernel: &str, waited: std::time::Duration) {
    assert!(
        matches!(
            err,
            ptxvk_runtime::Error::Timeout {
                millis: 2000,
                compile_allowance_ms: 500,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains(&format!("kernel `{kernel}`")),
        "{err}"
    );
    assert!(
        waited >= std::time::Duration::from_millis(2000)
            && waited < std::time::Duration::from_secs(30),
        "{waited:?}"
    );
}

/// Mesa 22.3's lavapipe, unpacked beside the installed driver by `cargo xtask test` on Debian
/// 12 (`PTXVK_OLD_LAVAPIPE_ICD`, its ICD file; `skip` where it cannot be had).
pub fn old_lavapipe() -> Option<std::path::PathBuf> {
    match std::env::var("PTXVK_OLD_LAVAPIPE_ICD") {
        Ok(v) if v == "skip" => {
            eprintln!("PTXVK_OLD_LAVAPIPE_ICD=skip: the old-driver test is skipped");
            None
        }
        Ok(v) => Some(std::path::PathBuf::from(v)),
        Err(_) => panic!(
            "PTXVK_OLD_LAVAPIPE_ICD is not set: run the tests with `cargo xtask test`, which \
             unpacks Mesa 22.3's lavapipe on Debian 12, or set it to `skip`"
        ),
    }
}
