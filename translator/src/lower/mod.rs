//! Lowering: the typed PTX module to the IR, one kernel at a time.
//!
//! This is where each PTX instruction's meaning lives: one function per instruction, in the file
//! named after its ISA section (`arith`, `cmp`, `logic`, `data`, `control`). The helpers here read
//! and write PTX operands (applying the conversions the checker recorded) and build the CFG.

mod arith;
mod atomic;
mod bounds;
mod call;
mod cmp;
mod control;
mod data;
mod device_calls;
mod div_f32;
// --- float ---
mod approx;
mod exact;
mod float;
mod half;
mod helper;
mod kept;
mod rounding;
mod softfloat;
// --- end float ---
pub mod layout;
mod logic;
mod memcheck;
mod memory;
mod special;
mod sync;
mod warp;
mod wide;
// --- integer, extended precision, logic/shift, prmt ---
mod extended;
mod int;
mod permute;
mod truth_table;
// --- data movement and conversion ---
mod convert;
// --- front end: indirect branches and calls, async copies, misc ---
mod async_copy;
mod misc;
mod video;
// --- mbarrier ---
mod mbarrier;
// --- warp-level matrix instructions ---
mod matrix;
mod wgmma;
// --- textures ---
#[cfg(test)]
mod held_tests;
mod texture;

use crate::check::Map as HashMap;

use crate::abi::{KernelAbi, ParamAbi};
use crate::check::inst::Op as PtxOp;
use crate::check::{self, Conv, Dst, FnParam, LabelId, RegId, Src, Statement};
use crate::diag::{Diagnostic, Span};
use crate::ir::{self, BinOp, BlockId, ConvOp, FpFlags, Op, Terminator, Ty, UnOp, ValueId, VarId};
use crate::profile::DeviceProfile;
use crate::types::{ScalarType, StateSpace};

pub use kept::Buffers;

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
    let checkers = profile.memcheck.then(|| memcheck::Checkers {
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
    // --- textures ---
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
        functions.push(memcheck::global_checker());
        functions.push(memcheck::arena_checker());
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

/// What a function's lowering needs to know about the kernel around it.
struct Places<'a> {
    layout: &'a layout::Layout<'a>,
    ids: &'a HashMap<check::FuncId, ir::FuncId>,
    checkers: Option<memcheck::Checkers>,
    /// Status sites of the functions lowered before this one.
    site_base: u32,
    /// The kernel's textures (shared by its functions).
    textures: &'a std::cell::RefCell<texture::KernelTextures>,
    /// The kernel's helper functions (shared by its functions).
    helpers: &'a std::cell::RefCell<helper::Helpers>,
    /// Bytes of the kernel's parameters in the parameter block.
    param_block: u32,
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
    cx.spare = std::mem::take(&mut kept.insts);
    cx.held.reserve(func.regs.len() + 8);
    cx.labels = (0..func.labels.len()).map(|_| cx.f.new_block()).collect();
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
    cx.room = room_for(left);
    cx.f.values.reserve(body.len() * 8);
    if func.kind == crate::ast::FunctionKind::Func {
        // Only a function that calls can be part of a cycle; its frame base starts at 0.
        if !func.calls.is_empty() {
            let base = cx.f.new_var(Ty::I64, "local.base");
            let zero = cx.konst(Ty::I64, 0);
            cx.emit_void(Op::StoreVar(base, zero));
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
                cx.room = room_for(left);
                left = left.saturating_sub(1);
                cx.span = i.span;
                cx.instruction(i);
                if i.guard.is_some() {
                    left = run(k + 1);
                }
            }
        }
    }
    // Falling off the end of a function returns (ptxas warns; it is what hardware does).
    if cx.f.block(cx.cur).term == Terminator::Unreachable {
        control::ret(&mut cx);
    }
    kept.insts = std::mem::take(&mut cx.spare);
    if cx.diags.is_empty() {
        let uses = SharedUses {
            lock: cx.uses_shared_lock,
            barrier_words: cx.uses_barrier_words,
            sites: cx.sites,
            local_base: cx.local_base,
        };
        Ok((cx.f, uses))
    } else {
        Err(cx.diags)
    }
}

/// Slots of [`Cx::konst`]'s table.
const BLOCK_CONSTS: usize = 32;

/// The instructions to make room for in a block opened with `stmts` PTX instructions to go
/// before the next label. A PTX instruction lowers to about 8 on average; a block grown one
/// push at a time was reallocated 3 or 4 times. Very long runs are capped at 1,024 instructions,
/// a quarter of the largest buffer `kept` keeps.
fn room_for(stmts: usize) -> usize {
    stmts.clamp(1, 128) * 8
}

/// The launch interface of a kernel.
pub fn kernel_abi(func: &check::Function) -> KernelAbi {
    param_layout(func).1
}

/// CUDA's parameter layout: each parameter at the next multiple of its alignment.
fn param_layout(func: &check::Function) -> (HashMap<check::LocalId, u32>, KernelAbi) {
    let n = func.params.len();
    let mut offsets = HashMap::with_capacity_and_hasher(n, Default::default());
    let mut params = Vec::with_capacity(n);
    let mut offset = 0u32;
    for p in &func.params {
        let FnParam::Var(v) = p else { continue };
        let var = func.var(*v);
        let align = var.align.max(1);
        offset = offset.next_multiple_of(align);
        let size = var.size() as u32;
        offsets.insert(*v, offset);
        params.push(ParamAbi {
            name: var.name.clone(),
            ty: var.ty,
            count: var.count.unwrap_or(0),
            vector: var.vector,
            offset,
            size,
            align,
            ptr_space: var.ptr_space,
        });
        offset += size;
    }
    let abi = KernelAbi {
        name: func.name.clone(),
        params,
        param_block_size: offset,
        push_constant_size: crate::abi::PUSH_CONSTANT_SIZE,
        static_shared_bytes: 0,
        dynamic_shared: false,
        shared_spilled: false,
        warp_scratch_bytes_per_thread: 0,
        shared_tail_bytes: 0,
        required_subgroup_size: None,
        reqntid: func.reqntid,
        maxntid: func.maxntid,
        status_codes: Vec::new(),
        textures: Default::default(),
        mem_facts: Default::default(),
    };
    (offsets, abi)
}

/// Lowering state for one function.
pub(crate) struct Cx<'a> {
    pub module: &'a check::Module,
    pub func: &'a check::Function,
    pub func_id: check::FuncId,
    pub profile: &'a DeviceProfile,
    pub layout: &'a layout::Layout<'a>,
    /// IR function of each PTX function in the call graph.
    pub ids: &'a HashMap<check::FuncId, ir::FuncId>,
    /// Offsets of kernel parameters in the parameter block.
    pub params: HashMap<check::LocalId, u32>,
    /// Bytes of the kernel's parameters in the parameter block.
    pub param_block: u32,
    /// The last address resolved to a kernel parameter at a constant offset, with that
    /// offset in the block: an access there needs no memory check.
    pub param_access: Option<(ValueId, u64)>,
    pub f: ir::Function,
    pub cur: BlockId,
    /// The capacity a block gets at its first instruction (see [`room_for`]).
    room: usize,
    /// The variable of each register component (`4 * register + component`), plus one; 0
    /// before its first use. Looked up for every register operand, so indexed, not hashed.
    regs: Vec<u32>,
    /// Per variable: the value it holds at the end of what has been lowered into the current
    /// block so far (its last store or load there), valid while the stamp is `held_epoch`.
    held: Vec<(u32, ValueId)>,
    held_epoch: u32,
    held_block: BlockId,
    /// Constants made in the current block, by a hash of value and type (a collision
    /// forgets the older one), valid under the stamp of `held`: lowering asks for 0, 1,
    /// shift counts and sizes over and over.
    consts: [(u32, Ty, u64, ValueId); BLOCK_CONSTS],
    /// The high halves of `.b128` registers (`wide.rs`).
    regs_high: crate::check::Map<(RegId, u8), VarId>,
    /// `.param` variables of device functions and call sites, as 32-bit words.
    pub param_words: HashMap<check::LocalId, Vec<VarId>>,
    /// A 64-bit shared atomic needs the arena's lock word cleared at kernel entry.
    pub uses_shared_lock: bool,
    /// Counted barriers with native warps need their words cleared at kernel entry.
    pub uses_barrier_words: bool,
    labels: Vec<BlockId>,
    pub diags: Vec<Diagnostic>,
    /// The instruction being lowered, for diagnostics.
    pub span: Span,
    /// Missing features already reported, per instruction.
    refused: Vec<(Span, &'static str)>,
    /// Memory checking's functions, when on.
    pub checkers: Option<memcheck::Checkers>,
    /// This function's status sites (`ir::Module::status_sites`), numbered from `site_base + 1`.
    pub sites: Vec<(Span, String)>,
    pub site_base: u32,
    /// The condition-code carry flag CC.CF, once an instruction uses it (`extended.rs`).
    pub carry_flag: Option<VarId>,
    /// The kernel's texture slots and bindings (`texture.rs`).
    pub textures: &'a std::cell::RefCell<texture::KernelTextures>,
    /// Emptied instruction buffers of the kernels translated before (`kept.rs`).
    spare: Vec<Vec<ir::Inst>>,
    /// The kernel's helper functions (`helper.rs`).
    helpers: &'a std::cell::RefCell<helper::Helpers>,
    /// The variable holding the thread's linear index in its block, once read
    /// (`special::linear_tid`).
    linear_tid: Option<VarId>,
    /// The substitute clock's counter, once read (`special::counter`).
    clock_counter: Option<VarId>,
    /// In a function that calls others: the variable its `.local` addresses are relative to
    /// (0, unless recursion gives each activation its own frame: `ir::recursion`).
    local_base: Option<VarId>,
}

impl<'a> Cx<'a> {
    /// A context for lowering PTX function `func` (with its id) into `f`, with nothing lowered
    /// yet.
    fn new(
        module: &'a check::Module,
        (func, func_id): (&'a check::Function, check::FuncId),
        profile: &'a DeviceProfile,
        places: &Places<'a>,
        f: ir::Function,
    ) -> Self {
        Cx {
            module,
            func,
            func_id,
            profile,
            params: HashMap::default(),
            param_block: places.param_block,
            param_access: None,
            layout: places.layout,
            ids: places.ids,
            cur: f.entry,
            f,
            room: 0,
            regs: Vec::new(),
            held: Vec::new(),
            held_epoch: 1,
            held_block: BlockId(u32::MAX),
            consts: [(0, Ty::Bool, 0, ValueId(0)); BLOCK_CONSTS],
            regs_high: crate::check::Map::default(),
            param_words: HashMap::default(),
            uses_shared_lock: false,
            uses_barrier_words: false,
            labels: Vec::new(),
            diags: Vec::new(),
            span: func.span,
            refused: Vec::new(),
            checkers: places.checkers,
            sites: Vec::new(),
            site_base: places.site_base,
            carry_flag: None,
            textures: places.textures,
            spare: Vec::new(),
            helpers: places.helpers,
            linear_tid: None,
            clock_counter: None,
            local_base: None,
        }
    }

    /// A context for a helper function `f` of this kernel (`helper.rs`): the kernel's tables,
    /// none of this function's registers, labels or memory checking.
    fn for_helper(&self, f: ir::Function) -> Cx<'a> {
        let places = Places {
            layout: self.layout,
            ids: self.ids,
            checkers: None,
            site_base: 0,
            textures: self.textures,
            helpers: self.helpers,
            param_block: self.param_block,
        };
        let mut cx = Cx::new(
            self.module,
            (self.func, self.func_id),
            self.profile,
            &places,
            f,
        );
        cx.span = self.span;
        cx
    }

    /// The function a helper context built, and what it reported (a missing device feature
    /// names the instruction that made the helper).
    fn into_function(self) -> (ir::Function, Vec<Diagnostic>) {
        (self.f, self.diags)
    }
}

impl Cx<'_> {
    fn start_label(&mut self, l: LabelId) {
        let b = self.labels[l.0 as usize];
        if self.f.block(self.cur).term == Terminator::Unreachable {
            self.f.block_mut(self.cur).term = Terminator::Jump(b);
        }
        self.cur = b;
    }

    pub fn label_block(&self, l: LabelId) -> BlockId {
        self.labels[l.0 as usize]
    }

    /// Ends the current block with `term` and continues in a new (possibly unreachable) block.
    pub fn terminate(&mut self, term: Terminator) -> BlockId {
        self.f.block_mut(self.cur).term = term;
        let next = self.f.new_block();
        self.cur = next;
        next
    }

    fn instruction(&mut self, i: &check::Inst) {
        let Some(g) = i.guard else {
            self.op(&i.op);
            return;
        };
        let mut p = self.read_reg(g.pred, None, ScalarType::Pred);
        if g.negated {
            p = self.emit(Ty::Bool, Op::Un(UnOp::Not, p));
        }
        // Guarded branches and returns become conditional terminators; anything else runs in a
        // block of its own that the guard skips.
        let next = self.f.new_block();
        let target = match &i.op {
            PtxOp::Bra(b) => Some(self.label_block(b.target)),
            _ => None,
        };
        if let Some(t) = target {
            self.f.block_mut(self.cur).term = Terminator::Branch {
                cond: p,
                then: t,
                else_: next,
            };
            self.cur = next;
            return;
        }
        let then = self.f.new_block();
        self.f.block_mut(self.cur).term = Terminator::Branch {
            cond: p,
            then,
            else_: next,
        };
        self.cur = then;
        // The guarded block holds this instruction alone; the rest of the run goes to `next`.
        let room = std::mem::replace(&mut self.room, room_for(1));
        self.op(&i.op);
        self.room = room;
        if self.f.block(self.cur).term == Terminator::Unreachable {
            self.f.block_mut(self.cur).term = Terminator::Jump(next);
        }
        self.cur = next;
    }

    fn op(&mut self, op: &PtxOp) {
        match op {
            PtxOp::Add(a) => arith::add(self, a),
            PtxOp::Sub(a) => arith::sub(self, a),
            PtxOp::Mul(a) => arith::mul(self, a),
            PtxOp::Mad(a) => arith::mad(self, a),
            PtxOp::Div(a) => arith::div(self, a),
            PtxOp::Rem(a) => arith::rem(self, a),
            PtxOp::Abs(a) => arith::abs(self, a),
            PtxOp::Neg(a) => arith::neg(self, a),
            PtxOp::Min(a) => arith::min_max(self, a, false),
            PtxOp::Max(a) => arith::min_max(self, a, true),
            PtxOp::Setp(s) => cmp::setp(self, s),
            PtxOp::Selp(a) => cmp::selp(self, a),
            PtxOp::And(a) => logic::bitwise(self, a, BinOp::And),
            PtxOp::Or(a) => logic::bitwise(self, a, BinOp::Or),
            PtxOp::Xor(a) => logic::bitwise(self, a, BinOp::Xor),
            PtxOp::Not(a) => logic::not(self, a),
            PtxOp::Shl(a) => logic::shl(self, a),
            PtxOp::Shr(a) => logic::shr(self, a),
            PtxOp::Mov(m) => data::mov(self, m),
            PtxOp::Ld(l) => data::ld(self, l),
            PtxOp::St(s) => data::st(self, s),
            PtxOp::Cvta(c) => data::cvta(self, c),
            PtxOp::Cvt(c) => convert::cvt(self, c),
            PtxOp::Bra(b) => control::bra(self, b),
            PtxOp::Bar(b) => sync::bar(self, b),
            PtxOp::Membar(s) => sync::membar(self, *s),
            PtxOp::Isspacep(i) => data::isspacep(self, i),
            // --- warps and atomics ---
            PtxOp::Shfl(s) => warp::shfl(self, s),
            PtxOp::Vote(v) => warp::vote(self, v),
            PtxOp::Match(m) => warp::match_sync(self, m),
            PtxOp::ActiveMask(d) => warp::activemask(self, d),
            PtxOp::Redux(r) => warp::redux(self, r),
            PtxOp::WarpSync(m) => warp::warp_sync(self, m),
            PtxOp::Atom(a) => atomic::atom(self, a),
            // --- data movement and conversion ---
            PtxOp::CvtPack(p) => convert::cvt_pack(self, p),
            PtxOp::CvtNarrow(c) => convert::cvt_narrow(self, c),
            PtxOp::Mbarrier(b) => mbarrier::mbarrier(self, b),
            PtxOp::MbarrierPending(p) => mbarrier::pending_count(self, p),
            PtxOp::Prefetch => {}
            PtxOp::Call(c) => call::call(self, c),
            PtxOp::Ret => control::ret(self),
            PtxOp::Exit => control::exit(self),
            PtxOp::Trap { breakpoint } => control::trap(self, *breakpoint),
            // --- float ---
            PtxOp::Float(f) => float::lower(self, f),
            PtxOp::Set(s) => cmp::set(self, s),
            PtxOp::Slct(s) => cmp::slct(self, s),
            // --- end float ---
            // --- integer, extended precision, logic/shift, prmt ---
            PtxOp::Carry(c) => extended::carry(self, c),
            PtxOp::Simd(s) => int::simd(self, s),
            PtxOp::Mul24(a) | PtxOp::Mad24(a) => int::mul24(self, a),
            PtxOp::Sad(a) => int::sad(self, a),
            PtxOp::Popc(a) => int::popc(self, a),
            PtxOp::Clz(a) => int::clz(self, a),
            PtxOp::Bfind(b) => int::bfind(self, b),
            PtxOp::Brev(a) => int::brev(self, a),
            PtxOp::Bfe(a) => int::bfe(self, a),
            PtxOp::Bfi(a) => int::bfi(self, a),
            PtxOp::Bmsk(m) => int::bmsk(self, m),
            PtxOp::Szext(m) => int::szext(self, m),
            PtxOp::Dp4a(d) | PtxOp::Dp2a(d) => int::dot(self, d),
            PtxOp::Cnot(a) => logic::cnot(self, a),
            PtxOp::Lop3(l) => logic::lop3(self, l),
            PtxOp::Shf(s) => logic::shf(self, s),
            PtxOp::Prmt(p) => permute::prmt(self, p),
            // --- front end: indirect branches and calls, async copies, misc ---
            PtxOp::BrxIdx(b) => control::brx_idx(self, b),
            PtxOp::CallIndirect(c) => call::call_indirect(self, c),
            PtxOp::AsyncCopy(a) => async_copy::async_copy(self, a),
            PtxOp::Nanosleep(t) => misc::nanosleep(self, t),
            PtxOp::NoEffect(what) => misc::no_effect(self, *what),
            PtxOp::CreatePolicy(d) => misc::create_policy(self, d),
            PtxOp::ClusterQuery(q) => misc::cluster_query(self, q),
            PtxOp::Elect(e) => warp::elect(self, e),
            PtxOp::VideoScalar(v) => video::scalar(self, v),
            PtxOp::VideoSimd(v) => video::simd(self, v),
            PtxOp::VideoMad(v) => video::mad(self, v),
            // --- warp-level matrix instructions ---
            PtxOp::Ldmatrix(l) => matrix::ldmatrix(self, l),
            PtxOp::Stmatrix(s) => matrix::stmatrix(self, s),
            PtxOp::Movmatrix(m) => matrix::movmatrix(self, m),
            PtxOp::Mma(x) => matrix::mma(self, x),
            PtxOp::Wmma(w) => matrix::wmma(self, w),
            PtxOp::Wgmma(w) => wgmma::wgmma(self, w),
            // --- textures ---
            PtxOp::Tex(t) => texture::tex(self, t),
            PtxOp::Tld4(t) => texture::tld4(self, t),
            PtxOp::Txq(q) => texture::txq(self, q),
        }
    }

    /// Reports that the current instruction needs something not implemented (or not available).
    pub fn unsupported(&mut self, what: impl Into<String>) {
        let what = what.into();
        self.diags.push(
            Diagnostic::error(self.span, format!("{what} is not supported by ptxvk yet"))
                .with_label("in this instruction"),
        );
    }

    /// Reports that the device lacks a feature the instruction needs.
    pub fn missing_feature(&mut self, feature: &str) {
        let name = self.profile.name.clone();
        self.diags.push(
            Diagnostic::error(
                self.span,
                format!("this instruction needs {feature}, which device `{name}` lacks"),
            )
            .with_label("cannot run on this device"),
        );
    }

    // ---- building IR ----

    #[inline(always)]
    pub fn emit(&mut self, ty: Ty, op: Op) -> ValueId {
        self.need_ty(ty);
        self.make_room();
        self.f.push(self.cur, ty, op)
    }

    /// Loads a register's variable, or reuses the value the current block already holds for
    /// it (`forward` would remove the load again, after every pass had carried it).
    #[inline]
    fn load_var(&mut self, var: VarId) -> ValueId {
        let stamp = self.stamp();
        if let Some(&(s, x)) = self.held.get(var.0 as usize)
            && s == stamp
        {
            return x;
        }
        self.load_var_anew(var, stamp)
    }

    #[inline(never)]
    fn load_var_anew(&mut self, var: VarId, stamp: u32) -> ValueId {
        let ty = self.f.vars[var.0 as usize].ty;
        let x = self.emit(ty, Op::LoadVar(var));
        self.hold(var, x, stamp);
        x
    }

    /// The stamp of what `held` knows about the current block: a new one for each block, and
    /// after each instruction that writes variables: calls (inlining also splits the block
    /// there, and a value used across the split would need a variable of its own) and texture
    /// operations.
    #[inline]
    fn stamp(&mut self) -> u32 {
        if self.cur != self.held_block {
            self.held_block = self.cur;
            self.held_epoch += 1;
        }
        self.held_epoch
    }

    fn hold(&mut self, v: VarId, x: ValueId, stamp: u32) {
        let i = v.0 as usize;
        if self.held.len() <= i {
            self.held
                .resize(self.f.vars.len().max(i + 1), (0, ValueId(0)));
        }
        self.held[i] = (stamp, x);
    }

    /// Gives a block its expected capacity at its first instruction.
    #[inline(always)]
    fn make_room(&mut self) {
        if self.f.blocks[self.cur.0 as usize].insts.capacity() == 0 {
            self.first_room();
        }
    }

    #[inline(never)]
    fn first_room(&mut self) {
        self.f.blocks[self.cur.0 as usize].insts = kept::insts(&mut self.spare, self.room);
        // Further blocks of this PTX instruction are its own branches: short.
        self.room = room_for(1);
    }

    /// Refuses a type the device cannot hold, once per instruction and feature.
    #[inline(always)]
    fn need_ty(&mut self, ty: Ty) {
        let (have, feature) = match ty {
            Ty::F64 => (self.profile.float64, "float64 (shaderFloat64)"),
            Ty::F16 => (self.profile.float16, "float16 (shaderFloat16)"),
            Ty::I8 => (self.profile.int8, "8-bit integers (shaderInt8)"),
            Ty::I16 => (self.profile.int16, "16-bit integers (shaderInt16)"),
            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 => return,
        };
        if !have {
            self.refuse_once(feature);
        }
    }

    #[cold]
    #[inline(never)]
    fn refuse_once(&mut self, feature: &'static str) {
        if !self.refused.contains(&(self.span, feature)) {
            self.refused.push((self.span, feature));
            self.missing_feature(feature);
        }
    }

    pub fn emit_void(&mut self, op: Op) {
        self.make_room();
        let stored = if let Op::StoreVar(v, x) = op {
            Some((v, x))
        } else {
            None
        };
        let writes = matches!(op, Op::Call(_) | Op::Texture(_));
        self.f.push_void(self.cur, op);
        if let Some((v, x)) = stored {
            let stamp = self.stamp();
            self.hold(v, x, stamp);
        } else if writes {
            self.held_epoch += 1;
        }
    }

    #[inline]
    pub fn konst(&mut self, ty: Ty, bits: u64) -> ValueId {
        let stamp = self.stamp();
        let slot = (bits as usize ^ (ty as usize) << 3) % BLOCK_CONSTS;
        let (s, t, b, x) = self.consts[slot];
        if s == stamp && t == ty && b == bits {
            return x;
        }
        self.new_konst(ty, bits, stamp, slot)
    }

    #[inline(never)]
    fn new_konst(&mut self, ty: Ty, bits: u64, stamp: u32, slot: usize) -> ValueId {
        let x = self.emit(ty, Op::Const(bits));
        self.consts[slot] = (stamp, ty, bits, x);
        x
    }

    pub fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        self.bin_flags(op, a, b, FpFlags::default())
    }

    pub fn bin_flags(&mut self, op: BinOp, a: ValueId, b: ValueId, flags: FpFlags) -> ValueId {
        let ty = if op.is_compare() {
            Ty::Bool
        } else {
            self.f.ty(a)
        };
        self.emit(ty, Op::Bin(op, a, b, flags))
    }

    pub fn un(&mut self, op: UnOp, a: ValueId) -> ValueId {
        let ty = match op {
            UnOp::IsNan | UnOp::IsInf => Ty::Bool,
            _ => self.f.ty(a),
        };
        self.emit(ty, Op::Un(op, a))
    }

    #[inline]
    pub fn conv(&mut self, op: ConvOp, v: ValueId, to: Ty) -> ValueId {
        let from = self.f.ty(v);
        if from == to
            && matches!(
                op,
                ConvOp::Bitcast | ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc
            )
        {
            return v;
        }
        self.conv_anew(op, v, from, to)
    }

    #[inline(never)]
    fn conv_anew(&mut self, op: ConvOp, v: ValueId, from: Ty, to: Ty) -> ValueId {
        // The short form straight away where `v` was just made (a float operand read as bits
        // and back, an immediate widened); `ir::forward` catches the rest after lowering.
        let last = self.f.block(self.cur).insts.last();
        match last.filter(|i| i.result == Some(v)).map(|i| &i.op) {
            Some(&Op::Conv(ConvOp::Bitcast, src))
                if op == ConvOp::Bitcast && self.f.ty(src) == to =>
            {
                return src;
            }
            Some(&Op::Const(bits)) => {
                if let Some(bits) = crate::ir::forward::conv_const(op, bits, from, to) {
                    return self.konst(to, bits);
                }
            }
            _ => {}
        }
        self.emit(to, Op::Conv(op, v))
    }

    pub fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.f.ty(a);
        self.emit(ty, Op::Select(c, a, b))
    }

    pub fn ext(&mut self, op: ir::ExtOp, args: &[ValueId], flags: FpFlags) -> ValueId {
        let ty = self.f.ty(args[0]);
        self.emit(ty, Op::Ext(op, args.into(), flags))
    }

    /// Reinterprets `v` as an integer of its own width.
    #[inline]
    pub fn as_int(&mut self, v: ValueId) -> ValueId {
        let ty = self.f.ty(v);
        match ty {
            Ty::Bool => {
                let one = self.konst(Ty::I32, 1);
                let zero = self.konst(Ty::I32, 0);
                self.select(v, one, zero)
            }
            t if t.is_float() => self.conv(ConvOp::Bitcast, v, Ty::int(t.bits())),
            _ => v,
        }
    }

    /// Changes `v`'s representation to `to`, of the same width (bitcast), or, for a predicate,
    /// compares with zero.
    #[inline]
    pub fn reinterpret(&mut self, v: ValueId, to: Ty) -> ValueId {
        if self.f.ty(v) == to {
            return v;
        }
        self.reinterpret_as(v, to)
    }

    #[inline(never)]
    fn reinterpret_as(&mut self, v: ValueId, to: Ty) -> ValueId {
        if to == Ty::Bool {
            let i = self.as_int(v);
            let z = self.konst(self.f.ty(i), 0);
            return self.bin(BinOp::INe, i, z);
        }
        let i = self.as_int(v);
        let ib = self.f.ty(i).bits();
        let i = if ib < to.bits() {
            self.conv(ConvOp::ZExt, i, Ty::int(to.bits()))
        } else if ib > to.bits() {
            self.conv(ConvOp::Trunc, i, Ty::int(to.bits()))
        } else {
            i
        };
        self.conv(ConvOp::Bitcast, i, to)
    }

    // ---- PTX operands ----

    /// Every operand asks for its register's variable: the known case is inlined, the first
    /// request (which declares it) is not.
    #[inline]
    pub fn reg_var(&mut self, reg: RegId, comp: Option<crate::ast::Component>) -> VarId {
        let slot = reg.0 as usize * 4 + comp.map_or(0, |c| c.index());
        if let Some(&v) = self.regs.get(slot)
            && v != 0
        {
            return VarId(v - 1);
        }
        self.new_reg_var(reg, comp, slot)
    }

    #[inline(never)]
    fn new_reg_var(
        &mut self,
        reg: RegId,
        comp: Option<crate::ast::Component>,
        slot: usize,
    ) -> VarId {
        let ty = Ty::of(self.func.reg(reg).ty);
        self.need_ty(ty);
        let name = ir::VarName::Reg {
            func: self.func_id.0,
            reg: reg.0,
            comp: comp.map(|c| c.index() as u8),
        };
        let v = self.f.new_var(ty, name);
        if let Some(s) = self.regs.get_mut(slot) {
            *s = v.0 + 1;
        }
        v
    }

    fn read_reg(
        &mut self,
        reg: RegId,
        comp: Option<crate::ast::Component>,
        ty: ScalarType,
    ) -> ValueId {
        let var = self.reg_var(reg, comp);
        let v = self.load_var(var);
        self.reinterpret(v, Ty::of(ty))
    }

    /// The value of a source operand, as instruction type `ty`.
    pub fn read(&mut self, src: &Src, ty: ScalarType) -> ValueId {
        let want = Ty::of(ty);
        match src {
            Src::Reg {
                reg,
                comp,
                conv,
                ty: rty,
            } => {
                let var = self.reg_var(*reg, *comp);
                let v = self.load_var(var);
                match conv {
                    Conv::Chop => {
                        // Keep the low bits (Table 27), then read them as the instruction type.
                        let i = self.as_int(v);
                        let t = self.conv(ConvOp::Trunc, i, Ty::int(want.bits().max(8)));
                        self.reinterpret(t, want)
                    }
                    _ => {
                        let _ = rty;
                        self.reinterpret(v, want)
                    }
                }
            }
            Src::Imm(bits) => self.konst(want, *bits),
            Src::Special(s, comp) => {
                let v = special::read(self, *s, *comp);
                if want == Ty::Bool {
                    return v;
                }
                let t = if want.bits() < 32 {
                    self.conv(ConvOp::Trunc, v, Ty::int(want.bits()))
                } else {
                    v
                };
                self.reinterpret(t, want)
            }
            Src::AddressOf(a) => {
                let (var, off) = **a;
                let a = data::address_of(self, var, off);
                let a = if want.bits() < 64 {
                    self.conv(ConvOp::Trunc, a, Ty::int(want.bits()))
                } else {
                    a
                };
                self.reinterpret(a, want)
            }
            Src::NotPred(inner) => {
                let v = self.read(inner, ty);
                self.un(UnOp::Not, v)
            }
            Src::Vector(_) => {
                self.unsupported("a vector operand here");
                self.konst(want, 0)
            }
            // --- front end: function addresses ---
            Src::FuncAddr(f) => {
                let a = self.konst(Ty::I64, f.address());
                let a = if want.bits() < 64 {
                    self.conv(ConvOp::Trunc, a, Ty::int(want.bits()))
                } else {
                    a
                };
                self.reinterpret(a, want)
            }
        }
    }

    /// Stores `v` (of instruction type `ty`) into a destination operand.
    pub fn write(&mut self, dst: &Dst, ty: ScalarType, v: ValueId) {
        match dst {
            Dst::Sink => {}
            Dst::Reg {
                reg,
                comp,
                conv,
                ty: rty,
            } => {
                let var = self.reg_var(*reg, *comp);
                let vty = self.f.vars[var.0 as usize].ty;
                let v = match conv {
                    Conv::Zext | Conv::Sext => {
                        let i = self.as_int(v);
                        let wide = Ty::int(rty.bits());
                        #[cfg(feature = "fault-injection")]
                        let conv = &if crate::fault::active(crate::fault::Fault::ZeroExtendSigned) {
                            Conv::Zext
                        } else {
                            *conv
                        };
                        let op = if *conv == Conv::Sext {
                            ConvOp::SExt
                        } else {
                            ConvOp::ZExt
                        };
                        let e = self.conv(op, i, wide);
                        if *rty == ScalarType::B128 {
                            self.write_high_ext(*reg, *comp, e, *conv);
                        }
                        self.reinterpret(e, vty)
                    }
                    _ => {
                        let _ = ty;
                        self.reinterpret(v, vty)
                    }
                };
                self.emit_void(Op::StoreVar(var, v));
            }
            Dst::Vector(_) => self.unsupported("a vector destination here"),
        }
    }

    /// The address of kernel parameter `v` (in the parameter block).
    pub fn param_address(&mut self, v: check::LocalId) -> Option<ValueId> {
        let Some(&off) = self.params.get(&v) else {
            self.unsupported("parameters of device functions");
            return None;
        };
        let base = self.emit(Ty::I64, Op::Builtin(ir::Builtin::ParamBase));
        // At offset 0 (the first parameter) the base is the address: no `+ 0` to fold away,
        // as `resolve` does for other addresses.
        if off == 0 {
            return Some(base);
        }
        let off = self.konst(Ty::I64, u64::from(off));
        Some(self.bin(BinOp::IAdd, base, off))
    }

    pub fn space_of(&self, v: check::VarRef) -> StateSpace {
        match v {
            check::VarRef::Global(g) => self.module.global(g).space,
            check::VarRef::Local(l) => self.func.var(l).space,
        }
    }
}

/// Register variables are named after the checked module's registers (`--emit ir`, `OpName`).
impl ir::RegisterNames for check::Module {
    fn register_name(&self, func: u32, reg: u32) -> &str {
        &self.function(check::FuncId(func)).reg(RegId(reg)).name
    }
}
