"""The `kernels` and `launch` benchmarks of runtime/benches/runtime.rs through NVIDIA's CUDA
driver (CuPy), for the same PTX files, sizes, launch shapes and timing method (device events,
best of 3 after a warm-up), so that ptxvk on NVIDIA's Vulkan driver can be compared with CUDA
on the same GPU. Needs an NVIDIA GPU and CuPy; run from the repository root:

    python3 runtime/benches/cuda_reference.py
"""

import time

import cupy as cp
import numpy as np


def module(name):
    # cuModuleLoad of the PTX text: the driver's own PTX compiler, as ptxvk's --record-cuda.
    return cp.RawModule(path=f"shaders/{name}.ptx")


def device_ms(f):
    f()  # warm-up
    cp.cuda.Device().synchronize()
    best = None
    for _ in range(3):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f()
        b.record()
        b.synchronize()
        ms = cp.cuda.get_elapsed_time(a, b)
        best = ms if best is None else min(best, ms)
    return best


def kernels():
    print("kernels (CUDA): device time (events), best of 3")
    n = 16 << 20
    x = cp.asarray((np.arange(n) % 1000).astype(np.float32))
    y = cp.ones(n, dtype=np.float32)
    k = module("saxpy_clang").get_function("saxpy")
    grid = ((n + 255) // 256,)
    ms = device_ms(lambda: k(grid, (256,), (np.uint32(n), np.float32(2.0), x, y)))
    print(f"  saxpy, {n} f32         CUDA {ms:9.3f} ms")

    data_h = (np.arange(n, dtype=np.uint32) % 1000).astype(np.uint32)
    data = cp.asarray(data_h)
    k = module("reduce_clang").get_function("reduce_sum")
    levels, length = [], n
    while length > 1:
        length = (length + 511) // 512
        levels.append(cp.zeros(length, dtype=np.uint32))

    def reduce():
        length = n
        for i, out in enumerate(levels):
            src = data if i == 0 else levels[i - 1]
            k(((length + 511) // 512,), (256,), (src, out, np.uint32(length)))
            length = (length + 511) // 512

    ms = device_ms(reduce)
    want = int(data_h.astype(np.uint64).sum() % (1 << 32))
    got = int(levels[-1].get()[0])
    if got != want:
        raise SystemExit(f"the reduction is wrong: {got} != {want}")
    print(f"  reduction, {n} u32     CUDA {ms:9.3f} ms")

    m = 512
    a = cp.asarray((np.arange(m * m) % 7).astype(np.float32))
    b = cp.asarray((np.arange(m * m) % 5).astype(np.float32))
    c = cp.zeros(m * m, dtype=np.float32)
    k = module("matmul_clang").get_function("matmul")
    t = m // 16
    ms = device_ms(lambda: k((t, t), (16, 16), (a, b, c, np.uint32(m))))
    want = (a.reshape(m, m) @ b.reshape(m, m)).get()
    if not np.allclose(c.get().reshape(m, m), want):
        raise SystemExit("the matmul is wrong")
    print(f"  matmul, {m} x {m}         CUDA {ms:9.3f} ms")


def launch():
    k = module("empty").get_function("empty")
    args = (np.uint64(0),)
    k((1,), (1,), args)
    cp.cuda.Device().synchronize()
    n = 2000
    best_unbatched = best_batched = None
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            k((1,), (1,), args)
            cp.cuda.Device().synchronize()
        u = time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(n):
            k((1,), (1,), args)
        cp.cuda.Device().synchronize()
        bt = time.perf_counter() - t
        best_unbatched = u if best_unbatched is None else min(best_unbatched, u)
        best_batched = bt if best_batched is None else min(best_batched, bt)
    print(f"launch (CUDA through CuPy): empty kernel, {n} launches, best of 3")
    print(f"  launch + synchronize         {best_unbatched * 1e6 / n:8.2f} us/launch")
    print(f"  launches, one synchronize    {best_batched * 1e6 / n:8.2f} us/launch")


if __name__ == "__main__":
    print(f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"driver {cp.cuda.runtime.driverGetVersion()}")
    launch()
    kernels()
