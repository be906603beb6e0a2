//! Launching kernels: checking a launch and recording its dispatch into a stream.
//!
//! The launch configuration lives in `launch/config.rs`, typed arguments and their packing in
//! `launch/args.rs`, the memory table and push constants in `launch/push.rs`.

mod args;
mod config;
mod push;

use std::sync::Arc;

use ash::vk;
use ptxvk_translator::abi;

pub use self::args::{BufferRef, KernelArg, TextureRef, describe_param};
pub use self::config::{LaunchConfig, MAX_GRID};
use self::push::{allocation_table, proven_facts, push_constants};
use crate::error::{Error, Result};
use crate::module::Kernel;
use crate::pipeline::PipelineKey;
use crate::stream::Stream;

impl Kernel {
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
