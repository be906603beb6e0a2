"""Device functions called from a kernel (inlined or not, one calling another), against numpy."""

import sys

import numpy as np
from numba import cuda


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit(device=True, inline="never")
def smoothstep(x):
    t = clamp(x, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


@cuda.jit
def apply(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = smoothstep(x[i])


x = np.linspace(-0.5, 1.5, 10_001)
d_out = cuda.device_array_like(x)
apply[(x.size + 127) // 128, 128](cuda.to_device(x), d_out)
t = np.clip(x, 0.0, 1.0)
want = t * t * (3.0 - 2.0 * t)
got = d_out.copy_to_host()
if not np.allclose(got, want, rtol=1e-14, atol=1e-15):
    sys.exit(f"device function: max error {np.abs(got - want).max()}")
print("device_function: ok")
