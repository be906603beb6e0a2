/* Exercises libcuda through NVIDIA's own cuda.h: each mode (argv[1]) is one group of calls,
 * checked against CUDA's documented results and against values computed here on the CPU.
 * Exits 0 when every check holds; otherwise prints the failed check and exits 1. */
#include <cuda.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link_inputs.h"

/* Declared by cuda.h only when the program asks for the per-thread default stream. */
extern CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr, const void *, size_t);

/* cuda.h 13.x's cuCtxCreate takes creation parameters (cuCtxCreate_v4). */
#if CUDA_VERSION >= 13000
#define CTX_CREATE(pctx, flags, dev) cuCtxCreate(pctx, NULL, flags, dev)
#else
#define CTX_CREATE(pctx, flags, dev) cuCtxCreate(pctx, flags, dev)
#endif

/* saxpy as nvcc writes it, and a kernel with mixed parameter sizes that reads a module
 * variable: out[i] = k + (unsigned)d + bias + i for i < n. */
static const char *PTX =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .global .align 4 .u32 bias;\n"
    ".visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)\n{\n"
    " .reg .pred %p<2>; .reg .f32 %f<5>; .reg .b32 %r<6>; .reg .b64 %rd<8>;\n"
    " ld.param.u32 %r2, [n]; ld.param.f32 %f1, [a];\n"
    " ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y];\n"
    " mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
    " mad.lo.s32 %r1, %r3, %r4, %r5; setp.ge.s32 %p1, %r1, %r2; @%p1 bra DONE;\n"
    " cvta.to.global.u64 %rd3, %rd1; mul.wide.s32 %rd4, %r1, 4; add.s64 %rd5, %rd3, %rd4;\n"
    " cvta.to.global.u64 %rd6, %rd2; add.s64 %rd7, %rd6, %rd4;\n"
    " ld.global.f32 %f2, [%rd7]; ld.global.f32 %f3, [%rd5];\n"
    " fma.rn.f32 %f4, %f3, %f1, %f2; st.global.f32 [%rd7], %f4;\n"
    "DONE:\n ret;\n}\n"
    ".visible .entry mixed(.param .u64 out, .param .u8 k, .param .f64 d, .param .u32 n)\n{\n"
    " .reg .pred %p<2>; .reg .b16 %h<2>; .reg .b32 %r<10>; .reg .f64 %fd<2>; .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [out]; ld.param.u8 %h1, [k]; ld.param.f64 %fd1, [d]; ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.u32 %r2, %r3, %r4, %r2;\n"
    " setp.ge.u32 %p1, %r2, %r1; @%p1 bra END;\n"
    " cvt.u32.u16 %r5, %h1; cvt.rzi.u32.f64 %r6, %fd1; ld.global.u32 %r7, [bias];\n"
    " add.u32 %r5, %r5, %r6; add.u32 %r5, %r5, %r7; add.u32 %r5, %r5, %r2;\n"
    " mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r5;\n"
    "END:\n ret;\n}\n"
    ".visible .entry poke(.param .u64 p)\n{\n .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [p]; st.global.u32 [%rd1], 1;\n ret;\n}\n"
    ".visible .entry stop()\n{\n trap;\n ret;\n}\n";

/* The parameters of `mixed` as a C struct: the layout CU_LAUNCH_PARAM_BUFFER_POINTER takes. */
struct mixed_params {
    CUdeviceptr out;
    unsigned char k;
    double d;
    unsigned n;
};

static CUcontext make_context(void) {
    CUdevice dev;
    CUcontext ctx = NULL;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(CTX_CREATE(&ctx, 0, dev));
    return ctx;
}

static CUmodule load_module(void) {
    CUmodule mod = NULL;
    CHECK(cuModuleLoadData(&mod, PTX));
    return mod;
}

static void before_init(void) {
    int n = -1, version = 0;
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext ctx;
    EXPECT(cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
    CUdeviceptr p;
    EXPECT(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    /* Versions and entry points are available before cuInit. */
    CHECK(cuDriverGetVersion(&version));
    ASSERT(version >= CUDA_VERSION);
    void *fn = NULL;
    CHECK(cuGetProcAddress("cuInit", &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL));
    ASSERT(fn == (void *)cuInit);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuInit(0));
    CHECK(cuDeviceGetCount(&n));
    ASSERT(n >= 1);
}

static void queries(void) {
    int n = 0, v = 0, major = 0, minor = 0;
    CHECK(cuInit(0));
    CHECK(cuDeviceGetCount(&n));
    ASSERT(n >= 1);
    CUdevice dev = -1;
    CHECK(cuDeviceGet(&dev, 0));
    ASSERT(dev == 0);
    EXPECT(cuDeviceGet(&dev, n), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    char name[256];
    memset(name, 'x', sizeof name);
    CHECK(cuDeviceGetName(name, sizeof name, 0));
    ASSERT(strlen(name) > 0 && strlen(name) < sizeof name);
    char tiny[4];
    CHECK(cuDeviceGetName(tiny, sizeof tiny, 0));
    ASSERT(strlen(tiny) <= 3);
    CUuuid uuid;
    memset(&uuid, 0, sizeof uuid);
    CHECK(cuDeviceGetUuid(&uuid, 0));
    int nonzero = 0;
    for (int i = 0; i < 16; i++) nonzero |= uuid.bytes[i];
    ASSERT(nonzero);
    size_t total = 0;
    CHECK(cuDeviceTotalMem(&total, 0));
    ASSERT(total > 0);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    ASSERT(v == 32);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    ASSERT(v >= 64 && v <= 1024);
    int bx = 0;
    CHECK(cuDeviceGetAttribute(&bx, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0));
    ASSERT(bx >= 64 && bx <= v);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0));
    ASSERT(v == 2147483647);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    ASSERT(v >= 1);
    /* CUDA's figures on any device: shared memory beyond the device's is device memory. */
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 0));
    ASSERT(v == 49152);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    ASSERT(v == 227 * 1024);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    ASSERT(v == 1);
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    /* The test runs with PTXVK_CC=7.5. */
    ASSERT(major == 7 && minor == 5);
    EXPECT(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);

#if CUDA_VERSION < 13000 /* removed from cuda.h 13.x, still exported for older programs */
    CUdevprop prop;
    memset(&prop, 0, sizeof prop);
    int threads = 0;
    CHECK(cuDeviceGetProperties(&prop, 0));
    CHECK(cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    ASSERT(prop.maxThreadsPerBlock == threads && prop.maxThreadsDim[0] == bx);
    ASSERT(prop.SIMDWidth == 32 && prop.maxGridSize[1] == 65535);
#endif
    char bus[32];
    CHECK(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    ASSERT(strlen(bus) == 12 && bus[4] == ':' && bus[7] == ':' && bus[10] == '.');
    CUdevice found = -1;
    CHECK(cuDeviceGetByPCIBusId(&found, bus));
    ASSERT(found == 0);
    int peer = 1;
    CHECK(cuDeviceCanAccessPeer(&peer, 0, 0));
    ASSERT(peer == 0);
    CUmoduleLoadingMode loading = 0;
    CHECK(cuModuleGetLoadingMode(&loading));
    ASSERT(loading == CU_MODULE_LAZY_LOADING);

    const char *s = NULL;
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    ASSERT(s && strcmp(s, "CUDA_ERROR_INVALID_VALUE") == 0);
    CHECK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    ASSERT(s && strcmp(s, "out of memory") == 0);
    EXPECT(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    ASSERT(s == NULL);

    /* Versioned entry points: cuda.h maps cuMemAlloc to cuMemAlloc_v2. */
    void *fn = NULL;
    CUdriverProcAddressQueryResult status = (CUdriverProcAddressQueryResult)-1;
    CHECK(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    ASSERT(fn == (void *)cuMemAlloc && status == CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status));
    ASSERT(fn == (void *)cuMemcpyHtoD_v2_ptds);
    EXPECT(cuGetProcAddress("cuNoSuchFunction", &fn, 12000, 0, &status), CUDA_ERROR_NOT_FOUND);
    ASSERT(fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    EXPECT(cuGetProcAddress("cuLaunchKernelEx", &fn, 11000, 0, &status), CUDA_ERROR_NOT_FOUND);
    ASSERT(status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    /* An entry point without an implementation answers, and says so. */
    CUgraph graph;
    EXPECT(cuGraphCreate(&graph, 0), CUDA_ERROR_NOT_SUPPORTED);
    const void *table = (const void *)1;
    CUuuid id;
    memset(&id, 0, sizeof id);
    EXPECT(cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
}

static void contexts(void) {
    CHECK(cuInit(0));
    CUcontext cur = (CUcontext)1;
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == NULL);
    unsigned flags = 99;
    int active = 1;
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ASSERT(flags == 0 && active == 0);
    CHECK(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    EXPECT(cuDevicePrimaryCtxSetFlags(0, 3), CUDA_ERROR_INVALID_VALUE);
    CUcontext primary = NULL, again = NULL;
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    CHECK(cuDevicePrimaryCtxRetain(&again, 0));
    ASSERT(primary != NULL && primary == again);
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ASSERT(flags == CU_CTX_SCHED_BLOCKING_SYNC && active == 1);
    CHECK(cuCtxSetCurrent(primary));
    CHECK(cuCtxGetFlags(&flags));
    ASSERT(flags == CU_CTX_SCHED_BLOCKING_SYNC);

    CUcontext mine = NULL;
    CHECK(CTX_CREATE(&mine, 0, 0));
    ASSERT(mine != NULL && mine != primary);
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == mine);
    CUdevice dev = -1;
    CHECK(cuCtxGetDevice(&dev));
    ASSERT(dev == 0);
    unsigned api = 0;
    CHECK(cuCtxGetApiVersion(mine, &api));
    ASSERT(api == 3020);
    size_t limit = 0;
    CHECK(cuCtxGetLimit(&limit, CU_LIMIT_MALLOC_HEAP_SIZE));
    ASSERT(limit == 8u << 20);
    CHECK(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 4096));
    CHECK(cuCtxGetLimit(&limit, CU_LIMIT_PRINTF_FIFO_SIZE));
    ASSERT(limit == 4096);
    EXPECT(cuCtxGetLimit(&limit, (CUlimit)0x55), CUDA_ERROR_UNSUPPORTED_LIMIT);
    CHECK(cuCtxSynchronize());

    /* The stack: pop gives back the context created last, exposing the primary one. */
    CUcontext popped = NULL;
    CHECK(cuCtxPopCurrent(&popped));
    ASSERT(popped == mine);
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == primary);
    CHECK(cuCtxPushCurrent(mine));
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == mine);
    CHECK(cuCtxDestroy(mine));
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == primary);
    EXPECT(cuCtxPushCurrent(mine), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxDestroy(mine), CUDA_ERROR_INVALID_CONTEXT);

    CHECK(cuDevicePrimaryCtxRelease(0));
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ASSERT(active == 1);
    CHECK(cuDevicePrimaryCtxRelease(0));
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ASSERT(active == 0);
    EXPECT(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
}

/* A second thread starts with an empty context stack; a context made current there works
 * and does not change the first thread's stack. */
struct thread_args {
    CUcontext ctx;
    CUdeviceptr ptr;
    int failures;
};

static void *other_thread(void *p) {
    struct thread_args *a = p;
    int before = failures;
    CUcontext cur = (CUcontext)1;
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == NULL);
    CUdeviceptr q;
    EXPECT(cuMemAlloc(&q, 64), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxSetCurrent(a->ctx));
    unsigned v = 0xdeadbeef;
    CHECK(cuMemcpyHtoD(a->ptr, &v, sizeof v));
    CHECK(cuCtxPopCurrent(NULL));
    a->failures = failures - before;
    return NULL;
}

/* Two threads launching in one context at once, each on its own stream. */
struct worker {
    CUcontext ctx;
    CUfunction saxpy;
    float a;
    int failures;
};

static void *launch_worker(void *p) {
    struct worker *w = p;
    int before = failures;
    enum { N = 2048 };
    static _Thread_local float x[N], y[N];
    CHECK(cuCtxSetCurrent(w->ctx));
    CUstream s;
    CUdeviceptr dx, dy;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuMemAlloc(&dx, sizeof x));
    CHECK(cuMemAlloc(&dy, sizeof y));
    for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 0.0f; }
    CHECK(cuMemcpyHtoDAsync(dx, x, sizeof x, s));
    CHECK(cuMemcpyHtoDAsync(dy, y, sizeof y, s));
    int n = N;
    void *params[] = {&n, &w->a, &dx, &dy};
    for (int k = 0; k < 10; k++)
        CHECK(cuLaunchKernel(w->saxpy, N / 256, 1, 1, 256, 1, 1, 0, s, params, NULL));
    CHECK(cuMemcpyDtoHAsync(y, dy, sizeof y, s));
    CHECK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++) ASSERT(y[i] == 10.0f * w->a * (float)i);
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuStreamDestroy(s));
    w->failures = failures - before;
    return NULL;
}

static void threads(void) {
    CUcontext ctx = make_context();
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 4));
    CHECK(cuMemsetD32(p, 0, 1));
    struct thread_args a = {ctx, p, 0};
    pthread_t t;
    ASSERT(pthread_create(&t, NULL, other_thread, &a) == 0);
    ASSERT(pthread_join(t, NULL) == 0);
    CUcontext cur = NULL;
    CHECK(cuCtxGetCurrent(&cur));
    ASSERT(cur == ctx);
    unsigned v = 0;
    CHECK(cuMemcpyDtoH(&v, p, sizeof v));
    ASSERT(v == 0xdeadbeef);
    CHECK(cuMemFree(p));

    CUmodule mod = load_module();
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    struct worker w[2] = {{ctx, saxpy, 2.0f, 0}, {ctx, saxpy, 0.5f, 0}};
    pthread_t t2[2];
    for (int i = 0; i < 2; i++) ASSERT(pthread_create(&t2[i], NULL, launch_worker, &w[i]) == 0);
    for (int i = 0; i < 2; i++) ASSERT(pthread_join(t2[i], NULL) == 0);
    CHECK(cuCtxDestroy(ctx));
}

/* A 5x3 block of bytes copied into pitched device rows and back into a wider host array; then
 * a 3D box out of a 4x3x2 volume. */
static void memory_2d_3d(CUdeviceptr pitched, size_t pitch) {
    unsigned char src[3][5], back[3][8];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) src[y][x] = (unsigned char)(16 * y + x + 1);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = 5;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.dstXInBytes = 7;
    c.WidthInBytes = 5;
    c.Height = 3;
    CHECK(cuMemcpy2D(&c));
    memset(back, 0, sizeof back);
    CUDA_MEMCPY2D d;
    memset(&d, 0, sizeof d);
    d.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    d.srcDevice = pitched;
    d.srcPitch = pitch;
    d.srcXInBytes = 7;
    d.dstMemoryType = CU_MEMORYTYPE_HOST;
    d.dstHost = back;
    d.dstPitch = 8;
    d.dstXInBytes = 1;
    d.WidthInBytes = 5;
    d.Height = 3;
    CHECK(cuMemcpy2DAsync(&d, NULL));
    CHECK(cuStreamSynchronize(NULL));
    for (int y = 0; y < 3; y++) {
        ASSERT(back[y][0] == 0 && back[y][6] == 0);
        ASSERT(memcmp(&back[y][1], src[y], 5) == 0);
    }
    unsigned char row[512];
    CHECK(cuMemcpyDtoH(row, pitched + pitch, sizeof row));
    ASSERT(memcmp(row + 7, src[1], 5) == 0);
    d.WidthInBytes = 9; /* wider than the destination pitch */
    EXPECT(cuMemcpy2D(&d), CUDA_ERROR_INVALID_VALUE);

    /* 2D fills touch each row's first bytes only. */
    CHECK(cuMemsetD2D8(pitched, pitch, 0xee, 3, 3));
    CHECK(cuMemsetD2D16Async(pitched + pitch, pitch, 0x1234, 2, 2, NULL));
    CHECK(cuStreamSynchronize(NULL));
    unsigned char rows[3][8];
    for (int y = 0; y < 3; y++) CHECK(cuMemcpyDtoH(rows[y], pitched + y * pitch, 8));
    ASSERT(rows[0][0] == 0xee && rows[0][2] == 0xee && rows[0][3] == 0);
    ASSERT(rows[1][0] == 0x34 && rows[1][1] == 0x12 && rows[1][3] == 0x12 && rows[1][4] == 0);
    ASSERT(rows[2][0] == 0x34 && rows[2][3] == 0x12 && rows[2][4] == 0);
    EXPECT(cuMemsetD2D32(pitched, 4, 0, 2, 2), CUDA_ERROR_INVALID_VALUE);

    unsigned vol[2][3][4], box[2][2][2];
    for (int i = 0; i < 24; i++) ((unsigned *)vol)[i] = (unsigned)i * 7u;
    CUdeviceptr dv;
    CHECK(cuMemAlloc(&dv, sizeof vol));
    CHECK(cuMemcpyHtoD(dv, vol, sizeof vol));
    CUDA_MEMCPY3D e;
    memset(&e, 0, sizeof e);
    e.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    e.srcDevice = dv;
    e.srcPitch = 4 * sizeof(unsigned);
    e.srcHeight = 3;
    e.srcXInBytes = 2 * sizeof(unsigned);
    e.srcY = 1;
    e.dstMemoryType = CU_MEMORYTYPE_HOST;
    e.dstHost = box;
    e.dstPitch = 2 * sizeof(unsigned);
    e.dstHeight = 2;
    e.WidthInBytes = 2 * sizeof(unsigned);
    e.Height = 2;
    e.Depth = 2;
    CHECK(cuMemcpy3D(&e));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) ASSERT(box[z][y][x] == vol[z][y + 1][x + 2]);
    CHECK(cuMemFree(dv));
}

static void pointer_attributes(CUdeviceptr a, CUdeviceptr b) {
    CUcontext ctx = NULL, cur = NULL;
    CHECK(cuCtxGetCurrent(&cur));
    CHECK(cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, a + 12));
    ASSERT(ctx == cur);
    unsigned type = 0;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a + 12));
    ASSERT(type == CU_MEMORYTYPE_DEVICE);
    CUdeviceptr start = 0, dp = 0;
    size_t range = 0;
    CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, b + 100));
    CHECK(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, b + 100));
    ASSERT(start == b && range == 4000);
    CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, b + 100));
    ASSERT(dp == b + 100);
    void *hp = NULL;
    EXPECT(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, b), CUDA_ERROR_INVALID_VALUE);
    int ordinal = -1;
    CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a));
    ASSERT(ordinal == 0);
    int stack_value = 0;
    EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)&stack_value),
           CUDA_ERROR_INVALID_VALUE);

    /* Several at once; memory CUDA does not know reads as zeros. */
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned t2 = 99;
    size_t s2 = 99;
    void *data[] = {&t2, &s2};
    CHECK(cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)&stack_value));
    ASSERT(t2 == 0 && s2 == 0);
    CHECK(cuPointerGetAttributes(2, attrs, data, a));
    ASSERT(t2 == CU_MEMORYTYPE_DEVICE && s2 == 4000);

    /* Page-locked and registered host memory. */
    void *pinned = NULL;
    CHECK(cuMemHostAlloc(&pinned, 256, CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)pinned + 8));
    ASSERT(type == CU_MEMORYTYPE_HOST);
    CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)pinned + 8));
    ASSERT(hp == (char *)pinned + 8);
    unsigned flags = 0;
    CHECK(cuMemHostGetFlags(&flags, pinned));
    ASSERT(flags == CU_MEMHOSTALLOC_PORTABLE);
    CHECK(cuMemFreeHost(pinned));
    static unsigned char mine[4096];
    CHECK(cuMemHostRegister(mine, sizeof mine, CU_MEMHOSTREGISTER_PORTABLE));
    EXPECT(cuMemHostRegister(mine + 64, 64, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)mine + 100));
    ASSERT(type == CU_MEMORYTYPE_HOST);
    CHECK(cuMemHostUnregister(mine));
    EXPECT(cuMemHostUnregister(mine), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

static void memory(void) {
    make_context();
    enum { N = 1000 };
    CUdeviceptr a, b;
    CHECK(cuMemAlloc(&a, N * 4));
    CHECK(cuMemAlloc(&b, N * 4));
    ASSERT(a != 0 && b != 0 && a != b);
    size_t free_b = 0, total = 0;
    CHECK(cuMemGetInfo(&free_b, &total));
    ASSERT(total > 0 && free_b <= total);

    unsigned host[N], back[N];
    for (int i = 0; i < N; i++) host[i] = i * 2654435761u;
    CHECK(cuMemcpyHtoD(a, host, sizeof host));
    CHECK(cuMemcpyDtoD(b, a, sizeof host));
    memset(back, 0, sizeof back);
    CHECK(cuMemcpyDtoH(back, b, sizeof back));
    ASSERT(memcmp(host, back, sizeof host) == 0);

    /* Interior pointers: the allocation they belong to, and copies from the middle. */
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK(cuMemGetAddressRange(&base, &size, a + 400));
    ASSERT(base == a && size == N * 4);
    unsigned mid[10];
    CHECK(cuMemcpyDtoH(mid, a + 40, sizeof mid));
    ASSERT(memcmp(mid, host + 10, sizeof mid) == 0);

    /* Fills: bytes, 16-bit and 32-bit values, over part of an allocation. */
    CHECK(cuMemsetD32(a, 0x01020304u, N));
    CHECK(cuMemsetD16(a + 8, 0xabcd, 3));
    CHECK(cuMemsetD8(a + 17, 0x7f, 5));
    unsigned char bytes[32];
    CHECK(cuMemcpyDtoH(bytes, a, sizeof bytes));
    unsigned char want[32];
    for (int i = 0; i < 32; i += 4) {
        want[i] = 4; want[i + 1] = 3; want[i + 2] = 2; want[i + 3] = 1;
    }
    for (int i = 0; i < 3; i++) { want[8 + 2 * i] = 0xcd; want[9 + 2 * i] = 0xab; }
    for (int i = 0; i < 5; i++) want[17 + i] = 0x7f;
    ASSERT(memcmp(bytes, want, sizeof want) == 0);
    EXPECT(cuMemsetD32(a + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);

    /* cuMemcpy reads the direction from the pointers. */
    CHECK(cuMemcpy(a, (CUdeviceptr)host, sizeof host));
    CHECK(cuMemcpy(b, a, sizeof host));
    memset(back, 0, sizeof back);
    CHECK(cuMemcpy((CUdeviceptr)back, b, sizeof back));
    ASSERT(memcmp(host, back, sizeof host) == 0);

    /* Page-locked host memory works as a copy source and target. */
    unsigned *pinned = NULL;
    CHECK(cuMemAllocHost((void **)&pinned, N * 4));
    ASSERT(pinned != NULL && pinned[0] == 0);
    CHECK(cuMemcpyDtoH(pinned, a, N * 4));
    ASSERT(memcmp(pinned, host, sizeof host) == 0);
    CHECK(cuMemFreeHost(pinned));
    EXPECT(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);
    void *mapped = NULL;
    CHECK(cuMemHostAlloc(&mapped, 64, CU_MEMHOSTALLOC_PORTABLE));
    CHECK(cuMemFreeHost(mapped));

    /* Pitched rows. */
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&pitched, &pitch, 100, 3, 4));
    ASSERT(pitch >= 100 && pitch % 256 == 0);
    CHECK(cuMemGetAddressRange(&base, &size, pitched));
    ASSERT(size == pitch * 3);
    EXPECT(cuMemAllocPitch(&pitched, &pitch, 100, 3, 3), CUDA_ERROR_INVALID_VALUE);

    EXPECT(cuMemAlloc(&b, 0), CUDA_ERROR_INVALID_VALUE);
    memory_2d_3d(pitched, pitch);
    pointer_attributes(a, b);
    CHECK(cuMemFree(a));
}

static void launch_extras(CUmodule mod, CUfunction saxpy, CUfunction mixed, CUdeviceptr dout) {
    const char *name = NULL;
    CHECK(cuFuncGetName(&name, mixed));
    ASSERT(name && strcmp(name, "mixed") == 0);
    CUmodule owner = NULL;
    CHECK(cuFuncGetModule(&owner, saxpy));
    ASSERT(owner == mod);
    int v = -5;
    CHECK(cuFuncSetAttribute(saxpy, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0));
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, saxpy));
    ASSERT(v == 0);
    EXPECT(cuFuncSetAttribute(saxpy, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30),
           CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(saxpy, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024));
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, saxpy));
    ASSERT(v == 227 * 1024);
    EXPECT(cuFuncSetAttribute(saxpy, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024 + 4),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuFuncSetAttribute(saxpy, CU_FUNC_ATTRIBUTE_NUM_REGS, 8), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetCacheConfig(saxpy, CU_FUNC_CACHE_PREFER_SHARED));
    CUfunc_cache cache = CU_FUNC_CACHE_PREFER_L1;
    CHECK(cuCtxGetCacheConfig(&cache));
    ASSERT(cache == CU_FUNC_CACHE_PREFER_NONE);

    /* Occupancy: whole warps, within the multiprocessor's limits. */
    int blocks = -1, min_grid = -1, best = -1, mps = 0, max_threads = 0;
    CHECK(cuDeviceGetAttribute(&mps, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    CHECK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 128, 0));
    ASSERT(blocks >= 1 && blocks * 128 <= 2048);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, max_threads + 1, 0));
    ASSERT(blocks == 0);
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &best, saxpy, NULL, 0, 0));
    ASSERT(best >= 32 && best <= max_threads && best % 32 == 0);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, best, 0));
    ASSERT(min_grid == blocks * mps);
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &best, saxpy, NULL, 0, 64));
    ASSERT(best == 64);
    size_t avail = 0;
    CHECK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, saxpy, 1, 64));
    ASSERT(avail >= 48 * 1024 && avail <= 227 * 1024);

    /* cuLaunchKernelEx: attributes that change nothing are accepted, cooperative grids not. */
    unsigned char k = 3;
    double d = 4.0;
    unsigned cnt = 64;
    void *params[] = {&dout, &k, &d, &cnt};
    CUlaunchAttribute attr[1];
    memset(attr, 0, sizeof attr);
    attr[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attr[0].value.priority = 0;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 2; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = 32; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CHECK(cuLaunchKernelEx(&cfg, mixed, params, NULL));
    unsigned got[64];
    CHECK(cuMemcpyDtoH(got, dout, sizeof got));
    for (unsigned i = 0; i < 64; i++) ASSERT(got[i] == 3 + 4 + 1000 + i);
    attr[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr[0].value.cooperative = 1;
    EXPECT(cuLaunchKernelEx(&cfg, mixed, params, NULL), CUDA_ERROR_NOT_SUPPORTED);
}

static void launches(void) {
    make_context();
    CUmodule mod = load_module();
    CUfunction saxpy, mixed, again;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CHECK(cuModuleGetFunction(&again, mod, "saxpy"));
    ASSERT(saxpy == again);
    CHECK(cuModuleGetFunction(&mixed, mod, "mixed"));
    EXPECT(cuModuleGetFunction(&again, mod, "nope"), CUDA_ERROR_NOT_FOUND);
    int v = 0;
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, saxpy));
    ASSERT(v == 70);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
    ASSERT(v >= 64);

    enum { N = 1000 };
    float x[N], y[N], want[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.5f;
        y[i] = 1.0f - (float)i;
        want[i] = fmaf(x[i], 3.0f, y[i]);
    }
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, sizeof x));
    CHECK(cuMemAlloc(&dy, sizeof y));
    CHECK(cuMemcpyHtoD(dx, x, sizeof x));
    CHECK(cuMemcpyHtoD(dy, y, sizeof y));
    int n = N;
    float a = 3.0f;
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel(saxpy, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    float out[N];
    CHECK(cuMemcpyDtoH(out, dy, sizeof out));
    ASSERT(memcmp(out, want, sizeof out) == 0);

    /* The packed form, with a module variable read by the kernel. */
    CUdeviceptr bias;
    size_t bias_size = 0;
    CHECK(cuModuleGetGlobal(&bias, &bias_size, mod, "bias"));
    ASSERT(bias_size == 4);
    unsigned bias_value = 1000;
    CHECK(cuMemcpyHtoD(bias, &bias_value, 4));
    EXPECT(cuModuleGetGlobal(&bias, &bias_size, mod, "nothing"), CUDA_ERROR_NOT_FOUND);
    CUdeviceptr dout;
    CHECK(cuMemAlloc(&dout, 64 * 4));
    struct mixed_params mp = {dout, 7, 20.75, 64};
    size_t mp_size = sizeof mp;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &mp, CU_LAUNCH_PARAM_BUFFER_SIZE, &mp_size,
                     CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(mixed, 2, 1, 1, 32, 1, 1, 0, NULL, NULL, extra));
    unsigned got[64];
    CHECK(cuMemcpyDtoH(got, dout, sizeof got));
    for (unsigned i = 0; i < 64; i++) ASSERT(got[i] == 7 + 20 + 1000 + i);

    /* The same through kernelParams, where each value has its own size. */
    unsigned char k = 1;
    double d = 2.5;
    unsigned cnt = 64;
    void *mparams[] = {&dout, &k, &d, &cnt};
    CHECK(cuLaunchKernel(mixed, 1, 1, 1, 64, 1, 1, 0, NULL, mparams, NULL));
    CHECK(cuMemcpyDtoH(got, dout, sizeof got));
    for (unsigned i = 0; i < 64; i++) ASSERT(got[i] == 1 + 2 + 1000 + i);
    /* Fills reach module variables too (numba clears its exception flag this way). */
    CHECK(cuMemsetD8Async(bias, 0, 4, NULL));
    CHECK(cuMemsetD16(bias, 5, 1));
    CHECK(cuLaunchKernel(mixed, 1, 1, 1, 64, 1, 1, 0, NULL, mparams, NULL));
    CHECK(cuMemcpyDtoH(got, dout, sizeof got));
    for (unsigned i = 0; i < 64; i++) ASSERT(got[i] == 1 + 2 + 5 + i);
    CHECK(cuMemsetD32(bias, 1000, 1));
    launch_extras(mod, saxpy, mixed, dout);
    CHECK(cuModuleUnload(mod));
}

/* Host functions run in stream order: each sees the ones before it done. */
static int host_steps = 0;
static void CUDA_CB step_one(void *user) {
    host_steps = host_steps * 10 + *(int *)user;
}
static void CUDA_CB step_two(CUstream s, CUresult status, void *user) {
    (void)s;
    host_steps = host_steps * 10 + (status == CUDA_SUCCESS ? *(int *)user : 9);
}

/* The legacy default stream and blocking streams wait for each other's earlier work. */
static void legacy_default_stream(CUstream s1, CUfunction saxpy) {
    enum { N = 4096 };
    static float ones[N], out[N];
    for (int i = 0; i < N; i++) ones[i] = 1.0f;
    CUdeviceptr x, y, z;
    CHECK(cuMemAlloc(&x, sizeof ones));
    CHECK(cuMemAlloc(&y, sizeof ones));
    CHECK(cuMemAlloc(&z, sizeof ones));
    CHECK(cuMemcpyHtoD(x, ones, sizeof ones));
    CHECK(cuMemsetD32(y, 0x40000000u /* 2.0f */, N));
    int n = N;
    float a = 1.0f;
    void *params[] = {&n, &a, &x, &y};
    for (int i = 0; i < 3; i++)
        CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuMemcpyDtoDAsync(z, y, sizeof ones, NULL));
    CHECK(cuStreamSynchronize(NULL));
    CHECK(cuMemcpyDtoH(out, z, sizeof out));
    ASSERT(out[0] == 5.0f && out[N - 1] == 5.0f);
    /* Synchronous copies wait for the blocking streams too. */
    CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuMemcpyDtoD(z, y, sizeof ones));
    CHECK(cuMemcpyDtoH(out, z, sizeof out));
    ASSERT(out[0] == 6.0f && out[N - 1] == 6.0f);

    CHECK(cuMemsetD32Async(y, 0, N, NULL));
    a = 2.0f;
    CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuMemcpyDtoHAsync(out, y, sizeof out, s1));
    CHECK(cuStreamSynchronize(s1));
    ASSERT(out[0] == 2.0f && out[N - 1] == 2.0f);
    CHECK(cuMemFree(x));
    CHECK(cuMemFree(y));
    CHECK(cuMemFree(z));
}

static void stream_extras(CUstream s1, CUfunction saxpy, void **params) {
    int least = 7, greatest = 7;
    CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
    ASSERT(least == 0 && greatest == 0);
    CUstream sp;
    CHECK(cuStreamCreateWithPriority(&sp, CU_STREAM_NON_BLOCKING, -1));
    int prio = 5;
    unsigned flags = 9;
    CHECK(cuStreamGetPriority(sp, &prio));
    CHECK(cuStreamGetFlags(sp, &flags));
    ASSERT(prio == 0 && flags == CU_STREAM_NON_BLOCKING);
    CUcontext sc = NULL, cur = NULL;
    CHECK(cuCtxGetCurrent(&cur));
    CHECK(cuStreamGetCtx(sp, &sc));
    ASSERT(sc == cur);
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cuStreamGetId(sp, &id1));
    CHECK(cuStreamGetId(s1, &id2));
    ASSERT(id1 != 0 && id2 != 0 && id1 != id2);
    CHECK(cuStreamDestroy(sp));

    int one = 1, two = 2;
    host_steps = 0;
    CHECK(cuLaunchKernel(saxpy, 1, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuLaunchHostFunc(s1, step_one, &one));
    CHECK(cuStreamAddCallback(s1, step_two, &two, 0));
    EXPECT(cuStreamAddCallback(s1, step_two, &two, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuStreamSynchronize(s1));
    ASSERT(host_steps == 12);
}

static void streams(void) {
    make_context();
    CUmodule mod = load_module();
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    enum { N = 4096 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) { x[i] = (float)(i % 17); y[i] = 2.0f; }
    CUstream s1, s2;
    CHECK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    EXPECT(cuStreamCreate(&s1, 0x10), CUDA_ERROR_INVALID_VALUE);
    CUevent start, stop, done1, untimed;
    CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&done1, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventQuery(done1)); /* never recorded: complete */
    float ms = -1.0f;
    EXPECT(cuEventElapsedTime(&ms, start, stop), CUDA_ERROR_INVALID_HANDLE);

    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, sizeof x));
    CHECK(cuMemAlloc(&dy, sizeof y));
    /* Stream 1 uploads and runs saxpy twice; stream 2 waits for it, then reads back. */
    CHECK(cuEventRecord(start, s1));
    CHECK(cuMemcpyHtoDAsync(dx, x, sizeof x, s1));
    CHECK(cuMemsetD32Async(dy, 0x40000000u /* 2.0f */, N, s1));
    int n = N;
    float a = 0.5f;
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuLaunchKernel(saxpy, N / 256, 1, 1, 256, 1, 1, 0, s1, params, NULL));
    CHECK(cuEventRecord(stop, s1));
    CHECK(cuEventRecord(done1, s1));
    CHECK(cuStreamWaitEvent(s2, done1, 0));
    CHECK(cuMemcpyDtoHAsync(out, dy, sizeof out, s2));
    CHECK(cuStreamSynchronize(s2));
    for (int i = 0; i < N; i++) ASSERT(out[i] == 2.0f + 2 * 0.5f * x[i]);
    CHECK(cuEventSynchronize(stop));
    CHECK(cuEventQuery(stop));
    CHECK(cuStreamQuery(s1));
    CHECK(cuEventElapsedTime(&ms, start, stop));
    ASSERT(ms >= 0.0f && ms < 60000.0f);
    CHECK(cuEventRecordWithFlags(untimed, s1, CU_EVENT_RECORD_DEFAULT));
    CHECK(cuEventSynchronize(untimed));
    EXPECT(cuEventElapsedTime(&ms, start, untimed), CUDA_ERROR_INVALID_HANDLE);

    /* The default stream (NULL) orders its own work. */
    CUdeviceptr dz;
    CHECK(cuMemAlloc(&dz, 16));
    CHECK(cuMemsetD8Async(dz, 0x11, 16, NULL));
    CHECK(cuMemcpyDtoDAsync(dz, dx + 4, 8, NULL));
    CHECK(cuStreamSynchronize(NULL));
    unsigned char zb[16];
    CHECK(cuMemcpyDtoH(zb, dz, 16));
    ASSERT(memcmp(zb, (unsigned char *)x + 4, 8) == 0 && zb[8] == 0x11 && zb[15] == 0x11);

    stream_extras(s1, saxpy, params);
    legacy_default_stream(s1, saxpy);

    CHECK(cuEventDestroy(start));
    EXPECT(cuEventQuery(start), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuStreamDestroy(s2));
    EXPECT(cuStreamSynchronize(s2), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuStreamDestroy(s1));
}

static void misuse(void) {
    CUcontext ctx = make_context();
    CUmodule mod = load_module();
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 256));
    int n = 64;
    float a = 1.0f;
    void *params[] = {&n, &a, &p, &p};

    /* A freed pointer. */
    CHECK(cuMemFree(p));
    unsigned v = 1;
    EXPECT(cuMemcpyHtoD(p, &v, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH(&v, p, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(p, 0, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr q;
    CHECK(cuMemAlloc(&q, 16));
    EXPECT(cuMemFree(q + 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(q + 8, &v, 16), CUDA_ERROR_INVALID_VALUE); /* past the end */
    EXPECT(cuMemcpyHtoD(q, NULL, 4), CUDA_ERROR_INVALID_VALUE);

    /* Unknown and stale handles. */
    EXPECT(cuStreamSynchronize((CUstream)(uintptr_t)0x12345600), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleGetFunction(&saxpy, (CUmodule)(uintptr_t)0x7777700, "saxpy"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord((CUevent)(uintptr_t)0x99900, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel((CUfunction)mod, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));

    /* `extra` with a size that is not the parameters'. */
    CHECK(cuMemAlloc(&p, 256));
    struct { int n; float a; CUdeviceptr x, y; } packed = {64, 1.0f, p, p};
    size_t wrong = sizeof packed - 8;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &wrong,
                     CU_LAUNCH_PARAM_END};
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, extra), CUDA_ERROR_INVALID_VALUE);
    size_t right = sizeof packed;
    extra[3] = &right;
    CHECK(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, extra));
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, params, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);

    /* Blocks larger than the device allows; an empty grid. */
    int max_threads = 0, max_x = 0;
    CHECK(cuDeviceGetAttribute(&max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    CHECK(cuDeviceGetAttribute(&max_x, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0));
    params[2] = &p;
    params[3] = &p;
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, max_x + 1, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 32, 32, 2, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(saxpy, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, max_threads, 1, 1, 1 << 30, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxSynchronize());

    /* Bad PTX: CUDA_ERROR_INVALID_PTX, with the diagnostics in the error log. */
    char log[512];
    log[0] = 0;
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule bad;
    EXPECT(cuModuleLoadDataEx(&bad, ".version 7.0\n.target sm_70\n.address_size 64\n.entry k() { bogus.u32 %r1; }\n",
                              2, opts, vals),
           CUDA_ERROR_INVALID_PTX);
    ASSERT(strlen(log) > 0 && (uintptr_t)vals[1] == strlen(log));
    EXPECT(cuModuleLoad(&bad, "/nonexistent/kernel.ptx"), CUDA_ERROR_FILE_NOT_FOUND);

    /* No current context: launches, allocations and synchronisation report it. */
    CHECK(cuCtxPopCurrent(NULL));
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuMemAlloc(&q, 16), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxPushCurrent(ctx));
    CHECK(cuModuleUnload(mod));
    EXPECT(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel(saxpy, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxDestroy(ctx));
    EXPECT(cuMemAlloc(&q, 16), CUDA_ERROR_INVALID_CONTEXT);
}

/* A faulting kernel makes its context unusable: every later call reports the fault, until the
 * context is destroyed. The fault is found by ptxvk's memory checker (illegal address) or,
 * where it is off, by the device (launch failed); `trap` is a failed launch. */
static void sticky(void) {
    CUcontext ctx = make_context();
    CUmodule mod = load_module();
    CUfunction poke, stop;
    CHECK(cuModuleGetFunction(&poke, mod, "poke"));
    CUdeviceptr p, q;
    CHECK(cuMemAlloc(&p, 16));
    CHECK(cuMemFree(p));
    void *params[] = {&p};
    CHECK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CUresult fault = cuCtxSynchronize();
    ASSERT(fault == CUDA_ERROR_ILLEGAL_ADDRESS || fault == CUDA_ERROR_LAUNCH_FAILED);
    EXPECT(cuMemAlloc(&q, 16), fault);
    EXPECT(cuCtxSynchronize(), fault);
    EXPECT(cuModuleLoadData(&mod, PTX), fault);
    /* "may also return error codes from previous, asynchronous launches" (its documentation) */
    CUdevice dev = -1;
    EXPECT(cuCtxGetDevice(&dev), fault);
    CHECK(cuCtxDestroy(ctx));

    ctx = make_context();
    CHECK(cuMemAlloc(&q, 16));
    mod = load_module();
    CHECK(cuModuleGetFunction(&stop, mod, "stop"));
    CHECK(cuLaunchKernel(stop, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    unsigned v = 0;
    EXPECT(cuMemcpyHtoD(q, &v, 4), CUDA_ERROR_LAUNCH_FAILED);
    CHECK(cuCtxDestroy(ctx));
}

/* Libraries: PTX loaded once, its kernels usable in any context, a kernel handle launched
 * in place of a function. */
static void libraries(void) {
    CUlibrary lib;
    CHECK(cuInit(0));
    CHECK(cuLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    unsigned count = 0;
    CHECK(cuLibraryGetKernelCount(&count, lib));
    ASSERT(count == 4);
    CUkernel all[4], saxpy;
    CHECK(cuLibraryEnumerateKernels(all, 4, lib));
    CHECK(cuLibraryGetKernel(&saxpy, lib, "saxpy"));
    ASSERT(all[0] == saxpy);
    EXPECT(cuLibraryGetKernel(&saxpy, lib, "nothing"), CUDA_ERROR_NOT_FOUND);
    const char *name = NULL;
    CHECK(cuKernelGetName(&name, all[1]));
    ASSERT(name && strcmp(name, "mixed") == 0);
    CUlibrary owner = NULL;
    CHECK(cuKernelGetLibrary(&owner, saxpy));
    ASSERT(owner == lib);

    /* Without a context the kernel has no function yet. */
    CUfunction f;
    EXPECT(cuKernelGetFunction(&f, saxpy), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext ctx = make_context();
    CHECK(cuKernelGetFunction(&f, saxpy));
    CUmodule mod;
    CHECK(cuLibraryGetModule(&mod, lib));
    CUfunction same;
    CHECK(cuModuleGetFunction(&same, mod, "saxpy"));
    ASSERT(same == f);
    int v = 0;
    CHECK(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, saxpy, 0));
    ASSERT(v == 70);
    CHECK(cuKernelSetCacheConfig(saxpy, CU_FUNC_CACHE_PREFER_SHARED, 0));
    EXPECT(cuKernelSetCacheConfig(saxpy, (CUfunc_cache)4, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuKernelSetCacheConfig(saxpy, CU_FUNC_CACHE_PREFER_L1, 1), CUDA_ERROR_INVALID_DEVICE);

    enum { N = 256 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
    CUdeviceptr dx, dy, bias;
    size_t bias_size = 0;
    CHECK(cuLibraryGetGlobal(&bias, &bias_size, lib, "bias"));
    ASSERT(bias_size == 4);
    CHECK(cuMemAlloc(&dx, sizeof x));
    CHECK(cuMemAlloc(&dy, sizeof y));
    CHECK(cuMemcpyHtoD(dx, x, sizeof x));
    CHECK(cuMemcpyHtoD(dy, y, sizeof y));
    int n = N;
    float a = 2.0f;
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel((CUfunction)saxpy, 1, 1, 1, N, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(y, dy, sizeof y));
    for (int i = 0; i < N; i++) ASSERT(y[i] == 1.0f + 2.0f * (float)i);

    CHECK(cuLibraryUnload(lib));
    EXPECT(cuKernelGetFunction(&f, saxpy), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLibraryLoadData(&lib, "not ptx at all", NULL, NULL, 0, NULL, NULL, 0), CUDA_ERROR_INVALID_PTX);
    CHECK(cuCtxDestroy(ctx));
}

/* The JIT linker: LINK_USER and LINK_LIB (link_inputs.h) linked, loaded and run. */
static void linker(void) {
    CUcontext ctx = make_context();
    CUlinkState link;
    CHECK(cuLinkCreate(0, NULL, NULL, &link));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)LINK_USER, strlen(LINK_USER) + 1, "user.ptx", 0, NULL, NULL));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)LINK_LIB, strlen(LINK_LIB), "lib.ptx", 0, NULL, NULL));
    EXPECT(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, (void *)LINK_LIB, 8, "x.cubin", 0, NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
    char log[256];
    log[0] = 0;
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    EXPECT(cuLinkAddData(link, CU_JIT_INPUT_PTX, "garbage", 7, "bad.ptx", 2, opts, vals), CUDA_ERROR_INVALID_PTX);
    ASSERT(strlen(log) > 0);
    void *image = NULL;
    size_t size = 0;
    CHECK(cuLinkComplete(link, &image, &size));
    ASSERT(image != NULL && size > 0 && strstr((const char *)image, ".version 7.8") != NULL);
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, image));
    CHECK(cuLinkDestroy(link));
    EXPECT(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
    run_linked(mod); /* the module outlives the linker's image */
    CHECK(cuCtxDestroy(ctx));
}

/* Forged handles (numbers that look like handles but were never given out) and NULL
 * out-pointers: every entry point answers with an error code, none crashes. */
static void forged(void) {
    CUcontext ctx = make_context();
    CUcontext fc = (CUcontext)(uintptr_t)0x4400;
    CUmodule fm = (CUmodule)(uintptr_t)0x4500;
    CUfunction ff = (CUfunction)(uintptr_t)0x4600;
    CUstream fs = (CUstream)(uintptr_t)0x4700;
    CUevent fe = (CUevent)(uintptr_t)0x4800;
    CUlibrary fl = (CUlibrary)(uintptr_t)0x4900;
    CUkernel fk = (CUkernel)(uintptr_t)0x4a00;
    CUlinkState fs2 = (CUlinkState)(uintptr_t)0x4b00;
    CUdeviceptr fp = 0x10;
    int i = 0;
    unsigned u = 0;
    size_t z = 0;
    float ms = 0;
    void *p = NULL;
    const char *name = NULL;
    unsigned long long id = 0;
    EXPECT(cuCtxPushCurrent(fc), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxDestroy(fc), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxGetApiVersion(fc, &u), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuModuleGetFunction(&ff, fm, "saxpy"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleGetGlobal(&fp, &z, fm, "bias"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleUnload(fm), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuFuncGetAttribute(&i, CU_FUNC_ATTRIBUTE_NUM_REGS, ff), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuFuncSetAttribute(ff, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuFuncGetName(&name, ff), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&i, ff, 32, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLaunchKernel(ff, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamSynchronize(fs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamQuery(fs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamDestroy(fs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamGetFlags(fs, &u), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamGetId(fs, &id), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamWaitEvent(NULL, fe, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuMemcpyHtoDAsync(fp, &i, 4, fs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(fe, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventQuery(fe), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventSynchronize(fe), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventElapsedTime(&ms, fe, fe), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventDestroy(fe), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLibraryGetKernel(&fk, fl, "saxpy"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLibraryUnload(fl), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuKernelGetFunction(&ff, fk), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuKernelGetName(&name, fk), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLinkComplete(fs2, &p, &z), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuLinkDestroy(fs2), CUDA_ERROR_INVALID_HANDLE);
    /* A handle of one kind is not a handle of another. */
    CUstream real;
    CHECK(cuStreamCreate(&real, 0));
    EXPECT(cuEventQuery((CUevent)real), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleUnload((CUmodule)real), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuStreamDestroy(real));
    /* Unknown device pointers and NULL out-pointers. */
    EXPECT(cuMemcpyDtoH(&i, fp, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoD(fp, fp, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD32Async(fp, 0, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFree(fp), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemGetAddressRange(&fp, &z, fp), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuMemFreeHost(&i), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetName(NULL, 16, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(NULL, PTX), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(&fm, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernelEx(NULL, ff, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, fp), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress(NULL, &p, 12000, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress("cuInit", NULL, 12000, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxDestroy(ctx));
}

/* saxpy (a = 3) over x = i, y = 1 at the given device addresses; the host checks y through
 * its own view of the same memory after the kernel. */
static void saxpy_shared(CUfunction saxpy, CUdeviceptr dx, CUdeviceptr dy, float *hx, float *hy, int n) {
    for (int i = 0; i < n; i++) { hx[i] = (float)i; hy[i] = 1.0f; }
    float a = 3.0f;
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < n; i++) ASSERT(hy[i] == 1.0f + 3.0f * (float)i);
}

/* Managed memory (one address on both sides) and page-locked memory mapped for the device,
 * where the device offers them; CUDA_ERROR_NOT_SUPPORTED where it does not. */
static void shared_memory(void) {
    CUcontext ctx = make_context();
    CUmodule mod = load_module();
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    enum { N = 512 };
    int can_map = 0, managed = 0;
    CHECK(cuDeviceGetAttribute(&can_map, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 0));
    CHECK(cuDeviceGetAttribute(&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0));
    CUdeviceptr m;
    if (managed) {
        CHECK(cuMemAllocManaged(&m, 2 * N * sizeof(float), CU_MEM_ATTACH_GLOBAL));
        float *h = (float *)(uintptr_t)m;
        saxpy_shared(saxpy, m, m + N * sizeof(float), h, h + N, N);
        unsigned is_managed = 0;
        void *hp = NULL;
        CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 4));
        CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 4));
        ASSERT(is_managed == 1 && hp == (char *)h + 4);
        CHECK(cuMemFree(m));
        printf("managed memory: ran\n");
    } else {
        EXPECT(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_NOT_SUPPORTED);
    }
    EXPECT(cuMemAllocManaged(&m, 64, 0), CUDA_ERROR_INVALID_VALUE);
    float *hp = NULL;
    if (can_map) {
        CHECK(cuMemHostAlloc((void **)&hp, 2 * N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
        CUdeviceptr dp = 0, attr = 0;
        CHECK(cuMemHostGetDevicePointer(&dp, hp, 0));
        ASSERT(dp != 0);
        /* cuMemFree takes only what the cuMemAlloc family returned; the memory stays usable. */
        EXPECT(cuMemFree(dp), CUDA_ERROR_INVALID_VALUE);
        saxpy_shared(saxpy, dp, dp + N * sizeof(float), hp, hp + N, N);
        CHECK(cuPointerGetAttribute(&attr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(hp + 2)));
        ASSERT(attr == dp + 2 * sizeof(float));
        CHECK(cuMemFreeHost(hp));
        EXPECT(cuMemHostGetDevicePointer(&dp, hp, 0), CUDA_ERROR_INVALID_VALUE);
        printf("mapped memory: ran\n");
    } else {
        EXPECT(cuMemHostAlloc((void **)&hp, 64, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_ERROR_NOT_SUPPORTED);
    }
    CHECK(cuCtxDestroy(ctx));
}

/* Texture objects over CUDA arrays: each thread of a w x h block reads texel (x, y) at its
 * centre and writes its first channel to out[y * w + x]. */
static const char *TEX_PTX =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry texread(.param .u64 tex, .param .u64 out, .param .u32 w)\n{\n"
    " .reg .f32 %f<8>; .reg .b32 %r<6>; .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [tex]; ld.param.u64 %rd2, [out]; ld.param.u32 %r5, [w];\n"
    " mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y;\n"
    " cvt.rn.f32.u32 %f1, %r1; cvt.rn.f32.u32 %f2, %r2;\n"
    " add.f32 %f1, %f1, 0f3F000000; add.f32 %f2, %f2, 0f3F000000;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    " mad.lo.u32 %r3, %r2, %r5, %r1; mul.wide.u32 %rd3, %r3, 4; add.s64 %rd4, %rd2, %rd3;\n"
    " st.global.f32 [%rd4], %f3;\n ret;\n}\n";

static void read_texture(CUfunction f, CUtexObject tex, CUdeviceptr out, unsigned w, unsigned h, float *got) {
    void *params[] = {&tex, &out, &w};
    CHECK(cuLaunchKernel(f, 1, 1, 1, w, h, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(got, out, w * h * sizeof(float)));
}

static void textures(void) {
    CUcontext ctx = make_context();
    CUmodule mod;
    CUfunction texread;
    CHECK(cuModuleLoadData(&mod, TEX_PTX));
    CHECK(cuModuleGetFunction(&texread, mod, "texread"));
    enum { W = 4, H = 3 };
    float texels[H][W], got[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) texels[y][x] = (float)(10 * y + x) + 0.25f;
    CUarray arr;
    CUDA_ARRAY_DESCRIPTOR ad = {W, H, CU_AD_FORMAT_FLOAT, 1};
    CHECK(cuArrayCreate(&arr, &ad));
    CHECK(cuMemcpyHtoA(arr, 0, texels, sizeof texels));
    CUDA_ARRAY_DESCRIPTOR back;
    CHECK(cuArrayGetDescriptor(&back, arr));
    ASSERT(back.Width == W && back.Height == H && back.Format == CU_AD_FORMAT_FLOAT && back.NumChannels == 1);
    float row[W];
    CHECK(cuMemcpyAtoH(row, arr, W * sizeof(float), sizeof row));
    ASSERT(memcmp(row, texels[1], sizeof row) == 0);

    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = arr;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject tex = 0;
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    ASSERT(tex != 0);
    CUDA_RESOURCE_DESC got_res;
    CHECK(cuTexObjectGetResourceDesc(&got_res, tex));
    ASSERT(got_res.resType == CU_RESOURCE_TYPE_ARRAY && got_res.res.array.hArray == arr);

    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, sizeof got));
    read_texture(texread, tex, out, W, H, got);
    ASSERT(memcmp(got, texels, sizeof got) == 0);

    /* A 2D copy into the array's second row: the texture object sees it. */
    float fresh[2] = {-1.5f, -2.5f};
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = fresh;
    c.srcPitch = sizeof fresh;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.dstXInBytes = sizeof(float);
    c.dstY = 1;
    c.WidthInBytes = sizeof fresh;
    c.Height = 1;
    CHECK(cuMemcpy2D(&c));
    texels[1][1] = fresh[0];
    texels[1][2] = fresh[1];
    read_texture(texread, tex, out, W, H, got);
    ASSERT(memcmp(got, texels, sizeof got) == 0);
    c.dstXInBytes = 3 * sizeof(float); /* past the row */
    EXPECT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);

    /* 8-bit texels read as normalized floats unless CU_TRSF_READ_AS_INTEGER. */
    CUarray bytes_arr;
    CUDA_ARRAY_DESCRIPTOR bd = {W, 1, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CHECK(cuArrayCreate(&bytes_arr, &bd));
    unsigned char b[W] = {0, 51, 204, 255};
    CHECK(cuMemcpyHtoA(bytes_arr, 0, b, sizeof b));
    res.res.array.hArray = bytes_arr;
    CUtexObject btex;
    CHECK(cuTexObjectCreate(&btex, &res, &td, NULL));
    read_texture(texread, btex, out, W, 1, got);
    for (int x = 0; x < W; x++) ASSERT(fabsf(got[x] - (float)b[x] / 255.0f) < 1e-6f);

    EXPECT(cuMemcpyHtoA(arr, sizeof texels - 2, texels, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuTexObjectDestroy(btex));
    EXPECT(cuTexObjectDestroy(btex), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuTexObjectDestroy(tex));
    CHECK(cuArrayDestroy(bytes_arr));
    CHECK(cuArrayDestroy(arr));
    EXPECT(cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuCtxDestroy(ctx));
}

/* The program's own memory registered for the device (CU_MEMHOSTREGISTER_DEVICEMAP): a
 * kernel writes through the device pointer, the results are in the original host array. The
 * range is deliberately not page-aligned (CUDA takes any pointer). Where the device cannot
 * register memory for itself, CUDA_ERROR_NOT_SUPPORTED. */
static void registered(void) {
    CUcontext ctx = make_context();
    CUmodule mod = load_module();
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    enum { N = 3000 };
    int supported = 0;
    CHECK(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 0));
    char *block = malloc(2 * N * sizeof(float) + 64);
    ASSERT(block != NULL);
    float *h = (float *)(block + 12);
    size_t bytes = 2 * N * sizeof(float);
    if (!supported) {
        EXPECT(cuMemHostRegister(h, bytes, CU_MEMHOSTREGISTER_DEVICEMAP), CUDA_ERROR_NOT_SUPPORTED);
        free(block);
        CHECK(cuCtxDestroy(ctx));
        return;
    }
    CHECK(cuMemHostRegister(h, bytes, CU_MEMHOSTREGISTER_DEVICEMAP));
    CUdeviceptr dp = 0;
    CHECK(cuMemHostGetDevicePointer(&dp, h, 0));
    ASSERT(dp != 0);
    saxpy_shared(saxpy, dp, dp + N * sizeof(float), h, h + N, N);
    /* Copies through the device pointer see the same bytes. */
    float y[4] = {0};
    CHECK(cuMemcpyDtoH(y, dp + (N + 10) * sizeof(float), sizeof y));
    for (int i = 0; i < 4; i++) ASSERT(y[i] == 1.0f + 3.0f * (float)(10 + i));
    CUdeviceptr inner = 0;
    CHECK(cuMemHostGetDevicePointer(&inner, h + 7, 0));
    ASSERT(inner == dp + 7 * sizeof(float));
    void *hp = NULL;
    CHECK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, dp + 8));
    ASSERT(hp == (char *)h + 8);
    unsigned flags = 0;
    CHECK(cuMemHostGetFlags(&flags, h));
    ASSERT(flags == CU_MEMHOSTREGISTER_DEVICEMAP);
    /* Overlapping and duplicate registrations; only cuMemHostUnregister releases it. */
    EXPECT(cuMemHostRegister(h, bytes, CU_MEMHOSTREGISTER_DEVICEMAP),
           CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemHostRegister(h + 100, 64, CU_MEMHOSTREGISTER_DEVICEMAP),
           CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemHostRegister(h + N, bytes, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT(cuMemFree(dp), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostUnregister(h + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    static char unknown[64];
    EXPECT(cuMemHostUnregister(unknown), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK(cuMemHostUnregister(h));
    EXPECT(cuMemHostUnregister(h), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemHostGetDevicePointer(&dp, h, 0), CUDA_ERROR_INVALID_VALUE);
    /* The memory is the program's again, and can be registered anew. */
    for (int i = 0; i < N; i++) ASSERT(h[N + i] == 1.0f + 3.0f * (float)i);
    CHECK(cuMemHostRegister(h, bytes, CU_MEMHOSTREGISTER_DEVICEMAP));
    CHECK(cuMemHostGetDevicePointer(&dp, h, 0));
    saxpy_shared(saxpy, dp, dp + N * sizeof(float), h, h + N, N);
    CHECK(cuMemHostUnregister(h));
    free(block);
    printf("registered memory: ran\n");
    CHECK(cuCtxDestroy(ctx));
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "before_init") == 0) before_init();
    else if (strcmp(mode, "queries") == 0) queries();
    else if (strcmp(mode, "contexts") == 0) contexts();
    else if (strcmp(mode, "threads") == 0) threads();
    else if (strcmp(mode, "memory") == 0) memory();
    else if (strcmp(mode, "launches") == 0) launches();
    else if (strcmp(mode, "streams") == 0) streams();
    else if (strcmp(mode, "misuse") == 0) misuse();
    else if (strcmp(mode, "sticky") == 0) sticky();
    else if (strcmp(mode, "libraries") == 0) libraries();
    else if (strcmp(mode, "linker") == 0) linker();
    else if (strcmp(mode, "forged") == 0) forged();
    else if (strcmp(mode, "shared_memory") == 0) shared_memory();
    else if (strcmp(mode, "registered") == 0) registered();
    else if (strcmp(mode, "textures") == 0) textures();
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
