// Work split over two streams with async copies from pinned memory, an event ordering one
// stream after the other, timing events, and queries.
#include "check.h"

__global__ void scale(float* x, float f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

__global__ void add_from(float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i];
}

int main() {
    const int n = 1 << 16;
    float *h, *da, *db;
    CHECK(cudaMallocHost(&h, n * 4));
    for (int i = 0; i < n; i++) h[i] = float(i % 100);
    CHECK(cudaMalloc(&da, n * 4));
    CHECK(cudaMalloc(&db, n * 4));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t start, stop, b_ready;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventCreateWithFlags(&b_ready, cudaEventDisableTiming));

    CHECK(cudaEventRecord(start, s1));
    CHECK(cudaMemcpyAsync(da, h, n * 4, cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(db, h, n * 4, cudaMemcpyHostToDevice, s2));
    scale<<<n / 256, 256, 0, s1>>>(da, 2.0f, n);
    scale<<<n / 256, 256, 0, s2>>>(db, 3.0f, n);
    CHECK(cudaEventRecord(b_ready, s2));
    CHECK(cudaStreamWaitEvent(s1, b_ready, 0));
    add_from<<<n / 256, 256, 0, s1>>>(da, db, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, s1));
    float* out;
    CHECK(cudaHostAlloc(&out, n * 4, cudaHostAllocDefault));
    CHECK(cudaMemcpyAsync(out, da, n * 4, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaEventSynchronize(stop));
    EXPECT(cudaStreamQuery(s1) == cudaSuccess, "stream 1 idle after its synchronize");
    EXPECT(cudaEventQuery(stop) == cudaSuccess, "stop event complete");
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f, "elapsed %f ms", ms);
    for (int i = 0; i < n; i++) EXPECT(out[i] == 5.0f * h[i], "out[%d] = %f", i, out[i]);
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(b_ready));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFreeHost(out));
    std::printf("streams_events: ok (%.3f ms)\n", ms);
    return 0;
}
