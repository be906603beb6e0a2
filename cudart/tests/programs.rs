//! CUDA C++ programs of our own (`tests/programs`), compiled at test time by nvcc with
//! `-cudart shared` and their PTX embedded (`-gencode arch=compute_80,code=compute_80`), linked
//! against NVIDIA's libcudart as any program is, then run unmodified with our libcuda and
//! libcudart first on the loader's path, as `ptxvk exec` runs them. Each program checks its
//! own results on the host and exits nonzero on a mismatch.
//!
//! Compiled programs are kept in `target/cudart-programs`, keyed by a hash of their sources
//! and flags, so that a second run only runs them.

mod common;

use std::time::Duration;

/// The flags every program is built with: PTX for compute capability 8.0, no machine code.
const PTX: &[&str] = &["-gencode", "arch=compute_80,code=compute_80"];

/// Long enough for the slowest program here on lavapipe with memory checking on (Thrust's
/// merge sort translates several large kernels); a hang ends here instead of never.
const LIMIT: Duration = Duration::from_secs(240);

fn check(name: &str, sources: &[&str], extra: &[&str]) {
    let Some(nvcc) = common::nvcc() else { return };
    let flags: Vec<&str> = PTX.iter().chain(extra).copied().collect();
    let exe = common::compile(&nvcc, name, sources, &flags);
    let dir = common::run_dir(name);
    let run = common::run(&exe, &dir, LIMIT);
    assert!(
        run.success,
        "{name} failed ({}):\n{}",
        run.status, run.output
    );
    eprint!("{}", run.output);
}

macro_rules! programs {
    ($($name:ident $(: [$($src:literal),+])? $(, flags [$($flag:literal),+])?;)*) => {
        $(
            #[test]
            fn $name() {
                let sources: &[&str] = &[$($($src),+)?];
                let own = [concat!(stringify!($name), ".cu")];
                check(
                    stringify!($name),
                    if sources.is_empty() { &own } else { sources },
                    &[$($($flag),+)?],
                );
            }
        )*
    };
}

programs! {
    vector_add;
    matmul_tiled;
    reduce;
    scan;
    histogram;
    thrust_sort;
    cub_device;
    cub_radix_sort;
    streams_events;
    globals;
    managed;
    dynamic_shared;
    warp_intrinsics;
    cooperative_groups;
    templates;
    device_props;
    pitched_2d;
    host_memory;
    occupancy;
    stencil_2d;
    callbacks;
    bitonic_sort;
    atomics;
    half_precision;
    launch_api;
    textures;
    per_thread_stream, flags ["--default-stream", "per-thread"];
    driver_interop, flags ["-lcuda"];
    rdc: ["rdc/main.cu", "rdc/ops.cu"], flags ["-rdc=true"];
    malloc;
}

/// sm_90's tensor copies through a tensor map the driver API encodes: PTX for compute_90 only,
/// so the program runs where the device reports compute capability 9.0.
#[test]
fn tma_copy() {
    let Some(nvcc) = common::nvcc() else { return };
    let flags = ["-gencode", "arch=compute_90,code=compute_90", "-lcuda"];
    let exe = common::compile(&nvcc, "tma_copy", &["tma_copy.cu"], &flags);
    let dir = common::run_dir("tma_copy");
    let run = common::run_env(&exe, &dir, LIMIT, &[("PTXVK_CC", "9.0")]);
    assert!(
        run.success && run.output.contains("tma_copy: ok"),
        "tma_copy failed ({}):\n{}",
        run.status,
        run.output
    );
}

/// Device printf: the program prints with host printf each line a thread's printf should
/// give. The device's lines must be those, in any order (the threads' order is the device's),
/// and all of them must come out by the synchronisation that ends the launch, before what the
/// program prints after it.
#[test]
fn printf() {
    let Some(nvcc) = common::nvcc() else { return };
    let exe = common::compile(&nvcc, "printf", &["printf.cu"], PTX);
    let run = common::run(&exe, &common::run_dir("printf"), LIMIT);
    assert!(
        run.success,
        "printf failed ({}):\n{}",
        run.status, run.output
    );
    let lines: Vec<&str> = run.output.lines().collect();
    let tagged = |tag: &str| {
        let mut v: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix(tag)).collect();
        v.sort_unstable();
        v
    };
    let (device, host) = (tagged("dev "), tagged("host "));
    assert_eq!(host.len(), 105, "the program printed:\n{}", run.output);
    assert_eq!(device, host, "device lines differ from the host's");
    let after = lines
        .iter()
        .position(|l| *l == "after the synchronisation")
        .unwrap_or_else(|| panic!("no synchronisation line in:\n{}", run.output));
    let last = lines.iter().rposition(|l| l.starts_with("dev "));
    assert!(
        last.is_some_and(|d| d < after),
        "device output after the synchronisation:\n{}",
        run.output
    );
}

/// Programs that do not run yet, or too slowly for the suite, and why; `cargo test -p
/// ptxvk-cudart --test programs -- --ignored` says whether they still fail.
const NOT_YET: &[(&str, &str)] = &[(
    "cub_merge_sort",
    "passes, but takes about 170 s on lavapipe at 4,000 keys: too long for the suite",
)];

#[test]
#[ignore = "programs too slow or not running on lavapipe; see NOT_YET"]
fn not_yet() {
    let Some(nvcc) = common::nvcc() else { return };
    for (name, why) in NOT_YET {
        let src = format!("{name}.cu");
        let exe = common::compile(&nvcc, name, &[&src], PTX);
        let run = common::run(&exe, &common::run_dir(name), LIMIT);
        eprintln!(
            "{name}: {} ({why})\n{}",
            if run.success {
                "now passes"
            } else {
                "still fails"
            },
            run.output
        );
    }
}

/// `transpose` built with its PTX compressed (`-Xfatbin -compress-all`, LZ4): every PTX entry
/// of the fatbinary nvcc embeds is compressed, and the program runs from it.
#[test]
fn transpose() {
    let Some(nvcc) = common::nvcc() else { return };
    let flags: Vec<&str> = PTX
        .iter()
        .chain(&["-Xfatbin", "-compress-all"])
        .copied()
        .collect();
    let exe = common::compile(&nvcc, "transpose", &["transpose.cu"], &flags);
    let image = std::fs::read(&exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let magic = cuda::fatbin::FATBIN_MAGIC.to_le_bytes();
    let mut ptx = 0;
    for at in (0..image.len().saturating_sub(4)).filter(|&i| image[i..i + 4] == magic) {
        let Ok(fb) = cuda::fatbin::Fatbin::parse(&image[at..]) else {
            continue;
        };
        for e in fb.entries() {
            if e.kind == cuda::fatbin::EntryKind::Ptx {
                assert_ne!(e.compression, cuda::fatbin::Compression::None);
                ptx += 1;
            }
        }
    }
    assert!(ptx > 0, "no PTX entry in {}", exe.display());
    let run = common::run(&exe, &common::run_dir("transpose"), LIMIT);
    assert!(
        run.success,
        "transpose failed ({}):\n{}",
        run.status, run.output
    );
}

/// A program with machine code only (`code=sm_80`) fails its first launch with
/// cudaErrorNoKernelImageForDevice, and the library says which PTX is missing and which nvcc
/// flag embeds it.
#[test]
fn sass_only_program_names_the_missing_ptx() {
    let Some(nvcc) = common::nvcc() else { return };
    let exe = common::compile(
        &nvcc,
        "vector_add_sass",
        &["vector_add.cu"],
        &["-gencode", "arch=compute_80,code=sm_80"],
    );
    let run = common::run(&exe, &common::run_dir("sass"), LIMIT);
    assert!(!run.success, "a SASS-only program ran:\n{}", run.output);
    for want in [
        "cudaErrorNoKernelImageForDevice",
        "only machine code (sm_80)",
        "-gencode arch=compute_",
    ] {
        assert!(run.output.contains(want), "no `{want}` in:\n{}", run.output);
    }
}

/// A CUDA 12 program runs on libcudart.so.12: it needs that soname's symbol version, and
/// reads cudaDeviceProp in CUDA 12's layout.
#[test]
fn cuda12_host() {
    let Some(nvcc) = common::nvcc() else { return };
    let exe = common::compile_cuda12_host(&nvcc, "cuda12_host");
    let run = common::run(&exe, &common::run_dir("cuda12"), LIMIT);
    assert!(
        run.success,
        "cuda12_host failed ({}):\n{}",
        run.status, run.output
    );
}
