/* Tensor maps through the driver API, as sm_90 programs use them: cuTensorMapEncodeTiled
 * fills a CUtensorMap that a kernel receives as a __grid_constant__ parameter and reads with
 * cp.async.bulk.tensor, completing an mbarrier's transaction; the box it copies (partly
 * outside the tensor, zero- and NaN-filled) is checked against the CPU. The arguments CUDA's
 * documentation rules out return CUDA_ERROR_INVALID_VALUE, and cuTensorMapReplaceAddress
 * moves a map to another tensor.
 * Exits 0 when every check holds; otherwise prints the failed check and exits 1. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* One thread copies a 2D box into shared memory; all wait on the mbarrier, then write the
 * box (W x H floats) and whether the phase completed to `out`. */
static const char *PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry box(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x,"
    " .param .u32 y)\n{\n"
    " .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    " .shared .align 128 .b8 tile[512]; .shared .align 8 .b64 bar;\n"
    " mov.u32 %r1, %tid.x; ld.param.u64 %rd1, [out];\n"
    " ld.param.u32 %r10, [x]; ld.param.u32 %r11, [y];\n"
    " setp.ne.u32 %p1, %r1, 0; @%p1 bra SYNC;\n"
    " mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "SYNC:\n bar.sync 0; @%p1 bra WAIT;\n"
    " mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 128;\n"
    " mov.b64 %rd3, tmap;\n"
    " cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    " [tile], [%rd3, {%r10, %r11}], [bar];\n"
    "WAIT:\n mov.u32 %r3, 0;\n"
    "TRY:\n mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0; @%p2 bra DONE;\n"
    " add.u32 %r3, %r3, 1; setp.lt.u32 %p3, %r3, 1000; @%p3 bra TRY;\n"
    "DONE:\n selp.u32 %r4, 1, 0, %p2;\n"
    " shl.b32 %r5, %r1, 2; mov.u32 %r6, tile; add.u32 %r6, %r6, %r5;\n"
    " ld.shared.u32 %r7, [%r6]; mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd1, %rd4;\n"
    " st.global.u32 [%rd5], %r7;\n"
    " @%p1 bra END; st.global.u32 [%rd1+128], %r4;\n"
    "END:\n ret;\n}\n";

enum { COLS = 10, ROWS = 6, PITCH = 16, W = 8, H = 4 };

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Launches `box` over `map` at (x, y) and checks it against `tensor` (COLS x ROWS floats with
 * rows PITCH floats apart). */
static void run_box(CUfunction f, CUtensorMap *map, const float *tensor, int x, int y,
                    int nan_fill, const char *what) {
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 132));
    CHECK(cuMemsetD8(out, 0xa5, 132));
    void *params[] = {map, &out, &x, &y};
    CHECK(cuLaunchKernel(f, 1, 1, 1, W * H, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    float got[W * H];
    uint32_t done = 0;
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    CHECK(cuMemcpyDtoH(&done, out + 128, 4));
    ASSERT(done == 1);
    uint32_t nan_bits = 0x7fffffffu;
    float nan;
    memcpy(&nan, &nan_bits, 4);
    for (int r = 0; r < H; r++) {
        for (int c = 0; c < W; c++) {
            int gx = x + c, gy = y + r;
            int inside = gx >= 0 && gx < COLS && gy >= 0 && gy < ROWS;
            float want = inside ? tensor[gy * PITCH + gx] : (nan_fill ? nan : 0.0f);
            if (!same_bits(got[r * W + c], want)) {
                fprintf(stderr, "%s at (%d, %d): [%d][%d] = %g, expected %g\n", what, x, y, r,
                        c, got[r * W + c], want);
                failures++;
                return;
            }
        }
    }
    CHECK(cuMemFree(out));
}

static CUresult encode(CUtensorMap *map, CUdeviceptr base, const cuuint64_t *dims,
                       const cuuint64_t *strides, const cuuint32_t *boxes,
                       CUtensorMapFloatOOBfill fill) {
    const cuuint32_t es[2] = {1, 1};
    return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dims,
                                  strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  fill);
}

int main(void) {
    CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CUmodule mod;
    CUfunction f;
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&f, mod, "box"));

    float host[2][ROWS * PITCH];
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < ROWS * PITCH; i++) host[t][i] = (float)(i + 1) * (t ? -0.5f : 1.25f);
    CUdeviceptr tensor[2];
    for (int t = 0; t < 2; t++) {
        CHECK(cuMemAlloc(&tensor[t], sizeof host[t]));
        CHECK(cuMemcpyHtoD(tensor[t], host[t], sizeof host[t]));
    }
    const cuuint64_t dims[2] = {COLS, ROWS};
    const cuuint64_t strides[1] = {PITCH * 4};
    const cuuint32_t boxes[2] = {W, H};
    _Alignas(64) CUtensorMap map;
    CHECK(encode(&map, tensor[0], dims, strides, boxes, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    run_box(f, &map, host[0], 1, 1, 0, "inside");
    run_box(f, &map, host[0], 5, -2, 0, "over the top-right corner");
    CHECK(encode(&map, tensor[0], dims, strides, boxes,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
    run_box(f, &map, host[0], -3, 4, 1, "NaN-filled");
    CHECK(cuTensorMapReplaceAddress(&map, (void *)tensor[1]));
    run_box(f, &map, host[1], 2, 3, 1, "after replacing the address");

    /* What the documentation rules out. */
    const cuuint64_t bad_strides[1] = {PITCH * 4 + 4};
    EXPECT(encode(&map, tensor[0], dims, bad_strides, boxes, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    const cuuint32_t odd_box[2] = {3, H};
    EXPECT(encode(&map, tensor[0], dims, strides, odd_box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    const cuuint32_t big_box[2] = {W, 257};
    EXPECT(encode(&map, tensor[0], dims, strides, big_box, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode(&map, tensor[0] + 4, dims, strides, boxes, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode((CUtensorMap *)((char *)&map + 8), tensor[0], dims, strides, boxes,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    const cuuint32_t es[2] = {1, 1};
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, (void *)tensor[0],
                                  dims, strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 6, (void *)tensor[0],
                                  dims, strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    /* 32 bytes of box row under a 32-byte swizzle is allowed, 64 is not. */
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_SUCCESS);
    const cuuint32_t wide_box[2] = {16, H};
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, wide_box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuTensorMapEncodeTiled(NULL, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);

    for (int t = 0; t < 2; t++) CHECK(cuMemFree(tensor[t]));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    if (failures) {
        fprintf(stderr, "tensor_map: %d failures\n", failures);
        return 1;
    }
    printf("tensor_map: ok\n");
    return 0;
}
