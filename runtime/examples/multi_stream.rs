//! A pipeline over chunks of data on two streams: while one stream computes a chunk, the other
//! uploads the next (on devices with several queues they overlap). An event makes the final
//! summary wait for both streams.
//!
//! `cargo run -p ptxvk-runtime --example multi_stream`

use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../shaders/saxpy_clang.ptx");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(&ContextOptions::from_env())?;
    let module = ctx.load_ptx("saxpy_clang.ptx", PTX)?;
    let saxpy = module.kernel("saxpy")?;
    let streams = [ctx.new_stream()?, ctx.new_stream()?];

    let chunk = 1 << 18;
    let chunks = 8;
    let a = 2.0f32;
    let mut results = Vec::new();
    for c in 0..chunks {
        let stream = &streams[c % 2];
        let x: Vec<f32> = (0..chunk).map(|i| (c * chunk + i) as f32).collect();
        let dx = DeviceBuffer::<f32>::zeroed(&ctx, chunk)?;
        let dy = DeviceBuffer::<f32>::zeroed(&ctx, chunk)?;
        stream.copy_to_device(&dx, &x)?; // host data is copied out here
        stream.fill(&dy, 1.0f32)?;
        stream.launch(
            &saxpy,
            &LaunchConfig::for_num_elems(chunk as u32, 256),
            &[(chunk as u32).into(), a.into(), (&dx).into(), (&dy).into()],
        )?;
        // Queued: the data arrives when the stream gets there.
        results.push((c, stream.copy_to_host(&dy)?));
    }
    // Stream 1 waits for everything stream 0 was given, then both are done.
    let done0 = streams[0].record_event()?;
    streams[1].wait_event(&done0)?;
    streams[1].synchronize()?;

    let mut wrong = 0;
    for (c, download) in results {
        let y = download.wait()?;
        wrong += (0..chunk)
            .filter(|&i| y[i] != a.mul_add((c * chunk + i) as f32, 1.0))
            .count();
    }
    println!(
        "{}: {chunks} chunks of {chunk} on 2 streams ({} queue(s)), {wrong} wrong",
        ctx.info().name,
        ctx.info().compute_queues.min(4)
    );
    if wrong > 0 {
        return Err("results differ from the host".into());
    }
    Ok(())
}
