// The other translation unit of rdc/main.cu: a device function, a device variable, and a
// kernel of its own launched from host code here.
#include "../check.h"

__device__ int scale_by = 1;

__device__ int combine(int a, int b) { return a * 2 + b; }

__global__ void index_times_scale(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * scale_by;
}

void launch_other(int* out, int n) {
    index_times_scale<<<(n + 127) / 128, 128>>>(out, n);
    CHECK_LAUNCH();
}
