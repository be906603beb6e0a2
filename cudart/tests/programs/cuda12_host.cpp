// A host program of CUDA 12 (built by the host compiler against CUDA 12's cuda_runtime_api.h
// and NVIDIA's libcudart.so.12, so it needs that soname and its symbol version): the CUDA 12
// layout of cudaDeviceProp, fields CUDA 13 dropped included, agrees with the attributes, and
// memory round-trips.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime_api.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorName(e_));      \
            return 2;                                                                  \
        }                                                                              \
    } while (0)

#define EXPECT(cond)                                                 \
    do {                                                             \
        if (!(cond)) {                                               \
            std::fprintf(stderr, "expected %s\n", #cond);            \
            return 1;                                                \
        }                                                            \
    } while (0)

static int attr(cudaDeviceAttr a) {
    int v = -1;
    return cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess ? v : -1;
}

int main() {
    EXPECT(CUDART_VERSION / 1000 == 12);
    cudaDeviceProp p;
    std::memset(&p, 0xab, sizeof(p));
    CHECK(cudaGetDeviceProperties(&p, 0));
    EXPECT(std::strlen(p.name) > 0);
    EXPECT(p.clockRate == attr(cudaDevAttrClockRate));
    EXPECT(p.computeMode == attr(cudaDevAttrComputeMode));
    EXPECT(p.maxTexture1DLinear == attr(cudaDevAttrMaxTexture1DLinearWidth));
    EXPECT(p.memoryClockRate == attr(cudaDevAttrMemoryClockRate));
    EXPECT(p.major == attr(cudaDevAttrComputeCapabilityMajor));
    EXPECT(p.multiProcessorCount == attr(cudaDevAttrMultiProcessorCount));
    EXPECT(p.maxBlocksPerMultiProcessor == attr(cudaDevAttrMaxBlocksPerMultiprocessor));
    EXPECT(p.warpSize == 32);
    for (int i = 0; i < (int)(sizeof(p.reserved) / sizeof(int)); i++) EXPECT(p.reserved[i] == 0);
    int h[64], back[64];
    for (int i = 0; i < 64; i++) h[i] = i * i;
    int* d;
    CHECK(cudaMalloc((void**)&d, sizeof(h)));
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d, 0, 16 * sizeof(int)));
    CHECK(cudaMemcpy(back, d, sizeof(back), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) EXPECT(back[i] == (i < 16 ? 0 : i * i));
    CHECK(cudaFree(d));
    std::printf("cuda12_host: %s ok\n", p.name);
    return 0;
}
