// Matrix transpose through a padded shared-memory tile (32x33), with 32x8 thread blocks
// each moving four rows.
#include "check.h"
#include <vector>

constexpr int TILE = 32, ROWS = 8;

__global__ void transpose(const int* in, int* out, int w, int h) {
    __shared__ int tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    const int w = 100, h = 67;
    std::vector<int> a(w * h), t(w * h);
    for (int i = 0; i < w * h; i++) a[i] = i * 7 - 3;
    int *din, *dout;
    CHECK(cudaMalloc(&din, a.size() * 4));
    CHECK(cudaMalloc(&dout, a.size() * 4));
    CHECK(cudaMemcpy(din, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    transpose<<<dim3((w + TILE - 1) / TILE, (h + TILE - 1) / TILE), dim3(TILE, ROWS)>>>(din, dout, w, h);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(t.data(), dout, t.size() * 4, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) EXPECT(t[x * h + y] == a[y * w + x], "(%d, %d)", x, y);
    std::printf("transpose: %dx%d ok\n", w, h);
    return 0;
}
