//! `cargo xtask bench kernels`: translated kernels against GLSL twins.
//!
//! Each kernel of `shaders/bench/bench.cu` (CUDA C of ours, compiled by clang-19 into
//! `bench.ptx`) runs through ptxvk, and the same algorithm written by us as a GLSL compute
//! shader (`shaders/bench/NAME.comp`, compiled by glslang when the benchmark starts) runs on the
//! same device, in the same run, on the same stream. Reported per kernel: the device time
//! (timestamps, median of several runs) of the twin, of ptxvk with the default settings (memory
//! checking on for CPU devices) and of ptxvk unchecked, their ratios, and the effective
//! bandwidth or arithmetic rate. Every run's output is checked against a CPU reference, both
//! ptxvk's and the twin's.
//!
//! `-- --json FILE` writes the table as JSON, `-- --svg FILE` a bar chart of the ratios.
//! Under `cargo test --all-targets` (no `--bench` argument) the sizes are tiny: a smoke test of
//! every kernel and twin.

mod cases;
mod cuda;
mod report;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ptxvk_runtime::{Buffer, Context, ContextOptions, KernelArg, LaunchConfig, Stream};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const PTX: &str = include_str!("../../../shaders/bench/bench.ptx");
const GLSL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/bench");

/// A kernel argument, for the PTX launch and the twin's push constants alike.
#[derive(Clone, Copy)]
pub enum Arg {
    /// The device address of buffer `i` of the case.
    Buf(usize),
    U32(u32),
    F32(f32),
}

/// One launch of the PTX kernel and the matching dispatch of its twin.
pub struct Step {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub ptx_args: Vec<Arg>,
    /// In the twin's push-constant order (buffer addresses first, as its `P` block declares).
    pub push: Vec<Arg>,
}

/// What one run moves or computes, for the rate column.
#[derive(Clone, Copy)]
pub enum Work {
    Bytes(f64),
    Flops(f64),
}

pub type Check = Box<dyn Fn(&[u8]) -> Result<(), String>>;

/// A benchmark case: buffers with their contents before every run, the steps of one run, and
/// the check of the output buffer.
pub struct Case {
    pub name: &'static str,
    pub size: String,
    pub work: Work,
    pub buffers: Vec<Vec<u8>>,
    pub steps: Vec<Step>,
    pub output: usize,
    pub check: Check,
}

fn full() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// Whether `times` (one per run after the warm-up) are enough for a median: one in the smoke
/// test; else at least 5 runs and 50 ms of device time, or 100 runs. Kernels that take tens of
/// microseconds on a GPU need many runs for a stable median; each run also rewrites the inputs
/// (64 MiB for some cases), which bounds how many are worth making.
fn enough(times: &[Duration]) -> bool {
    if !full() {
        return !times.is_empty();
    }
    let total: Duration = times.iter().sum();
    times.len() >= 100 || (times.len() >= 5 && total >= Duration::from_millis(50))
}

fn context(memcheck: Option<bool>) -> Res<Context> {
    let mut o = ContextOptions::from_env();
    o.pipeline_cache_dir = None;
    o.memcheck = memcheck.or(o.memcheck);
    Ok(Context::new(&o)?)
}

/// glslang's SPIR-V of `shaders/bench/NAME.comp`, compiled into `dir`.
fn compile_glsl(name: &str, dir: &Path) -> Res<Vec<u32>> {
    let src = Path::new(GLSL_DIR).join(format!("{name}.comp"));
    let out = dir.join(format!("{name}.spv"));
    let o = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| {
            format!("cannot run glslangValidator ({e}); `cargo xtask bench` installs it")
        })?;
    if !o.status.success() {
        return Err(format!(
            "glslangValidator {}: {}",
            src.display(),
            String::from_utf8_lossy(&o.stdout)
        )
        .into());
    }
    let bytes = std::fs::read(&out)?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    #[cfg(feature = "validate")]
    ptxvk_runtime::translator::validate(&words).map_err(|e| format!("{name}.comp: {e}"))?;
    Ok(words)
}

/// Which side of the comparison runs.
enum Side<'a> {
    Ptx(&'a ptxvk_runtime::Kernel),
    Glsl(&'a ptxvk_runtime::SpirvKernel),
}

/// Runs `case` on `side`: the median device time of the runs after a warm-up ([`enough`]), each
/// started from the case's initial buffers, and the output of the last, checked.
fn measure(ctx: &Context, case: &Case, side: &Side) -> Res<Duration> {
    let buffers: Vec<Buffer> = case
        .buffers
        .iter()
        .map(|b| Buffer::new(ctx, b.len().max(4) as u64))
        .collect::<Result<_, _>>()?;
    let addr = |i: usize| buffers[i].address();
    let stream = ctx.new_stream()?;
    let mut times = Vec::new();
    for run in 0.. {
        if enough(&times) {
            break;
        }
        for (b, init) in buffers.iter().zip(&case.buffers) {
            b.write_bytes(0, init)?;
        }
        let start = stream.record_event()?;
        for step in &case.steps {
            enqueue(&stream, side, step, &addr)?;
        }
        let end = stream.record_event()?;
        stream.synchronize()?;
        if run > 0 {
            times.push(start.elapsed(&end)?);
        }
    }
    let out = &buffers[case.output];
    let mut bytes = vec![0u8; case.buffers[case.output].len()];
    out.read_bytes(0, &mut bytes)?;
    let who = match side {
        Side::Ptx(_) => "ptxvk",
        Side::Glsl(_) => "the GLSL twin",
    };
    (case.check)(&bytes).map_err(|e| format!("{}: {who} is wrong: {e}", case.name))?;
    times.sort();
    Ok(times[times.len() / 2])
}

fn enqueue(stream: &Stream, side: &Side, step: &Step, addr: &dyn Fn(usize) -> u64) -> Res<()> {
    match side {
        Side::Ptx(k) => {
            let args: Vec<KernelArg> = step
                .ptx_args
                .iter()
                .map(|a| match *a {
                    Arg::Buf(i) => KernelArg::Ptr(addr(i)),
                    Arg::U32(v) => v.into(),
                    Arg::F32(v) => v.into(),
                })
                .collect();
            stream.launch(k, &LaunchConfig::new(step.grid, step.block), &args)?;
        }
        Side::Glsl(s) => {
            let push = push_bytes(step, addr);
            stream.dispatch_spirv(s, step.grid, &push)?;
        }
    }
    Ok(())
}

fn arg_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    // The first argument that is neither a flag nor a flag's value picks kernels by name.
    let filter = args
        .iter()
        .enumerate()
        .skip(1)
        .find(|(i, a)| !a.starts_with('-') && !["--json", "--svg"].contains(&args[i - 1].as_str()))
        .map(|(_, a)| a.clone());
    let checked = context(None)?;
    let unchecked = context(Some(false))?;
    println!(
        "device: {} ({}); memory checking by default: {}\n",
        checked.info().name,
        checked.info().driver,
        if checked.profile().memcheck {
            "on"
        } else {
            "off"
        }
    );
    let dir: PathBuf = std::env::temp_dir().join(format!("ptxvk-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let module = checked.load_ptx("bench.ptx", PTX)?;
    let module_unchecked = unchecked.load_ptx("bench.ptx", PTX)?;
    let cuda = cuda::Cuda::open(PTX).transpose()?;
    if let Some(c) = &cuda {
        println!("CUDA: the same PTX through NVIDIA's driver on {}", c.name);
    }
    let mut rows = Vec::new();
    report::header(cuda.is_some());
    for case in cases::all(full()) {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        let twin = checked.load_spirv(&compile_glsl(case.name, &dir)?, "main", push_size(&case))?;
        let glsl = measure(&checked, &case, &Side::Glsl(&twin))?;
        let ptx = measure(&checked, &case, &Side::Ptx(&module.kernel(case.name)?))?;
        let raw = measure(
            &unchecked,
            &case,
            &Side::Ptx(&module_unchecked.kernel(case.name)?),
        )?;
        let by_cuda = cuda.as_ref().map(|c| c.measure(&case)).transpose()?;
        let row = report::Row::new(&case, glsl, ptx, raw, by_cuda);
        row.print();
        rows.push(row);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(path) = arg_value(&args, "--json") {
        std::fs::write(path, report::json(&checked, &rows))?;
        println!("\nwrote {path}");
    }
    if let Some(path) = arg_value(&args, "--svg") {
        std::fs::write(path, report::svg(&checked, &rows))?;
        println!("wrote {path}");
    }
    Ok(())
}

/// The twin's push constants for `step`, std430: rounded up to its largest member, a buffer
/// address.
fn push_bytes(step: &Step, addr: &dyn Fn(usize) -> u64) -> Vec<u8> {
    let mut push = Vec::new();
    for a in &step.push {
        match *a {
            Arg::Buf(i) => push.extend_from_slice(&addr(i).to_le_bytes()),
            Arg::U32(v) => push.extend_from_slice(&v.to_le_bytes()),
            Arg::F32(v) => push.extend_from_slice(&v.to_le_bytes()),
        }
    }
    push.resize(push.len().next_multiple_of(8), 0);
    push
}

/// Bytes of the twin's push constants (every step of a case has the same layout).
fn push_size(case: &Case) -> u32 {
    push_bytes(&case.steps[0], &|_| 0).len() as u32
}
