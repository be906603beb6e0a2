// sm_90's tensor memory accelerator as CUDA C++ programs use it: the host encodes a tensor map
// with the driver API's cuTensorMapEncodeTiled, the kernel takes it as a __grid_constant__
// parameter and copies boxes into shared memory with cp.async.bulk.tensor, waiting on an
// mbarrier whose transaction the copy completes. Each block copies one box, shifted so that
// the boxes of the first row and column hang over the tensor's edges; the host checks every
// element (zero outside the tensor). Built for compute_90 only.
#include "check.h"
#include <cstdint>
#include <cuda.h>

constexpr int COLS = 100, ROWS = 37, BW = 32, BH = 8, SHIFT_X = 3, SHIFT_Y = 2;

__global__ void boxes(const __grid_constant__ CUtensorMap map, float* out) {
    __shared__ alignas(128) float tile[BH][BW];
    __shared__ alignas(8) uint64_t bar;
    int x = blockIdx.x * BW - SHIFT_X, y = blockIdx.y * BH - SHIFT_Y;
    uint32_t sbar = (uint32_t)__cvta_generic_to_shared(&bar);
    uint32_t stile = (uint32_t)__cvta_generic_to_shared(&tile[0][0]);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t state;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                     : "=l"(state)
                     : "r"(sbar), "r"((uint32_t)sizeof(tile)));
        (void)state;
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];" ::"r"(stile),
            "l"(&map), "r"(x), "r"(y), "r"(sbar)
            : "memory");
    }
    asm volatile(
        "{\n .reg .pred p;\n"
        "WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        " @!p bra WAIT_%=;\n}" ::"r"(sbar)
        : "memory");
    int block = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = threadIdx.x; i < BW * BH; i += blockDim.x)
        out[block * BW * BH + i] = tile[i / BW][i % BW];
}

int main() {
    const int bx = (COLS + SHIFT_X + BW - 1) / BW, by = (ROWS + SHIFT_Y + BH - 1) / BH;
    static float host[ROWS][COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) host[r][c] = r * 1000.0f + c + 0.25f;
    float *tensor, *out;
    CHECK(cudaMalloc(&tensor, sizeof host));
    CHECK(cudaMemcpy(tensor, host, sizeof host, cudaMemcpyHostToDevice));
    const size_t n = (size_t)bx * by * BW * BH;
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(out, 0xff, n * sizeof(float)));
    alignas(64) CUtensorMap map;
    const cuuint64_t dims[2] = {COLS, ROWS};
    const cuuint64_t strides[1] = {COLS * sizeof(float)};
    const cuuint32_t box[2] = {BW, BH}, elem[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims,
                                        strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    EXPECT(r == CUDA_SUCCESS, "cuTensorMapEncodeTiled returned %d", (int)r);
    boxes<<<dim3(bx, by), 128>>>(map, out);
    CHECK_LAUNCH();
    float* got = new float[n];
    CHECK(cudaMemcpy(got, out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < bx * by; b++)
        for (int i = 0; i < BW * BH; i++) {
            int x = (b % bx) * BW - SHIFT_X + i % BW, y = (b / bx) * BH - SHIFT_Y + i / BW;
            float want = x >= 0 && x < COLS && y >= 0 && y < ROWS ? host[y][x] : 0.0f;
            EXPECT(got[b * BW * BH + i] == want, "box %d element %d = %g, expected %g", b, i,
                   got[b * BW * BH + i], want);
        }
    delete[] got;
    CHECK(cudaFree(out));
    CHECK(cudaFree(tensor));
    std::printf("tma_copy: ok\n");
    return 0;
}
