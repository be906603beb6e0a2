"""Inputs and numpy references for the runs of our Triton kernels (runtime/tests/triton_types.rs).

    python reference.py OUTDIR matmul TYPE M N K SEED
    python reference.py OUTDIR attention TYPE N_CTX HEAD_DIM SEED

TYPE is fp16, bf16, tf32, e5m2 or e4m3. Writes into OUTDIR, as raw little-endian arrays:
a.bin and b.bin (matmul; q.bin, k.bin, v.bin for attention) in the type's storage (fp16 and
bf16 as 16-bit patterns, fp8 as bytes, tf32 as float32), want.bin (the result in float64) and
bound.bin (the largest error the kernel may make, per element, in float64).

Every input is a value of its type, drawn here, so the kernel receives exactly the numbers the
reference multiplies and no rounding of the inputs is left to either side. The reference is
computed in float64 from those values; the bounds below say what the kernel's own rounding can
add.
"""

import pathlib
import sys

import numpy as np

# The unit roundoff of a float32 accumulator. Tensor cores are not promised to round to
# nearest (NVIDIA's documentation leaves the accumulation's rounding open, and truncating
# hardware exists), so one full ulp per operation rather than half.
U32 = 2.0**-23


def to_bf16(x):
    """float32 -> bf16 bit patterns, rounding to nearest even."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bf16(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def to_tf32(x):
    """float32 -> float32 whose 13 low fraction bits are zero, rounding to nearest even."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~np.uint64(0x1FFF)
    return bits.astype(np.uint32).view(np.float32)


def fp8_values(kind):
    """Every fp8 pattern of the kind and its value (NaN and infinity excluded)."""
    codes = np.arange(256, dtype=np.uint16)
    if kind == "e5m2":
        # e5m2 is the high byte of an IEEE half.
        vals = (codes << 8).view(np.float16).astype(np.float64)
    else:
        # e4m3 (OCP "fn"): bias 7, no infinities, S.1111.111 is NaN.
        sign = np.where(codes & 0x80, -1.0, 1.0)
        exp = (codes >> 3) & 0xF
        man = (codes & 7).astype(np.float64)
        vals = sign * np.where(exp == 0, man / 8 * 2.0**-6, (1 + man / 8) * 2.0 ** (exp - 7.0))
        vals[(codes & 0x7F) == 0x7F] = np.nan
    ok = np.isfinite(vals)
    return codes[ok].astype(np.uint8), vals[ok]


def draw(kind, shape, rng):
    """(storage array, float64 values) of random numbers of the type, most within [-2, 2]."""
    if kind in ("e5m2", "e4m3"):
        codes, vals = fp8_values(kind)
        # Zero, subnormals and normals up to 16: sums stay in a range where every term counts.
        keep = np.abs(vals) <= 16
        codes, vals = codes[keep], vals[keep]
        pick = rng.integers(0, len(codes), size=shape)
        return codes[pick], vals[pick]
    x = rng.standard_normal(shape).astype(np.float32)
    if kind == "fp16":
        h = x.astype(np.float16)
        return h.view(np.uint16), h.astype(np.float64)
    if kind == "bf16":
        b = to_bf16(x)
        return b, from_bf16(b).astype(np.float64)
    if kind == "tf32":
        t = to_tf32(x)
        return t, t.astype(np.float64)
    raise SystemExit(f"unknown type {kind}")


def matmul(out, kind, m, n, k, seed):
    rng = np.random.default_rng(seed)
    a, av = draw(kind, (m, k), rng)
    b, bv = draw(kind, (k, n), rng)
    # Every product of two inputs is exact in float32 (at most 2 x 11 significant bits), so the
    # kernel's error is its float32 accumulation's: K roundings, each within U32 of the
    # partial sum, itself at most the sum of the terms' magnitudes (gamma_K, Higham 3.1).
    # Accumulators that flush or round below the normal range add at most one smallest
    # normal each.
    want = av @ bv
    bound = (k * U32) / (1 - k * U32) * (np.abs(av) @ np.abs(bv)) + k * 2.0**-126
    write(out, a=a, b=b, want=want, bound=bound)


def attention(out, kind, n_ctx, d, seed):
    rng = np.random.default_rng(seed)
    q, qv = draw(kind, (n_ctx, d), rng)
    k, kv = draw(kind, (n_ctx, d), rng)
    v, vv = draw(kind, (n_ctx, d), rng)
    scale = np.float32(1 / np.sqrt(d))
    s = (qv @ kv.T) * float(scale)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    l = p.sum(axis=1, keepdims=True)
    want = (p @ vv) / l
    # The kernel rounds the probabilities to the input type before the second product and the
    # output to it at the end: a relative error of u each (2^-11 for fp16, 2^-8 for bf16, both
    # rounding to nearest), on the terms sum p_j |v_j| / l and on the output. Below fp16's
    # normal range a probability is off by at most half its smallest subnormal (2^-25), for
    # each of the n_ctx terms. Everything else (ex2.approx's 2 ulp, the float32 sums and the
    # scores' float32 accumulation) is within a few float32 ulps, far below these.
    u = {"fp16": 2.0**-11, "bf16": 2.0**-8}[kind]
    vmax = np.abs(vv).max()
    input_err = u * (p @ np.abs(vv)) / l + n_ctx * 2.0**-25 * vmax / l
    bound = 2 * (input_err + u * np.abs(want)) + 1e-6
    write(out, q=q, k=k, v=v, want=want, bound=bound)


def write(out, **arrays):
    out.mkdir(parents=True, exist_ok=True)
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        if arr.dtype.kind == "f" and arr.dtype.itemsize == 8:
            arr = arr.astype("<f8")
        (out / f"{name}.bin").write_bytes(arr.tobytes())


def main():
    out = pathlib.Path(sys.argv[1])
    what, kind = sys.argv[2], sys.argv[3]
    nums = [int(x) for x in sys.argv[4:]]
    if what == "matmul":
        matmul(out, kind, *nums)
    elif what == "attention":
        attention(out, kind, *nums)
    else:
        raise SystemExit(f"unknown reference {what}")


if __name__ == "__main__":
    main()
