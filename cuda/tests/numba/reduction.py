"""Block-wise sum in shared memory (cuda.shared.array + syncthreads), the block sums added
with an atomic, against numpy."""

import sys

import numpy as np
from numba import cuda, float64

THREADS = 128


@cuda.jit
def block_sum(x, partial, total):
    buf = cuda.shared.array(THREADS, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if tid < step:
            buf[tid] += buf[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]
        cuda.atomic.add(total, 0, buf[0])


n = 50_000
blocks = (n + THREADS - 1) // THREADS
x = np.random.default_rng(2).random(n)
d_partial = cuda.device_array(blocks, dtype=np.float64)
d_total = cuda.to_device(np.zeros(1, dtype=np.float64))
block_sum[blocks, THREADS](cuda.to_device(x), d_partial, d_total)
partial = d_partial.copy_to_host()
padded = np.zeros(blocks * THREADS)
padded[:n] = x
want_partial = padded.reshape(blocks, THREADS).sum(axis=1)
if not np.allclose(partial, want_partial, rtol=1e-12, atol=0):
    sys.exit(f"block sums differ: max error {np.abs(partial - want_partial).max()}")
total = d_total.copy_to_host()[0]
if not np.isclose(total, x.sum(), rtol=1e-10, atol=0):
    sys.exit(f"atomic total {total} != numpy {x.sum()}")
print(f"reduction: ok (sum {total})")
