/* A program built for the per-thread default stream, as nvcc --default-stream per-thread
 * builds one: cuda.h then calls the `_ptsz`/`_ptds` entry points, whose NULL stream is each
 * thread's own default stream. Several threads run order-dependent kernel chains on it at
 * once, mix it with the legacy stream (which CUDA orders against it both ways), record timed
 * and untimed events, launch through cuLaunchKernelEx and host functions, and check every
 * value against the CPU.
 * Threads that end take their streams with them; later threads get new ones.
 * Exits 0 when every check holds; otherwise prints the failed check and exits 1. */
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* buf[i] = buf[i] * 3 + k: the result depends on the order of the launches. */
static const char *PTX =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry step(.param .u64 buf, .param .u32 n, .param .u32 k)\n{\n"
    " .reg .pred %p<2>; .reg .b32 %r<9>; .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [buf]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [k];\n"
    " mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
    " mad.lo.s32 %r6, %r3, %r4, %r5; setp.ge.u32 %p1, %r6, %r1; @%p1 bra DONE;\n"
    " mul.wide.u32 %rd2, %r6, 4; add.s64 %rd3, %rd1, %rd2;\n"
    " ld.global.u32 %r7, [%rd3]; mad.lo.u32 %r8, %r7, 3, %r2; st.global.u32 [%rd3], %r8;\n"
    "DONE:\n ret;\n}\n";

enum { N = 4096, BLOCK = 128, ROUNDS = 40, CONCURRENT = 4, LATER = 6 };

static CUcontext ctx;
static CUfunction step;

struct worker {
    int index;
    unsigned long long stream_id;
    uint32_t host[N];
};

static void launch(CUdeviceptr buf, uint32_t k, CUstream s) {
    uint32_t n = N;
    void *params[] = {&buf, &n, &k};
    CHECK(cuLaunchKernel(step, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, s, params, NULL));
}

/* What the device's values must be after one more step. */
static uint32_t after(uint32_t v, uint32_t k) { return v * 3u + k; }

static void check_all(const uint32_t *host, uint32_t want, const char *what, int index) {
    for (int i = 0; i < N; i++) {
        if (host[i] != want) {
            fprintf(stderr, "thread %d, %s: [%d] = %u, expected %u\n", index, what, i, host[i],
                    want);
            failures++;
            return;
        }
    }
}

static void mark(void *flag) { *(volatile int *)flag = 1; }

static void *work(void *arg) {
    struct worker *w = arg;
    CHECK(cuCtxSetCurrent(ctx));

    /* NULL is this thread's stream: the same id every time, and CU_STREAM_PER_THREAD's. */
    unsigned long long id = 0, again = 0, named = 0, legacy = 0;
    CHECK(cuStreamGetId(NULL, &id));
    CHECK(cuStreamGetId(NULL, &again));
    CHECK(cuStreamGetId(CU_STREAM_PER_THREAD, &named));
    CHECK(cuStreamGetId(CU_STREAM_LEGACY, &legacy));
    ASSERT(id != 0 && id == again && id == named && id != legacy);
    w->stream_id = id;

    CUdeviceptr buf;
    CHECK(cuMemAlloc(&buf, N * sizeof(uint32_t)));
    uint32_t v = (uint32_t)w->index + 1;
    CHECK(cuMemsetD32Async(buf, v, N, NULL));
    for (uint32_t k = 0; k < ROUNDS; k++) {
        launch(buf, k, NULL);
        v = after(v, k);
    }
    CHECK(cuMemcpyDtoHAsync(w->host, buf, sizeof w->host, NULL));
    CHECK(cuStreamSynchronize(NULL));
    check_all(w->host, v, "a chain on the per-thread stream", w->index);

    /* The legacy stream waits for this thread's stream, and this thread's stream waits for
     * the legacy stream: both orders give the order of issue. */
    launch(buf, 1000, NULL);
    launch(buf, 2000, CU_STREAM_LEGACY);
    v = after(after(v, 1000), 2000);
    CHECK(cuStreamSynchronize(CU_STREAM_LEGACY));
    CHECK(cuMemcpyDtoH(w->host, buf, sizeof w->host));
    check_all(w->host, v, "per-thread, then legacy", w->index);
    launch(buf, 3000, CU_STREAM_LEGACY);
    launch(buf, 4000, NULL);
    v = after(after(v, 3000), 4000);
    CHECK(cuStreamSynchronize(NULL));
    CHECK(cuMemcpyDtoH(w->host, buf, sizeof w->host));
    check_all(w->host, v, "legacy, then per-thread", w->index);

    /* cuLaunchKernelEx with a NULL stream in its configuration, an event and a host
     * function on this thread's stream. */
    uint32_t n = N, k = 5000;
    void *params[] = {&buf, &n, &k};
    CUlaunchConfig config;
    memset(&config, 0, sizeof config);
    config.gridDimX = N / BLOCK;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = BLOCK;
    config.blockDimY = config.blockDimZ = 1;
    CHECK(cuLaunchKernelEx(&config, step, params, NULL));
    v = after(v, 5000);
    CUevent done;
    CHECK(cuEventCreate(&done, CU_EVENT_DEFAULT));
    CHECK(cuEventRecord(done, NULL));
    volatile int ran = 0;
    CHECK(cuLaunchHostFunc(NULL, mark, (void *)&ran));
    CHECK(cuEventSynchronize(done));
    CHECK(cuEventQuery(done));
    CHECK(cuStreamQuery(NULL));
    ASSERT(ran == 1);
    CHECK(cuMemcpyDtoH(w->host, buf, sizeof w->host));
    check_all(w->host, v, "cuLaunchKernelEx on the per-thread stream", w->index);

    /* An untimed event on this thread's stream orders a non-blocking stream after it. */
    CUevent marker;
    CUstream other;
    CHECK(cuEventCreate(&marker, CU_EVENT_DISABLE_TIMING));
    CHECK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    launch(buf, 6000, NULL);
    CHECK(cuEventRecord(marker, NULL));
    CHECK(cuStreamWaitEvent(other, marker, 0));
    launch(buf, 7000, other);
    v = after(after(v, 6000), 7000);
    CHECK(cuStreamSynchronize(other));
    CHECK(cuEventQuery(marker));
    float ms = 0.0f;
    EXPECT(cuEventElapsedTime(&ms, done, marker), CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuMemcpyDtoH(w->host, buf, sizeof w->host));
    check_all(w->host, v, "a non-blocking stream after an untimed event", w->index);

    CHECK(cuStreamDestroy(other));
    CHECK(cuEventDestroy(marker));
    CHECK(cuEventDestroy(done));
    CHECK(cuMemFree(buf));
    return NULL;
}

int main(void) {
    CUdevice dev;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule module;
    CHECK(cuModuleLoadData(&module, PTX));
    CHECK(cuModuleGetFunction(&step, module, "step"));

    /* cuda.h's cuLaunchKernel is cuLaunchKernel_ptsz here; the driver hands out the same
     * entry for the per-thread flavour. */
    void *pfn = NULL;
    CUdriverProcAddressQueryResult found;
    CHECK(cuGetProcAddress("cuLaunchKernel", &pfn, 12000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found));
    ASSERT(pfn == (void *)cuLaunchKernel);

    static struct worker workers[CONCURRENT + LATER];
    pthread_t threads[CONCURRENT];
    for (int t = 0; t < CONCURRENT; t++) {
        workers[t].index = t;
        ASSERT(pthread_create(&threads[t], NULL, work, &workers[t]) == 0);
    }
    for (int t = 0; t < CONCURRENT; t++) {
        ASSERT(pthread_join(threads[t], NULL) == 0);
    }
    /* Threads one after another: each gets a stream of its own as the last one's goes. */
    for (int t = CONCURRENT; t < CONCURRENT + LATER; t++) {
        pthread_t one;
        workers[t].index = t;
        ASSERT(pthread_create(&one, NULL, work, &workers[t]) == 0);
        ASSERT(pthread_join(one, NULL) == 0);
    }
    unsigned long long mine = 0;
    CHECK(cuStreamGetId(NULL, &mine));
    for (int a = 0; a < CONCURRENT + LATER; a++) {
        ASSERT(workers[a].stream_id != mine);
        for (int b = a + 1; b < CONCURRENT + LATER; b++) {
            ASSERT(workers[a].stream_id != workers[b].stream_id);
        }
    }

    CHECK(cuCtxSynchronize());
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    if (failures) {
        fprintf(stderr, "%d checks failed\n", (int)failures);
        return 1;
    }
    printf("per_thread: ok\n");
    return 0;
}
