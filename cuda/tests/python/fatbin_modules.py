"""Fatbinaries made by NVIDIA's own tools at run time (NVRTC compiles, nvFatbin packs: the
same container nvcc embeds), loaded through every entry point that takes one: uncompressed,
LZ4- and zstd-compressed, through nvcc's wrapper struct, from a file and as a library. The
kernel reports the `__CUDA_ARCH__` it was compiled for, so each load also shows which PTX the
driver chose. A container with only machine code, or only PTX for newer devices, must fail
with CUDA_ERROR_NO_BINARY_FOR_GPU. Exits non-zero on any mismatch."""
import ctypes
import os
import sys
import tempfile

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvfatbin, nvrtc
from cuda_helpers import nvrtc_compile, ok

SOURCE = rb"""
extern "C" __global__ void probe(int *arch, float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) *arch = __CUDA_ARCH__;
    if (i < n) y[i] = x[i] * 3.0f - 1.0f;
}
"""

# Entry flags nvFatbin sets for compressed payloads.
LZ4, ZSTD = 0x2000, 0x8000


def compile_for(arch):
    """PTX for `compute_XX`, a cubin for `sm_XX`."""
    return nvrtc_compile(SOURCE, arch)[0]


def fatbin(options, ptx=(), cubins=()):
    handle = nvfatbin.create(options, len(options))
    for arch, code in ptx:
        nvfatbin.add_ptx(handle, code, len(code), str(arch), "probe", "")
    for arch, code in cubins:
        nvfatbin.add_cubin(handle, code, len(code), str(arch), "probe")
    out = bytearray(nvfatbin.size(handle))
    nvfatbin.get(handle, out)
    nvfatbin.destroy(handle)
    if int.from_bytes(out[:4], "little") != 0xBA55ED50:
        sys.exit("nvFatbin wrote no fatbinary")
    return bytes(out)


def entry_flags(image):
    """The flag words of a container's entries (offset 40 of each entry header)."""
    flags, at = [], int.from_bytes(image[6:8], "little")
    end = at + int.from_bytes(image[8:16], "little")
    while at < end:
        header = int.from_bytes(image[at + 4 : at + 8], "little")
        flags.append(int.from_bytes(image[at + 40 : at + 48], "little"))
        at += header + int.from_bytes(image[at + 8 : at + 16], "little")
    return flags


n = 1000
x = np.arange(n, dtype=np.float32) - 300.0
want = x * np.float32(3.0) - np.float32(1.0)


def run(function, label, expect_arch):
    """Launches `probe` and checks both its outputs."""
    darch = ok(cu.cuMemAlloc(4))
    dx, dy = ok(cu.cuMemAlloc(x.nbytes)), ok(cu.cuMemAlloc(x.nbytes))
    ok(cu.cuMemcpyHtoD(dx, x.ctypes.data, x.nbytes))
    args = ((darch, dy, dx, n), (None, None, None, ctypes.c_int))
    ok(cu.cuLaunchKernel(function, (n + 127) // 128, 1, 1, 128, 1, 1, 0, 0, args, 0))
    ok(cu.cuCtxSynchronize())
    y = np.empty(n, dtype=np.float32)
    arch = np.zeros(1, dtype=np.int32)
    ok(cu.cuMemcpyDtoH(y.ctypes.data, dy, y.nbytes))
    ok(cu.cuMemcpyDtoH(arch.ctypes.data, darch, 4))
    for p in (darch, dx, dy):
        ok(cu.cuMemFree(p))
    if not np.array_equal(y, want):
        bad = np.nonzero(y != want)[0]
        sys.exit(f"{label}: wrong at {bad[:5]}: {y[bad[:5]]} vs {want[bad[:5]]}")
    if arch[0] != expect_arch:
        sys.exit(f"{label}: ran the PTX for __CUDA_ARCH__ {arch[0]}, expected {expect_arch}")
    print(f"{label}: ok (__CUDA_ARCH__ {arch[0]})")


def load_module(label, image, via=cu.cuModuleLoadData):
    module = ok(via(image))
    run(ok(cu.cuModuleGetFunction(module, b"probe")), label, best * 10)
    ok(cu.cuModuleUnload(module))


ok(cu.cuInit(0))
dev = ok(cu.cuDeviceGet(0))
attr = cu.CUdevice_attribute
major = ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
minor = ok(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
cc = major * 10 + minor
archs = ok(nvrtc.nvrtcGetSupportedArchs())
# The device's architecture (what the driver must pick), one below it and one above it.
best = max(a for a in archs if a <= cc)
older = min(archs)
newer = min(a for a in archs if a > cc)
if not older < best < newer:
    sys.exit(f"this NVRTC offers no architecture on each side of {cc}: {archs}")
ptx = {a: compile_for(f"compute_{a}") for a in (older, best, newer)}
sass = compile_for(f"sm_{best}")

# cuda-bindings 13 takes CUDA 13's creation parameters first (None for none).
try:
    ctx = ok(cu.cuCtxCreate(None, 0, dev))
except TypeError:
    ctx = ok(cu.cuCtxCreate(0, dev))
all_ptx = [(a, ptx[a]) for a in (older, newer, best)]

plain = fatbin(["-compress=false"], all_ptx, [(best, sass)])
if any(f & (LZ4 | ZSTD) for f in entry_flags(plain)):
    sys.exit("the uncompressed fatbinary has compressed entries")
load_module("plain cuModuleLoadData", plain)
load_module("plain cuModuleLoadFatBinary", plain, cu.cuModuleLoadFatBinary)

lz4 = fatbin(["-compress-all"], all_ptx)
if not all(f & LZ4 for f in entry_flags(lz4)):
    sys.exit(f"-compress-all gave flags {[hex(f) for f in entry_flags(lz4)]}")
load_module("lz4 cuModuleLoadFatBinary", lz4, cu.cuModuleLoadFatBinary)

zstd = fatbin(["-compress-all", "-compress-mode=size"], all_ptx)
if not all(f & ZSTD for f in entry_flags(zstd)):
    sys.exit(f"-compress-mode=size gave flags {[hex(f) for f in entry_flags(zstd)]}")
load_module("zstd cuModuleLoadDataEx", zstd, lambda img: cu.cuModuleLoadDataEx(img, 0, [], []))


# nvcc's host code registers the container through this struct (fatbinary_section.h).
class Wrapper(ctypes.Structure):
    _fields_ = [
        ("magic", ctypes.c_int),
        ("version", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("filename_or_fatbins", ctypes.c_void_p),
    ]


container = ctypes.create_string_buffer(lz4, len(lz4))
wrapper = Wrapper(0x466243B1, 1, ctypes.addressof(container), None)
load_module("wrapper cuModuleLoadFatBinary", ctypes.addressof(wrapper), cu.cuModuleLoadFatBinary)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "probe.fatbin")
    with open(path, "wb") as f:
        f.write(zstd)
    load_module("file cuModuleLoad", path.encode(), cu.cuModuleLoad)

library = ok(cu.cuLibraryLoadData(lz4, [], [], 0, [], [], 0))
kernel = ok(cu.cuLibraryGetKernel(library, b"probe"))
run(ok(cu.cuKernelGetFunction(kernel)), "lz4 cuLibraryLoadData", best * 10)
ok(cu.cuLibraryUnload(library))

# The JIT linker takes a fatbinary input as the PTX a module load of it would take.
link = ok(cu.cuLinkCreate(0, [], []))
ok(cu.cuLinkAddData(link, cu.CUjitInputType.CU_JIT_INPUT_FATBINARY, zstd, len(zstd), b"probe", 0, [], []))
image, _ = ok(cu.cuLinkComplete(link))
module = ok(cu.cuModuleLoadData(image))
run(ok(cu.cuModuleGetFunction(module, b"probe")), "zstd cuLinkAddData", best * 10)
ok(cu.cuModuleUnload(module))
ok(cu.cuLinkDestroy(link))

# Containers ptxvk cannot run: CUDA's error for them, and the library stays usable.
for label, image in (
    ("machine code only", fatbin([], [], [(best, sass)])),
    ("PTX for newer devices only", fatbin(["-compress-all"], [(newer, ptx[newer])])),
):
    for via in (cu.cuModuleLoadData, cu.cuModuleLoadFatBinary):
        err, _ = via(image)
        if err != cu.CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU:
            sys.exit(f"{label} through {via.__name__}: {err!r}")
    err, _ = cu.cuLibraryLoadData(image, [], [], 0, [], [], 0)
    if err != cu.CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU:
        sys.exit(f"{label} through cuLibraryLoadData: {err!r}")
    print(f"{label}: CUDA_ERROR_NO_BINARY_FOR_GPU")

damaged = bytearray(plain)
damaged[8:16] = (len(plain) * 2).to_bytes(8, "little")
# The header claims more than the file holds: a bounded read, and an invalid image.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "damaged.fatbin")
    with open(path, "wb") as f:
        f.write(damaged)
    err, _ = cu.cuModuleLoad(path.encode())
    if err != cu.CUresult.CUDA_ERROR_INVALID_IMAGE:
        sys.exit(f"damaged fatbinary: {err!r}")

load_module("plain again", plain)
ok(cu.cuCtxDestroy(ctx))
print(f"fatbin: ok (compute_{best} chosen from compute_{older}/{best}/{newer})")
