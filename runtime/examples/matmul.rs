//! C = A * B for 256 x 256 matrices with 16 x 16 tiles in shared memory, timed with events.
//!
//! `cargo run -p ptxvk-runtime --example matmul`

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../shaders/matmul_clang.ptx");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    let module = ctx.load_ptx("matmul_clang.ptx", PTX)?;
    let matmul = module.kernel("matmul")?;

    let n = 256usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let da = DeviceBuffer::from_slice(&ctx, &a)?;
    let db = DeviceBuffer::from_slice(&ctx, &b)?;
    let dc = DeviceBuffer::<f32>::zeroed(&ctx, n * n)?;

    let stream = ctx.new_stream()?;
    let tiles = n.div_ceil(16) as u32;
    let start = stream.record_event()?;
    stream.launch(
        &matmul,
        &LaunchConfig::new([tiles, tiles, 1], [16, 16, 1]),
        &[(&da).into(), (&db).into(), (&dc).into(), (n as u32).into()],
    )?;
    let end = stream.record_event()?;
    let c = stream.copy_to_host(&dc)?.wait()?;

    // Small integers: every product and sum is exact, so the host's answer is the same.
    let mut wrong = 0;
    for i in 0..n {
        for j in 0..n {
            let want: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            wrong += usize::from(c[i * n + j] != want);
        }
    }
    let time = start
        .elapsed(&end)
        .map(|t| format!("{:.2} ms", t.as_secs_f64() * 1e3))
        .unwrap_or_else(|e| e.to_string());
    println!(
        "{}: {n}x{n} matmul in {time}, {wrong} wrong",
        ctx.info().name
    );
    if wrong > 0 {
        return Err("results differ from the host".into());
    }
    Ok(())
}
