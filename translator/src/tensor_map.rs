//! Tensor maps (`CUtensorMap`): the 128 bytes that `cuTensorMapEncodeTiled` writes and
//! `cp.async.bulk.tensor` reads. NVIDIA keeps the format private; ptxvk writes and reads both
//! sides, so the layout is its own (decision record 0107). Little-endian:
//!
//! | bytes   | field                                                                  |
//! |---------|------------------------------------------------------------------------|
//! | 0..8    | global address                                                         |
//! | 8..48   | `globalDim[0..5]`, u64 each (unused ranks 1)                           |
//! | 48..80  | `globalStrides[0..4]` in bytes, u64 each: the stride of dimension i+1   |
//! | 80..100 | `boxDim[0..5]`, u32 each (unused ranks 1)                              |
//! | 100..120| `elementStrides[0..5]`, u32 each (unused ranks 1)                      |
//! | 120     | rank, element size in bytes, data type, interleave (one byte each)     |
//! | 124     | swizzle, OOB fill, L2 promotion \| kind << 4, [`MAGIC`] (one byte each) |
//!
//! Every field is a whole word or pair of words, so the device reads it with 32-bit loads.
//! The swizzle byte holds the span and the atom size apart ([`swizzle_byte`]).
//!
//! An im2col map (`cuTensorMapEncodeIm2col`, kind [`KIND_IM2COL`]) has no box dimensions; its
//! bytes 80..100 hold instead:
//!
//! | bytes   | field                                                                  |
//! |---------|------------------------------------------------------------------------|
//! | 80      | `channelsPerPixel`, u32                                                |
//! | 84      | `pixelsPerColumn`, u32                                                 |
//! | 88..100 | `pixelBoxLowerCorner[0..3]`, then `pixelBoxUpperCorner[0..3]`, i16 each |
//!
//! Corner `i` belongs to dimension `i + 1` (W, then H, then D); CUDA's ranges for them all fit
//! 16 bits.
//!
//! A wide im2col map (`cuTensorMapEncodeIm2colWide`, decision record 0208) is laid out as an
//! im2col one whose only corners are W's (H's and D's hold 0); its kind, [`KIND_IM2COL_WIDE`]
//! plus the `CUtensorMapIm2ColWideMode` (0: W, 1: W128), records the mode.

use thiserror::Error;

pub const SIZE: usize = 128;
pub const ALIGN: usize = 64;
pub const MAX_RANK: usize = 5;
/// Byte offsets of the fields.
pub const ADDRESS: u32 = 0;
pub const DIMS: u32 = 8;
pub const STRIDES: u32 = 48;
pub const BOX: u32 = 80;
pub const ELEMENT_STRIDES: u32 = 100;
/// rank | element size << 8 | data type << 16 | interleave << 24.
pub const SHAPE_WORD: u32 = 120;
/// swizzle | oob fill << 8 | l2 promotion << 16 | MAGIC << 24.
pub const MODE_WORD: u32 = 124;
/// Marks a map ptxvk encoded; the device does not rely on it (a map is the host's to get right).
pub const MAGIC: u8 = 0x7a;
/// Kinds, in the high nibble of the L2 promotion byte: the instruction's load mode decides how
/// a map is read, so the device does not read the kind either.
pub const KIND_TILED: u8 = 0;
pub const KIND_IM2COL: u8 = 1;
pub const KIND_IM2COL_WIDE: u8 = 2;
/// Byte offsets of an im2col map's fields.
pub const CHANNELS_PER_PIXEL: u32 = 80;
pub const PIXELS_PER_COLUMN: u32 = 84;
/// `pixelBoxLowerCorner[i]` at `CORNERS + 2 * i`, `pixelBoxUpperCorner[i]` at
/// `CORNERS + 6 + 2 * i`.
pub const CORNERS: u32 = 88;

/// `CUtensorMapDataType` values and their element sizes in bytes (cuda.h order). The packed
/// 4- and 6-bit types of later CUDA versions are not here.
const DATA_TYPE_BYTES: [u8; 13] = [1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4];
/// FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ: where a NaN fill
/// is allowed.
const FLOAT_TYPES: [u32; 7] = [6, 7, 8, 9, 10, 11, 12];

/// `CUtensorMapSwizzle` values past the 16-byte-atom ones: the 128-byte span with 32-byte
/// atoms, the same with every other row's 8-byte halves swapped, and with 64-byte atoms.
pub const SWIZZLE_128B_ATOM_32B: u32 = 4;
pub const SWIZZLE_128B_ATOM_32B_FLIP_8B: u32 = 5;
pub const SWIZZLE_128B_ATOM_64B: u32 = 6;

// The ranges of a map's fields are CUDA's (`cuTensorMapEncodeTiled`; the ISA's "Tensor-map"
// section defers to it): the encoders refuse values outside them, and so does
// `tensormap.replace` with a constant.

/// `globalAddress`: 16-byte aligned.
pub fn valid_address(a: u64) -> bool {
    a % 16 == 0
}

/// `globalDim[i]`: 1 to 2^32.
pub fn valid_dim(d: u64) -> bool {
    (1..=1 << 32).contains(&d)
}

/// `globalStrides[i]`: a multiple of 16 below 2^40.
pub fn valid_stride(s: u64) -> bool {
    s % 16 == 0 && s < 1 << 40
}

/// `boxDim[i]`: 1 to 256.
pub fn valid_box_dim(b: u64) -> bool {
    (1..=256).contains(&b)
}

/// `elementStrides[i]`: 1 to 8.
pub fn valid_element_stride(e: u64) -> bool {
    (1..=8).contains(&e)
}

/// `CUtensorMapSwizzle`: the span in bytes inside which chunks are permuted.
pub fn swizzle_span(swizzle: u32) -> Option<u32> {
    match swizzle {
        0 => Some(0),
        1 => Some(32),
        2 => Some(64),
        3..=6 => Some(128),
        _ => None,
    }
}

/// The map's swizzle byte for a `CUtensorMapSwizzle` value (0-6): the span as the ISA's
/// `.swizzle_mode` numbers it (0 none, 1 32B, 2 64B, 3 128B) in the low nibble, the atom as
/// its `.swizzle_atomicity` does (0 16B, 1 32B, 2 32B with the 8-byte flip, 3 64B) in the
/// high one, so `tensormap.replace` can write either field.
pub fn swizzle_byte(swizzle: u32) -> u8 {
    match swizzle {
        SWIZZLE_128B_ATOM_32B => 3 | 1 << 4,
        SWIZZLE_128B_ATOM_32B_FLIP_8B => 3 | 2 << 4,
        SWIZZLE_128B_ATOM_64B => 3 | 3 << 4,
        s => s as u8,
    }
}

/// How a map's swizzle byte moves a box byte: the mask of the 128-byte row number's bits that
/// are XORed into the atom number, and log2 of the atom size (where the atom number starts).
/// A span of 2^k atoms takes k bits of the row; atoms as wide as the span leave bytes in place.
pub fn swizzle_bits(byte: u8) -> (u32, u32) {
    let (mode, atom) = (u32::from(byte & 0xf), u32::from(byte >> 4));
    // 16, 32, 32 (flipped), 64 bytes: atoms of 2^(4 + log) bytes.
    let log = (atom + 1) >> 1;
    ((1 << mode.saturating_sub(log)) - 1, 4 + log)
}

/// The shared-memory byte offset where byte `off` of a box lands under the map's swizzle byte
/// `byte`: the atom number of the offset within its 128-byte row is XORed with the row's low
/// bits, so each 16-byte chunk of a row moves within its 32/64/128-byte span, the pattern
/// repeating every 256/512/1024 bytes (ISA "Tensor Swizzling Modes"), and each 32- or 64-byte
/// atom within its 128-byte row, repeating every 512 or 256 bytes. The device code does the
/// same arithmetic. The 8-byte flip is not applied (its maps are not encoded).
pub fn swizzled(off: u32, byte: u8) -> u32 {
    let (mask, shift) = swizzle_bits(byte);
    off ^ (((off >> 7) & mask) << shift)
}

/// The arguments of `cuTensorMapEncodeTiled`, as slices of `rank` entries (`strides`:
/// `rank - 1`).
#[derive(Clone, Debug)]
pub struct Tiled<'a> {
    pub data_type: u32,
    pub address: u64,
    pub dims: &'a [u64],
    pub strides: &'a [u64],
    pub box_dims: &'a [u32],
    pub element_strides: &'a [u32],
    pub interleave: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

/// The arguments of `cuTensorMapEncodeIm2col`: `rank` entries (`strides`: `rank - 1`,
/// corners: `rank - 2`).
#[derive(Clone, Debug)]
pub struct Im2col<'a> {
    pub data_type: u32,
    pub address: u64,
    pub dims: &'a [u64],
    pub strides: &'a [u64],
    pub lower_corner: &'a [i32],
    pub upper_corner: &'a [i32],
    pub channels_per_pixel: u32,
    pub pixels_per_column: u32,
    pub element_strides: &'a [u32],
    pub interleave: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

/// The arguments of `cuTensorMapEncodeIm2colWide`: `rank` entries (`strides`: `rank - 1`).
#[derive(Clone, Debug)]
pub struct Im2colWide<'a> {
    pub data_type: u32,
    pub address: u64,
    pub dims: &'a [u64],
    pub strides: &'a [u64],
    pub lower_corner_w: i32,
    pub upper_corner_w: i32,
    pub channels_per_pixel: u32,
    pub pixels_per_column: u32,
    pub element_strides: &'a [u32],
    pub interleave: u32,
    /// `CUtensorMapIm2ColWideMode`: 0 (W), 1 (W128).
    pub mode: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum TensorMapError {
    /// CUDA_ERROR_INVALID_VALUE: an argument breaks a rule of `cuTensorMapEncodeTiled`.
    #[error("invalid tensor map: {0}")]
    Invalid(String),
    /// CUDA_ERROR_NOT_SUPPORTED: valid for CUDA, not implemented by ptxvk.
    #[error("{0} is not supported by ptxvk yet")]
    NotSupported(&'static str),
}

fn invalid(what: impl Into<String>) -> TensorMapError {
    TensorMapError::Invalid(what.into())
}

/// The element size of a data type.
pub fn element_bytes(data_type: u32) -> Option<u32> {
    DATA_TYPE_BYTES
        .get(data_type as usize)
        .map(|b| u32::from(*b))
}

/// Checks `t` against the requirements `cuTensorMapEncodeTiled` documents and encodes it.
pub fn encode_tiled(t: &Tiled<'_>) -> Result<[u8; SIZE], TensorMapError> {
    let rank = t.dims.len();
    let esize = element_bytes(t.data_type).ok_or_else(|| {
        if (13..=15).contains(&t.data_type) {
            TensorMapError::NotSupported("a packed 4- or 6-bit tensor map data type")
        } else {
            invalid(format!("data type {}", t.data_type))
        }
    })?;
    if !(1..=MAX_RANK).contains(&rank) {
        return Err(invalid(format!("rank {rank} (1 to 5)")));
    }
    if t.strides.len() + 1 != rank || t.box_dims.len() != rank || t.element_strides.len() != rank {
        return Err(invalid("argument arrays of different ranks"));
    }
    match t.interleave {
        0 => {}
        1 | 2 => return Err(TensorMapError::NotSupported("an interleaved tensor map")),
        n => return Err(invalid(format!("interleave {n}"))),
    }
    let span = swizzle_span(t.swizzle).ok_or_else(|| invalid(format!("swizzle {}", t.swizzle)))?;
    if t.swizzle == SWIZZLE_128B_ATOM_32B_FLIP_8B {
        return Err(TensorMapError::NotSupported(
            "the 128-byte swizzle with 32-byte atoms and the 8-byte flip",
        ));
    }
    if t.l2_promotion > 3 {
        return Err(invalid(format!("L2 promotion {}", t.l2_promotion)));
    }
    match t.oob_fill {
        0 => {}
        1 if FLOAT_TYPES.contains(&t.data_type) => {}
        1 => return Err(invalid("a NaN out-of-bounds fill for an integer data type")),
        n => return Err(invalid(format!("OOB fill {n}"))),
    }
    if !valid_address(t.address) {
        return Err(invalid("a global address that is not 16-byte aligned"));
    }
    for (i, d) in t.dims.iter().enumerate() {
        if !valid_dim(*d) {
            return Err(invalid(format!("globalDim[{i}] = {d} (1 to 2^32)")));
        }
    }
    for (i, s) in t.strides.iter().enumerate() {
        if !valid_stride(*s) {
            return Err(invalid(format!(
                "globalStrides[{i}] = {s} (a multiple of 16 below 2^40)"
            )));
        }
    }
    for (i, b) in t.box_dims.iter().enumerate() {
        if !valid_box_dim(u64::from(*b)) {
            return Err(invalid(format!("boxDim[{i}] = {b} (1 to 256)")));
        }
    }
    let inner = t.box_dims[0] * esize;
    if inner % 16 != 0 {
        return Err(invalid(format!(
            "boxDim[0] of {inner} bytes (a multiple of 16 without interleave)"
        )));
    }
    if span != 0 && inner > span {
        return Err(invalid(format!(
            "boxDim[0] of {inner} bytes under a {span}-byte swizzle"
        )));
    }
    for (i, e) in t.element_strides.iter().enumerate() {
        if !valid_element_stride(u64::from(*e)) {
            return Err(invalid(format!("elementStrides[{i}] = {e} (1 to 8)")));
        }
    }
    let mut m = [0u8; SIZE];
    let put = |m: &mut [u8; SIZE], at: u32, bytes: &[u8]| {
        m[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
    };
    put(&mut m, ADDRESS, &t.address.to_le_bytes());
    for i in 0..MAX_RANK {
        let d = t.dims.get(i).copied().unwrap_or(1);
        put(&mut m, DIMS + 8 * i as u32, &d.to_le_bytes());
        let b = t.box_dims.get(i).copied().unwrap_or(1);
        put(&mut m, BOX + 4 * i as u32, &b.to_le_bytes());
        // Without interleave the first element stride is ignored (dimension 0 is contiguous).
        let e = if i == 0 {
            1
        } else {
            t.element_strides.get(i).copied().unwrap_or(1)
        };
        put(&mut m, ELEMENT_STRIDES + 4 * i as u32, &e.to_le_bytes());
    }
    for (i, s) in t.strides.iter().enumerate() {
        put(&mut m, STRIDES + 8 * i as u32, &s.to_le_bytes());
    }
    put(
        &mut m,
        SHAPE_WORD,
        &[
            rank as u8,
            esize as u8,
            t.data_type as u8,
            t.interleave as u8,
        ],
    );
    put(
        &mut m,
        MODE_WORD,
        &[
            swizzle_byte(t.swizzle),
            t.oob_fill as u8,
            t.l2_promotion as u8,
            MAGIC,
        ],
    );
    Ok(m)
}

/// Checks `t` against the requirements `cuTensorMapEncodeIm2col` documents and encodes it:
/// the tiled map of the same tensor with a `channelsPerPixel` x `pixelsPerColumn` box, whose
/// box fields then give way to the im2col ones.
pub fn encode_im2col(t: &Im2col<'_>) -> Result<[u8; SIZE], TensorMapError> {
    let rank = t.dims.len();
    if !(3..=MAX_RANK).contains(&rank) {
        return Err(invalid(format!("im2col rank {rank} (3 to 5)")));
    }
    // CUDA: the corners lie in [-2^15, 2^15 - 1] (rank 3), [-2^7, 2^7 - 1] (rank 4) or
    // [-2^4, 2^4 - 1] (rank 5).
    im2col_with_corners(t, [16, 8, 5][rank - 3])
}

/// [`encode_im2col`] with corners of `bits` signed bits.
fn im2col_with_corners(t: &Im2col<'_>, bits: u32) -> Result<[u8; SIZE], TensorMapError> {
    let rank = t.dims.len();
    if t.lower_corner.len() + 2 != rank || t.upper_corner.len() + 2 != rank {
        return Err(invalid("pixel box corners of another rank"));
    }
    let range = -(1i32 << (bits - 1))..(1i32 << (bits - 1));
    for c in t.lower_corner.iter().chain(t.upper_corner) {
        if !range.contains(c) {
            return Err(invalid(format!(
                "a pixel box corner of {c} (this map's lie in {}..={})",
                range.start,
                range.end - 1
            )));
        }
    }
    // "The bounding box ... must have non-zero area": in W, H and D it holds
    // globalDim + upper - lower pixels.
    for (i, (lo, hi)) in t.lower_corner.iter().zip(t.upper_corner).enumerate() {
        let extent = t.dims.get(i + 1).map_or(0, |&d| d as i64) + i64::from(*hi) - i64::from(*lo);
        if extent <= 0 {
            return Err(invalid(format!(
                "a bounding box of no pixels in dimension {} (corners {lo} and {hi})",
                i + 1
            )));
        }
    }
    if !(1..=256).contains(&t.channels_per_pixel) {
        return Err(invalid(format!(
            "channelsPerPixel = {} (1 to 256)",
            t.channels_per_pixel
        )));
    }
    if !(1..=1024).contains(&t.pixels_per_column) {
        return Err(invalid(format!(
            "pixelsPerColumn = {} (1 to 1024)",
            t.pixels_per_column
        )));
    }
    // The box rules of a tiled map hold for the pixels' rows; a column of up to 1024 pixels
    // stands in as 1s (the rows are what the box limits constrain).
    let mut box_dims = vec![1u32; rank];
    box_dims[0] = t.channels_per_pixel;
    let mut m = encode_tiled(&Tiled {
        data_type: t.data_type,
        address: t.address,
        dims: t.dims,
        strides: t.strides,
        box_dims: &box_dims,
        element_strides: t.element_strides,
        interleave: t.interleave,
        swizzle: t.swizzle,
        l2_promotion: t.l2_promotion,
        oob_fill: t.oob_fill,
    })?;
    m[BOX as usize..ELEMENT_STRIDES as usize].fill(0);
    let put = |m: &mut [u8; SIZE], at: u32, bytes: &[u8]| {
        m[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
    };
    put(
        &mut m,
        CHANNELS_PER_PIXEL,
        &t.channels_per_pixel.to_le_bytes(),
    );
    put(
        &mut m,
        PIXELS_PER_COLUMN,
        &t.pixels_per_column.to_le_bytes(),
    );
    for (i, (lo, hi)) in t.lower_corner.iter().zip(t.upper_corner).enumerate() {
        // In range above, so the narrowing keeps the value.
        put(&mut m, CORNERS + 2 * i as u32, &(*lo as i16).to_le_bytes());
        put(
            &mut m,
            CORNERS + 6 + 2 * i as u32,
            &(*hi as i16).to_le_bytes(),
        );
    }
    m[MODE_WORD as usize + 2] |= KIND_IM2COL << 4;
    Ok(m)
}

/// Checks `t` against the requirements `cuTensorMapEncodeIm2colWide` documents and encodes it:
/// the im2col map of the same tensor with W's corners only. The ISA's `.im2col::w` modes
/// take no interleaved layout and need a swizzle: CUDA allows them the 64- and 128-byte ones
/// and the 128-byte one with 32-byte atoms.
pub fn encode_im2col_wide(t: &Im2colWide<'_>) -> Result<[u8; SIZE], TensorMapError> {
    let rank = t.dims.len();
    if !(3..=MAX_RANK).contains(&rank) {
        return Err(invalid(format!("im2col rank {rank} (3 to 5)")));
    }
    if t.mode > 1 {
        return Err(invalid(format!("im2col wide mode {}", t.mode)));
    }
    match t.swizzle {
        2 | 3 | SWIZZLE_128B_ATOM_32B => {}
        n => {
            return Err(invalid(format!(
                "swizzle {n} for a wide im2col map (64B, 128B or 128B with 32-byte atoms)"
            )));
        }
    }
    if t.interleave != 0 {
        return Err(invalid(
            "an interleaved wide im2col map (the `.im2col::w` modes have no interleave)",
        ));
    }
    // CUDA: pixelsPerColumn is ignored in the W128 mode, which always loads 128 pixels.
    let pixels = if t.mode == 1 { 1 } else { t.pixels_per_column };
    let mut lower = vec![0; rank - 2];
    let mut upper = vec![0; rank - 2];
    (lower[0], upper[0]) = (t.lower_corner_w, t.upper_corner_w);
    // CUDA: the W corners lie in [-2^15, 2^15 - 1] whatever the rank.
    let mut m = im2col_with_corners(
        &Im2col {
            data_type: t.data_type,
            address: t.address,
            dims: t.dims,
            strides: t.strides,
            lower_corner: &lower,
            upper_corner: &upper,
            channels_per_pixel: t.channels_per_pixel,
            pixels_per_column: pixels,
            element_strides: t.element_strides,
            interleave: 0,
            swizzle: t.swizzle,
            l2_promotion: t.l2_promotion,
            oob_fill: t.oob_fill,
        },
        16,
    )?;
    m[PIXELS_PER_COLUMN as usize..PIXELS_PER_COLUMN as usize + 4]
        .copy_from_slice(&t.pixels_per_column.to_le_bytes());
    let promotion = &mut m[MODE_WORD as usize + 2];
    *promotion = (*promotion & 0xf) | (KIND_IM2COL_WIDE + t.mode as u8) << 4;
    Ok(m)
}

/// Replaces the global address of an encoded map (`cuTensorMapReplaceAddress`).
pub fn replace_address(m: &mut [u8; SIZE], address: u64) -> Result<(), TensorMapError> {
    if m[MODE_WORD as usize + 3] != MAGIC {
        return Err(invalid("a tensor map ptxvk did not encode"));
    }
    if !valid_address(address) {
        return Err(invalid("a global address that is not 16-byte aligned"));
    }
    m[..8].copy_from_slice(&address.to_le_bytes());
    Ok(())
}

#[cfg(test)]
mod tests;
