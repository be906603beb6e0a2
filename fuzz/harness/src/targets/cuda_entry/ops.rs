//! libcuda's entry points as the target calls them, and the arguments and calls it draws.

use std::ffi::{c_char, c_int, c_uint, c_void};

use arbitrary::Arbitrary;
use cuda::error::CUresult;

use super::{CUdeviceptr, Handle};

unsafe extern "C" {
    pub(super) fn cuInit(flags: c_uint) -> CUresult;
    pub(super) fn cuDeviceGet(dev: *mut c_int, ordinal: c_int) -> CUresult;
    pub(super) fn cuDeviceGetAttribute(value: *mut c_int, attr: c_int, dev: c_int) -> CUresult;
    pub(super) fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: c_int) -> CUresult;
    pub(super) fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: c_int) -> CUresult;
    pub(super) fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: c_int) -> CUresult;
    pub(super) fn cuCtxDestroy_v2(ctx: Handle) -> CUresult;
    pub(super) fn cuCtxSetCurrent(ctx: Handle) -> CUresult;
    pub(super) fn cuCtxGetLimit(value: *mut usize, limit: c_uint) -> CUresult;
    pub(super) fn cuCtxSetLimit(limit: c_uint, value: usize) -> CUresult;
    pub(super) fn cuCtxSynchronize() -> CUresult;
    pub(super) fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, size: usize) -> CUresult;
    pub(super) fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    pub(super) fn cuMemGetAddressRange_v2(
        base: *mut CUdeviceptr,
        size: *mut usize,
        dptr: CUdeviceptr,
    ) -> CUresult;
    pub(super) fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, n: usize) -> CUresult;
    pub(super) fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult;
    pub(super) fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult;
    pub(super) fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) -> CUresult;
    pub(super) fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) -> CUresult;
    pub(super) fn cuPointerGetAttribute(
        data: *mut c_void,
        attr: c_uint,
        ptr: CUdeviceptr,
    ) -> CUresult;
    pub(super) fn cuModuleLoadData(pmod: *mut Handle, image: *const c_void) -> CUresult;
    pub(super) fn cuModuleUnload(m: Handle) -> CUresult;
    pub(super) fn cuModuleGetFunction(f: *mut Handle, m: Handle, name: *const c_char) -> CUresult;
    pub(super) fn cuModuleGetGlobal_v2(
        dptr: *mut CUdeviceptr,
        bytes: *mut usize,
        m: Handle,
        name: *const c_char,
    ) -> CUresult;
    pub(super) fn cuFuncGetAttribute(value: *mut c_int, attr: c_int, f: Handle) -> CUresult;
    pub(super) fn cuLaunchKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        stream: Handle,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
    pub(super) fn cuStreamCreate(ps: *mut Handle, flags: c_uint) -> CUresult;
    pub(super) fn cuStreamDestroy_v2(s: Handle) -> CUresult;
    pub(super) fn cuStreamSynchronize(s: Handle) -> CUresult;
    pub(super) fn cuStreamQuery(s: Handle) -> CUresult;
    pub(super) fn cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint) -> CUresult;
    pub(super) fn cuEventCreate(pe: *mut Handle, flags: c_uint) -> CUresult;
    pub(super) fn cuEventRecord(e: Handle, s: Handle) -> CUresult;
    pub(super) fn cuEventSynchronize(e: Handle) -> CUresult;
    pub(super) fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult;
    pub(super) fn cuEventDestroy_v2(e: Handle) -> CUresult;
    pub(super) fn cuGetErrorName(code: CUresult, out: *mut *const c_char) -> CUresult;
    pub(super) fn cuGetErrorString(code: CUresult, out: *mut *const c_char) -> CUresult;
}

/// A handle argument as the fuzzer picks it: a real one, null, or any bits.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub(super) enum HandleArg {
    /// One of the handles made so far (of any kind).
    Made(u8),
    Null,
    Forged(u64),
}

/// A device-pointer argument as the fuzzer picks it: near a real allocation, null, or any bits.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub(super) enum DevicePtrArg {
    /// Inside, at the end of, or past one of the allocations made so far.
    In(u8, u16),
    End(u8),
    Forged(u64),
    Null,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub(super) enum Size {
    Small(u16),
    Huge(u64),
}

impl Size {
    pub(super) fn get(self) -> usize {
        match self {
            Size::Small(n) => usize::from(n),
            // Large enough that no allocator tries: 1 TiB and up.
            Size::Huge(n) => (n | (1 << 40)) as usize,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub(super) enum Op {
    DeviceGet {
        ordinal: i32,
        null: bool,
    },
    DeviceGetAttribute {
        attr: i32,
        dev: i32,
        null: bool,
    },
    DeviceGetName {
        len: i16,
        dev: i32,
    },
    DeviceTotalMem {
        dev: i32,
        null: bool,
    },
    CtxCreate {
        flags: u32,
        dev: i32,
        null: bool,
    },
    CtxDestroy(HandleArg),
    CtxSetCurrent(HandleArg),
    CtxGetLimit {
        limit: u32,
        null: bool,
    },
    CtxSetLimit {
        limit: u32,
        value: u16,
    },
    CtxSynchronize,
    MemAlloc {
        size: Size,
        null: bool,
    },
    MemFree(DevicePtrArg),
    MemGetAddressRange(DevicePtrArg, bool),
    HtoD {
        dst: DevicePtrArg,
        n: Size,
    },
    DtoH {
        src: DevicePtrArg,
        n: Size,
    },
    DtoD {
        dst: DevicePtrArg,
        src: DevicePtrArg,
        n: Size,
    },
    MemsetD8 {
        dst: DevicePtrArg,
        v: u8,
        n: Size,
    },
    MemsetD32 {
        dst: DevicePtrArg,
        v: u32,
        n: Size,
    },
    PointerGetAttribute {
        attr: u32,
        ptr: DevicePtrArg,
        null: bool,
    },
    ModuleLoad {
        valid: bool,
        null: bool,
    },
    ModuleUnload(HandleArg),
    ModuleGetFunction {
        m: HandleArg,
        name: u8,
        null: bool,
    },
    ModuleGetGlobal {
        m: HandleArg,
        name: u8,
    },
    FuncGetAttribute {
        attr: i32,
        f: HandleArg,
        null: bool,
    },
    Launch {
        f: HandleArg,
        grid: [u8; 3],
        block: [u8; 3],
        shared: u32,
        stream: HandleArg,
        params: bool,
    },
    StreamCreate {
        flags: u32,
    },
    StreamDestroy(HandleArg),
    StreamSynchronize(HandleArg),
    StreamQuery(HandleArg),
    StreamWaitEvent(HandleArg, HandleArg, u32),
    EventCreate {
        flags: u32,
    },
    EventRecord(HandleArg, HandleArg),
    EventSynchronize(HandleArg),
    EventElapsed(HandleArg, HandleArg),
    EventDestroy(HandleArg),
    ErrorName {
        code: u32,
        string: bool,
        null: bool,
    },
}
