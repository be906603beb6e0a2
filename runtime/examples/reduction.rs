//! The sum of a million integers with a shared-memory tree reduction: each launch turns 512
//! values per block into one partial sum, until one value is left.
//!
//! `cargo run -p ptxvk-runtime --example reduction`

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../shaders/reduce_clang.ptx");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    let module = ctx.load_ptx("reduce_clang.ptx", PTX)?;
    let reduce = module.kernel("reduce_sum")?;

    let data: Vec<u32> = (0..1_000_000u32).map(|i| i % 1000).collect();
    let mut values = DeviceBuffer::from_slice(&ctx, &data)?;
    let mut len = data.len();
    // All launches go on one stream: they run in order, batched into one submission.
    let stream = ctx.new_stream()?;
    let mut partials = Vec::new();
    while len > 1 {
        let blocks = len.div_ceil(512);
        let out = DeviceBuffer::<u32>::zeroed(&ctx, blocks)?;
        stream.launch(
            &reduce,
            &LaunchConfig::new([blocks as u32, 1, 1], [256, 1, 1]),
            &[(&values).into(), (&out).into(), (len as u32).into()],
        )?;
        // The stream keeps `values` alive until the launch has run; keep the last one here.
        partials.push(std::mem::replace(&mut values, out));
        len = blocks;
    }
    let sum = stream.copy_to_host(&values)?.wait()?[0];
    let want: u32 = data.iter().sum();
    println!("{}: sum = {sum} (host: {want})", ctx.info().name);
    if sum != want {
        return Err("the device's sum differs from the host's".into());
    }
    Ok(())
}
