"""cuda-python as its users write it, unmodified, against ptxvk's libcuda: NVRTC compiles CUDA
C++ for a virtual architecture (`compute_XX`, so the driver receives PTX), the driver API loads
it, fills a `__constant__` table, runs a templated kernel (its mangled name from NVRTC) and two
more on two streams ordered by an event, times them with events, and reads a `__device__`
counter back. Every result is checked against numpy; any mismatch exits non-zero."""
import sys

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc
from cuda_helpers import nvrtc_compile, ok

SOURCE = rb"""
__constant__ float coeffs[4];
__device__ unsigned int calls;

// y = c0 + c1 x + c2 x^2 + c3 x^3, Horner's rule with explicit fused multiply-adds.
template <typename T>
__global__ void poly(const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        T v = x[i];
        y[i] = fma(fma(fma((T)coeffs[3], v, (T)coeffs[2]), v, (T)coeffs[1]), v, (T)coeffs[0]);
    }
    if (i == 0) atomicAdd(&calls, 1u);
}

// Per-block maxima through shared memory.
extern "C" __global__ void block_max(const int *in, int *out, int n) {
    __shared__ int best[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    best[threadIdx.x] = i < n ? in[i] : -2147483647 - 1;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) best[threadIdx.x] = max(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = best[0];
    if (i == 0) atomicAdd(&calls, 1u);
}

// Scales in place by a value another kernel produced.
extern "C" __global__ void scale_by(float *y, const int *factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= (float)factor[0];
}
"""

POLY = b"poly<float>"


ok(cu.cuInit(0))
dev = ok(cu.cuDeviceGet(0))
attr = cu.CUdevice_attribute
major = ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
minor = ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
# The device's own virtual architecture, within what this NVRTC knows.
supported = ok(nvrtc.nvrtcGetSupportedArchs())
cc = max(a for a in supported if a <= major * 10 + minor)
ptx, lowered = nvrtc_compile(SOURCE, f"compute_{cc}", [b"--std=c++17"], [POLY])
poly_name = lowered[POLY]
if not ptx.lstrip().startswith(b"//") or b".target sm_" not in ptx:
    sys.exit("NVRTC did not produce PTX")

ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
ok(cu.cuCtxSetCurrent(ctx))
module = ok(cu.cuModuleLoadData(ptx))
poly = ok(cu.cuModuleGetFunction(module, poly_name))
block_max = ok(cu.cuModuleGetFunction(module, b"block_max"))
scale_by = ok(cu.cuModuleGetFunction(module, b"scale_by"))

coeffs = np.array([0.5, -1.25, 0.75, 0.125], dtype=np.float32)
dcoeffs, nbytes = ok(cu.cuModuleGetGlobal(module, b"coeffs"))
if nbytes != coeffs.nbytes:
    sys.exit(f"coeffs is {nbytes} bytes, expected {coeffs.nbytes}")
ok(cu.cuMemcpyHtoD(dcoeffs, coeffs.ctypes.data, coeffs.nbytes))

first = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
second = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
start, produced, end = (ok(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DEFAULT)) for _ in range(3))

# The polynomial over x on the first stream, timed.
n = 4096
rng = np.random.default_rng(7)
# Multiples of 1/256: only the last fused step rounds, so float64 steps give fma's result.
x = (rng.integers(-512, 513, n) / 256).astype(np.float32)
dx, dy = ok(cu.cuMemAlloc(x.nbytes)), ok(cu.cuMemAlloc(x.nbytes))
host_x = ok(cu.cuMemAllocHost(x.nbytes))
np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(int(host_x)))[:] = x
ok(cu.cuEventRecord(start, first))
ok(cu.cuMemcpyHtoDAsync(dx, host_x, x.nbytes, first))
args = ((dx, dy, n), (None, None, np.ctypeslib.ctypes.c_int))
ok(cu.cuLaunchKernel(poly, n // 128, 1, 1, 128, 1, 1, 0, first, args, 0))

# Block maxima on the second stream; its result scales the first stream's output.
m = 1000
values = rng.integers(-(10**6), 10**6, m, dtype=np.int32)
blocks = (m + 127) // 128
din, dmax = ok(cu.cuMemAlloc(values.nbytes)), ok(cu.cuMemAlloc(4 * blocks))
ok(cu.cuMemcpyHtoDAsync(din, values.ctypes.data, values.nbytes, second))
args = ((din, dmax, m), (None, None, np.ctypeslib.ctypes.c_int))
ok(cu.cuLaunchKernel(block_max, blocks, 1, 1, 128, 1, 1, 0, second, args, 0))
ok(cu.cuEventRecord(produced, second))
ok(cu.cuStreamWaitEvent(first, produced, 0))
# The first block's maximum is the factor.
args = ((dy, dmax, n), (None, None, np.ctypeslib.ctypes.c_int))
ok(cu.cuLaunchKernel(scale_by, n // 128, 1, 1, 128, 1, 1, 0, first, args, 0))
ok(cu.cuEventRecord(end, first))

y = np.empty(n, dtype=np.float32)
ok(cu.cuMemcpyDtoHAsync(y.ctypes.data, dy, y.nbytes, first))
maxima = np.empty(blocks, dtype=np.int32)
ok(cu.cuMemcpyDtoHAsync(maxima.ctypes.data, dmax, maxima.nbytes, second))
ok(cu.cuEventSynchronize(end))
ok(cu.cuStreamSynchronize(second))
ok(cu.cuEventQuery(end))
elapsed = ok(cu.cuEventElapsedTime(start, end))
if not elapsed >= 0.0:
    sys.exit(f"elapsed time {elapsed}")

want_max = np.array([values[i : i + 128].max() for i in range(0, m, 128)], dtype=np.int32)
if not np.array_equal(maxima, want_max):
    bad = np.nonzero(maxima != want_max)[0]
    sys.exit(f"block_max wrong at {bad[:5]}: {maxima[bad[:5]]} vs {want_max[bad[:5]]}")

# The same steps in float64, exact until the last, which rounds once to float32 as fma does.
c = coeffs.astype(np.float64)
xd = x.astype(np.float64)
p = ((c[3] * xd + c[2]) * xd + c[1]) * xd + c[0]
p = p.astype(np.float32)
want_y = p * np.float32(want_max[0])
if not np.array_equal(y, want_y):
    bad = np.nonzero(y != want_y)[0]
    sys.exit(f"poly/scale wrong at {bad[:5]}: {y[bad[:5]]} vs {want_y[bad[:5]]}")

dcalls, nbytes = ok(cu.cuModuleGetGlobal(module, b"calls"))
calls = np.zeros(1, dtype=np.uint32)
ok(cu.cuMemcpyDtoH(calls.ctypes.data, dcalls, nbytes))
if calls[0] != 2:
    sys.exit(f"calls = {calls[0]}, expected 2")

for ev in (start, produced, end):
    ok(cu.cuEventDestroy(ev))
for s in (first, second):
    ok(cu.cuStreamDestroy(s))
for p in (dx, dy, din, dmax):
    ok(cu.cuMemFree(p))
ok(cu.cuMemFreeHost(host_x))
ok(cu.cuModuleUnload(module))
ok(cu.cuDevicePrimaryCtxRelease(dev))
print(f"nvrtc: ok (compute_{cc}, {elapsed:.3f} ms)")
