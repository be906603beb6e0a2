//! nvcc's PTX of our CUDA C++ (shaders/nvcc: cub's block and warp collectives, cooperative
//! groups, WMMA through <mma.h>, inline PTX), compiled at test time for sm_80 and run on the
//! device against Rust computations of the same results, and two modules compiled apart
//! (`-rdc=true`) and linked. The translator's `nvcc` test checks and translates every kernel of
//! every file; this one runs those with plain signatures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../translator/tests/nvcc_support/mod.rs"]
mod nvcc_support;

use half::f16;
use ptxvk_runtime::translator::{SourceFile, link};
use ptxvk_runtime::{Context, DeviceBuffer, KernelArg, LaunchConfig, Module};

fn load(ctx: &Context, nvcc: &std::path::Path, file: &str, arch: &str) -> Module {
    let ptx = nvcc_support::compile_ptx(nvcc, &nvcc_support::source(file), &[arch])
        .unwrap_or_else(|e| panic!("{e}"));
    ctx.load_ptx(file, &ptx).unwrap_or_else(|e| panic!("{e}"))
}

fn cfg(blocks: usize, threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid: [blocks as u32, 1, 1],
        block: [threads as u32, 1, 1],
        shared_bytes: 0,
    }
}

fn launch(m: &Module, kernel: &str, cfg: LaunchConfig, args: &[KernelArg]) {
    m.kernel(kernel)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
        .launch(&cfg, args)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
}

/// Prefix sums of each `tile` elements: inclusive, or exclusive (each element's sum before it).
fn scan_tiles(input: &[i32], tile: usize, inclusive: bool) -> Vec<i32> {
    input
        .chunks(tile)
        .flat_map(|c| {
            c.iter().scan(0, move |acc, &x| {
                let before = *acc;
                *acc += x;
                Some(if inclusive { *acc } else { before })
            })
        })
        .collect()
}

/// Deterministic pseudo-random words (xorshift).
fn words(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

/// Ints in -1000..1000: sums of a few thousand stay far from overflow.
fn small_ints(n: usize, seed: u32) -> Vec<i32> {
    words(n, seed)
        .into_iter()
        .map(|w| (w % 2000) as i32 - 1000)
        .collect()
}

#[test]
fn nvcc_kernels() {
    let Some(nvcc) = nvcc_support::nvcc_or_skip("nvcc_kernels") else {
        return;
    };
    let ctx = common::context();
    common::announce(&ctx);
    cub_block(&ctx, &nvcc);
    coop_groups(&ctx, &nvcc);
    wmma(&ctx, &nvcc);
    inline_ptx(&ctx, &nvcc);
    rdc_linked(&ctx, &nvcc);
}

fn cub_block(ctx: &Context, nvcc: &std::path::Path) {
    let m = load(ctx, nvcc, "cub_block.cu", "-arch=sm_80");
    let (blocks, threads, items) = (3usize, 128usize, 4usize);
    let tile = threads * items;
    let n = blocks * tile;
    let input = small_ints(n, 7);
    let din = DeviceBuffer::from_slice(ctx, &input).unwrap();

    let out = DeviceBuffer::<i32>::zeroed(ctx, blocks).unwrap();
    launch(
        &m,
        "cub_block_sum",
        cfg(blocks, threads),
        &[(&din).into(), (&out).into()],
    );
    let want: Vec<i32> = input.chunks(tile).map(|c| c.iter().sum()).collect();
    assert_eq!(out.to_vec().unwrap(), want, "cub_block_sum");

    let out = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
    launch(
        &m,
        "cub_block_scan",
        cfg(blocks, threads),
        &[(&din).into(), (&out).into()],
    );
    let want = scan_tiles(&input, tile, false);
    assert_eq!(out.to_vec().unwrap(), want, "cub_block_scan");

    let keys = words(n, 11);
    let dkeys = DeviceBuffer::from_slice(ctx, &keys).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(ctx, n).unwrap();
    launch(
        &m,
        "cub_block_sort",
        cfg(blocks, threads),
        &[(&dkeys).into(), (&out).into()],
    );
    let want: Vec<u32> = keys
        .chunks(tile)
        .flat_map(|c| {
            let mut c = c.to_vec();
            c.sort_unstable();
            c
        })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want, "cub_block_sort");

    let n = blocks * threads;
    let input = small_ints(n, 13);
    let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
    let out = DeviceBuffer::<i32>::zeroed(ctx, n / 32).unwrap();
    launch(
        &m,
        "cub_warp_max",
        cfg(blocks, threads),
        &[(&din).into(), (&out).into()],
    );
    let want: Vec<i32> = input.chunks(32).map(|c| *c.iter().max().unwrap()).collect();
    assert_eq!(out.to_vec().unwrap(), want, "cub_warp_max");
}

fn coop_groups(ctx: &Context, nvcc: &std::path::Path) {
    let m = load(ctx, nvcc, "coop_groups.cu", "-arch=sm_80");
    let (blocks, threads) = (4usize, 256usize);
    let n = blocks * threads;
    let input = small_ints(n, 17);
    let din = DeviceBuffer::from_slice(ctx, &input).unwrap();

    let out = DeviceBuffer::<i32>::zeroed(ctx, blocks).unwrap();
    launch(
        &m,
        "cg_block_sum",
        cfg(blocks, threads),
        &[(&din).into(), (&out).into()],
    );
    let want: Vec<i32> = input.chunks(threads).map(|c| c.iter().sum()).collect();
    assert_eq!(out.to_vec().unwrap(), want, "cg_block_sum");

    let out = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
    launch(
        &m,
        "cg_tile8_scan",
        cfg(blocks, threads),
        &[(&din).into(), (&out).into()],
    );
    let want = scan_tiles(&input, 8, true);
    assert_eq!(out.to_vec().unwrap(), want, "cg_tile8_scan");

    let rank = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
    let size = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
    launch(
        &m,
        "cg_coalesced",
        cfg(blocks, threads),
        &[(&din).into(), (&rank).into(), (&size).into()],
    );
    // The odd elements' threads of each warp, ranked in lane order.
    let (mut want_rank, mut want_size) = (vec![-1; n], vec![-1; n]);
    for (w, warp) in input.chunks(32).enumerate() {
        let odd: Vec<usize> = (0..32).filter(|&l| warp[l] & 1 != 0).collect();
        for (r, &l) in odd.iter().enumerate() {
            want_rank[w * 32 + l] = r as i32;
            want_size[w * 32 + l] = odd.len() as i32;
        }
    }
    assert_eq!(rank.to_vec().unwrap(), want_rank, "cg_coalesced rank");
    assert_eq!(size.to_vec().unwrap(), want_size, "cg_coalesced size");
}

fn wmma(ctx: &Context, nvcc: &std::path::Path) {
    let m = load(ctx, nvcc, "wmma.cu", "-arch=sm_80");
    let k = 16usize;
    // Small integers in f16 and f32: every product and partial sum is exact, in any order.
    let ints = |n: usize, seed: u32| -> Vec<i32> {
        words(n, seed)
            .into_iter()
            .map(|w| (w % 9) as i32 - 4)
            .collect()
    };
    let a = ints(16 * k, 19);
    let b = ints(k * 16, 23);
    let c0 = ints(256, 29);
    // A row-major (a[r * k + kk]), B column-major (b[col * k + kk]).
    let product =
        |r: usize, col: usize| -> i32 { (0..k).map(|kk| a[r * k + kk] * b[col * k + kk]).sum() };
    let h = |v: &[i32]| -> Vec<u16> {
        v.iter()
            .map(|&x| f16::from_f32(x as f32).to_bits())
            .collect()
    };
    let da = DeviceBuffer::from_slice(ctx, &h(&a)).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &h(&b)).unwrap();
    let c: Vec<f32> = c0.iter().map(|&x| x as f32).collect();
    let dc = DeviceBuffer::from_slice(ctx, &c).unwrap();
    launch(
        &m,
        "wmma_f16_f32",
        cfg(1, 32),
        &[(&da).into(), (&db).into(), (&dc).into()],
    );
    let want: Vec<f32> = (0..256)
        .map(|i| (product(i / 16, i % 16) + c0[i]) as f32)
        .collect();
    assert_eq!(dc.to_vec().unwrap(), want, "wmma_f16_f32");

    let a8: Vec<i8> = a.iter().map(|&x| x as i8).collect();
    let b8: Vec<i8> = b.iter().map(|&x| x as i8).collect();
    let da = DeviceBuffer::from_slice(ctx, &a8).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &b8).unwrap();
    let dc = DeviceBuffer::<i32>::zeroed(ctx, 256).unwrap();
    launch(
        &m,
        "wmma_s8_s32",
        cfg(1, 32),
        &[(&da).into(), (&db).into(), (&dc).into()],
    );
    let want: Vec<i32> = (0..256).map(|i| product(i / 16, i % 16)).collect();
    assert_eq!(dc.to_vec().unwrap(), want, "wmma_s8_s32");
}

fn inline_ptx(ctx: &Context, nvcc: &std::path::Path) {
    let m = load(ctx, nvcc, "inline_ptx.cu", "-arch=sm_80");
    let (blocks, threads) = (2usize, 64usize);
    let n = blocks * threads;
    let x = words(n, 31);
    let y = words(n, 37);
    let dx = DeviceBuffer::from_slice(ctx, &x).unwrap();
    let dy = DeviceBuffer::from_slice(ctx, &y).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(ctx, 8 * n).unwrap();
    launch(
        &m,
        "inline_ops",
        cfg(blocks, threads),
        &[(&dx).into(), (&dy).into(), (&out).into()],
    );
    let got = out.to_vec().unwrap();
    for i in 0..n {
        let (a, b) = (x[i], y[i]);
        let s =
            ((u64::from(a) << 32) | u64::from(b)).wrapping_add((u64::from(b) << 32) | u64::from(a));
        // prmt selector 0x5140 picks bytes 0, 4, 1, 5 of {b, a}: a.0, b.0, a.1, b.1.
        let byte = |w: u32, k: u32| (w >> (8 * k)) & 0xff;
        let prmt = byte(a, 0) | byte(b, 0) << 8 | byte(a, 1) << 16 | byte(b, 1) << 24;
        // lop3: bit i of the result is bit (4 a_i + 2 b_i + c_i) of the table.
        let c = !a;
        let lop3 = (0..32).fold(0u32, |r, bit| {
            let idx = ((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1);
            r | ((0x95 >> idx) & 1) << bit
        });
        // shf.l.wrap: the upper word of {a:b} << (i mod 32).
        let shf = ((((u64::from(a) << 32) | u64::from(b)) << (i % 32)) >> 32) as u32;
        let want = [
            s as u32,
            (s >> 32) as u32,
            prmt,
            (a >> 4) & 0xfff,
            lop3,
            shf,
            x[i ^ 1],
            (i % 32) as u32,
        ];
        assert_eq!(&got[8 * i..8 * i + 8], &want, "inline_ops thread {i}");
    }
}

/// rdc/main.cu and rdc/lib.cu compiled apart (`-rdc=true`) and linked by the translator: a
/// call, reads and a store across modules, and each module's own `bias`.
fn rdc_linked(ctx: &Context, nvcc: &std::path::Path) {
    let inputs: Vec<_> = ["main.cu", "lib.cu"]
        .iter()
        .map(|name| {
            let path = nvcc_support::source(&format!("rdc/{name}"));
            let ptx = nvcc_support::compile_ptx(nvcc, &path, &["-rdc=true", "-arch=sm_80"])
                .unwrap_or_else(|e| panic!("{e}"));
            SourceFile::new(*name, ptx)
        })
        .collect();
    let linked = link::link("linked.ptx", &inputs).unwrap_or_else(|e| panic!("{e}"));
    let m = ctx
        .load_ptx("linked.ptx", &linked.text)
        .unwrap_or_else(|e| panic!("{e}"));
    let n = 100usize;
    let input = small_ints(n, 41);
    let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
    let out = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
    let table = [10, 20, 30, 40];
    // lib.cu: apply(x) = x * scale + table[x & 3] + 100; main.cu adds scale * 7.
    let want = |scale: i32| -> Vec<i32> {
        input
            .iter()
            .map(|&x| x * scale + table[(x & 3) as usize] + 100 + scale * 7)
            .collect()
    };
    let apply = m.kernel("linked_apply").unwrap();
    apply
        .launch(
            &cfg(2, 64),
            &[(&din).into(), (&out).into(), (n as i32).into()],
        )
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), want(3), "linked_apply");
    launch(&m, "linked_set_scale", cfg(1, 1), &[5i32.into()]);
    apply
        .launch(
            &cfg(2, 64),
            &[(&din).into(), (&out).into(), (n as i32).into()],
        )
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        want(5),
        "linked_apply after linked_set_scale"
    );
}
