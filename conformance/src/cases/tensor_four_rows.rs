//! ISA 9.7.9.25.5 `cp.async.bulk.tensor` in the `.tile::gather4` and `.tile::scatter4` modes:
//! four rows of a 2-d tensor at one column, gathered into shared memory (completing an
//! mbarrier's transaction) and scattered back. The expectation is the `.tile` model of
//! `tensor_model.rs` applied as the ISA describes these modes ("four request coordinates will
//! form four Bounding Boxes"; "the size of the bounding box in the dimension 1 must be one";
//! "all other constraints and rules of the tile mode apply"): row k is the one-row box at
//! `{col, row_k}`, and the four rows lie one after another in shared memory, swizzled as a
//! four-row box is.

use ptxvk_runtime::translator::tensor_map::{Tiled, encode_tiled};
use ptxvk_runtime::{Buffer, Context, KernelArg, LaunchConfig};

use super::kernel_case::rejected_line;
use super::tensor_copy::{loaded, rejection_module, stored};
use super::tensor_model::{F16, F32, Loaded, Spec, U8, pattern};
use crate::{Case, Outcome, outcome_of};

const FAMILY: &str = "9.7.9.25.5 cp.async.bulk.tensor";
const HEADER: &str = ".version 8.6\n.target sm_100a\n.address_size 64\n";
const THREADS: u32 = 64;

/// A 2-d tensor, the rows' width (`boxDim[0]`), the column and the four rows.
#[derive(Clone, Debug)]
struct Rows {
    /// The map's shape: `box_dims` `[width, 1]`, `coords[0]` the column.
    tile: Spec,
    rows: [i32; 4],
}

impl Rows {
    /// The one-row box of row `k`.
    fn row(&self, k: usize) -> Spec {
        let mut s = self.tile.clone();
        s.coords = vec![self.tile.coords[0], self.rows[k]];
        s
    }

    /// The four rows as one box in shared memory (for its size and swizzle).
    fn four(&self) -> Spec {
        let mut s = self.tile.clone();
        s.box_dims[1] = 4;
        s
    }

    fn row_bytes(&self) -> usize {
        self.tile.box_bytes()
    }

    /// Shared memory after the gather from `tensor`.
    fn load(&self, tensor: &[u8]) -> Loaded {
        let (four, rb) = (self.four(), self.row_bytes());
        let mut bytes = vec![0u8; four.box_bytes()];
        let mut nans = Vec::new();
        for k in 0..4 {
            // A row of at most the swizzle's span: its own box is not permuted.
            let row = self.row(k).load(tensor);
            for (j, b) in row.bytes.iter().enumerate() {
                bytes[four.shared(k * rb + j)] = *b;
            }
            nans.extend(row.nans.iter().map(|&j| four.shared(k * rb + j)));
        }
        Loaded { bytes, nans }
    }

    /// The tensor after the scatter of `shared` into `tensor`, row after row.
    fn store(&self, tensor: &[u8], shared: &[u8]) -> Vec<u8> {
        let (four, rb) = (self.four(), self.row_bytes());
        let mut out = tensor.to_vec();
        for k in 0..4 {
            let row: Vec<u8> = (0..rb).map(|j| shared[four.shared(k * rb + j)]).collect();
            out = self.row(k).store(&out, &row);
        }
        out
    }
}

/// Thread 0 gathers the rows into `tile` (every thread then copies it into `io`, followed by
/// whether the mbarrier's phase completed), or every thread fills `tile` from `io` and thread
/// 0 scatters it.
fn kernel(r: &Rows, load: bool) -> String {
    let n = r.four().box_bytes();
    let tile = n.div_ceil(1024) * 1024;
    let coords = [r.tile.coords[0]]
        .iter()
        .chain(&r.rows)
        .enumerate()
        .map(|(i, c)| format!("\tmov.b32 %r{}, {c};\n", 20 + i))
        .collect::<String>();
    let words = |name: &str, to_io: bool| {
        let (ld, st) = if to_io {
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
    let vec = "%r20, %r21, %r22, %r23, %r24";
    let mut k = format!(
        "{HEADER}.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 io, .param .u32 bytes)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 1024 .b8 tile[{tile}];\n\t.shared .align 8 .b64 bar;\n\
         \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [io];\n\
         \tld.param.u32 %r2, [bytes];\n\tshr.u32 %r5, %r2, 2;\n\tmov.b64 %rd3, tmap;\n{coords}\
         \tsetp.ne.u32 %p1, %r1, 0;\n"
    );
    if load {
        k += &format!(
            "\t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
             \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tbar.sync 0;\n\t@%p1 bra WAIT;\n\
             \tcp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd3, {{{vec}}}];\n\
             \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], %r2;\n\
             \tcp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes \
             [tile], [%rd3, {{{vec}}}], [bar];\n\
             WAIT:\n\tmov.u32 %r3, 0;\n\
             TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
             \tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, 1000;\n\t@%p3 bra TRY;\n\
             DONE:\n\tselp.u32 %r4, 1, 0, %p2;\n{}\
             \t@%p1 bra END;\n\tadd.s64 %rd5, %rd1, {n};\n\tst.global.u32 [%rd5], %r4;\nEND:\n\tret;\n}}\n",
            words("COPY", true),
        );
    } else {
        k += &format!(
            "{}\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n\t@%p1 bra END;\n\
             \tcp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group \
             [%rd3, {{{vec}}}], [tile];\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\nEND:\n\tret;\n}}\n",
            words("FILL", false)
        );
    }
    k
}

fn run(
    ctx: &Context,
    name: &str,
    ptx: &str,
    r: &Rows,
    load: bool,
) -> Result<Outcome, ptxvk_runtime::Error> {
    let module = ctx.load_ptx(&format!("{}.ptx", name.replace('/', "_")), ptx)?;
    let kernel = module.kernel("k")?;
    let s = &r.tile;
    let before = pattern(s.tensor_bytes(), 0x47);
    let tensor = Buffer::new(ctx, before.len().max(4) as u64)?;
    tensor.write_bytes(0, &before)?;
    let map = encode_tiled(&Tiled {
        data_type: s.data_type,
        address: tensor.address(),
        dims: &s.dims,
        strides: &s.strides,
        box_dims: &s.box_dims,
        element_strides: &s.element_strides,
        interleave: 0,
        swizzle: s.swizzle,
        l2_promotion: 0,
        oob_fill: u32::from(s.nan_fill),
    });
    let map = match map {
        Ok(m) => m.to_vec(),
        Err(e) => return Ok(Outcome::Fail(format!("the case's tensor map: {e}"))),
    };
    let n = r.four().box_bytes();
    let tile = pattern(n, 0x1d3);
    let io = Buffer::new(ctx, (n + 4) as u64)?;
    io.write_bytes(
        0,
        &if load {
            vec![0xa5; n + 4]
        } else {
            tile.clone()
        },
    )?;
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
    };
    kernel.launch(
        &cfg,
        &[
            KernelArg::Bytes(map),
            (&io).into(),
            KernelArg::U32(n as u32),
        ],
    )?;
    if load {
        return loaded(&io, n, s, &r.load(&before), "shared rows");
    }
    stored(&tensor, s, r.store(&before, &tile))
}

fn case(name: &str, r: Rows, load: bool) -> Case {
    let dir = if load { "gather4" } else { "scatter4" };
    let name = format!("tensor/{dir}/2d/{name}");
    let ptx = kernel(&r, load);
    let (n, p) = (name.clone(), ptx.clone());
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| run(ctx, &n, &p, &r, load).unwrap_or_else(outcome_of)),
    }
}

fn rows(data_type: u32, dims: [u64; 2], stride: u64, width: u32, col: i32, rows: [i32; 4]) -> Rows {
    Rows {
        tile: Spec {
            data_type,
            dims: dims.to_vec(),
            strides: vec![stride],
            box_dims: vec![width, 1],
            element_strides: vec![1, 1],
            swizzle: 0,
            nan_fill: false,
            coords: vec![col, rows[0]],
        },
        rows,
    }
}

fn specs() -> Vec<(&'static str, Rows)> {
    let mut v = Vec::new();
    // Rows out of order, one repeated, one below the tensor and one past its end; the column
    // runs over the right edge.
    v.push((
        "f32-rows-out-of-order",
        rows(F32, [20, 9], 96, 8, 15, [5, 1, -1, 9]),
    ));
    // u8 rows from before the first column, one row repeated.
    v.push((
        "u8-before-start",
        rows(U8, [40, 6], 48, 32, -5, [2, 0, 2, 5]),
    ));
    // NaN fill of rows outside the tensor.
    let mut nan = rows(F16, [16, 5], 32, 16, 4, [4, 7, 0, -3]);
    nan.tile.nan_fill = true;
    v.push(("f16-nan-fill", nan));
    // The 128-byte swizzle over the four 128-byte rows.
    let mut swizzled = rows(F32, [40, 12], 160, 32, 6, [11, 3, 7, 0]);
    swizzled.tile.swizzle = 3;
    v.push(("f32-swizzle-128b", swizzled));
    v
}

/// A kernel around one tensor instruction, for the rejected forms.
fn module(line: &str) -> String {
    rejection_module(HEADER, line)
}

fn rejections() -> Vec<Case> {
    [
        // "These modes work only on 2D tensor data."
        (
            "gather4-3d",
            "cp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [b];",
            "tile::gather4",
        ),
        // Four rows gathered into shared memory, scattered into the tensor.
        (
            "scatter4-load",
            "cp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [b];",
            "tile::scatter4",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "tensor/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (name, r) in specs() {
        v.push(case(name, r.clone(), true));
        v.push(case(name, r, false));
    }
    v.extend(rejections());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_land_one_after_another() {
        // Rows of 16 u8 at column 0: row k of the box is tensor row rows[k], and a row
        // outside the tensor reads as zero.
        let r = rows(U8, [16, 3], 16, 16, 0, [2, 0, 5, 1]);
        let tensor: Vec<u8> = (0..48).collect();
        let got = r.load(&tensor).bytes;
        assert_eq!(&got[..16], &tensor[32..48]);
        assert_eq!(&got[16..32], &tensor[..16]);
        assert_eq!(&got[32..48], &[0; 16]);
        assert_eq!(&got[48..], &tensor[16..32]);
    }
}
