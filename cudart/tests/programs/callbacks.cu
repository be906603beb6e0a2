// Host work ordered in streams: cudaLaunchHostFunc and cudaStreamAddCallback run after the
// kernels before them and see their results.
#include "check.h"
#include <atomic>

struct Seen {
    const int* host;
    int value;
    std::atomic<int> calls{0};
};

__global__ void set(int* p, int v) { *p = v; }

static void CUDART_CB host_fn(void* arg) {
    Seen* s = static_cast<Seen*>(arg);
    s->value = *s->host;
    s->calls++;
}

static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void* arg) {
    Seen* s = static_cast<Seen*>(arg);
    s->value = status == cudaSuccess ? *s->host : -1;
    s->calls++;
}

int main() {
    int* mapped;
    CHECK(cudaHostAlloc(&mapped, sizeof(int), cudaHostAllocMapped));
    *mapped = 0;
    int* dev;
    CHECK(cudaHostGetDevicePointer((void**)&dev, mapped, 0));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    Seen a{mapped, 0}, b{mapped, 0};
    set<<<1, 1, 0, s>>>(dev, 41);
    CHECK(cudaLaunchHostFunc(s, host_fn, &a));
    set<<<1, 1, 0, s>>>(dev, 42);
    CHECK(cudaStreamAddCallback(s, stream_cb, &b, 0));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(a.calls == 1 && a.value == 41, "host function saw %d (%d calls)", a.value, a.calls.load());
    EXPECT(b.calls == 1 && b.value == 42, "callback saw %d (%d calls)", b.value, b.calls.load());
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(mapped));
    std::printf("callbacks: ok\n");
    return 0;
}
