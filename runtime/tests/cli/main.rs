//! The `ptxvk` binary: the README demo, each command, and bad input (exit code, a one-line
//! cause, no panic).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

mod hostile;

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

/// A SPIR-V binary's words (little-endian, as `ptxvk translate` writes them).
fn spirv_words(bytes: &[u8]) -> Vec<u32> {
    assert_eq!(bytes.len() % 4, 0, "not a whole number of words");
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn translate_emits_valid_spirv() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-tr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.spv");
    let o = ptxvk(&[
        "translate",
        "shaders/saxpy.ptx",
        "--device-profile",
        "lavapipe",
        "-o",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A file named on the command line is not a kernel's file name that was cut short.
    assert!(!stderr(&o).contains("too long"), "{}", stderr(&o));
    let words = spirv_words(&std::fs::read(&out).unwrap());
    ptxvk_runtime::translator::validate(&words).unwrap();
}

#[test]
fn translate_to_stdout_with_dash() {
    let o = ptxvk(&[
        "translate",
        "shaders/saxpy.ptx",
        "--device-profile",
        "lavapipe",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let words = spirv_words(&o.stdout);
    assert_eq!(words.first(), Some(&0x0723_0203), "SPIR-V magic number");
    ptxvk_runtime::translator::validate(&words).unwrap();
    let o = ptxvk(&[
        "translate",
        "shaders/saxpy.ptx",
        "--device-profile",
        "nvidia",
        "--emit",
        "spvasm",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("OpEntryPoint GLCompute"));
    assert!(!std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../-")).exists());
    // Several kernels cannot share one binary stream.
    let o = ptxvk(&[
        "translate",
        "shaders/warps_clang.ptx",
        "--device-profile",
        "nvidia",
        "-o",
        "-",
    ]);
    assert_fails(&o, "--kernel");
}

#[test]
fn time_reports_device_time() {
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    args.extend(["--time", "--json"]);
    let o = ptxvk(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The warm-up launch's results were put back: y = 2x + 1 once, not twice.
    assert_eq!(v["buffers"]["y"][2], "5");
    for key in ["time_ms", "translation_ms", "first_launch_ms"] {
        let ms = v[key].as_f64().unwrap_or_else(|| panic!("{key}: {v}"));
        assert!(ms > 0.0 && ms < 60_000.0, "{key}: {ms}");
    }
    // The text form names the one-time costs apart from the kernel's time.
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    args.extend(["--time", "--print", "3"]);
    let o = ptxvk(&args);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("(device timestamps)"), "{out}");
    assert!(
        out.contains("translation") && out.contains("first launch"),
        "{out}"
    );
    assert!(out.contains("y: f32[1000] = [1, 3, 5, ...]"), "{out}");
}

#[test]
fn bench_reports_per_launch_times() {
    let mut args: Vec<&str> = SAXPY_ARGS.to_vec();
    args[0] = "bench";
    args.extend(["-n", "20", "--json"]);
    let o = ptxvk(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["launches"], 20);
    assert!(v["wall_us_per_launch"].as_f64().unwrap() > 0.0);
}

#[test]
fn check_lists_kernels_with_signatures() {
    let o = ptxvk(&["check", "shaders/saxpy.ptx"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(".entry saxpy(.u32 saxpy_param_0, .f32 saxpy_param_1, .u64 saxpy_param_2, .u64 saxpy_param_3)"),
        "{out}"
    );
    let o = ptxvk(&["check", "--json", "shaders/vector_add_clang.ptx"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["kernels"][0]["name"], "vector_add");
    assert_eq!(v[0]["kernels"][0]["params"].as_array().unwrap().len(), 4);
}

#[test]
fn help_everywhere_and_usage_errors_exit_2() {
    for cmd in [
        vec!["--help"],
        vec!["info", "--help"],
        vec!["check", "--help"],
        vec!["translate", "--help"],
        vec!["run", "--help"],
        vec!["bench", "--help"],
    ] {
        let o = ptxvk(&cmd);
        assert_eq!(o.status.code(), Some(0), "{cmd:?}");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("Usage:"),
            "{cmd:?}"
        );
    }
    for bad in [
        vec!["frobnicate"],
        vec!["run"],
        vec!["run", "x.ptx", "--grid"],
    ] {
        let o = ptxvk(&bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
    }
}

#[test]
fn info_json_lists_devices() {
    let o = ptxvk(&["info", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &v.as_array().unwrap()[0];
    assert!(d["name"].is_string());
    assert!(d["max_workgroup_invocations"].as_u64().unwrap() >= 128);
    // VK_KHR_cooperative_matrix's configurations: none where the device lacks the extension.
    for c in d["cooperative_matrix"].as_array().unwrap() {
        assert!(
            ["m", "n", "k"].iter().all(|s| c[s].as_u64() > Some(0)),
            "{c}"
        );
        assert!(c["a"].is_string() && c["result"].is_string(), "{c}");
    }
}

/// The rest of a kernel that ptxvk cannot translate (it reads a texture through a sampler passed
/// as a kernel parameter), for a module whose `.target` has `texmode_independent`.
const SAMPLED: &str = ".param .texref t, .param .samplerref s) { .reg .f32 %f<6>; \
                       tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, s, {%f5, %f5}]; ret; }";

/// `translate -o DIR` writes every kernel it can, names files so that any kernel name fits (a
/// name longer than a file name is shortened with a hash; `manifest.json` maps files to
/// kernels), and reports every kernel it could not translate instead of stopping at the first.
#[test]
fn translate_to_a_directory_names_long_kernels_and_reports_every_failure() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let long = format!(
        "_ZN3cub17CUB_300000_SM_90011DeviceScan{}Ev",
        "N".repeat(300)
    );
    // A sampler passed as a kernel parameter is not supported: two kernels fail.
    let ptx = format!(
        ".version 8.0\n.target sm_80, texmode_independent\n.address_size 64\n\
         .visible .entry bad_one(.param .u64 o, {SAMPLED}\n\
         .visible .entry ok(.param .u64 o) {{ ret; }}\n\
         .visible .entry {long}(.param .u64 o) {{ ret; }}\n\
         .visible .entry bad_two(.param .u64 o, {SAMPLED}\n"
    );
    let file = dir.join("k.ptx");
    std::fs::write(&file, ptx).unwrap();
    let out = dir.join("out");
    // A path that is no directory and does not end in `/` is refused, not made a directory.
    let o = ptxvk(&[
        "translate",
        &file.display().to_string(),
        "--device-profile",
        "lavapipe",
        "-o",
        &out.display().to_string(),
    ]);
    assert_fails(&o, "is not a directory");
    assert!(!out.exists());
    let o = ptxvk(&[
        "translate",
        &file.display().to_string(),
        "--device-profile",
        "lavapipe",
        "-o",
        &format!("{}/", out.display()),
    ]);
    assert_fails(
        &o,
        "2 of 4 kernels could not be translated: bad_one, bad_two",
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let kernels = manifest["kernels"].as_array().unwrap();
    let names: Vec<&str> = kernels
        .iter()
        .map(|k| k["kernel"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ok", long.as_str()]);
    for k in kernels {
        let file = k["file"].as_str().unwrap();
        assert!(file.len() <= 255 && file.ends_with(".spv"), "{file}");
        let words = spirv_words(&std::fs::read(out.join(file)).unwrap());
        ptxvk_runtime::translator::validate(&words).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ptxvk run` prints what the kernel's `printf` writes on stdout.
#[test]
fn run_prints_device_printf_output() {
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-printf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hello.ptx");
    // printf("hello from %d\n", threadIdx.x), as compilers write it.
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .extern .func (.param .b32 r) vprintf (.param .b64 fmt, .param .b64 args);\n\
        .global .align 1 .b8 fmt[15] = {104, 101, 108, 108, 111, 32, 102, 114, 111, 109, 32, 37, 100, 10, 0};\n\
        .visible .entry hello()\n{\n\
        .local .align 4 .b8 depot[4];\n.reg .b32 %r<3>;\n.reg .b64 %rd<5>;\n\
        mov.u64 %rd1, fmt;\ncvta.global.u64 %rd2, %rd1;\n\
        mov.u64 %rd3, depot;\ncvta.local.u64 %rd4, %rd3;\n\
        mov.u32 %r1, %tid.x;\nst.local.u32 [%rd3], %r1;\n\
        {\n.param .b64 p0;\nst.param.b64 [p0], %rd2;\n.param .b64 p1;\nst.param.b64 [p1], %rd4;\n\
        .param .b32 r0;\ncall.uni (r0), vprintf, (p0, p1);\nld.param.b32 %r2, [r0];\n}\n\
        ret;\n}\n";
    std::fs::write(&file, ptx).unwrap();
    let o = ptxvk(&["run", file.to_str().unwrap(), "--grid", "1", "--block", "3"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    let mut lines: Vec<&str> = out.lines().filter(|l| l.starts_with("hello")).collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        ["hello from 0", "hello from 1", "hello from 2"],
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-o` naming a device or a pipe writes through it and leaves it in place: as root, renaming a
/// temporary file over `/dev/null` would turn it into a regular file for every other program.
#[test]
fn outputs_to_a_pipe_write_through_it() {
    use std::io::Read as _;
    use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
    let dir = std::env::temp_dir().join(format!("ptxvk-cli-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.ptx");
    std::fs::write(
        &file,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n",
    )
    .unwrap();
    let fifo = dir.join("out.fifo");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .and_then(|mut f| f.read_to_string(&mut text))
                .map(|_| text)
        })
    };
    let (file_arg, fifo_arg) = (file.display().to_string(), fifo.display().to_string());
    let o = ptxvk(&[
        "translate",
        &file_arg,
        "--device-profile",
        "lavapipe",
        "--emit",
        "spvasm",
        "-o",
        &fifo_arg,
    ]);
    // Unblocks the reader if ptxvk never opened the pipe.
    drop(
        std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo),
    );
    let text = reader.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(text.contains("OpEntryPoint"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
