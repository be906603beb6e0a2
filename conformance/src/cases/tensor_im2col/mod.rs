//! ISA 9.7.9.25.5 `cp.async.bulk.tensor` in the `.im2col` mode: columns of pixels of 3-, 4- and
//! 5-d tensors loaded into shared memory (completing an mbarrier's transaction), over the
//! images' edges and from one image into the next, with traversal strides, im2col offsets,
//! zero and NaN fill and the 128-byte swizzle. The maps are made by the encoder libcuda's
//! `cuTensorMapEncodeIm2col` uses; the expected columns come from the model below, written from
//! the ISA's "Im2col mode" and CUDA's documentation of the encoder:
//!
//! - the tensor is a batch of images: dimension 0 the channels, the last the image, the ones
//!   between W, H and D;
//! - the bounding box spans, in W, H and D, from `pixelBoxLowerCorner` to the dimension's last
//!   coordinate plus `pixelBoxUpperCorner`;
//! - the coordinates name the column's first pixel; the next follow in W by the traversal
//!   stride (the dimension's element stride), wrapping to the box's first W and on in H, then
//!   D, then to the next image;
//! - each pixel is read at its position plus the im2col offsets, and gives `channelsPerPixel`
//!   channels from coordinate 0's: one dense row in shared memory;
//! - elements outside the tensor read as zero, or as a NaN with the NaN fill; the swizzle is
//!   the `.tile` mode's.
//!
//! `.im2col_no_offs` stores (ISA: the `.global.shared::cta` direction's load modes are `.tile`,
//! `.tile::scatter4` and `.im2col_no_offs`, which takes no im2colInfo) write the rows back along
//! the same traversal with no offsets, leaving what lies outside the tensor alone, within the
//! ISA's restrictions on that direction: coordinates non-negative, lower corners non-negative,
//! upper corners non-positive. `.im2col_no_offs` reductions (ISA: the reduction's load modes
//! are `.tile` and `.im2col_no_offs`) combine each row's elements with the tensor's along that
//! traversal by the operator, as the `.tile` reductions' model does element by element.

mod forms;

pub(super) use forms::cases;

use ptxvk_runtime::translator::tensor_map::{Im2col, encode_im2col};
use ptxvk_runtime::{Buffer, Context, KernelArg, LaunchConfig};

use super::kernel_case::rejected_line;
use super::tensor_copy::loaded;
use super::tensor_model::{
    F16, F32, Loaded, Red, S32, Spec, U8, U16, U32, pattern, reduce_element, reduce_inputs,
};
use crate::{Case, Outcome, outcome_of};

const FAMILY: &str = "9.7.9.25.5 cp.async.bulk.tensor";
const HEADER: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";
pub(super) const THREADS: u32 = 64;

#[derive(Clone, Debug)]
struct Column {
    data_type: u32,
    dims: Vec<u64>,
    strides: Vec<u64>,
    lower: Vec<i32>,
    upper: Vec<i32>,
    channels: u32,
    pixels: u32,
    element_strides: Vec<u32>,
    swizzle: u32,
    nan_fill: bool,
    coords: Vec<i32>,
    offsets: Vec<u16>,
    /// `.shared::cta` destination, `.L2::cache_hint` and a prefetch of the column first.
    variant: bool,
}

/// An `.im2col_no_offs` store of a column (`offsets` all zero), or a reduction with `reduce`.
struct Store {
    column: Column,
    reduce: Option<Red>,
}

impl Store {
    /// The tensor after storing (or reducing) the dense column `column` into `tensor`.
    fn expect(&self, tensor: &[u8], column: &[u8]) -> Vec<u8> {
        let c = &self.column;
        let (e, tile) = (c.esize(), c.tile());
        let read = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..e].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let mut out = tensor.to_vec();
        for (p, pos) in c.pixel_positions().into_iter().enumerate() {
            let mut at = Some(0u64);
            for (k, &x) in pos.iter().enumerate() {
                at = match (at, u64::try_from(x)) {
                    (Some(a), Ok(x)) if x < c.dims[k + 1] => Some(a + x * c.strides[k]),
                    _ => None,
                };
            }
            for ch in 0..c.channels as usize {
                let from = tile.shared((p * c.channels as usize + ch) * e);
                let x = i64::from(c.coords[0]) + ch as i64;
                if let Some(a) = at.filter(|_| (0..c.dims[0] as i64).contains(&x)) {
                    let a = (a + x as u64 * e as u64) as usize;
                    let new = match self.reduce {
                        Some(op) => {
                            let (old, src) = (read(&out[a..a + e]), read(&column[from..from + e]));
                            reduce_element(c.data_type, op, old, src).to_le_bytes()
                        }
                        None => read(&column[from..from + e]).to_le_bytes(),
                    };
                    out[a..a + e].copy_from_slice(&new[..e]);
                }
            }
        }
        out
    }

    /// Every thread copies `io` into `tile`; thread 0 stores (or reduces) the column into the
    /// tensor.
    fn kernel(&self) -> String {
        let c = &self.column;
        let opcode = match self.reduce {
            Some(op) => format!(
                "cp.reduce.async.bulk.tensor.{}d.global.shared::cta.{}",
                c.rank(),
                op.name()
            ),
            None => format!("cp.async.bulk.tensor.{}d.global.shared::cta", c.rank()),
        };
        let rank = c.rank();
        let tile = c.bytes().div_ceil(1024) * 1024;
        let mut set = String::new();
        for (i, v) in c.coords.iter().enumerate() {
            set += &format!("\tmov.b32 %r{}, {v};\n", 20 + i);
        }
        let coords = (0..rank)
            .map(|i| format!("%r{}", 20 + i))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "{HEADER}.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 io, .param .u32 bytes)\n{{\n\
             \t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<8>;\n\
             \t.shared .align 1024 .b8 tile[{tile}];\n\
             \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [io];\n\
             \tld.param.u32 %r2, [bytes];\n\tshr.u32 %r5, %r2, 2;\n{set}\
             \tsetp.ne.u32 %p1, %r1, 0;\n\
             \tmov.u32 %r6, %r1;\nFILL:\n\tsetp.ge.u32 %p3, %r6, %r5;\n\t@%p3 bra FILL_END;\n\
             \tshl.b32 %r7, %r6, 2;\n\tmov.u32 %r8, tile;\n\tadd.u32 %r8, %r8, %r7;\n\
             \tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
             \tld.global.u32 %r9, [%rd5];\n\tst.shared.u32 [%r8], %r9;\n\
             \tadd.u32 %r6, %r6, {THREADS};\n\tbra FILL;\nFILL_END:\n\
             \tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n\t@%p1 bra END;\n\
             \t{opcode}.im2col_no_offs.bulk_group [tmap, {{{coords}}}], [tile];\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\nEND:\n\tret;\n}}\n"
        )
    }

    fn run(&self, ctx: &Context, name: &str, ptx: &str) -> Result<Outcome, ptxvk_runtime::Error> {
        let c = &self.column;
        let module = ctx.load_ptx(&format!("{}.ptx", name.replace('/', "_")), ptx)?;
        let kernel = module.kernel("k")?;
        let n = c.bytes();
        let (before, column) = match self.reduce {
            Some(op) => (
                reduce_inputs(c.data_type, op, c.tensor_bytes(), 0x2f),
                reduce_inputs(c.data_type, op, n, 0x91),
            ),
            None => (pattern(c.tensor_bytes(), 0x2f), pattern(n, 0x91)),
        };
        let tensor = Buffer::new(ctx, before.len().max(4) as u64)?;
        tensor.write_bytes(0, &before)?;
        let map = match c.map(tensor.address()) {
            Ok(m) => m,
            Err(e) => return Ok(Outcome::Fail(e)),
        };
        let io = Buffer::new(ctx, n as u64)?;
        io.write_bytes(0, &column)?;
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [THREADS, 1, 1],
            shared_bytes: 0,
        };
        let args = [
            KernelArg::Bytes(map),
            (&io).into(),
            KernelArg::U32(n as u32),
        ];
        kernel.launch(&cfg, &args)?;
        let mut got = vec![0u8; before.len()];
        tensor.read_bytes(0, &mut got)?;
        let want = self.expect(&before, &column);
        Ok(match (0..want.len()).find(|&i| got[i] != want[i]) {
            None => Outcome::Pass,
            Some(i) => Outcome::Fail(format!(
                "tensor byte {i}: expected {:#04x}, got {:#04x}",
                want[i], got[i]
            )),
        })
    }
}

fn store_case(name: &str, column: Column, reduce: Option<Red>) -> Case {
    let dir = match reduce {
        Some(op) => format!("reduce.{}", op.name()),
        None => "store".into(),
    };
    let name = format!("tensor/{dir}/{}d/im2col-no-offs/{name}", column.rank());
    let s = Store { column, reduce };
    let ptx = s.kernel();
    let (n, p) = (name.clone(), ptx.clone());
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| s.run(ctx, &n, &p).unwrap_or_else(outcome_of)),
    }
}

impl Column {
    fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The `.tile` model's view of the element type and swizzle (its `shared` and `is_nan`).
    fn tile(&self) -> Spec {
        Spec {
            data_type: self.data_type,
            dims: self.dims.clone(),
            strides: self.strides.clone(),
            box_dims: vec![1; self.rank()],
            element_strides: self.element_strides.clone(),
            swizzle: self.swizzle,
            nan_fill: self.nan_fill,
            coords: self.coords.clone(),
        }
    }

    fn esize(&self) -> usize {
        self.tile().esize()
    }

    fn bytes(&self) -> usize {
        (self.channels * self.pixels) as usize * self.esize()
    }

    /// Bytes from the tensor's address to the end of its last element.
    fn tensor_bytes(&self) -> usize {
        let last: u64 = self.dims[1..]
            .iter()
            .zip(&self.strides)
            .map(|(d, s)| (d - 1) * s)
            .sum();
        (last + self.esize() as u64 * self.dims[0]) as usize
    }

    /// The column's pixels, each its coordinates in dimensions 1.. (before the offsets).
    fn pixel_positions(&self) -> Vec<Vec<i64>> {
        let spatial = self.rank() - 2;
        let mut pos: Vec<i64> = self.coords[1..].iter().map(|&c| i64::from(c)).collect();
        let mut v = Vec::new();
        for _ in 0..self.pixels {
            v.push(pos.clone());
            let mut k = 0;
            loop {
                if k == spatial {
                    pos[spatial] += 1;
                    break;
                }
                let hi = self.dims[k + 1] as i64 - 1 + i64::from(self.upper[k]);
                pos[k] += i64::from(self.element_strides[k + 1]);
                if pos[k] <= hi {
                    break;
                }
                pos[k] = i64::from(self.lower[k]);
                k += 1;
            }
        }
        v
    }

    /// Shared memory after the load from `tensor`.
    fn load(&self, tensor: &[u8]) -> Loaded {
        let (e, tile) = (self.esize(), self.tile());
        let mut bytes = vec![0u8; self.bytes()];
        let mut nans = Vec::new();
        for (p, pos) in self.pixel_positions().into_iter().enumerate() {
            // The pixel's place in the tensor, if it has one: offsets in W, H, D.
            let mut at = Some(0u64);
            for (k, &c) in pos.iter().enumerate() {
                let c = c + self.offsets.get(k).map_or(0, |&o| i64::from(o));
                at = match (at, u64::try_from(c)) {
                    (Some(a), Ok(c)) if c < self.dims[k + 1] => Some(a + c * self.strides[k]),
                    _ => None,
                };
            }
            for ch in 0..self.channels as usize {
                let to = tile.shared((p * self.channels as usize + ch) * e);
                let c = i64::from(self.coords[0]) + ch as i64;
                let from = at.filter(|_| (0..self.dims[0] as i64).contains(&c));
                match from {
                    Some(a) => {
                        let a = (a + c as u64 * e as u64) as usize;
                        bytes[to..to + e].copy_from_slice(&tensor[a..a + e]);
                    }
                    None if self.nan_fill => nans.push(to),
                    None => {}
                }
            }
        }
        Loaded { bytes, nans }
    }

    fn map(&self, address: u64) -> Result<Vec<u8>, String> {
        encode_im2col(&Im2col {
            data_type: self.data_type,
            address,
            dims: &self.dims,
            strides: &self.strides,
            lower_corner: &self.lower,
            upper_corner: &self.upper,
            channels_per_pixel: self.channels,
            pixels_per_column: self.pixels,
            element_strides: &self.element_strides,
            interleave: 0,
            swizzle: self.swizzle,
            l2_promotion: 0,
            oob_fill: u32::from(self.nan_fill),
        })
        .map(|m| m.to_vec())
        .map_err(|e| format!("the case's tensor map: {e}"))
    }
}

/// The kernel: thread 0 loads the column into `tile`; every thread then copies it into `io`,
/// followed by whether the mbarrier's phase completed after the column's bytes.
fn kernel(c: &Column) -> String {
    let (dst, prefetch) = if c.variant {
        ("shared::cta", true)
    } else {
        ("shared::cluster", false)
    };
    load_kernel(&LoadPtx {
        header: HEADER.to_string(),
        mode: "im2col",
        dst,
        prefetch,
        coords: &c.coords,
        offsets: c.offsets.iter().map(|o| o.to_string()).collect(),
        bytes: c.bytes(),
    })
}

/// An im2col-mode load kernel's PTX.
pub(super) struct LoadPtx<'a> {
    /// The `.version`, `.target` and `.address_size` lines.
    pub header: String,
    /// The load's mode modifier (`im2col`, `im2col::w`, ...).
    pub mode: &'a str,
    /// The load's destination state space.
    pub dst: &'a str,
    /// Whether the tensor is prefetched first, and the load given an L2 cache hint.
    pub prefetch: bool,
    pub coords: &'a [i32],
    /// The `.b16` offsets operand, as PTX constants.
    pub offsets: Vec<String>,
    /// The bytes the load brings.
    pub bytes: usize,
}

/// Thread 0 loads into `tile` through the mbarrier `bar`; every thread then copies the tile
/// into `io`, followed by whether the mbarrier's phase completed after the load's bytes.
pub(super) fn load_kernel(k: &LoadPtx<'_>) -> String {
    let rank = k.coords.len();
    let tile = k.bytes.div_ceil(1024) * 1024;
    let mut set = String::new();
    for (i, v) in k.coords.iter().enumerate() {
        set += &format!("\tmov.b32 %r{}, {v};\n", 20 + i);
    }
    for (i, v) in k.offsets.iter().enumerate() {
        set += &format!("\tmov.b16 %rs{}, {v};\n", 1 + i);
    }
    let coords = (0..rank)
        .map(|i| format!("%r{}", 20 + i))
        .collect::<Vec<_>>()
        .join(", ");
    let offsets = (0..k.offsets.len())
        .map(|i| format!("%rs{}", 1 + i))
        .collect::<Vec<_>>()
        .join(", ");
    let (header, mode, dst) = (&k.header, k.mode, k.dst);
    let (hint_mod, hint_op, extra) = if k.prefetch {
        (
            ".L2::cache_hint",
            ", %rd6",
            format!(
                "\tcreatepolicy.fractional.L2::evict_first.b64 %rd6, 1.0;\n\
                 \tcp.async.bulk.prefetch.tensor.{rank}d.L2.global.{mode}.L2::cache_hint \
                 [tmap, {{{coords}}}], {{{offsets}}}, %rd6;\n"
            ),
        )
    } else {
        ("", "", String::new())
    };
    format!(
        "{header}.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 io, .param .u32 bytes)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 1024 .b8 tile[{tile}];\n\t.shared .align 8 .b64 bar;\n\
         \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [io];\n\
         \tld.param.u32 %r2, [bytes];\n\tshr.u32 %r5, %r2, 2;\n{set}\
         \tsetp.ne.u32 %p1, %r1, 0;\n\
         \t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
         \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tbar.sync 0;\n\t@%p1 bra WAIT;\n{extra}\
         \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], %r2;\n\
         \tcp.async.bulk.tensor.{rank}d.{dst}.global.{mode}.mbarrier::complete_tx::bytes{hint_mod} \
         [tile], [tmap, {{{coords}}}], [bar], {{{offsets}}}{hint_op};\n\
         WAIT:\n\tmov.u32 %r3, 0;\n\
         TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
         \tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, 1000;\n\t@%p3 bra TRY;\n\
         DONE:\n\tselp.u32 %r4, 1, 0, %p2;\n\
         \tmov.u32 %r6, %r1;\nCOPY:\n\tsetp.ge.u32 %p3, %r6, %r5;\n\t@%p3 bra COPY_END;\n\
         \tshl.b32 %r7, %r6, 2;\n\tmov.u32 %r8, tile;\n\tadd.u32 %r8, %r8, %r7;\n\
         \tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
         \tld.shared.u32 %r9, [%r8];\n\tst.global.u32 [%rd5], %r9;\n\
         \tadd.u32 %r6, %r6, {THREADS};\n\tbra COPY;\nCOPY_END:\n\
         \t@%p1 bra END;\n\tadd.s64 %rd5, %rd1, {};\n\tst.global.u32 [%rd5], %r4;\nEND:\n\tret;\n}}\n",
        k.bytes
    )
}

fn run(ctx: &Context, name: &str, ptx: &str, c: &Column) -> Result<Outcome, ptxvk_runtime::Error> {
    let load = Load {
        tensor_bytes: c.tensor_bytes(),
        fill: 0x6b,
        bytes: c.bytes(),
        tile: c.tile(),
        what: "shared column",
    };
    run_load(ctx, name, ptx, &load, |a| c.map(a), |t| c.load(t))
}

/// What an im2col load case's kernel (the one [`kernel`] writes) reads and writes.
pub(super) struct Load {
    pub tensor_bytes: usize,
    /// The seed of the tensor's byte pattern.
    pub fill: u32,
    /// The bytes the copy lands in shared memory.
    pub bytes: usize,
    pub tile: Spec,
    pub what: &'static str,
}

/// Runs a load case's kernel over a patterned tensor whose map `map` encodes, and compares
/// what landed (and the mbarrier's completed phase) with `expect` of the tensor.
pub(super) fn run_load(
    ctx: &Context,
    name: &str,
    ptx: &str,
    l: &Load,
    map: impl FnOnce(u64) -> Result<Vec<u8>, String>,
    expect: impl FnOnce(&[u8]) -> Loaded,
) -> Result<Outcome, ptxvk_runtime::Error> {
    let module = ctx.load_ptx(&format!("{}.ptx", name.replace('/', "_")), ptx)?;
    let kernel = module.kernel("k")?;
    let before = pattern(l.tensor_bytes, l.fill);
    let tensor = Buffer::new(ctx, before.len().max(4) as u64)?;
    tensor.write_bytes(0, &before)?;
    let map = match map(tensor.address()) {
        Ok(m) => m,
        Err(e) => return Ok(Outcome::Fail(e)),
    };
    let n = l.bytes;
    let io = Buffer::new(ctx, (n + 4) as u64)?;
    io.write_bytes(0, &vec![0xa5; n + 4])?;
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
    };
    let args = [
        KernelArg::Bytes(map),
        (&io).into(),
        KernelArg::U32(n as u32),
    ];
    kernel.launch(&cfg, &args)?;
    loaded(&io, n, &l.tile, &expect(&before), l.what)
}

fn case(name: &str, c: Column) -> Case {
    let name = format!("tensor/load/{}d/im2col/{name}", c.rank());
    let ptx = kernel(&c);
    let (n, p) = (name.clone(), ptx.clone());
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| run(ctx, &n, &p, &c).unwrap_or_else(outcome_of)),
    }
}

/// A dense tensor of `dims` (dimension 0 the channels).
fn column(data_type: u32, esize: u64, dims: &[u64]) -> Column {
    let mut strides = Vec::new();
    let mut s = dims[0] * esize;
    for d in &dims[1..] {
        strides.push(s);
        s *= d;
    }
    let rank = dims.len();
    Column {
        data_type,
        dims: dims.to_vec(),
        strides,
        lower: vec![0; rank - 2],
        upper: vec![0; rank - 2],
        channels: 1,
        pixels: 1,
        element_strides: vec![1; rank],
        swizzle: 0,
        nan_fill: false,
        coords: vec![0; rank],
        offsets: vec![0; rank - 2],
        variant: false,
    }
}
