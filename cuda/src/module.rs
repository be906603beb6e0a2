//! Modules (PTX text, or fatbinaries holding PTX, handed to `cuModuleLoadData*`) and their
//! functions.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ptxvk_runtime::translator::StateSpace;
use ptxvk_runtime::translator::abi as shared;
use ptxvk_runtime::translator::check;
use ptxvk_runtime::{Kernel, Module};

use crate::context::Ctx;
use crate::error::{CuError, CuResult};
use crate::handles::Table;
use crate::memory::{Allocation, Backing};
use crate::{device, fatbin};

pub struct Mod {
    pub ctx_id: usize,
    pub ctx: Arc<Ctx>,
    pub module: Arc<Module>,
    /// The PTX's target architecture, as CUDA reports it (CU_FUNC_ATTRIBUTE_PTX_VERSION).
    pub ptx_version: i32,
    /// Function handles already given out, by name: CUDA returns the same one each time.
    functions: Mutex<BTreeMap<String, usize>>,
}

pub struct Func {
    pub module_id: usize,
    pub ctx_id: usize,
    pub ctx: Arc<Ctx>,
    pub kernel: Kernel,
    pub ptx_version: i32,
    /// The `.entry` name, NUL-terminated for `cuFuncGetName`.
    pub name: CString,
    /// How each parameter's bytes become the runtime's argument.
    pub arg_kinds: Vec<crate::launch::ArgKind>,
    /// Each parameter's (offset, size) in the packed parameter block.
    pub param_layout: Box<[(usize, usize)]>,
    /// Whether launches go as a packed block (`Stream::launch_packed`): every kernel but
    /// those that read a texture object from a parameter.
    pub packed: bool,
    /// CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES and LOCAL_SIZE_BYTES ([`memory_sizes`]).
    const_bytes: u64,
    local_bytes: u64,
    /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: CUDA's default (48 KiB with the static
    /// part) until the program sets it. Every launch reads it.
    max_dynamic_shared: AtomicU32,
    /// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT as set (-1: no preference).
    carveout: Mutex<i32>,
}

impl Func {
    /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
    #[inline]
    pub fn max_dynamic_shared(&self) -> u32 {
        self.max_dynamic_shared.load(Ordering::Relaxed)
    }
}

pub static MODULES: Table<Mod> = Table::new("module");
pub static FUNCTIONS: Table<Func> = Table::new("function");

/// The PTX a module image holds: the text itself, or the entry of a fatbinary that CUDA's
/// driver would JIT-compile for the device (the highest `compute_XX` not above its compute
/// capability). Machine code (cubins, fatbinaries with only SASS) is for NVIDIA GPUs alone.
pub fn image_text(image: &[u8]) -> CuResult<Cow<'_, str>> {
    if image.starts_with(b"\x7fELF") {
        return Err(CuError::InvalidImage(
            "a cubin (ELF) holds machine code for NVIDIA GPUs only; hand over PTX".into(),
        ));
    }
    if image.starts_with(&fatbin::FATBIN_MAGIC.to_le_bytes()) {
        return fatbin_ptx(image).map(Cow::Owned);
    }
    if image.starts_with(&fatbin::WRAPPER_MAGIC.to_le_bytes()) {
        // The C entry points follow the wrapper to its container; a wrapper in bytes is not
        // something a caller can hand over otherwise.
        return Err(CuError::InvalidImage(
            "a fatbinary wrapper without its container".into(),
        ));
    }
    std::str::from_utf8(image)
        .map(Cow::Borrowed)
        .map_err(|_| CuError::InvalidImage("PTX is not UTF-8 text".into()))
}

/// The PTX of a fatbinary for this device, or CUDA_ERROR_NO_BINARY_FOR_GPU with a warning
/// that says which PTX is missing and how nvcc is told to embed it.
fn fatbin_ptx(image: &[u8]) -> CuResult<String> {
    let fb = fatbin::Fatbin::parse(image)?;
    let (major, minor) = device::compute_capability();
    let cc = u32::try_from(major * 10 + minor).unwrap_or(0);
    if let Some(entry) = fb.best_ptx(cc) {
        tracing::debug!(
            target: "ptxvk_cuda",
            "fatbinary: compute_{} PTX of {} entries ({:?} compression)",
            entry.arch,
            fb.entries().len(),
            entry.compression
        );
        return Ok(entry.ptx()?);
    }
    let list = |archs: Vec<u32>, prefix: &str| {
        archs
            .iter()
            .map(|a| format!("{prefix}_{a}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sass = list(fb.archs(fatbin::EntryKind::Elf), "sm");
    let ptx = list(fb.archs(fatbin::EntryKind::Ptx), "compute");
    let held = match (sass.is_empty(), ptx.is_empty()) {
        (true, true) => "nothing ptxvk can run".to_string(),
        (false, true) => format!("only machine code ({sass})"),
        (true, false) => format!("PTX for newer devices only ({ptx})"),
        (false, false) => format!("machine code ({sass}) and PTX for newer devices ({ptx})"),
    };
    let message = format!(
        "the fatbinary has no PTX for compute capability {major}.{minor} or lower, {held}; \
         ptxvk runs PTX: build with -gencode arch=compute_{cc},code=compute_{cc}"
    );
    tracing::warn!(target: "ptxvk_cuda", "{message}");
    Err(CuError::NoBinaryForGpu(message))
}

/// The virtual architecture the PTX was written for, which CUDA reports as a function's PTX
/// version: 80 for `.target sm_80` (`sm_90a` too gives 90; 0 when absent). CUB and Thrust
/// pick their tuning by it (`ptxVersion * 10`), so the ISA's `.version` would send them to
/// architectures that do not exist.
fn ptx_version(text: &str) -> i32 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(".target"))
        .and_then(|t| {
            let arch = t
                .split([',', ' ', '\t'])
                .find_map(|w| w.trim().strip_prefix("sm_"))?;
            let digits: String = arch.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .unwrap_or(0)
}

/// `cuModuleLoadData`: parses and checks the PTX now (kernels are translated when their
/// function is first asked for) and registers its variables as device memory.
pub fn load(ctx_id: usize, ctx: Arc<Ctx>, name: &str, image: &[u8]) -> CuResult<usize> {
    let text = image_text(image)?;
    let module = Arc::new(ctx.rt.load_ptx(name, &text)?);
    let ptx_version = ptx_version(&text);
    let globals = module.globals();
    let (id, _) = MODULES.insert(Mod {
        ctx_id,
        ctx: ctx.clone(),
        module: module.clone(),
        ptx_version,
        functions: Mutex::new(BTreeMap::new()),
    });
    for g in globals.into_iter().filter(|g| g.size > 0) {
        ctx.memory.add_global(Allocation {
            base: g.address,
            size: g.size,
            backing: Backing::Global {
                module: module.clone(),
                name: g.name,
                module_id: id,
            },
            host: None,
            managed: false,
            imported: false,
            mapped_host: false,
        });
    }
    Ok(id)
}

pub fn unload(id: usize) -> CuResult<()> {
    let m = MODULES.remove(id)?;
    // Launches already queued keep their kernels alive; the handles go now.
    FUNCTIONS.remove_where(|f| f.module_id == id);
    m.ctx.memory.remove_module(id);
    Ok(())
}

pub fn function(module_id: usize, name: &str) -> CuResult<usize> {
    let m = MODULES.get(module_id)?;
    let mut known = m.functions.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&id) = known.get(name)
        && FUNCTIONS.get(id).is_ok()
    {
        return Ok(id);
    }
    let kernel = m.module.kernel(name)?;
    let (const_bytes, local_bytes) = memory_sizes(m.module.program().module(), name);
    let arg_kinds = crate::launch::arg_kinds(kernel.abi());
    let param_layout = crate::launch::param_layout(kernel.abi());
    let packed = !kernel.reads_texture_params();
    let max_dynamic_shared =
        shared::DEFAULT_SHARED_BYTES.saturating_sub(kernel.abi().static_shared_bytes);
    let (id, _) = FUNCTIONS.insert(Func {
        arg_kinds,
        param_layout,
        packed,
        const_bytes,
        local_bytes,
        module_id,
        ctx_id: m.ctx_id,
        ctx: m.ctx.clone(),
        kernel,
        ptx_version: m.ptx_version,
        name: CString::new(name).map_err(|_| CuError::invalid("a name with a NUL byte"))?,
        max_dynamic_shared: AtomicU32::new(max_dynamic_shared),
        carveout: Mutex::new(-1),
    });
    known.insert(name.to_string(), id);
    Ok(id)
}

/// What CUDA reports as a kernel's constant and local memory, from its checked PTX: the bytes
/// of the module's `.const` variables the kernel or a function it calls refers to, and the
/// bytes of the `.local` variables each thread needs: the kernel's own and those of its
/// deepest chain of calls (a recursive function's frame counted once, as ptxas counts the
/// stack of one activation).
fn memory_sizes(m: &check::Module, kernel: &str) -> (u64, u64) {
    let Some((id, _)) = m.kernels().find(|(_, f)| f.name == kernel) else {
        return (0, 0);
    };
    // The kernel and every function it reaches.
    let mut reached = vec![id];
    let mut i = 0;
    while let Some(&f) = reached.get(i) {
        for &c in &m.function(f).calls {
            if !reached.contains(&c) {
                reached.push(c);
            }
        }
        i += 1;
    }
    let mut consts: Vec<check::GlobalId> = reached
        .iter()
        .flat_map(|&f| m.function(f).global_uses.iter().copied())
        .filter(|&g| m.global(g).space == StateSpace::Const)
        .collect();
    consts.sort_unstable_by_key(|g| g.0);
    consts.dedup();
    let const_bytes = consts.iter().map(|&g| m.global(g).size()).sum();
    let mut deepest = std::collections::BTreeMap::new();
    (const_bytes, frame(m, id, &mut deepest))
}

/// Bytes of `.local` variables of `f` and of its deepest chain of calls; `memo` holds those
/// found (a function on the current chain counts 0 there, which ends recursion).
fn frame(
    m: &check::Module,
    f: check::FuncId,
    memo: &mut std::collections::BTreeMap<u32, u64>,
) -> u64 {
    if let Some(&b) = memo.get(&f.0) {
        return b;
    }
    memo.insert(f.0, 0);
    let func = m.function(f);
    let own: u64 = func
        .vars
        .iter()
        .filter(|v| v.space == StateSpace::Local)
        .map(|v| v.size().next_multiple_of(u64::from(v.align.max(1))))
        .sum();
    let callees = func.calls.iter().map(|&c| frame(m, c, memo)).max();
    let total = own + callees.unwrap_or(0);
    memo.insert(f.0, total);
    total
}

/// `cuModuleGetGlobal`: (address, size).
pub fn global(module_id: usize, name: &str) -> CuResult<(u64, u64)> {
    let m = MODULES.get(module_id)?;
    m.module
        .global(name)
        .map_err(|_| CuError::NotFound(format!("global `{name}`")))
}

/// Modules and functions of a destroyed context.
pub fn forget_context(ctx_id: usize) {
    MODULES.remove_where(|m| m.ctx_id == ctx_id);
    FUNCTIONS.remove_where(|f| f.ctx_id == ctx_id);
}

/// `cuFuncGetAttribute`.
pub fn attribute(f: &Func, attr: i32) -> CuResult<i32> {
    let abi = f.kernel.abi();
    let info = f.ctx.rt.info();
    let sat = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
    let device_threads = u64::from(info.max_workgroup_invocations.min(1024));
    let (major, minor) = crate::device::compute_capability();
    Ok(match attr {
        // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
        0 => {
            let limit = abi.maxntid.or(abi.reqntid).map_or(device_threads, |m| {
                m.iter().map(|&d| u64::from(d)).product()
            });
            sat(limit.min(device_threads))
        }
        1 => sat(u64::from(abi.static_shared_bytes)),
        2 => sat(f.const_bytes),
        3 => sat(f.local_bytes),
        // Registers: Vulkan does not report them. 32 is an estimate at which 64 K registers
        // hold 2048 threads, the full occupancy of compute capability 8.0.
        4 => 32,
        5 => f.ptx_version,
        6 => major * 10 + minor,
        7 => 0,
        8 => sat(u64::from(f.max_dynamic_shared())),
        9 => *f.carveout.lock().unwrap_or_else(|p| p.into_inner()),
        10..=19 => 0,
        a => return Err(CuError::invalid(format!("function attribute {a}"))),
    })
}

/// `cuFuncSetAttribute`: the dynamic shared memory limit (up to CUDA's opt-in limit beside the
/// kernel's static shared memory, which any device gives: docs/decisions/0078) and the
/// carveout preference (-1 to 100, no effect here) can be set; the other attributes are
/// read-only.
pub fn set_attribute(f: &Func, attr: i32, value: i32) -> CuResult<()> {
    match attr {
        8 => {
            let available =
                shared::MAX_SHARED_BYTES.saturating_sub(f.kernel.abi().static_shared_bytes);
            if u32::try_from(value).map_or(true, |v| v > available) {
                return Err(CuError::invalid(format!(
                    "{value} bytes of dynamic shared memory; at most {available}"
                )));
            }
            // A launch racing with the change sees the old limit or the new one, as in CUDA.
            f.max_dynamic_shared.store(value as u32, Ordering::Relaxed);
            Ok(())
        }
        9 if (-1..=100).contains(&value) => {
            *f.carveout.lock().unwrap_or_else(|p| p.into_inner()) = value;
            Ok(())
        }
        a => Err(CuError::invalid(format!(
            "function attribute {a} = {value}"
        ))),
    }
}
