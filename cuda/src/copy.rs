//! Copies and fills between device pointers and host memory. `None` for the stream is the
//! synchronous form (complete on return, after all earlier work in the context); `Some` is the
//! `*Async` form on that stream handle. Device-side synchronous work goes on the legacy
//! default stream, so that it is ordered after the blocking streams' work as in CUDA.

use std::sync::Arc;

use crate::context::{self, Ctx};
use crate::error::{CuError, CuResult};
use crate::memory;
use crate::stream::Issue;

/// The context a copy runs in, and the stream of an `Async` copy (kept until the copy is
/// issued: see [`Issue`]).
fn target(stream: Option<usize>) -> CuResult<(Arc<Ctx>, Option<Issue>)> {
    match stream {
        None => Ok((context::current()?.1, None)),
        Some(h) => {
            let issue = crate::stream::resolve(h)?;
            Ok((issue.ctx().clone(), Some(issue)))
        }
    }
}

/// The stream device-side work of a copy goes on: the `Async` copy's, else the legacy one.
fn device_stream(s: Option<Issue>) -> CuResult<Issue> {
    match s {
        Some(s) => Ok(s),
        None => crate::stream::resolve(0),
    }
}

pub fn htod(dst: u64, src: &[u8], stream: Option<usize>) -> CuResult<()> {
    let (ctx, s) = target(stream)?;
    let place = ctx.memory.resolve(dst, src.len() as u64)?;
    memory::write(&place, src, s.as_ref().map(Issue::stream))
}

pub fn dtoh(dst: &mut [u8], src: u64, stream: Option<usize>) -> CuResult<()> {
    let (ctx, s) = target(stream)?;
    let place = ctx.memory.resolve(src, dst.len() as u64)?;
    memory::read(&place, dst, s.as_ref().map(Issue::stream))
}

pub fn dtod(dst: u64, src: u64, len: u64, stream: Option<usize>) -> CuResult<()> {
    let (ctx, s) = target(stream)?;
    let from = ctx.memory.resolve(src, len)?;
    let to = ctx.memory.resolve(dst, len)?;
    let sync = s.is_none();
    device_stream(s)?.stream().copy_buffer(
        (from.buffer()?, from.offset),
        (to.buffer()?, to.offset),
        len,
    )?;
    if sync {
        ctx.rt.synchronize()?;
    }
    Ok(())
}

/// `cuMemsetD8/16/32`: `count` elements of `pattern`'s size; the pointer must be aligned to it.
pub fn memset(dst: u64, pattern: &[u8], count: usize, stream: Option<usize>) -> CuResult<()> {
    let size = pattern.len() as u64;
    if dst % size != 0 {
        return Err(CuError::invalid(format!(
            "{dst:#x} is not aligned to {size} bytes"
        )));
    }
    let len = (count as u64)
        .checked_mul(size)
        .ok_or_else(|| CuError::invalid("memset size overflows"))?;
    let (ctx, s) = target(stream)?;
    let place = ctx.memory.resolve(dst, len)?;
    if let memory::Backing::Global { .. } = place.alloc.backing {
        // A module variable is written through its module, as a host copy to it is (numba
        // clears its exception flag, a module variable, this way before each launch).
        let bytes: Vec<u8> = pattern.iter().copied().cycle().take(len as usize).collect();
        return memory::write(&place, &bytes, s.as_ref().map(Issue::stream));
    }
    let sync = s.is_none();
    device_stream(s)?
        .stream()
        .fill_buffer(place.buffer()?, place.offset, len, pattern)?;
    if sync {
        ctx.rt.synchronize()?;
    }
    Ok(())
}

/// Whether `ptr` is device memory of the context a copy runs in (`cuMemcpy` decides the
/// direction from this, as unified addressing lets CUDA do).
pub fn is_device(ptr: u64, stream: Option<usize>) -> CuResult<bool> {
    let (ctx, _) = target(stream)?;
    Ok(ctx.memory.containing(ptr).is_some())
}

/// `cuMemsetD2D8/16/32`: `width` elements of `pattern` in each of `height` rows `pitch` bytes
/// apart; one fill where the rows are contiguous.
pub fn memset_2d(
    dst: u64,
    pitch: usize,
    pattern: &[u8],
    (width, height): (usize, usize),
    stream: Option<usize>,
) -> CuResult<()> {
    let row = width
        .checked_mul(pattern.len())
        .ok_or_else(|| CuError::invalid("row size overflows"))?;
    if height > 1 && pitch < row {
        return Err(CuError::invalid(format!(
            "pitch {pitch} < {row} bytes per row"
        )));
    }
    if pitch == row || height <= 1 {
        return memset(dst, pattern, width.saturating_mul(height), stream);
    }
    for y in 0..height as u64 {
        memset(dst + y * pitch as u64, pattern, width, stream)?;
    }
    Ok(())
}
