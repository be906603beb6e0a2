//! Both saxpy kernels (hand-written PTX and clang's output for our CUDA C) on the default device,
//! for sizes that are not multiples of the block size, against a CPU computation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, KernelArg, LaunchConfig};

#[test]
fn saxpy_matches_cpu() {
    let ctx = common::context();
    for file in ["saxpy.ptx", "saxpy_clang.ptx"] {
        let module = ctx.load_ptx(file, &common::shader(file)).unwrap();
        let kernel = module.kernel("saxpy").unwrap();
        for n in [1usize, 1000, (1 << 20) + 3] {
            let a = 1.75f32;
            let x = common::floats(n, 1);
            let y0 = common::floats(n, 2);
            let dx = DeviceBuffer::from_slice(&ctx, &x).unwrap();
            let dy = DeviceBuffer::from_slice(&ctx, &y0).unwrap();
            let args: Vec<KernelArg> =
                vec![(n as u32).into(), a.into(), (&dx).into(), (&dy).into()];
            kernel
                .launch(&LaunchConfig::for_num_elems(n as u32, 256), &args)
                .unwrap_or_else(|e| panic!("{file} n={n}: {e}"));
            let got = dy.to_vec().unwrap();
            for i in 0..n {
                // fma.rn.f32 is a fused multiply-add with one rounding: f32::mul_add.
                let want = a.mul_add(x[i], y0[i]);
                assert_eq!(
                    got[i].to_bits(),
                    want.to_bits(),
                    "{file} n={n} i={i}: got {} want {want}",
                    got[i]
                );
            }
        }
    }
}

#[test]
fn bounds_check_leaves_the_rest_alone() {
    let ctx = common::context();
    let module = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let kernel = module.kernel("saxpy").unwrap();
    // n = 5 but 256 threads and an 8-element y: elements 5..8 must stay as they were.
    let x = DeviceBuffer::from_slice(&ctx, &[1.0f32; 8]).unwrap();
    let y = DeviceBuffer::from_slice(&ctx, &[10.0f32; 8]).unwrap();
    kernel
        .launch(
            &LaunchConfig::for_num_elems(256, 256),
            &[5u32.into(), 2.0f32.into(), (&x).into(), (&y).into()],
        )
        .unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        [12.0, 12.0, 12.0, 12.0, 12.0, 10.0, 10.0, 10.0]
    );
}
