//! Warp semantics against a Rust model of 32-wide warps (ISA 8.7.6.4 for shfl; vote, match,
//! redux, activemask and the lane registers as the ISA describes them), on lavapipe at subgroup
//! sizes 4, 8 and 16 (`LP_NATIVE_VECTOR_WIDTH` = 128, 256, 512): `warps_at_every_subgroup_size`
//! runs `warp_cases` in child processes, one per width.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn cfg(grid: u32, block: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block,
        shared_bytes: 0,
    }
}

fn hand(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/warps.ptx"))
        .unwrap();
    ctx.load_ptx("warps.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn clang(ctx: &Context) -> Module {
    ctx.load_ptx("warps_clang.ptx", &common::shader("warps_clang.ptx"))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn ints(n: usize, seed: u64) -> Vec<i32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 20) % 2000) as i32 - 1000
        })
        .collect()
}

/// ISA 8.7.6.4: the source lane and the in-range predicate of `shfl.mode b, c` for `lane`.
fn shfl_model(mode: usize, lane: i32, b: u32, c: u32) -> (i32, bool) {
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let mask = ((c >> 8) & 31) as i32;
    let max_lane = (lane & mask) | (cval & !mask);
    let min_lane = lane & mask;
    let (j, p) = match mode {
        0 => (lane - bval, lane - bval >= max_lane),
        1 => (lane + bval, lane + bval <= max_lane),
        2 => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !mask);
            (j, j <= max_lane)
        }
    };
    (if p { j } else { lane }, p)
}

fn shfl_modes(ctx: &Context, m: &Module) {
    let k = m.kernel("shfl_modes").unwrap();
    // Block 16x4: warps are made of consecutive linear ids across rows.
    let threads = 64usize;
    for (b, c) in [
        (1u32, 0x1fu32),
        (3, 0),
        (5, 0x1f),
        (2, 0x1c1f),
        (7, 0x1807),
        (31, 0x101f),
        (40, 0x1f),
        (6, 0x0810),
    ] {
        let out = DeviceBuffer::<u32>::zeroed(ctx, threads * 8).unwrap();
        k.launch(&cfg(1, [16, 4, 1]), &[(&out).into(), b.into(), c.into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        for t in 0..threads {
            let lane = (t % 32) as i32;
            let base = t - t % 32;
            for mode in 0..4 {
                let (j, p) = shfl_model(mode, lane, b, c);
                let want = ((base + j as usize) * 7 + 3) as u32;
                assert_eq!(
                    got[t * 8 + 2 * mode],
                    want,
                    "b={b:#x} c={c:#x} mode {mode} thread {t}"
                );
                assert_eq!(
                    got[t * 8 + 2 * mode + 1],
                    u32::from(p),
                    "b={b:#x} c={c:#x} mode {mode} thread {t} predicate"
                );
            }
        }
    }
}

fn votes(ctx: &Context, m: &Module) {
    let k = m.kernel("votes").unwrap();
    for (n, seed) in [(64usize, 1u64), (96, 2), (50, 3)] {
        // Mostly-true, mostly-false and mixed warps.
        let input: Vec<u32> = ints(n, seed)
            .iter()
            .enumerate()
            .map(|(i, v)| match i / 32 {
                0 => u32::from(*v > -900),
                1 => u32::from(*v > 900),
                _ => u32::from(*v > 0),
            })
            .collect();
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(ctx, n * 6).unwrap();
        k.launch(&cfg(1, [n as u32, 1, 1]), &[(&din).into(), (&out).into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        for t in 0..n {
            let w0 = t - t % 32;
            let w1 = (w0 + 32).min(n);
            let lanes = w0..w1;
            let ballot: u32 = lanes
                .clone()
                .filter(|&l| input[l] != 0)
                .map(|l| 1 << (l - w0))
                .sum();
            let all = lanes.clone().all(|l| input[l] != 0);
            let any = lanes.clone().any(|l| input[l] != 0);
            let want = [
                u32::from(all),
                u32::from(any),
                u32::from(all || !any),
                ballot,
            ];
            assert_eq!(&got[t * 6..t * 6 + 4], &want, "n={n} thread {t}");
            // Inside `if (t % 3 != 0)`: only those lanes are active.
            let (want_b, want_any) = if t % 3 == 0 {
                (7, 7)
            } else {
                let active = lanes.clone().filter(|l| l % 3 != 0);
                let nb: u32 = active
                    .clone()
                    .filter(|&l| input[l] == 0)
                    .map(|l| 1 << (l - w0))
                    .sum();
                (nb, u32::from(active.clone().any(|l| input[l] != 0)))
            };
            assert_eq!(got[t * 6 + 4], want_b, "n={n} thread {t} divergent ballot");
            assert_eq!(got[t * 6 + 5], want_any, "n={n} thread {t} divergent any");
        }
    }
}

/// Kernel `name` of one block over `v32` and `v64` (one element per thread), with `words`
/// results per thread.
fn launch_match(
    ctx: &Context,
    m: &Module,
    name: &str,
    v32: &[u32],
    v64: &[u64],
    words: usize,
) -> Vec<u32> {
    let k = m.kernel(name).unwrap();
    let n = v32.len();
    let a = DeviceBuffer::from_slice(ctx, v32).unwrap();
    let b = DeviceBuffer::from_slice(ctx, v64).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(ctx, n * words).unwrap();
    k.launch(
        &cfg(1, [n as u32, 1, 1]),
        &[(&a).into(), (&b).into(), (&out).into()],
    )
    .unwrap();
    out.to_vec().unwrap()
}

fn matches(ctx: &Context, m: &Module) {
    let n = 64usize;
    // Few distinct values, one warp all equal.
    let v32: Vec<u32> = (0..n)
        .map(|i| if i >= 32 { 9 } else { (i as u32 * 7) % 5 })
        .collect();
    let v64: Vec<u64> = (0..n).map(|i| ((i as u64 % 3) << 40) | 5).collect();
    let got = launch_match(ctx, m, "matches", &v32, &v64, 4);
    for t in 0..n {
        let w0 = t - t % 32;
        let same32: u32 = (w0..w0 + 32)
            .filter(|&l| v32[l] == v32[t])
            .map(|l| 1 << (l - w0))
            .sum();
        let same64: u32 = (w0..w0 + 32)
            .filter(|&l| v64[l] == v64[t])
            .map(|l| 1 << (l - w0))
            .sum();
        let all_equal = (w0..w0 + 32).all(|l| v32[l] == v32[w0]);
        let want = [
            same32,
            if all_equal { u32::MAX } else { 0 },
            u32::from(all_equal),
            same64,
        ];
        assert_eq!(&got[t * 4..t * 4 + 4], &want, "thread {t}");
    }
}

/// `match.any` (PTX ISA, "match.sync"): the mask of the lanes of `membermask` whose value
/// equals the caller's; lanes past the end of the block do not exist (the second warp has 8),
/// and in a divergent branch with `membermask` from `activemask` only the active lanes count.
fn matches_divergent(ctx: &Context, m: &Module) {
    let n = 40usize;
    let v32: Vec<u32> = (0..n).map(|i| (i as u32 * 7) % 4).collect();
    let v64: Vec<u64> = (0..n)
        .map(|i| ((i as u64 % 3) << 33) | (i as u64 % 2))
        .collect();
    let got = launch_match(ctx, m, "matches_divergent", &v32, &v64, 2);
    for t in 0..n {
        let w0 = t - t % 32;
        let lanes = w0..(w0 + 32).min(n);
        let mask = |l: &mut dyn Iterator<Item = usize>| -> u32 { l.map(|l| 1 << (l - w0)).sum() };
        let any32 = if t % 3 == 0 {
            0xdead
        } else {
            mask(&mut lanes.clone().filter(|l| l % 3 != 0 && v32[*l] == v32[t]))
        };
        let any64 = mask(&mut lanes.clone().filter(|&l| v64[l] == v64[t]));
        assert_eq!(&got[t * 2..t * 2 + 2], &[any32, any64], "thread {t}");
    }
}

fn reduxes(ctx: &Context, m: &Module) {
    let k = m.kernel("reduxes").unwrap();
    let n = 96usize;
    let input: Vec<i32> = ints(n, 11);
    let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(ctx, n * 6).unwrap();
    k.launch(&cfg(1, [n as u32, 1, 1]), &[(&din).into(), (&out).into()])
        .unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..n {
        let w = &input[t - t % 32..t - t % 32 + 32];
        let u = |x: &i32| *x as u32;
        let want = [
            w.iter().map(u).fold(0u32, u32::wrapping_add),
            *w.iter().min().unwrap() as u32,
            w.iter().map(u).max().unwrap(),
            w.iter().map(u).fold(u32::MAX, |a, b| a & b),
            w.iter().map(u).fold(0, |a, b| a | b),
            w.iter().map(u).fold(0, |a, b| a ^ b),
        ];
        assert_eq!(&got[t * 6..t * 6 + 6], &want, "thread {t}");
    }
}

fn lanes(ctx: &Context, m: &Module) {
    let k = m.kernel("lanes").unwrap();
    let block = [8u32, 4, 3];
    let n = 96usize;
    let out = DeviceBuffer::<u32>::zeroed(ctx, n * 10).unwrap();
    k.launch(&cfg(1, block), &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for lin in 0..n as u32 {
        let (x, y, z) = (lin % 8, (lin / 8) % 4, lin / 32);
        let lane = lin % 32;
        let eq = 1u32 << lane;
        let lt = eq - 1;
        let le = lt | eq;
        let want = [x, y, z, lane, lin / 32, eq, lt, le, !le, !lt];
        assert_eq!(
            &got[lin as usize * 10..lin as usize * 10 + 10],
            &want,
            "linear thread {lin}"
        );
    }
}

/// clang's output for shaders/warps.cu.
fn compiled(ctx: &Context, m: &Module) {
    // Reductions per warp and per block (blocks of whole warps).
    for (n, block) in [(256usize, 64u32), (1000, 256), (2048, 1024)] {
        let input = ints(n, n as u64);
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let grid = (n as u32).div_ceil(block);
        let padded = (grid * block) as usize;
        let warp_out = DeviceBuffer::<i32>::zeroed(ctx, padded / 32).unwrap();
        m.kernel("warp_sum")
            .unwrap()
            .launch(
                &cfg(grid, [block, 1, 1]),
                &[(&din).into(), (&warp_out).into(), (n as i32).into()],
            )
            .unwrap();
        let got = warp_out.to_vec().unwrap();
        for (w, g) in got.iter().enumerate().take(padded / 32) {
            let want: i32 = input.iter().skip(w * 32).take(32).sum();
            assert_eq!(*g, want, "warp_sum n={n} warp {w}");
        }
        let block_out = DeviceBuffer::<i32>::zeroed(ctx, grid as usize).unwrap();
        m.kernel("block_sum")
            .unwrap()
            .launch(
                &cfg(grid, [block, 1, 1]),
                &[(&din).into(), (&block_out).into(), (n as i32).into()],
            )
            .unwrap();
        let got = block_out.to_vec().unwrap();
        for (b, g) in got.iter().enumerate() {
            let want: i32 = input
                .iter()
                .skip(b * block as usize)
                .take(block as usize)
                .sum();
            assert_eq!(*g, want, "block_sum n={n} block {b}");
        }
    }
    // Scans with partial last warps (shfl.up reads only lanes below, which exist).
    for (n, block) in [(40usize, 40u32), (100, 50), (77, 77)] {
        let input = ints(n, 5);
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let out = DeviceBuffer::<i32>::zeroed(ctx, n).unwrap();
        m.kernel("warp_scan")
            .unwrap()
            .launch(
                &cfg((n as u32).div_ceil(block), [block, 1, 1]),
                &[(&din).into(), (&out).into(), (n as i32).into()],
            )
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..n {
            let t = i % block as usize;
            let first = i - t % 32;
            let want: i32 = input[first..=i].iter().sum();
            assert_eq!(got[i], want, "warp_scan n={n} block {block} element {i}");
        }
    }
    // Ballots inside a branch only some lanes take.
    for (n, block) in [(64usize, 64u32), (70, 35)] {
        let input = ints(n, 9);
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(ctx, n).unwrap();
        m.kernel("divergent_ballot")
            .unwrap()
            .launch(
                &cfg((n as u32).div_ceil(block), [block, 1, 1]),
                &[(&din).into(), (&out).into(), (n as i32).into()],
            )
            .unwrap();
        let got = out.to_vec().unwrap();
        for i in 0..n {
            let t = i % block as usize;
            let first = i - t % 32;
            let last = (first + 32).min(i - t + block as usize).min(n);
            let want = if input[i] & 1 != 0 {
                let active: u32 = (first..last)
                    .filter(|&l| input[l] & 1 != 0)
                    .map(|l| 1 << (l - first))
                    .sum();
                let ballot: u32 = (first..last)
                    .filter(|&l| input[l] & 1 != 0 && input[l] > 100)
                    .map(|l| 1 << (l - first))
                    .sum();
                ballot ^ (active << 1)
            } else {
                0xdead_beef
            };
            assert_eq!(got[i], want, "divergent_ballot n={n} element {i}");
        }
    }
}

/// One lane read of every lane of `vals` (a block's values in linear order) by the ISA's lane
/// computation (`shfl_model`); a source lane past the block's end is inactive and the reader
/// keeps its own value (ptxvk's meaning; the ISA leaves it undefined).
fn lane_read<T: Copy>(vals: &[T], mode: usize, b: u32, c: u32) -> Vec<T> {
    (0..vals.len())
        .map(|t| {
            let lane = (t % 32) as i32;
            let (j, _) = shfl_model(mode, lane, b, c);
            let src = t - t % 32 + j as usize;
            if src < vals.len() { vals[src] } else { vals[t] }
        })
        .collect()
}

const UP: usize = 0;
const DOWN: usize = 1;
const BFLY: usize = 2;
const IDX: usize = 3;

/// What each kernel of `warp_lanes.ptx` computes over one block, by `lane_read`: every
/// thread's value, then whether thread (`tid.x`, lane) stores it (`n`: the kernel's parameter).
type Chain = fn(&[u32]) -> Vec<u32>;
type Guard = fn(u32, u32, u32) -> bool;

fn lane_kernels() -> Vec<(&'static str, Chain, Guard, bool)> {
    // (name, chain, guard, whether some read may be served by the subgroup)
    vec![
        ("lanes_down", down_chain, |x, _, _| x & 31 == 0, true),
        (
            "lanes_bfly_f32",
            |v| {
                let v: Vec<f32> = v.iter().map(|x| f32::from_bits(*x)).collect();
                let add = |a: &[f32], b: &[f32]| -> Vec<f32> {
                    a.iter().zip(b).map(|(x, y)| x + y).collect()
                };
                let v3 = add(&v, &lane_read(&v, BFLY, 1, 31));
                let v5 = add(&v3, &lane_read(&v3, BFLY, 2, 31));
                let v6 = lane_read(&v5, BFLY, 4, 31);
                v5.iter().zip(&v6).map(|(x, y)| (x * y).to_bits()).collect()
            },
            |x, _, _| x < 8,
            true,
        ),
        (
            "lanes_up",
            |v| {
                let v11 = lane_read(v, UP, 1, 0);
                let v12: Vec<u32> = v
                    .iter()
                    .zip(&v11)
                    .map(|(x, y)| x.wrapping_add(y.wrapping_mul(3)))
                    .collect();
                let v13 = lane_read(&v12, UP, 2, 0);
                v12.iter()
                    .zip(&v13)
                    .map(|(x, y)| x.wrapping_sub(*y))
                    .collect()
            },
            |_, lane, _| lane == 5,
            true,
        ),
        (
            "lanes_idx_f32",
            |v| {
                let v: Vec<f32> = v.iter().map(|x| f32::from_bits(*x)).collect();
                let v2 = lane_read(&v, IDX, 3, 31);
                let v3: Vec<f32> = v.iter().zip(&v2).map(|(x, y)| x - y).collect();
                let v4 = lane_read(&v3, IDX, 1, 31);
                v3.iter().zip(&v4).map(|(x, y)| (x * y).to_bits()).collect()
            },
            |_, lane, _| lane < 4,
            true,
        ),
        ("lanes_all", down_chain, |_, _, _| true, false),
        ("lanes_param", down_chain, |x, _, n| x == n, false),
    ]
}

fn down_chain(v: &[u32]) -> Vec<u32> {
    let sum = |a: &[u32], b: &[u32]| -> Vec<u32> {
        a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect()
    };
    let v1 = sum(v, &lane_read(v, DOWN, 4, 31));
    let v2 = sum(&v1, &lane_read(&v1, DOWN, 2, 31));
    sum(&v2, &lane_read(&v2, DOWN, 1, 31))
}

/// Chains of lane reads whose results only some lanes store (`warp_lanes.ptx`), where the
/// emulation serves reads that stay within a subgroup by the subgroup, and ones where it must
/// not, on one-dimensional blocks of 1, 32, 64 and 256 threads and two-dimensional ones whose
/// lanes are (64 x 2) and are not (16 x 4, 12 x 4) `%tid.x % 32`: every stored word against
/// the model.
fn lane_reads(ctx: &Context) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/warp_lanes.ptx"
    ))
    .unwrap();
    let m = ctx
        .load_ptx("warp_lanes.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let served = ctx.profile().linear_subgroups;
    let grid = 3u32;
    for (name, chain, guard, fires) in lane_kernels() {
        let k = m.kernel(name).unwrap();
        assert_eq!(
            k.abi().lane_shaped_blocks,
            fires && served,
            "{name}: whether some read is served by the subgroup"
        );
        // In 12 x 4 blocks `(tid.x & 31) == 0` holds in lanes 0, 12, 24 and 4, and lane 12's
        // `shfl.down` by 4 reads lane 16: served for lanes that are `%tid.x % 32` it would be
        // wrong.
        for block in [
            [1u32, 1, 1],
            [32, 1, 1],
            [64, 1, 1],
            [256, 1, 1],
            [64, 2, 1],
            [16, 4, 1],
            [12, 4, 1],
        ] {
            let threads = (block[0] * block[1]) as usize;
            let total = threads * grid as usize;
            let input: Vec<u32> = ints(total, threads as u64)
                .iter()
                .map(|&x| {
                    if name.ends_with("f32") {
                        (x as f32 * 0.371).to_bits()
                    } else {
                        x as u32
                    }
                })
                .collect();
            let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
            let sentinel = 0xDEAD_BEEFu32;
            let out = DeviceBuffer::from_slice(ctx, &vec![sentinel; total]).unwrap();
            let n = 3u32;
            k.launch(&cfg(grid, block), &[(&din).into(), (&out).into(), n.into()])
                .unwrap();
            let got = out.to_vec().unwrap();
            for b in 0..grid as usize {
                let vals = &input[b * threads..(b + 1) * threads];
                let want = chain(vals);
                for t in 0..threads {
                    let (x, lane) = (t as u32 % block[0], t as u32 % 32);
                    let w = if guard(x, lane, n) { want[t] } else { sentinel };
                    assert_eq!(
                        got[b * threads + t],
                        w,
                        "{name} block {block:?} block index {b} thread {t}"
                    );
                }
            }
        }
    }
}

/// Every warp case on the default device (and, through the parent test, at each subgroup size).
#[test]
fn warp_cases() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = hand(&ctx);
    shfl_modes(&ctx, &m);
    votes(&ctx, &m);
    matches(&ctx, &m);
    matches_divergent(&ctx, &m);
    reduxes(&ctx, &m);
    lanes(&ctx, &m);
    compiled(&ctx, &clang(&ctx));
    lane_reads(&ctx);
}

#[test]
fn warps_at_every_subgroup_size() {
    common::at_every_subgroup_size("warp_cases");
}
