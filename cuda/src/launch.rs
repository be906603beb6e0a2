//! `cuLaunchKernel`: the configuration checked as CUDA checks it, and the parameters, given as
//! one pointer per parameter or as one packed buffer, laid out by the kernel's PTX signature.

use ptxvk_runtime::translator::texture::TextureSource;
use ptxvk_runtime::{KernelArg, LaunchConfig};

use crate::error::{CuError, CuResult};
use crate::module::Func;

/// How the caller passed the parameters.
pub enum Params<'a> {
    /// `kernelParams`: a pointer to each parameter's value, read for the parameter's size.
    Pointers(Vec<&'a [u8]>),
    /// `extra` with CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE: every parameter at its ABI offset.
    Buffer(&'a [u8]),
    /// Neither: only valid for a kernel without parameters.
    None,
}

/// Bytes the parameters of `f` span in a packed buffer, and the largest alignment among them
/// (a C struct of the parameters may end with padding up to it).
pub fn param_extent(f: &Func) -> (usize, usize) {
    let params = &f.kernel.abi().params;
    let end = params
        .iter()
        .map(|p| (p.offset + p.size) as usize)
        .max()
        .unwrap_or(0);
    let align = params
        .iter()
        .map(|p| p.align.max(1) as usize)
        .max()
        .unwrap_or(1);
    (end, align)
}

/// The parameter sizes of `f`, for reading `kernelParams`.
pub fn param_sizes(f: &Func) -> Vec<usize> {
    f.kernel
        .abi()
        .params
        .iter()
        .map(|p| p.size as usize)
        .collect()
}

/// Checks `cfg` against the device as CUDA does: a zero dimension, a block or grid over the
/// device's limits, or more dynamic shared memory than a block may opt into is an invalid
/// value (checked here, before the runtime sees the launch).
pub fn check_config(f: &Func, cfg: &LaunchConfig) -> CuResult<()> {
    let info = f.ctx.rt.info();
    let attr = |a| crate::device::attribute(info, a);
    let bad = |what: String| Err(CuError::InvalidValue(what));
    if cfg.grid.contains(&0) || cfg.block.contains(&0) {
        return bad(format!("grid {:?} block {:?}", cfg.grid, cfg.block));
    }
    for i in 0..3 {
        let block_max = attr(2 + i as i32)?;
        let grid_max = attr(5 + i as i32)?;
        if i64::from(cfg.block[i]) > i64::from(block_max) {
            return bad(format!(
                "block dimension {i} = {} > {block_max}",
                cfg.block[i]
            ));
        }
        if i64::from(cfg.grid[i]) > i64::from(grid_max) {
            return bad(format!("grid dimension {i} = {} > {grid_max}", cfg.grid[i]));
        }
    }
    let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
    let max_threads = attr(1)?;
    if threads > max_threads as u64 {
        return bad(format!("{threads} threads per block > {max_threads}"));
    }
    if i64::from(cfg.shared_bytes) > i64::from(attr(97)?) {
        return bad(format!(
            "{} bytes of dynamic shared memory",
            cfg.shared_bytes
        ));
    }
    Ok(())
}

/// The runtime's arguments: each parameter's bytes, taken from where the caller put them. A
/// parameter the kernel reads as a texture object goes as the handle it holds, which the
/// runtime resolves to the texture to bind.
pub fn arguments(f: &Func, params: &Params<'_>) -> CuResult<Vec<KernelArg>> {
    let abi = f.kernel.abi();
    let bytes: Vec<&[u8]> = match params {
        Params::None if abi.params.is_empty() => Vec::new(),
        Params::None => {
            return Err(CuError::invalid(format!(
                "kernel `{}` takes {} parameters and none were given",
                abi.name,
                abi.params.len()
            )));
        }
        Params::Pointers(values) => values.clone(),
        Params::Buffer(buf) => abi
            .params
            .iter()
            .map(|p| {
                let at = p.offset as usize;
                buf.get(at..at + p.size as usize)
                    .ok_or_else(|| CuError::invalid("parameter buffer too small"))
            })
            .collect::<CuResult<_>>()?,
    };
    let textures: Vec<usize> = abi
        .textures
        .slots
        .iter()
        .filter_map(|s| match &s.source {
            TextureSource::Param { index, .. } => Some(*index as usize),
            TextureSource::TexRef { .. } => None,
        })
        .collect();
    Ok(bytes
        .into_iter()
        .enumerate()
        .map(|(i, b)| match <[u8; 8]>::try_from(b) {
            Ok(h) if textures.contains(&i) => KernelArg::U64(u64::from_le_bytes(h)),
            _ => KernelArg::Bytes(b.to_vec()),
        })
        .collect())
}

/// Checks the size given with CU_LAUNCH_PARAM_BUFFER_SIZE: it must cover every parameter, and
/// may exceed that only by the padding a C struct of them ends with.
pub fn check_buffer_size(f: &Func, size: usize) -> CuResult<()> {
    let (end, align) = param_extent(f);
    if size < end || size > end.next_multiple_of(align) {
        return Err(CuError::invalid(format!(
            "CU_LAUNCH_PARAM_BUFFER_SIZE is {size}; kernel `{}` needs {end} bytes",
            f.kernel.name()
        )));
    }
    Ok(())
}

/// Blocks of `block` threads with `dynamic` bytes of dynamic shared memory that fit on one
/// multiprocessor (`cuOccupancyMaxActiveBlocksPerMultiprocessor`), by CUDA's model for the
/// reported compute capability: the multiprocessor's warps, blocks, registers and shared
/// memory, the last including what ptxvk itself keeps in shared memory for the kernel.
pub fn max_active_blocks(f: &Func, block: u32, dynamic: u32) -> CuResult<i32> {
    if block == 0 {
        return Err(CuError::invalid("a block of 0 threads"));
    }
    let info = f.ctx.rt.info();
    let attr = |a| crate::device::attribute(info, a).map(|v| v.max(0) as u64);
    let max_threads = crate::module::attribute(f, 0)?.max(0) as u64;
    let shared = f.kernel.abi().shared_bytes(u64::from(block), dynamic);
    if u64::from(block) > max_threads || shared > attr(97)? {
        return Ok(0);
    }
    let threads = u64::from(block).next_multiple_of(32);
    let regs = crate::module::attribute(f, 4)?.max(1) as u64;
    let limits = [
        attr(106)?,
        attr(39)? / threads,
        attr(82)? / (regs * threads),
        attr(81)?.checked_div(shared).unwrap_or(u64::MAX),
    ];
    Ok(limits.into_iter().min().unwrap_or(0).min(i32::MAX as u64) as i32)
}

/// `cuOccupancyMaxPotentialBlockSize`: the block size (a multiple of the warp size up to the
/// kernel's and `limit`'s maximum) that keeps the most threads resident, the larger block on a
/// tie, with the dynamic shared memory `dynamic` gives for each; and the grid that fills every
/// multiprocessor with it. (min grid, block).
pub fn potential_block_size(
    f: &Func,
    dynamic: &mut dyn FnMut(u32) -> u32,
    limit: u32,
) -> CuResult<(i32, i32)> {
    let max = crate::module::attribute(f, 0)?.max(1) as u32;
    let max = if limit > 0 { max.min(limit) } else { max };
    let mut best = (0u64, 0u32, 0i32);
    let top = if max >= 32 { max - max % 32 } else { max };
    let mut block = top;
    while block > 0 {
        let blocks = max_active_blocks(f, block, dynamic(block))?;
        let resident = u64::from(block) * blocks.max(0) as u64;
        if resident > best.0 {
            best = (resident, block, blocks);
        }
        block = block.saturating_sub(32);
    }
    let mps = crate::device::attribute(f.ctx.rt.info(), 16)?;
    Ok((best.2.saturating_mul(mps), best.1 as i32))
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`: the most dynamic shared memory each of `blocks`
/// blocks of `block` threads can have on one multiprocessor.
pub fn available_dynamic_shared(f: &Func, blocks: u32, block: u32) -> CuResult<u64> {
    if blocks == 0 || block == 0 {
        return Err(CuError::invalid("zero blocks or threads"));
    }
    let info = f.ctx.rt.info();
    let per_mp = crate::device::attribute(info, 81)?.max(0) as u64 / u64::from(blocks);
    let per_block = per_mp.min(crate::device::attribute(info, 97)?.max(0) as u64);
    // What the block needs besides dynamic shared memory, rounded as the runtime rounds.
    let fixed = f.kernel.abi().shared_bytes(u64::from(block), 0);
    Ok(per_block.saturating_sub(fixed) / 4 * 4)
}
