//! The lowering context of one function, `Cx`: what it lowers (module, function, device
//! profile, the kernel's tables), what it reports (diagnostics, status sites), and the builder
//! of the IR it makes (`cx.b`, an [`ir::build::Builder`]). The builder owns the function under
//! construction, the insertion point and the per-block caches; `Cx` keeps what only lowering
//! knows: PTX registers and labels, the instruction being lowered, the diagnostics.

use crate::check::Map as HashMap;

use super::helper::{Helper, Helpers};
use super::layout;
use super::memcheck::checkers::Checkers;
use super::texture::KernelTextures;
use crate::check::{self, LabelId, RegId};
use crate::diag::{Diagnostic, Span};
use crate::ir::build::{Build, Builder, DeviceTypes};
use crate::ir::{self, BinOp, BlockId, Op, Terminator, Ty, ValueId, VarId};
use crate::profile::DeviceProfile;
use crate::types::{ScalarType, StateSpace};

/// What a function's lowering needs to know about the kernel around it.
pub(super) struct Places<'a> {
    pub(super) layout: &'a layout::Layout<'a>,
    pub(super) ids: &'a HashMap<check::FuncId, ir::FuncId>,
    pub(super) checkers: Option<Checkers>,
    /// Status sites of the functions lowered before this one.
    pub(super) site_base: u32,
    /// The kernel's textures (shared by its functions).
    pub(super) textures: &'a std::cell::RefCell<KernelTextures>,
    /// The kernel's helper functions (shared by its functions).
    pub(super) helpers: &'a std::cell::RefCell<Helpers>,
    /// Bytes of the kernel's parameters in the parameter block.
    pub(super) param_block: u32,
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
    /// The IR being built: the function, the insertion point, the per-block caches.
    pub b: Builder,
    /// The variable of each register component (`4 * register + component`), plus one; 0
    /// before its first use. Looked up for every register operand, so indexed, not hashed.
    pub(super) regs: Vec<u32>,
    /// The high halves of `.b128` registers (`wide.rs`).
    pub(super) regs_high: crate::check::Map<(RegId, u8), VarId>,
    /// `.param` variables of device functions and call sites, as 32-bit words.
    pub param_words: HashMap<check::LocalId, Vec<VarId>>,
    /// A 64-bit shared atomic needs the arena's lock word cleared at kernel entry.
    pub uses_shared_lock: bool,
    /// Counted barriers with native warps need their words cleared at kernel entry.
    pub uses_barrier_words: bool,
    pub(super) labels: Vec<BlockId>,
    pub diags: Vec<Diagnostic>,
    /// The instruction being lowered, for diagnostics.
    pub span: Span,
    /// Missing features already reported, per instruction.
    refused: Vec<(Span, &'static str)>,
    /// Memory checking's functions, when on.
    pub checkers: Option<Checkers>,
    /// This function's status sites (`ir::Module::status_sites`), numbered from `site_base + 1`.
    pub sites: Vec<(Span, String)>,
    pub site_base: u32,
    /// The condition-code carry flag CC.CF, once an instruction uses it (`extended.rs`).
    pub carry_flag: Option<VarId>,
    /// The kernel's texture slots and bindings (`texture.rs`).
    pub textures: &'a std::cell::RefCell<KernelTextures>,
    /// The kernel's helper functions (`helper.rs`).
    pub(super) helpers: &'a std::cell::RefCell<Helpers>,
    /// The variable holding the thread's linear index in its block, once read
    /// (`special::linear_tid`).
    pub(super) linear_tid: Option<VarId>,
    /// The substitute clock's counter, once read (`special::counter`).
    pub(super) clock_counter: Option<VarId>,
    /// In a function that calls others: the variable its `.local` addresses are relative to
    /// (0, unless recursion gives each activation its own frame: `ir::recursion`).
    pub(super) local_base: Option<VarId>,
}

impl<'a> Cx<'a> {
    /// A context for lowering PTX function `func` (with its id) into `f`, with nothing lowered
    /// yet.
    pub(super) fn new(
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
            b: Builder::new(
                f,
                DeviceTypes {
                    float64: profile.float64,
                    float16: profile.float16,
                    int8: profile.int8,
                    int16: profile.int16,
                },
            ),
            regs: Vec::new(),
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
            helpers: places.helpers,
            linear_tid: None,
            clock_counter: None,
            local_base: None,
        }
    }

    /// A context for a helper function `f` of this kernel (`helper.rs`): the kernel's tables,
    /// none of this function's registers, labels or memory checking.
    pub(super) fn for_helper(&self, f: ir::Function) -> Cx<'a> {
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
    pub(super) fn into_function(mut self) -> (ir::Function, Vec<Diagnostic>) {
        self.report_missing();
        (self.b.f, self.diags)
    }
}

impl Cx<'_> {
    pub(super) fn start_label(&mut self, l: LabelId) {
        let b = self.labels[l.0 as usize];
        if self.b.f.block(self.b.cur).term == Terminator::Unreachable {
            self.b.jump(b);
        }
        self.b.cur = b;
    }

    /// Starts lowering the instruction at `span`: what the builder met for the one before is
    /// reported at that one's span.
    pub(super) fn start_instruction(&mut self, span: Span) {
        self.report_missing();
        self.span = span;
    }

    pub fn label_block(&self, l: LabelId) -> BlockId {
        self.labels[l.0 as usize]
    }

    /// Reports that the current instruction needs something not implemented (or not available).
    pub fn unsupported(&mut self, what: impl Into<String>) {
        self.report_missing();
        let what = what.into();
        self.diags.push(
            Diagnostic::error(self.span, format!("{what} is not supported by ptxvk yet"))
                .with_label("in this instruction"),
        );
    }

    /// Reports that the device lacks a feature the instruction needs.
    pub fn missing_feature(&mut self, feature: &str) {
        self.report_missing();
        self.push_missing(feature);
    }

    /// Refuses a type the device cannot hold, once per instruction and feature.
    #[inline(always)]
    pub(in crate::lower) fn need_ty(&mut self, ty: Ty) {
        if let Some(feature) = self.b.lacks(ty) {
            self.report_missing();
            self.refuse_once(feature);
        }
    }

    /// Reports the features the device lacks that the builder met since the last report, at
    /// the current instruction. Called before anything else is reported and before the
    /// instruction changes, so that diagnostics keep the order in which their causes were met.
    #[inline(always)]
    pub(super) fn report_missing(&mut self) {
        if self.b.met_missing() {
            for feature in self.b.take_missing() {
                self.refuse_once(feature);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn refuse_once(&mut self, feature: &'static str) {
        if !self.refused.contains(&(self.span, feature)) {
            self.refused.push((self.span, feature));
            self.push_missing(feature);
        }
    }

    fn push_missing(&mut self, feature: &str) {
        let name = self.profile.name.clone();
        self.diags.push(
            Diagnostic::error(
                self.span,
                format!("this instruction needs {feature}, which device `{name}` lacks"),
            )
            .with_label("cannot run on this device"),
        );
    }

    /// The address of kernel parameter `v` (in the parameter block).
    pub fn param_address(&mut self, v: check::LocalId) -> Option<ValueId> {
        let Some(&off) = self.params.get(&v) else {
            self.unsupported("parameters of device functions");
            return None;
        };
        let base = self.b.emit(Ty::I64, Op::Builtin(ir::Builtin::ParamBase));
        // At offset 0 (the first parameter) the base is the address: no `+ 0` to fold away,
        // as `resolve` does for other addresses.
        if off == 0 {
            return Some(base);
        }
        let off = self.b.konst(Ty::I64, u64::from(off));
        Some(self.b.bin(BinOp::IAdd, base, off))
    }

    pub fn space_of(&self, v: check::VarRef) -> StateSpace {
        match v {
            check::VarRef::Global(g) => self.module.global(g).space,
            check::VarRef::Local(l) => self.func.var(l).space,
        }
    }
}

impl AsMut<Builder> for Cx<'_> {
    fn as_mut(&mut self) -> &mut Builder {
        &mut self.b
    }
}

impl Cx<'_> {
    /// `body(args)`, computed by the kernel's helper function for `h` (made here at its first
    /// use) and called here. `body` must compute its result from its arguments alone: the call
    /// is marked pure, which the SIMT emulation's uniformity analysis relies on.
    pub(super) fn out_of_line(
        &mut self,
        h: Helper,
        args: &[ValueId],
        body: impl FnOnce(&mut Cx<'_>, &[ValueId]) -> ValueId,
    ) -> ValueId {
        let known = self.helpers.borrow().find(h);
        let (func, ret) = match known {
            Some(found) => found,
            None => {
                let mut cx = self.for_helper(ir::Function::new(h.name()));
                let params: Vec<ValueId> = args
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let ty = self.b.f.ty(a);
                        cx.b.f.params.push(ty);
                        cx.b.emit(ty, Op::Param(i as u32))
                    })
                    .collect();
                let r = body(&mut cx, &params);
                let ret = cx.b.f.ty(r);
                cx.b.f.returns = vec![ret];
                let end = cx.b.cur;
                cx.b.f.block_mut(end).term = Terminator::Return(vec![r]);
                let (f, diags) = cx.into_function();
                self.report_missing();
                self.diags.extend(diags);
                // Made after `body`, which may have made helpers of its own.
                (self.helpers.borrow_mut().add(h, f), ret)
            }
        };
        let result = self.b.f.new_var(ret, "helper.result");
        let call = self.b.f.side.add_call(ir::Call {
            func,
            args: args.to_vec(),
            results: vec![result],
            pure: true,
        });
        self.b.emit_void(Op::Call(call));
        self.b.emit(ret, Op::LoadVar(result))
    }
}

impl Cx<'_> {
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
        let v = self.b.f.new_var(ty, name);
        if let Some(s) = self.regs.get_mut(slot) {
            *s = v.0 + 1;
        }
        v
    }

    pub(in crate::lower) fn read_reg(
        &mut self,
        reg: RegId,
        comp: Option<crate::ast::Component>,
        ty: ScalarType,
    ) -> ValueId {
        let var = self.reg_var(reg, comp);
        let v = self.b.load_var(var);
        self.b.reinterpret(v, Ty::of(ty))
    }
}
