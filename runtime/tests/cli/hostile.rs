//! Hostile input to the `ptxvk` binary: sizes and grids past their limits, text that is not
//! UTF-8, output that is not a terminal, and outputs left whole or not at all.

use std::process::Command;

use super::{SAXPY_ARGS, assert_fails, ptxvk, stderr};

#[test]
fn huge_buffer_arguments_are_errors_not_panics() {
    for (arg, expect) in [
        ("x=f32[4611686018427387904]", "more than the device's"),
        ("x=u8[18446744073709551615]", "more than the device's"),
    ] {
        let o = ptxvk(&[
            "run",
            "shaders/saxpy.ptx",
            "--arg",
            "1",
            "--arg",
            "1.0",
            "--arg",
            arg,
            "--arg",
            "y=f32[1]:0",
        ]);
        assert_fails(&o, expect);
    }
}

#[test]
fn grids_past_cuda_limits_are_refused_at_launch() {
    for grid in ["2147483648", "1,65536", "1,1,65536"] {
        let o = ptxvk(&[
            "run",
            "shaders/saxpy.ptx",
            "--grid",
            grid,
            "--block",
            "1",
            "--arg",
            "1",
            "--arg",
            "1.0",
            "--arg",
            "x=f32[1]:0",
            "--arg",
            "y=f32[1]:0",
        ]);
        assert_fails(&o, "exceeds CUDA's limit");
    }
}

#[test]
fn text_that_is_not_utf8_is_refused_with_its_position() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.ptx");
    std::fs::write(&file, b".version 7.0\n.target sm_70\n// caf\xe9\n").unwrap();
    let o = ptxvk(&["check", &file.display().to_string()]);
    assert_fails(&o, "bad.ptx:3:7: not UTF-8 text (byte 0xe9)");
}

#[test]
fn logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxvk"))
        .args(SAXPY_ARGS)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("PTXVK_LOG", "ptxvk_runtime=debug")
        .output()
        .expect("run ptxvk");
    let err = stderr(&o);
    assert!(err.contains("DEBUG"), "no log lines to look at: {err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

/// The names in `dir`, sorted.
fn dir_entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn outputs_are_written_whole_or_not_at_all() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-outputs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("y.bin");
    std::fs::write(&old, b"old contents").unwrap();

    // `--out` naming no buffer is refused before the launch: nothing is written, not even the
    // outputs named before it.
    let y_out = format!("y={}", old.display());
    let bad_out = format!("nope={}", dir.join("nope.bin").display());
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    args.extend(["--out", &y_out, "--out", &bad_out]);
    assert_fails(&ptxvk(&args), "no buffer named `nope`");
    assert_eq!(std::fs::read(&old).unwrap(), b"old contents");

    // An output that cannot be put in place (a directory is in the way) fails without leaving
    // a temporary file beside it.
    let blocked = dir.join("blocked");
    std::fs::create_dir(&blocked).unwrap();
    let blocked_out = format!("y={}", blocked.display());
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    args.extend(["--out", &blocked_out, "--print", "0"]);
    assert_fails(&ptxvk(&args), "cannot write");
    assert_eq!(dir_entries(&dir), ["blocked", "y.bin"]);

    // A text output for several kernels is not written when one of them fails (here: more
    // shared memory than the device has): without that kernel the file would pass for complete.
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
               .visible .entry ok(.param .u64 o) { ret; }\n\
               .visible .entry bad(.param .u64 o) { .shared .align 4 .b8 big[1048576]; \
               .reg .b32 %r; ld.shared.u32 %r, [big]; st.shared.u32 [big+4], %r; ret; }\n";
    let file = dir.join("k.ptx");
    std::fs::write(&file, ptx).unwrap();
    let asm = dir.join("k.spvasm");
    std::fs::write(&asm, b"old listing").unwrap();
    let (file, asm_arg) = (file.display().to_string(), asm.display().to_string());
    let listing = |kernel: &[&str]| {
        let mut args = vec!["translate", &file, "--device-profile", "lavapipe"];
        args.extend(["--emit", "spvasm", "-o", &asm_arg]);
        args.extend(kernel);
        ptxvk(&args)
    };
    let o = listing(&[]);
    assert_fails(&o, "1 of 2 kernels could not be translated: bad");
    assert!(stderr(&o).contains("not writing"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&asm).unwrap(), b"old listing");
    // With only the good kernel it is written, replacing the old file.
    let o = listing(&["-k", "ok"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&asm)
            .unwrap()
            .contains("OpEntryPoint")
    );
    assert_eq!(dir_entries(&dir), ["blocked", "k.ptx", "k.spvasm", "y.bin"]);
    let _ = std::fs::remove_dir_all(&dir);
}
