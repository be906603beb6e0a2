//! The `ptxvk` binary: the README demo and bad input (exit code, a one-line cause, no panic).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

fn ptxvk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env(
            "PTXVK_VALIDATION",
            std::env::var("PTXVK_VALIDATION").unwrap_or_else(|_| "required".into()),
        )
        .output()
        .expect("run ptxvk")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_fails(o: &Output, expect: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains(expect), "expected `{expect}` in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

const SAXPY_ARGS: [&str; 14] = [
    "run",
    "shaders/saxpy.ptx",
    "--grid",
    "4",
    "--block",
    "256",
    "--arg",
    "1000",
    "--arg",
    "2.0",
    "--arg",
    "x=f32[1000]:iota",
    "--arg",
    "y=f32[1000]:1",
];

#[test]
fn readme_demo_runs_and_prints() {
    let o = ptxvk(&SAXPY_ARGS);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // y = 2 * i + 1
    assert!(
        out.contains("y: f32[1000] = [1, 3, 5, 7, 9, 11, 13, 15, ...]"),
        "{out}"
    );
}

#[test]
fn out_writes_the_buffer() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("y.bin");
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    let out_arg = format!("y={}", path.display());
    args.extend(["--out", &out_arg, "--print", "0"]);
    let o = ptxvk(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&path).unwrap();
    let y: Vec<f32> = bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(y.len(), 1000);
    assert!(
        y.iter()
            .enumerate()
            .all(|(i, &v)| v == 2.0 * i as f32 + 1.0)
    );
}

#[test]
fn unknown_file() {
    assert_fails(&ptxvk(&["run", "no/such.ptx"]), "cannot read `no/such.ptx`");
    assert_fails(&ptxvk(&["check", "no/such.ptx"]), "cannot read");
}

#[test]
fn syntax_error_points_at_file_line_col() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.ptx");
    std::fs::write(
        &f,
        ".version 7.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n  ret ret;\n}\n",
    )
    .unwrap();
    let path = f.display().to_string();
    for cmd in ["check", "run"] {
        let o = ptxvk(&[cmd, &path]);
        assert_fails(&o, &format!("{path}:6:"));
        assert!(stderr(&o).contains("ret ret;"), "{}", stderr(&o));
        assert!(stderr(&o).contains('^'), "{}", stderr(&o));
    }
}

#[test]
fn unknown_kernel() {
    assert_fails(
        &ptxvk(&["run", "shaders/saxpy.ptx", "--kernel", "nope"]),
        "no kernel named `nope`",
    );
}

#[test]
fn wrong_argument_count_and_type() {
    assert_fails(
        &ptxvk(&["run", "shaders/saxpy.ptx", "--arg", "1"]),
        "takes 4 argument(s)",
    );
    let o = ptxvk(&[
        "run",
        "shaders/saxpy.ptx",
        "--arg",
        "1.5",
        "--arg",
        "2",
        "--arg",
        "f32[1]",
        "--arg",
        "f32[1]",
    ]);
    assert_fails(&o, "`1.5` is not a valid .u32 value");
    let o = ptxvk(&[
        "run",
        "shaders/saxpy.ptx",
        "--arg",
        "1",
        "--arg",
        "f32[4]",
        "--arg",
        "f32[1]",
        "--arg",
        "f32[1]",
    ]);
    assert_fails(&o, "cannot take a pointer");
}

#[test]
fn translate_emits_valid_spirv() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-tr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("saxpy.spv");
    let o = ptxvk(&[
        "translate",
        "shaders/saxpy.ptx",
        "--device-profile",
        "lavapipe",
        "-o",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    ptxvk_runtime::translator::validate(&words).unwrap();
}
