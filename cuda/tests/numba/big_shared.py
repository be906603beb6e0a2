"""CUDA's 48 KiB of shared memory per block, more than lavapipe's 32 KiB: 32 KiB of static
shared memory stages a block's 8,192 values, which are written back reversed after a
syncthreads (each read from another thread's write), and 16 KiB of dynamic shared memory
counts them by bin with shared atomics; against numpy."""

import sys

import numpy as np
from numba import cuda, float32, int32

WORDS = 8192
BINS = 4096
THREADS = 256


@cuda.jit
def stage(x, rev, hist):
    words = cuda.shared.array(WORDS, dtype=float32)
    bins = cuda.shared.array(0, dtype=int32)
    tid = cuda.threadIdx.x
    base = cuda.blockIdx.x * WORDS
    for i in range(tid, BINS, THREADS):
        bins[i] = 0
    for i in range(tid, WORDS, THREADS):
        words[i] = x[base + i]
    cuda.syncthreads()
    for i in range(tid, WORDS, THREADS):
        v = words[WORDS - 1 - i]
        rev[base + i] = v
        cuda.atomic.add(bins, int32(v) % BINS, 1)
    cuda.syncthreads()
    for i in range(tid, BINS, THREADS):
        hist[cuda.blockIdx.x * BINS + i] = bins[i]


blocks = 3
x = np.floor(np.random.default_rng(4).random(blocks * WORDS) * 100_000).astype(np.float32)
d_rev = cuda.device_array(blocks * WORDS, dtype=np.float32)
d_hist = cuda.device_array(blocks * BINS, dtype=np.int32)
stage[blocks, THREADS, 0, BINS * 4](cuda.to_device(x), d_rev, d_hist)
rev = d_rev.copy_to_host().reshape(blocks, WORDS)
hist = d_hist.copy_to_host().reshape(blocks, BINS)
for b in range(blocks):
    own = x[b * WORDS:(b + 1) * WORDS]
    if not np.array_equal(rev[b], own[::-1]):
        sys.exit(f"block {b}: reversed values differ")
    want = np.bincount(own.astype(np.int32) % BINS, minlength=BINS)
    if not np.array_equal(hist[b], want):
        sys.exit(f"block {b}: histogram differs at {np.flatnonzero(hist[b] != want)[:5]}")
print(f"big_shared: ok ({blocks} blocks of {WORDS} values)")
