//! The im2col forms run (loads over each rank, padding, stride and channel range; stores and
//! reductions of the columns back) and those the ISA refuses.

use super::*;

fn stores() -> Vec<(&'static str, Column)> {
    let mut v = Vec::new();
    // NHWC with every second W of a box short of the right edge, wrapping into H and on into
    // the next image and past the last.
    let mut c = column(U16, 2, &[8, 6, 5, 2]);
    (c.lower, c.upper) = (vec![0, 0], vec![-1, 0]);
    (c.channels, c.pixels) = (8, 24);
    c.element_strides = vec![1, 2, 1, 1];
    c.coords = vec![0, 1, 2, 0];
    v.push(("u16-nhwc-strided", c));
    // NWC under the 128-byte swizzle, the channels running past the tensor's last.
    let mut c = column(F32, 4, &[40, 10, 2]);
    (c.channels, c.pixels) = (32, 12);
    c.swizzle = 3;
    c.coords = vec![16, 4, 0];
    v.push(("f32-nwc-swizzle-128b", c));
    v
}

/// Reductions along the stores' walks: each operator on an element type the ISA lists for it.
fn reductions() -> Vec<(&'static str, Column, Red)> {
    let mut v = Vec::new();
    // NHWC of f16 sums, every second W of a box short of the right edge, wrapping into H, the
    // next image and past the last.
    let mut c = column(F16, 2, &[8, 6, 5, 2]);
    (c.lower, c.upper) = (vec![0, 0], vec![-1, 0]);
    (c.channels, c.pixels) = (8, 24);
    c.element_strides = vec![1, 2, 1, 1];
    c.coords = vec![0, 1, 2, 0];
    v.push(("f16-nhwc-strided", c, Red::Add));
    // NWC of u32 under the 128-byte swizzle, the channels running past the tensor's last.
    let mut c = column(U32, 4, &[40, 10, 2]);
    (c.channels, c.pixels) = (32, 12);
    c.swizzle = 3;
    c.coords = vec![16, 4, 0];
    for (name, op) in [
        ("u32-nwc-swizzle-128b-inc", Red::Inc),
        ("u32-nwc-swizzle-128b-xor", Red::Xor),
    ] {
        v.push((name, c.clone(), op));
    }
    // NDHWC of s32 maxima over a box whose upper corners cut the edges.
    let mut c = column(S32, 4, &[4, 5, 4, 3, 2]);
    (c.lower, c.upper) = (vec![0, 0, 0], vec![-1, -1, 0]);
    (c.channels, c.pixels) = (4, 40);
    c.coords = vec![0, 1, 1, 1, 0];
    v.push(("s32-ndhwc-max", c, Red::Max));
    v
}

fn columns() -> Vec<(&'static str, Column)> {
    let mut v = Vec::new();
    // NWC with one pixel of padding each side (a 3-wide filter's box), the column running
    // through both images into a third that is not there; offset 2 reads past the right edge.
    let mut c = column(F32, 4, &[8, 10, 2]);
    (c.lower, c.upper) = (vec![-1], vec![-1]);
    (c.channels, c.pixels) = (4, 24);
    (c.coords, c.offsets) = (vec![0, -1, 0], vec![2]);
    v.push(("f32-nwc-padded", c));
    // NHWC, W traversed every second pixel, wrapping into H and on into the next image.
    let mut c = column(U8, 1, &[16, 7, 6, 2]);
    (c.lower, c.upper) = (vec![-1, -1], vec![-2, -1]);
    (c.channels, c.pixels) = (16, 20);
    c.element_strides = vec![1, 2, 1, 1];
    (c.coords, c.offsets) = (vec![0, 1, 3, 0], vec![1, 2]);
    v.push(("u8-nhwc-strided", c));
    // NDHWC with the NaN fill; the column starts above the image (H = -1).
    let mut c = column(F16, 2, &[8, 4, 3, 2, 2]);
    (c.lower, c.upper) = (vec![0, -1, 0], vec![-1, 0, 0]);
    (c.channels, c.pixels) = (8, 30);
    c.nan_fill = true;
    (c.coords, c.offsets) = (vec![0, 1, -1, 0, 0], vec![1, 0, 1]);
    v.push(("f16-ndhwc-nan-fill", c));
    // 128-byte pixel rows under the 128-byte swizzle, the channels running past the last.
    let mut c = column(F32, 4, &[40, 6, 5, 1]);
    (c.channels, c.pixels) = (32, 16);
    c.swizzle = 3;
    (c.coords, c.offsets) = (vec![11, 2, 1, 0], vec![1, 1]);
    v.push(("f32-swizzle-128b", c));
    // A `.shared::cta` destination with a cache hint, after a prefetch of the same column.
    let mut c = column(U16, 2, &[16, 5, 4, 3]);
    (c.lower, c.upper) = (vec![-2, 0], vec![1, -1]);
    (c.channels, c.pixels) = (8, 12);
    (c.coords, c.offsets) = (vec![8, -2, 1, 1], vec![3, 0]);
    c.variant = true;
    v.push(("u16-cta-hint-prefetch", c));
    v
}

/// A kernel around one tensor instruction, for the rejected forms.
fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .align 64 .b8 m[128])\n{{\n\t.reg .b16 %rs<4>;\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 1024 .b8 t[1024];\n\
         \t.shared .align 8 .b64 b;\n\tmov.b64 %rd1, m;\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // "im2col mode supports the following tensor dimensions: 3d, 4d and 5d".
        (
            "im2col-2d",
            "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1}], [b], {%rs1};",
            "im2col",
        ),
        // One offset per dimension between the channels and the images.
        (
            "im2col-offsets",
            "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1, %r1}], [b], {%rs1, %rs1, %rs1};",
            "{%rs1, %rs1, %rs1}",
        ),
        // `.im2col_no_offs` is the mode of copies into the tensor.
        (
            "im2col-no-offs-load",
            "cp.async.bulk.tensor.3d.shared::cta.global.im2col_no_offs.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1}], [b];",
            "im2col_no_offs",
        ),
        // Copies into the tensor have no `.im2col` mode.
        (
            "im2col-store",
            "cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd1, {%r1, %r1, %r1}], [t];",
            "im2col",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "tensor/rejected", module, form))
    .collect()
}

pub(crate) fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = columns().into_iter().map(|(n, c)| case(n, c)).collect();
    v.extend(stores().into_iter().map(|(n, c)| store_case(n, c, None)));
    v.extend(
        reductions()
            .into_iter()
            .map(|(n, c, op)| store_case(n, c, Some(op))),
    );
    v.extend(rejections());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traversal_wraps_at_the_box_edges() {
        // W in [-1, 8] (10 - 1 - 1): ten pixels of image 0, then image 1 from W = -1.
        let c = &columns()[0].1;
        let p = c.pixel_positions();
        assert_eq!(p[0], vec![-1, 0]);
        assert_eq!(p[9], vec![8, 0]);
        assert_eq!(p[10], vec![-1, 1]);
        assert_eq!(p[20], vec![-1, 2]);
        // Every second W in [-1, 4]: 1, 3, then -1 of the next row.
        let c = &columns()[1].1;
        let p = c.pixel_positions();
        assert_eq!(
            &p[..4],
            &[vec![1, 3, 0], vec![3, 3, 0], vec![-1, 4, 0], vec![1, 4, 0]]
        );
        // H in [-1, 4]: past it, the next image from H = -1.
        assert_eq!(p[5], vec![-1, -1, 1]);
    }
}
