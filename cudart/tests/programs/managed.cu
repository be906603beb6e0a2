// Managed memory: cudaMallocManaged written and read by host and device in turn, and a
// __managed__ variable.
#include "check.h"

__managed__ int total;

__global__ void bump(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * 2 + 1;
        atomicAdd(&total, data[i]);
    }
}

int main() {
    const int n = 4096;
    int* data;
    CHECK(cudaMallocManaged(&data, n * sizeof(int)));
    for (int i = 0; i < n; i++) data[i] = i;
    total = 0;
    bump<<<n / 128, 128>>>(data, n);
    CHECK_LAUNCH();
    long long want = 0;
    for (int i = 0; i < n; i++) {
        EXPECT(data[i] == 2 * i + 1, "data[%d] = %d", i, data[i]);
        want += 2 * i + 1;
    }
    EXPECT(total == want, "total %d, want %lld", total, want);
    CHECK(cudaFree(data));
    std::printf("managed: ok\n");
    return 0;
}
