//! Running launches through NVIDIA's CUDA driver API (`--record-cuda`), loaded at run time so
//! that nothing CUDA is needed to build or to run anything else.
//!
//! The same PTX text that ptxvk translates is handed to `cuModuleLoadData` (the driver's own PTX
//! compiler), launched with `cuLaunchKernel`, and its buffers read back.

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::sync::Mutex;

use libloading::Library;
use ptxvk_translator::{Program, SourceFile};

use crate::launch::{Arg, Backend, Launch};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuModule = *mut c_void;
type CuFunction = *mut c_void;
type CuDevicePtr = u64;

const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// The driver entry points used, resolved from the library by name.
struct Api {
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    driver_get_version: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, CuDevice) -> CuResult,
    primary_ctx_retain: unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult,
    ctx_set_current: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    module_load_data_ex: unsafe extern "C" fn(
        *mut CuModule,
        *const c_void,
        c_uint,
        *mut c_int,
        *mut *mut c_void,
    ) -> CuResult,
    module_unload: unsafe extern "C" fn(CuModule) -> CuResult,
    module_get_function: unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult,
    mem_alloc: unsafe extern "C" fn(*mut CuDevicePtr, usize) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    memcpy_htod: unsafe extern "C" fn(CuDevicePtr, *const c_void, usize) -> CuResult,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, CuDevicePtr, usize) -> CuResult,
    #[allow(clippy::type_complexity)]
    launch_kernel: unsafe extern "C" fn(
        CuFunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        *mut c_void,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
    get_error_name: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
}

/// Why the CUDA driver could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    #[error(
        "--record-cuda needs an NVIDIA GPU with the CUDA driver, but the driver library ({library}) cannot be loaded here: {detail}"
    )]
    NoDriver { library: String, detail: String },
    #[error("the CUDA driver library lacks `{0}` (too old a driver?)")]
    MissingSymbol(String),
    #[error("--record-cuda needs an NVIDIA GPU: {call} failed with {code}")]
    NoDevice { call: &'static str, code: String },
}

/// An NVIDIA GPU through the CUDA driver; launches are serialized.
pub struct Cuda {
    api: Api,
    ctx: CuContext,
    gpu: String,
    driver: String,
    lock: Mutex<()>,
    // Keeps the library loaded as long as the function pointers in `api` are used.
    _lib: Library,
}

// SAFETY: the CUDA driver API is thread-safe; the primary context may be made current on any
// thread (each `execute` does so) and launches are serialized by `lock`.
unsafe impl Send for Cuda {}
// SAFETY: as above.
unsafe impl Sync for Cuda {}

#[cfg(windows)]
const LIBRARIES: &[&str] = &["nvcuda.dll"];
#[cfg(not(windows))]
const LIBRARIES: &[&str] = &["libcuda.so.1", "libcuda.so"];

impl Cuda {
    /// Loads the driver and opens device `ordinal`.
    pub fn open(ordinal: i32) -> Result<Cuda, CudaError> {
        let mut detail = String::new();
        let mut lib = None;
        for name in LIBRARIES {
            // SAFETY: loading NVIDIA's driver library runs its initializers, which have no
            // preconditions.
            match unsafe { Library::new(name) } {
                Ok(l) => {
                    lib = Some(l);
                    break;
                }
                Err(e) => detail = e.to_string(),
            }
        }
        let Some(lib) = lib else {
            return Err(CudaError::NoDriver {
                library: LIBRARIES.join(" or "),
                detail,
            });
        };
        let api = Api::load(&lib)?;
        let code = |api: &Api, r: CuResult| error_name(api, r);
        // SAFETY: cuInit(0) is the documented first call; the out-pointers below point to live
        // locals of the right types.
        unsafe {
            let r = (api.init)(0);
            if r != 0 {
                return Err(CudaError::NoDevice {
                    call: "cuInit",
                    code: code(&api, r),
                });
            }
            let mut count = 0;
            let r = (api.device_get_count)(&mut count);
            if r != 0 || count <= ordinal {
                return Err(CudaError::NoDevice {
                    call: "cuDeviceGetCount",
                    code: if r != 0 {
                        code(&api, r)
                    } else {
                        format!("{count} device(s), device {ordinal} asked for")
                    },
                });
            }
            let mut dev = 0;
            let r = (api.device_get)(&mut dev, ordinal);
            if r != 0 {
                return Err(CudaError::NoDevice {
                    call: "cuDeviceGet",
                    code: code(&api, r),
                });
            }
            let mut name = [0 as c_char; 256];
            (api.device_get_name)(name.as_mut_ptr(), name.len() as c_int, dev);
            let gpu = CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            let mut version = 0;
            (api.driver_get_version)(&mut version);
            let mut ctx = std::ptr::null_mut();
            let r = (api.primary_ctx_retain)(&mut ctx, dev);
            if r != 0 {
                return Err(CudaError::NoDevice {
                    call: "cuDevicePrimaryCtxRetain",
                    code: code(&api, r),
                });
            }
            let release = std::fs::read_to_string("/proc/driver/nvidia/version")
                .ok()
                .and_then(|s| {
                    // "NVRM version: NVIDIA UNIX [Open Kernel Module for] x86_64  580.159.04 ..."
                    s.split_whitespace()
                        .skip_while(|w| *w != "Kernel")
                        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
                        .map(str::to_string)
                });
            let driver = format!(
                "CUDA driver API {}.{}{}",
                version / 1000,
                (version % 1000) / 10,
                release
                    .map(|r| format!(", kernel module {r}"))
                    .unwrap_or_default()
            );
            Ok(Cuda {
                api,
                ctx,
                gpu,
                driver,
                lock: Mutex::new(()),
                _lib: lib,
            })
        }
    }

    pub fn gpu(&self) -> &str {
        &self.gpu
    }

    pub fn driver(&self) -> &str {
        &self.driver
    }

    fn check(&self, call: &str, r: CuResult) -> Result<(), String> {
        if r == 0 {
            Ok(())
        } else {
            Err(format!("{call} failed: {}", error_name(&self.api, r)))
        }
    }
}

fn error_name(api: &Api, r: CuResult) -> String {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string (or leaves it null).
    let ok = unsafe { (api.get_error_name)(r, &mut p) } == 0 && !p.is_null();
    if ok {
        // SAFETY: a NUL-terminated static string from the driver.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        format!("CUDA error {r}")
    }
}

impl Api {
    fn load(lib: &Library) -> Result<Api, CudaError> {
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the symbol is the documented CUDA driver entry point of this name; the
                // field's type is its C signature.
                let s = unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|_| CudaError::MissingSymbol($name.to_string()))?;
                *s
            }};
        }
        Ok(Api {
            init: sym!("cuInit"),
            driver_get_version: sym!("cuDriverGetVersion"),
            device_get_count: sym!("cuDeviceGetCount"),
            device_get: sym!("cuDeviceGet"),
            device_get_name: sym!("cuDeviceGetName"),
            primary_ctx_retain: sym!("cuDevicePrimaryCtxRetain"),
            ctx_set_current: sym!("cuCtxSetCurrent"),
            ctx_synchronize: sym!("cuCtxSynchronize"),
            module_load_data_ex: sym!("cuModuleLoadDataEx"),
            module_unload: sym!("cuModuleUnload"),
            module_get_function: sym!("cuModuleGetFunction"),
            mem_alloc: sym!("cuMemAlloc_v2"),
            mem_free: sym!("cuMemFree_v2"),
            memcpy_htod: sym!("cuMemcpyHtoD_v2"),
            memcpy_dtoh: sym!("cuMemcpyDtoH_v2"),
            launch_kernel: sym!("cuLaunchKernel"),
            get_error_name: sym!("cuGetErrorName"),
        })
    }
}

/// The bytes of each kernel parameter, in order, with buffer arguments given their addresses.
pub fn param_bytes(l: &Launch, addresses: &[u64]) -> Result<Vec<Vec<u8>>, String> {
    let program = Program::parse(SourceFile::new(&l.module_name, &*l.ptx))
        .map_err(|d| d.short().trim().to_string())?;
    let abi = program
        .kernel_abi(&l.kernel)
        .ok_or_else(|| format!("no kernel `{}`", l.kernel))?;
    if abi.params.len() != l.args.len() {
        return Err(format!(
            "kernel `{}` takes {} parameters, {} given",
            l.kernel,
            abi.params.len(),
            l.args.len()
        ));
    }
    abi.params
        .iter()
        .zip(&l.args)
        .map(|(p, a)| {
            let arg = match a {
                Arg::Value(v) => v.clone(),
                Arg::Buffer(n) => ptxvk_runtime::KernelArg::Ptr(
                    *addresses.get(*n).ok_or("buffer index out of range")?,
                ),
            };
            arg.bytes_for(p)
                .ok_or_else(|| format!("parameter `{}` cannot take {}", p.name, arg.describe()))
        })
        .collect()
}

impl Backend for Cuda {
    fn name(&self) -> String {
        format!("CUDA: {}", self.gpu)
    }

    fn execute(&self, l: &Launch) -> Result<Vec<Vec<u8>>, String> {
        let module = self.load(l)?;
        let result = self.run(l, module);
        // SAFETY: the module was loaded above and is unloaded once, after its launch.
        unsafe { (self.api.module_unload)(module) };
        result
    }

    /// ptxas refuses a `.target` above the GPU's own generation.
    fn lacks_feature(&self, message: &str) -> bool {
        message.contains("SM version specified by .target is higher")
    }
}

impl Cuda {
    /// JIT-compiles the launch's PTX with the driver. Outside the launch lock: the driver
    /// compiles modules on several threads at once, and compiling is most of a case's time.
    fn load(&self, l: &Launch) -> Result<CuModule, String> {
        let ptx = CString::new(l.ptx.as_bytes()).map_err(|_| "the PTX contains a NUL byte")?;
        let api = &self.api;
        let mut module: CuModule = std::ptr::null_mut();
        let mut log = vec![0u8; 8192];
        let mut opts = [CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER];
        let mut vals = [
            std::ptr::without_provenance_mut::<c_void>(log.len()),
            log.as_mut_ptr().cast::<c_void>(),
        ];
        // SAFETY: the options point to `log`, which outlives the call, with its length; the
        // other pointers are live locals.
        let r = unsafe {
            self.check("cuCtxSetCurrent", (api.ctx_set_current)(self.ctx))?;
            (api.module_load_data_ex)(
                &mut module,
                ptx.as_ptr().cast(),
                2,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        if r != 0 {
            let end = log.iter().position(|b| *b == 0).unwrap_or(log.len());
            return Err(format!(
                "cuModuleLoadData failed: {}: {}",
                error_name(api, r),
                String::from_utf8_lossy(&log[..end]).trim()
            ));
        }
        Ok(module)
    }

    /// Uploads the launch's buffers, runs its kernel from `module` (loaded by [`Cuda::load`] on
    /// this thread) and reads the buffers back; one launch at a time, so a launch's
    /// synchronization waits for its own kernel only.
    fn run(&self, l: &Launch, module: CuModule) -> Result<Vec<Vec<u8>>, String> {
        let _guard = self.lock.lock().map_err(|_| "a previous launch panicked")?;
        let kernel = CString::new(l.kernel.as_bytes()).map_err(|_| "bad kernel name")?;
        let api = &self.api;
        let mut ptrs: Vec<CuDevicePtr> = Vec::new();
        // SAFETY: every pointer passed below is live for the call: out-parameters are locals,
        // host buffers are slices of the launch's vectors with their lengths, device pointers
        // come from cuMemAlloc with the same sizes, and the parameter array points into
        // `params`, which outlives the launch and the synchronization that follows it.
        let result = unsafe {
            (|| -> Result<Vec<Vec<u8>>, String> {
                // The context is current: `load` made it so on this thread.
                let mut func: CuFunction = std::ptr::null_mut();
                self.check(
                    "cuModuleGetFunction",
                    (api.module_get_function)(&mut func, module, kernel.as_ptr()),
                )?;
                for b in &l.buffers {
                    let mut p = 0;
                    self.check("cuMemAlloc", (api.mem_alloc)(&mut p, b.len().max(1)))?;
                    ptrs.push(p);
                    self.check(
                        "cuMemcpyHtoD",
                        (api.memcpy_htod)(p, b.as_ptr().cast(), b.len()),
                    )?;
                }
                let mut params = param_bytes(l, &ptrs)?;
                let mut pp: Vec<*mut c_void> = params
                    .iter_mut()
                    .map(|p| p.as_mut_ptr().cast::<c_void>())
                    .collect();
                self.check(
                    "cuLaunchKernel",
                    (api.launch_kernel)(
                        func,
                        l.grid[0],
                        l.grid[1],
                        l.grid[2],
                        l.block[0],
                        l.block[1],
                        l.block[2],
                        l.dynamic_shared,
                        std::ptr::null_mut(),
                        pp.as_mut_ptr(),
                        std::ptr::null_mut(),
                    ),
                )?;
                self.check("cuCtxSynchronize", (api.ctx_synchronize)())?;
                let mut out = Vec::new();
                for (b, p) in l.buffers.iter().zip(&ptrs) {
                    let mut host = vec![0u8; b.len()];
                    self.check(
                        "cuMemcpyDtoH",
                        (api.memcpy_dtoh)(host.as_mut_ptr().cast(), *p, host.len()),
                    )?;
                    out.push(host);
                }
                Ok(out)
            })()
        };
        // SAFETY: freeing what was allocated above, once.
        unsafe {
            for p in ptrs {
                (api.mem_free)(p);
            }
        }
        result
    }
}
