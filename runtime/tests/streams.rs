//! Streams, events, batching and asynchronous copies, against host computations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, MAX_BATCH, Module};

fn saxpy(ctx: &Context) -> (Module, Kernel) {
    let m = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let k = m.kernel("saxpy").unwrap();
    (m, k)
}

#[test]
fn many_launches_batched_on_one_stream_run_in_order() {
    let ctx = common::context();
    let (_m, k) = saxpy(&ctx);
    let s = ctx.new_stream().unwrap();
    let n = 1000u32;
    let x = DeviceBuffer::<f32>::zeroed(&ctx, n as usize).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&ctx, n as usize).unwrap();
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    s.copy_to_device(&x, &xs).unwrap();
    s.fill(&y, 1.0f32).unwrap();
    // More launches than one batch holds: y = y + 0.5 x, 1500 times (exact in f32).
    let launches = MAX_BATCH as usize + 476;
    for _ in 0..launches {
        s.launch(
            &k,
            &LaunchConfig::for_num_elems(n, 128),
            &[n.into(), 0.5f32.into(), (&x).into(), (&y).into()],
        )
        .unwrap();
    }
    let got = s.copy_to_host(&y).unwrap().wait().unwrap();
    for (i, v) in got.iter().enumerate() {
        let mut want = 1.0f32;
        for _ in 0..launches {
            want = 0.5f32.mul_add(i as f32, want);
        }
        assert_eq!(*v, want, "i={i}");
    }
    assert!(s.is_idle().unwrap());
}

#[test]
fn async_copies_fills_and_slices() {
    let ctx = common::context();
    let s = ctx.new_stream().unwrap();
    let a = DeviceBuffer::<u32>::zeroed(&ctx, 100).unwrap();
    let b = DeviceBuffer::<u32>::zeroed(&ctx, 100).unwrap();
    let data: Vec<u32> = (0..100).map(|i| i * 3).collect();
    s.copy_to_device(&a, &data).unwrap();
    s.copy_device(&a.slice(10..60).unwrap(), &b.slice(50..100).unwrap())
        .unwrap();
    s.fill(&b.slice(0..7).unwrap(), 0xdead_beefu32).unwrap();
    let got = s.copy_to_host(&b).unwrap().wait().unwrap();
    for i in 0..100 {
        let want = match i {
            0..7 => 0xdead_beef,
            50.. => data[i - 40],
            _ => 0,
        };
        assert_eq!(got[i], want, "i={i}");
    }
    // Fills of every element size, at offsets that are not multiples of 4 bytes.
    let bytes = DeviceBuffer::<u8>::zeroed(&ctx, 13).unwrap();
    s.fill(&bytes.slice(1..12).unwrap(), 0xa5u8).unwrap();
    let shorts = DeviceBuffer::<u16>::zeroed(&ctx, 7).unwrap();
    s.fill(&shorts.slice(1..6).unwrap(), 0x1234u16).unwrap();
    let longs = DeviceBuffer::<u64>::zeroed(&ctx, 5).unwrap();
    s.fill(&longs.slice(1..4).unwrap(), 0x0102_0304_0506_0708u64)
        .unwrap();
    let bytes = s.copy_to_host(&bytes).unwrap().wait().unwrap();
    let mut want = vec![0xa5u8; 13];
    want[0] = 0;
    want[12] = 0;
    assert_eq!(bytes, want);
    assert_eq!(
        s.copy_to_host(&shorts).unwrap().wait().unwrap(),
        [0, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0]
    );
    let l = 0x0102_0304_0506_0708u64;
    assert_eq!(
        s.copy_to_host(&longs).unwrap().wait().unwrap(),
        [0, l, l, l, 0]
    );
}

#[test]
fn synchronous_buffer_api() {
    let ctx = common::context();
    let x = DeviceBuffer::from_slice(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0]).unwrap();
    x.slice(1..3).unwrap().fill(9.0).unwrap();
    assert_eq!(x.to_vec().unwrap(), [1.0, 9.0, 9.0, 4.0, 5.0]);
    let y = DeviceBuffer::<f32>::zeroed(&ctx, 5).unwrap();
    y.slice(2..5)
        .unwrap()
        .copy_from_device(&x.slice(0..3).unwrap())
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), [0.0, 0.0, 1.0, 9.0, 9.0]);
    y.copy_from_host(&[7.0, 8.0]).unwrap();
    let mut two = [0.0f32; 2];
    y.slice(1..5).unwrap().copy_to_host(&mut two).unwrap();
    assert_eq!(two, [8.0, 1.0]);
    assert_eq!(y.slice(1..3).unwrap().to_vec().unwrap(), [8.0, 1.0]);
    assert_eq!(
        y.slice(1..3).unwrap().address(),
        y.address() + 4,
        "a view's address is its first element's"
    );
    let empty = DeviceBuffer::<u64>::zeroed(&ctx, 0).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.to_vec().unwrap(), Vec::<u64>::new());
}

#[test]
fn a_slice_as_kernel_argument() {
    let ctx = common::context();
    let (_m, k) = saxpy(&ctx);
    let x = DeviceBuffer::from_slice(&ctx, &[1.0f32; 8]).unwrap();
    let y = DeviceBuffer::from_slice(&ctx, &[0.0f32; 8]).unwrap();
    // saxpy over y[4..8] only.
    k.launch(
        &LaunchConfig::for_num_elems(4, 64),
        &[
            4u32.into(),
            2.0f32.into(),
            (&x).into(),
            y.slice(4..8).unwrap().into(),
        ],
    )
    .unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0]
    );
}

#[test]
fn events_order_streams_and_time_work() {
    let ctx = common::context();
    let (_m, k) = saxpy(&ctx);
    let producer = ctx.new_stream().unwrap();
    let consumer = ctx.new_stream().unwrap();
    let n = 1 << 16;
    let x = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
    let start = producer.record_event().unwrap();
    producer.fill(&x, 2.0f32).unwrap();
    for _ in 0..20 {
        // x += 1.0 * y with y still 0: x stays 2 (20 launches between the two events).
        producer
            .launch(
                &k,
                &LaunchConfig::for_num_elems(n as u32, 256),
                &[(n as u32).into(), 1.0f32.into(), (&y).into(), (&x).into()],
            )
            .unwrap();
    }
    let done = producer.record_event().unwrap();
    consumer.wait_event(&done).unwrap();
    // y = 3 * x + y, which is only right if the producer's fill came first.
    consumer
        .launch(
            &k,
            &LaunchConfig::for_num_elems(n as u32, 256),
            &[(n as u32).into(), 3.0f32.into(), (&x).into(), (&y).into()],
        )
        .unwrap();
    let got = consumer.copy_to_host(&y).unwrap().wait().unwrap();
    assert!(got.iter().all(|&v| v == 6.0), "{:?}", &got[..4]);
    assert!(done.is_complete().unwrap());
    done.synchronize().unwrap();
    if ctx.info().timestamps {
        let t = start.elapsed(&done).unwrap();
        assert!(t.as_nanos() > 0, "{t:?}");
        assert!(t.as_secs() < 60, "{t:?}");
    } else {
        assert!(matches!(
            start.elapsed(&done),
            Err(Error::Unsupported { .. })
        ));
    }
    ctx.synchronize().unwrap();
}

#[test]
fn work_outlives_dropped_handles() {
    let ctx = common::context();
    let s = ctx.new_stream().unwrap();
    let out = DeviceBuffer::<f32>::zeroed(&ctx, 256).unwrap();
    {
        // Module, kernel and input buffer are dropped before the work runs.
        let (m, k) = saxpy(&ctx);
        let x = DeviceBuffer::from_slice(&ctx, &[4.0f32; 256]).unwrap();
        s.launch(
            &k,
            &LaunchConfig::for_num_elems(256, 64),
            &[256u32.into(), 0.25f32.into(), (&x).into(), (&out).into()],
        )
        .unwrap();
        drop(k);
        drop(m);
    }
    s.synchronize().unwrap();
    assert!(out.to_vec().unwrap().iter().all(|&v| v == 1.0));
}

#[test]
fn synchronous_copies_wait_for_queued_work() {
    let ctx = common::context();
    let (_m, k) = saxpy(&ctx);
    let s = ctx.new_stream().unwrap();
    let x = DeviceBuffer::from_slice(&ctx, &[1.0f32; 64]).unwrap();
    let y = DeviceBuffer::from_slice(&ctx, &[0.0f32; 64]).unwrap();
    for _ in 0..10 {
        s.launch(
            &k,
            &LaunchConfig::for_num_elems(64, 64),
            &[64u32.into(), 1.0f32.into(), (&x).into(), (&y).into()],
        )
        .unwrap();
    }
    // No synchronize: the synchronous read waits for the stream, like cudaMemcpy.
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 10.0));
}

#[test]
fn staging_path_gives_the_same_results() {
    let mut opts = common::options();
    opts.restrict.no_host_visible_device_memory = true;
    let ctx = Context::new(&opts).unwrap();
    assert!(ctx.uses_staging());
    let (m, k) = saxpy(&ctx);
    let n = 3000usize;
    let xs = common::floats(n, 5);
    let ys = common::floats(n, 6);
    let x = DeviceBuffer::from_slice(&ctx, &xs).unwrap();
    let y = DeviceBuffer::from_slice(&ctx, &ys).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(n as u32, 256),
        &[(n as u32).into(), 1.5f32.into(), (&x).into(), (&y).into()],
    )
    .unwrap();
    let got = y.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(got[i], 1.5f32.mul_add(xs[i], ys[i]), "i={i}");
    }
    y.slice(10..20).unwrap().fill(-1.0).unwrap();
    assert_eq!(y.slice(9..11).unwrap().to_vec().unwrap()[1], -1.0);
    let z = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&v| v == 0.0));
    // Module globals go through staging too.
    let mem = ctx
        .load_ptx(
            "memory.ptx",
            &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/memory.ptx"))
                .unwrap(),
        )
        .unwrap();
    mem.write_global("hits", 0, &7u32.to_le_bytes()).unwrap();
    assert_eq!(mem.read_global("hits").unwrap(), 7u32.to_le_bytes());
    drop(m);
}

/// A parameter block packed by the caller (what the driver API hands over) launches the same
/// kernel as typed arguments do; a block of the wrong size is refused before anything runs.
#[test]
fn a_packed_parameter_block_launches_like_typed_arguments() {
    let ctx = common::context();
    let (_m, k) = saxpy(&ctx);
    let s = ctx.new_stream().unwrap();
    let n = 300u32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let x = DeviceBuffer::from_slice(&ctx, &xs).unwrap();
    let y = DeviceBuffer::from_slice(&ctx, &vec![2.0f32; n as usize]).unwrap();
    let abi = k.abi();
    let mut block = vec![0u8; abi.param_block_size as usize];
    let values: [&[u8]; 4] = [
        &n.to_le_bytes(),
        &3.0f32.to_le_bytes(),
        &x.address().to_le_bytes(),
        &y.address().to_le_bytes(),
    ];
    for (p, v) in abi.params.iter().zip(values) {
        assert_eq!(p.size as usize, v.len(), "{}", p.name);
        let at = p.offset as usize;
        block[at..at + v.len()].copy_from_slice(v);
    }
    let cfg = LaunchConfig::for_num_elems(n, 128);
    s.launch_packed(&k, &cfg, &block).unwrap();
    let got = s.copy_to_host(&y).unwrap().wait().unwrap();
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, 3.0f32.mul_add(xs[i], 2.0), "i={i}");
    }
    let short = &block[..block.len() - 1];
    let err = s.launch_packed(&k, &cfg, short).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    // Nothing ran for the refused block.
    assert_eq!(s.copy_to_host(&y).unwrap().wait().unwrap(), got);
}
