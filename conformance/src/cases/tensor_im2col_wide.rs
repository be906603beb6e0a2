//! ISA 9.7.9.25.5 `cp.async.bulk.tensor` in the `.im2col::w` and `.im2col::w::128` modes:
//! rows of pixels along W of 3-, 4- and 5-d tensors loaded into shared memory (completing an
//! mbarrier's transaction), with the halo after the row (`.im2col::w`) or after every 32
//! pixels (`.im2col::w::128`), `wOffset`, traversal strides, zero and NaN fill and the 64- and
//! 128-byte swizzles. The maps are made by the encoder libcuda's `cuTensorMapEncodeIm2colWide`
//! uses; the expected rows come from the model below, written from the ISA's "im2col::w and
//! im2col::w::128 modes" (and its "Im2col mode", whose rules they keep) and CUDA's
//! documentation of the encoder:
//!
//! - the tensor is a batch of images: dimension 0 the channels, the last the image, W, H and
//!   D between;
//! - the bounding box is one pixel in H and D, at the coordinates' H and D, and spans W from
//!   `pixelBoxLowerCornerWidth` to W's last coordinate plus `pixelBoxUpperCornerWidth`;
//! - the coordinates' W names the first pixel, which may lie left of the box; the next follow
//!   in W by the traversal stride (W's element stride), from the box's end to its first W in
//!   the next image;
//! - `wOffset` adds to both corners and to the first pixel's W;
//! - `.im2col::w` loads `pixelsPerColumn` pixels and then `wHalo` more; `.im2col::w::128`
//!   loads 128 in four runs of 32, each followed by the `wHalo` pixels that come after it;
//! - each pixel gives `channelsPerPixel` channels from coordinate 0's, one dense row; elements
//!   outside the tensor read as zero, or as a NaN with the NaN fill; the swizzle is the `.tile`
//!   mode's.

use ptxvk_runtime::Context;
use ptxvk_runtime::translator::tensor_map::{Im2colWide, encode_im2col_wide};

use super::kernel_case::rejected_line;
use super::tensor_im2col::{Load, LoadPtx, load_kernel, run_load};
use super::tensor_model::{F16, F32, Loaded, Spec, U8};
use crate::{Case, Outcome, outcome_of};

const FAMILY: &str = "9.7.9.25.5 cp.async.bulk.tensor";

#[derive(Clone, Debug)]
struct Row {
    data_type: u32,
    dims: Vec<u64>,
    strides: Vec<u64>,
    lower_w: i32,
    upper_w: i32,
    channels: u32,
    pixels: u32,
    element_strides: Vec<u32>,
    swizzle: u32,
    nan_fill: bool,
    coords: Vec<i32>,
    halo: u16,
    offset: u16,
    w128: bool,
    /// `.shared::cluster` rather than `.shared::cta`, with a prefetch of the row and a cache
    /// hint (and `.target sm_100a`, which a `.shared::cta` copy needs for `.im2col::w::128`
    /// only).
    cluster: bool,
}

impl Row {
    fn rank(&self) -> usize {
        self.dims.len()
    }

    fn mode(&self) -> &'static str {
        if self.w128 {
            "im2col::w::128"
        } else {
            "im2col::w"
        }
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

    /// The pixels the copy writes, in shared-memory order: indices into [`Row::walk`].
    fn order(&self) -> Vec<usize> {
        let halo = usize::from(self.halo);
        if self.w128 {
            (0..4)
                .flat_map(|run| (32 * run..32 * run + 32 + halo).collect::<Vec<_>>())
                .collect()
        } else {
            (0..self.pixels as usize + halo).collect()
        }
    }

    fn bytes(&self) -> usize {
        self.order().len() * self.channels as usize * self.esize()
    }

    fn tensor_bytes(&self) -> usize {
        let last: u64 = self.dims[1..]
            .iter()
            .zip(&self.strides)
            .map(|(d, s)| (d - 1) * s)
            .sum();
        (last + self.esize() as u64 * self.dims[0]) as usize
    }

    /// The first `n` pixels of the traversal, each its coordinates in dimensions 1.. with
    /// `wOffset` applied.
    fn walk(&self, n: usize) -> Vec<Vec<i64>> {
        let off = i64::from(self.offset);
        let lo = i64::from(self.lower_w) + off;
        let hi = self.dims[1] as i64 - 1 + i64::from(self.upper_w) + off;
        let step = i64::from(self.element_strides[1]);
        let mut pos: Vec<i64> = self.coords[1..].iter().map(|&c| i64::from(c)).collect();
        pos[0] += off;
        let last = pos.len() - 1;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(pos.clone());
            pos[0] += step;
            if pos[0] > hi {
                pos[0] = lo;
                pos[last] += 1;
            }
        }
        v
    }

    /// Shared memory after the load from `tensor`.
    fn load(&self, tensor: &[u8]) -> Loaded {
        let (e, tile) = (self.esize(), self.tile());
        let order = self.order();
        let walk = self.walk(order.iter().max().map_or(0, |m| m + 1));
        let mut bytes = vec![0u8; self.bytes()];
        let mut nans = Vec::new();
        for (row, &k) in order.iter().enumerate() {
            let mut at = Some(0u64);
            for (d, &c) in walk[k].iter().enumerate() {
                at = match (at, u64::try_from(c)) {
                    (Some(a), Ok(c)) if c < self.dims[d + 1] => Some(a + c * self.strides[d]),
                    _ => None,
                };
            }
            for ch in 0..self.channels as usize {
                let to = tile.shared((row * self.channels as usize + ch) * e);
                let c = i64::from(self.coords[0]) + ch as i64;
                match at.filter(|_| (0..self.dims[0] as i64).contains(&c)) {
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
        encode_im2col_wide(&Im2colWide {
            data_type: self.data_type,
            address,
            dims: &self.dims,
            strides: &self.strides,
            lower_corner_w: self.lower_w,
            upper_corner_w: self.upper_w,
            channels_per_pixel: self.channels,
            pixels_per_column: self.pixels,
            element_strides: &self.element_strides,
            interleave: 0,
            mode: u32::from(self.w128),
            swizzle: self.swizzle,
            l2_promotion: 0,
            oob_fill: u32::from(self.nan_fill),
        })
        .map(|m| m.to_vec())
        .map_err(|e| format!("the case's tensor map: {e}"))
    }
}

/// The kernel: thread 0 loads the row into `tile`; every thread then copies it into `io`,
/// followed by whether the mbarrier's phase completed after the row's bytes.
fn kernel(c: &Row) -> String {
    // `.im2col::w::128` is the `a` and family targets' into either space.
    let target = if c.cluster || c.w128 {
        "sm_100a"
    } else {
        "sm_100"
    };
    let dst = if c.cluster {
        "shared::cluster"
    } else {
        "shared::cta"
    };
    load_kernel(&LoadPtx {
        header: format!(".version 8.6\n.target {target}\n.address_size 64\n"),
        mode: c.mode(),
        dst,
        prefetch: c.cluster,
        coords: &c.coords,
        offsets: vec![c.halo.to_string(), c.offset.to_string()],
        bytes: c.bytes(),
    })
}

fn run(ctx: &Context, name: &str, ptx: &str, c: &Row) -> Result<Outcome, ptxvk_runtime::Error> {
    let load = Load {
        tensor_bytes: c.tensor_bytes(),
        fill: 0x3d,
        bytes: c.bytes(),
        tile: c.tile(),
        what: "shared row",
    };
    run_load(ctx, name, ptx, &load, |a| c.map(a), |t| c.load(t))
}

fn case(name: &str, c: Row) -> Case {
    let mode = if c.w128 { "im2col-w128" } else { "im2col-w" };
    let name = format!("tensor/load/{}d/{mode}/{name}", c.rank());
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
fn row(data_type: u32, esize: u64, dims: &[u64]) -> Row {
    let mut strides = Vec::new();
    let mut s = dims[0] * esize;
    for d in &dims[1..] {
        strides.push(s);
        s *= d;
    }
    let rank = dims.len();
    Row {
        data_type,
        dims: dims.to_vec(),
        strides,
        lower_w: 0,
        upper_w: 0,
        channels: dims[0] as u32,
        pixels: 1,
        element_strides: vec![1; rank],
        swizzle: 2,
        nan_fill: false,
        coords: vec![0; rank],
        halo: 0,
        offset: 0,
        w128: false,
        cluster: false,
    }
}

fn rows() -> Vec<(&'static str, Row)> {
    let mut v = Vec::new();
    // NHWC under the 64-byte swizzle, one pixel of padding each side (W in [-1, 8]): the
    // first pixel left of the box, a 3-wide filter's halo of 2, read one further in W, the
    // row running into the next image and past the last.
    let mut c = row(F16, 2, &[16, 10, 3, 3]);
    (c.lower_w, c.upper_w) = (-1, -1);
    (c.pixels, c.halo, c.offset) = (26, 2, 1);
    c.coords = vec![0, -3, 1, 1];
    v.push(("f16-nhwc-halo-offset", c));
    // NWC with every second W and the NaN fill under the 128-byte swizzle, the channels
    // running past the tensor's last.
    let mut c = row(F32, 4, &[40, 9, 2]);
    (c.lower_w, c.upper_w) = (-2, 1);
    c.channels = 32;
    c.element_strides = vec![1, 2, 1];
    (c.pixels, c.halo, c.offset) = (13, 3, 0);
    c.swizzle = 3;
    c.nan_fill = true;
    c.coords = vec![12, -1, 0];
    v.push(("f32-nwc-strided-nan", c));
    // NDHWC in W128: four runs of 32 pixels, each with a halo of 3, through two images into
    // a third that is not there.
    let mut c = row(U8, 1, &[32, 40, 2, 3, 2]);
    (c.halo, c.offset) = (3, 2);
    c.w128 = true;
    c.coords = vec![0, 5, 1, 2, 0];
    v.push(("u8-ndhwc-halo", c));
    // W128 into `.shared::cluster` with a prefetch and a cache hint, 128-byte rows under the
    // 128-byte swizzle, no halo, pixelsPerColumn ignored.
    let mut c = row(F16, 2, &[64, 50, 4, 2]);
    (c.lower_w, c.upper_w) = (1, -2);
    c.pixels = 7;
    c.swizzle = 3;
    c.w128 = true;
    c.cluster = true;
    c.coords = vec![0, 40, 3, 0];
    v.push(("f16-nhwc-cluster", c));
    // `.im2col::w` into `.shared::cluster` (the `a` target's form), traversal stride 3.
    let mut c = row(F32, 4, &[16, 30, 3]);
    (c.lower_w, c.upper_w) = (0, -1);
    c.element_strides = vec![1, 3, 1];
    (c.pixels, c.halo, c.offset) = (20, 1, 4);
    c.cluster = true;
    c.coords = vec![0, 2, 0];
    v.push(("f32-nwc-cluster-stride3", c));
    v
}

/// A kernel around one tensor instruction, for the rejected forms.
fn module(line: &str) -> String {
    format!(
        ".version 8.6\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .align 64 .b8 m[128])\n{{\n\t.reg .b16 %rs<4>;\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 1024 .b8 t[1024];\n\
         \t.shared .align 8 .b64 b;\n\tmov.b64 %rd1, m;\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // "In .im2col and .im2col::* modes, the tensor has to be at least 3-dimensional".
        (
            "im2col-w-2d",
            "cp.async.bulk.tensor.2d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1}], [b], {%rs1, %rs1};",
            "im2col::w",
        ),
        // im2colInfo is `{wHalo, wOffset}`.
        (
            "im2col-w-info",
            "cp.async.bulk.tensor.5d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [b], {%rs1, %rs1, %rs1};",
            "{%rs1, %rs1, %rs1}",
        ),
        // "Im2col::w::128 mode: valid range is [0, 32)" for wHalo.
        (
            "im2col-w128-halo",
            "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1}], [b], {40, %rs1};",
            "40",
        ),
        // "wOffset ... valid range of values is [0, 32)".
        (
            "im2col-w-offset",
            "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1}], [b], {%rs1, 33};",
            "33",
        ),
        // Copies into the tensor have no wide mode.
        (
            "im2col-w-store",
            "cp.async.bulk.tensor.3d.global.shared::cta.im2col::w.bulk_group [%rd1, {%r1, %r1, %r1}], [t];",
            "im2col::w",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "tensor/rejected", module, form))
    .collect()
}

/// Gated forms: `.im2col::w` into `.shared::cluster` is the `a` and family targets'.
fn gated() -> Case {
    let line = "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes \
                [t], [%rd1, {%r1, %r1, %r1}], [b], {%rs1, %rs1};";
    rejected_line(
        FAMILY,
        "tensor/rejected",
        |l| module(l).replace("sm_100a", "sm_100"),
        ("im2col-w-cluster-sm100", line, "im2col::w"),
    )
}

pub fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = rows().into_iter().map(|(n, c)| case(n, c)).collect();
    v.extend(rejections());
    v.push(gated());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_keeps_h_and_d_and_wraps_into_the_next_image() {
        // W in [-1 + 1, 8 + 1] after the offset, from -3 + 1: -2, -1, then the box.
        let c = &rows()[0].1;
        let p = c.walk(16);
        assert_eq!(p[0], vec![-2, 1, 1]);
        assert_eq!(p[2], vec![0, 1, 1]);
        assert_eq!(p[11], vec![9, 1, 1]);
        assert_eq!(p[12], vec![0, 1, 2]);
    }

    #[test]
    fn w128_runs_repeat_their_halo() {
        let c = &rows()[2].1;
        let o = c.order();
        assert_eq!(o.len(), 4 * 35);
        assert_eq!(&o[30..37], &[30, 31, 32, 33, 34, 32, 33]);
        assert_eq!(c.bytes(), 4 * 35 * 32);
    }
}
