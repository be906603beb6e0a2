//! Modules (a loaded PTX file) and kernels (one entry point, with its pipelines).

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex};

use ash::vk;
use ptxvk_translator::abi::GlobalsLayout;
use ptxvk_translator::{KernelAbi, KernelModule, Program, SourceFile, abi};

use crate::context::Context;
use crate::error::{Error, Result, vk_err};
use crate::memory::Buffer;

/// A PTX module loaded into a context. Kernels are translated on first use.
pub struct Module {
    ctx: Context,
    program: Arc<Program>,
    kernels: Mutex<HashMap<String, Arc<KernelState>>>,
    /// The module's `.global`/`.const` variables (shared by its kernels).
    globals: Arc<Buffer>,
}

impl Context {
    /// Parses and checks PTX text; `name` is used in diagnostics (usually the file name).
    pub fn load_ptx(&self, name: &str, text: &str) -> Result<Module> {
        let program = Program::parse(SourceFile::new(name, text)).map_err(Error::Translate)?;
        let globals = Arc::new(globals_buffer(self, program.globals())?);
        Ok(Module {
            ctx: self.clone(),
            program: Arc::new(program),
            kernels: Mutex::new(HashMap::new()),
            globals,
        })
    }
}

/// Allocates and initializes the module's globals, fixing up addresses in initializers.
fn globals_buffer(ctx: &Context, layout: &GlobalsLayout) -> Result<Buffer> {
    let buf = Buffer::new(ctx, layout.size)?;
    let mut init = layout.init.clone();
    for r in &layout.relocations {
        let addr = buf.address().wrapping_add(r.target);
        let at = r.at as usize;
        let w = r.width as usize;
        if let Some(dst) = init.get_mut(at..at + w) {
            dst.copy_from_slice(&addr.to_le_bytes()[..w]);
        }
    }
    buf.write_bytes(0, &init)?;
    Ok(buf)
}

impl Module {
    /// A module variable's device address and size (like `cuModuleGetGlobal`).
    pub fn global(&self, name: &str) -> Result<(u64, u64)> {
        let v = self
            .program
            .globals()
            .vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::GlobalNotFound {
                name: name.to_string(),
            })?;
        Ok((self.globals.address() + v.offset, v.size))
    }

    /// Copies bytes into module variable `name` at `offset`.
    pub fn write_global(&self, name: &str, offset: u64, data: &[u8]) -> Result<()> {
        let v = self
            .program
            .globals()
            .vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::GlobalNotFound {
                name: name.to_string(),
            })?;
        if offset + data.len() as u64 > v.size {
            return Err(Error::BufferTooSmall {
                what: format!("write to `{name}`"),
                have: v.size,
                need: offset + data.len() as u64,
            });
        }
        self.globals.write_bytes(v.offset + offset, data)
    }

    /// Copies module variable `name` out.
    pub fn read_global(&self, name: &str) -> Result<Vec<u8>> {
        let v = self
            .program
            .globals()
            .vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::GlobalNotFound {
                name: name.to_string(),
            })?;
        let mut out = vec![0u8; v.size as usize];
        self.globals.read_bytes(v.offset, &mut out)?;
        Ok(out)
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The kernels (`.entry` functions) of the module.
    pub fn kernel_names(&self) -> Vec<String> {
        self.program.kernel_names()
    }

    /// Translates (once) and prepares kernel `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let mut cache = self.kernels.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(k) = cache.get(name) {
            return Ok(Kernel {
                ctx: self.ctx.clone(),
                state: k.clone(),
                globals: self.globals.clone(),
            });
        }
        if !self.program.kernel_names().iter().any(|k| k == name) {
            return Err(Error::KernelNotFound {
                name: name.to_string(),
                available: self.program.kernel_names().join(", "),
            });
        }
        let translated = self
            .program
            .translate_kernel(name, self.ctx.profile())
            .map_err(Error::Translate)?;
        // With validation on, the SPIR-V is checked by SPIRV-Tools too (the layer does not).
        if self.ctx.validation_enabled() {
            ptxvk_translator::validate(&translated.spirv).map_err(|e| Error::InvalidSpirv {
                kernel: name.to_string(),
                message: e.to_string(),
            })?;
        }
        let state = Arc::new(KernelState::new(&self.ctx, translated)?);
        cache.insert(name.to_string(), state.clone());
        Ok(Kernel {
            ctx: self.ctx.clone(),
            state,
            globals: self.globals.clone(),
        })
    }
}

pub(crate) struct KernelState {
    ctx: Context,
    pub translated: KernelModule,
    entry: CString,
    shader: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    pipelines: Mutex<HashMap<[u32; 4], vk::Pipeline>>,
}

impl KernelState {
    fn new(ctx: &Context, translated: KernelModule) -> Result<KernelState> {
        let dev = ctx.device();
        let info = vk::ShaderModuleCreateInfo::default().code(&translated.spirv);
        // SAFETY: the SPIR-V comes from our emitter (validated in tests).
        let shader = unsafe { dev.create_shader_module(&info, None) }
            .map_err(vk_err("vkCreateShaderModule"))?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(abi::PUSH_CONSTANT_SIZE)];
        let layout_info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges);
        // SAFETY: valid device and create info.
        let layout = match unsafe { dev.create_pipeline_layout(&layout_info, None) } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: created above, unused.
                unsafe { dev.destroy_shader_module(shader, None) };
                return Err(vk_err("vkCreatePipelineLayout")(e));
            }
        };
        let entry = CString::new(translated.abi.name.clone()).unwrap_or_default();
        Ok(KernelState {
            ctx: ctx.clone(),
            translated,
            entry,
            shader,
            layout,
            pipelines: Mutex::new(HashMap::new()),
        })
    }

    /// The pipeline for a block size and dynamic shared memory size (specialization
    /// constants), created on first use.
    pub fn pipeline(&self, block: [u32; 3], shared_bytes: u32) -> Result<vk::Pipeline> {
        let key = [block[0], block[1], block[2], shared_bytes];
        let mut cache = self.pipelines.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(p) = cache.get(&key) {
            return Ok(*p);
        }
        let ids = [
            abi::SPEC_BLOCK_X,
            abi::SPEC_BLOCK_Y,
            abi::SPEC_BLOCK_Z,
            abi::SPEC_DYNAMIC_SHARED_BYTES,
        ];
        let entries = ids.map(|id| {
            vk::SpecializationMapEntry::default()
                .constant_id(id)
                .offset(id * 4)
                .size(4)
        });
        let data: Vec<u8> = key.iter().flat_map(|v| v.to_le_bytes()).collect();
        let spec = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.shader)
            .name(&self.entry)
            .specialization_info(&spec);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout);
        let dev = self.ctx.device();
        // SAFETY: the shader, layout and cache belong to this device.
        let pipeline =
            unsafe { dev.create_compute_pipelines(self.ctx.inner.pipeline_cache, &[info], None) }
                .map_err(|(_, e)| vk_err("vkCreateComputePipelines")(e))?[0];
        cache.insert(key, pipeline);
        tracing::debug!(kernel = %self.translated.abi.name, ?block, shared_bytes, "created pipeline");
        Ok(pipeline)
    }
}

impl Drop for KernelState {
    fn drop(&mut self) {
        if self.ctx.check_lost().is_err() {
            return;
        }
        let dev = self.ctx.device();
        // SAFETY: launches are synchronous: no pipeline is in use any more.
        unsafe {
            if let Ok(p) = self.pipelines.lock() {
                for pipe in p.values() {
                    dev.destroy_pipeline(*pipe, None);
                }
            }
            dev.destroy_pipeline_layout(self.layout, None);
            dev.destroy_shader_module(self.shader, None);
        }
    }
}

/// A kernel ready to launch.
#[derive(Clone)]
pub struct Kernel {
    pub(crate) ctx: Context,
    pub(crate) state: Arc<KernelState>,
    pub(crate) globals: Arc<Buffer>,
}

impl Kernel {
    /// Its parameters and launch requirements.
    pub fn abi(&self) -> &KernelAbi {
        &self.state.translated.abi
    }

    pub fn name(&self) -> &str {
        &self.state.translated.abi.name
    }

    /// The SPIR-V it was translated to.
    pub fn spirv(&self) -> &[u32] {
        &self.state.translated.spirv
    }
}
