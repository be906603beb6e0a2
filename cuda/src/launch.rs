//! `cuLaunchKernel`: the configuration checked as CUDA checks it, and the parameters, given as
//! one pointer per parameter or as one packed buffer, laid out by the kernel's PTX signature.

use ptxvk_runtime::translator::texture::TextureSource;
use ptxvk_runtime::translator::types::TypeKind;
use ptxvk_runtime::translator::{KernelAbi, ScalarType};
use ptxvk_runtime::{KernelArg, LaunchConfig};

use crate::error::{CuError, CuResult};
use crate::module::Func;

/// How the caller passed the parameters.
pub enum Params<'a, R> {
    /// `kernelParams`: parameter `i`'s value, read for `size` bytes, as `read(i, size)` gives.
    Pointers(R),
    /// `extra` with CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE: every parameter at its ABI offset.
    Buffer(&'a [u8]),
    /// Neither: only valid for a kernel without parameters.
    None,
}

/// How a parameter's bytes become the runtime's argument, decided once per function from its
/// PTX signature ([`arg_kinds`]) rather than at each launch.
#[derive(Clone, Copy)]
pub enum ArgKind {
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    /// The bytes as they are (arrays, vectors, structs, other scalar types).
    Bytes,
}

/// Each parameter's [`ArgKind`]: a scalar of an integer type or of `.f32` or `.f64` goes as
/// its typed value (which the runtime packs without a copy of its own first), anything else
/// as bytes. A parameter the kernel reads as a texture object goes as the 64-bit handle it
/// holds, which the runtime resolves to the texture to bind.
pub fn arg_kinds(abi: &KernelAbi) -> Vec<ArgKind> {
    abi.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let texture = abi.textures.slots.iter().any(
                |s| matches!(s.source, TextureSource::Param { index, .. } if index as usize == i),
            );
            if p.size == 8 && texture {
                return ArgKind::U64;
            }
            if !p.is_scalar() {
                return ArgKind::Bytes;
            }
            let int = matches!(
                p.ty.kind(),
                TypeKind::Bits | TypeKind::Signed | TypeKind::Unsigned
            );
            match (p.size, p.ty) {
                (1, _) if int => ArgKind::U8,
                (2, _) if int => ArgKind::U16,
                (4, ScalarType::F32) => ArgKind::F32,
                (4, _) if int => ArgKind::U32,
                (8, ScalarType::F64) => ArgKind::F64,
                (8, _) if int => ArgKind::U64,
                _ => ArgKind::Bytes,
            }
        })
        .collect()
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

/// The device limits a launch is checked against (`cuDeviceGetAttribute`'s values).
pub struct Limits {
    block: [i64; 3],
    grid: [i64; 3],
    threads: u64,
}

/// The limits of `f`'s context, read from the device's attributes on the first launch.
fn limits(f: &Func) -> CuResult<&Limits> {
    if let Some(l) = f.ctx.launch_limits.get() {
        return Ok(l);
    }
    let info = f.ctx.rt.info();
    let attr = |a| crate::device::attribute(info, a).map(i64::from);
    let l = Limits {
        block: [attr(2)?, attr(3)?, attr(4)?],
        grid: [attr(5)?, attr(6)?, attr(7)?],
        threads: attr(1)?.max(0) as u64,
    };
    // Another thread may have set the same values first.
    let _ = f.ctx.launch_limits.set(l);
    f.ctx
        .launch_limits
        .get()
        .ok_or_else(|| CuError::Unknown("launch limits".into()))
}

/// Checks `cfg` against the device and the function as CUDA does: a zero dimension, a block
/// or grid over the device's limits, or more dynamic shared memory than the function allows
/// is an invalid value (checked here, before the runtime sees the launch).
pub fn check_config(f: &Func, cfg: &LaunchConfig) -> CuResult<()> {
    check_dims(f, cfg)?;
    check_shared(f, cfg.shared_bytes)
}

/// The dynamic shared memory of a launch against the function's
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (48 KiB with the static part unless the
/// program raised it with `cuFuncSetAttribute`), as CUDA checks it.
#[inline]
pub fn check_shared(f: &Func, shared: u32) -> CuResult<()> {
    let max = f.max_dynamic_shared();
    if shared > max {
        return Err(shared_error(shared, max));
    }
    Ok(())
}

#[cold]
fn shared_error(shared: u32, max: u32) -> CuError {
    CuError::InvalidValue(format!(
        "{shared} bytes of dynamic shared memory; the function allows {max} \
         (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)"
    ))
}

/// The grid and block of `cfg` against the device's limits.
pub fn check_dims(f: &Func, cfg: &LaunchConfig) -> CuResult<()> {
    let bad = |what: String| Err(CuError::InvalidValue(what));
    if cfg.grid.contains(&0) || cfg.block.contains(&0) {
        return bad(format!("grid {:?} block {:?}", cfg.grid, cfg.block));
    }
    let l = limits(f)?;
    for i in 0..3 {
        if i64::from(cfg.block[i]) > l.block[i] {
            return bad(format!(
                "block dimension {i} = {} > {}",
                cfg.block[i], l.block[i]
            ));
        }
        if i64::from(cfg.grid[i]) > l.grid[i] {
            return bad(format!(
                "grid dimension {i} = {} > {}",
                cfg.grid[i], l.grid[i]
            ));
        }
    }
    let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
    if threads > l.threads {
        return bad(format!("{threads} threads per block > {}", l.threads));
    }
    Ok(())
}

/// The runtime's typed arguments, for a kernel that reads a texture object from a parameter
/// (the others go as a packed block, [`pack`]): each parameter's bytes, taken from where the
/// caller put them.
/// `out` holds the previous launch's arguments, overwritten in place: a launch then drops
/// (and frees) only what it replaces.
#[inline]
pub fn arguments<'a, R: Fn(usize, usize) -> CuResult<&'a [u8]>>(
    f: &Func,
    params: &Params<'a, R>,
    out: &mut Vec<KernelArg>,
) -> CuResult<()> {
    let abi = f.kernel.abi();
    if matches!(params, Params::None) && !abi.params.is_empty() {
        return Err(no_params(abi));
    }
    for (i, (&(at, size), &kind)) in f.param_layout.iter().zip(&f.arg_kinds).enumerate() {
        let arg = argument(kind, param_bytes(params, i, at, size)?);
        match out.get_mut(i) {
            Some(slot) => *slot = arg,
            None => out.push(arg),
        }
    }
    out.truncate(abi.params.len());
    Ok(())
}

/// Each parameter's (offset, size) in the packed block, from the kernel's signature.
pub fn param_layout(abi: &KernelAbi) -> Box<[(usize, usize)]> {
    abi.params
        .iter()
        .map(|p| (p.offset as usize, p.size as usize))
        .collect()
}

/// The parameter block of a launch of `f` (as [`ptxvk_runtime::Stream::launch_packed`] takes
/// it) in `block`: each parameter's bytes copied from where the caller put them to its offset,
/// zeros between. `block` is the previous launch's, reused: a launch allocates nothing.
#[inline]
pub fn pack<'a, R: Fn(usize, usize) -> CuResult<&'a [u8]>>(
    f: &Func,
    params: &Params<'a, R>,
    block: &mut Vec<u8>,
) -> CuResult<()> {
    let abi = f.kernel.abi();
    if matches!(params, Params::None) && !f.param_layout.is_empty() {
        return Err(no_params(abi));
    }
    block.clear();
    block.resize(abi.param_block_size as usize, 0);
    for (i, &(at, size)) in f.param_layout.iter().enumerate() {
        let bytes = param_bytes(params, i, at, size)?;
        block
            .get_mut(at..at + size)
            .ok_or_else(|| CuError::invalid("a parameter lies outside the parameter block"))?
            .copy_from_slice(bytes);
    }
    Ok(())
}

/// Parameter `i`'s `size` bytes (at offset `at` of a packed buffer), where the caller put them.
#[inline]
fn param_bytes<'a, R: Fn(usize, usize) -> CuResult<&'a [u8]>>(
    params: &Params<'a, R>,
    i: usize,
    at: usize,
    size: usize,
) -> CuResult<&'a [u8]> {
    match params {
        Params::Pointers(read) => read(i, size),
        Params::Buffer(buf) => buf
            .get(at..at + size)
            .ok_or_else(|| CuError::invalid("parameter buffer too small")),
        Params::None => Err(CuError::invalid("no parameters given")),
    }
}

#[cold]
fn no_params(abi: &KernelAbi) -> CuError {
    CuError::invalid(format!(
        "kernel `{}` takes {} parameters and none were given",
        abi.name,
        abi.params.len()
    ))
}

/// One parameter's value as the runtime takes it.
#[inline]
fn argument(kind: ArgKind, b: &[u8]) -> KernelArg {
    let word = |n: usize| b.get(..n);
    let arg = match kind {
        ArgKind::U8 => word(1).map(|w| KernelArg::U8(w[0])),
        ArgKind::U16 => word(2).map(|w| KernelArg::U16(u16::from_le_bytes([w[0], w[1]]))),
        ArgKind::U32 => word(4).map(|w| KernelArg::U32(u32::from_le_bytes(le::<4>(w)))),
        ArgKind::F32 => word(4).map(|w| KernelArg::F32(f32::from_le_bytes(le::<4>(w)))),
        ArgKind::U64 => word(8).map(|w| KernelArg::U64(u64::from_le_bytes(le::<8>(w)))),
        ArgKind::F64 => word(8).map(|w| KernelArg::F64(f64::from_le_bytes(le::<8>(w)))),
        ArgKind::Bytes => None,
    };
    arg.unwrap_or_else(|| KernelArg::Bytes(b.to_vec()))
}

fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
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
    let abi = f.kernel.abi();
    let shared = abi.shared_bytes(u64::from(block), dynamic);
    // The opt-in limit bounds what the program asks for; ptxvk's own words come on top.
    let asked = u64::from(abi.static_shared_bytes) + u64::from(dynamic);
    if u64::from(block) > max_threads || asked > attr(97)? {
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
