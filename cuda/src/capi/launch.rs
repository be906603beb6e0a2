//! `cuLaunchKernel`.

use std::ffi::{c_int, c_uint, c_void};

use ptxvk_runtime::LaunchConfig;

use super::{Handle, entry, entry_lazy, id};
use crate::error::{CUresult, CuError, CuResult};
use crate::launch::{self, Params};
use crate::launch_cache;

/// `CU_LAUNCH_PARAM_*` keys of `extra`.
const PARAM_END: usize = 0x0;
const PARAM_BUFFER_POINTER: usize = 0x1;
const PARAM_BUFFER_SIZE: usize = 0x2;

/// The most `extra` entries read before giving up on a list without CU_LAUNCH_PARAM_END.
const MAX_EXTRA: usize = 64;

/// Reads `extra`: key/value pairs ending with CU_LAUNCH_PARAM_END.
///
/// # Safety
/// `extra` is a CU_LAUNCH_PARAM_END-terminated array of pairs; the buffer pointer is readable
/// for the size the size entry points to.
unsafe fn extra_buffer<'a>(extra: *const *mut c_void) -> CuResult<(&'a [u8], usize)> {
    let (mut buf, mut size) = (None, None);
    for i in 0..MAX_EXTRA {
        // SAFETY: within the terminated array by the caller's contract.
        let key = unsafe { *extra.add(2 * i) } as usize;
        if key == PARAM_END {
            break;
        }
        // SAFETY: every key but END is followed by its value.
        let value = unsafe { *extra.add(2 * i + 1) };
        match key {
            PARAM_BUFFER_POINTER => buf = Some(value),
            PARAM_BUFFER_SIZE if !value.is_null() => {
                // SAFETY: the value of BUFFER_SIZE points to a size_t.
                size = Some(unsafe { *value.cast::<usize>() });
            }
            _ => return Err(CuError::invalid(format!("`extra` key {key:#x}"))),
        }
    }
    let (Some(buf), Some(size)) = (buf, size) else {
        return Err(CuError::invalid(
            "`extra` needs CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE",
        ));
    };
    // SAFETY: readable for `size` bytes by the caller's contract.
    Ok((unsafe { super::bytes(buf, size) }?, size))
}

#[allow(clippy::too_many_arguments)]
fn launch_kernel(
    f: Handle,
    grid: [c_uint; 3],
    block_dim: [c_uint; 3],
    shared: c_uint,
    s: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<()> {
    launch_cache::with(|current, cache| {
        // CUDA launches in the current context; none is CUDA_ERROR_INVALID_CONTEXT, which
        // comes before any other error.
        if current.is_none() {
            crate::context::current()?;
        }
        let launch_cache::Cache {
            function,
            stream,
            checked,
            block,
            args,
            ..
        } = cache;
        let func = match function.get(id(f), crate::library::function_or_kernel) {
            Ok(func) => func,
            Err(e) => {
                crate::context::current()?;
                return Err(e);
            }
        };
        // Where the function is of the current context (as nearly always), the function's
        // existence shows the context's (destroying a context removes its functions), so the
        // context table is only consulted otherwise.
        if current == Some(func.ctx_id) {
            crate::device::check_init()?;
        } else {
            crate::context::current()?;
        }
        // The stream must be of the same context (checked below), so this is its check too.
        func.ctx.check_sticky()?;
        let cfg = LaunchConfig {
            grid,
            block: block_dim,
            shared_bytes: shared,
        };
        // A program launches a kernel with the same configuration over and over. The
        // function's shared memory limit can change between launches: it is read each time.
        if *checked != Some((id(f), cfg)) {
            launch::check_dims(func, &cfg)?;
            *checked = Some((id(f), cfg));
        }
        launch::check_shared(func, shared)?;
        // SAFETY: CUDA's contract: `kernelParams` holds one pointer per kernel parameter,
        // each to a value of the parameter's size.
        let read = |i: usize, size: usize| unsafe { super::bytes(*params.add(i), size) };
        let params = match (params.is_null(), extra.is_null()) {
            (false, false) => return Err(CuError::invalid("both kernelParams and extra given")),
            (true, true) => Params::None,
            (false, true) => Params::Pointers(read),
            (true, false) => {
                // SAFETY: CUDA's contract for `extra`.
                let (buf, size) = unsafe { extra_buffer(extra) }?;
                launch::check_buffer_size(func, size)?;
                Params::Buffer(buf)
            }
        };
        // Both buffers are the previous launch's, overwritten: a launch allocates nothing.
        let packed = func.packed;
        if packed {
            launch::pack(func, &params, block)?;
        } else {
            launch::arguments(func, &params, args)?;
        }
        let run = |st: &ptxvk_runtime::Stream| -> CuResult<()> {
            if packed {
                Ok(st.launch_packed(&func.kernel, &cfg, block)?)
            } else {
                Ok(st.launch(&func.kernel, &cfg, args)?)
            }
        };
        let same_ctx = |ctx: &std::sync::Arc<crate::context::Ctx>| {
            if std::sync::Arc::ptr_eq(ctx, &func.ctx) {
                Ok(())
            } else {
                Err(CuError::InvalidHandle(
                    "function (of another context than the stream)",
                ))
            }
        };
        if crate::stream::is_legacy(id(s)) {
            let issue = crate::stream::resolve(id(s))?;
            same_ctx(issue.ctx())?;
            run(issue.stream())
        } else {
            let strm = stream.get(id(s), crate::stream::issuable)?;
            same_ctx(&strm.ctx)?;
            crate::stream::issue_checked(strm, |st| run(st))
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry_lazy(
        "cuLaunchKernel",
        move |fm| {
            write!(
                fm,
                "f={:#x?} gx={:#x?} gy={:#x?} gz={:#x?} bx={:#x?} by={:#x?} bz={:#x?} shared={:#x?} s={:#x?} params={:#x?} extra={:#x?}",
                f, gx, gy, gz, bx, by, bz, shared, s, params, extra
            )
        },
        || launch_kernel(f, [gx, gy, gz], [bx, by, bz], shared, s, params, extra),
    )
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfigEx {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

/// `CUlaunchAttribute`: an id, padding, and a 64-byte value union.
#[repr(C)]
pub struct LaunchAttribute {
    id: c_uint,
    pad: [u8; 4],
    value: [u8; 64],
}

/// Launch attributes that change nothing here are accepted; those that would change what the
/// launch means (cooperative grids, clusters other than 1x1x1, programmatic dependencies) are
/// not supported yet.
fn check_attributes(attrs: &[LaunchAttribute]) -> CuResult<()> {
    let word = |a: &LaunchAttribute, i: usize| {
        let b = &a.value[4 * i..4 * i + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    };
    for a in attrs {
        match a.id {
            // IGNORE, ACCESS_POLICY_WINDOW, SYNCHRONIZATION_POLICY, PRIORITY,
            // MEM_SYNC_DOMAIN_MAP, MEM_SYNC_DOMAIN, PREFERRED_SHARED_MEMORY_CARVEOUT
            0 | 1 | 3 | 8 | 9 | 10 | 14 => {}
            // COOPERATIVE, PROGRAMMATIC_STREAM_SERIALIZATION: off is the default.
            2 | 6 if word(a, 0) == 0 => {}
            // CLUSTER_DIMENSION, PREFERRED_CLUSTER_DIMENSION: 1x1x1 is no cluster.
            4 | 11 if (0..3).all(|i| word(a, i) <= 1) => {}
            id => return Err(CuError::NotSupported(format!("launch attribute {id}"))),
        }
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const LaunchConfigEx,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuLaunchKernelEx",
        format_args!("config={config:#x?} f={f:#x?} params={params:#x?} extra={extra:#x?}"),
        || {
            // SAFETY: NULL or a valid CUlaunchConfig by the caller's contract.
            let c = unsafe { config.as_ref() }.ok_or_else(|| CuError::invalid("config is NULL"))?;
            if c.num_attrs > 0 {
                if c.attrs.is_null() {
                    return Err(CuError::invalid("attrs is NULL"));
                }
                // SAFETY: `num_attrs` entries by the caller's contract.
                check_attributes(unsafe {
                    std::slice::from_raw_parts(c.attrs, c.num_attrs as usize)
                })?;
            }
            launch_kernel(f, c.grid, c.block, c.shared, c.stream, params, extra)
        },
    )
}

/// Cooperative launches are not supported (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0):
/// Vulkan promises no forward progress between workgroups, so a grid-wide barrier could wait
/// forever for blocks that never start (docs/decisions/0193-no-cooperative-launch.md). The
/// launch is checked as any launch is first, so misuse gets its own error.
#[allow(clippy::too_many_arguments)]
fn cooperative(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    s: Handle,
) -> CuResult<()> {
    let current = crate::context::current()?;
    let func = crate::library::function_or_kernel(id(f))?;
    if func.ctx_id != current.0 {
        return Err(CuError::InvalidHandle("function (of another context)"));
    }
    let cfg = LaunchConfig {
        grid,
        block,
        shared_bytes: shared,
    };
    launch::check_config(&func, &cfg)?;
    if !crate::stream::is_default(id(s)) {
        crate::stream::issuable(id(s))?;
    }
    Err(CuError::NotSupported(
        "cooperative launches: Vulkan gives no grid-wide forward progress".into(),
    ))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: Handle,
    params: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuLaunchCooperativeKernel",
        format_args!(
            "f={f:#x?} grid=({gx}, {gy}, {gz}) block=({bx}, {by}, {bz}) shared={shared:#x} s={s:#x?} params={params:#x?}"
        ),
        || cooperative(f, [gx, gy, gz], [bx, by, bz], shared, s),
    )
}

alias!(cuLaunchCooperativeKernel_ptsz => cuLaunchCooperativeKernel(f: Handle, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, s: Handle, params: *mut *mut c_void), per_thread s);

/// The function an occupancy query is about. Flags: CU_OCCUPANCY_DEFAULT or
/// CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE (there is no caching to override).
fn occupancy_of(f: Handle, flags: c_uint) -> CuResult<std::sync::Arc<crate::module::Func>> {
    crate::device::check_init()?;
    if flags > 1 {
        return Err(CuError::invalid(format!("flags {flags:#x}")));
    }
    crate::library::function_or_kernel(id(f))
}

fn active_blocks(
    out: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic: usize,
    flags: c_uint,
) -> CuResult<()> {
    let func = occupancy_of(f, flags)?;
    let block = u32::try_from(block).map_err(|_| CuError::invalid("blockSize"))?;
    let dynamic = u32::try_from(dynamic).map_err(|_| CuError::invalid("dynamicSMemSize"))?;
    let n = launch::max_active_blocks(&func, block, dynamic)?;
    // SAFETY: NULL or writable by the caller's contract.
    unsafe { super::put(out, n) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    out: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic: usize,
) -> CUresult {
    entry(
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        format_args!("out={out:#x?} f={f:#x?} blockSize={block} dynamicSMemSize={dynamic}"),
        || active_blocks(out, f, block, dynamic, 0),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    out: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        format_args!(
            "out={out:#x?} f={f:#x?} blockSize={block} dynamicSMemSize={dynamic} flags={flags:#x}"
        ),
        || active_blocks(out, f, block, dynamic, flags),
    )
}

/// `CUoccupancyB2DSize`.
pub type BlockToShared = Option<unsafe extern "C" fn(c_int) -> usize>;

fn potential_block_size(
    (min_grid, block): (*mut c_int, *mut c_int),
    f: Handle,
    to_shared: BlockToShared,
    dynamic: usize,
    limit: c_int,
    flags: c_uint,
) -> CuResult<()> {
    let func = occupancy_of(f, flags)?;
    if min_grid.is_null() || block.is_null() {
        return Err(CuError::invalid("minGridSize or blockSize is NULL"));
    }
    let mut shared_for = |b: u32| -> u32 {
        let bytes = match to_shared {
            // SAFETY: the caller's function, called with a block size as CUDA does.
            Some(cb) => unsafe { cb(b as c_int) },
            None => dynamic,
        };
        u32::try_from(bytes).unwrap_or(u32::MAX)
    };
    let limit = u32::try_from(limit).unwrap_or(0);
    let (grid, best) = launch::potential_block_size(&func, &mut shared_for, limit)?;
    // SAFETY: both non-NULL and writable by the caller's contract.
    unsafe {
        min_grid.write(grid);
        block.write(best);
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: Handle,
    to_shared: BlockToShared,
    dynamic: usize,
    limit: c_int,
) -> CUresult {
    entry(
        "cuOccupancyMaxPotentialBlockSize",
        format_args!("f={f:#x?} dynamicSMemSize={dynamic} blockSizeLimit={limit}"),
        || potential_block_size((min_grid, block), f, to_shared, dynamic, limit, 0),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: Handle,
    to_shared: BlockToShared,
    dynamic: usize,
    limit: c_int,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuOccupancyMaxPotentialBlockSizeWithFlags",
        format_args!("f={f:#x?} dynamicSMemSize={dynamic} blockSizeLimit={limit} flags={flags:#x}"),
        || potential_block_size((min_grid, block), f, to_shared, dynamic, limit, flags),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    out: *mut usize,
    f: Handle,
    blocks: c_int,
    block: c_int,
) -> CUresult {
    entry(
        "cuOccupancyAvailableDynamicSMemPerBlock",
        format_args!("out={out:#x?} f={f:#x?} numBlocks={blocks} blockSize={block}"),
        || {
            let func = occupancy_of(f, 0)?;
            let blocks = u32::try_from(blocks).map_err(|_| CuError::invalid("numBlocks"))?;
            let block = u32::try_from(block).map_err(|_| CuError::invalid("blockSize"))?;
            let bytes = launch::available_dynamic_shared(&func, blocks, block)?;
            // SAFETY: NULL or writable by the caller's contract.
            unsafe { super::put(out, bytes as usize) }
        },
    )
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuLaunchKernel_ptsz => cuLaunchKernel(f: Handle, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, s: Handle, params: *mut *mut c_void, extra: *mut *mut c_void), per_thread s);

/// The per-thread default stream form: a NULL stream in the configuration is the calling
/// thread's default stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernelEx_ptsz(
    config: *const LaunchConfigEx,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    // SAFETY: NULL or a valid CUlaunchConfig by the caller's contract.
    let Some(c) = (unsafe { config.as_ref() }) else {
        // SAFETY: the entry point reports the NULL configuration.
        return unsafe { cuLaunchKernelEx(config, f, params, extra) };
    };
    let local = LaunchConfigEx {
        stream: super::per_thread_if_null(c.stream),
        ..*c
    };
    // SAFETY: a copy of the caller's configuration, with its attributes.
    unsafe { cuLaunchKernelEx(&local, f, params, extra) }
}
