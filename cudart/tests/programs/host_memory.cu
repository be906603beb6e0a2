// Page-locked host memory: mapped memory a kernel writes through its device pointer, the
// program's own memory registered and mapped, pointer attributes of each kind of memory, async
// copies to and from pinned buffers, and cudaMemcpyDefault telling the directions apart by
// address.
#include "check.h"
#include <cstdlib>
#include <cstring>

__global__ void fill(int* out, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + i * i;
}

int main() {
    const int n = 5000;
    int* mapped;
    CHECK(cudaHostAlloc(&mapped, n * sizeof(int), cudaHostAllocMapped));
    int* mapped_dev;
    CHECK(cudaHostGetDevicePointer((void**)&mapped_dev, mapped, 0));
    fill<<<(n + 255) / 256, 256>>>(mapped_dev, n, 7);
    CHECK_LAUNCH();
    for (int i = 0; i < n; i++) EXPECT(mapped[i] == 7 + i * i, "mapped[%d] = %d", i, mapped[i]);

    // The program's own memory, registered and mapped: the kernel writes it in place. The
    // range starts inside a page, as nothing obliges a program to align it.
    char* block = (char*)std::malloc(n * sizeof(int) + 64);
    int* mine = (int*)(block + 20);
    std::memset(mine, 0, n * sizeof(int));
    CHECK(cudaHostRegister(mine, n * sizeof(int), cudaHostRegisterMapped));
    EXPECT(cudaHostRegister(mine + 10, 64, cudaHostRegisterMapped) == cudaErrorHostMemoryAlreadyRegistered,
           "a second registration of the same memory");
    (void)cudaGetLastError();
    int* mine_dev;
    CHECK(cudaHostGetDevicePointer((void**)&mine_dev, mine, 0));
    fill<<<(n + 255) / 256, 256>>>(mine_dev, n, 11);
    CHECK_LAUNCH();
    for (int i = 0; i < n; i++) EXPECT(mine[i] == 11 + i * i, "mine[%d] = %d", i, mine[i]);
    CHECK(cudaHostUnregister(mine));
    EXPECT(cudaHostUnregister(mine) == cudaErrorHostMemoryNotRegistered, "a second unregistration");
    (void)cudaGetLastError();
    std::free(block);

    int *dev, *pinned;
    CHECK(cudaMalloc(&dev, n * sizeof(int)));
    CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, dev));
    EXPECT(a.type == cudaMemoryTypeDevice, "device memory type %d", (int)a.type);
    CHECK(cudaPointerGetAttributes(&a, pinned));
    EXPECT(a.type == cudaMemoryTypeHost, "pinned memory type %d", (int)a.type);
    int plain[4];
    CHECK(cudaPointerGetAttributes(&a, plain));
    EXPECT(a.type == cudaMemoryTypeUnregistered, "pageable memory type %d", (int)a.type);

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    fill<<<(n + 255) / 256, 256, 0, s>>>(dev, n, -3);
    CHECK(cudaMemcpyAsync(pinned, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) EXPECT(pinned[i] == -3 + i * i, "pinned[%d] = %d", i, pinned[i]);
    for (int i = 0; i < n; i++) pinned[i] = 2 * i;
    CHECK(cudaMemcpy(dev, pinned, n * sizeof(int), cudaMemcpyDefault));
    std::memset(pinned, 0, n * sizeof(int));
    CHECK(cudaMemcpy(pinned, dev, n * sizeof(int), cudaMemcpyDefault));
    for (int i = 0; i < n; i++) EXPECT(pinned[i] == 2 * i, "round trip [%d] = %d", i, pinned[i]);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(mapped));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(dev));
    std::printf("host_memory: ok\n");
    return 0;
}
