//! Several threads, several streams, several contexts at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

#[test]
fn four_threads_two_streams_and_a_second_context() {
    let ctx = common::context();
    let module = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let saxpy = module.kernel("saxpy").unwrap();
    let streams = [ctx.new_stream().unwrap(), ctx.new_stream().unwrap()];
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for t in 0..4u32 {
            let stream = streams[t as usize % 2].clone();
            let saxpy = saxpy.clone();
            let ctx = ctx.clone();
            handles.push(scope.spawn(move || {
                let n = 4096 + t as usize * 100;
                let a = 0.5 + t as f32;
                for round in 0..5u64 {
                    let xs = common::floats(n, u64::from(t) * 10 + round);
                    let ys = common::floats(n, u64::from(t) * 10 + round + 100);
                    let x = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
                    let y = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
                    stream.copy_to_device(&x, &xs).unwrap();
                    stream.copy_to_device(&y, &ys).unwrap();
                    stream
                        .launch(
                            &saxpy,
                            &LaunchConfig::for_num_elems(n as u32, 128),
                            &[(n as u32).into(), a.into(), (&x).into(), (&y).into()],
                        )
                        .unwrap();
                    let got = stream.copy_to_host(&y).unwrap().wait().unwrap();
                    for i in 0..n {
                        assert_eq!(got[i], a.mul_add(xs[i], ys[i]), "thread {t} i={i}");
                    }
                }
            }));
        }
        // Meanwhile, another context in another thread.
        handles.push(scope.spawn(|| {
            let other = common::context();
            let m = other
                .load_ptx("saxpy_clang.ptx", &common::shader("saxpy_clang.ptx"))
                .unwrap();
            let k = m.kernel("saxpy").unwrap();
            for round in 0..5 {
                let n = 10_000usize;
                let xs = common::floats(n, 1000 + round);
                let x = DeviceBuffer::from_slice(&other, &xs).unwrap();
                let y = DeviceBuffer::from_slice(&other, &vec![1.0f32; n]).unwrap();
                k.launch(
                    &LaunchConfig::for_num_elems(n as u32, 256),
                    &[(n as u32).into(), 2.0f32.into(), (&x).into(), (&y).into()],
                )
                .unwrap();
                let got = y.to_vec().unwrap();
                for i in 0..n {
                    assert_eq!(got[i], 2.0f32.mul_add(xs[i], 1.0));
                }
            }
        }));
        for h in handles {
            h.join().unwrap();
        }
    });
    ctx.synchronize().unwrap();
    ctx.check_validation().unwrap();
}
