// Built with --default-stream per-thread: each host thread's default stream is its own
// (the runtime's _ptds/_ptsz entry points). Two threads fill, launch, copy and record events
// on their default streams at once, each checking its own results.
#include "check.h"
#include <thread>
#include <vector>

__constant__ int offset;

__global__ void iota_plus(int* out, int base, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += base + i + offset;
}

static void work(int base, int* failures) {
    const int n = 3000;
    int* d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMemset(d, 0, n * sizeof(int)));
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    iota_plus<<<(n + 255) / 256, 256>>>(d, base, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(done, 0));
    CHECK(cudaEventSynchronize(done));
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < n; i++)
        if (h[i] != base + i + 5) {
            std::fprintf(stderr, "thread base %d: [%d] = %d\n", base, i, h[i]);
            (*failures)++;
            break;
        }
    CHECK(cudaMemcpy(h.data(), d, sizeof(int), cudaMemcpyDeviceToHost));
    if (h[0] != base + 5) (*failures)++;
    CHECK(cudaEventDestroy(done));
    CHECK(cudaFree(d));
}

int main() {
    int five = 5;
    CHECK(cudaMemcpyToSymbol(offset, &five, sizeof(int)));
    int failures[2] = {0, 0};
    std::thread a(work, 1000, &failures[0]), b(work, -7, &failures[1]);
    a.join();
    b.join();
    EXPECT(failures[0] == 0 && failures[1] == 0, "failures %d %d", failures[0], failures[1]);
    std::printf("per_thread_stream: ok\n");
    return 0;
}
