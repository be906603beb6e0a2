//! Libraries (`cuLibraryLoadData`): PTX loaded once for every context. Each context gets its
//! own module of the library when it first needs one (a kernel's function, a global, the
//! module itself); a kernel handle (`CUkernel`) stands for the kernel in whichever context is
//! current, and may be passed to `cuLaunchKernel` in place of a function, as CUDA allows.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex};

use ptxvk_runtime::translator::{Program, SourceFile};

use crate::context;
use crate::error::{CuError, CuResult};
use crate::handles::Table;
use crate::module::{self, FUNCTIONS, Func, MODULES};

pub struct Lib {
    text: String,
    kernel_names: Vec<String>,
    /// Module of the library in each context (context id → module id).
    modules: Mutex<BTreeMap<usize, usize>>,
    /// Kernel handles given out, by name.
    kernels: Mutex<BTreeMap<String, usize>>,
}

pub struct Kern {
    pub lib_id: usize,
    pub name: CString,
}

pub static LIBRARIES: Table<Lib> = Table::new("library");
pub static KERNELS: Table<Kern> = Table::new("kernel");

/// Checks the PTX now (as CUDA compiles a library at load), without a context.
pub fn load(image: &[u8]) -> CuResult<usize> {
    let text = module::image_text(image)?.into_owned();
    let program = Program::parse(SourceFile::new("library.ptx", text.as_str()))
        .map_err(|d| CuError::InvalidPtx(d.to_string()))?;
    let (id, _) = LIBRARIES.insert(Lib {
        text,
        kernel_names: program.kernel_names(),
        modules: Mutex::new(BTreeMap::new()),
        kernels: Mutex::new(BTreeMap::new()),
    });
    Ok(id)
}

/// Unloads the library's module from every context and invalidates its kernel handles.
pub fn unload(id: usize) -> CuResult<()> {
    let lib = LIBRARIES.remove(id)?;
    KERNELS.remove_where(|k| k.lib_id == id);
    let modules = std::mem::take(&mut *lib.modules.lock().unwrap_or_else(|p| p.into_inner()));
    for m in modules.into_values() {
        // A module whose context was destroyed is gone already.
        let _ = module::unload(m);
    }
    Ok(())
}

/// The library's module in the current context, loaded on first use.
pub fn module_of(lib_id: usize) -> CuResult<usize> {
    let lib = LIBRARIES.get(lib_id)?;
    let (ctx_id, ctx) = context::current()?;
    let mut modules = lib.modules.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&m) = modules.get(&ctx_id)
        && MODULES.get(m).is_ok()
    {
        return Ok(m);
    }
    let m = module::load(ctx_id, ctx, "library.ptx", lib.text.as_bytes())?;
    modules.insert(ctx_id, m);
    Ok(m)
}

pub fn kernel(lib_id: usize, name: &str) -> CuResult<usize> {
    let lib = LIBRARIES.get(lib_id)?;
    if !lib.kernel_names.iter().any(|k| k == name) {
        return Err(CuError::NotFound(format!("kernel `{name}`")));
    }
    let mut known = lib.kernels.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&k) = known.get(name) {
        return Ok(k);
    }
    let (k, _) = KERNELS.insert(Kern {
        lib_id,
        name: CString::new(name).map_err(|_| CuError::invalid("a name with a NUL byte"))?,
    });
    known.insert(name.to_string(), k);
    Ok(k)
}

/// Every kernel of the library, in source order.
pub fn kernels(lib_id: usize) -> CuResult<Vec<usize>> {
    let names = LIBRARIES.get(lib_id)?.kernel_names.clone();
    names.iter().map(|n| kernel(lib_id, n)).collect()
}

/// The function of a kernel handle in the current context.
pub fn function_of(kernel_id: usize) -> CuResult<usize> {
    let k = KERNELS.get(kernel_id)?;
    let m = module_of(k.lib_id)?;
    let name = k
        .name
        .to_str()
        .map_err(|_| CuError::invalid("kernel name"))?;
    module::function(m, name)
}

/// A `CUfunction`, or a `CUkernel` standing for its function in the current context.
pub fn function_or_kernel(handle: usize) -> CuResult<Arc<Func>> {
    match FUNCTIONS.get(handle) {
        Ok(f) => Ok(f),
        Err(e) if KERNELS.get(handle).is_ok() => FUNCTIONS.get(function_of(handle)?).map_err(|_| e),
        Err(e) => Err(e),
    }
}
