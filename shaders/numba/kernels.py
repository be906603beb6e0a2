"""numba-cuda kernels of ours, compiled to PTX by shaders/numba/build.py (numba's compile_ptx,
no driver). KERNELS lists each kernel with the argument types it is compiled for; runs() gives
some of them inputs and numpy's expected outputs for runtime/tests/numba_corpus.rs.

What compile_ptx cannot make without a driver is left to cuda/tests/numba, which runs numba
on libcuda: calls of separate @cuda.jit(device=True) functions (typed for the current
device) and float16 arithmetic (numba links a CUDA C++ shim that NVRTC compiles after asking
the driver's version)."""

import math

import numpy as np
from numba import complex64, cuda, float32, float64, int32, int64, uint32, uint64

TILE = 16
TILE1 = 17  # a tile row padded by one column
WARP = 32


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def transpose(src, dst):
    # A shared tile padded by one column so the transposed reads do not conflict.
    tile = cuda.shared.array((TILE, TILE1), dtype=float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if y < src.shape[0] and x < src.shape[1]:
        tile[ty, tx] = src[y, x]
    cuda.syncthreads()
    ox = cuda.blockIdx.y * TILE + tx
    oy = cuda.blockIdx.x * TILE + ty
    if oy < dst.shape[0] and ox < dst.shape[1]:
        dst[oy, ox] = tile[tx, ty]


@cuda.jit
def matmul_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    col, row = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((a.shape[1] + TILE - 1) // TILE):
        k = t * TILE
        sa[ty, tx] = a[row, k + tx] if row < a.shape[0] and k + tx < a.shape[1] else 0.0
        sb[ty, tx] = b[k + ty, col] if k + ty < b.shape[0] and col < b.shape[1] else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@cuda.jit
def histogram(x, bins, lo, hi):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = bins.size
    while i < x.size:
        b = int32((x[i] - lo) / (hi - lo) * n)
        if 0 <= b < n:
            cuda.atomic.add(bins, b, 1)
        i += stride


@cuda.jit
def warp_sums(x, out, ballots):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i] if i < x.size else 0
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
    neg = cuda.ballot_sync(0xFFFFFFFF, i < x.size and x[i] < 0)
    w = i // WARP
    if lane == 0 and w < out.size:
        out[w] = v
        ballots[w] = neg


@cuda.jit
def block_max_f64(x, out):
    buf = cuda.shared.array(128, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else -math.inf
    cuda.syncthreads()
    step = 64
    while step > 0:
        if tid < step:
            buf[tid] = max(buf[tid], buf[tid + step])
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.max(out, 0, buf[0])


@cuda.jit
def dynamic_scan(x, out):
    # An inclusive Hillis-Steele scan of each block in dynamic shared memory.
    buf = cuda.shared.array(0, dtype=int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    off = 1
    while off < cuda.blockDim.x:
        t = buf[tid - off] if tid >= off else 0
        cuda.syncthreads()
        buf[tid] += t
        cuda.syncthreads()
        off *= 2
    if i < x.size:
        out[i] = buf[tid]


@cuda.jit
def special_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.exp(v) + math.log1p(abs(v))
        out[i, 1] = math.sin(v) * math.cos(v)
        out[i, 2] = math.sqrt(abs(v)) + cuda.cbrt(v)
        out[i, 3] = math.erf(v) + math.tanh(v)
        out[i, 4] = math.atan2(v, 1.5) + math.pow(abs(v), 0.75)


@cuda.jit
def bit_ops(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = cuda.popc(v)
        out[i, 1] = cuda.clz(v)
        out[i, 2] = cuda.ffs(v)
        out[i, 3] = cuda.brev(v)
        out[i, 4] = (v >> uint32(7)) ^ (v << uint32(3))


@cuda.jit
def collatz(start, out):
    # The steps are inline: compile_ptx types a call of a separate device function for the
    # current device, which it cannot ask for without a driver (cuda/tests/numba runs device
    # functions through libcuda instead).
    i = cuda.grid(1)
    if i < out.size:
        n = start + int64(i)
        steps = 0
        while n != 1 and steps < 1000:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out[i] = steps


@cuda.jit
def local_sort(x, out):
    # Sorts each row of 8 in a thread-local array (insertion sort).
    row = cuda.grid(1)
    if row < x.shape[0]:
        buf = cuda.local.array(8, dtype=float32)
        for j in range(8):
            buf[j] = x[row, j]
        for j in range(1, 8):
            v = buf[j]
            k = j - 1
            while k >= 0 and buf[k] > v:
                buf[k + 1] = buf[k]
                k -= 1
            buf[k + 1] = v
        for j in range(8):
            out[row, j] = buf[j]


@cuda.jit
def complex_mul(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i] + a[i].conjugate()


@cuda.jit
def cas_lock(counter, slots, n):
    # Each thread claims the next slot with compare-and-swap on a counter.
    i = cuda.grid(1)
    if i < n:
        old = counter[0]
        while True:
            got = cuda.atomic.cas(counter, 0, old, old + 1)
            if got == old:
                break
            old = got
        slots[old] = i


@cuda.jit
def xorshift_hits(seeds, hits, draws):
    # Points in the unit square inside the quarter circle, from each thread's xorshift64*
    # stream (numba.cuda.random's generators are device functions, which compile_ptx cannot
    # type without a driver).
    i = cuda.grid(1)
    if i < seeds.size:
        s = seeds[i]
        n = 0
        for _ in range(draws):
            s ^= s >> uint64(12)
            s ^= s << uint64(25)
            s ^= s >> uint64(27)
            r = s * uint64(0x2545F4914F6CDD1D)
            x = float64(r >> uint64(40)) / 16777216.0
            y = float64(r & uint64(0xFFFFFF)) / 16777216.0
            if x * x + y * y < 1.0:
                n += 1
        hits[i] = n


@cuda.jit
def u64_arith(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * b[i] + (a[i] >> uint64(33)) * (b[i] % uint64(1000003)) - a[i] // (b[i] | 1)


KERNELS = [
    (axpy, (float32, float32[:], float32[:], float32[:])),
    (transpose, (float32[:, :], float32[:, :])),
    (matmul_tiled, (float32[:, :], float32[:, :], float32[:, :])),
    (histogram, (float32[:], int32[:], float32, float32)),
    (warp_sums, (int32[:], int32[:], uint32[:])),
    (block_max_f64, (float64[:], float64[:])),
    (dynamic_scan, (int32[:], int32[:])),
    (special_math, (float32[:], float32[:, :])),
    (bit_ops, (uint32[:], uint32[:, :])),
    (collatz, (int64, int32[:])),
    (local_sort, (float32[:, :], float32[:, :])),
    (complex_mul, (complex64[:], complex64[:], complex64[:])),
    (cas_lock, (int32[:], int32[:], int32)),
    (xorshift_hits, (uint64[:], int32[:], int32)),
    (u64_arith, (uint64[:], uint64[:], uint64[:])),
]


def runs(rng):
    """(kernel, grid, block, dynamic shared bytes, [arguments], [(argument index, expected,
    rtol, atol)]): an argument is a numpy array or scalar; an expected output is compared
    with |got - want| <= atol + rtol |want|."""
    out = []

    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a = np.float32(1.75)
    # One fused or unfused multiply-add: within one f32 rounding of the sum.
    want = (np.float64(a) * x + y).astype(np.float32)
    out.append((axpy, (8, 1, 1), (128, 1, 1), 0, [a, x, y, np.zeros(n, np.float32)],
                [(3, want, 2.0**-23, 2.0**-126)]))

    m, k, p = 37, 45, 29
    ma = rng.standard_normal((m, k)).astype(np.float32)
    mb = rng.standard_normal((k, p)).astype(np.float32)
    # f32 accumulation over K terms: gamma_K times the sum of magnitudes, relative to 1 here
    # because the inputs are of order 1 and K is small; 2^-23 per addition.
    bound = k * 2.0**-23 * (np.abs(ma).astype(np.float64) @ np.abs(mb))
    want = ma.astype(np.float64) @ mb
    out.append((matmul_tiled, ((p + 15) // 16, (m + 15) // 16, 1), (16, 16, 1), 0,
                [ma, mb, np.zeros((m, p), np.float32)], [(2, want, 0.0, bound)]))

    src = rng.standard_normal((40, 23)).astype(np.float32)
    out.append((transpose, (2, 3, 1), (16, 16, 1), 0, [src, np.zeros((23, 40), np.float32)],
                [(1, src.T.copy(), 0.0, 0.0)]))

    hx = rng.random(5000).astype(np.float32) * 12 - 1
    nb = 32
    # numba's types: the quotient in float32, its product with bins.size (an int64) in
    # float64, truncated toward zero.
    q = ((hx - np.float32(0)) / np.float32(10)).astype(np.float32)
    idx = np.trunc(q.astype(np.float64) * nb).astype(np.int64)
    want = np.bincount(idx[(idx >= 0) & (idx < nb)], minlength=nb).astype(np.int32)
    out.append((histogram, (4, 1, 1), (128, 1, 1), 0,
                [hx, np.zeros(nb, np.int32), np.float32(0), np.float32(10)],
                [(1, want, 0.0, 0.0)]))

    wx = rng.integers(-1000, 1000, 300).astype(np.int32)
    padded = np.zeros(320, np.int32)
    padded[:300] = wx
    sums = padded.reshape(10, 32).sum(axis=1).astype(np.int32)
    ballots = np.array([sum(1 << j for j in range(32) if w[j] < 0) for w in padded.reshape(10, 32)],
                       dtype=np.uint32)
    out.append((warp_sums, (3, 1, 1), (128, 1, 1), 0,
                [wx, np.zeros(10, np.int32), np.zeros(10, np.uint32)],
                [(1, sums, 0.0, 0.0), (2, ballots, 0.0, 0.0)]))

    sx = rng.integers(-50, 50, 700).astype(np.int32)
    want = np.concatenate([np.cumsum(sx[s:s + 256]) for s in range(0, 700, 256)]).astype(np.int32)
    out.append((dynamic_scan, (3, 1, 1), (256, 1, 1), 256 * 4,
                [sx, np.zeros(700, np.int32)], [(1, want, 0.0, 0.0)]))

    bx = rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)
    bx[:3] = [0, 1, 0x80000000]
    bits = np.array([[bin(v).count("1"), 32 - int(v).bit_length(),
                      (int(v) & -int(v)).bit_length(), int(f"{int(v):032b}"[::-1], 2),
                      ((int(v) >> 7) ^ (int(v) << 3)) & 0xFFFFFFFF] for v in bx], dtype=np.uint32)
    out.append((bit_ops, (4, 1, 1), (128, 1, 1), 0, [bx, np.zeros((500, 5), np.uint32)],
                [(1, bits, 0.0, 0.0)]))

    def steps(v):
        s = 0
        while v != 1 and s < 1000:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s
    out.append((collatz, (2, 1, 1), (128, 1, 1), 0, [np.int64(27), np.zeros(200, np.int32)],
                [(1, np.array([steps(27 + i) for i in range(200)], np.int32), 0.0, 0.0)]))

    lx = rng.standard_normal((100, 8)).astype(np.float32)
    out.append((local_sort, (1, 1, 1), (128, 1, 1), 0, [lx, np.zeros((100, 8), np.float32)],
                [(1, np.sort(lx, axis=1), 0.0, 0.0)]))
    return out
