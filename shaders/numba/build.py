"""Compiles the numba-cuda kernels of kernels.py to PTX with numba's compile_ptx (no GPU and no
driver needed), and writes the inputs and numpy's results of its RUNS, for the tests.

    python build.py OUTDIR

writes into OUTDIR/<key> (the key hashes these sources and numba-cuda's version; a second run
with nothing changed compiles nothing), whose path it prints last:

- <kernel>.sm<cc>.ptx for every kernel and sm_75, sm_80, sm_90, and <kernel>.sm<cc>.entry,
  the entry's mangled name;
- run-<n>/spec.txt and its arrays (raw little-endian) for each run: `kernel NAME`, `grid X Y
  Z`, `block X Y Z`, `shared BYTES`, one `scalar TYPE VALUE` or `array FILE ITEMSIZE NDIM
  SHAPE...` line per argument (arrays C-ordered), then `check ARG TYPE WANT RTOL ATOL` lines:
  argument ARG, read as TYPE, must be within ATOL (a file of float64, one per element) plus
  RTOL times |want| of WANT (float64).
"""

import hashlib
import importlib.metadata
import pathlib
import re
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
TARGETS = ((7, 5), (8, 0), (9, 0))
SCALARS = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}


def key():
    h = hashlib.sha256()
    h.update(importlib.metadata.version("numba-cuda").encode())
    for f in sorted(HERE.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def compile_all(out):
    from numba import cuda

    sys.path.insert(0, str(HERE))
    import kernels

    for kernel, sig in kernels.KERNELS:
        name = kernel.py_func.__name__
        for cc in TARGETS:
            ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=cc)
            entry = re.search(r"\.entry\s+([\w$.]+)\s*\(", ptx)
            if entry is None:
                raise SystemExit(f"{name}: no .entry in its PTX")
            base = f"{name}.sm{cc[0]}{cc[1]}"
            (out / f"{base}.ptx").write_text(ptx)
            (out / f"{base}.entry").write_text(entry.group(1))

    rng = np.random.default_rng(5)
    for n, (kernel, grid, block, shared, args, checks) in enumerate(kernels.runs(rng)):
        d = out / f"run-{n}"
        d.mkdir()
        lines = [f"kernel {kernel.py_func.__name__}", "grid %d %d %d" % grid,
                 "block %d %d %d" % block, f"shared {shared}"]
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                np.ascontiguousarray(a).tofile(d / f"arg{i}.bin")
                shape = " ".join(str(s) for s in a.shape)
                lines.append(f"array arg{i}.bin {a.itemsize} {a.ndim} {shape}")
            else:
                lines.append(f"scalar {SCALARS[type(a)]} {a.item()!r}")
        for i, (arg, want, rtol, atol) in enumerate(checks):
            ty = args[arg].dtype.str.lstrip("<|")
            np.asarray(want, dtype="<f8").tofile(d / f"want{i}.bin")
            np.broadcast_to(np.asarray(atol, dtype="<f8"), np.shape(want)).tofile(
                d / f"atol{i}.bin")
            lines.append(f"check {arg} {ty} want{i}.bin {rtol!r} atol{i}.bin")
        (d / "spec.txt").write_text("\n".join(lines) + "\n")


def main():
    sys.path.insert(0, str(HERE.parent))
    from cached_build import build_once

    print(build_once(sys.argv[1], key(), compile_all))


if __name__ == "__main__":
    main()
