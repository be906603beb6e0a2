//! libcuda's C entry points with hostile arguments: sequences of calls whose handles are real
//! ones, handles of another kind, freed ones, forged ones or NULL; device pointers inside, at
//! the edge of and past allocations; sizes from 0 to 2^64 - 1; unknown enum values and flags.
//!
//! Only what CUDA's contract lets a driver check is hostile: host pointers are NULL or valid for
//! what the call reads or writes, and launched kernels touch no memory (a kernel given a wild
//! device pointer may write anywhere, on lavapipe into this process). Every call must return
//! a CUDA code (a panic would come back as CUDA_ERROR_UNKNOWN, checked here, and libFuzzer's
//! panic hook aborts first anyway).

use std::ffi::{CStr, c_char, c_int, c_void};

use arbitrary::Arbitrary;
use cuda::error::{CUDA_ERROR_UNKNOWN, CUDA_SUCCESS, CUresult};

mod ops;

use ops::*;

type Handle = *mut c_void;
type CUdeviceptr = u64;

/// A module whose kernels read their parameters and shared memory only.
const PTX: &CStr = c".version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 counter;
.visible .entry k(.param .u64 p, .param .u32 n)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .shared .align 4 .u32 s[32];
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    and.b32 %r2, %r2, 31;
    shl.b32 %r2, %r2, 2;
    st.shared.u32 [s], %r1;
    ret;
}
.visible .entry none()
{
    ret;
}
";

const NOT_PTX: &CStr = c".version 7.0\n.target sm_70\n.entry broken( {";

/// Sizes around CUDA's launch limits, and small ones.
const DIMS: [u32; 8] = [0, 1, 2, 32, 1025, 65535, 65536, u32::MAX];

const HOST_BYTES: usize = 1 << 16;

#[derive(Default)]
struct State {
    handles: Vec<Handle>,
    contexts: Vec<Handle>,
    allocs: Vec<(CUdeviceptr, usize)>,
    host: Vec<u8>,
}

impl State {
    fn h(&self, h: HandleArg) -> Handle {
        match h {
            HandleArg::Made(i) if !self.handles.is_empty() => {
                self.handles[usize::from(i) % self.handles.len()]
            }
            HandleArg::Made(_) | HandleArg::Null => std::ptr::null_mut(),
            HandleArg::Forged(v) => v as usize as Handle,
        }
    }

    fn p(&self, p: DevicePtrArg) -> CUdeviceptr {
        let pick = |i: u8| self.allocs.get(usize::from(i) % self.allocs.len().max(1));
        match p {
            DevicePtrArg::In(i, off) => {
                pick(i).map_or(0, |(a, s)| a + (u64::from(off) % (*s as u64 + 1)))
            }
            DevicePtrArg::End(i) => pick(i).map_or(0, |(a, s)| a + *s as u64),
            DevicePtrArg::Forged(v) => v,
            DevicePtrArg::Null => 0,
        }
    }

    /// Whether a host-side copy of `n` bytes stays inside our host buffer (CUDA's contract).
    fn host_ok(&self, n: usize) -> bool {
        n <= self.host.len()
    }
}

fn check(what: &str, r: CUresult) -> CUresult {
    assert_ne!(
        r, CUDA_ERROR_UNKNOWN,
        "{what} answered CUDA_ERROR_UNKNOWN (a caught panic)"
    );
    assert!(
        cuda::error::c_name(r).is_some(),
        "{what} answered {r}, which is no CUDA code"
    );
    r
}

fn out<T>(null: bool, v: &mut T) -> *mut T {
    if null { std::ptr::null_mut() } else { v }
}

// SAFETY (every call below): pointers are NULL or point at live locals or at `State::host`
// with room for what the call writes; handles and device pointers may be anything.
#[allow(clippy::too_many_lines)]
unsafe fn apply(st: &mut State, op: Op) {
    let mut i: c_int = 0;
    let mut z: usize = 0;
    let mut h: Handle = std::ptr::null_mut();
    let mut d: CUdeviceptr = 0;
    unsafe {
        match op {
            Op::DeviceGet { ordinal, null } => {
                check("cuDeviceGet", cuDeviceGet(out(null, &mut i), ordinal));
            }
            Op::DeviceGetAttribute { attr, dev, null } => {
                check(
                    "cuDeviceGetAttribute",
                    cuDeviceGetAttribute(out(null, &mut i), attr, dev),
                );
            }
            Op::DeviceGetName { len, dev } => {
                let mut buf = [0 as c_char; 256];
                // The buffer holds `len` bytes where `len` is positive (the contract).
                let len = c_int::from(len).min(256);
                check(
                    "cuDeviceGetName",
                    cuDeviceGetName(buf.as_mut_ptr(), len, dev),
                );
            }
            Op::DeviceTotalMem { dev, null } => {
                check(
                    "cuDeviceTotalMem",
                    cuDeviceTotalMem_v2(out(null, &mut z), dev),
                );
            }
            Op::CtxCreate { flags, dev, null } => {
                // A few contexts at most: each is a Vulkan device.
                if st.contexts.len() < 3 {
                    let r = check("cuCtxCreate", cuCtxCreate_v2(out(null, &mut h), flags, dev));
                    if r == CUDA_SUCCESS && !null {
                        st.contexts.push(h);
                        st.handles.push(h);
                    }
                }
            }
            Op::CtxDestroy(c) => {
                let c = st.h(c);
                if check("cuCtxDestroy", cuCtxDestroy_v2(c)) == CUDA_SUCCESS {
                    st.contexts.retain(|&x| x != c);
                }
            }
            Op::CtxSetCurrent(c) => {
                check("cuCtxSetCurrent", cuCtxSetCurrent(st.h(c)));
            }
            Op::CtxGetLimit { limit, null } => {
                check("cuCtxGetLimit", cuCtxGetLimit(out(null, &mut z), limit));
            }
            Op::CtxSetLimit { limit, value } => {
                check("cuCtxSetLimit", cuCtxSetLimit(limit, usize::from(value)));
            }
            Op::CtxSynchronize => {
                check("cuCtxSynchronize", cuCtxSynchronize());
            }
            Op::MemAlloc { size, null } => {
                let size = size.get();
                let r = check("cuMemAlloc", cuMemAlloc_v2(out(null, &mut d), size));
                if r == CUDA_SUCCESS && !null {
                    st.allocs.push((d, size));
                }
            }
            Op::MemFree(p) => {
                let p = st.p(p);
                if check("cuMemFree", cuMemFree_v2(p)) == CUDA_SUCCESS {
                    st.allocs.retain(|(a, _)| *a != p);
                }
            }
            Op::MemGetAddressRange(p, null) => {
                check(
                    "cuMemGetAddressRange",
                    cuMemGetAddressRange_v2(out(null, &mut d), out(null, &mut z), st.p(p)),
                );
            }
            Op::HtoD { dst, n } => {
                let n = n.get();
                if st.host_ok(n) {
                    check(
                        "cuMemcpyHtoD",
                        cuMemcpyHtoD_v2(st.p(dst), st.host.as_ptr().cast(), n),
                    );
                }
            }
            Op::DtoH { src, n } => {
                let n = n.get();
                if st.host_ok(n) {
                    let dst = st.host.as_mut_ptr().cast();
                    check("cuMemcpyDtoH", cuMemcpyDtoH_v2(dst, st.p(src), n));
                }
            }
            Op::DtoD { dst, src, n } => {
                check(
                    "cuMemcpyDtoD",
                    cuMemcpyDtoD_v2(st.p(dst), st.p(src), n.get()),
                );
            }
            Op::MemsetD8 { dst, v, n } => {
                check("cuMemsetD8", cuMemsetD8_v2(st.p(dst), v, n.get()));
            }
            Op::MemsetD32 { dst, v, n } => {
                check("cuMemsetD32", cuMemsetD32_v2(st.p(dst), v, n.get()));
            }
            Op::PointerGetAttribute { attr, ptr, null } => {
                // Room for the largest attribute value (a 16-byte UUID-sized record, and more).
                let mut data = [0u64; 8];
                let p = if null {
                    std::ptr::null_mut()
                } else {
                    data.as_mut_ptr().cast()
                };
                check(
                    "cuPointerGetAttribute",
                    cuPointerGetAttribute(p, attr, st.p(ptr)),
                );
            }
            Op::ModuleLoad { valid, null } => {
                let image = if valid { PTX } else { NOT_PTX };
                let r = check(
                    "cuModuleLoadData",
                    cuModuleLoadData(out(null, &mut h), image.as_ptr().cast()),
                );
                if r == CUDA_SUCCESS && !null {
                    st.handles.push(h);
                }
            }
            Op::ModuleUnload(m) => {
                check("cuModuleUnload", cuModuleUnload(st.h(m)));
            }
            Op::ModuleGetFunction { m, name, null } => {
                let names: [&CStr; 4] = [c"k", c"none", c"missing", c""];
                let name = names[usize::from(name) % names.len()];
                let r = check(
                    "cuModuleGetFunction",
                    cuModuleGetFunction(out(null, &mut h), st.h(m), name.as_ptr()),
                );
                if r == CUDA_SUCCESS && !null {
                    st.handles.push(h);
                }
            }
            Op::ModuleGetGlobal { m, name } => {
                let names: [&CStr; 3] = [c"counter", c"k", c"nothing"];
                let name = names[usize::from(name) % names.len()];
                check(
                    "cuModuleGetGlobal",
                    cuModuleGetGlobal_v2(&mut d, &mut z, st.h(m), name.as_ptr()),
                );
            }
            Op::FuncGetAttribute { attr, f, null } => {
                check(
                    "cuFuncGetAttribute",
                    cuFuncGetAttribute(out(null, &mut i), attr, st.h(f)),
                );
            }
            Op::Launch {
                f,
                grid,
                block,
                shared,
                stream,
                params,
            } => {
                let g = grid.map(|x| DIMS[usize::from(x) % DIMS.len()]);
                let b = block.map(|x| DIMS[usize::from(x) % DIMS.len()]);
                // A launch within every limit runs: keep those small (a grid of 2^31 blocks
                // would run into the timeout), and let the out-of-limit ones be refused.
                let threads = g
                    .iter()
                    .chain(&b)
                    .fold(1u64, |n, &x| n.saturating_mul(u64::from(x)));
                let within = g[0] < 1 << 31
                    && g[1] <= 65535
                    && g[2] <= 65535
                    && b[0] <= 1024
                    && b[1] <= 1024
                    && b[2] <= 64
                    && u64::from(b[0]) * u64::from(b[1]) * u64::from(b[2]) <= 1024;
                if within && threads > 1 << 16 {
                    return;
                }
                // Room for every parameter of every kernel in `PTX`.
                let mut p_val: u64 = 0;
                let mut n_val: u32 = 0;
                let mut args: [*mut c_void; 2] = [(&raw mut p_val).cast(), (&raw mut n_val).cast()];
                let params = if params {
                    args.as_mut_ptr()
                } else {
                    std::ptr::null_mut()
                };
                check(
                    "cuLaunchKernel",
                    cuLaunchKernel(
                        st.h(f),
                        g[0],
                        g[1],
                        g[2],
                        b[0],
                        b[1],
                        b[2],
                        shared,
                        st.h(stream),
                        params,
                        std::ptr::null_mut(),
                    ),
                );
            }
            Op::StreamCreate { flags } => {
                if check("cuStreamCreate", cuStreamCreate(&mut h, flags)) == CUDA_SUCCESS {
                    st.handles.push(h);
                }
            }
            Op::StreamDestroy(s) => {
                check("cuStreamDestroy", cuStreamDestroy_v2(st.h(s)));
            }
            Op::StreamSynchronize(s) => {
                check("cuStreamSynchronize", cuStreamSynchronize(st.h(s)));
            }
            Op::StreamQuery(s) => {
                check("cuStreamQuery", cuStreamQuery(st.h(s)));
            }
            Op::StreamWaitEvent(s, e, flags) => {
                check(
                    "cuStreamWaitEvent",
                    cuStreamWaitEvent(st.h(s), st.h(e), flags),
                );
            }
            Op::EventCreate { flags } => {
                if check("cuEventCreate", cuEventCreate(&mut h, flags)) == CUDA_SUCCESS {
                    st.handles.push(h);
                }
            }
            Op::EventRecord(e, s) => {
                check("cuEventRecord", cuEventRecord(st.h(e), st.h(s)));
            }
            Op::EventSynchronize(e) => {
                check("cuEventSynchronize", cuEventSynchronize(st.h(e)));
            }
            Op::EventElapsed(a, b) => {
                let mut ms = 0f32;
                check(
                    "cuEventElapsedTime",
                    cuEventElapsedTime(&mut ms, st.h(a), st.h(b)),
                );
            }
            Op::EventDestroy(e) => {
                check("cuEventDestroy", cuEventDestroy_v2(st.h(e)));
            }
            Op::ErrorName { code, string, null } => {
                let mut s: *const c_char = std::ptr::null();
                let o = if null { std::ptr::null_mut() } else { &mut s };
                let r = if string {
                    cuGetErrorString(code, o)
                } else {
                    cuGetErrorName(code, o)
                };
                if check("cuGetErrorName", r) == CUDA_SUCCESS && !null {
                    assert!(!s.is_null());
                    let _ = CStr::from_ptr(s).to_bytes().len();
                }
            }
        }
    }
}

/// One input, read as libFuzzer's typed targets read theirs.
pub fn run(data: &[u8]) {
    let Ok(ops) = Vec::<Op>::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    // SAFETY: no arguments.
    assert_eq!(unsafe { cuInit(0) }, CUDA_SUCCESS, "cuInit");
    let mut st = State {
        host: vec![0u8; HOST_BYTES],
        ..State::default()
    };
    for op in ops.into_iter().take(64) {
        // SAFETY: see `apply`.
        unsafe { apply(&mut st, op) };
    }
    // Everything made here goes with its context, so that runs do not accumulate devices.
    for c in std::mem::take(&mut st.contexts) {
        // SAFETY: a handle; it may have been destroyed already, which is an error code.
        unsafe { cuCtxDestroy_v2(c) };
    }
    // SAFETY: NULL is a valid argument.
    unsafe { cuCtxSetCurrent(std::ptr::null_mut()) };
}
