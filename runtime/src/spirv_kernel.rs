//! Compute shaders written as SPIR-V rather than PTX (compiled from GLSL, say), launched on the
//! same streams as translated kernels. Benchmarks use them as the hand-written twin a
//! translated kernel is measured against, in the same run and on the same queue.
//!
//! The shader's interface is its push constants alone: buffers are passed as device addresses
//! in them (`GL_EXT_buffer_reference`), so no descriptors are involved, as for translated
//! kernels. The block size is the shader's own (`local_size_x`...).

use std::ffi::CString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::stream::Stream;

/// A compute shader given as SPIR-V, ready to dispatch ([`Stream::dispatch_spirv`]).
#[derive(Clone)]
pub struct SpirvKernel {
    ctx: Context,
    state: Arc<SpirvState>,
}

struct SpirvState {
    vk: Arc<Vk>,
    shader: vk::ShaderModule,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    push_bytes: u32,
    /// Whether a dispatch has been recorded yet (`wait.rs`).
    dispatched: AtomicBool,
}

impl Context {
    /// Creates the pipeline of the compute entry point `entry` of `words`, whose push
    /// constants take `push_bytes` (at most the device's limit).
    pub fn load_spirv(&self, words: &[u32], entry: &str, push_bytes: u32) -> Result<SpirvKernel> {
        self.check_lost()?;
        let limit = self.info().max_push_constant_bytes;
        if push_bytes > limit || push_bytes % 4 != 0 {
            return Err(Error::InvalidArgument(format!(
                "{push_bytes} bytes of push constants (a multiple of 4, at most {limit} here)"
            )));
        }
        let name = CString::new(entry)
            .map_err(|_| Error::InvalidArgument("an entry point name contains NUL".into()))?;
        let vk = self.inner.vk.clone();
        let dev = &vk.device;
        let (shader, layout) =
            crate::pipeline::shader_and_layout(&vk, words, push_bytes.max(4), &[])?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(&name);
        let create = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout);
        // SAFETY: the shader and layout belong to this device.
        let made =
            unsafe { dev.create_compute_pipelines(vk::PipelineCache::null(), &[create], None) };
        let pipeline = match made.map(|p| p.into_iter().next()) {
            Ok(Some(p)) => p,
            other => {
                // SAFETY: created above, unused.
                unsafe {
                    dev.destroy_pipeline_layout(layout, None);
                    dev.destroy_shader_module(shader, None);
                }
                return Err(match other {
                    Err((_, e)) => vk.error("vkCreateComputePipelines", e),
                    _ => Error::DeviceLost,
                });
            }
        };
        Ok(SpirvKernel {
            ctx: self.clone(),
            state: Arc::new(SpirvState {
                vk: vk.clone(),
                shader,
                layout,
                pipeline,
                push_bytes,
                dispatched: AtomicBool::new(false),
            }),
        })
    }
}

impl Stream {
    /// Queues `groups` workgroups of `kernel` with `push` as its push constants. Buffers whose
    /// addresses `push` holds must stay alive until the work is done (as with `cuLaunchKernel`).
    pub fn dispatch_spirv(
        &self,
        kernel: &SpirvKernel,
        groups: [u32; 3],
        push: &[u8],
    ) -> Result<()> {
        if !Arc::ptr_eq(&kernel.ctx.inner, &self.ctx.inner) {
            return Err(Error::InvalidArgument(
                "the shader was loaded in another context than the stream's".into(),
            ));
        }
        let state = kernel.state.clone();
        if push.len() != state.push_bytes as usize {
            return Err(Error::InvalidArgument(format!(
                "{} bytes of push constants for a shader that takes {}",
                push.len(),
                state.push_bytes
            )));
        }
        let max = self.ctx.info().max_workgroup_count;
        if groups.iter().zip(max).any(|(&g, m)| g == 0 || g > m) {
            return Err(Error::InvalidArgument(format!(
                "{groups:?} workgroups (each from 1 to {max:?})"
            )));
        }
        self.core.record(|r| {
            // SAFETY: recording into the stream's open command buffer; the pipeline and layout
            // are kept alive until the dispatch completes.
            unsafe {
                r.dev
                    .cmd_bind_pipeline(r.cb, vk::PipelineBindPoint::COMPUTE, state.pipeline);
                if !push.is_empty() {
                    r.dev.cmd_push_constants(
                        r.cb,
                        state.layout,
                        vk::ShaderStageFlags::COMPUTE,
                        0,
                        push,
                    );
                }
                r.dev.cmd_dispatch(r.cb, groups[0], groups[1], groups[2]);
            }
            r.label(|| "a SPIR-V shader".to_string());
            if !state.dispatched.swap(true, Ordering::Relaxed) {
                r.first_dispatch();
            }
            r.keep(state.clone());
            Ok(())
        })?;
        Ok(())
    }
}

impl Drop for SpirvState {
    fn drop(&mut self) {
        if self.vk.is_lost() {
            return;
        }
        // SAFETY: dispatches keep this state alive until they complete, so nothing uses it.
        unsafe {
            self.vk.device.destroy_pipeline(self.pipeline, None);
            self.vk.device.destroy_pipeline_layout(self.layout, None);
            self.vk.device.destroy_shader_module(self.shader, None);
        }
    }
}
