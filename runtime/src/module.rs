//! Modules (a loaded PTX file) and kernels (one entry point, with its pipelines).

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ash::vk;
use ptxvk_translator::abi::GlobalsLayout;
use ptxvk_translator::{
    Diagnostics, KernelAbi, KernelModule, ParamAbi, Program, SourceFile, StateSpace, abi,
};
use rustc_hash::FxHashMap;

use crate::context::{Context, Vk};
use crate::error::{Error, Result};
use crate::launch::describe_param;
use crate::memory::raw::{Place, RawBuffer};
use crate::pipeline::{self, ModuleCache, PipelineKey};

/// A PTX module loaded into a context (`CUmodule`). Kernels are translated on first use and
/// their pipelines created per launch configuration, cached in memory and on disk.
///
/// ```no_run
/// use ptxvk_runtime::{Context, ContextOptions};
/// let ctx = Context::new(&ContextOptions::from_env())?;
/// let module = ctx.load_ptx("saxpy.ptx", &std::fs::read_to_string("shaders/saxpy.ptx").unwrap())?;
/// for k in module.kernels() {
///     println!("{}", k.signature()); // saxpy(.u32 n, .f32 a, .u64 x, .u64 y)
/// }
/// let saxpy = module.kernel("saxpy")?;
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
pub struct Module {
    ctx: Context,
    program: Arc<Program>,
    kernels: Mutex<HashMap<String, Arc<KernelState>>>,
    /// The module's `.global`/`.const` variables (shared by its kernels).
    globals: Arc<RawBuffer>,
    cache: Arc<ModuleCache>,
    /// Textures bound to the module's `.texref` variables.
    texrefs: Arc<Mutex<HashMap<String, crate::Texture>>>,
}

/// A kernel's name and parameters, as declared in the PTX.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInfo {
    /// The `.entry` name.
    pub name: String,
    /// Parameters in order, with their layout in the parameter block.
    pub params: Vec<ParamAbi>,
}

impl KernelInfo {
    /// `name(.u32 n, .f32 a, .u64 x)`.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{} {}", describe_param(p), p.name))
            .collect();
        format!("{}({})", self.name, params.join(", "))
    }
}

/// A module variable (`.global` or `.const`), as `cuModuleGetGlobal` gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalInfo {
    /// The variable's name.
    pub name: String,
    /// `.global` or `.const`.
    pub space: StateSpace,
    /// Its device address.
    pub address: u64,
    /// Its size in bytes.
    pub size: u64,
}

impl Context {
    /// Parses and checks PTX text; `name` is used in diagnostics (usually the file name).
    /// Module variables are allocated and initialised now; kernels are translated by
    /// [`Module::kernel`].
    pub fn load_ptx(&self, name: &str, text: &str) -> Result<Module> {
        self.check_lost()?;
        let program = Program::parse(SourceFile::new(name, text)).map_err(Error::Translate)?;
        let globals = Arc::new(globals_buffer(self, program.globals())?);
        let key = pipeline::module_key(text, self.profile());
        let cache = Arc::new(ModuleCache::open(
            self.vk(),
            self.info(),
            self.inner.cache_dir.as_deref(),
            &key,
        )?);
        Ok(Module {
            ctx: self.clone(),
            program: Arc::new(program),
            kernels: Mutex::new(HashMap::new()),
            globals,
            cache,
            texrefs: Arc::new(Mutex::new(HashMap::new())),
        })
    }
}

/// Allocates and initializes the module's globals, fixing up addresses in initializers.
fn globals_buffer(ctx: &Context, layout: &GlobalsLayout) -> Result<RawBuffer> {
    let buf = RawBuffer::new(ctx.vk(), layout.size, Place::Device)?;
    let mut init = layout.init.clone();
    init.resize(layout.size as usize, 0);
    for r in &layout.relocations {
        let addr = buf.address().wrapping_add(r.target);
        let at = r.at as usize;
        let w = r.width as usize;
        if let Some(dst) = init.get_mut(at..at + w) {
            dst.copy_from_slice(&addr.to_le_bytes()[..w]);
        }
    }
    let buf = Arc::new(buf);
    ctx.write_raw(&buf, 0, &init)?;
    Arc::try_unwrap(buf).map_err(|_| Error::DeviceLost)
}

impl Module {
    fn var(&self, name: &str) -> Result<&ptxvk_translator::abi::GlobalVarAbi> {
        self.program
            .globals()
            .vars
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Error::GlobalNotFound {
                name: name.to_string(),
            })
    }

    /// A module variable's device address and size (like `cuModuleGetGlobal`).
    pub fn global(&self, name: &str) -> Result<(u64, u64)> {
        let v = self.var(name)?;
        Ok((self.globals.address() + v.offset, v.size))
    }

    /// Every module variable.
    pub fn globals(&self) -> Vec<GlobalInfo> {
        self.program
            .globals()
            .vars
            .iter()
            .map(|v| GlobalInfo {
                name: v.name.clone(),
                space: v.space,
                address: self.globals.address() + v.offset,
                size: v.size,
            })
            .collect()
    }

    /// Copies bytes into module variable `name` at `offset` (after all queued work).
    pub fn write_global(&self, name: &str, offset: u64, data: &[u8]) -> Result<()> {
        let v = self.var(name)?;
        let need = offset.saturating_add(data.len() as u64);
        if need > v.size {
            return Err(Error::BufferTooSmall {
                what: format!("write to `{name}`"),
                have: v.size,
                need,
            });
        }
        self.ctx.write_raw(&self.globals, v.offset + offset, data)
    }

    /// Copies module variable `name` out (after all queued work).
    pub fn read_global(&self, name: &str) -> Result<Vec<u8>> {
        let v = self.var(name)?;
        let mut out = vec![0u8; v.size as usize];
        self.ctx.read_raw(&self.globals, v.offset, &mut out)?;
        Ok(out)
    }

    /// The checked PTX.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The kernels (`.entry` functions) of the module.
    pub fn kernel_names(&self) -> Vec<String> {
        self.program.kernel_names()
    }

    /// The kernels with their parameters (no translation needed).
    pub fn kernels(&self) -> Vec<KernelInfo> {
        self.program
            .kernel_names()
            .into_iter()
            .filter_map(|name| {
                let abi = self.program.kernel_abi(&name)?;
                Some(KernelInfo {
                    name,
                    params: abi.params,
                })
            })
            .collect()
    }

    /// Whether the pipeline cache for this module was found on disk when it was loaded.
    pub fn pipeline_cache_loaded(&self) -> bool {
        self.cache.loaded
    }

    /// Translates (once) and prepares kernel `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        self.ctx.check_lost()?;
        let mut cache = self.kernels.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(k) = cache.get(name) {
            return Ok(Kernel {
                ctx: self.ctx.clone(),
                state: k.clone(),
                globals: self.globals.clone(),
                texrefs: self.texrefs.clone(),
            });
        }
        if !self.program.kernel_names().iter().any(|k| k == name) {
            return Err(Error::KernelNotFound {
                name: name.to_string(),
                available: self.program.kernel_names().join(", "),
            });
        }
        let translated = translate(&self.ctx, &self.program, name, self.ctx.profile())?;
        let state = Arc::new(KernelState::new(
            self.ctx.vk(),
            self.cache.clone(),
            self.program.clone(),
            translated,
        )?);
        cache.insert(name.to_string(), state.clone());
        Ok(Kernel {
            ctx: self.ctx.clone(),
            state,
            globals: self.globals.clone(),
            texrefs: self.texrefs.clone(),
        })
    }

    /// Binds `texture` to the module's `.texref` (or legacy `.tex`) variable `name`
    /// (`cuTexRefSetArray`): launches after this read it there. The binding keeps the texture
    /// alive; binding again replaces it.
    pub fn bind_texref(&self, name: &str, texture: &crate::Texture) -> Result<()> {
        let is_texref =
            self.program.module().globals.iter().any(|g| {
                g.name == name && g.opaque == Some(ptxvk_translator::texture::Opaque::TexRef)
            });
        if !is_texref {
            return Err(Error::InvalidArgument(format!(
                "the module has no .texref named `{name}`"
            )));
        }
        if !Arc::ptr_eq(texture.context().vk(), self.ctx.vk()) {
            return Err(Error::InvalidArgument(
                "the texture belongs to another context".into(),
            ));
        }
        // The variable holds the handle too, as `mov.u64 %rd, tex` + `ld` would read it.
        self.write_global(name, 0, &texture.handle().to_le_bytes())?;
        self.texrefs
            .lock()
            .map_err(|_| Error::DeviceLost)?
            .insert(name.to_string(), texture.clone());
        Ok(())
    }
}

/// Translates kernel `name` for `profile`.
#[cfg_attr(not(feature = "validate"), allow(unused_variables))]
pub(crate) fn translate(
    ctx: &Context,
    program: &Program,
    name: &str,
    profile: &ptxvk_translator::DeviceProfile,
) -> Result<KernelModule> {
    let translated = program
        .translate_kernel(name, profile)
        .map_err(|d| translate_error(name, d))?;
    // With validation on, the SPIR-V is checked by SPIRV-Tools too (the layer does not).
    #[cfg(feature = "validate")]
    if ctx.validation_enabled() {
        ptxvk_translator::validate(&translated.spirv).map_err(|e| Error::InvalidSpirv {
            kernel: name.to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(translated)
}

/// Tells "the device lacks a feature" apart from other translation errors.
fn translate_error(kernel: &str, d: Diagnostics) -> Error {
    // The translator marks these diagnostics with this label (`lower::missing_feature`).
    let errors: Vec<_> = d
        .items
        .iter()
        .filter(|i| i.severity == ptxvk_translator::diag::Severity::Error)
        .collect();
    let features: Vec<String> = errors
        .iter()
        .filter(|i| i.label == "cannot run on this device")
        .map(|i| {
            let m = i.message.trim_start_matches("this instruction needs ");
            m.split(", which device").next().unwrap_or(m).to_string()
        })
        .collect();
    if !features.is_empty() && features.len() == errors.len() {
        Error::DeviceLacks {
            kernel: kernel.to_string(),
            features,
            diagnostics: d,
        }
    } else {
        Error::Translate(d)
    }
}

pub(crate) struct KernelState {
    pub(crate) vk: Arc<Vk>,
    pub(crate) cache: Arc<ModuleCache>,
    /// The module it was translated from, for the variant below.
    pub(crate) program: Arc<Program>,
    /// The kernel translated with its shared arena in device memory, for launches whose shared
    /// memory the device's cannot hold (`spill.rs`); made on the first such launch.
    pub(crate) spilled: Mutex<Option<Arc<KernelState>>>,
    /// The kernel translated for blocks whose lanes are not `%tid.x % 32`, where this one
    /// relies on them being (`KernelAbi::lane_shaped_blocks`); made on the first such launch.
    pub(crate) unshaped: Mutex<Option<Arc<KernelState>>>,
    pub translated: KernelModule,
    entry: CString,
    shader: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
    /// Looked up at every launch: hashed with rustc-hash's FxHasher, whose few multiplies
    /// cost a tenth of the default SipHash's rounds; the keys are our own, not an attacker's.
    /// With each pipeline, whether a launch has dispatched it yet (`wait.rs`).
    pipelines: Mutex<FxHashMap<PipelineKey, (vk::Pipeline, bool)>>,
    /// Descriptor set 0 of kernels that sample textures.
    pub textures: Option<crate::texture::bind::KernelTextures>,
}

impl KernelState {
    pub(crate) fn new(
        vk: &Arc<Vk>,
        cache: Arc<ModuleCache>,
        program: Arc<Program>,
        translated: KernelModule,
    ) -> Result<KernelState> {
        let entry = CString::new(abi::entry_point_name(&translated.abi.name).into_owned())
            .map_err(|_| Error::InvalidArgument("a kernel name contains a NUL character".into()))?;
        let textures = crate::texture::bind::KernelTextures::new(vk, &translated.abi.textures)?;
        let set_layouts: Vec<vk::DescriptorSetLayout> =
            textures.iter().map(|t| t.set_layout).collect();
        let (shader, layout) = pipeline::shader_and_layout(
            vk,
            &translated.spirv,
            abi::PUSH_CONSTANT_SIZE,
            &set_layouts,
        )?;
        Ok(KernelState {
            vk: vk.clone(),
            cache,
            program,
            spilled: Mutex::new(None),
            unshaped: Mutex::new(None),
            translated,
            entry,
            shader,
            layout,
            pipelines: Mutex::new(FxHashMap::default()),
            textures,
        })
    }

    /// The pipeline for `key`, created on first use, and whether the launch asking for it
    /// dispatches it first (it is then counted as dispatched; see [`Self::not_dispatched`]).
    #[inline]
    pub(crate) fn pipeline(&self, key: PipelineKey) -> Result<(vk::Pipeline, bool)> {
        let mut pipelines = self.pipelines.lock().map_err(|_| Error::DeviceLost)?;
        if let Some((p, dispatched)) = pipelines.get_mut(&key) {
            return Ok((*p, !std::mem::replace(dispatched, true)));
        }
        let p = pipeline::create_pipeline(
            &self.vk,
            self.cache.cache,
            self.shader,
            self.layout,
            &self.entry,
            &key,
            &self.translated.abi,
        )?;
        self.cache.dirty.store(true, Ordering::Release);
        pipelines.insert(key, (p, true));
        tracing::debug!(kernel = %self.translated.abi.name, ?key, "created pipeline");
        Ok((p, true))
    }

    /// Counts the pipeline for `key` as not dispatched again, after the launch that would have
    /// dispatched it first failed before it was recorded.
    pub(crate) fn not_dispatched(&self, key: PipelineKey) {
        if let Ok(mut pipelines) = self.pipelines.lock()
            && let Some((_, dispatched)) = pipelines.get_mut(&key)
        {
            *dispatched = false;
        }
    }
}

impl Drop for KernelState {
    fn drop(&mut self) {
        if self.vk.is_lost() {
            return;
        }
        let dev = &self.vk.device;
        // SAFETY: launches keep their kernel's state alive until they complete, so no pipeline
        // is in use any more.
        unsafe {
            if let Ok(p) = self.pipelines.lock() {
                for (pipe, _) in p.values() {
                    dev.destroy_pipeline(*pipe, None);
                }
            }
            dev.destroy_pipeline_layout(self.layout, None);
            dev.destroy_shader_module(self.shader, None);
        }
    }
}

/// A kernel ready to launch (`CUfunction`). Cheap to clone; usable from several threads.
///
/// See [`Kernel::launch`] (synchronous) and [`crate::Stream::launch`] (queued).
#[derive(Clone)]
pub struct Kernel {
    pub(crate) ctx: Context,
    pub(crate) state: Arc<KernelState>,
    pub(crate) globals: Arc<RawBuffer>,
    /// The module's `.texref` bindings.
    pub(crate) texrefs: Arc<Mutex<HashMap<String, crate::Texture>>>,
}

impl Kernel {
    /// Its parameters and launch requirements.
    pub fn abi(&self) -> &KernelAbi {
        &self.state.translated.abi
    }

    /// The `.entry` name.
    pub fn name(&self) -> &str {
        &self.state.translated.abi.name
    }

    /// Name and parameters.
    pub fn info(&self) -> KernelInfo {
        KernelInfo {
            name: self.name().to_string(),
            params: self.abi().params.clone(),
        }
    }

    /// The SPIR-V it was translated to.
    pub fn spirv(&self) -> &[u32] {
        &self.state.translated.spirv
    }
}
