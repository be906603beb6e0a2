// Separate compilation (-rdc=true): the kernel here calls a __device__ function and reads a
// __device__ variable defined in another translation unit (rdc/ops.cu).
#include "../check.h"

extern __device__ int scale_by;
extern __device__ int combine(int a, int b);

__global__ void apply(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = combine(a[i], b[i]) * scale_by;
}

void launch_other(int* out, int n);

int main() {
    const int n = 777;
    int ha[n], hb[n], got[n];
    for (int i = 0; i < n; i++) {
        ha[i] = i;
        hb[i] = 3 * i - 100;
    }
    int *a, *b, *out;
    CHECK(cudaMalloc(&a, sizeof(ha)));
    CHECK(cudaMalloc(&b, sizeof(hb)));
    CHECK(cudaMalloc(&out, sizeof(got)));
    CHECK(cudaMemcpy(a, ha, sizeof(ha), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, sizeof(hb), cudaMemcpyHostToDevice));
    int three = 3;
    CHECK(cudaMemcpyToSymbol(scale_by, &three, sizeof(int)));
    apply<<<(n + 127) / 128, 128>>>(a, b, out, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == (ha[i] * 2 + hb[i]) * 3, "out[%d] = %d", i, got[i]);
    launch_other(out, n);
    CHECK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == i * 3, "other[%d] = %d", i, got[i]);
    std::printf("rdc: ok\n");
    return 0;
}
