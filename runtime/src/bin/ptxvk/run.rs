//! `ptxvk run`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use ptxvk_runtime::translator::ScalarType;

use ptxvk_runtime::{
    Buffer, Context, ContextOptions, Error, Kernel, KernelArg, LaunchConfig, Module, describe_param,
};

use crate::args::{self, ArgSpec};
use crate::cli::{BenchArgs, RunArgs};

struct HostBuffer {
    name: String,
    ty: ScalarType,
    count: usize,
    buffer: Buffer,
    /// What it held before the launch (`--time` puts it back after the warm-up launch).
    initial: Vec<u8>,
}

/// Everything a launch needs, set up from the command line.
struct Prepared {
    ctx: Context,
    module: Module,
    kernel: Kernel,
    /// Parsing, checking and translating the kernel.
    translation: Duration,
    kernel_name: String,
    cfg: LaunchConfig,
    kargs: Vec<KernelArg>,
    buffers: Vec<HostBuffer>,
    /// `--out NAME=FILE`.
    outs: Vec<(String, PathBuf)>,
}

/// `Ok(None)`: diagnostics were printed, exit with 1.
fn prepare(a: &RunArgs) -> Result<Option<Prepared>> {
    let spec = a.launch_spec()?;
    let src = crate::read_source(&a.file)?;
    let specs = spec.args;

    let mut opts = ContextOptions::from_env();
    if a.device.is_some() {
        opts.device = a.device.clone();
    }
    let ctx = Context::new(&opts)?;
    let started = Instant::now();
    let module = match ctx.load_ptx(&src.name, &src.text) {
        Ok(m) => m,
        Err(Error::Translate(d)) => {
            crate::print_diagnostics(&d);
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let names = module.kernel_names();
    let kernel_name = match (&a.kernel, names.as_slice()) {
        (Some(k), _) => k.clone(),
        (None, [only]) => only.clone(),
        (None, []) => bail!("`{}` has no kernels", a.file.display()),
        (None, many) => bail!(
            "`{}` has several kernels ({}); choose one with --kernel",
            a.file.display(),
            many.join(", ")
        ),
    };
    let kernel = match module.kernel(&kernel_name) {
        Ok(k) => k,
        Err(Error::Translate(d)) => {
            crate::print_diagnostics(&d);
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let translation = started.elapsed();
    let params = kernel.abi().params.clone();
    if specs.len() != params.len() {
        let sig: Vec<String> = params
            .iter()
            .map(|p| format!("{} {}", describe_param(p), p.name))
            .collect();
        bail!(
            "kernel `{kernel_name}` takes {} argument(s) ({}), {} given",
            params.len(),
            sig.join(", "),
            specs.len()
        );
    }

    let mut buffers: Vec<HostBuffer> = Vec::new();
    let mut kargs = Vec::new();
    for (i, (spec, p)) in specs.iter().zip(&params).enumerate() {
        match spec {
            ArgSpec::Scalar { ty, text } => {
                let ty = ty.unwrap_or(p.ty);
                let bytes = args::value_bytes(text, ty).with_context(|| {
                    format!("argument {i} (`{}`: {})", p.name, describe_param(p))
                })?;
                kargs.push(scalar_arg(ty, &bytes));
            }
            ArgSpec::Buffer {
                name,
                ty,
                count,
                init,
            } => {
                let data = args::init_bytes(*ty, *count, init, ctx.info().device_local_bytes)
                    .with_context(|| format!("argument {i} (`{}`)", p.name))?;
                let count = data.len() / ty.bytes() as usize;
                let buffer = Buffer::new(&ctx, data.len() as u64)?;
                buffer.write_bytes(0, &data)?;
                kargs.push(KernelArg::Ptr(buffer.address()));
                buffers.push(HostBuffer {
                    name: name.clone().unwrap_or_else(|| p.name.clone()),
                    ty: *ty,
                    count,
                    buffer,
                    initial: data,
                });
            }
        }
    }
    // Every `--out` names a buffer, checked before the launch: a typo found after it would
    // leave the files written so far beside an error.
    if let Some((name, path)) = spec
        .outs
        .iter()
        .find(|(n, _)| !buffers.iter().any(|b| &b.name == n))
    {
        bail!("--out {name}={}: no buffer named `{name}`", path.display());
    }
    let cfg = LaunchConfig {
        grid: spec.grid,
        block: spec.block,
        shared_bytes: a.shared,
    };
    Ok(Some(Prepared {
        ctx,
        module,
        kernel,
        translation,
        kernel_name,
        cfg,
        kargs,
        buffers,
        outs: spec.outs,
    }))
}

pub fn run(a: &RunArgs) -> Result<ExitCode> {
    let Some(p) = prepare(a)? else {
        return Ok(ExitCode::from(1));
    };
    let (grid, block) = (p.cfg.grid, p.cfg.block);
    let timing = if a.time {
        Some(timed_launch(&p)?)
    } else {
        p.kernel.launch(&p.cfg, &p.kargs)?;
        None
    };
    let Prepared {
        ctx,
        kernel_name,
        buffers,
        outs,
        ..
    } = p;

    for (name, path) in &outs {
        let Some(b) = buffers.iter().find(|b| &b.name == name) else {
            continue; // refused in `prepare`
        };
        let mut data = vec![0u8; b.buffer.size() as usize];
        b.buffer.read_bytes(0, &mut data)?;
        crate::write_file(path, &data)?;
    }
    if a.json {
        let mut map = serde_json::Map::new();
        for b in &buffers {
            let vals = read_values(b, b.count)?;
            map.insert(b.name.clone(), serde_json::Value::from(vals));
        }
        let mut out = serde_json::json!({
            "kernel": kernel_name,
            "device": ctx.info().name,
            "buffers": map,
        });
        if let Some(t) = &timing {
            out["time_ms"] = serde_json::Value::from(ms(t.kernel));
            out["translation_ms"] = serde_json::Value::from(ms(t.translation));
            out["first_launch_ms"] = serde_json::Value::from(ms(t.first_launch));
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if a.print > 0 || timing.is_some() {
        let time = timing
            .as_ref()
            .map(|t| format!(" in {:.3} ms (device timestamps)", ms(t.kernel)))
            .unwrap_or_default();
        println!(
            "ran `{kernel_name}` on {} (grid {grid:?}, block {block:?}){time}",
            ctx.info().name
        );
        if let Some(t) = &timing {
            println!(
                "  once per kernel, before that: parse, check and translation {:.1} ms; first \
                 launch {:.1} ms (pipeline creation, the driver's compile and a warm-up run, \
                 whose results were put back)",
                ms(t.translation),
                ms(t.first_launch)
            );
        }
        for b in buffers.iter().filter(|_| a.print > 0) {
            let shown = read_values(b, a.print.min(b.count))?;
            let more = if b.count > shown.len() { ", ..." } else { "" };
            println!(
                "{}: {}[{}] = [{}{more}]",
                b.name,
                b.ty.name(),
                b.count,
                shown.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Where a timed run's time went.
struct Timing {
    translation: Duration,
    /// The warm-up launch, from the host: pipeline creation, the driver's compile, one run.
    first_launch: Duration,
    /// The timed launch's device time (timestamps).
    kernel: Duration,
}

/// Runs the kernel twice: once to pay the one-time costs, then timed. The buffers and the
/// module's variables are put back in between, so the printed results are those of one run.
fn timed_launch(p: &Prepared) -> Result<Timing> {
    let globals: Vec<(String, Vec<u8>)> = p
        .module
        .globals()
        .into_iter()
        .map(|g| Ok((g.name.clone(), p.module.read_global(&g.name)?)))
        .collect::<Result<_>>()?;
    let started = Instant::now();
    p.kernel.launch(&p.cfg, &p.kargs)?;
    let first_launch = started.elapsed();
    for b in &p.buffers {
        b.buffer.write_bytes(0, &b.initial)?;
    }
    for (name, bytes) in &globals {
        p.module.write_global(name, 0, bytes)?;
    }
    let stream = p.ctx.new_stream()?;
    let start = stream.record_event()?;
    stream.launch(&p.kernel, &p.cfg, &p.kargs)?;
    let end = stream.record_event()?;
    stream.synchronize()?;
    Ok(Timing {
        translation: p.translation,
        first_launch,
        kernel: start.elapsed(&end)?,
    })
}

/// Launches the kernel `iters` times, batched on one stream, and reports the device time per
/// launch (timestamps) and the host's wall time per launch.
pub fn bench(b: &BenchArgs) -> Result<ExitCode> {
    let Some(p) = prepare(&b.run)? else {
        return Ok(ExitCode::from(1));
    };
    let iters = b.iters.max(1);
    let stream = p.ctx.new_stream()?;
    // Warm-up: creates the pipeline and compiles the shader.
    stream.launch(&p.kernel, &p.cfg, &p.kargs)?;
    stream.synchronize()?;
    let wall = std::time::Instant::now();
    let start = stream.record_event()?;
    for _ in 0..iters {
        stream.launch(&p.kernel, &p.cfg, &p.kargs)?;
    }
    let end = stream.record_event()?;
    stream.synchronize()?;
    let wall = wall.elapsed();
    let device = start.elapsed(&end).ok();
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / f64::from(iters);
    if b.run.json {
        let out = serde_json::json!({
            "kernel": p.kernel_name,
            "device": p.ctx.info().name,
            "launches": iters,
            "grid": p.cfg.grid,
            "block": p.cfg.block,
            "device_us_per_launch": device.map(per),
            "wall_us_per_launch": per(wall),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "`{}` on {}: {iters} launches (grid {:?}, block {:?})",
            p.kernel_name,
            p.ctx.info().name,
            p.cfg.grid,
            p.cfg.block
        );
        if let Some(d) = device {
            println!("  device time: {:10.2} us per launch", per(d));
        }
        println!("  wall time:   {:10.2} us per launch", per(wall));
    }
    Ok(ExitCode::SUCCESS)
}

fn read_values(b: &HostBuffer, n: usize) -> Result<Vec<String>> {
    let size = b.ty.bytes() as usize;
    let mut data = vec![0u8; n * size];
    b.buffer.read_bytes(0, &mut data)?;
    Ok(data
        .chunks(size)
        .map(|c| args::format_value(c, b.ty))
        .collect())
}

fn scalar_arg(ty: ScalarType, b: &[u8]) -> KernelArg {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let v = u64::from_le_bytes(w);
    match ty {
        ScalarType::F32 => KernelArg::F32(f32::from_bits(v as u32)),
        ScalarType::F64 => KernelArg::F64(f64::from_bits(v)),
        ScalarType::F16 => KernelArg::F16(half::f16::from_bits(v as u16)),
        t => match t.bits() {
            8 => KernelArg::U8(v as u8),
            16 => KernelArg::U16(v as u16),
            32 => KernelArg::U32(v as u32),
            _ => KernelArg::U64(v),
        },
    }
}
