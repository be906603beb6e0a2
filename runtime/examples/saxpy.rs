//! saxpy on the default device with both shipped kernels, checked against the CPU.
//!
//! `cargo run -p ptxvk-runtime --example saxpy`

use std::time::Instant;

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    println!("device: {}", ctx.info().name);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders");
    let n: u32 = (1 << 20) + 3;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 7) as f32).collect();
    for file in ["saxpy.ptx", "saxpy_clang.ptx"] {
        let text = std::fs::read_to_string(format!("{root}/{file}"))?;
        let started = Instant::now();
        let module = ctx.load_ptx(file, &text)?;
        let saxpy = module.kernel("saxpy")?;
        let translation = started.elapsed();
        let dx = DeviceBuffer::from_slice(&ctx, &x)?;
        let dy = DeviceBuffer::from_slice(&ctx, &y)?;
        let cfg = LaunchConfig::for_num_elems(n, 256);
        let args = [n.into(), a.into(), (&dx).into(), (&dy).into()];
        // The first launch pays once per kernel for the pipeline and the driver's compile.
        let started = Instant::now();
        saxpy.launch(&cfg, &args)?;
        let first_launch = started.elapsed();
        dy.copy_from_host(&y)?;
        let stream = ctx.new_stream()?;
        let start = stream.record_event()?;
        stream.launch(&saxpy, &cfg, &args)?;
        let end = stream.record_event()?;
        stream.synchronize()?;
        let kernel = start.elapsed(&end)?;
        let got = dy.to_vec()?;
        let wrong = (0..n as usize)
            .filter(|&i| got[i].to_bits() != a.mul_add(x[i], y[i]).to_bits())
            .count();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "{file:>16}: n = {n}, y[0..4] = {:?}, y[n-1] = {}, {}",
            &got[..4],
            got[n as usize - 1],
            if wrong == 0 {
                "all equal to the CPU's fma".to_string()
            } else {
                format!("{wrong} WRONG")
            }
        );
        println!(
            "{:>16}  `{}` ran in {:.2} ms (device timestamps); once per kernel before that: \
             translation {:.1} ms, first launch {:.1} ms (pipeline, the driver's compile, a run)",
            "",
            saxpy.name(),
            ms(kernel),
            ms(translation),
            ms(first_launch)
        );
        if wrong != 0 {
            return Err(format!("{file}: {wrong} results differ from the CPU").into());
        }
    }
    Ok(())
}
