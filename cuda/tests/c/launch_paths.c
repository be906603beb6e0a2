/* What a launch looks up and what functions report, through NVIDIA's cuda.h: each mode
 * (argv[1]) checks one group against CUDA's documented behaviour and exits non-zero on any
 * mismatch.
 *   attributes  cuFuncGetAttribute's constant and local sizes, from the PTX's declarations
 *   stale       handles destroyed after launches that used them are refused, not reused
 *   cooperative cooperative launches: checked as launches, then CUDA_ERROR_NOT_SUPPORTED
 *   void_result a C-ABI void function declared with a result, linked as numba links it
 *   teardown DIR  a thread that launches and exits after another destroyed its context (run
 *               with PTXVK_LOG set: logging while a thread's storage goes must not abort) */
/* pthread barriers are POSIX 2001, outside -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* `k` reads table[] (32 bytes of .const) and calls `g`, whose frame holds 24 bytes of .local
 * beside the kernel's own 16; `unused` is .const the kernel never reads. `rec` recurses. */
static const char *PTX =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".const .align 4 .b32 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
    ".const .align 8 .f64 unused;\n"
    ".func (.param .b32 r) g(.param .b32 x)\n{\n"
    " .local .align 8 .b8 buf[24]; .reg .b32 %a; .reg .b64 %p;\n"
    " ld.param.b32 %a, [x]; mov.u64 %p, buf; st.local.b32 [%p], %a;\n"
    " ld.local.b32 %a, [%p]; add.u32 %a, %a, 1; st.param.b32 [r], %a; ret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    " .local .align 4 .b8 own[16]; .reg .b32 %r<4>; .reg .b64 %rd<3>;\n"
    " ld.const.b32 %r1, [table+8]; mov.u64 %rd2, own; st.local.b32 [%rd2], %r1;\n"
    " ld.local.b32 %r1, [%rd2];\n"
    " { .param .b32 p; .param .b32 q; st.param.b32 [p], %r1; call (q), g, (p);"
    " ld.param.b32 %r2, [q]; }\n"
    " ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], %r2; ret;\n}\n"
    ".visible .entry plain(.param .u64 out)\n{\n"
    " .reg .b64 %rd1; .reg .b32 %r1; ld.param.u64 %rd1, [out]; mov.u32 %r1, 7;\n"
    " st.global.u32 [%rd1], %r1; ret;\n}\n"
    ".extern .shared .align 4 .b8 dsm[];\n"
    ".visible .entry dyn(.param .u64 out, .param .u32 at)\n{\n"
    " .reg .b64 %rd<4>; .reg .b32 %r<3>; ld.param.u32 %r1, [at]; cvt.u64.u32 %rd2, %r1;\n"
    " mov.u64 %rd3, dsm; add.u64 %rd3, %rd3, %rd2; mov.u32 %r2, 7; st.shared.u32 [%rd3], %r2;\n"
    " ld.shared.u32 %r2, [%rd3]; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], %r2; ret;\n}\n";

/* numba's shape: the kernel's module declares `consume` with a .b64 result and names one in
 * its call; the CUDA C++ module defines it returning nothing. */
static const char *VOID_USER =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".extern .func (.param .b64 func_retval0) consume(.param .b32 a);\n"
    ".visible .entry twice(.param .u64 out, .param .u32 x)\n{\n"
    " .reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
    " ld.param.u32 %r1, [x];\n"
    " { .param .b32 p; .param .b64 retval0; st.param.b32 [p], %r1;"
    " call.uni (retval0), consume, (p); ld.param.b64 %rd2, [retval0]; }\n"
    " shl.b32 %r2, %r1, 1; ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], %r2; ret;\n}\n";

static const char *VOID_LIB =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .func consume(.param .b32 a)\n{\n .reg .b32 %r; ld.param.b32 %r, [a]; ret;\n}\n";

static CUcontext make_context(void) {
    CUdevice dev;
    CUcontext ctx = NULL;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    return ctx;
}

static void attributes(void) {
    CUcontext ctx = make_context();
    CUmodule mod;
    CUfunction k, plain;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&k, mod, "k"));
    CHECK(cuModuleGetFunction(&plain, mod, "plain"));
    int v = -1;
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, k));
    ASSERT(v == 32);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k));
    ASSERT(v == 16 + 24);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, plain));
    ASSERT(v == 0);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, plain));
    ASSERT(v == 0);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, k));
    ASSERT(v > 0 && v <= 255);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, k));
    ASSERT(v == 70); /* .target sm_70 */
    int major = 0, minor = 0;
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, k));
    ASSERT(v == major * 10 + minor);
    /* The kernel computes what its attributes describe: table[2] + 1. */
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    unsigned got = 0;
    CHECK(cuMemcpyDtoH(&got, out, 4));
    ASSERT(got == 4);
    CHECK(cuCtxDestroy(ctx));
}

/* Dynamic shared memory is checked against the function's
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, as CUDA does: 48 KiB (less the static part)
 * by default, whatever the device could give, and what cuFuncSetAttribute sets after. */
static void shared_limit(void) {
    CUcontext ctx = make_context();
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&f, mod, "dyn"));
    int v = -1, optin = -1;
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    ASSERT(v == 48 * 1024);
    CHECK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    ASSERT(optin >= 64 * 1024);
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    /* The kernel writes 7 to the last word of its dynamic shared memory and copies it out. */
    unsigned at = 48 * 1024 - 4;
    void *params[] = {&out, &at};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 48 * 1024, NULL, params, NULL));
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 48 * 1024 + 4, NULL, params, NULL),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, NULL, params, NULL),
           CUDA_ERROR_INVALID_VALUE);
    /* Opting in allows the launch; it runs. */
    CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    CHECK(cuMemsetD32(out, 0, 1));
    at = 64 * 1024 - 4;
    CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, NULL, params, NULL));
    unsigned got = 0;
    CHECK(cuMemcpyDtoH(&got, out, 4));
    ASSERT(got == 7);
    /* Lowered again, the configuration just launched is refused. */
    CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024));
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, NULL, params, NULL),
           CUDA_ERROR_INVALID_VALUE);
    at = 1020;
    CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 1024, NULL, params, NULL));
    /* The same through cuLaunchKernelEx. */
    CUlaunchConfig cfg = {0};
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = 2048;
    EXPECT(cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxSynchronize());
    CHECK(cuCtxDestroy(ctx));
}

static void stale(void) {
    CUcontext ctx = make_context();
    CUmodule mod;
    CUfunction plain;
    CUstream s, t;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&plain, mod, "plain"));
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&t, 0));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    for (int i = 0; i < 3; i++)
        CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuStreamDestroy(s));
    EXPECT(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, s, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    /* Another stream, then the same function on the one before. */
    CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL));
    CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL));
    CHECK(cuStreamSynchronize(t));
    CHECK(cuModuleUnload(mod));
    EXPECT(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    /* A function of a context that is not current. */
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&plain, mod, "plain"));
    CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL));
    CHECK(cuCtxSynchronize());
    CUcontext other = make_context();
    EXPECT(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    /* Destroying the current context pops it: `ctx` is current again. */
    CHECK(cuCtxDestroy(other));
    CHECK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL));
    CHECK(cuCtxDestroy(ctx));
    EXPECT(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, t, params, NULL), CUDA_ERROR_INVALID_CONTEXT);
}

static void cooperative(void) {
    CUcontext ctx = make_context();
    int v = -1;
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0));
    ASSERT(v == 0);
    CUmodule mod;
    CUfunction plain;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&plain, mod, "plain"));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    EXPECT(cuLaunchCooperativeKernel(plain, 1, 1, 1, 32, 1, 1, 0, NULL, params),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuLaunchCooperativeKernel(plain, 1, 1, 1, 4096, 1, 1, 0, NULL, params),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchCooperativeKernel((CUfunction)(uintptr_t)0x7700, 1, 1, 1, 1, 1, 1, 0, NULL, params),
           CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxDestroy(ctx));
    EXPECT(cuLaunchCooperativeKernel(plain, 1, 1, 1, 32, 1, 1, 0, NULL, params),
           CUDA_ERROR_INVALID_CONTEXT);
}

static void void_result(void) {
    CUcontext ctx = make_context();
    CUlinkState link;
    CHECK(cuLinkCreate(0, NULL, NULL, &link));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)VOID_USER, strlen(VOID_USER) + 1, "user.ptx", 0, NULL, NULL));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)VOID_LIB, strlen(VOID_LIB) + 1, "lib.ptx", 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CHECK(cuLinkComplete(link, &image, &size));
    CUmodule mod;
    CUfunction twice;
    CHECK(cuModuleLoadData(&mod, image));
    CHECK(cuLinkDestroy(link));
    CHECK(cuModuleGetFunction(&twice, mod, "twice"));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    unsigned x = 21, got = 0;
    void *params[] = {&out, &x};
    CHECK(cuLaunchKernel(twice, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(&got, out, 4));
    ASSERT(got == 42);
    CHECK(cuCtxDestroy(ctx));
}

static CUcontext shared_ctx;
static CUfunction shared_fn;
static pthread_barrier_t launched, destroyed;

/* Launches on its own per-thread stream (cached by the launch), waits while the main thread
 * destroys the context, then exits: its storage then holds the last references. */
static void *teardown_worker(void *arg) {
    (void)arg;
    CUdeviceptr out;
    CHECK(cuCtxSetCurrent(shared_ctx));
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(shared_fn, 1, 1, 1, 1, 1, 1, 0, CU_STREAM_PER_THREAD, params, NULL));
    CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    pthread_barrier_wait(&launched);
    pthread_barrier_wait(&destroyed);
    return NULL;
}

/* With a pipeline cache (in `dir`) the module saves it when it goes, and logs that, in the
 * worker's teardown; the worker's first launch logged its pipeline after the launch cache's
 * storage was made, so the formatter's storage goes first. */
static void teardown(const char *dir) {
    ASSERT(dir != NULL);
    if (dir) setenv("PTXVK_CACHE_DIR", dir, 1);
    shared_ctx = make_context();
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&shared_fn, mod, "plain"));
    pthread_barrier_init(&launched, NULL, 2);
    pthread_barrier_init(&destroyed, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, teardown_worker, NULL);
    pthread_barrier_wait(&launched);
    CHECK(cuCtxDestroy(shared_ctx));
    pthread_barrier_wait(&destroyed);
    pthread_join(t, NULL);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "attributes") == 0) attributes();
    else if (strcmp(mode, "stale") == 0) stale();
    else if (strcmp(mode, "shared_limit") == 0) shared_limit();
    else if (strcmp(mode, "cooperative") == 0) cooperative();
    else if (strcmp(mode, "void_result") == 0) void_result();
    else if (strcmp(mode, "teardown") == 0) teardown(argc > 2 ? argv[2] : NULL);
    else {
        fprintf(stderr, "unknown mode `%s`\n", mode);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", mode, failures);
        return 1;
    }
    printf("%s: ok\n", mode);
    return 0;
}
