//! ptxvk-translator: NVIDIA PTX text to Vulkan SPIR-V.
//!
//! The stages, each a module whose output the next one reads:
//! [`parse`] (chumsky) -> [`check`] (ISA rules, typed module) -> [`lower`] (IR) ->
//! [`structurize`] (structured tree) -> [`emit`] (SPIR-V words and a [`KernelAbi`]).
//!
//! ```
//! use ptxvk_translator::{Program, SourceFile, DeviceProfile};
//! let src = r#"
//! .version 7.0
//! .target sm_70
//! .address_size 64
//! .visible .entry fill(.param .u64 out, .param .u32 v)
//! {
//!     .reg .b64 %rd<3>; .reg .b32 %r<3>;
//!     ld.param.u64 %rd1, [out];
//!     ld.param.u32 %r1, [v];
//!     mov.u32 %r2, %tid.x;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd1, %rd1, %rd2;
//!     st.global.u32 [%rd1], %r1;
//!     ret;
//! }
//! "#;
//! let program = Program::parse(SourceFile::new("fill.ptx", src)).unwrap();
//! let kernel = program.translate_kernel("fill", &DeviceProfile::lavapipe()).unwrap();
//! assert_eq!(kernel.abi.params.len(), 2);
//! assert_eq!(kernel.spirv[0], 0x0723_0203); // the SPIR-V magic number
//! ```

pub mod abi;
pub mod ast;
pub mod check;
pub mod diag;
pub mod emit;
#[cfg(feature = "fault-injection")]
pub mod fault;
pub mod ir;
pub mod link;
pub mod lower;
pub mod memfacts;
pub mod parse;
pub mod printf;
pub mod profile;
mod reuse;
mod scratch;
pub mod simt;
pub mod structurize;
pub mod tensor_map;
pub mod texture;
pub mod types;

use std::sync::Arc;

pub use abi::{KernelAbi, ParamAbi};
pub use diag::{Diagnostic, Diagnostics, SourceFile, Span};
pub use profile::{DeviceProfile, FloatWidths};
pub use types::{ScalarType, StateSpace};

/// A parsed and checked PTX module, ready to translate kernel by kernel.
#[derive(Clone, Debug)]
pub struct Program {
    file: Arc<SourceFile>,
    module: check::Module,
    globals: abi::GlobalsLayout,
    global_offsets: check::Map<check::GlobalId, u64>,
    warnings: Vec<Diagnostic>,
}

/// One translated kernel.
#[derive(Clone, Debug)]
pub struct KernelModule {
    pub abi: KernelAbi,
    /// SPIR-V 1.5 words for Vulkan 1.2.
    pub spirv: Vec<u32>,
    /// The kernel calls `vprintf`, `malloc` or `free`: what launches must provide.
    pub services: Option<abi::KernelServices>,
}

impl Program {
    /// Parses and checks `file`. All errors found come back together.
    pub fn parse(file: Arc<SourceFile>) -> Result<Program, Diagnostics> {
        let (module, mut diags) = {
            let (ast, mut diags) = parse::parse(&file.text);
            let module = match ast {
                Some(mut ast) if diags.iter().all(|d| d.severity != diag::Severity::Error) => {
                    check::check(&mut ast, &mut diags)
                }
                Some(mut ast) => {
                    // Check what did parse, to report its errors as well.
                    check::check(&mut ast, &mut diags);
                    None
                }
                None => None,
            };
            (module, diags)
        };
        diags.sort_by_key(|d| d.span.start);
        let has_errors = diags.iter().any(|d| d.severity == diag::Severity::Error);
        let module = match module {
            Some(module) if !has_errors => module,
            _ => return Err(Diagnostics::new(file, diags)),
        };
        let (globals, global_offsets) =
            lower::layout::globals(&module).map_err(|d| Diagnostics::new(file.clone(), d))?;
        Ok(Program {
            file,
            module,
            globals,
            global_offsets,
            warnings: diags,
        })
    }

    pub fn file(&self) -> &Arc<SourceFile> {
        &self.file
    }

    pub fn module(&self) -> &check::Module {
        &self.module
    }

    /// The module's `.global`/`.const` variables: their layout and initial contents.
    pub fn globals(&self) -> &abi::GlobalsLayout {
        &self.globals
    }

    pub fn warnings(&self) -> Diagnostics {
        Diagnostics::new(self.file.clone(), self.warnings.clone())
    }

    /// Kernel names, in source order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.module.kernels().map(|(_, f)| f.name.clone()).collect()
    }

    /// The launch interface of kernel `name` (its parameters), without translating it.
    pub fn kernel_abi(&self, name: &str) -> Option<KernelAbi> {
        let (_, f) = self.module.kernels().find(|(_, f)| f.name == name)?;
        Some(lower::kernel_abi(f))
    }

    /// Translates kernel `name` for a device described by `profile`.
    pub fn translate_kernel(
        &self,
        name: &str,
        profile: &DeviceProfile,
    ) -> Result<KernelModule, Diagnostics> {
        self.translate_named(name, profile).map(|(k, _)| k)
    }

    /// [`Program::translate_kernel`], also returning the IR the SPIR-V was emitted from (for
    /// `--emit ir`). Kernel modules do not keep it: nothing but that option reads it, and a
    /// caller holding many kernels would hold every IR too.
    pub fn translate_kernel_with_ir(
        &self,
        name: &str,
        profile: &DeviceProfile,
    ) -> Result<(KernelModule, ir::Module), Diagnostics> {
        let (k, mut ir) = self.translate_named(name, profile)?;
        ir.name_registers(&self.module);
        Ok((k, ir))
    }

    fn translate_named(
        &self,
        name: &str,
        profile: &DeviceProfile,
    ) -> Result<(KernelModule, ir::Module), Diagnostics> {
        let Some((id, f)) = self.module.kernels().find(|(_, f)| f.name == name) else {
            let known = self.kernel_names().join(", ");
            return Err(Diagnostics::new(
                self.file.clone(),
                vec![Diagnostic::error(
                    Span::default(),
                    format!("no kernel named `{name}` in this module (kernels: {known})"),
                )],
            ));
        };
        self.translate(id, f, profile, &mut crate::scratch::Scratch::default())
    }

    /// Translates the kernel `f` (function `id` of the module).
    fn translate(
        &self,
        id: check::FuncId,
        f: &check::Function,
        profile: &DeviceProfile,
        scratch: &mut crate::scratch::Scratch,
    ) -> Result<(KernelModule, ir::Module), Diagnostics> {
        let err = |d: Vec<Diagnostic>| Diagnostics::new(self.file.clone(), d);
        let (mut ir, mut abi) =
            lower::lower_kernel(&self.module, id, profile, &self.global_offsets, scratch)
                .map_err(err)?;
        let emulated = profile.warp_strategy() == profile::WarpStrategy::Emulated;
        ir::inline::inline_where(&mut ir, |g| g.must_inline(emulated));
        if let Some(limit) = profile.loop_limit {
            ir.status_sites
                .push((diag::Span::default(), profile::loop_limit_failure(limit)));
            let code = ir.status_sites.len() as u32;
            ir::loop_limit::check_at_exits(&mut ir, code);
        }
        ir::forward::module(&mut ir, &mut scratch.forward);
        let mut trees: Vec<Vec<structurize::Node>> = ir
            .functions
            .iter_mut()
            .map(|f| structurize::structurize_in(f, &mut scratch.structurize))
            .collect::<Result<_, _>>()
            .map_err(|structurize::TooDeep| {
                err(vec![
                    Diagnostic::error(
                        f.span,
                        format!(
                            "control flow of `{}` nests deeper than {} ifs and loops",
                            f.name,
                            structurize::MAX_DEPTH
                        ),
                    )
                    .with_label("in this kernel or a function it calls"),
                ])
            })?;
        match profile.warp_strategy() {
            profile::WarpStrategy::Emulated => {
                let entry = ir.entry.0 as usize;
                if let Some(words) = simt::emulate(&mut ir.functions[entry], &mut trees[entry]) {
                    ir.warp_scratch_words = words;
                    abi.warp_scratch_bytes_per_thread = 4 * words;
                }
            }
            profile::WarpStrategy::Native32 => abi.required_subgroup_size = Some(32),
            profile::WarpStrategy::Partitioned(n) => abi.required_subgroup_size = Some(n),
        }
        abi.status_codes = ir
            .status_sites
            .iter()
            .map(|(span, what)| self.site(*span, what))
            .collect();
        // The arena's tail: the lock word, the vote word of the emulation, the barrier words.
        abi.shared_tail_bytes = 4
            + if ir.warp_scratch_words > 0 { 4 } else { 0 }
            + if ir.barrier_words { 128 } else { 0 };
        let spirv = emit::emit_kernel(&ir, &trees, &abi, &mut scratch.emit, Some(&self.module))
            .map_err(|e| {
                err(vec![Diagnostic::error(
                    f.span,
                    format!("internal error while emitting SPIR-V: {e}"),
                )])
            })?;
        let services = lower::layout::kernel_services(&self.module, id, &self.global_offsets);
        Ok((
            KernelModule {
                abi,
                spirv,
                services,
            },
            ir,
        ))
    }

    /// `what` with where it happened: `file:line:col` and the instruction's text.
    fn site(&self, span: Span, what: &str) -> String {
        if span == Span::default() {
            return what.to_string();
        }
        let (line, col) = self.file.line_col(span.start);
        let text = self.file.text.get(span.range()).unwrap_or("").trim();
        format!("{what} at {}:{line}:{col} (`{text}`)", self.file.name)
    }

    /// Translates every kernel.
    pub fn translate_all(&self, profile: &DeviceProfile) -> Result<Vec<KernelModule>, Diagnostics> {
        let mut out = Vec::with_capacity(self.module.kernels().count());
        let mut errors = Vec::new();
        // By id: looking each kernel up by name made a module's translation quadratic in its
        // number of kernels.
        let mut scratch = crate::scratch::Scratch::default();
        for (id, f) in self.module.kernels() {
            match self.translate(id, f, profile, &mut scratch) {
                Ok((k, ir)) => {
                    out.push(k);
                    scratch.recycle(ir);
                }
                Err(d) => errors.extend(d.items),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(Diagnostics::new(self.file.clone(), errors))
        }
    }
}

/// Why SPIRV-Tools rejected a module.
#[derive(Debug, thiserror::Error)]
#[error("SPIR-V validation failed: {0}")]
pub struct ValidationError(pub String);

/// Validates SPIR-V for the Vulkan 1.2 environment with SPIRV-Tools (in process).
#[cfg(feature = "validate")]
pub fn validate(words: &[u32]) -> Result<(), ValidationError> {
    use spirv_tools::val::Validator;
    let v = spirv_tools::val::create(Some(spirv_tools::TargetEnv::Vulkan_1_2));
    v.validate(words, None)
        .map_err(|e| ValidationError(e.to_string()))
}

/// SPIR-V assembly text of a module.
pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    match rspirv::dr::load_words(words) {
        Ok(m) => m.disassemble(),
        Err(e) => format!("; cannot disassemble: {e}"),
    }
}
