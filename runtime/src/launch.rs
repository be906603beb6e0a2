//! Launching kernels: configuration, typed arguments, dispatch.

use std::sync::Arc;

use ash::vk;
use bytemuck::Pod;
use ptxvk_translator::texture::TextureSource;
use ptxvk_translator::{ParamAbi, ScalarType, abi};

use crate::error::{Error, Result};
use crate::memory::raw::RawBuffer;
use crate::memory::{Buffer, DeviceBuffer, DeviceSlice};
use crate::module::Kernel;
use crate::pipeline::PipelineKey;
use crate::stream::Stream;

/// The largest grid CUDA launches, in blocks per dimension (`maxGridSize`).
pub const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

/// Grid and block dimensions, as in `cuLaunchKernel`.
///
/// ```
/// use ptxvk_runtime::LaunchConfig;
/// let cfg = LaunchConfig::for_num_elems(1000, 256);
/// assert_eq!((cfg.grid, cfg.block), ([4, 1, 1], [256, 1, 1]));
/// let tiles = LaunchConfig::new([8, 8, 1], [16, 16, 1]).with_shared_bytes(2048);
/// assert_eq!(tiles.shared_bytes, 2048);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z (`%nctaid`). Grids beyond the device's workgroup-count limit are run
    /// as several dispatches.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z (`%ntid`).
    pub block: [u32; 3],
    /// Dynamic shared memory bytes (`extern .shared` arrays).
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A grid of `grid` blocks of `block` threads, without dynamic shared memory.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// The same with `bytes` of dynamic shared memory.
    pub fn with_shared_bytes(self, bytes: u32) -> LaunchConfig {
        LaunchConfig {
            shared_bytes: bytes,
            ..self
        }
    }

    /// Enough blocks of `block` threads to cover `n` threads in x.
    pub fn for_num_elems(n: u32, block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [n.div_ceil(block.max(1)).max(1), 1, 1],
            block: [block.max(1), 1, 1],
            shared_bytes: 0,
        }
    }
}

/// One kernel argument, checked against the kernel's PTX signature at launch.
///
/// Scalars convert with `.into()`; so do buffers and slices (`(&buf).into()`), which pass
/// their device address and keep the buffer alive until the launch has completed.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// For `.u8`/`.s8`/`.b8` parameters.
    U8(u8),
    /// For 16-bit integer parameters.
    U16(u16),
    /// For 32-bit integer parameters.
    U32(u32),
    /// For 64-bit integer parameters.
    U64(u64),
    /// For 8-bit integer parameters.
    I8(i8),
    /// For 16-bit integer parameters.
    I16(i16),
    /// For 32-bit integer parameters.
    I32(i32),
    /// For 64-bit integer parameters.
    I64(i64),
    /// For `.f16`/`.b16` parameters.
    F16(half::f16),
    /// For `.f32`/`.b32` parameters.
    F32(f32),
    /// For `.f64`/`.b64` parameters.
    F64(f64),
    /// A raw device address: the caller keeps the memory alive until the launch completes.
    Ptr(u64),
    /// A buffer (or part of one), passed by address and kept alive by the launch.
    Buffer(BufferRef),
    /// Raw bytes for aggregate (`.b8 p[N]`) parameters.
    Bytes(Vec<u8>),
    /// A texture object for a `.u64` (or `.param .texref`) parameter: its handle, with the
    /// texture kept alive by the launch.
    Texture(TextureRef),
}

/// A texture passed as a kernel argument (see [`KernelArg::Texture`]).
#[derive(Clone)]
pub struct TextureRef(crate::Texture);

impl TextureRef {
    /// The handle the kernel receives.
    pub fn handle(&self) -> u64 {
        self.0.handle()
    }

    /// The texture, if it belongs to `ctx`.
    pub(crate) fn texture(&self, ctx: &crate::Context) -> Result<crate::Texture> {
        if Arc::ptr_eq(self.0.context().vk(), ctx.vk()) {
            Ok(self.0.clone())
        } else {
            Err(Error::InvalidArgument(
                "a texture of another context was passed to a kernel".into(),
            ))
        }
    }
}

impl std::fmt::Debug for TextureRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TextureRef({})", self.handle())
    }
}

impl PartialEq for TextureRef {
    fn eq(&self, other: &Self) -> bool {
        self.handle() == other.handle()
    }
}

impl From<&crate::Texture> for KernelArg {
    fn from(t: &crate::Texture) -> Self {
        KernelArg::Texture(TextureRef(t.clone()))
    }
}

/// A device address inside a buffer, holding the buffer (see [`KernelArg::Buffer`]).
#[derive(Clone)]
pub struct BufferRef {
    raw: Arc<RawBuffer>,
    offset: u64,
}

impl BufferRef {
    /// The device address passed to the kernel.
    pub fn address(&self) -> u64 {
        self.raw.address() + self.offset
    }
}

impl std::fmt::Debug for BufferRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BufferRef(0x{:x})", self.address())
    }
}

impl PartialEq for BufferRef {
    fn eq(&self, other: &Self) -> bool {
        self.address() == other.address()
    }
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for KernelArg {
            fn from(x: $t) -> Self {
                KernelArg::$v(x)
            }
        }
    )*};
}
arg_from!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32,
    i64 => I64, half::f16 => F16, f32 => F32, f64 => F64);

impl<T: Pod> From<&DeviceBuffer<T>> for KernelArg {
    fn from(b: &DeviceBuffer<T>) -> Self {
        b.raw().into()
    }
}

impl<T: Pod> From<&DeviceSlice<'_, T>> for KernelArg {
    fn from(s: &DeviceSlice<'_, T>) -> Self {
        KernelArg::Buffer(BufferRef {
            raw: s.raw().clone(),
            offset: s.byte_offset(),
        })
    }
}

impl<T: Pod> From<DeviceSlice<'_, T>> for KernelArg {
    fn from(s: DeviceSlice<'_, T>) -> Self {
        (&s).into()
    }
}

impl From<&Buffer> for KernelArg {
    fn from(b: &Buffer) -> Self {
        KernelArg::Buffer(BufferRef {
            raw: b.raw.clone(),
            offset: 0,
        })
    }
}

impl KernelArg {
    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            KernelArg::U8(v) => format!("u8 {v}"),
            KernelArg::U16(v) => format!("u16 {v}"),
            KernelArg::U32(v) => format!("u32 {v}"),
            KernelArg::U64(v) => format!("u64 {v}"),
            KernelArg::I8(v) => format!("s8 {v}"),
            KernelArg::I16(v) => format!("s16 {v}"),
            KernelArg::I32(v) => format!("s32 {v}"),
            KernelArg::I64(v) => format!("s64 {v}"),
            KernelArg::F16(v) => format!("f16 {v}"),
            KernelArg::F32(v) => format!("f32 {v}"),
            KernelArg::F64(v) => format!("f64 {v}"),
            KernelArg::Ptr(a) => format!("a pointer (0x{a:x})"),
            KernelArg::Buffer(b) => format!("a pointer (0x{:x})", b.address()),
            KernelArg::Bytes(b) => format!("{} bytes", b.len()),
            KernelArg::Texture(t) => format!("texture {}", t.handle()),
        }
    }

    /// The bytes to store for parameter `p`, or `None` if the types do not agree. Integers of the
    /// parameter's size agree with `.b`, `.u` and `.s` parameters, floats with `.f` and `.b` of
    /// their size (ISA Table 26), pointers with 64-bit integer parameters.
    pub fn bytes_for(&self, p: &ParamAbi) -> Option<Vec<u8>> {
        use ScalarType::*;
        if let KernelArg::Bytes(b) = self {
            return (b.len() as u32 == p.size).then(|| b.clone());
        }
        if !p.is_scalar() {
            return None;
        }
        let t = p.ty;
        let int_ok = |bits: u32| {
            t.bits() == bits
                && matches!(
                    t.kind(),
                    crate::TypeKind::Bits | crate::TypeKind::Signed | crate::TypeKind::Unsigned
                )
        };
        let float_ok =
            |ft: ScalarType| t == ft || t == ScalarType::bits_of(ft.bits()).unwrap_or(Pred);
        match self {
            KernelArg::U8(v) if int_ok(8) => Some(vec![*v]),
            KernelArg::I8(v) if int_ok(8) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U16(v) if int_ok(16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::I16(v) if int_ok(16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U32(v) if int_ok(32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::I32(v) if int_ok(32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U64(v) | KernelArg::Ptr(v) if int_ok(64) => Some(v.to_le_bytes().to_vec()),
            KernelArg::Buffer(b) if int_ok(64) => Some(b.address().to_le_bytes().to_vec()),
            KernelArg::I64(v) if int_ok(64) => Some(v.to_le_bytes().to_vec()),
            KernelArg::Texture(t) if int_ok(64) => Some(t.handle().to_le_bytes().to_vec()),
            KernelArg::F16(v) if float_ok(F16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::F32(v) if float_ok(F32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::F64(v) if float_ok(F64) => Some(v.to_le_bytes().to_vec()),
            _ => None,
        }
    }
}

/// Describes a parameter's type for messages: `.u64`, `.align 8 .b8[16]`.
pub fn describe_param(p: &ParamAbi) -> String {
    if p.is_scalar() {
        p.ty.to_string()
    } else if p.vector > 1 {
        format!(".v{} {}", p.vector, p.ty)
    } else {
        format!("{}[{}] ({} bytes)", p.ty, p.count, p.size)
    }
}

impl Kernel {
    /// Whether a parameter holds a texture object the kernel samples (which
    /// [`Stream::launch_packed`] cannot launch).
    pub fn reads_texture_params(&self) -> bool {
        self.abi()
            .textures
            .slots
            .iter()
            .any(|s| matches!(s.source, TextureSource::Param { .. }))
    }

    /// Packs `args` into the parameter block, checking them against the kernel's signature.
    #[inline]
    pub fn pack_args(&self, args: &[KernelArg]) -> Result<Vec<u8>> {
        let abi = self.abi();
        if args.len() != abi.params.len() {
            return Err(Error::ArgCount {
                kernel: abi.name.clone(),
                expected: abi.params.len(),
                got: args.len(),
            });
        }
        let mut block = vec![0u8; abi.param_block_size as usize];
        for (i, (a, p)) in args.iter().zip(&abi.params).enumerate() {
            let Some(bytes) = a.bytes_for(p) else {
                return Err(Error::ArgType {
                    kernel: abi.name.clone(),
                    index: i,
                    param: p.name.clone(),
                    expected: describe_param(p),
                    got: a.describe(),
                });
            };
            let at = p.offset as usize;
            match block.get_mut(at..at + bytes.len()) {
                Some(dst) => dst.copy_from_slice(&bytes),
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "parameter `{}` lies outside the parameter block",
                        p.name
                    )));
                }
            }
        }
        Ok(block)
    }

    /// Checks a launch configuration against the device's limits and the kernel's directives.
    pub fn check_config(&self, cfg: &LaunchConfig) -> Result<()> {
        let info = self.ctx.info();
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: self.name().to_string(),
                reason,
            })
        };
        if cfg.block.contains(&0) || cfg.grid.contains(&0) {
            return bad(format!(
                "grid {:?} and block {:?} must be at least 1 in every dimension",
                cfg.grid, cfg.block
            ));
        }
        // CUDA's grid limits. Larger grids than the device's are split over several
        // dispatches, so nothing else would stop one of 2^31 blocks from running for minutes.
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if cfg.grid[i] > MAX_GRID[i] {
                return bad(format!(
                    "grid {axis} = {} exceeds CUDA's limit of {} blocks",
                    cfg.grid[i], MAX_GRID[i]
                ));
            }
        }
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if cfg.block[i] > info.max_workgroup_size[i] {
                return bad(format!(
                    "block {axis} = {} exceeds the device limit {}",
                    cfg.block[i], info.max_workgroup_size[i]
                ));
            }
        }
        let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
        if threads > u64::from(info.max_workgroup_invocations) {
            return bad(format!(
                "a block of {threads} threads exceeds the device limit of {} threads",
                info.max_workgroup_invocations
            ));
        }
        if let Some(req) = self.abi().reqntid
            && req != cfg.block
        {
            return bad(format!(
                "the kernel requires block {req:?} (.reqntid), got {:?}",
                cfg.block
            ));
        }
        if let Some(max) = self.abi().maxntid {
            let limit: u64 = max.iter().map(|&b| u64::from(b)).product();
            if threads > limit {
                return bad(format!(
                    "the kernel allows at most {limit} threads per block (.maxntid)"
                ));
            }
        }
        // Dynamic shared memory for a kernel that declares no `extern .shared` array is reserved
        // and unused, as CUDA does: frameworks pass one size to every kernel they launch.
        let abi = self.abi();
        // More than the device's shared memory runs from device memory (`spill.rs`), up to
        // CUDA's largest opt-in figure.
        let asked = u64::from(abi.static_shared_bytes) + u64::from(cfg.shared_bytes);
        if asked > u64::from(abi::MAX_SHARED_BYTES) {
            return bad(format!(
                "{} bytes of shared memory ({} static + {} dynamic) exceed ptxvk's limit of {} per block",
                asked,
                abi.static_shared_bytes,
                cfg.shared_bytes,
                abi::MAX_SHARED_BYTES
            ));
        }
        Ok(())
    }

    /// Runs the kernel on the context's default stream and waits for it to finish.
    ///
    /// ```no_run
    /// # use ptxvk_runtime::*;
    /// # let ctx = Context::new(&ContextOptions::from_env())?;
    /// # let module = ctx.load_ptx("saxpy.ptx", "")?;
    /// let saxpy = module.kernel("saxpy")?;
    /// let x = DeviceBuffer::from_slice(&ctx, &[1.0f32; 1000])?;
    /// let y = DeviceBuffer::from_slice(&ctx, &[2.0f32; 1000])?;
    /// saxpy.launch(&LaunchConfig::for_num_elems(1000, 256), &[1000u32.into(), 3.0f32.into(), (&x).into(), (&y).into()])?;
    /// assert_eq!(y.to_vec()?[0], 5.0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn launch(&self, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<()> {
        let stream = self.ctx.default_stream()?;
        stream.launch(self, cfg, args)?;
        stream.synchronize()
    }
}

impl Stream {
    /// Queues a launch of `kernel` (`cuLaunchKernel`): checks the configuration and the
    /// arguments, then records the dispatch into the stream's current batch and returns.
    pub fn launch(&self, kernel: &Kernel, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<()> {
        self.check_kernel(kernel)?;
        kernel.check_config(cfg)?;
        let kernel = &kernel.for_launch(cfg)?;
        let params = kernel.pack_args(args)?;
        self.dispatch(kernel, cfg, &params, args)
    }

    /// [`Stream::launch`] with the parameter block already packed: `params` is the kernel's
    /// `param_block_size` bytes, each parameter at its ABI offset (the layout of CUDA's
    /// `CU_LAUNCH_PARAM_BUFFER_POINTER`). For callers that hold parameters as bytes (the
    /// driver API), which would otherwise build a typed argument per parameter for it to be
    /// turned back into the same bytes. A kernel that reads a texture object from a parameter
    /// needs [`Stream::launch`], whose [`KernelArg::Texture`] keeps the texture alive.
    pub fn launch_packed(&self, kernel: &Kernel, cfg: &LaunchConfig, params: &[u8]) -> Result<()> {
        self.check_kernel(kernel)?;
        kernel.check_config(cfg)?;
        let abi = kernel.abi();
        if params.len() != abi.param_block_size as usize {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` takes a parameter block of {} bytes, got {}",
                abi.name,
                abi.param_block_size,
                params.len()
            )));
        }
        if kernel.reads_texture_params() {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` reads texture objects from its parameters: launch it with typed arguments",
                abi.name
            )));
        }
        let kernel = &kernel.for_launch(cfg)?;
        self.dispatch(kernel, cfg, params, &[])
    }

    fn check_kernel(&self, kernel: &Kernel) -> Result<()> {
        if !Arc::ptr_eq(&kernel.ctx.inner, &self.ctx.inner) {
            return Err(Error::InvalidArgument(
                "the kernel was loaded in another context than the stream's".into(),
            ));
        }
        Ok(())
    }

    /// Records the launch of `kernel` with its packed parameter block; `args` are the typed
    /// arguments it was packed from, if any (texture objects and buffers to keep alive).
    #[inline]
    fn dispatch(
        &self,
        kernel: &Kernel,
        cfg: &LaunchConfig,
        params: &[u8],
        args: &[KernelArg],
    ) -> Result<()> {
        // Texture records go after the parameters; the descriptor set is bound below.
        let textures = crate::texture::bind::prepare(
            &self.ctx,
            kernel.name(),
            &kernel.abi().textures,
            kernel.state.textures.as_ref(),
            args,
            &kernel.texrefs,
        )?;
        let texture_set = textures.as_ref().and_then(|t| t.set.clone());
        let pitched = textures
            .as_ref()
            .map(|t| t.pitched.clone())
            .unwrap_or_default();
        let with_records;
        let params = match textures {
            Some(t) => {
                let mut p = Vec::with_capacity(t.records_offset + t.records.len());
                p.extend_from_slice(params);
                p.resize(t.records_offset, 0);
                p.extend_from_slice(&t.records);
                with_records = p;
                &with_records[..]
            }
            None => params,
        };
        let state = kernel.state.clone();
        let proven = if self.ctx.profile().memcheck {
            proven_facts(&state.vk, &kernel.abi().mem_facts, params, cfg)?
        } else {
            0
        };
        let key = PipelineKey {
            block: cfg.block,
            shared_bytes: cfg.shared_bytes,
            proven,
        };
        let globals = kernel.globals.clone();
        let max = self.ctx.info().max_workgroup_count.map(|m| m.max(1));
        let spill = crate::spill::plan(kernel.abi(), cfg, max);
        let step = spill.map_or(max, |p| p.step);
        let grid = cfg.grid;
        let codes = Arc::new(kernel.abi().status_codes.clone());
        let memcheck = self.ctx.profile().memcheck;
        // Counted from here until the launch completes; the FIFO is drained after.
        let services = match &kernel.state.translated.services {
            Some(s) => {
                let services = self.ctx.services_for(&kernel.globals, &s.strings)?;
                Some(services.launch()?)
            }
            None => None,
        };
        // Claimed last, so that only a failed recording can leave it claimed (undone below).
        let (pipeline, first) = state.pipeline(key)?;
        let recorded = self.core.record(|r| {
            let (_, _, param_addr) = r.upload(params)?;
            // The launch's status word: zero, read back once the launch completes.
            // Its status word, then scratch that failing checked accesses use instead.
            let (status_buf, status_off) = r.alloc(48)?;
            status_buf.write_mapped(status_off, &[0; 48])?;
            let status_addr = status_buf.address() + status_off;
            if let Some(p) = spill {
                let buf = r.spill_buffer(p.bytes)?;
                let at = status_off + abi::STATUS_SPILL_BASE;
                status_buf.write_mapped(at, &buf.address().to_le_bytes())?;
            }
            let mem = if memcheck {
                let m = allocation_table(r.vk(), params, globals.address())?;
                let (_, _, addr) = r.upload(&m.table)?;
                Some((addr, m))
            } else {
                None
            };
            if !codes.is_empty() {
                r.check(crate::stream::StatusCheck {
                    buf: status_buf.clone(),
                    offset: status_off,
                    kernel: state.translated.abi.name.clone(),
                    codes: codes.clone(),
                });
            }
            for t in &pitched {
                t.refresh(r);
            }
            r.label(|| format!("kernel `{}`", state.translated.abi.name));
            if first {
                r.first_dispatch();
            }
            // SAFETY: recording into the stream's open command buffer; the pipeline, layout and
            // every buffer the launch uses are kept alive until it completes (below).
            unsafe {
                r.dev
                    .cmd_bind_pipeline(r.cb, vk::PipelineBindPoint::COMPUTE, pipeline);
                if let Some(set) = &texture_set {
                    r.dev.cmd_bind_descriptor_sets(
                        r.cb,
                        vk::PipelineBindPoint::COMPUTE,
                        state.layout,
                        0,
                        &[set.set],
                        &[],
                    );
                }
                // Grids beyond the device's workgroup-count limit run as several dispatches,
                // each told its first block through push constants; so do those whose shared
                // arenas in device memory would exceed `spill::BUDGET`, one after another
                // since they share the buffer.
                let mut first = true;
                for z in (0..grid[2]).step_by(step[2] as usize) {
                    for y in (0..grid[1]).step_by(step[1] as usize) {
                        for x in (0..grid[0]).step_by(step[0] as usize) {
                            if spill.is_some() && !first {
                                r.barrier();
                            }
                            first = false;
                            let push = push_constants(
                                param_addr,
                                [x, y, z],
                                grid,
                                globals.address(),
                                status_addr,
                                mem.as_ref(),
                            );
                            r.dev.cmd_push_constants(
                                r.cb,
                                state.layout,
                                vk::ShaderStageFlags::COMPUTE,
                                0,
                                &push,
                            );
                            r.dev.cmd_dispatch(
                                r.cb,
                                (grid[0] - x).min(step[0]),
                                (grid[1] - y).min(step[1]),
                                (grid[2] - z).min(step[2]),
                            );
                        }
                    }
                }
            }
            for a in args {
                if let KernelArg::Buffer(b) = a {
                    r.keep(b.raw.clone());
                }
            }
            r.keep(state.clone());
            r.keep(globals.clone());
            if let Some(s) = services {
                r.keep(Arc::new(s));
            }
            if let Some(set) = &texture_set {
                r.keep(set.clone());
            }
            Ok(())
        });
        if recorded.is_err() && first {
            state.not_dispatched(key);
        }
        recorded.map(|_| ())
    }
}

/// The kernel's memory facts this launch proves: those whose ranges of addresses each lie in
/// one live allocation (`ptxvk_translator::memfacts`).
fn proven_facts(
    vk: &crate::context::Vk,
    facts: &ptxvk_translator::memfacts::MemFacts,
    params: &[u8],
    cfg: &LaunchConfig,
) -> Result<u64> {
    if facts.facts.is_empty() {
        return Ok(0);
    }
    let live = vk.allocations.lock().map_err(|_| Error::DeviceLost)?;
    let launch = ptxvk_translator::memfacts::Launch {
        params,
        block: cfg.block,
        grid: cfg.grid,
        dynamic_shared: cfg.shared_bytes,
    };
    Ok(facts.proven(&launch, |start, end| {
        live.range(..=start)
            .next_back()
            .is_some_and(|(_, &e)| end <= e)
    }))
}

/// The memory checker's view of the live allocations: the `abi::PUSH_MEM_HINTS` ranges (the
/// allocations the parameter block's 8-byte words and the module's globals point into) and the
/// table `abi::PUSH_MEM_TABLE` (every live allocation as `[start, end)` pairs of u64 in address
/// order, padded to a power of two with empty ranges at the top of the address space).
fn allocation_table(vk: &crate::context::Vk, params: &[u8], globals: u64) -> Result<MemTable> {
    let live = vk.allocations.lock().map_err(|_| Error::DeviceLost)?;
    let mut hints = [(u64::MAX, u64::MAX); abi::MEM_HINTS as usize];
    let mut used = 0;
    let words = params
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
    for v in std::iter::once(globals).chain(words) {
        if used == hints.len() {
            break;
        }
        if let Some((&start, &end)) = live.range(..=v).next_back()
            && v < end
            && !hints[..used].contains(&(start, end))
        {
            hints[used] = (start, end);
            used += 1;
        }
    }
    let n = live.len().max(1).next_power_of_two();
    let mut table = Vec::with_capacity(n * 16);
    let padding = std::iter::repeat_n((&u64::MAX, &u64::MAX), n - live.len());
    for (start, end) in live.iter().chain(padding) {
        table.extend_from_slice(&start.to_le_bytes());
        table.extend_from_slice(&end.to_le_bytes());
    }
    Ok(MemTable {
        table,
        len: n as u32,
        hints,
    })
}

/// What [`allocation_table`] gives a launch.
struct MemTable {
    table: Vec<u8>,
    len: u32,
    hints: [(u64, u64); abi::MEM_HINTS as usize],
}

/// The push-constant block of `ptxvk_translator::abi`.
fn push_constants(
    param_addr: u64,
    base: [u32; 3],
    grid: [u32; 3],
    globals_addr: u64,
    status_addr: u64,
    mem: Option<&(u64, MemTable)>,
) -> [u8; abi::PUSH_CONSTANT_SIZE as usize] {
    let mut p = [0u8; abi::PUSH_CONSTANT_SIZE as usize];
    let at = |o: u32| o as usize;
    p[at(abi::PUSH_PARAM_BASE)..at(abi::PUSH_PARAM_BASE) + 8]
        .copy_from_slice(&param_addr.to_le_bytes());
    let g = at(abi::PUSH_GLOBALS_BASE);
    p[g..g + 8].copy_from_slice(&globals_addr.to_le_bytes());
    let s = at(abi::PUSH_STATUS_ADDRESS);
    p[s..s + 8].copy_from_slice(&status_addr.to_le_bytes());
    if let Some((table_addr, m)) = mem {
        let t = at(abi::PUSH_MEM_TABLE);
        p[t..t + 8].copy_from_slice(&table_addr.to_le_bytes());
        let c = at(abi::PUSH_MEM_COUNT);
        p[c..c + 4].copy_from_slice(&m.len.to_le_bytes());
        for (i, (start, end)) in m.hints.iter().enumerate() {
            let h = at(abi::PUSH_MEM_HINTS) + 16 * i;
            p[h..h + 8].copy_from_slice(&start.to_le_bytes());
            p[h + 8..h + 16].copy_from_slice(&end.to_le_bytes());
        }
    }
    for i in 0..3 {
        let b = at(abi::PUSH_CTA_BASE) + 4 * i;
        p[b..b + 4].copy_from_slice(&base[i].to_le_bytes());
        let g = at(abi::PUSH_GRID_DIM) + 4 * i;
        p[g..g + 4].copy_from_slice(&grid[i].to_le_bytes());
    }
    p
}
