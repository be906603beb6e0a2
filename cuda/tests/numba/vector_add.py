"""@cuda.jit vector add with explicit cuda.to_device / copy_to_host, against numpy."""

import sys

import numpy as np
from numba import cuda


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


n = 100_003  # not a multiple of the block: the bounds check matters
rng = np.random.default_rng(1)
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
d_a, d_b = cuda.to_device(a), cuda.to_device(b)
d_out = cuda.device_array_like(a)
threads = 256
add[(n + threads - 1) // threads, threads](d_a, d_b, d_out)
got = d_out.copy_to_host()
want = a + b
if not np.array_equal(got, want):
    bad = np.flatnonzero(got != want)
    sys.exit(f"vector add: {bad.size} wrong, first at {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
# A host array passed directly is copied in and back by numba itself.
c = np.zeros(n, dtype=np.float32)
add[(n + threads - 1) // threads, threads](a, b, c)
if not np.array_equal(c, want):
    sys.exit("vector add on host arrays differs from numpy")
dev = cuda.get_current_device()
name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
print(f"vector_add: ok on {name}, compute capability {tuple(dev.compute_capability)}")
# numba linked through nvJitLink's API; ptxvk's libcuda answers for it, so NVIDIA's library,
# which makes SASS, is never loaded.
with open("/proc/self/maps") as maps:
    nvidia = any("libnvJitLink" in line for line in maps)
print(f"NVIDIA's nvJitLink loaded: {nvidia}")
