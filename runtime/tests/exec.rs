//! `ptxvk exec`: the command runs with a directory holding `libcuda.so.1` (a link to the
//! library) first on LD_LIBRARY_PATH, keeps the caller's path after it, and exits as the
//! command does.

use std::path::PathBuf;
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxvk-exec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

#[test]
fn exec_puts_libcuda_first_on_the_loader_path() {
    let dir = temp_dir("path");
    let lib = dir.join("libcuda.so");
    std::fs::write(&lib, b"not really a library").unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(["exec", "--", "sh", "-c"])
        .arg(r#"first="${LD_LIBRARY_PATH%%:*}"; echo "$LD_LIBRARY_PATH"; readlink "$first/libcuda.so.1"; readlink "$first/libcuda.so"; exit 7"#)
        .env("PTXVK_LIBCUDA", &lib)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("LD_LIBRARY_PATH", "/old/lib")
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxvk: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(7),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let canonical = lib.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let links_dir = dir.join("cache").join("ptxvk").join("libcuda");
    assert!(
        lines[0].starts_with(&*links_dir.to_string_lossy()),
        "{stdout}"
    );
    assert!(lines[0].ends_with(":/old/lib"), "{stdout}");
    assert_eq!(lines[1], canonical.to_string_lossy(), "{stdout}");
    assert_eq!(lines[2], canonical.to_string_lossy(), "{stdout}");
}

#[test]
fn exec_without_the_library_names_how_to_build_it() {
    let dir = temp_dir("missing");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(["exec", "--", "true"])
        .env("PTXVK_LIBCUDA", dir.join("nothing.so"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxvk: {e}"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("PTXVK_LIBCUDA") && stderr.contains("no such file"),
        "{stderr}"
    );
}

#[test]
fn exec_links_the_runtime_libraries_beside_libcuda() {
    let dir = temp_dir("cudart");
    for f in ["libcuda.so", "libcudart.so", "libcudart12.so"] {
        std::fs::write(dir.join(f), b"not really a library").unwrap_or_else(|e| panic!("{e}"));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(["exec", "--", "sh", "-c"])
        .arg(r#"first="${LD_LIBRARY_PATH%%:*}"; readlink "$first/libcudart.so.13"; readlink "$first/libcudart.so.12""#)
        .env("PTXVK_LIBCUDA", dir.join("libcuda.so"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxvk: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let canonical = |f: &str| {
        dir.join(f)
            .canonicalize()
            .unwrap_or_else(|e| panic!("{e}"))
            .to_string_lossy()
            .into_owned()
    };
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [canonical("libcudart.so"), canonical("libcudart12.so")],
        "{stdout}"
    );
}

/// A program that embeds kernels (a `.nv_fatbin` section, as nvcc writes it) without
/// needing a shared CUDA runtime or the driver carries NVIDIA's static runtime: refused, with
/// the flag that rebuilds it.
#[test]
fn exec_refuses_a_program_with_the_static_runtime() {
    let dir = temp_dir("static");
    let src = dir.join("fatbin.c");
    std::fs::write(
        &src,
        "__attribute__((section(\".nv_fatbin\"), used)) static const char fatbin[16] = {1};\n\
         int main(void) { return 0; }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let exe = dir.join("static_app");
    let cc = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cc: {e}"));
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let lib = dir.join("libcuda.so");
    std::fs::write(&lib, b"not really a library").unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(["exec", "--"])
        .arg(&exe)
        .env("PTXVK_LIBCUDA", &lib)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxvk: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("static CUDA runtime") && stderr.contains("-cudart shared"),
        "{stderr}"
    );
    // The same program run directly exits 0: the refusal is ptxvk's.
    let direct = Command::new(&exe)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(direct.success());
}
