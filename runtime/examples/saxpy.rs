//! saxpy on the default device with both shipped kernels, checked against the CPU.
//!
//! `cargo run -p ptxvk-runtime --example saxpy`

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
        let module = ctx.load_ptx(file, &text)?;
        let saxpy = module.kernel("saxpy")?;
        let dx = DeviceBuffer::from_slice(&ctx, &x)?;
        let dy = DeviceBuffer::from_slice(&ctx, &y)?;
        let start = std::time::Instant::now();
        saxpy.launch(
            &LaunchConfig::for_num_elems(n, 256),
            &[n.into(), a.into(), (&dx).into(), (&dy).into()],
        )?;
        let elapsed = start.elapsed();
        let got = dy.to_vec()?;
        let wrong = (0..n as usize)
            .filter(|&i| got[i].to_bits() != a.mul_add(x[i], y[i]).to_bits())
            .count();
        println!(
            "{file:>16}: n = {n}, y[0..4] = {:?}, y[n-1] = {}, {} in {:.1} ms, {}",
            &got[..4],
            got[n as usize - 1],
            saxpy.name(),
            elapsed.as_secs_f64() * 1e3,
            if wrong == 0 {
                "all equal to the CPU's fma".to_string()
            } else {
                format!("{wrong} WRONG")
            }
        );
        if wrong != 0 {
            return Err(format!("{file}: {wrong} results differ from the CPU").into());
        }
    }
    Ok(())
}
