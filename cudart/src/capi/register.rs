//! The entry points nvcc's generated host code calls (crt/host_runtime.h): registration of
//! each translation unit's fatbinary, kernels and variables before `main`, and the launch
//! configuration that `kernel<<<grid, block, shared, stream>>>` pushes for the stub to pop.

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int, c_void};

use super::{Dim3, Stream, entry, out};
use crate::error::{self, CudaError, Error, Result};
use crate::state::{self, Addr};

fn name(p: *const c_char) -> Result<std::ffi::CString> {
    if p.is_null() {
        return Err(Error(error::INVALID_VALUE));
    }
    // SAFETY: nvcc passes the NUL-terminated names of its string table.
    Ok(unsafe { CStr::from_ptr(p) }.to_owned())
}

/// Returns the handle the other calls pass back: a number, never dereferenced by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinary(fat: *mut c_void) -> *mut *mut c_void {
    std::panic::catch_unwind(|| state::register_fatbin(fat)).unwrap_or(0) as *mut *mut c_void
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaUnregisterFatBinary(handle: *mut *mut c_void) {
    let _ = std::panic::catch_unwind(|| state::unregister_fatbin(handle as usize));
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_char,
    _device_fun: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bdim: *mut c_void,
    _gdim: *mut c_void,
    _wsize: *mut c_int,
) {
    entry(|| state::register_kernel(handle as usize, Addr(host_fun as usize), name(device_name)?));
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    entry(|| {
        state::register_var(
            handle as usize,
            Addr(host_var as usize),
            name(device_name)?,
            None,
        )
    });
}

/// A `__managed__` variable: the host reaches it through `*host_ptr`, which
/// `__cudaInitModule` points at the module's variable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_ptr: *mut *mut c_void,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    entry(|| {
        // The host names the variable by its shadow, whose address the pointer holds.
        // SAFETY: nvcc passes the address of its pointer to the shadow.
        let shadow = unsafe { host_ptr.as_ref() }.ok_or(Error(error::INVALID_VALUE))?;
        state::register_var(
            handle as usize,
            Addr(*shadow as usize),
            name(device_name)?,
            Some(Addr(host_ptr as usize)),
        )
    });
}

/// Loads the module now, pointing its managed variables' host pointers at them. Returns
/// nonzero on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaInitModule(handle: *mut *mut c_void) -> c_char {
    c_char::from(entry(|| state::load_fatbin(handle as usize)) == error::SUCCESS)
}

#[derive(Clone, Copy)]
struct Config {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Stream,
}

thread_local! {
    static CONFIGS: RefCell<Vec<Config>> = const { RefCell::new(Vec::new()) };
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Stream,
) -> u32 {
    let pushed = std::panic::catch_unwind(|| {
        CONFIGS.with(|c| {
            c.borrow_mut().push(Config {
                grid,
                block,
                shared,
                stream,
            })
        })
    });
    u32::from(pushed.is_err())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut Stream,
) -> CudaError {
    entry(|| {
        let c = CONFIGS
            .with(|c| c.borrow_mut().pop())
            .ok_or(Error(error::INVALID_CONFIGURATION))?;
        *out(grid)? = c.grid;
        *out(block)? = c.block;
        *out(shared)? = c.shared;
        *out(stream)? = c.stream;
        Ok(())
    })
}
