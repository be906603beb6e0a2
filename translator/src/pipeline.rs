//! The translation of one kernel, every pass in order:
//!
//! 1. `lower`: the checked PTX module to the IR (the kernel and the functions it calls);
//! 2. `ir::recursion`: call cycles merged into loops over a stack in local memory;
//! 3. `ir::inline`: functions that exit, or synchronize under the warp emulation, inlined;
//! 4. `ir::loop_limit`: loop exits count iterations where the device needs a limit;
//! 5. `ir::forward`: block-local forwarding and cleanup;
//! 6. `structurize`: each function's CFG to a structured tree;
//! 7. `simt`: warps emulated in the kernel's tree, where the device has no 32-wide subgroups
//!    (lane reads that only matter within one device subgroup first become subgroup reads);
//! 8. `emit`: the IR and its trees to SPIR-V words.
//!
//! The device's choices travel in a [`TargetOptions`] made from the profile here, not in the
//! IR. In debug builds the IR is verified (`verify/`) after every pass, so that a pass breaking
//! an invariant a later one relies on is caught where it happens.

use crate::abi::{self, KernelAbi};
use crate::check;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::emit;
use crate::ir;
use crate::lower;
use crate::profile::{self, DeviceProfile, WarpStrategy};
use crate::simt;
use crate::structurize;
use crate::target::TargetOptions;

/// One translated kernel.
#[derive(Clone, Debug)]
pub struct KernelModule {
    pub abi: KernelAbi,
    /// SPIR-V 1.5 words for Vulkan 1.2.
    pub spirv: Vec<u32>,
    /// The kernel calls `vprintf`, `malloc` or `free`: what launches must provide.
    pub services: Option<abi::KernelServices>,
}

/// What a kernel is translated from: the checked module, where it came from, and the offsets of
/// its `.global`/`.const` variables.
pub(crate) struct Source<'a> {
    pub file: &'a SourceFile,
    pub module: &'a check::Module,
    pub global_offsets: &'a check::Map<check::GlobalId, u64>,
}

/// Each pass's own buffers, handed from one kernel's translation to the next
/// (`Program::translate_all`; `lower/kept.rs` says why).
#[derive(Default)]
pub(crate) struct Buffers {
    lower: lower::Buffers,
    forward: ir::forward::Buffers,
    structurize: structurize::Buffers,
    emit: emit::Kept,
}

impl Buffers {
    /// Keeps what can be reused of `m`, a kernel whose translation is done.
    pub fn recycle(&mut self, m: ir::Module) {
        self.lower.recycle(m);
    }
}

/// Translates kernel `id` of `src` for `profile`; also returns the IR the SPIR-V was emitted
/// from.
pub(crate) fn translate(
    src: &Source<'_>,
    id: check::FuncId,
    profile: &DeviceProfile,
    buffers: &mut Buffers,
) -> Result<(KernelModule, ir::Module), Vec<Diagnostic>> {
    let f = src.module.function(id);
    let target = TargetOptions::from_profile(profile);
    let lowered = lower::lower_kernel(
        src.module,
        id,
        profile,
        src.global_offsets,
        &mut buffers.lower,
    )?;
    let (mut ir, mut abi) = (lowered.module, lowered.abi);
    verify(&ir, "lower");

    if let Some(arena) = lowered.arena
        && ir::recursion::eliminate(&mut ir, &arena)
    {
        ir.local_words += 1 + ir::recursion::STACK_WORDS;
        ir.status_sites.push((
            Span::default(),
            format!(
                "recursion deeper than ptxvk's per-thread stack ({} KiB) in kernel `{}`",
                ir::recursion::STACK_WORDS * 4 / 1024,
                f.name
            ),
        ));
        verify(&ir, "recursion");
    }

    let emulated = target.warp == WarpStrategy::Emulated;
    ir::inline::inline_where(&mut ir, |g| g.must_inline(emulated));
    verify(&ir, "inline");

    if let Some(limit) = target.loop_limit {
        ir.status_sites
            .push((Span::default(), profile::loop_limit_failure(limit)));
        let code = ir.status_sites.len() as u32;
        ir::loop_limit::check_at_exits(&mut ir, code);
        verify(&ir, "loop_limit");
    }

    ir::forward::module(&mut ir, &mut buffers.forward);
    verify(&ir, "forward");

    let mut trees: Vec<Vec<structurize::Node>> = ir
        .functions
        .iter_mut()
        .map(|f| structurize::structurize_in(f, &mut buffers.structurize))
        .collect::<Result<_, _>>()
        .map_err(|structurize::TooDeep| {
            vec![
                Diagnostic::error(
                    f.span,
                    format!(
                        "control flow of `{}` nests deeper than {} ifs and loops",
                        f.name,
                        structurize::MAX_DEPTH
                    ),
                )
                .with_label("in this kernel or a function it calls"),
            ]
        })?;
    verify_trees(&ir, &trees, "structurize");

    match target.warp {
        WarpStrategy::Emulated => {
            let entry = ir.entry.0 as usize;
            if let Some(group) = target.lane_group
                && ir.functions[entry].may_sync
                && {
                    let calls = simt::call_effects(&ir);
                    simt::serve_in_subgroups(&mut ir.functions[entry], &trees[entry], group, &calls)
                }
            {
                abi.lane_shaped_blocks = true;
            }
            match simt::emulate(&mut ir.functions[entry], &mut trees[entry]) {
                Ok(Some(words)) => {
                    ir.warp_scratch_words = words;
                    abi.warp_scratch_bytes_per_thread = 4 * words;
                    verify_trees(&ir, &trees, "simt");
                }
                Ok(None) => {}
                Err(simt::TwoWayHandshake) => {
                    return Err(vec![
                        Diagnostic::error(
                            f.span,
                            format!(
                                "`bar.arrive` in both arms of a branch whose threads part ways, \
                                 with a wait in one of them (warps that signal each other back \
                                 and forth), needs subgroups of 32 lanes, which device `{}` lacks",
                                profile.name
                            ),
                        )
                        .with_label("in this kernel: it cannot run on this device"),
                    ]);
                }
            }
        }
        WarpStrategy::Native32 => abi.required_subgroup_size = Some(32),
        WarpStrategy::Partitioned(n) => abi.required_subgroup_size = Some(n),
    }

    abi.status_codes = ir
        .status_sites
        .iter()
        .map(|(span, what)| site(src.file, *span, what))
        .collect();
    // The arena's tail: the lock word, the vote word of the emulation, the barrier words.
    abi.shared_tail_bytes =
        4 + if ir.warp_scratch_words > 0 { 4 } else { 0 } + if ir.barrier_words { 128 } else { 0 };
    let spirv = emit::emit_kernel(
        &ir,
        &trees,
        &abi,
        &target,
        &mut buffers.emit,
        Some(src.module),
    )
    .map_err(|e| {
        vec![Diagnostic::error(
            f.span,
            format!("internal error while emitting SPIR-V: {e}"),
        )]
    })?;
    let services = lower::layout::kernel_services(src.module, id, src.global_offsets);
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
fn site(file: &SourceFile, span: Span, what: &str) -> String {
    if span == Span::default() {
        return what.to_string();
    }
    let (line, col) = file.line_col(span.start);
    let text = file.text.get(span.range()).unwrap_or("").trim();
    format!("{what} at {}:{line}:{col} (`{text}`)", file.name)
}

/// The IR after pass `pass` keeps the invariants the later passes rely on. Debug builds only,
/// like `debug_assert!`: the tests run every pass on every kernel they translate, and a
/// release build trusts what they verified.
fn verify(ir: &ir::Module, pass: &str) {
    if cfg!(debug_assertions)
        && let Err(e) = crate::verify::module(ir)
    {
        panic!("internal error: the IR after `{pass}` is broken: {e}");
    }
}

/// [`verify`] in structured form: `trees` is the control flow.
fn verify_trees(ir: &ir::Module, trees: &[Vec<structurize::Node>], pass: &str) {
    if cfg!(debug_assertions)
        && let Err(e) = crate::verify::structured(ir, trees)
    {
        panic!("internal error: the IR after `{pass}` is broken: {e}");
    }
}
