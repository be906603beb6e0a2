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
