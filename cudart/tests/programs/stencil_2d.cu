// A 5-point Jacobi stencil on a 2D grid for several iterations, ping-ponging two buffers,
// checked against the same iterations on the host (exact: sums of small integers / 4 are
// kept in double).
#include "check.h"
#include <vector>

__global__ void jacobi(const double* in, double* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[y * w + x] = in[y * w + x];
        return;
    }
    out[y * w + x] = 0.25 * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
}

int main() {
    const int w = 48, h = 40, iters = 10;
    std::vector<double> a(w * h, 0.0);
    for (int x = 0; x < w; x++) a[x] = 100.0;
    for (int y = 0; y < h; y++) a[y * w] = 50.0;
    double *d0, *d1;
    CHECK(cudaMalloc(&d0, a.size() * 8));
    CHECK(cudaMalloc(&d1, a.size() * 8));
    CHECK(cudaMemcpy(d0, a.data(), a.size() * 8, cudaMemcpyHostToDevice));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    for (int i = 0; i < iters; i++) {
        jacobi<<<grid, block>>>(d0, d1, w, h);
        std::swap(d0, d1);
    }
    CHECK_LAUNCH();
    std::vector<double> got(w * h), b(w * h);
    CHECK(cudaMemcpy(got.data(), d0, got.size() * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < iters; i++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                b[y * w + x] = (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                                   ? a[y * w + x]
                                   : 0.25 * (a[y * w + x - 1] + a[y * w + x + 1] + a[(y - 1) * w + x] + a[(y + 1) * w + x]);
        std::swap(a, b);
    }
    for (int i = 0; i < w * h; i++) EXPECT(got[i] == a[i], "cell %d = %.17g, want %.17g", i, got[i], a[i]);
    std::printf("stencil_2d: %d iterations ok\n", iters);
    return 0;
}
