//! The runtime's benchmarks (`cargo xtask bench [launch|copy|memory|all]`). Each number
//! is reported next to a reference measured in the same run on the same machine:
//!
//! - `launch`: an empty kernel's launch cost, unbatched (`Kernel::launch`, one submission and
//!   wait each) and batched (`Stream::launch`, many per submission), against an empty
//!   `vkCmdFillBuffer` of one word submitted and waited for (the driver's floor).
//! - `copy`: host-to-device and device-to-host bandwidth of 64 MiB copies (direct and through
//!   staging buffers), against `copy_from_slice` of the same size in host memory.
//! - `memory`: resident memory over 10,000 load/launch/unload cycles of a module.
//! - `load`: loading a generated module of 10,000 lines (translation) and the first launch of
//!   each of its kernels (pipeline creation and the driver's compile), against the same for
//!   the empty kernel.
//!
//! Kernels against their GLSL twins: `benches/kernels.rs` (`cargo xtask bench kernels`).

use std::time::{Duration, Instant};

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const EMPTY: &str = include_str!("../../shaders/empty.ptx");

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Full sizes under `cargo bench` (which passes `--bench`); tiny ones when `cargo test
/// --all-targets` runs this as a smoke test (every benchmark still checks its results).
fn full() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn scaled(full_size: usize, smoke: usize) -> usize {
    if full() { full_size } else { smoke }
}

/// Memory checking (on by default on CPU devices) is off unless `PTXVK_MEMCHECK=1`: the
/// kernels are measured as translated for speed.
fn options() -> ContextOptions {
    let mut o = ContextOptions::from_env();
    o.pipeline_cache_dir = None;
    o.memcheck = o.memcheck.or(Some(false));
    o
}

fn us(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> Res<(Duration, T)>) -> Res<(Duration, T)> {
    let mut best = f()?;
    for _ in 1..reps {
        let r = f()?;
        if r.0 < best.0 {
            best = r;
        }
    }
    Ok(best)
}

fn launch(ctx: &Context) -> Res<()> {
    let m = ctx.load_ptx("empty.ptx", EMPTY)?;
    let k = m.kernel("empty")?;
    let cfg = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    let args = [0u64.into()];
    k.launch(&cfg, &args)?; // pipeline and shader compiled here
    let n = scaled(2000, 20);
    let (unbatched, ()) = best_of(3, || {
        let t = Instant::now();
        for _ in 0..n {
            k.launch(&cfg, &args)?;
        }
        Ok((t.elapsed(), ()))
    })?;
    let s = ctx.new_stream()?;
    let (batched, ()) = best_of(3, || {
        let t = Instant::now();
        for _ in 0..n {
            s.launch(&k, &cfg, &args)?;
        }
        s.synchronize()?;
        Ok((t.elapsed(), ()))
    })?;
    let word = DeviceBuffer::<u32>::zeroed(ctx, 1)?;
    let (sync, ()) = best_of(3, || {
        let t = Instant::now();
        for _ in 0..n {
            s.fill(&word, 0)?; // the smallest command: one vkCmdFillBuffer
            s.synchronize()?;
        }
        Ok((t.elapsed(), ()))
    })?;
    println!("launch: empty kernel, {n} launches, best of 3");
    println!(
        "  unbatched (Kernel::launch)       {:8.2} us/launch",
        us(unbatched, n)
    );
    println!(
        "  batched (Stream::launch)         {:8.2} us/launch",
        us(batched, n)
    );
    println!("  reference: 4-byte fill + wait    {:8.2} us", us(sync, n));
    println!(
        "  ratios: unbatched / reference {:.2}, batched / unbatched {:.3}",
        unbatched.as_secs_f64() / sync.as_secs_f64(),
        batched.as_secs_f64() / unbatched.as_secs_f64()
    );
    Ok(())
}

/// A module of `kernels` kernels, each a chain of `steps` integer operations over eight
/// registers ending in one store: `lines` of PTX that translation and the driver's compiler must
/// both walk.
fn generated_module(kernels: usize, steps: usize) -> String {
    let mut s = String::from(".version 7.0\n.target sm_70\n.address_size 64\n");
    for k in 0..kernels {
        s.push_str(&format!(
            "\n.visible .entry chain{k}(.param .u64 out, .param .u32 seed)\n{{\n\
             \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\
             \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r0, [seed];\n"
        ));
        for r in 1..8 {
            s.push_str(&format!("\tadd.u32 %r{r}, %r0, {r};\n"));
        }
        for i in 0..steps {
            let (d, a, b) = (i % 8, (i + 3) % 8, (i + 5) % 8);
            let op = ["add.u32", "xor.b32", "mul.lo.u32", "sub.u32"][i % 4];
            s.push_str(&format!("\t{op} %r{d}, %r{a}, %r{b};\n"));
        }
        s.push_str("\tst.global.u32 [%rd1], %r0;\n\tret;\n}\n");
    }
    s
}

/// Translation of a module and the first launch of each kernel: (load, first launches).
fn load_and_first_launches(
    ctx: &Context,
    ptx: &str,
    names: &[String],
) -> Res<(Duration, Duration)> {
    let out = DeviceBuffer::<u32>::zeroed(ctx, 1)?;
    let t = Instant::now();
    let m = ctx.load_ptx("generated.ptx", ptx)?;
    let loaded = t.elapsed();
    let t = Instant::now();
    for name in names {
        let args = [(&out).into(), 7u32.into()];
        m.kernel(name)?
            .launch(&LaunchConfig::new([1, 1, 1], [1, 1, 1]), &args)?;
    }
    Ok((loaded, t.elapsed()))
}

fn load() -> Res<()> {
    let (kernels, steps) = (10, scaled(990, 20));
    let big = generated_module(kernels, steps);
    let names: Vec<String> = (0..kernels).map(|k| format!("chain{k}")).collect();
    let small = generated_module(1, 0);
    // Best of 3, each in a fresh context so that nothing is cached between them.
    let (mut best_big, mut best_small) = (
        (Duration::MAX, Duration::MAX),
        (Duration::MAX, Duration::MAX),
    );
    for _ in 0..3 {
        let c = Context::new(&options())?;
        let r = load_and_first_launches(&c, &big, &names)?;
        best_big = (best_big.0.min(r.0), best_big.1.min(r.1));
        let c = Context::new(&options())?;
        let r = load_and_first_launches(&c, &small, &names[..1])?;
        best_small = (best_small.0.min(r.0), best_small.1.min(r.1));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "load: a generated module of {} lines and {kernels} kernels, best of 3 (fresh contexts)",
        big.lines().count()
    );
    println!(
        "  translate (load_ptx)             {:8.2} ms   one small kernel: {:.2} ms",
        ms(best_big.0),
        ms(best_small.0)
    );
    println!(
        "  first launches (pipelines)       {:8.2} ms   one small kernel: {:.2} ms",
        ms(best_big.1),
        ms(best_small.1)
    );
    Ok(())
}

fn copy(staging: bool) -> Res<()> {
    let mut o = options();
    o.restrict.no_host_visible_device_memory = staging;
    let ctx = Context::new(&o)?;
    let n = scaled(16 << 20, 1 << 12); // f32s: 64 MiB
    let bytes = (n * 4) as f64;
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut back = vec![0f32; n];
    let dev = DeviceBuffer::<f32>::zeroed(&ctx, n)?;
    let gbs = |d: Duration| bytes / d.as_secs_f64() / 1e9;
    let (htod, ()) = best_of(5, || {
        let t = Instant::now();
        dev.copy_from_host(&host)?;
        Ok((t.elapsed(), ()))
    })?;
    let (dtoh, ()) = best_of(5, || {
        let t = Instant::now();
        dev.copy_to_host(&mut back)?;
        Ok((t.elapsed(), ()))
    })?;
    if back != host {
        return Err("the copies changed the data".into());
    }
    let mut other = vec![0f32; n];
    let (memcpy, ()) = best_of(5, || {
        let t = Instant::now();
        other.copy_from_slice(std::hint::black_box(&host));
        std::hint::black_box(&other);
        Ok((t.elapsed(), ()))
    })?;
    let how = if ctx.uses_staging() {
        "through staging buffers"
    } else {
        "direct (host-visible device memory)"
    };
    println!("copy: {} MiB, {how}, best of 5", bytes / f64::from(1 << 20));
    println!(
        "  host -> device   {:7.2} GB/s   ({:.2} x memcpy)",
        gbs(htod),
        memcpy.as_secs_f64() / htod.as_secs_f64()
    );
    println!(
        "  device -> host   {:7.2} GB/s   ({:.2} x memcpy)",
        gbs(dtoh),
        memcpy.as_secs_f64() / dtoh.as_secs_f64()
    );
    println!("  reference: memcpy {:6.2} GB/s", gbs(memcpy));
    Ok(())
}

#[cfg(target_os = "linux")]
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(not(target_os = "linux"))]
fn resident_bytes() -> Option<u64> {
    None
}

fn memory(ctx: &Context) -> Res<()> {
    let cycles = scaled(10_000, 20);
    let cycle = || -> Res<()> {
        let m = ctx.load_ptx("empty.ptx", EMPTY)?;
        m.kernel("empty")?
            .launch(&LaunchConfig::new([1, 1, 1], [1, 1, 1]), &[0u64.into()])?;
        Ok(())
    };
    for _ in 0..scaled(200, 2) {
        cycle()?; // let allocator pools and driver caches reach their steady size
    }
    let Some(start) = resident_bytes() else {
        println!("memory: resident size is only measured on Linux");
        return Ok(());
    };
    let t = Instant::now();
    let mut samples = Vec::new();
    for i in 1..=cycles {
        cycle()?;
        if i % (cycles / 5).max(1) == 0 {
            samples.push((i, resident_bytes().unwrap_or(0)));
        }
    }
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "memory: {cycles} load/launch/unload cycles in {:.1} s ({:.0} us each)",
        t.elapsed().as_secs_f64(),
        us(t.elapsed(), cycles)
    );
    println!("  resident at start   {:8.2} MiB", mib(start));
    for (i, rss) in &samples {
        println!("  after {i:5} cycles  {:8.2} MiB", mib(*rss));
    }
    let end = samples.last().map_or(start, |s| s.1);
    println!(
        "  growth: {:+.2} MiB ({:+.1} bytes per cycle)",
        mib(end) - mib(start),
        (end as f64 - start as f64) / cycles as f64
    );
    Ok(())
}

fn main() -> Res<()> {
    // `cargo bench` passes `--bench`; the first other argument picks the benchmarks.
    let which = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "all".into());
    let ctx = Context::new(&options())?;
    println!("device: {} ({})\n", ctx.info().name, ctx.info().driver);
    let all = which == "all";
    if all || which == "launch" {
        launch(&ctx)?;
        println!();
    }
    if all || which == "launch" || which == "copy" {
        copy(false)?;
        copy(true)?;
        println!();
    }
    if all || which == "launch" || which == "load" {
        load()?;
        println!();
    }
    if all || which == "memory" {
        memory(&ctx)?;
    }
    if !all && !["launch", "copy", "memory", "load"].contains(&which.as_str()) {
        return Err(format!(
            "unknown benchmark `{which}` (launch, copy, load, memory, all; kernels: the `kernels` bench)"
        )
        .into());
    }
    Ok(())
}
