//! Where variables live: the module's globals buffer, each kernel's shared arena, each
//! invocation's local arena.

use crate::check::Map as HashMap;

use crate::abi::{GlobalVarAbi, GlobalsLayout, KernelAbi, ParamAbi, Relocation};
use crate::check::{self, FnParam, FuncId, GlobalId, InitElem, LocalId, Variable};
use crate::diag::Diagnostic;
use crate::types::StateSpace;

/// A variable, wherever it was declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKey {
    Global(GlobalId),
    Local(FuncId, LocalId),
}

/// Offsets of every variable a kernel can reach.
#[derive(Clone, Debug)]
pub struct Layout<'g> {
    /// Byte offsets in the globals buffer (`.global`, `.const`): the module's, borrowed (a
    /// copy per kernel made translating a module quadratic in its size).
    pub globals: &'g HashMap<GlobalId, u64>,
    /// Byte offsets in the shared arena.
    pub shared: HashMap<VarKey, u32>,
    pub shared_bytes: u32,
    /// Where `extern .shared` arrays start (they all start there, as in CUDA).
    pub dynamic_shared: Option<u32>,
    /// Byte offsets in the local arena.
    pub local: HashMap<VarKey, u32>,
    pub local_bytes: u32,
}

fn align_up(v: u64, a: u32) -> u64 {
    v.next_multiple_of(u64::from(a.max(1)))
}

/// The module's `.global` and `.const` variables, laid out in declaration order.
pub fn globals(
    module: &check::Module,
) -> Result<(GlobalsLayout, HashMap<GlobalId, u64>), Vec<Diagnostic>> {
    let mut layout = GlobalsLayout::default();
    let mut offsets = HashMap::default();
    // Before the variables, so that a kernel finds it at a fixed place.
    if module.functions.iter().any(|f| device_call(f).is_some()) {
        layout.services = Some(0);
        layout.size = crate::abi::SERVICES_BYTES;
    }
    let mut pending: Vec<(u64, &Variable)> = Vec::new();
    for (i, v) in module.globals.iter().enumerate() {
        if !matches!(v.space, StateSpace::Global | StateSpace::Const) || v.external {
            continue;
        }
        let off = align_up(layout.size, v.align);
        offsets.insert(GlobalId(i as u32), off);
        layout.vars.push(GlobalVarAbi {
            name: v.name.clone(),
            space: v.space,
            offset: off,
            size: v.size(),
            align: v.align,
        });
        layout.size = off + v.size();
        pending.push((off, v));
    }
    layout.init = vec![0; layout.size as usize];
    let mut diags = Vec::new();
    for (off, v) in pending {
        let Some(init) = &v.init else { continue };
        let width = v.ty.bytes() as usize;
        for (k, e) in init.iter().enumerate() {
            let at = off as usize + k * width;
            if at + width > layout.init.len() {
                break;
            }
            match e {
                InitElem::Bits(b) => {
                    // Values wider than 64 bits (.b128) are zero-extended constants.
                    let n = width.min(8);
                    layout.init[at..at + n].copy_from_slice(&b.to_le_bytes()[..n]);
                }
                InitElem::Function(f) => {
                    let n = width.min(8);
                    layout.init[at..at + n].copy_from_slice(&f.address().to_le_bytes()[..n]);
                }
                InitElem::Address { var, offset, .. } => match offsets.get(var) {
                    Some(&target) => layout.relocations.push(Relocation {
                        at: at as u64,
                        width: width as u32,
                        target: target.wrapping_add(*offset as u64),
                    }),
                    None => diags.push(
                        Diagnostic::error(
                            v.span,
                            format!(
                                "the initializer of `{}` takes the address of `{}`, which is not a .global or .const variable",
                                v.name,
                                module.global(*var).name
                            ),
                        )
                        .with_label("not supported"),
                    ),
                },
            }
        }
    }
    if diags.is_empty() {
        Ok((layout, offsets))
    } else {
        Err(diags)
    }
}

/// The device-runtime function a declaration without a body stands for (`printf`'s `vprintf`,
/// `malloc`, `free`), lowered in place of a call.
pub fn device_call(f: &check::Function) -> Option<crate::abi::DeviceCall> {
    if f.body.is_some() {
        return None;
    }
    crate::abi::DeviceCall::of(&f.name, f.params.len(), f.returns.len())
}

/// What `kernel`'s launches must provide for its device-runtime calls, if it makes any: the
/// module's byte arrays, for the host to read formats and `%s` strings from.
pub fn kernel_services(
    module: &check::Module,
    kernel: FuncId,
    globals: &HashMap<GlobalId, u64>,
) -> Option<crate::abi::KernelServices> {
    let graph = call_graph(module, kernel);
    let calls = |f: &FuncId| {
        let f = module.function(*f);
        f.calls
            .iter()
            .any(|&c| device_call(module.function(c)).is_some())
    };
    if !graph.iter().any(calls) {
        return None;
    }
    // Every byte array of the module: `%s` arguments come through tables of pointers too.
    let strings = (0..module.globals.len() as u32)
        .map(GlobalId)
        .filter(|&g| module.global(g).ty.bytes() == 1)
        .filter_map(|g| Some((*globals.get(&g)?, initial_bytes(module, g)?)))
        .collect();
    Some(crate::abi::KernelServices { strings })
}

/// A variable's initial bytes (its initializer's elements as little-endian values), when its
/// initializer holds only values.
pub(crate) fn initial_bytes(m: &check::Module, g: GlobalId) -> Option<Vec<u8>> {
    let v = m.global(g);
    let width = v.ty.bytes() as usize;
    let mut out = vec![0u8; v.size() as usize];
    for (k, e) in v.init.as_ref()?.iter().enumerate() {
        let InitElem::Bits(b) = e else { return None };
        let at = k * width;
        let n = width.min(8);
        out.get_mut(at..at + n)?
            .copy_from_slice(&b.to_le_bytes()[..n]);
    }
    Some(out)
}

/// Functions reachable from `kernel` (itself first), but for device-runtime functions
/// ([`device_call`]), which are lowered where they are called.
pub fn call_graph(module: &check::Module, kernel: FuncId) -> Vec<FuncId> {
    let mut seen = vec![kernel];
    let mut i = 0;
    while i < seen.len() {
        for &c in &module.function(seen[i]).calls {
            if !seen.contains(&c) && device_call(module.function(c)).is_none() {
                seen.push(c);
            }
        }
        i += 1;
    }
    seen
}

/// The shared and local layout for a kernel and the functions it calls.
pub fn for_kernel<'g>(
    module: &check::Module,
    kernel: FuncId,
    globals: &'g HashMap<GlobalId, u64>,
) -> Layout<'g> {
    let funcs = call_graph(module, kernel);
    let mut l = Layout {
        globals,
        shared: HashMap::default(),
        shared_bytes: 0,
        dynamic_shared: None,
        local: HashMap::default(),
        local_bytes: 0,
    };
    let mut shared_end = 0u64;
    let mut local_end = 0u64;
    let mut extern_align = 1u32;
    let mut has_extern = false;
    let mut place = |key: VarKey, v: &Variable, l: &mut Layout<'_>| match v.space {
        StateSpace::Shared if v.external || v.count.is_none() => {
            has_extern = true;
            extern_align = extern_align.max(v.align);
            // Offset filled in below, once the static part is known.
            l.shared.insert(key, 0);
        }
        StateSpace::Shared => {
            let off = align_up(shared_end, v.align);
            l.shared.insert(key, off as u32);
            shared_end = off + v.size();
        }
        StateSpace::Local => {
            let off = align_up(local_end, v.align.max(4));
            l.local.insert(key, off as u32);
            local_end = off + v.size();
        }
        _ => {}
    };
    let mut used_globals: Vec<GlobalId> = Vec::new();
    for &f in &funcs {
        for &g in &module.function(f).global_uses {
            if !used_globals.contains(&g) {
                used_globals.push(g);
            }
        }
    }
    used_globals.sort();
    for g in used_globals {
        place(VarKey::Global(g), module.global(g), &mut l);
    }
    for &f in &funcs {
        for (i, v) in module.function(f).vars.iter().enumerate() {
            place(VarKey::Local(f, LocalId(i as u32)), v, &mut l);
        }
    }
    if has_extern {
        let start = align_up(shared_end, extern_align) as u32;
        for (key, off) in l.shared.iter_mut() {
            let v = match key {
                VarKey::Global(g) => module.global(*g),
                VarKey::Local(f, v) => module.function(*f).var(*v),
            };
            if v.external || v.count.is_none() {
                *off = start;
            }
        }
        l.dynamic_shared = Some(start);
        shared_end = u64::from(start);
    }
    l.shared_bytes = shared_end as u32;
    l.local_bytes = align_up(local_end, 4) as u32;
    l
}

/// The launch interface of a kernel.
pub fn kernel_abi(func: &check::Function) -> KernelAbi {
    param_layout(func).1
}

/// CUDA's parameter layout: each parameter at the next multiple of its alignment.
pub(super) fn param_layout(func: &check::Function) -> (HashMap<check::LocalId, u32>, KernelAbi) {
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
        lane_shaped_blocks: false,
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
