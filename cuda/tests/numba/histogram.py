"""Histogram with cuda.atomic.add (integers, many threads per bin), plus atomic max and
compare-and-swap, against numpy."""

import sys

import numpy as np
from numba import cuda

BINS = 64


@cuda.jit
def histogram(values, bins, biggest):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        cuda.atomic.add(bins, v % BINS, 1)
        cuda.atomic.max(biggest, 0, v)


@cuda.jit
def claim(owner):
    # Every thread tries to claim slot 0; exactly one compare-and-swap from -1 succeeds.
    i = cuda.grid(1)
    old = cuda.atomic.compare_and_swap(owner[0:1], -1, i)
    if old == -1:
        cuda.atomic.add(owner, 1, 1)


values = np.random.default_rng(3).integers(0, 1_000_000, 200_000).astype(np.int32)
d_bins = cuda.to_device(np.zeros(BINS, dtype=np.int32))
d_max = cuda.to_device(np.zeros(1, dtype=np.int32))
histogram[(values.size + 255) // 256, 256](cuda.to_device(values), d_bins, d_max)
got = d_bins.copy_to_host()
want = np.bincount(values % BINS, minlength=BINS).astype(np.int32)
if not np.array_equal(got, want):
    sys.exit(f"histogram differs from numpy:\n{got}\n{want}")
if d_max.copy_to_host()[0] != values.max():
    sys.exit(f"atomic max {d_max.copy_to_host()[0]} != {values.max()}")

owner = cuda.to_device(np.array([-1, 0], dtype=np.int32))
claim[4, 256](owner)
o = owner.copy_to_host()
if not (0 <= o[0] < 1024 and o[1] == 1):
    sys.exit(f"compare_and_swap: owner {o[0]}, winners {o[1]} (want one)")
print("histogram: ok")
