"""What the cuda-python test programs share: checking results and compiling with NVRTC."""
import sys

from cuda.bindings import nvrtc


def ok(result):
    """The values of a cuda-bindings call; exits naming the error when it failed."""
    err, *values = result
    if int(err) != 0:
        sys.exit(f"failed: {err!r}")
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def nvrtc_compile(source, arch, options=(), name_expressions=()):
    """Compiles CUDA C++ for `compute_XX` (PTX) or `sm_XX` (a cubin). Returns the code and the
    lowered name of each name expression."""
    prog = ok(nvrtc.nvrtcCreateProgram(source, b"program.cu", 0, [], []))
    for name in name_expressions:
        ok(nvrtc.nvrtcAddNameExpression(prog, name))
    opts = [f"--gpu-architecture={arch}".encode(), *options]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        ok(nvrtc.nvrtcGetProgramLog(prog, log))
        sys.exit(f"nvrtc {arch}: {err!r}\n{log.decode(errors='replace')}")
    if arch.startswith("sm_"):
        get_size, get = nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN
    else:
        get_size, get = nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX
    code = b" " * ok(get_size(prog))
    ok(get(prog, code))
    lowered = {name: ok(nvrtc.nvrtcGetLoweredName(prog, name)) for name in name_expressions}
    ok(nvrtc.nvrtcDestroyProgram(prog))
    return code, lowered
