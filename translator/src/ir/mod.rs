//! The IR between lowering and emission.
//!
//! A function is a CFG of basic blocks. Values are SSA and live only inside the block that defines
//! them; anything that crosses blocks goes through a [`Var`] (PTX registers become vars). This keeps
//! the IR valid under any reordering the structurizer does, and the driver's own SSA construction
//! (mem2reg) removes the vars again. Memory spaces and conversions are explicit; there are no PTX
//! semantics left here, only operations that map one-to-one (or nearly) onto SPIR-V.

pub mod build;
mod display;
pub mod forward;
mod ids;
pub mod inline;
#[cfg(test)]
mod inline_tests;
pub mod loop_limit;
mod operands;
mod ops;
pub mod recursion;
mod ty;

pub use ids::{BlockId, FuncId, ValueId, VarId};
pub use operands::{Args, Call, CallId, Side, TexId, TexOp, TexOpKind};
pub use ops::{
    AtomicOp, BinOp, Builtin, ConvOp, ExtOp, FpFlags, MemOrder, Op, Ordering, Ptr, ReduceOp, Scope,
    UnOp, WarpOp,
};
pub use ty::Ty;

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    /// The kernel's function.
    pub entry: FuncId,
    /// 32-bit words of statically allocated shared memory.
    pub shared_words: u32,
    /// The kernel uses `extern .shared` memory sized at launch.
    pub dynamic_shared: bool,
    /// The shared arena is a slice of a device buffer per workgroup, not `Workgroup` memory
    /// (docs/decisions/0078-shared-memory-in-device-memory.md).
    pub shared_spilled: bool,
    /// 32-bit words of local memory per invocation.
    pub local_words: u32,
    /// Words per thread of the warp-emulation scratch (strategy "emulated"; 0: unused), which
    /// has one word more in all.
    pub warp_scratch_words: u32,
    /// The shared arena ends with the counted barriers' 32 words.
    pub barrier_words: bool,
    /// What a non-zero launch status means: `status_sites[status - 1]` (where, and what).
    pub status_sites: Vec<(crate::diag::Span, String)>,
    /// The combined image samplers of descriptor set 0, by binding number.
    pub textures: Vec<crate::texture::TextureBinding>,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub ty: Ty,
    /// For debugging output only.
    pub name: VarName,
}

/// A variable's name, for debugging output only (`OpName`, the IR's text form).
#[derive(Clone, Debug, PartialEq)]
pub enum VarName {
    /// A name the translator gives its own variables.
    Fixed(&'static str),
    /// A name made from others.
    Owned(std::sync::Arc<str>),
    /// PTX register `reg` (its component `comp`: 0 to 3 for x to w) of function `func` of the
    /// module the IR was lowered from, looked up only where it is shown ([`VarName::text`]):
    /// making a register's variable then touches nothing of the register's name (cloning it
    /// wrote to the name's reference count, memory the parser left long ago).
    Reg {
        func: u32,
        reg: u32,
        comp: Option<u8>,
    },
}

/// The names of the PTX registers an IR was lowered from, for [`VarName::Reg`]. The IR keeps
/// the numbers alone, so that it depends on no front end.
pub trait RegisterNames {
    /// The name of register `reg` of function `func`.
    fn register_name(&self, func: u32, reg: u32) -> &str;
}

impl VarName {
    /// The name, with registers looked up in `module` (the one the IR was lowered from);
    /// without it a register is named by its number (`%reg3`).
    pub fn text<'a>(&'a self, module: Option<&'a dyn RegisterNames>) -> std::borrow::Cow<'a, str> {
        use std::borrow::Cow;
        let (func, reg, comp) = match self {
            VarName::Fixed(s) => return Cow::Borrowed(s),
            VarName::Owned(s) => return Cow::Borrowed(s),
            VarName::Reg { func, reg, comp } => (*func, *reg, *comp),
        };
        let name: Cow<'a, str> = match module {
            Some(m) => Cow::Borrowed(m.register_name(func, reg)),
            None => Cow::Owned(format!("%reg{reg}")),
        };
        match comp {
            Some(c) => {
                let c = ["X", "Y", "Z", "W"].get(usize::from(c)).unwrap_or(&"?");
                Cow::Owned(format!("{name}.{c}"))
            }
            None => name,
        }
    }
}

impl Module {
    /// Gives register variables their names from `source`, the module the IR was lowered
    /// from, for the IR's text form.
    pub fn name_registers(&mut self, source: &dyn RegisterNames) {
        for f in &mut self.functions {
            for v in &mut f.vars {
                if let VarName::Reg { .. } = v.name {
                    v.name = VarName::Owned(v.name.text(Some(source)).into());
                }
            }
        }
    }
}

impl std::fmt::Display for VarName {
    /// Registers by number: without the module their names are not known.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text(None))
    }
}

impl From<&'static str> for VarName {
    fn from(s: &'static str) -> Self {
        VarName::Fixed(s)
    }
}

impl From<String> for VarName {
    fn from(s: String) -> Self {
        VarName::Owned(s.into())
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<Ty>,
    pub returns: Vec<Ty>,
    pub vars: Vec<Var>,
    /// The type of each value.
    pub values: Vec<Ty>,
    pub blocks: Vec<Block>,
    pub entry: BlockId,
    /// The calls and texture operations its instructions index.
    pub side: Side,
    /// Whether a synchronization operation ([`Op::is_sync`]) was ever added (by `push`,
    /// `push_void` or `inline::copy_body`): when not, passes skip looking for one in each
    /// block. It may stay set after the operation is gone.
    pub may_sync: bool,
}

impl Function {
    pub fn new(name: impl Into<String>) -> Self {
        Function::with_room(name, 1, 0)
    }

    /// A function whose block and variable tables start with room for `blocks` and `vars`
    /// (grown one push at a time, they were reallocated several times per function).
    pub fn with_room(name: impl Into<String>, blocks: usize, vars: usize) -> Self {
        let mut f = Function {
            name: name.into(),
            params: Vec::new(),
            returns: Vec::new(),
            vars: Vec::with_capacity(vars),
            values: Vec::new(),
            blocks: Vec::with_capacity(blocks.max(1)),
            entry: BlockId(0),
            side: Side::default(),
            may_sync: false,
        };
        f.entry = f.new_block();
        f
    }

    /// Whether the pipeline inlines this function into its callers: it `exit`s (a compute
    /// shader ends the invocation only from its entry point), or, where warps are emulated
    /// (`emulated`), it synchronizes (the SIMT emulation works on the kernel alone).
    pub fn must_inline(&self, emulated: bool) -> bool {
        self.blocks
            .iter()
            .any(|b| b.term == Terminator::Exit || (emulated && self.may_sync && b.syncs()))
    }

    /// Per variable: whether an instruction loads, stores or writes it (a call's or texture
    /// operation's result). `forward` leaves the ones it made unused in `vars`.
    pub fn mentioned_vars(&self) -> Vec<bool> {
        let mut mentioned = vec![false; self.vars.len()];
        for inst in self.blocks.iter().flat_map(|b| &b.insts) {
            inst.op.mention_vars(&self.side, &mut mentioned);
        }
        mentioned
    }

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        });
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn new_var(&mut self, ty: Ty, name: impl Into<VarName>) -> VarId {
        self.vars.push(Var {
            ty,
            name: name.into(),
        });
        VarId(self.vars.len() as u32 - 1)
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.0 as usize]
    }

    pub fn ty(&self, v: ValueId) -> Ty {
        self.values[v.0 as usize]
    }

    /// Appends an instruction with a result of type `ty` to block `b`.
    #[inline]
    pub fn push(&mut self, b: BlockId, ty: Ty, op: Op) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ty);
        self.may_sync |= op.is_sync();
        self.blocks[b.0 as usize].insts.push(Inst {
            result: Some(id),
            op,
        });
        id
    }

    /// Appends an instruction without a result.
    #[inline]
    pub fn push_void(&mut self, b: BlockId, op: Op) {
        self.may_sync |= op.is_sync();
        self.blocks[b.0 as usize]
            .insts
            .push(Inst { result: None, op });
    }

    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        self.block(b).term.successors()
    }

    /// Records `code` (non-zero) in the launch's status word unless an earlier failure did
    /// (compare-and-swap with 0: the first one wins). Returns the status word's address.
    pub fn report_status(&mut self, b: BlockId, code: ValueId) -> ValueId {
        let status = self.push(b, Ty::I64, Op::Builtin(Builtin::StatusAddress));
        let zero = self.push(b, Ty::I32, Op::Const(0));
        self.push(
            b,
            Ty::I32,
            Op::AtomicCas {
                ptr: Ptr::Global(status),
                compare: zero,
                value: code,
                scope: Scope::Device,
                sem: Ordering::Relaxed,
            },
        );
        status
    }
}

#[derive(Clone, Debug)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

/// The thread's index in its block, x fastest, from `LocalInvocationId` and the block size,
/// with `emit` adding each instruction. Where warps are emulated this is what `%laneid` and the
/// SIMT emulation's scratch slots both follow (lane = index % 32): one definition for both.
pub fn linear_local_id(mut emit: impl FnMut(Ty, Op) -> ValueId) -> ValueId {
    let x = emit(Ty::I32, Op::Builtin(Builtin::LocalId(0)));
    let y = emit(Ty::I32, Op::Builtin(Builtin::LocalId(1)));
    let z = emit(Ty::I32, Op::Builtin(Builtin::LocalId(2)));
    let nx = emit(Ty::I32, Op::Builtin(Builtin::BlockDim(0)));
    let ny = emit(Ty::I32, Op::Builtin(Builtin::BlockDim(1)));
    let mut bin = |op, a, b| emit(Ty::I32, Op::Bin(op, a, b, FpFlags::default()));
    let zy = bin(BinOp::IMul, z, ny);
    let zy = bin(BinOp::IAdd, zy, y);
    let t = bin(BinOp::IMul, zy, nx);
    bin(BinOp::IAdd, t, x)
}

impl Block {
    /// Whether the block holds a synchronization operation ([`Op::is_sync`]).
    pub fn syncs(&self) -> bool {
        self.insts.iter().any(|i| i.op.is_sync())
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Inst {
    pub result: Option<ValueId>,
    pub op: Op,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Jump(BlockId),
    Branch {
        cond: ValueId,
        then: BlockId,
        else_: BlockId,
    },
    /// Jump to `targets[value]`; out-of-range values go to `default`.
    Switch {
        value: ValueId,
        targets: Vec<BlockId>,
        default: BlockId,
    },
    Return(Vec<ValueId>),
    /// `exit`: the thread ends, wherever it is in the call stack.
    Exit,
    Unreachable,
}

impl Terminator {
    /// The successors in the order of [`Terminator::successors`], without collecting them.
    pub fn targets(&self) -> impl Iterator<Item = BlockId> + '_ {
        let (first, last): (&[BlockId], Option<BlockId>) = match self {
            Terminator::Jump(b) => (std::slice::from_ref(b), None),
            Terminator::Branch { then, else_, .. } => (std::slice::from_ref(then), Some(*else_)),
            Terminator::Switch {
                targets, default, ..
            } => (targets, Some(*default)),
            _ => (&[], None),
        };
        first.iter().copied().chain(last)
    }

    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Jump(b) => vec![*b],
            Terminator::Branch { then, else_, .. } => vec![*then, *else_],
            Terminator::Switch {
                targets, default, ..
            } => {
                let mut v = targets.clone();
                v.push(*default);
                v
            }
            _ => Vec::new(),
        }
    }

    pub fn successors_mut(&mut self) -> Vec<&mut BlockId> {
        match self {
            Terminator::Jump(b) => vec![b],
            Terminator::Branch { then, else_, .. } => vec![then, else_],
            Terminator::Switch {
                targets, default, ..
            } => {
                let mut v: Vec<&mut BlockId> = targets.iter_mut().collect();
                v.push(default);
                v
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod size_tests {
    /// Every IR instruction is one `Op`; lowering pushes and passes move millions of them (the
    /// passes are bound by that memory traffic), so a variant that needs more room goes into
    /// the function's side tables (as `Call` and `Texture` do; operand lists hold at most
    /// three values in place).
    #[test]
    fn an_instruction_fits_in_32_bytes_and_is_copy() {
        let (op, inst) = (
            std::mem::size_of::<super::Op>(),
            std::mem::size_of::<super::Inst>(),
        );
        assert!(op <= 24 && inst <= 32, "Op {op} bytes, Inst {inst}");
        // Without drop glue, pushing an instruction writes it in place (`operands.rs`).
        fn copy<T: Copy>() {}
        copy::<super::Inst>();
        assert!(!std::mem::needs_drop::<super::Inst>());
    }

    #[test]
    fn args_hold_up_to_three_values_in_order() {
        use super::{Args, ValueId};
        let v = [ValueId(7), ValueId(3), ValueId(9)];
        for n in 0..=3 {
            let a = Args::new(&v[..n]);
            assert_eq!(&a[..], &v[..n]);
            assert_eq!(format!("{a:?}"), format!("{:?}", &v[..n]));
        }
        let mut a = Args::from([ValueId(1), ValueId(2)]);
        a[1] = ValueId(5);
        assert_eq!(&a[..], &[ValueId(1), ValueId(5)]);
        assert_eq!(a, Args::new(&[ValueId(1), ValueId(5)]));
    }

    #[test]
    #[should_panic(expected = "at most 3")]
    fn four_args_are_an_internal_error() {
        let v = super::ValueId(0);
        let _ = super::Args::new(&[v, v, v, v]);
    }
}

#[cfg(test)]
mod name_tests {
    use crate::{DeviceProfile, Program, SourceFile};

    /// A register carried around a loop keeps its variable to the end: the variable's
    /// `OpName` is the register's PTX name, looked up in the checked module at emission
    /// (`VarName::Reg`); a vector register's component adds the component.
    #[test]
    fn register_variables_are_named_after_their_registers() {
        let src = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %count;
    .reg .v2 .b32 %pair;
    .reg .pred %p;
    .reg .b64 %rd;
    mov.u32 %count, 0;
    mov.b32 %pair.y, 5;
LOOP:
    add.u32 %count, %count, 1;
    add.u32 %pair.y, %pair.y, %count;
    setp.lt.u32 %p, %count, 10;
    @%p bra LOOP;
    ld.param.u64 %rd, [out];
    st.global.u32 [%rd], %count;
    st.global.u32 [%rd+4], %pair.y;
    ret;
}
"#;
        let program =
            Program::parse(SourceFile::new("names.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
        let k = program
            .translate_kernel("k", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{d}"));
        #[cfg(feature = "validate")]
        crate::validate(&k.spirv).unwrap_or_else(|e| panic!("{e}"));
        let text = crate::disassemble(&k.spirv);
        let names: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("OpName"))
            .collect();
        assert!(
            names.iter().any(|l| l.ends_with("\"%count\"")),
            "{names:#?}"
        );
        assert!(
            names.iter().any(|l| l.ends_with("\"%pair.Y\"")),
            "{names:#?}"
        );
        // The IR's text form names them the same way.
        let (_, ir) = program
            .translate_kernel_with_ir("k", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{d}"));
        let ir = ir.to_string();
        assert!(ir.contains("// %count"), "{ir}");
    }
}
