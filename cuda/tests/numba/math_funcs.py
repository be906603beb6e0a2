"""math.* in kernels (float32 and float64) against numpy within a tolerance."""

import math
import sys

import numpy as np
from numba import cuda


@cuda.jit
def funcs(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[0, i] = math.sin(v)
        out[1, i] = math.exp(v)
        out[2, i] = math.sqrt(abs(v))
        out[3, i] = math.log(abs(v) + 1.0)
        out[4, i] = math.atan2(v, 1.5)
        out[5, i] = math.tanh(v)
        out[6, i] = math.pow(abs(v), 1.5)
        out[7, i] = math.floor(v * 3.0)


def reference(x):
    # In float64: numba types the literals in the kernel as float64, so `v * 3.0` is a float64
    # product even for float32 `v`, and numpy must not round it to float32 before floor.
    x = x.astype(np.float64)
    a = np.abs(x)
    return np.stack(
        [np.sin(x), np.exp(x), np.sqrt(a), np.log(a + 1.0), np.arctan2(x, 1.5),
         np.tanh(x), a ** 1.5, np.floor(x * 3.0)]
    )


failed = []
for dtype, rtol in ((np.float64, 1e-13), (np.float32, 2e-6)):
    x = np.linspace(-4.0, 4.0, 4099).astype(dtype)
    d_out = cuda.device_array((8, x.size), dtype=dtype)
    funcs[(x.size + 127) // 128, 128](cuda.to_device(x), d_out)
    got = d_out.copy_to_host()
    want = reference(x).astype(dtype)
    for row in range(8):
        if not np.allclose(got[row], want[row], rtol=rtol, atol=rtol):
            err = np.abs(got[row] - want[row]).max()
            failed.append(f"{np.dtype(dtype).name} function {row}: max error {err}")
if failed:
    sys.exit("math differs from numpy:\n" + "\n".join(failed))
print("math_funcs: ok")
