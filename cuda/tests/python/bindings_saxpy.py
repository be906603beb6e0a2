"""cuda-bindings (NVIDIA's cuda-python driver bindings), unmodified, against ptxvk's libcuda:
it finds every entry point through cuGetProcAddress, then runs saxpy. Exits non-zero on any
mismatch."""
import ctypes
import sys

from cuda.bindings import driver as cu


def ok(result):
    err, *values = result
    if err != cu.CUresult.CUDA_SUCCESS:
        sys.exit(f"failed: {err}")
    return values[0] if len(values) == 1 else values


ok(cu.cuInit(0))
assert ok(cu.cuDriverGetVersion()) >= 12000
dev = ok(cu.cuDeviceGet(0))
# cuda-bindings 13 takes CUDA 13's creation parameters first (None for none).
try:
    ctx = ok(cu.cuCtxCreate(None, 0, dev))
except TypeError:
    ctx = ok(cu.cuCtxCreate(0, dev))
with open(sys.argv[1], "rb") as f:
    module = ok(cu.cuModuleLoadData(f.read() + b"\0"))
saxpy = ok(cu.cuModuleGetFunction(module, b"saxpy"))

n = 1000
x = (ctypes.c_float * n)(*[float(i) for i in range(n)])
y = (ctypes.c_float * n)(*([1.0] * n))
size = ctypes.sizeof(x)
dx, dy = ok(cu.cuMemAlloc(size)), ok(cu.cuMemAlloc(size))
ok(cu.cuMemcpyHtoD(dx, ctypes.addressof(x), size))
ok(cu.cuMemcpyHtoD(dy, ctypes.addressof(y), size))
stream = ok(cu.cuStreamCreate(0))
args = ((n, 2.0, dx, dy), (ctypes.c_int, ctypes.c_float, None, None))
ok(cu.cuLaunchKernel(saxpy, 4, 1, 1, 256, 1, 1, 0, stream, args, 0))
ok(cu.cuStreamSynchronize(stream))
out = (ctypes.c_float * n)()
ok(cu.cuMemcpyDtoH(ctypes.addressof(out), dy, size))
bad = [i for i in range(n) if out[i] != 1.0 + 2.0 * i]
if bad:
    sys.exit(f"saxpy wrong at {bad[:5]}: {[out[i] for i in bad[:5]]}")

# Entry points by name and version: one that exists only in newer versions is not found.
fn, status = ok(cu.cuGetProcAddress(b"cuLaunchKernelEx", 12000, 0))
assert fn != 0 and status == cu.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SUCCESS
err, *_ = cu.cuGetProcAddress(b"cuLaunchKernelEx", 11000, 0)
assert err == cu.CUresult.CUDA_ERROR_NOT_FOUND, err
ok(cu.cuMemFree(dx))
ok(cu.cuMemFree(dy))
ok(cu.cuCtxDestroy(ctx))
print("bindings: ok")
