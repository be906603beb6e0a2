// c = a + b over a size that is not a multiple of the block, with a grid-stride loop.
#include "check.h"
#include <vector>

__global__ void add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

int main() {
    const int n = 100003;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) {
        a[i] = 0.5f * i;
        b[i] = 3.0f - i;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    add<<<64, 256>>>(da, db, dc, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(c[i] == a[i] + b[i], "c[%d] = %f", i, c[i]);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("vector_add: %d elements ok\n", n);
    return 0;
}
