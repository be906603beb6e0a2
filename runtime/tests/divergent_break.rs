//! Loops that some lanes leave early after changing a value the loop carries (from the
//! differential fuzzer): each lane must keep the values of the iteration it left in. Two
//! programs of that shape, `fuzz/known/value-after-divergent-break.ptx` and
//! `...-old.ptx`, each miscompiled by one of the two lavapipes the tests have: Mesa 25.0.x's
//! gives the first program's leaving lanes the value a later iteration computes, Mesa 22.3's
//! the second's, and each driver runs the other program right. So the translation of both is
//! checked where it runs right, and each driver's difference is the documented one (see
//! docs/testing.md, "Known differences") and nothing else.

mod common;

use std::process::Command;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../fuzz/known/value-after-divergent-break.ptx");
const PTX_OLD: &str = include_str!("../../fuzz/known/value-after-divergent-break-old.ptx");
const THREADS: u32 = 64;

/// The kernel's stores as the ISA gives them: `%rs1` of thread t in word t, `%rs3` in word
/// 64 + t. Odd threads run the body once, then change `%rs3` and leave; even threads run it
/// three times without changing it.
fn model() -> Vec<u32> {
    let mut out = vec![0; 2 * THREADS as usize];
    for t in 0..THREADS {
        let r4 = t.wrapping_mul(1 << 31).wrapping_add(1_163_578_490);
        let leaves = (1u32 << 31) < r4;
        let rs0 = r4 as u16;
        let mut rs3 = t.wrapping_mul(3_576_494_508) as u16;
        let rs1 = 0x73d9 ^ rs3;
        if leaves {
            rs3 = rs0.wrapping_add(7);
        }
        out[t as usize] = u32::from(rs1);
        out[(THREADS + t) as usize] = u32::from(rs3);
    }
    out
}

/// What Mesa 25.0.x's lavapipe stores: the model, except that each leaving thread's `%rs1` is
/// the second iteration's, computed from the changed `%rs3`.
fn known_lavapipe_25_0(model: &[u32]) -> Vec<u32> {
    let mut out = model.to_vec();
    for t in (1..THREADS).step_by(2) {
        out[t as usize] = 0x73d9 ^ model[(THREADS + t) as usize];
    }
    out
}

/// The second program's stores as the ISA gives them: `%rs1` of thread t in word t, `%r7` in
/// word 64 + t. Odd threads leave on the first iteration; thread 0 takes the arm that sets
/// `%r7` to its `%lanemask_lt` (0); the others stay for three iterations after setting `%rs3`
/// to 0.
fn model_old() -> Vec<u32> {
    let mut out = vec![0; 2 * THREADS as usize];
    for t in 0..THREADS {
        let r7 = t.wrapping_mul(3_576_494_508);
        let rs1 = if t % 2 == 1 {
            0x73d9 ^ (r7 as u16)
        } else {
            0x73d9
        };
        out[t as usize] = u32::from(rs1);
        out[(THREADS + t) as usize] = if t == 0 { 0 } else { r7 };
    }
    out
}

/// What Mesa 22.3's lavapipe stores for the second program: the model, except that each
/// leaving thread's `%rs1` is the second iteration's, computed from the changed `%rs3` (0).
fn known_lavapipe_22_3(model: &[u32]) -> Vec<u32> {
    let mut out = model.to_vec();
    for t in (1..THREADS).step_by(2) {
        out[t as usize] = 0x73d9;
    }
    out
}

fn launch(ctx: &ptxvk_runtime::Context, ptx: &str) -> Vec<u32> {
    let module = ctx
        .load_ptx("divergent_break.ptx", ptx)
        .expect("load the kernel");
    let out = DeviceBuffer::<u32>::zeroed(ctx, 2 * THREADS as usize).expect("an output buffer");
    module
        .kernel("k")
        .expect("the kernel k")
        .launch(
            &LaunchConfig::new([1, 1, 1], [THREADS, 1, 1]),
            &[(&out).into()],
        )
        .expect("launch");
    out.to_vec().expect("read the output")
}

#[test]
fn leaving_lanes_keep_their_iterations_values() {
    let ctx = common::context();
    common::announce(&ctx);
    let driver = &ctx.info().driver;
    let llvmpipe = ctx.info().name.contains("llvmpipe");
    for (ptx, want, known, on) in [
        (
            PTX,
            model(),
            known_lavapipe_25_0 as fn(&[u32]) -> Vec<u32>,
            "Mesa 25.0",
        ),
        (PTX_OLD, model_old(), known_lavapipe_22_3, "Mesa 22.3"),
    ] {
        let got = launch(&ctx, ptx);
        if got != want && llvmpipe && driver.contains(on) {
            assert_eq!(got, known(&want), "on {driver}");
            eprintln!("{driver}: the known difference (docs/testing.md, \"Known differences\")");
            continue;
        }
        assert_eq!(got, want, "on {driver}");
    }
}

/// Mesa 22.3's lavapipe (`PTXVK_OLD_LAVAPIPE_ICD`, unpacked by `cargo xtask test`; `skip`
/// where it cannot be had) runs the first program's SPIR-V right, and the second program's
/// with exactly its known difference.
#[test]
fn an_older_lavapipe_gives_the_isa_values() {
    let Some(icd) = common::old_lavapipe() else {
        return;
    };
    assert_eq!(run_on(&icd, PTX), model());
    let want = model_old();
    let got = run_on(&icd, PTX_OLD);
    if got != want {
        assert_eq!(
            got,
            known_lavapipe_22_3(&want),
            "neither the ISA's values nor the known difference"
        );
    }
}

/// The kernel's output under `ptxvk run` on the driver of `icd`.
fn run_on(icd: &std::path::Path, ptx_text: &str) -> Vec<u32> {
    let dir = common::temp_dir("divergent-break");
    let ptx = dir.join("divergent_break.ptx");
    std::fs::write(&ptx, ptx_text).expect("write the PTX");
    let run = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .arg("run")
        .arg(&ptx)
        .args(["--block", "64", "--arg", "out=u32[128]:0", "--json"])
        .env("VK_DRIVER_FILES", icd)
        .env("VK_ICD_FILENAMES", icd)
        .env("PTXVK_VALIDATION", "0")
        .env("PTXVK_CACHE_DIR", "off")
        .output()
        .expect("run ptxvk");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).expect("ptxvk run --json");
    json["buffers"]["out"]
        .as_array()
        .expect("the buffer as an array")
        .iter()
        .map(|v| {
            v.as_str()
                .and_then(|w| w.parse().ok())
                .expect("each word as a decimal string")
        })
        .collect()
}
