"""cuda.local.array: a per-thread scratch array (running prefix sums of a row), against numpy."""

import sys

import numpy as np
from numba import cuda, int64

WIDTH = 16


@cuda.jit
def row_prefix(m, out):
    r = cuda.grid(1)
    if r < m.shape[0]:
        acc = cuda.local.array(WIDTH, dtype=int64)
        s = 0
        for j in range(WIDTH):
            s += m[r, j]
            acc[j] = s
        # Read back in reverse so the array must really hold every element.
        for j in range(WIDTH):
            out[r, WIDTH - 1 - j] = acc[WIDTH - 1 - j] * (j + 1)


m = np.random.default_rng(4).integers(-1000, 1000, (3000, WIDTH)).astype(np.int64)
d_out = cuda.device_array_like(m)
row_prefix[(m.shape[0] + 63) // 64, 64](cuda.to_device(m), d_out)
want = np.cumsum(m, axis=1) * np.arange(WIDTH, 0, -1)
got = d_out.copy_to_host()
if not np.array_equal(got, want):
    sys.exit(f"local array: {np.count_nonzero(got != want)} elements differ")
print("local_array: ok")
