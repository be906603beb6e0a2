//! Lowering: the typed PTX module to the IR, one kernel at a time.
//!
//! This is where each PTX instruction's meaning lives: one function per instruction, in the file
//! named after its ISA section (`arith`, `cmp`, `logic`, `data`, `control`). The helpers here read
//! and write PTX operands (applying the conversions the checker recorded) and build the CFG.

mod arith;
mod async_copy;
mod atomic;
mod bounds;
mod call;
mod cmp;
mod control;
mod convert;
mod cx;
mod data;
mod device_calls;
mod dispatch;
mod extended;
mod float;
mod helper;
mod int;
mod kept;
pub mod layout;
mod logic;
mod matrix;
mod mbarrier;
mod memcheck;
mod memory;
mod misc;
mod operand;
mod permute;
#[cfg(test)]
mod reuse_in_block_tests;
mod special;
mod sync;
mod texture;
mod truth_table;
mod video;
mod warp;
mod wgmma;
mod wide;

use crate::check::Map as HashMap;
use crate::ir::build::{Build, room_for};

use crate::abi::KernelAbi;
use crate::check::{self, RegId, Statement};
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, BinOp, Op, Terminator, Ty, VarId};
use crate::profile::DeviceProfile;
use cx::{Cx, Places};
use layout::param_layout;

pub use kept::Buffers;
pub use layout::kernel_abi;

/// Lowers the kernel `kernel` of `module` (and the functions it calls) for `profile`. `globals`
/// gives the offsets of the module's `.global`/`.const` variables ([`layout::globals`]).
pub fn lower_kernel(
    module: &check::Module,
    kernel: check::FuncId,
    profile: &DeviceProfile,
    globals: &HashMap<check::GlobalId, u64>,
    kept: &mut Buffers,
) -> Result<Lowered, Vec<Diagnostic>> {
    let func = module.function(kernel);
    let (mut params, mut abi) = param_layout(func);
    let layout = layout::for_kernel(module, kernel, globals);
    let graph = layout::call_graph(module, kernel);
    let ids: HashMap<check::FuncId, ir::FuncId> = graph
        .iter()
        .enumerate()
        .map(|(i, f)| (*f, ir::FuncId(i as u32)))
        .collect();
    let mut functions = Vec::new();
    let mut diags = Vec::new();
    let (mut shared_lock, mut barrier_words) = (false, false);
    let textures = texture::KernelTextures::new(abi.param_block_size);
    let checkers = profile.memcheck.then(|| memcheck::checkers::Checkers {
        global: ir::FuncId(graph.len() as u32),
        arena: ir::FuncId(graph.len() as u32 + 1),
    });
    let helpers = std::cell::RefCell::new(helper::Helpers::new(
        graph.len() as u32 + if checkers.is_some() { 2 } else { 0 },
    ));
    // What a non-zero launch status means: `status_sites[status - 1]`.
    let mut status_sites: Vec<(Span, String)> = Vec::new();
    let mut local_bases = Vec::with_capacity(graph.len());
    for &f in &graph {
        let kernel_params = if f == kernel {
            std::mem::take(&mut params)
        } else {
            HashMap::default()
        };
        let places = Places {
            layout: &layout,
            ids: &ids,
            checkers,
            site_base: status_sites.len() as u32,
            textures: &textures,
            helpers: &helpers,
            param_block: abi.param_block_size,
        };
        match lower_function(module, f, profile, kernel_params, &places, kept) {
            Ok((irf, uses)) => {
                functions.push(irf);
                shared_lock |= uses.lock;
                barrier_words |= uses.barrier_words;
                status_sites.extend(uses.sites);
                local_bases.push(uses.local_base);
            }
            Err(d) => diags.extend(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // Textures.
    let (texture_abi, texture_bindings) = match functions.first() {
        Some(k) => textures.into_inner().finish(k)?,
        None => Default::default(),
    };
    abi.textures = texture_abi;
    if (shared_lock || barrier_words)
        && let Some(k) = functions.first_mut()
    {
        clear_shared_lock(k, barrier_words);
    }
    if layout.shared_bytes > crate::abi::MAX_SHARED_BYTES {
        return Err(vec![Diagnostic::error(
            func.span,
            format!(
                "kernel `{}` declares {} bytes of shared memory; ptxvk gives a block at most {}",
                func.name,
                layout.shared_bytes,
                crate::abi::MAX_SHARED_BYTES
            ),
        )]);
    }
    // An arena larger than the device's is placed in device memory; one that fits stays in
    // workgroup memory unless the runtime asks (a launch's dynamic part did not fit).
    let shared_spilled =
        profile.shared_in_device_memory || layout.shared_bytes > profile.max_shared_memory_bytes;
    abi.static_shared_bytes = layout.shared_bytes;
    abi.dynamic_shared = layout.dynamic_shared.is_some();
    abi.shared_spilled = shared_spilled;
    if let Some(c) = checkers
        && let Some(k) = functions.first_mut()
    {
        abi.mem_facts = bounds::prove(k, c);
    }
    if checkers.is_some() {
        functions.push(memcheck::checkers::global_checker());
        functions.push(memcheck::checkers::arena_checker());
    }
    functions.extend(helpers.into_inner().into_functions());
    // A cycle of calls needs a PTX function that calls one (memory checking's functions call
    // nothing); most kernels call nothing, and the search walks every instruction.
    let ptx_calls = graph.iter().any(|&f| !module.function(f).calls.is_empty());
    let source = module;
    let mut module = ir::Module {
        functions,
        entry: ir::FuncId(0),
        shared_words: layout.shared_bytes.div_ceil(4),
        dynamic_shared: layout.dynamic_shared.is_some(),
        shared_spilled,
        local_words: layout.local_bytes / 4,
        warp_scratch_words: 0,
        barrier_words,
        status_sites: Vec::new(),
        textures: texture_bindings,
    };
    let arena = ptx_calls.then(|| ir::recursion::LocalArena {
        stack_pointer: module.local_words,
        frames: graph
            .iter()
            .map(|&f| local_frame(&layout, source, f))
            .collect(),
        bases: local_bases,
        overflow_status: status_sites.len() as u32 + 1,
    });
    module.status_sites = status_sites;
    Ok(Lowered { module, abi, arena })
}

/// A lowered kernel: its IR, its launch interface so far, and where its functions keep their
/// `.local` frames when a call cycle needs a stack (`ir::recursion`, the pipeline's next pass).
pub struct Lowered {
    pub module: ir::Module,
    pub abi: KernelAbi,
    pub arena: Option<ir::recursion::LocalArena>,
}

/// The words of the local arena that function `f`'s own `.local` variables occupy.
fn local_frame(
    l: &layout::Layout<'_>,
    m: &check::Module,
    f: check::FuncId,
) -> std::ops::Range<u32> {
    let mut lo = u32::MAX;
    let mut hi = 0;
    for (key, off) in &l.local {
        if let layout::VarKey::Local(g, v) = key
            && *g == f
        {
            let size = m.function(f).var(*v).size() as u32;
            lo = lo.min(off / 4);
            hi = hi.max((off + size).div_ceil(4));
        }
    }
    if lo >= hi { 0..0 } else { lo..hi }
}

/// What a function's lowering reports back: the words at the end of the shared arena it uses,
/// and its status sites.
struct SharedUses {
    lock: bool,
    barrier_words: bool,
    sites: Vec<(Span, String)>,
    local_base: Option<VarId>,
}

/// Kernel entry: clear the shared arena's lock word (workgroup memory starts undefined) and the
/// counted barriers' words if any (thread 0 does those), then a barrier so that nobody uses
/// them before they are cleared.
fn clear_shared_lock(f: &mut ir::Function, barrier_words: bool) {
    let clear = f.new_block();
    let lock = f.push(clear, Ty::I32, Op::Builtin(ir::Builtin::SharedLock));
    let zero = f.push(clear, Ty::I32, Op::Const(0));
    let and_zero = |f: &mut ir::Function, b, word| {
        f.push(
            b,
            Ty::I32,
            Op::Atomic {
                op: ir::AtomicOp::And,
                ptr: ir::Ptr::Shared(word),
                value: zero,
                scope: ir::Scope::Workgroup,
                sem: ir::Ordering::Relaxed,
            },
        );
    };
    and_zero(f, clear, lock);
    let barrier = f.new_block();
    f.push_void(barrier, Op::Barrier);
    f.block_mut(barrier).term = Terminator::Jump(f.entry);
    if barrier_words {
        let mut first = None;
        for d in 0..3 {
            let id = f.push(clear, Ty::I32, Op::Builtin(ir::Builtin::LocalId(d)));
            let is0 = f.push(
                clear,
                Ty::Bool,
                Op::Bin(BinOp::IEq, id, zero, Default::default()),
            );
            first = Some(match first {
                None => is0,
                Some(p) => f.push(
                    clear,
                    Ty::Bool,
                    Op::Bin(BinOp::And, p, is0, Default::default()),
                ),
            });
        }
        let words = f.new_block();
        let base = f.push(words, Ty::I32, Op::Builtin(ir::Builtin::BarrierWords));
        for i in 0..32 {
            let k = f.push(words, Ty::I32, Op::Const(i));
            let w = f.push(
                words,
                Ty::I32,
                Op::Bin(BinOp::IAdd, base, k, Default::default()),
            );
            and_zero(f, words, w);
        }
        f.block_mut(words).term = Terminator::Jump(barrier);
        f.block_mut(clear).term = Terminator::Branch {
            cond: first.unwrap_or(zero),
            then: words,
            else_: barrier,
        };
    } else {
        f.block_mut(clear).term = Terminator::Jump(barrier);
    }
    f.entry = clear;
}

fn lower_function(
    module: &check::Module,
    id: check::FuncId,
    profile: &DeviceProfile,
    params: HashMap<check::LocalId, u32>,
    places: &Places<'_>,
    kept: &mut Buffers,
) -> Result<(ir::Function, SharedUses), Vec<Diagnostic>> {
    let func = module.function(id);
    if func.body.is_none() {
        return Err(vec![Diagnostic::error(
            func.span,
            format!(
                "`{}` is declared but not defined in this module (linking modules is not supported)",
                func.name
            ),
        )]);
    }
    // A guarded instruction opens two blocks (its own and the one after it). Counted by the
    // checker: a pass here was the first to read the body, paying its cache misses twice for
    // bodies larger than the cache.
    let guards = func.guarded as usize;
    let f = ir::Function::with_room(
        func.name.clone(),
        func.labels.len() * 2 + guards * 2 + 8,
        func.regs.len() + 8,
    );
    let mut cx = Cx::new(module, (func, id), profile, places, f);
    cx.params = params;
    cx.regs = vec![0; func.regs.len() * 4];
    cx.b.spare = std::mem::take(&mut kept.insts);
    cx.b.held.reserve(func.regs.len() + 8);
    cx.labels = (0..func.labels.len()).map(|_| cx.b.f.new_block()).collect();
    let body = func.body.as_deref().unwrap_or_default();
    // Instructions left in the current block: up to the next label or guarded instruction,
    // both of which end it (each run of them is counted once).
    let run = |from: usize| {
        let mut n = 0;
        for s in &body[from..] {
            let Statement::Inst(i) = s else { break };
            n += 1;
            if i.guard.is_some() {
                break;
            }
        }
        n
    };
    let mut left = run(0);
    cx.b.room = room_for(left);
    cx.b.f.values.reserve(body.len() * 8);
    if func.kind == crate::ast::FunctionKind::Func {
        // Only a function that calls can be part of a cycle; its frame base starts at 0.
        if !func.calls.is_empty() {
            let base = cx.b.f.new_var(Ty::I64, "local.base");
            let zero = cx.b.konst(Ty::I64, 0);
            cx.b.emit_void(Op::StoreVar(base, zero));
            cx.local_base = Some(base);
        }
        call::prologue(&mut cx);
    }
    for (k, s) in body.iter().enumerate() {
        match s {
            Statement::Label(l) => {
                cx.start_label(*l);
                left = run(k + 1);
            }
            Statement::Inst(i) => {
                cx.b.room = room_for(left);
                left = left.saturating_sub(1);
                cx.start_instruction(i.span);
                cx.instruction(i);
                if i.guard.is_some() {
                    left = run(k + 1);
                }
            }
        }
    }
    // Falling off the end of a function returns (ptxas warns; it is what hardware does).
    if cx.b.f.block(cx.b.cur).term == Terminator::Unreachable {
        control::ret(&mut cx);
    }
    cx.report_missing();
    kept.insts = std::mem::take(&mut cx.b.spare);
    if cx.diags.is_empty() {
        let uses = SharedUses {
            lock: cx.uses_shared_lock,
            barrier_words: cx.uses_barrier_words,
            sites: cx.sites,
            local_base: cx.local_base,
        };
        Ok((cx.b.f, uses))
    } else {
        Err(cx.diags)
    }
}

/// Register variables are named after the checked module's registers (`--emit ir`, `OpName`).
impl ir::RegisterNames for check::Module {
    fn register_name(&self, func: u32, reg: u32) -> &str {
        &self.function(check::FuncId(func)).reg(RegId(reg)).name
    }
}
