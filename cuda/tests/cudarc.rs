//! A Rust program using the cudarc crate (tests/cudarc-app), unmodified: cudarc loads our
//! libcuda and NVIDIA's NVRTC by name at run time, compiles CUDA C to PTX and runs it; the
//! program checks its results itself.

mod common;

use std::path::PathBuf;
use std::process::Command;

#[test]
fn cudarc_program_runs_unmodified() {
    let Some(nvrtc) = common::nvrtc() else { return };
    let nvrtc_dir = nvrtc
        .parent()
        .unwrap_or_else(|| panic!("{} has no directory", nvrtc.display()))
        .to_path_buf();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("tests/cudarc-app/Cargo.toml");
    // Beside the workspace's own profiles: target/<profile>/deps/<test> -> target/cudarc-app.
    let target = common::libcuda()
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .map(|t| t.join("cudarc-app"))
        .unwrap_or_else(|| std::env::temp_dir().join("ptxvk-cudarc-app"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The application's own lock file pins cudarc; after the first fetch this is offline.
    let out = Command::new(&cargo)
        .args(["build", "--locked", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    assert!(
        out.status.success(),
        "building {} failed:\n{}",
        manifest.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = target.join("debug/cudarc-app");

    let dir = common::lib_dir("cudarc");
    // cudarc finds both libraries by name, as on a machine with NVIDIA's driver and toolkit.
    let path =
        std::env::join_paths([&dir, &nvrtc_dir]).unwrap_or_else(|e| panic!("LD_LIBRARY_PATH: {e}"));
    let out = common::run_c(&exe, &PathBuf::from(path), &[], &[]);
    assert!(out.contains("cudarc: ok"), "{out}");
    assert!(out.contains("device 0: "), "{out}");
}
