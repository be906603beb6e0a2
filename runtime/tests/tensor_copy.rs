//! `cp.async.bulk.tensor` runs on the device: tensor maps encoded by the code libcuda's
//! `cuTensorMapEncodeTiled` uses, passed as `__grid_constant__` kernel parameters, copy boxes of
//! every rank, element size, element stride and swizzle mode into shared memory (completing
//! the mbarrier's transaction) and back to global memory; each result is compared with a CPU
//! model of the box copy written from the CUDA documentation: the box starts at the
//! coordinates, holds ceil(boxDim / elementStride) elements per dimension, reads zero or the
//! NaN of the element type outside the tensor, stores nothing there, and in shared memory
//! moves each 16-byte chunk c of 128-byte row r to chunk c ^ (r mod span/16).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::translator::tensor_map::{Tiled, encode_tiled};
use ptxvk_runtime::{Context, DeviceBuffer, KernelArg, LaunchConfig, Module};

const TILE: usize = 4096;
const THREADS: u32 = 64;

/// A kernel for rank `rank`: `load` (into the tile, then the tile and whether the mbarrier's
/// phase completed into `out`) or `store` (from `out` into the tile, then into the tensor).
fn kernels() -> String {
    let mut s = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    for rank in 1..=5 {
        let coords: Vec<String> = (0..rank).map(|i| format!("%r{}", 20 + i)).collect();
        let coords = coords.join(", ");
        let head = |name: &str| {
            format!(
                ".visible .entry {name}{rank}(.param .align 64 .b8 tmap[128], .param .u64 out, \
                 .param .u32 bytes, .param .u32 c0, .param .u32 c1, .param .u32 c2, \
                 .param .u32 c3, .param .u32 c4)\n{{\n\
                 \t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<8>;\n\
                 \t.shared .align 1024 .b8 tile[{TILE}];\n\t.shared .align 8 .b64 bar;\n\
                 \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [out];\n\
                 \tld.param.u32 %r2, [bytes];\n\tshr.u32 %r5, %r2, 2;\n\
                 \tld.param.u32 %r20, [c0];\n\tld.param.u32 %r21, [c1];\n\
                 \tld.param.u32 %r22, [c2];\n\tld.param.u32 %r23, [c3];\n\
                 \tld.param.u32 %r24, [c4];\n\tmov.b64 %rd3, tmap;\n\
                 \tsetp.ne.u32 %p1, %r1, 0;\n"
            )
        };
        // Words `%r6` = tid, tid + THREADS, ... below `%r5`, between `tile` and `out`.
        let words = |name: &str, to_out: bool| {
            let (ld, st) = if to_out {
                ("ld.shared.u32 %r9, [%r8];", "st.global.u32 [%rd5], %r9;")
            } else {
                ("ld.global.u32 %r9, [%rd5];", "st.shared.u32 [%r8], %r9;")
            };
            format!(
                "\tmov.u32 %r6, %r1;\n{name}:\n\tsetp.ge.u32 %p3, %r6, %r5;\n\t@%p3 bra {name}_END;\n\
                 \tshl.b32 %r7, %r6, 2;\n\tmov.u32 %r8, tile;\n\tadd.u32 %r8, %r8, %r7;\n\
                 \tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
                 \t{ld}\n\t{st}\n\tadd.u32 %r6, %r6, {THREADS};\n\tbra {name};\n{name}_END:\n"
            )
        };
        s += &head("load");
        s += &format!(
            "\t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
             \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tbar.sync 0;\n\t@%p1 bra WAIT;\n\
             \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], %r2;\n\
             \tcp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
             [tile], [%rd3, {{{coords}}}], [bar];\n\
             WAIT:\n\tmov.u32 %r3, 0;\n\
             TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
             \tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, 1000;\n\t@%p3 bra TRY;\n\
             DONE:\n\tselp.u32 %r4, 1, 0, %p2;\n{}\
             \t@%p1 bra END;\n\tst.global.u32 [%rd1+{TILE}], %r4;\nEND:\n\tret;\n}}\n",
            words("COPY", true)
        );
        s += &head("store");
        s += &format!(
            "{}\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n\t@%p1 bra END;\n\
             \tcp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group \
             [%rd3, {{{coords}}}], [tile];\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\nEND:\n\tret;\n}}\n",
            words("FILL", false)
        );
    }
    s
}

/// One case: the tensor (innermost dimension first), its box, and where the box starts.
struct Case {
    data_type: u32,
    esize: usize,
    dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (the encoder's `globalStrides`).
    strides: Vec<u64>,
    box_dims: Vec<u32>,
    element_strides: Vec<u32>,
    swizzle: u32,
    nan_fill: bool,
    coords: Vec<i32>,
}

impl Case {
    fn tensor_bytes(&self) -> usize {
        let last = self.dims.len() - 1;
        let outer = if last == 0 {
            self.esize as u64
        } else {
            self.strides[last - 1]
        };
        (outer * self.dims[last]) as usize
    }

    /// How many elements of dimension `i` the box holds.
    fn n(&self, i: usize) -> usize {
        let es = if i == 0 { 1 } else { self.element_strides[i] };
        self.box_dims[i].div_ceil(es) as usize
    }

    fn box_bytes(&self) -> usize {
        (0..self.dims.len()).map(|i| self.n(i)).product::<usize>() * self.esize
    }

    /// For each element of the dense box, in order: its byte offset in the tensor, or `None`
    /// outside it.
    fn elements(&self) -> Vec<Option<usize>> {
        let rank = self.dims.len();
        let count: usize = (0..rank).map(|i| self.n(i)).product();
        (0..count)
            .map(|mut e| {
                let mut off = 0i64;
                let mut inside = true;
                for i in 0..rank {
                    let k = (e % self.n(i)) as i64;
                    e /= self.n(i);
                    let es = if i == 0 { 1 } else { self.element_strides[i] };
                    let c = i64::from(self.coords[i]) + k * i64::from(es);
                    inside &= c >= 0 && c < self.dims[i] as i64;
                    let stride = if i == 0 {
                        self.esize as u64
                    } else {
                        self.strides[i - 1]
                    };
                    off += c * stride as i64;
                }
                inside.then_some(off as usize)
            })
            .collect()
    }

    fn nan(&self) -> Vec<u8> {
        let bits: u64 = match self.data_type {
            6 | 9 => 0x7fff,
            8 => 0x7fff_ffff_ffff_ffff,
            _ => 0x7fff_ffff,
        };
        bits.to_le_bytes()[..self.esize].to_vec()
    }

    /// Where dense byte `off` lies in shared memory.
    fn shared_offset(&self, off: usize) -> usize {
        if self.swizzle == 0 {
            return off;
        }
        let chunks_per_span = 1usize << self.swizzle;
        let (row, chunk) = (off / 128, off % 128 / 16);
        row * 128 + (chunk ^ (row % chunks_per_span)) * 16 + off % 16
    }

    fn map(&self, address: u64) -> Vec<u8> {
        encode_tiled(&Tiled {
            data_type: self.data_type,
            address,
            dims: &self.dims,
            strides: &self.strides,
            box_dims: &self.box_dims,
            element_strides: &self.element_strides,
            interleave: 0,
            swizzle: self.swizzle,
            l2_promotion: 2,
            oob_fill: u32::from(self.nan_fill),
        })
        .unwrap()
        .to_vec()
    }

    fn args(&self, map: Vec<u8>, out: &DeviceBuffer<u8>) -> Vec<KernelArg> {
        let mut args = vec![
            KernelArg::Bytes(map),
            out.into(),
            KernelArg::U32(self.box_bytes() as u32),
        ];
        for i in 0..5 {
            args.push(KernelArg::U32(
                self.coords.get(i).copied().unwrap_or(0) as u32
            ));
        }
        args
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    // A multiplicative hash: no period short enough to hide a misplaced row.
    (0..n as u32)
        .map(|i| ((i.wrapping_mul(0x9e37_79b1) >> 24) as u8 ^ seed) | 1)
        .collect()
}

fn load(ctx: &Context, m: &Module, case: &Case) {
    let host = pattern(case.tensor_bytes(), 7);
    let tensor = DeviceBuffer::from_slice(ctx, &host).unwrap();
    let out = DeviceBuffer::from_slice(ctx, &vec![0xa5u8; TILE + 4]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
    };
    let k = m.kernel(&format!("load{}", case.dims.len())).unwrap();
    k.launch(&cfg, &case.args(case.map(tensor.address()), &out))
        .unwrap();
    let got = out.to_vec().unwrap();
    let mut want = vec![0u8; case.box_bytes()];
    let fill = if case.nan_fill {
        case.nan()
    } else {
        vec![0; case.esize]
    };
    for (e, at) in case.elements().into_iter().enumerate() {
        for b in 0..case.esize {
            let v = at.map_or(fill[b], |a| host[a + b]);
            want[case.shared_offset(e * case.esize + b)] = v;
        }
    }
    let n = case.box_bytes();
    assert_eq!(
        got[..n],
        want[..],
        "box of {:?} at {:?}",
        case.dims,
        case.coords
    );
    assert_eq!(
        got[TILE..],
        [1, 0, 0, 0],
        "the mbarrier's phase did not complete"
    );
}

fn store(ctx: &Context, m: &Module, case: &Case) {
    let before = pattern(case.tensor_bytes(), 3);
    let tensor = DeviceBuffer::from_slice(ctx, &before).unwrap();
    let tile = pattern(case.box_bytes(), 101);
    let src = DeviceBuffer::from_slice(ctx, &tile).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
    };
    let k = m.kernel(&format!("store{}", case.dims.len())).unwrap();
    k.launch(&cfg, &case.args(case.map(tensor.address()), &src))
        .unwrap();
    let mut want = before.clone();
    for (e, at) in case.elements().into_iter().enumerate() {
        if let Some(a) = at {
            for b in 0..case.esize {
                want[a + b] = tile[case.shared_offset(e * case.esize + b)];
            }
        }
    }
    assert_eq!(
        tensor.to_vec().unwrap(),
        want,
        "store of {:?} at {:?}",
        case.dims,
        case.coords
    );
}

fn cases() -> Vec<Case> {
    let c =
        |data_type, esize, dims: &[u64], strides: &[u64], box_dims: &[u32], coords: &[i32]| Case {
            data_type,
            esize,
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            box_dims: box_dims.to_vec(),
            element_strides: vec![1; dims.len()],
            swizzle: 0,
            nan_fill: false,
            coords: coords.to_vec(),
        };
    let mut v = vec![
        // f32, the box hanging over the left and bottom edges, the rows padded to 64 bytes.
        c(7, 4, &[13, 10], &[64], &[8, 4], &[-3, 8]),
        // u8 at odd x: no word of the box is aligned in global memory.
        c(0, 1, &[37, 5], &[48], &[16, 4], &[29, -1]),
        // f64 in one dimension, half outside.
        c(8, 8, &[10], &[], &[4], &[8]),
        // u16 in five dimensions, one dimension past its end.
        c(
            1,
            2,
            &[8, 3, 2, 2, 3],
            &[16, 48, 96, 192],
            &[8, 2, 2, 2, 2],
            &[0, 1, 0, 1, 2],
        ),
        // Wholly outside.
        c(3, 4, &[4, 4], &[16], &[4, 2], &[0, 9]),
    ];
    // f16 in three dimensions with element strides 1, 2 and 3 (the first is ignored).
    let mut strided = c(6, 2, &[20, 9, 7], &[48, 48 * 9], &[8, 5, 3], &[4, 1, 2]);
    strided.element_strides = vec![4, 2, 3];
    v.push(strided);
    // NaN fill of f32, bf16 and f64.
    for (dt, esize, dims, strides, boxes) in [
        (7u32, 4usize, [6u64, 5], [32u64], [8u32, 4]),
        (9, 2, [12, 5], [32], [16, 2]),
        (8, 8, [3, 5], [32], [2, 3]),
    ] {
        let mut n = c(dt, esize, &dims, &strides, &boxes, &[-1, 3]);
        n.nan_fill = true;
        v.push(n);
    }
    // Each swizzle span with rows as wide as the span, over 16 rows (two repeats of 128B).
    for (swizzle, width) in [(1u32, 8u32), (2, 16), (3, 32)] {
        let mut s = c(7, 4, &[40, 20], &[160], &[width, 16], &[2, 3]);
        s.swizzle = swizzle;
        v.push(s);
    }
    v
}

#[test]
fn tensor_copies_match_the_model() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = ctx
        .load_ptx("tensor_copy.ptx", &kernels())
        .unwrap_or_else(|e| panic!("{e}"));
    for case in cases() {
        load(&ctx, &m, &case);
        store(&ctx, &m, &case);
    }
}

#[test]
fn tensor_copies_at_every_subgroup_size() {
    common::at_every_subgroup_size("tensor_copies_match_the_model");
}
