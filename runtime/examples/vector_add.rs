//! c = a + b on the default device: load PTX, allocate, launch, read back.
//!
//! `cargo run -p ptxvk-runtime --example vector_add`

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../shaders/vector_add_clang.ptx");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    let module = ctx.load_ptx("vector_add_clang.ptx", PTX)?;
    let vector_add = module.kernel("vector_add")?;

    let n = 1_000_000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let da = DeviceBuffer::from_slice(&ctx, &a)?;
    let db = DeviceBuffer::from_slice(&ctx, &b)?;
    let dc = DeviceBuffer::<f32>::zeroed(&ctx, n as usize)?;

    vector_add.launch(
        &LaunchConfig::for_num_elems(n, 256),
        &[(&da).into(), (&db).into(), (&dc).into(), n.into()],
    )?;

    let c = dc.to_vec()?;
    let wrong = (0..n as usize).filter(|&i| c[i] != a[i] + b[i]).count();
    println!(
        "{}: c[0..4] = {:?}, {wrong} of {n} wrong",
        ctx.info().name,
        &c[..4]
    );
    if wrong > 0 {
        return Err("results differ from the host".into());
    }
    Ok(())
}
