// Device queries: the cudaDeviceProp fields agree with cudaDeviceGetAttribute (which the
// struct's layout must get right for fields at its start, middle and end), versions, the
// error API on a bad device and a bad launch, and cudaDeviceReset, which destroys every
// allocation and the modules' state.
#include "check.h"
#include <cstring>

__global__ void noop() {}

__device__ int counter = 7;

__global__ void bump(int* out) { out[0] = ++counter; }

// Launches bump once into a fresh allocation and returns what it wrote; the allocation's
// other bytes are filled first through cudaMemsetAsync and must keep the fill.
static int bump_once(int** kept) {
    int* buf = nullptr;
    CHECK(cudaMalloc(&buf, 4 * sizeof(int)));
    CHECK(cudaMemsetAsync(buf, 0x5a, 4 * sizeof(int), 0));
    bump<<<1, 1>>>(buf);
    CHECK_LAUNCH();
    int got[4] = {};
    CHECK(cudaMemcpy(got, buf, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 1; i < 4; i++) EXPECT(got[i] == 0x5a5a5a5a, "fill %d: %#x", i, got[i]);
    *kept = buf;
    return got[0];
}

static int attr(cudaDeviceAttr a, int dev) {
    int v = -1;
    CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count >= 1, "%d devices", count);
    CHECK(cudaSetDevice(0));
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    EXPECT(dev == 0, "device %d", dev);
    cudaDeviceProp p;
    std::memset(&p, 0xab, sizeof(p));
    CHECK(cudaGetDeviceProperties(&p, 0));
    EXPECT(std::strlen(p.name) > 0 && std::strlen(p.name) < sizeof(p.name), "a name");
    EXPECT(p.major == attr(cudaDevAttrComputeCapabilityMajor, 0), "major %d", p.major);
    EXPECT(p.minor == attr(cudaDevAttrComputeCapabilityMinor, 0), "minor %d", p.minor);
    EXPECT(p.warpSize == 32, "warp size %d", p.warpSize);
    EXPECT(p.maxThreadsPerBlock == attr(cudaDevAttrMaxThreadsPerBlock, 0), "threads %d", p.maxThreadsPerBlock);
    EXPECT(p.maxThreadsDim[2] == attr(cudaDevAttrMaxBlockDimZ, 0), "block z %d", p.maxThreadsDim[2]);
    EXPECT(p.maxGridSize[0] == attr(cudaDevAttrMaxGridDimX, 0), "grid x %d", p.maxGridSize[0]);
    EXPECT(p.sharedMemPerBlock == (size_t)attr(cudaDevAttrMaxSharedMemoryPerBlock, 0), "shared %zu", p.sharedMemPerBlock);
    EXPECT(p.multiProcessorCount == attr(cudaDevAttrMultiProcessorCount, 0), "SMs %d", p.multiProcessorCount);
    EXPECT(p.l2CacheSize == attr(cudaDevAttrL2CacheSize, 0), "L2 %d", p.l2CacheSize);
    EXPECT(p.sharedMemPerMultiprocessor == (size_t)attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0), "shared/SM");
    EXPECT(p.maxBlocksPerMultiProcessor == attr(cudaDevAttrMaxBlocksPerMultiprocessor, 0), "blocks/SM %d", p.maxBlocksPerMultiProcessor);
    EXPECT(p.unifiedAddressing == attr(cudaDevAttrUnifiedAddressing, 0), "UVA");
    EXPECT(p.managedMemory == attr(cudaDevAttrManagedMemory, 0), "managed");
    EXPECT(p.clusterLaunch == attr(cudaDevAttrClusterLaunch, 0), "cluster launch %d", p.clusterLaunch);
    for (int i = 0; i < (int)(sizeof(p.reserved) / sizeof(int)); i++) EXPECT(p.reserved[i] == 0, "reserved[%d]", i);
    size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    EXPECT(total_b == p.totalGlobalMem && free_b <= total_b, "memory %zu of %zu (%zu)", free_b, total_b, p.totalGlobalMem);
    int rt = 0, drv = 0;
    CHECK(cudaRuntimeGetVersion(&rt));
    CHECK(cudaDriverGetVersion(&drv));
    EXPECT(rt >= 12000 && drv >= 12000, "versions %d %d", rt, drv);

    EXPECT(cudaSetDevice(count) == cudaErrorInvalidDevice, "an invalid device is refused");
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice, "and is the last error");
    EXPECT(cudaGetLastError() == cudaSuccess, "which reading reset");
    noop<<<1, 0>>>();
    EXPECT(cudaPeekAtLastError() == cudaErrorInvalidConfiguration, "a launch of zero threads is refused");
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration, "peek does not reset");
    EXPECT(std::strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration), "cudaErrorInvalidConfiguration") == 0, "name");
    EXPECT(std::strlen(cudaGetErrorString(cudaErrorMemoryAllocation)) > 0, "a description");
    noop<<<1, 1>>>();
    CHECK_LAUNCH();

    // After a reset the device is as new: the old pointer is refused, limits are back at
    // their defaults, and kernels launch from modules loaded again (C++ semantics of the
    // initialised __device__ variable: it starts at 7 in each new module).
    int* before = nullptr;
    EXPECT(bump_once(&before) == 8, "the first increment");
    EXPECT(bump_once(&before) == 9, "the second increment");
    size_t heap = 0, free0 = 0, free1 = 0, free2 = 0;
    CHECK(cudaMemGetInfo(&free0, &total_b));
    const size_t big = 64u << 20;
    void* held = nullptr;
    CHECK(cudaMalloc(&held, big));
    CHECK(cudaMemGetInfo(&free1, &total_b));
    EXPECT(free1 + big <= free0, "free memory %zu, then %zu with %zu more allocated", free0, free1, big);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16u << 20));
    CHECK(cudaDeviceReset());
    CHECK(cudaMemGetInfo(&free2, &total_b));
    EXPECT(free2 >= free1 + big, "free memory %zu after the reset, %zu before", free2, free1);
    EXPECT(cudaFree(before) == cudaErrorInvalidValue, "a pointer from before the reset is refused");
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "and is the last error");
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == (8u << 20), "heap limit %zu after the reset", heap);
    int* after = nullptr;
    int again = bump_once(&after);
    EXPECT(again == 8, "the variable starts again from its initial value: %d", again);
    CHECK(cudaFree(after));

    std::printf("device_props: %s, compute %d.%d, %d SMs ok\n", p.name, p.major, p.minor, p.multiProcessorCount);
    return 0;
}
