use super::*;

fn args<'a>(dims: &'a [u64], strides: &'a [u64], boxes: &'a [u32], es: &'a [u32]) -> Tiled<'a> {
    Tiled {
        data_type: 7,
        address: 0x1000,
        dims,
        strides,
        box_dims: boxes,
        element_strides: es,
        interleave: 0,
        swizzle: 0,
        l2_promotion: 0,
        oob_fill: 0,
    }
}

#[test]
fn fields_land_where_the_layout_says() {
    let t = args(&[100, 7], &[400], &[8, 4], &[3, 2]);
    let m = encode_tiled(&t).unwrap();
    let u64_at = |o: u32| u64::from_le_bytes(m[o as usize..o as usize + 8].try_into().unwrap());
    let u32_at = |o: u32| u32::from_le_bytes(m[o as usize..o as usize + 4].try_into().unwrap());
    assert_eq!(u64_at(ADDRESS), 0x1000);
    assert_eq!(
        (u64_at(DIMS), u64_at(DIMS + 8), u64_at(DIMS + 16)),
        (100, 7, 1)
    );
    assert_eq!(u64_at(STRIDES), 400);
    assert_eq!((u32_at(BOX), u32_at(BOX + 4)), (8, 4));
    // The first element stride is ignored without interleave.
    assert_eq!(
        (u32_at(ELEMENT_STRIDES), u32_at(ELEMENT_STRIDES + 4)),
        (1, 2)
    );
    assert_eq!(
        m[SHAPE_WORD as usize..SHAPE_WORD as usize + 4],
        [2, 4, 7, 0]
    );
    assert_eq!(m[MODE_WORD as usize + 3], MAGIC);
}

#[test]
fn misuse_is_invalid() {
    let bad = |t: Tiled<'_>| matches!(encode_tiled(&t), Err(TensorMapError::Invalid(_)));
    assert!(
        bad(args(&[100, 7], &[40], &[8, 4], &[1, 1])),
        "stride not 16-aligned"
    );
    assert!(
        bad(args(&[100, 7], &[400], &[6, 4], &[1, 1])),
        "24-byte box row"
    );
    assert!(
        bad(args(&[100, 7], &[400], &[8, 257], &[1, 1])),
        "box over 256"
    );
    assert!(
        bad(args(&[100, 7], &[400], &[8, 4], &[1, 9])),
        "element stride 9"
    );
    assert!(
        bad(args(&[0, 7], &[400], &[8, 4], &[1, 1])),
        "empty dimension"
    );
    assert!(bad(args(&[], &[], &[], &[])), "rank 0");
    let mut t = args(&[100, 7], &[400], &[8, 4], &[1, 1]);
    t.address = 8;
    assert!(bad(t.clone()), "misaligned address");
    t.address = 0;
    t.data_type = 0;
    t.oob_fill = 1;
    assert!(bad(t.clone()), "NaN fill of u8");
    t.data_type = 7;
    t.swizzle = 1;
    t.box_dims = &[16, 4];
    assert!(bad(t.clone()), "64-byte rows under a 32-byte swizzle");
    t.swizzle = 7;
    assert!(bad(t.clone()), "swizzle 7");
    t.swizzle = 4;
    t.box_dims = &[32, 4];
    assert!(
        encode_tiled(&t).is_ok(),
        "128-byte rows under the 32-byte atoms"
    );
    t.box_dims = &[64, 4];
    assert!(bad(t.clone()), "256-byte rows under the 32-byte atoms");
    t.box_dims = &[32, 4];
    t.swizzle = 5;
    assert_eq!(
        encode_tiled(&t),
        Err(TensorMapError::NotSupported(
            "the 128-byte swizzle with 32-byte atoms and the 8-byte flip"
        ))
    );
}

#[test]
fn im2col_fields_replace_the_box() {
    let t = Im2col {
        data_type: 1,
        address: 0x2000,
        dims: &[8, 5, 4, 2],
        strides: &[16, 80, 320],
        lower_corner: &[-1, -2],
        upper_corner: &[1, -3],
        channels_per_pixel: 8,
        pixels_per_column: 300,
        element_strides: &[1, 2, 1, 1],
        interleave: 0,
        swizzle: 0,
        l2_promotion: 2,
        oob_fill: 0,
    };
    let m = encode_im2col(&t).unwrap();
    let u32_at = |o: u32| u32::from_le_bytes(m[o as usize..o as usize + 4].try_into().unwrap());
    let i16_at = |o: u32| i16::from_le_bytes(m[o as usize..o as usize + 2].try_into().unwrap());
    assert_eq!(
        (u32_at(CHANNELS_PER_PIXEL), u32_at(PIXELS_PER_COLUMN)),
        (8, 300)
    );
    assert_eq!((i16_at(CORNERS), i16_at(CORNERS + 2)), (-1, -2));
    assert_eq!((i16_at(CORNERS + 6), i16_at(CORNERS + 8)), (1, -3));
    assert_eq!(u32_at(ELEMENT_STRIDES + 4), 2);
    assert_eq!(m[MODE_WORD as usize + 2], 2 | KIND_IM2COL << 4);
    let bad = |t: Im2col<'_>| matches!(encode_im2col(&t), Err(TensorMapError::Invalid(_)));
    assert!(
        bad(Im2col {
            lower_corner: &[-200, 0],
            ..t.clone()
        }),
        "4-d corner range"
    );
    assert!(
        bad(Im2col {
            channels_per_pixel: 4,
            ..t.clone()
        }),
        "4-byte pixel rows"
    );
    assert!(
        bad(Im2col {
            pixels_per_column: 1025,
            ..t.clone()
        }),
        "column of 1025"
    );
    assert!(
        bad(Im2col {
            dims: &[8, 5],
            strides: &[16],
            lower_corner: &[],
            upper_corner: &[],
            element_strides: &[1, 1],
            ..t
        }),
        "rank 2"
    );
}

#[test]
fn wide_maps_keep_w_corners_and_their_mode() {
    let t = Im2colWide {
        data_type: 6,
        address: 0x4000,
        dims: &[32, 300, 5, 2],
        strides: &[64, 19200, 96000],
        lower_corner_w: -300,
        upper_corner_w: 2,
        channels_per_pixel: 32,
        pixels_per_column: 200,
        element_strides: &[1, 2, 1, 1],
        interleave: 0,
        mode: 0,
        swizzle: 2,
        l2_promotion: 1,
        oob_fill: 0,
    };
    let m = encode_im2col_wide(&t).unwrap();
    let u32_at = |o: u32| u32::from_le_bytes(m[o as usize..o as usize + 4].try_into().unwrap());
    let i16_at = |o: u32| i16::from_le_bytes(m[o as usize..o as usize + 2].try_into().unwrap());
    assert_eq!(
        (u32_at(CHANNELS_PER_PIXEL), u32_at(PIXELS_PER_COLUMN)),
        (32, 200)
    );
    // A 4-d map's W corner takes the 16-bit range.
    assert_eq!((i16_at(CORNERS), i16_at(CORNERS + 6)), (-300, 2));
    assert_eq!((i16_at(CORNERS + 2), i16_at(CORNERS + 8)), (0, 0));
    assert_eq!(m[MODE_WORD as usize + 2], 1 | KIND_IM2COL_WIDE << 4);
    let w128 = encode_im2col_wide(&Im2colWide {
        mode: 1,
        pixels_per_column: 5000,
        ..t.clone()
    })
    .unwrap();
    assert_eq!(
        w128[MODE_WORD as usize + 2],
        1 | (KIND_IM2COL_WIDE + 1) << 4
    );
    let bad = |t: Im2colWide<'_>| matches!(encode_im2col_wide(&t), Err(TensorMapError::Invalid(_)));
    assert!(
        bad(Im2colWide {
            swizzle: 0,
            ..t.clone()
        }),
        "no swizzle"
    );
    assert!(
        bad(Im2colWide {
            swizzle: 1,
            ..t.clone()
        }),
        "32-byte swizzle"
    );
    assert!(
        bad(Im2colWide {
            mode: 2,
            ..t.clone()
        }),
        "mode 2"
    );
    assert!(
        bad(Im2colWide {
            interleave: 1,
            ..t.clone()
        }),
        "interleave"
    );
    assert!(
        bad(Im2colWide {
            pixels_per_column: 1025,
            ..t.clone()
        }),
        "W mode's column of 1025"
    );
    assert!(
        bad(Im2colWide {
            lower_corner_w: -32769,
            ..t.clone()
        }),
        "corner range"
    );
    assert!(
        bad(Im2colWide {
            lower_corner_w: 10,
            upper_corner_w: -290,
            ..t.clone()
        }),
        "no pixels in W"
    );
    assert!(
        bad(Im2colWide {
            channels_per_pixel: 64,
            ..t.clone()
        }),
        "128-byte rows under the 64-byte swizzle"
    );
    assert!(
        encode_im2col_wide(&Im2colWide {
            swizzle: 4,
            ..t.clone()
        })
        .is_ok()
    );
    assert!(bad(Im2colWide { swizzle: 6, ..t }), "64-byte atoms");
}

#[test]
fn swizzle_moves_chunks_within_their_span() {
    // 128B: row r of 128 bytes has its chunk c at chunk c ^ (r % 8).
    for off in (0..2048).step_by(16) {
        let (r, c) = (off / 128, (off % 128) / 16);
        assert_eq!(swizzled(off, 3), r * 128 + ((c ^ (r % 8)) * 16));
        assert_eq!(swizzled(off, 1), r * 128 + ((c ^ ((r % 2) & 1)) * 16));
        assert_eq!(swizzled(off, 0), off);
    }
}

#[test]
fn wide_atoms_move_within_the_128_byte_row() {
    // "Swizzle 32B chunks within 128B span": atom a of row r at a ^ (r % 4); 64-byte atoms
    // at a ^ (r % 2).
    let atom32 = swizzle_byte(SWIZZLE_128B_ATOM_32B);
    let atom64 = swizzle_byte(SWIZZLE_128B_ATOM_64B);
    for off in 0..2048 {
        let (r, b) = (off / 128, off % 128);
        let (a, inner) = (b / 32, b % 32);
        assert_eq!(swizzled(off, atom32), r * 128 + (a ^ (r % 4)) * 32 + inner);
        let (a, inner) = (b / 64, b % 64);
        assert_eq!(swizzled(off, atom64), r * 128 + (a ^ (r % 2)) * 64 + inner);
    }
    // Atoms as wide as the span stay where they are; the ISA's fields combine freely.
    assert_eq!(swizzle_bits(2 | 3 << 4), (0, 6));
    assert_eq!(swizzle_bits(1 | 3 << 4), (0, 6));
    assert_eq!(swizzle_bits(0), (0, 4));
}
