// Device printf: every thread prints a line of several conversions, and the host prints the
// line each thread should have printed with its own printf. The test compares the two sets
// of lines (their order among threads is the device's) and that the device's come out by the
// synchronisation that ends the launch, before what the host prints after it. `relay`'s
// formats are not constants the compiler sees: one is read from a __device__ pointer, the
// other chosen per thread, and its %s argument is in memory the host filled.
#include "check.h"

__device__ const char* names[] = {"zero", "one", "two", "three"};

__global__ void speak(int* counts, double scale, long long big) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n = printf("dev t=%d x=%x o=%o big=%lld u=%u f=%.3f e=%e g=%g w=[%6d] l=[%-4d] s=%s c=%c p=%5.1f%%\n",
                   t, t * 4099, t, big + t, 4000000000u - t, scale * t, scale / (t + 1),
                   scale * t * 1000, -t, t, names[t % 4], 'a' + t % 26, 12.25 * t);
    counts[t] = n;
    if (t == 0) printf("dev no arguments\n");
}

__device__ const char* relay_fmt = "dev relay t=%d s=%s v=%.2f\n";

__global__ void relay(const char* label, const char* odd_fmt) {
    int t = threadIdx.x;
    const char* fmt = (t & 1) ? odd_fmt : relay_fmt;
    printf(fmt, t, label, t * 0.5);
}

__global__ void odd_format(const char** out) { *out = "dev odd t=%d s=%s v=%.1f\n"; }

int main() {
    size_t fifo = 0;
    CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    EXPECT(fifo == (1 << 20), "the printf FIFO's default size is %zu", fifo);
    CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20));
    CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    EXPECT(fifo == (2 << 20), "the printf FIFO's size reads back as %zu", fifo);

    const int blocks = 2, threads = 48, n = blocks * threads;
    const double scale = 0.375;
    const long long big = 1LL << 40;
    const char* host_names[] = {"zero", "one", "two", "three"};
    for (int t = 0; t < n; t++)
        std::printf("host t=%d x=%x o=%o big=%lld u=%u f=%.3f e=%e g=%g w=[%6d] l=[%-4d] s=%s c=%c p=%5.1f%%\n",
                    t, t * 4099, t, big + t, 4000000000u - t, scale * t, scale / (t + 1),
                    scale * t * 1000, -t, t, host_names[t % 4], 'a' + t % 26, 12.25 * t);
    std::printf("host no arguments\n");
    const int relays = 8;
    for (int t = 0; t < relays; t++)
        std::printf((t & 1) ? "host odd t=%d s=%s v=%.1f\n" : "host relay t=%d s=%s v=%.2f\n",
                    t, "a global label", t * 0.5);
    std::fflush(stdout);

    int* counts;
    CHECK(cudaMalloc(&counts, n * sizeof(int)));
    speak<<<blocks, threads>>>(counts, scale, big);
    CHECK_LAUNCH();
    const char label[] = "a global label";
    char* dlabel;
    const char** dfmt;
    CHECK(cudaMalloc(&dlabel, sizeof label));
    CHECK(cudaMalloc(&dfmt, sizeof(const char*)));
    CHECK(cudaMemcpy(dlabel, label, sizeof label, cudaMemcpyHostToDevice));
    odd_format<<<1, 1>>>(dfmt);
    CHECK_LAUNCH();
    const char* odd = nullptr;
    CHECK(cudaMemcpy(&odd, dfmt, sizeof odd, cudaMemcpyDeviceToHost));
    relay<<<1, relays>>>(dlabel, odd);
    CHECK_LAUNCH();
    CHECK(cudaFree(dlabel));
    CHECK(cudaFree(dfmt));
    std::printf("after the synchronisation\n");
    int h[n];
    CHECK(cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost));
    // CUDA's printf returns the number of arguments it was given.
    for (int t = 0; t < n; t++) EXPECT(h[t] == 13, "printf returned %d in thread %d", h[t], t);
    CHECK(cudaFree(counts));
    return 0;
}
