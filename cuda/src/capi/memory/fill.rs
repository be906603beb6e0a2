//! Fills: `cuMemsetD8/16/32` and their 2D and asynchronous forms.

use super::route::stream_of;
use crate::capi::{CUdeviceptr, Handle, entry};
use crate::copy;
use crate::error::CUresult;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult {
    entry(
        "cuMemsetD8_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &[v], n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) -> CUresult {
    entry(
        "cuMemsetD16_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &v.to_le_bytes(), n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) -> CUresult {
    entry(
        "cuMemsetD32_v2",
        format_args!("dst={:#x?} v={:#x?} n={:#x?}", dst, v, n),
        || copy::memset(dst, &v.to_le_bytes(), n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, s: Handle) -> CUresult {
    entry(
        "cuMemsetD8Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &[v], n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD16Async(
    dst: CUdeviceptr,
    v: u16,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD16Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &v.to_le_bytes(), n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: CUdeviceptr,
    v: u32,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD32Async",
        format_args!("dst={:#x?} v={:#x?} n={:#x?} s={:#x?}", dst, v, n, s),
        || copy::memset(dst, &v.to_le_bytes(), n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D8_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u8,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D8_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &[v], (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D16_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u16,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D16_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D32_v2(
    dst: CUdeviceptr,
    pitch: usize,
    v: u32,
    w: usize,
    h: usize,
) -> CUresult {
    entry(
        "cuMemsetD2D32_v2",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D8Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u8,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D8Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &[v], (w, h), stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D16Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u16,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D16Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemsetD2D32Async(
    dst: CUdeviceptr,
    pitch: usize,
    v: u32,
    w: usize,
    h: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemsetD2D32Async",
        format_args!("dst={dst:#x} pitch={pitch} v={v:#x} w={w} h={h} s={s:#x?}"),
        || copy::memset_2d(dst, pitch, &v.to_le_bytes(), (w, h), stream_of(s)),
    )
}

// The per-thread default stream forms of the fills, as for the copies (`memory.rs`).
alias!(cuMemsetD8_v2_ptds => cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize));
alias!(cuMemsetD16_v2_ptds => cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize));
alias!(cuMemsetD32_v2_ptds => cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize));
alias!(cuMemsetD8Async_ptsz => cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD16Async_ptsz => cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD32Async_ptsz => cuMemsetD32Async(dst: CUdeviceptr, v: u32, n: usize, s: Handle), per_thread s);
alias!(cuMemsetD2D8_v2_ptds => cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize));
alias!(cuMemsetD2D16_v2_ptds => cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize));
alias!(cuMemsetD2D32_v2_ptds => cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize));
alias!(cuMemsetD2D8Async_ptsz => cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, s: Handle), per_thread s);
alias!(cuMemsetD2D16Async_ptsz => cuMemsetD2D16Async(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize, s: Handle), per_thread s);
alias!(cuMemsetD2D32Async_ptsz => cuMemsetD2D32Async(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize, s: Handle), per_thread s);
