//! Tensor maps: `cuTensorMapEncodeTiled` and `cuTensorMapReplaceAddress` write the 128-byte
//! `CUtensorMap` that `cp.async.bulk.tensor` reads, in the layout of
//! `ptxvk_translator::tensor_map` (decision record 0107). The arguments are checked as CUDA
//! documents them. `cuTensorMapEncodeIm2col` writes the im2col maps of `.im2col` loads and
//! `cuTensorMapEncodeIm2colWide` those of the `.im2col::w` and `.im2col::w::128` loads.

use std::ffi::c_void;

use ptxvk_runtime::translator::tensor_map::{
    self as tm, Im2col, Im2colWide, TensorMapError, Tiled,
};

use super::entry;
use crate::error::{CUresult, CuError, CuResult};

fn map_error(e: TensorMapError) -> CuError {
    match e {
        TensorMapError::Invalid(what) => CuError::invalid(what),
        e @ TensorMapError::NotSupported(_) => CuError::NotSupported(e.to_string()),
    }
}

/// The caller's 128 bytes, which CUDA requires 64-byte aligned.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of 128 bytes.
unsafe fn map_bytes<'a>(p: *mut c_void) -> CuResult<&'a mut [u8; tm::SIZE]> {
    if p.is_null() || p as usize % tm::ALIGN != 0 {
        return Err(CuError::invalid(
            "a tensor map pointer that is NULL or not 64-byte aligned",
        ));
    }
    // SAFETY: non-NULL and valid for 128 bytes by the caller's contract; u8 has alignment 1.
    Ok(unsafe { &mut *p.cast::<[u8; tm::SIZE]>() })
}

/// `n` entries of a caller's array.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` values.
unsafe fn array<'a, T>(p: *const T, n: usize, what: &str) -> CuResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(CuError::invalid(format!("a NULL {what} array")));
    }
    // SAFETY: non-NULL and valid for `n` values by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The arrays every encoder takes, after checking `rank` against the encoder's ranks
/// (`what` names the map in the error): `rank` dimensions and element strides, and the
/// `rank - 1` strides of the dimensions above the first.
///
/// # Safety
/// Each pointer is NULL or valid for reads of its count of values.
unsafe fn shape<'a>(
    rank: u32,
    ranks: std::ops::RangeInclusive<u32>,
    what: &str,
    (global_dim, global_strides, element_strides): (*const u64, *const u64, *const u32),
) -> CuResult<(&'a [u64], &'a [u64], &'a [u32])> {
    if !ranks.contains(&rank) {
        return Err(CuError::invalid(format!(
            "{what} rank {rank} ({} to {})",
            ranks.start(),
            ranks.end()
        )));
    }
    let n = rank as usize;
    // SAFETY (all three): the caller's contract.
    let dims = unsafe { array(global_dim, n, "globalDim") }?;
    let strides = unsafe { array(global_strides, n - 1, "globalStrides") }?;
    let element_strides = unsafe { array(element_strides, n, "elementStrides") }?;
    Ok((dims, strides, element_strides))
}

/// Writes an encoded map to the caller's 128 bytes.
///
/// # Safety
/// As [`map_bytes`].
unsafe fn write_map(p: *mut c_void, encoded: [u8; tm::SIZE]) -> CuResult<()> {
    // SAFETY: the caller's contract.
    *unsafe { map_bytes(p) }? = encoded;
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    box_dim: *const u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    entry(
        "cuTensorMapEncodeTiled",
        format_args!(
            "{tensor_map:?}, {data_type}, {rank}, {global_address:?}, {interleave}, {swizzle}, \
             {l2_promotion}, {oob_fill}"
        ),
        || {
            let arrays = (global_dim, global_strides, element_strides);
            // SAFETY (both): CUDA's contract, `rank` entries (`rank - 1` strides).
            let (dims, strides, element_strides) =
                unsafe { shape(rank, 1..=tm::MAX_RANK as u32, "tensor", arrays) }?;
            let box_dims = unsafe { array(box_dim, rank as usize, "boxDim") }?;
            let encoded = tm::encode_tiled(&Tiled {
                data_type,
                address: global_address as u64,
                dims,
                strides,
                box_dims,
                element_strides,
                interleave,
                swizzle,
                l2_promotion,
                oob_fill,
            })
            .map_err(map_error)?;
            // SAFETY: CUDA's contract: 128 writable bytes.
            unsafe { write_map(tensor_map, encoded) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTensorMapEncodeIm2col(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    pixel_box_lower_corner: *const i32,
    pixel_box_upper_corner: *const i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    entry(
        "cuTensorMapEncodeIm2col",
        format_args!(
            "{tensor_map:?}, {data_type}, {rank}, {global_address:?}, {channels_per_pixel}, \
             {pixels_per_column}, {interleave}, {swizzle}, {l2_promotion}, {oob_fill}"
        ),
        || {
            let arrays = (global_dim, global_strides, element_strides);
            // SAFETY (all three): CUDA's contract, `rank` entries (`rank - 1` strides,
            // `rank - 2` corners).
            let (dims, strides, element_strides) =
                unsafe { shape(rank, 3..=tm::MAX_RANK as u32, "im2col tensor", arrays) }?;
            let n = rank as usize;
            let lower_corner =
                unsafe { array(pixel_box_lower_corner, n - 2, "pixelBoxLowerCorner") }?;
            let upper_corner =
                unsafe { array(pixel_box_upper_corner, n - 2, "pixelBoxUpperCorner") }?;
            let encoded = tm::encode_im2col(&Im2col {
                data_type,
                address: global_address as u64,
                dims,
                strides,
                lower_corner,
                upper_corner,
                channels_per_pixel,
                pixels_per_column,
                element_strides,
                interleave,
                swizzle,
                l2_promotion,
                oob_fill,
            })
            .map_err(map_error)?;
            // SAFETY: CUDA's contract: 128 writable bytes.
            unsafe { write_map(tensor_map, encoded) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTensorMapEncodeIm2colWide(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    pixel_box_lower_corner_width: i32,
    pixel_box_upper_corner_width: i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    element_strides: *const u32,
    interleave: u32,
    mode: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    entry(
        "cuTensorMapEncodeIm2colWide",
        format_args!(
            "{tensor_map:?}, {data_type}, {rank}, {global_address:?}, \
             {pixel_box_lower_corner_width}, {pixel_box_upper_corner_width}, \
             {channels_per_pixel}, {pixels_per_column}, {interleave}, {mode}, {swizzle}, \
             {l2_promotion}, {oob_fill}"
        ),
        || {
            let arrays = (global_dim, global_strides, element_strides);
            // SAFETY: CUDA's contract, `rank` entries (`rank - 1` strides).
            let (dims, strides, element_strides) =
                unsafe { shape(rank, 3..=tm::MAX_RANK as u32, "im2col tensor", arrays) }?;
            let encoded = tm::encode_im2col_wide(&Im2colWide {
                data_type,
                address: global_address as u64,
                dims,
                strides,
                lower_corner_w: pixel_box_lower_corner_width,
                upper_corner_w: pixel_box_upper_corner_width,
                channels_per_pixel,
                pixels_per_column,
                element_strides,
                interleave,
                mode,
                swizzle,
                l2_promotion,
                oob_fill,
            })
            .map_err(map_error)?;
            // SAFETY: CUDA's contract: 128 writable bytes.
            unsafe { write_map(tensor_map, encoded) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuTensorMapReplaceAddress(
    tensor_map: *mut c_void,
    global_address: *mut c_void,
) -> CUresult {
    entry(
        "cuTensorMapReplaceAddress",
        format_args!("{tensor_map:?}, {global_address:?}"),
        || {
            // SAFETY: CUDA's contract: the map the caller encoded.
            let m = unsafe { map_bytes(tensor_map) }?;
            tm::replace_address(m, global_address as u64).map_err(map_error)
        },
    )
}
