//! `ld`, `ld.global.nc`, `ldu` and `st` (ISA 8.7.6.6-8.7.6.9 and their later editions): state
//! spaces, memory-ordering qualifiers, cache operators and hints, vectors, operand types
//! (Tables 27/28) and alignment.

use super::convert::{mod_span, requires};
use super::shared::{operands, space_modifier};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Ld, MemSem, Scope, St};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, StateSpace};

use ScalarType::*;

/// The ISA's `.type` list of `ld`/`st`, plus the half-precision types compilers have emitted.
const MEM_TYPES: &[ScalarType] = &[
    B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32,
    F64,
];

const LOAD_CACHE_OPS: [&str; 5] = ["ca", "cg", "cs", "lu", "cv"];
const STORE_CACHE_OPS: [&str; 4] = ["wb", "cg", "cs", "wt"];
/// Also the catalog's eviction-priority group (`catalog/sets/groups.rs`).
pub(crate) const EVICTION: [&str; 8] = [
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
    "L2::evict_normal",
    "L2::evict_first",
    "L2::evict_last",
];
/// Also the catalog's prefetch-size group.
pub(crate) const PREFETCH_SIZE: [&str; 3] = ["L2::64B", "L2::128B", "L2::256B"];

fn err(m: &mut Mods<'_, '_>, span: Span, msg: impl Into<String>, label: impl Into<String>) {
    m.errors
        .push(Diagnostic::error(span, msg).with_label(label));
}

fn scope(m: &mut Mods<'_, '_>) -> Option<Scope> {
    m.pick(&[
        ("cta", Scope::Cta),
        ("cluster", Scope::Cluster),
        ("gpu", Scope::Gpu),
        ("sys", Scope::Sys),
    ])
}

/// `.weak`, `.volatile`, `.relaxed.scope`, `.acquire.scope` / `.release.scope`,
/// `.mmio.relaxed.sys`.
fn mem_sem(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>, store: bool) -> MemSem {
    let order = if store { "release" } else { "acquire" };
    let wrong = if store { "acquire" } else { "release" };
    if m.flag(wrong) {
        err(
            m,
            mod_span(i, wrong),
            format!("`{}` cannot be `.{wrong}`", i.opcode.node),
            format!("expected .relaxed or .{order}"),
        );
    }
    let mmio = m.flag("mmio");
    let kind = m.pick(&[("weak", 0u8), ("volatile", 1), ("relaxed", 2), (order, 3)]);
    let sc = scope(m);
    let sem = match kind {
        None | Some(0) => MemSem::Weak,
        Some(1) => MemSem::Volatile,
        Some(k) => {
            let Some(s) = sc else {
                let name = if k == 2 { "relaxed" } else { order };
                err(
                    m,
                    mod_span(i, name),
                    format!("`.{name}` needs a scope"),
                    "add .cta, .cluster, .gpu or .sys",
                );
                return MemSem::Weak;
            };
            if k == 2 {
                MemSem::Relaxed(s)
            } else if store {
                MemSem::Release(s)
            } else {
                MemSem::Acquire(s)
            }
        }
    };
    if sc.is_some() && matches!(sem, MemSem::Weak | MemSem::Volatile) {
        let span = ["cta", "cluster", "gpu", "sys"]
            .iter()
            .map(|s| mod_span(i, s))
            .find(|s| *s != i.opcode.span)
            .unwrap_or(i.opcode.span);
        err(
            m,
            span,
            "a scope needs `.relaxed`, `.acquire` or `.release`",
            "scope without ordering",
        );
    }
    if mmio && (sem != MemSem::Relaxed(Scope::Sys)) {
        err(
            m,
            mod_span(i, "mmio"),
            "`.mmio` is only defined as `.mmio.relaxed.sys`",
            "ISA: ld/st.mmio.relaxed.sys",
        );
    }
    sem
}

/// Cache operators (Tables 25/26) and eviction hints: accepted and ignored, since Vulkan has no
/// way to express them and they do not change results. Returns whether `.L2::cache_hint` (which
/// takes a cache-policy operand) was given.
fn cache_hints(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>, store: bool, sem: MemSem) -> bool {
    let (mine, theirs): (&[&str], &[&str]) = if store {
        (&STORE_CACHE_OPS, &["ca", "lu", "cv"])
    } else {
        (&LOAD_CACHE_OPS, &["wb", "wt"])
    };
    for op in theirs {
        if m.flag(op) {
            let what = if store { "a store" } else { "a load" };
            err(
                m,
                mod_span(i, op),
                format!("`.{op}` is not a cache operator of {what}"),
                format!("expected one of .{}", mine.join(" .")),
            );
        }
    }
    let mut cop = None;
    for op in mine {
        if m.flag(op) {
            if cop.is_some() {
                err(
                    m,
                    mod_span(i, op),
                    "at most one cache operator may be given",
                    "second cache operator",
                );
            }
            cop = Some(*op);
        }
    }
    let mut eviction = None;
    for h in EVICTION {
        if m.flag(h) {
            eviction = Some(h);
        }
    }
    if !store {
        for h in PREFETCH_SIZE {
            m.flag(h);
        }
    }
    let hint = m.flag("L2::cache_hint");
    if let Some(op) = cop {
        if sem != MemSem::Weak {
            err(
                m,
                mod_span(i, op),
                "cache operators are not permitted with `.volatile`, `.relaxed`, `.acquire` or `.release`",
                "ISA 8.7.6.6",
            );
        }
        if let Some(e) = eviction {
            err(
                m,
                mod_span(i, e),
                "an eviction priority cannot be combined with a cache operator",
                "conflicting cache hints",
            );
        }
    }
    hint
}

/// The `.vec` modifier (1 when absent) and where it is written.
fn vector_mod(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> (u32, Span) {
    let n = m
        .pick(&[("v2", 2u32), ("v4", 4u32), ("v8", 8u32)])
        .unwrap_or(1);
    let span = ["v2", "v4", "v8"]
        .iter()
        .map(|v| mod_span(i, v))
        .find(|s| *s != i.opcode.span)
        .unwrap_or(i.opcode.span);
    (n, span)
}

/// Vector size rules: at most 128 bits, except the 256-bit `.v8` (32-bit elements) and `.v4`
/// (64-bit elements) accesses that `.global` gained with sm_100 (PTX ISA 8.8).
fn vector_ok(
    cx: &FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    span: Span,
    vec: u32,
    ty: ScalarType,
    space: StateSpace,
) {
    if vec == 1 {
        return;
    }
    let bits = vec * ty.bits();
    if ty == B128 {
        return; // 128-bit elements: the ISA gives no vector rule beyond the type itself.
    }
    if vec == 8 && ty.bits() != 32 {
        err(
            m,
            span,
            format!("`.v8` vectors have 32-bit elements, not {ty}"),
            "ISA: .v8 with .b32, .u32, .s32 or .f32",
        );
        return;
    }
    if bits > 128 {
        if space != StateSpace::Global {
            err(
                m,
                span,
                format!(
                    ".v{vec}{ty} is a {bits}-bit access; only `.global` accesses may exceed 128 bits"
                ),
                "vector too wide for this state space",
            );
            return;
        }
        requires(
            cx,
            m,
            span,
            &format!("a {bits}-bit vector access"),
            100,
            (8, 8),
        );
    }
}

/// Whether an access of `size` bytes at `addr` is certainly misaligned: the address is a
/// variable (aligned to its `.align`) plus a constant, or an absolute constant.
fn misaligned(cx: &FnCx<'_, '_>, addr: &Address, size: u32) -> bool {
    let size = i64::from(size.max(1));
    match addr.base {
        AddrBase::Absolute => addr.offset.rem_euclid(size) != 0,
        AddrBase::Var(v) => {
            let align = i64::from(cx.var(v).align.max(1));
            addr.offset.rem_euclid(size.min(align)) != 0
        }
        AddrBase::Reg(..) => false,
    }
}

fn check_alignment(cx: &mut FnCx<'_, '_>, addr: &Address, size: u32, op: &ast::Operand<'_>) {
    if misaligned(cx, addr, size) {
        cx.error(
            Diagnostic::error(
                op.span,
                format!("this address is not aligned to the access size ({size} bytes)"),
            )
            .with_label("misaligned access")
            .with_note("ISA 8.7.6.6: the address must be naturally aligned to a multiple of the access size"),
        );
    }
}

fn check_space(cx: &mut FnCx<'_, '_>, space: StateSpace, addr: &Address, span: Span) -> bool {
    if let Some(vs) = cx.address_space(addr)
        && space != StateSpace::Generic
        && vs != space
    {
        cx.error(
            Diagnostic::error(
                span,
                format!("the variable is in {vs}, but the instruction accesses {space}"),
            )
            .with_label("state spaces differ"),
        );
        return false;
    }
    true
}

fn elements_dst(d: &Dst) -> u32 {
    match d {
        Dst::Vector(v) => v.len() as u32,
        _ => 1,
    }
}

fn elements_src(s: &Src) -> u32 {
    match s {
        Src::Vector(v) => v.len() as u32,
        _ => 1,
    }
}

fn shape_error(cx: &mut FnCx<'_, '_>, span: Span, vec: u32, n: u32) {
    cx.error(
        Diagnostic::error(
            span,
            format!(
                "expected {vec} element{}, found {n}",
                if vec == 1 { "" } else { "s" }
            ),
        )
        .with_label("vector size does not match the .vN modifier"),
    );
}

/// The optional cache-policy operand of `.L2::cache_hint` (a 64-bit register), checked and
/// then ignored.
fn cache_policy(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, hint: bool) -> Option<()> {
    match (i.operands.len(), hint) {
        (3, true) => {
            cx.src(&i.operands[2], B64, TypeRule::Strict)?;
            Some(())
        }
        (2, false) => Some(()),
        (3, false) => {
            cx.error(
                Diagnostic::error(
                    i.operands[2].span,
                    "a cache-policy operand needs `.L2::cache_hint`",
                )
                .with_label("unexpected operand"),
            );
            None
        }
        _ => operands(cx, i, if hint { 3 } else { 2 }).map(|_| ()),
    }
}

/// `ld{.sem}{.space}{.cop}{.nc}{.hints}{.vec}.type d, [a]{, policy}`.
pub fn ld(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Ld> {
    let sem = mem_sem(i, m, false);
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    let nc = m.flag("nc");
    let hint = cache_hints(i, m, false, sem);
    let (vec, vspan) = vector_mod(i, m);
    let ty = m.ty(MEM_TYPES)?;
    if nc {
        let span = mod_span(i, "nc");
        if space != StateSpace::Global {
            err(m, span, "`.nc` applies to `ld.global` only", "remove .nc");
        }
        if sem != MemSem::Weak {
            err(
                m,
                span,
                "`ld.global.nc` cannot be `.volatile`, `.relaxed` or `.acquire`",
                "the non-coherent path is for read-only data",
            );
        }
        for op in ["lu", "cv"] {
            if i.modifiers.iter().any(|x| x.node == op) {
                err(
                    m,
                    mod_span(i, op),
                    format!("`.{op}` is not a cache operator of `ld.global.nc`"),
                    "expected .ca, .cg or .cs",
                );
            }
        }
    }
    vector_ok(cx, m, vspan, vec, ty, space);
    cache_policy(cx, i, hint)?;
    let dst = cx.dst(&i.operands[0], ty, TypeRule::Relaxed)?;
    let n = elements_dst(&dst);
    if n != vec {
        shape_error(cx, i.operands[0].span, vec, n);
        return None;
    }
    let addr = cx.address(&i.operands[1])?;
    if !check_space(cx, space, &addr, i.operands[1].span) {
        return None;
    }
    check_alignment(cx, &addr, ty.bytes() * vec, &i.operands[1]);
    Some(Ld {
        space,
        ty,
        vec,
        sem,
        nc,
        dst,
        addr,
    })
}

/// `ldu{.global}{.vec}.type d, [a]`: a load of read-only data (ISA 8.7.6.8).
pub fn ldu(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Ld> {
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    if !matches!(space, StateSpace::Global | StateSpace::Generic) {
        let span = ["shared", "local", "const", "param", "shared::cta"]
            .iter()
            .map(|s| mod_span(i, s))
            .find(|s| *s != i.opcode.span)
            .unwrap_or(i.opcode.span);
        err(
            m,
            span,
            format!("`ldu` reads .global (or generic) addresses, not {space}"),
            "ISA 8.7.6.8: .ss = { .global }",
        );
    }
    let (vec, vspan) = vector_mod(i, m);
    let ty = m.ty(MEM_TYPES)?;
    vector_ok(cx, m, vspan, vec, ty, StateSpace::Generic);
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Relaxed)?;
    let n = elements_dst(&dst);
    if n != vec {
        shape_error(cx, ops[0].span, vec, n);
        return None;
    }
    let addr = cx.address(&ops[1])?;
    if !check_space(cx, space, &addr, ops[1].span) {
        return None;
    }
    check_alignment(cx, &addr, ty.bytes() * vec, &ops[1]);
    Some(Ld {
        space,
        ty,
        vec,
        sem: MemSem::Weak,
        nc: true,
        dst,
        addr,
    })
}

/// Whether `v` is a parameter of the kernel being checked (read-only: ISA 5.1.6.1).
fn is_kernel_param(cx: &FnCx<'_, '_>, v: VarRef) -> bool {
    match v {
        VarRef::Local(l) => {
            cx.func.kind == ast::FunctionKind::Entry && cx.func.params.contains(&FnParam::Var(l))
        }
        VarRef::Global(_) => false,
    }
}

/// `st{.sem}{.space}{.cop}{.hints}{.vec}.type [a], b{, policy}`.
pub fn st(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<St> {
    let sem = mem_sem(i, m, true);
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    let hint = cache_hints(i, m, true, sem);
    let (vec, vspan) = vector_mod(i, m);
    let ty = m.ty(MEM_TYPES)?;
    if space == StateSpace::Const {
        err(
            m,
            mod_span(i, "const"),
            "`st` cannot write to the .const space",
            "constant memory is read-only (ISA 8.7.6.9: stores to const memory are illegal)",
        );
        return None;
    }
    if i.modifiers.iter().any(|x| x.node == "param::entry") {
        err(
            m,
            mod_span(i, "param::entry"),
            "`st` cannot write kernel parameters",
            "kernel parameters are read-only",
        );
        return None;
    }
    vector_ok(cx, m, vspan, vec, ty, space);
    cache_policy(cx, i, hint)?;
    let addr = cx.address(&i.operands[0])?;
    if !check_space(cx, space, &addr, i.operands[0].span) {
        return None;
    }
    if let AddrBase::Var(v) = addr.base {
        if is_kernel_param(cx, v) {
            cx.error(
                Diagnostic::error(i.operands[0].span, "`st` cannot write a kernel parameter")
                    .with_label("a kernel's .param variables are read-only")
                    .with_note("ISA 5.1.6.1: kernel parameters are accessed with ld.param only"),
            );
            return None;
        }
        if cx.var(v).space == StateSpace::Const {
            cx.error(
                Diagnostic::error(i.operands[0].span, "`st` cannot write a .const variable")
                    .with_label("constant memory is read-only"),
            );
            return None;
        }
    }
    check_alignment(cx, &addr, ty.bytes() * vec, &i.operands[0]);
    let src = cx.src(&i.operands[1], ty, TypeRule::Relaxed)?;
    let n = elements_src(&src);
    if n != vec {
        shape_error(cx, i.operands[1].span, vec, n);
        return None;
    }
    Some(St {
        space,
        ty,
        vec,
        sem,
        addr,
        src,
    })
}
