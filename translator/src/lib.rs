//! ptxvk-translator: NVIDIA PTX text to Vulkan SPIR-V.
//!
//! The stages, each a module whose output the next one reads:
//! [`parse`] (chumsky) -> [`check`] (ISA rules, typed module) -> [`lower`] (IR) ->
//! [`structurize`] (structured tree) -> [`emit`] (SPIR-V words and a [`KernelAbi`]).
//! `pipeline.rs` runs the passes from lowering on, in order.
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
pub mod float_format;
/// The IR interpreter the tests check passes with; not in what ships.
#[cfg(any(test, feature = "testing"))]
pub mod interp;
pub mod ir;
pub mod link;
pub mod lower;
pub mod memfacts;
pub mod parse;
mod pipeline;
pub mod printf;
pub mod profile;
mod reuse;
pub mod simt;
pub mod structurize;
pub mod target;
pub mod tensor_map;
pub mod texture;
pub mod types;
pub mod verify;

use std::sync::Arc;

pub use abi::{KernelAbi, ParamAbi};
pub use diag::{Diagnostic, Diagnostics, SourceFile, Span};
pub use pipeline::KernelModule;
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
        let Some((id, _)) = self.module.kernels().find(|(_, f)| f.name == name) else {
            let known = self.kernel_names().join(", ");
            return Err(Diagnostics::new(
                self.file.clone(),
                vec![Diagnostic::error(
                    Span::default(),
                    format!("no kernel named `{name}` in this module (kernels: {known})"),
                )],
            ));
        };
        self.translate(id, profile, &mut pipeline::Buffers::default())
    }

    /// Translates the kernel `id` of the module.
    fn translate(
        &self,
        id: check::FuncId,
        profile: &DeviceProfile,
        buffers: &mut pipeline::Buffers,
    ) -> Result<(KernelModule, ir::Module), Diagnostics> {
        let src = pipeline::Source {
            file: &self.file,
            module: &self.module,
            global_offsets: &self.global_offsets,
        };
        pipeline::translate(&src, id, profile, buffers)
            .map_err(|d| Diagnostics::new(self.file.clone(), d))
    }

    /// Translates every kernel.
    pub fn translate_all(&self, profile: &DeviceProfile) -> Result<Vec<KernelModule>, Diagnostics> {
        let mut out = Vec::with_capacity(self.module.kernels().count());
        let mut errors = Vec::new();
        // By id: looking each kernel up by name made a module's translation quadratic in its
        // number of kernels.
        let mut buffers = pipeline::Buffers::default();
        for (id, _) in self.module.kernels() {
            match self.translate(id, profile, &mut buffers) {
                Ok((k, ir)) => {
                    out.push(k);
                    buffers.recycle(ir);
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
