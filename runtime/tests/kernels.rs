//! The example kernels (CUDA C in shaders/, compiled by clang) against host computations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

#[test]
fn vector_add() {
    let ctx = common::context();
    let m = ctx
        .load_ptx(
            "vector_add_clang.ptx",
            &common::shader("vector_add_clang.ptx"),
        )
        .unwrap();
    let k = m.kernel("vector_add").unwrap();
    assert_eq!(
        m.kernels()[0].signature(),
        "vector_add(.u64 vector_add_param_0, .u64 vector_add_param_1, .u64 vector_add_param_2, .u32 vector_add_param_3)"
    );
    let n = 5000usize;
    let a = common::floats(n, 1);
    let b = common::floats(n, 2);
    let da = DeviceBuffer::from_slice(&ctx, &a).unwrap();
    let db = DeviceBuffer::from_slice(&ctx, &b).unwrap();
    let dc = DeviceBuffer::<f32>::zeroed(&ctx, n).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(n as u32, 256),
        &[(&da).into(), (&db).into(), (&dc).into(), (n as u32).into()],
    )
    .unwrap();
    let c = dc.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "i={i}");
    }
}

#[test]
fn reduction_in_shared_memory() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("reduce_clang.ptx", &common::shader("reduce_clang.ptx"))
        .unwrap();
    let k = m.kernel("reduce_sum").unwrap();
    for n in [1usize, 511, 512, 513, 100_000] {
        let data: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 12)
            .collect();
        let want = data.iter().fold(0u32, |s, &v| s.wrapping_add(v));
        let mut cur = DeviceBuffer::from_slice(&ctx, &data).unwrap();
        let mut len = n;
        while len > 1 {
            let blocks = len.div_ceil(512);
            let out = DeviceBuffer::<u32>::zeroed(&ctx, blocks).unwrap();
            k.launch(
                &LaunchConfig::new([blocks as u32, 1, 1], [256, 1, 1]),
                &[(&cur).into(), (&out).into(), (len as u32).into()],
            )
            .unwrap();
            cur = out;
            len = blocks;
        }
        assert_eq!(cur.to_vec().unwrap()[0], want, "n={n}");
    }
}

#[test]
fn tiled_matmul() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("matmul_clang.ptx", &common::shader("matmul_clang.ptx"))
        .unwrap();
    let k = m.kernel("matmul").unwrap();
    assert_eq!(k.abi().static_shared_bytes, 2 * 16 * 16 * 4);
    for n in [1usize, 16, 37] {
        let a = common::floats(n * n, 3);
        let b = common::floats(n * n, 4);
        let da = DeviceBuffer::from_slice(&ctx, &a).unwrap();
        let db = DeviceBuffer::from_slice(&ctx, &b).unwrap();
        let dc = DeviceBuffer::<f32>::zeroed(&ctx, n * n).unwrap();
        let tiles = n.div_ceil(16) as u32;
        k.launch(
            &LaunchConfig::new([tiles, tiles, 1], [16, 16, 1]),
            &[(&da).into(), (&db).into(), (&dc).into(), (n as u32).into()],
        )
        .unwrap();
        let c = dc.to_vec().unwrap();
        let want = common::tiled_matmul_reference(&a, &b, n);
        for (i, (got, want)) in c.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "n={n} ({},{})", i / n, i % n);
        }
    }
}
