"""Compiles the Triton kernels of this folder to PTX, without a GPU, for the tests.

    python build.py OUTDIR

writes OUTDIR/<variant>.sm<cc>.ptx and OUTDIR/<variant>.sm<cc>.json (the kernel's name, its
warps, its dynamic shared memory and scratch sizes) for every variant below and every target
it lists. Triton's own pipeline stops after PTX: its ptxas stage is not run. The output goes
to OUTDIR/<key>, where the key hashes these sources and Triton's version, so that a second
run with nothing changed costs no compile; the path of that folder is printed last.
"""

import hashlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
TARGETS = (75, 80, 90)


def ptr(ty):
    return "*" + ty


def matmul(name, ty, out, precision, targets=TARGETS, tile=(64, 32, 32), warps=4, stages=None,
           aligned=False):
    sig = {"a_ptr": ptr(ty), "b_ptr": ptr(ty), "c_ptr": ptr(out), "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    consts = {"BLOCK_M": tile[0], "BLOCK_N": tile[1], "BLOCK_K": tile[2], "PRECISION": precision}
    # What Triton's launcher specialises on for aligned tensors and sizes (pointers and integers
    # divisible by 16): without it, f16 loads are not vectorised and the loop is not pipelined
    # through shared memory.
    divisible = tuple(sig) if aligned else ()
    return (name, "matmul", "matmul", sig, consts, options(warps, stages), targets, divisible)


def attention(name, block_m, block_n, head_dim, warps, targets=TARGETS, ty="fp16", stages=None):
    sig = {"q_ptr": ptr(ty), "k_ptr": ptr(ty), "v_ptr": ptr(ty), "o_ptr": ptr(ty),
           "n_ctx": "i32", "scale": "fp32"}
    consts = {"BLOCK_M": block_m, "BLOCK_N": block_n, "HEAD_DIM": head_dim}
    return (name, "attention", "attention", sig, consts, options(warps, stages), targets, ())


def options(warps, stages=None):
    """Triton's compile options: its warps, and its pipeline depth where not its default."""
    opts = {"num_warps": warps}
    if stages is not None:
        opts["num_stages"] = stages
    return opts


# (variant, module, function, signature, constexprs, compile options, targets, parameters
# divisible by 16)
VARIANTS = [
    matmul("matmul_f16", "fp16", "fp32", "ieee"),
    matmul("matmul_bf16", "bf16", "fp32", "ieee"),
    matmul("matmul_tf32", "fp32", "fp32", "tf32"),
    matmul("matmul_e5m2", "fp8e5", "fp32", "ieee"),
    # e4m3 with the ISA's bias (Triton's fp8e4nv) has hardware support from sm_89 on.
    matmul("matmul_e4m3", "fp8e4nv", "fp32", "ieee", targets=(90,)),
    attention("attention_f16", 64, 32, 32, 4),
    # The smallest tiles Triton's dot takes, for the runs on lavapipe: its LLVM takes minutes
    # over the emulated warp exchanges of the larger ones.
    matmul("matmul_f16_small", "fp16", "fp32", "ieee", targets=(75, 80), tile=(16, 16, 16), warps=1),
    attention("attention_f16_small", 16, 16, 16, 1, targets=(80,)),
    # The smallest wgmma tile (a warpgroup of 4 warps, 64 rows).
    matmul("matmul_f16_wg", "fp16", "fp32", "ieee", targets=(90,), tile=(64, 16, 16), warps=4),
    attention("attention_f16_wg", 64, 16, 16, 4, targets=(90,)),
    # The same small tiles in the other input types: mma.sync's bf16 and tf32 shapes, and fp8,
    # which Triton widens to f16 before mma.sync on sm_80 and hands to wgmma as it is on sm_90a.
    matmul("matmul_bf16_small", "bf16", "fp32", "ieee", targets=(80,), tile=(16, 16, 16), warps=1),
    matmul("matmul_tf32_small", "fp32", "fp32", "tf32", targets=(80,), tile=(16, 16, 16), warps=1),
    matmul("matmul_e5m2_small", "fp8e5", "fp32", "ieee", targets=(80,), tile=(16, 16, 32), warps=1),
    matmul("matmul_bf16_wg", "bf16", "fp32", "ieee", targets=(90,), tile=(64, 16, 16), warps=4),
    matmul("matmul_tf32_wg", "fp32", "fp32", "tf32", targets=(90,), tile=(64, 16, 16), warps=4),
    matmul("matmul_e5m2_wg", "fp8e5", "fp32", "ieee", targets=(90,), tile=(64, 16, 32), warps=4),
    matmul("matmul_e4m3_wg", "fp8e4nv", "fp32", "ieee", targets=(90,), tile=(64, 16, 32), warps=4),
    attention("attention_bf16_small", 16, 16, 16, 1, targets=(80,), ty="bf16"),
    attention("attention_bf16_wg", 64, 16, 16, 4, targets=(90,), ty="bf16"),
    # Tiles of the size Triton's tuning configurations use, whose pipelined stages take 48 KiB
    # of shared memory or more: beyond lavapipe's 32 KiB, so the runtime spills the arena.
    matmul("matmul_f16_big", "fp16", "fp32", "ieee", targets=(80,), tile=(128, 128, 32),
           warps=4, stages=4, aligned=True),
    matmul("matmul_f16_big_wg", "fp16", "fp32", "ieee", targets=(90,), tile=(128, 64, 32),
           warps=4, stages=4, aligned=True),
    matmul("matmul_tf32_big", "fp32", "fp32", "tf32", targets=(80,), tile=(64, 64, 32),
           warps=4, stages=4, aligned=True),
    ("softmax_f32", "softmax", "softmax",
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "row_stride": "i32"},
     {"BLOCK": 256}, options(4), TARGETS, ()),
    ("layernorm_f16", "layernorm", "layernorm",
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32",
      "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "n_cols": "i32", "eps": "fp32"},
     {"BLOCK": 128}, options(4), TARGETS, ()),
    ("column_sums_f32", "reduce", "column_sums",
     {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32"},
     {"BLOCK_R": 16, "BLOCK_C": 64}, options(4), TARGETS, ()),
    ("global_stats_i32", "reduce", "global_stats",
     {"x_ptr": "*i32", "sum_ptr": "*i32", "max_ptr": "*i32", "neg_ptr": "*i32", "n": "i32"},
     {"BLOCK": 512}, options(4), TARGETS, ()),
]


def key():
    h = hashlib.sha256()
    h.update(importlib.metadata.version("triton").encode())
    # reference.py makes the tests' inputs, not kernels.
    for f in sorted(f for f in HERE.glob("*.py") if f.name != "reference.py"):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def compile_all(out):
    import importlib

    # Fused multiply-adds, Triton 3.9's default, named so that it does not warn.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource

    # Stop the pipeline at PTX: ptxas would only make the cubin, which ptxvk does not read.
    # Triton's kernel object wants a binary, so the stage hands on the PTX's bytes instead.
    add_stages = CUDABackend.add_stages

    def ptx_stages(self, stages, options, language):
        add_stages(self, stages, options, language)
        stages["cubin"] = lambda src, metadata: src.encode()

    CUDABackend.add_stages = ptx_stages
    sys.path.insert(0, str(HERE))
    for variant, module, function, sig, consts, opts, targets, divisible in VARIANTS:
        fn = getattr(importlib.import_module(module), function)
        full_sig = dict(sig)
        full_sig.update({k: "constexpr" for k in consts})
        attrs = {(fn.arg_names.index(p),): [["tt.divisibility", 16]] for p in divisible}
        for cc in targets:
            src = ASTSource(fn, full_sig, constexprs=consts, attrs=attrs)
            k = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                               options=opts)
            md = k.metadata
            base = f"{variant}.sm{cc}"
            (out / f"{base}.ptx").write_text(k.asm["ptx"])
            (out / f"{base}.json").write_text(json.dumps({
                "kernel": md.name,
                "num_warps": md.num_warps,
                "shared": md.shared,
                "global_scratch_size": md.global_scratch_size,
                "profile_scratch_size": md.profile_scratch_size,
                "params": list(sig),
            }, indent=1))


def main():
    sys.path.insert(0, str(HERE.parent))
    from cached_build import build_once

    def compile_into(tmp):
        # Triton's own cache would keep a second copy of everything: it goes with the build.
        os.environ["TRITON_CACHE_DIR"] = str(tmp / "triton-cache")
        compile_all(tmp)
        shutil.rmtree(tmp / "triton-cache", ignore_errors=True)

    print(build_once(sys.argv[1], key(), compile_into))


if __name__ == "__main__":
    main()
