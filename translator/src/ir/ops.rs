//! The IR's operations: the `Op` of each instruction and the operators, builtins, memory
//! orders and scopes it names.

use super::ids::{ValueId, VarId};
use super::operands::{Args, CallId, Side, TexId};

impl Op {
    /// Barriers and warp operations: every thread that takes part must reach them together.
    pub fn is_sync(&self) -> bool {
        match self {
            Op::Barrier | Op::BarrierArrive => true,
            Op::Warp(op, _) => *op != WarpOp::SubgroupRead,
            _ => false,
        }
    }

    /// Marks in `mentioned` the variables this operation loads, stores or writes.
    #[inline]
    pub fn mention_vars(&self, side: &Side, mentioned: &mut [bool]) {
        match self {
            Op::LoadVar(v) | Op::StoreVar(v, _) => mentioned[v.0 as usize] = true,
            op => {
                for v in op.result_vars(side) {
                    mentioned[v.0 as usize] = true;
                }
            }
        }
    }

    /// The variables a call or texture operation writes its results into (none for others;
    /// `StoreVar` is the other writer of variables); `side` is its function's.
    pub fn result_vars<'a>(&self, side: &'a Side) -> &'a [VarId] {
        match self {
            Op::Call(c) => &side.call(*c).results,
            Op::Texture(t) => &side.tex(*t).results,
            _ => &[],
        }
    }
}

impl ReduceOp {
    /// The 32-bit value that leaves the reduction unchanged (what a lane that takes no part
    /// contributes).
    pub fn identity(self) -> u64 {
        match self {
            ReduceOp::Add | ReduceOp::Or | ReduceOp::Xor | ReduceOp::UMax => 0,
            ReduceOp::UMin | ReduceOp::And => 0xFFFF_FFFF,
            ReduceOp::SMin => 0x7FFF_FFFF,
            ReduceOp::SMax => 0x8000_0000,
        }
    }
}

/// Floating-point operation flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpFlags {
    /// SPIR-V `NoContraction`: the driver may not fuse this operation with others (PTX `.rn`).
    pub exact: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    INeg,
    /// Bitwise not (logical not on `Bool`).
    Not,
    FNeg,
    IsNan,
    IsInf,
    // Integer bit operations (32-bit operands in Vulkan).
    /// `OpBitCount`
    BitCount,
    /// `OpBitReverse`
    BitReverse,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    IAdd,
    ISub,
    IMul,
    UDiv,
    SDiv,
    UMod,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    /// High half of the full product.
    UMulHi,
    SMulHi,
    FAdd,
    FSub,
    FMul,
    FDiv,
    IEq,
    INe,
    ULt,
    ULe,
    UGt,
    UGe,
    SLt,
    SLe,
    SGt,
    SGe,
    FOrdEq,
    FOrdNe,
    FOrdLt,
    FOrdLe,
    FOrdGt,
    FOrdGe,
    FUnordEq,
    FUnordNe,
    FUnordLt,
    FUnordLe,
    FUnordGt,
    FUnordGe,
}

impl BinOp {
    pub fn is_float_compare(self) -> bool {
        use BinOp::*;
        matches!(
            self,
            FOrdEq
                | FOrdNe
                | FOrdLt
                | FOrdLe
                | FOrdGt
                | FOrdGe
                | FUnordEq
                | FUnordNe
                | FUnordLt
                | FUnordLe
                | FUnordGt
                | FUnordGe
        )
    }

    /// `a op b` as `b op' a` (integer comparisons; any other op unchanged).
    pub fn mirrored(self) -> BinOp {
        use BinOp::*;
        match self {
            ULt => UGt,
            ULe => UGe,
            UGt => ULt,
            UGe => ULe,
            SLt => SGt,
            SLe => SGe,
            SGt => SLt,
            SGe => SLe,
            other => other,
        }
    }

    /// `!(a op b)` as `a op' b` (integer comparisons; any other op unchanged).
    pub fn negated(self) -> BinOp {
        use BinOp::*;
        match self {
            IEq => INe,
            INe => IEq,
            ULt => UGe,
            ULe => UGt,
            UGt => ULe,
            UGe => ULt,
            SLt => SGe,
            SLe => SGt,
            SGt => SLe,
            SGe => SLt,
            other => other,
        }
    }

    pub fn is_compare(self) -> bool {
        use BinOp::*;
        matches!(
            self,
            IEq | INe | ULt | ULe | UGt | UGe | SLt | SLe | SGt | SGe
        ) || self.is_float_compare()
    }
}

/// Conversions; the target type is the result value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvOp {
    /// Same size, different type.
    Bitcast,
    ZExt,
    SExt,
    /// Integer truncation.
    Trunc,
    FToU,
    FToS,
    UToF,
    SToF,
    /// Float to float (round to nearest even when narrowing).
    FConvert,
    BoolToInt,
}

/// Operations of the `GLSL.std.450` extended instruction set that the IR uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtOp {
    Fma,
    FAbs,
    SAbs,
    FMin,
    FMax,
    UMin,
    UMax,
    SMin,
    SMax,
    Sqrt,
    InverseSqrt,
    Sin,
    Cos,
    Exp2,
    Log2,
    Floor,
    Ceil,
    Trunc,
    RoundEven,
    // Integer bit operations (32-bit operands).
    /// The index of the most significant 1 bit; -1 for 0.
    FindUMsb,
    /// The index of the most significant bit that differs from the sign bit; -1 for 0 and -1.
    FindSMsb,
}

/// Values the runtime supplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `LocalInvocationId.{x,y,z}`
    LocalId(u8),
    /// `WorkgroupId.{x,y,z}` (of this dispatch; add `CtaBase` for the grid position).
    WorkgroupId(u8),
    /// The block size (specialization constants).
    BlockDim(u8),
    /// Grid size in blocks, from push constants.
    GridDim(u8),
    /// First block of this dispatch, from push constants (grids split over several dispatches).
    CtaBase(u8),
    /// Address of the kernel parameter block, from push constants.
    ParamBase,
    /// Address of the module's `.global`/`.const` variables, from push constants.
    GlobalsBase,
    /// Dynamic shared memory bytes of this launch (a specialization constant).
    DynamicSharedBytes,
    /// Word index in the shared arena where the warp-emulation scratch starts.
    ScratchBase,
    /// Word index of the shared arena's lock word (64-bit shared atomics), after everything else.
    SharedLock,
    /// Address of the launch's status word (a `u32` the runtime checks after the launch: 0, or
    /// what went wrong, see `abi::KernelAbi::status_codes`).
    StatusAddress,
    /// Memory checking: the launch's table of live allocations and its length.
    MemTable,
    MemCount,
    /// Memory checking: word `i` of the launch's hint ranges (`abi::PUSH_MEM_HINTS`): hint
    /// `i / 2`'s start when `i` is even, its end when odd.
    MemHint(u8),
    /// Memory checking: whether the launch proved fact `k` (`abi::SPEC_MEM_PROVEN + k`, a bool
    /// specialization constant).
    MemProven(u8),
    /// Word index of the counted barriers' words (a counter and a generation for each of the 16
    /// barriers), after the lock word.
    BarrierWords,
    /// `SubgroupLocalInvocationId` and `SubgroupId` (native warp strategies).
    SubgroupLane,
    SubgroupId,
    /// The subgroup's cycle counter, 64 bits (`OpReadClockKHR`, VK_KHR_shader_clock).
    Clock,
}

/// How a memory access is ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemOrder {
    #[default]
    Plain,
    /// `volatile`/`relaxed`: not combined or cached across threads.
    Volatile,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ptr {
    /// A 64-bit device address (buffer device address).
    Global(ValueId),
    /// A 32-bit word of the workgroup's shared arena, by index.
    Shared(ValueId),
    /// A 32-bit word of the invocation's local arena, by index.
    Local(ValueId),
}

/// Read-modify-write atomic operations (result: the old value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    And,
    Or,
    Xor,
    Exchange,
    UMin,
    UMax,
    SMin,
    SMax,
    FAdd,
}

/// Warp-wide operations, over the 32 lanes of the calling thread's warp (its active lanes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `args[0]` as held by lane `args[1]` (0..32) of this warp; the caller's own value when that
    /// lane is inactive or does not exist.
    ReadLane,
    /// Bit `l` set when lane `l` is active and its `args[0]` (a `Bool`) is true.
    Ballot,
    /// Bit `l` set when lane `l` is active.
    ActiveMask,
    /// Bit `l` set when lane `l` is active and its `args[0]` equals the caller's.
    MatchAny,
    /// `args[0]` combined over the active lanes.
    Reduce(ReduceOp),
    /// Memory ordering among the warp's lanes (`bar.warp.sync`); no result.
    Sync,
    /// Whether `args[0]` is true in any thread of the workgroup (used by the SIMT emulation).
    WorkgroupAny,
    /// How many active threads of the workgroup have `args[0]` true (`bar.red.popc`).
    WorkgroupCount,
    /// `args[0]` as held by invocation `args[1]` of this thread's device subgroup; the caller's
    /// own value when that invocation is inactive or does not exist. The SIMT emulation's lane
    /// reads that stay within one subgroup (`simt/lanes/`): not a synchronization point.
    SubgroupRead,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Add,
    UMin,
    UMax,
    SMin,
    SMax,
    And,
    Or,
    Xor,
}

/// Memory ordering of atomics (the PTX `.sem` qualifiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ordering {
    #[default]
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// Memory scope of atomics and barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Subgroup,
    Workgroup,
    Device,
}

impl Scope {
    /// Shared memory is only visible to the workgroup: wider scopes mean the workgroup there.
    pub fn min_with(self, other: Scope) -> Scope {
        match (self, other) {
            (Scope::Subgroup, _) | (_, Scope::Subgroup) => Scope::Subgroup,
            (Scope::Workgroup, _) | (_, Scope::Workgroup) => Scope::Workgroup,
            _ => Scope::Device,
        }
    }
}

/// `Copy`, so that building and moving instructions never goes through drop glue (see
/// `operands.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// A constant of the result type; the low bits of `bits`.
    Const(u64),
    LoadVar(VarId),
    StoreVar(VarId, ValueId),
    Un(UnOp, ValueId),
    Bin(BinOp, ValueId, ValueId, FpFlags),
    Select(ValueId, ValueId, ValueId),
    Conv(ConvOp, ValueId),
    Ext(ExtOp, Args, FpFlags),
    Builtin(Builtin),
    /// The `n`th parameter of the function.
    Param(u32),
    Load {
        ptr: Ptr,
        align: u32,
        order: MemOrder,
    },
    Store {
        ptr: Ptr,
        value: ValueId,
        align: u32,
        order: MemOrder,
    },
    /// An atomic read-modify-write; the result is the old value.
    Atomic {
        op: AtomicOp,
        ptr: Ptr,
        value: ValueId,
        scope: Scope,
        sem: Ordering,
    },
    /// Compare-and-swap; the result is the old value.
    AtomicCas {
        ptr: Ptr,
        compare: ValueId,
        value: ValueId,
        scope: Scope,
        sem: Ordering,
    },
    /// An atomic load of the result type (32 or 64 bits).
    AtomicLoad {
        ptr: Ptr,
        scope: Scope,
        sem: Ordering,
    },
    AtomicStore {
        ptr: Ptr,
        value: ValueId,
        scope: Scope,
        sem: Ordering,
    },
    /// A workgroup control barrier that also orders shared and global memory (acquire-release).
    Barrier,
    /// `Barrier` where a `bar.arrive` stood, under the SIMT emulation: the same whole-block
    /// barrier, but in PTX its threads go on without waiting, so the emulation runs an `if` arm
    /// that arrives before the other arm, which may wait for it.
    BarrierArrive,
    /// A memory fence (acquire-release) over shared and global memory at `scope`.
    Fence(Scope),
    /// A warp-wide operation (see [`WarpOp`]); a synchronization point like `Barrier`.
    Warp(WarpOp, Args),
    /// Calls a function (its arguments and results are in the function's [`Side`]).
    Call(CallId),
    // Integer bit fields (32-bit operands in Vulkan).
    /// `OpBitFieldUExtract`/`OpBitFieldSExtract`: `count` bits of `base` from bit `offset`, zero-
    /// or sign-extended. Undefined when `offset + count` exceeds the width; 0 when `count` is 0.
    BitExtract {
        signed: bool,
        base: ValueId,
        offset: ValueId,
        count: ValueId,
    },
    /// `OpBitFieldInsert`: `base` with bits `offset..offset + count` replaced by the low bits of
    /// `insert`. Undefined when `offset + count` exceeds the width.
    BitInsert {
        base: ValueId,
        insert: ValueId,
        offset: ValueId,
        count: ValueId,
    },
    // Textures.
    /// An image operation on a texture binding; its four components are stored into
    /// `results` (see [`TexOp`](crate::ir::TexOp)).
    Texture(TexId),
}
