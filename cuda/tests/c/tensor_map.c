/* Tensor maps through the driver API, as sm_90 programs use them: cuTensorMapEncodeTiled
 * fills a CUtensorMap that a kernel receives as a __grid_constant__ parameter and reads with
 * cp.async.bulk.tensor, completing an mbarrier's transaction; the box it copies (partly
 * outside the tensor, zero- and NaN-filled) is checked against the CPU. The arguments CUDA's
 * documentation rules out return CUDA_ERROR_INVALID_VALUE, and cuTensorMapReplaceAddress
 * moves a map to another tensor. cuTensorMapEncodeIm2col's maps are read by an `.im2col` load
 * of a column of pixels (over the image's edge and into the next image), checked likewise, and
 * the im2col arguments its documentation rules out are refused the same way, as are
 * cuTensorMapEncodeIm2colWide's.
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

/* The im2col load: one thread loads a column of NW_PIXELS pixels of NW_C floats (128 bytes)
 * from the 3-d (NWC) map at (0, w, 0) with im2col offset `off`; every thread writes one float
 * of it to `out`, thread 0 also whether the phase completed. */
static const char *COLUMN_PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry column(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 w,"
    " .param .u32 off)\n{\n"
    " .reg .pred %p<4>; .reg .b16 %rs<2>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    " .shared .align 128 .b8 col[128]; .shared .align 8 .b64 bar;\n"
    " mov.u32 %r1, %tid.x; ld.param.u64 %rd1, [out];\n"
    " ld.param.u32 %r10, [w]; ld.param.u32 %r11, [off]; cvt.u16.u32 %rs1, %r11;\n"
    " mov.u32 %r12, 0;\n"
    " setp.ne.u32 %p1, %r1, 0; @%p1 bra SYNC;\n"
    " mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "SYNC:\n bar.sync 0; @%p1 bra WAIT;\n"
    " mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 128;\n"
    " mov.b64 %rd3, tmap;\n"
    " cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
    " [col], [%rd3, {%r12, %r10, %r12}], [bar], {%rs1};\n"
    "WAIT:\n mov.u32 %r3, 0;\n"
    "TRY:\n mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0; @%p2 bra DONE;\n"
    " add.u32 %r3, %r3, 1; setp.lt.u32 %p3, %r3, 1000; @%p3 bra TRY;\n"
    "DONE:\n selp.u32 %r4, 1, 0, %p2;\n"
    " shl.b32 %r5, %r1, 2; mov.u32 %r6, col; add.u32 %r6, %r6, %r5;\n"
    " ld.shared.u32 %r7, [%r6]; mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd1, %rd4;\n"
    " st.global.u32 [%rd5], %r7;\n"
    " @%p1 bra END; st.global.u32 [%rd1+128], %r4;\n"
    "END:\n ret;\n}\n";

/* The NWC tensor: NW_N images of NW_W pixels of NW_C floats, dense. */
enum { NW_C = 4, NW_W = 6, NW_N = 2, NW_PIXELS = 8 };

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

/* Loads the column at W = `w` with offset `off` through `map` and checks it against `tensor`:
 * the ISA's im2col traversal of the bounding box W in [lo, NW_W - 1 + hi] from `w` on,
 * wrapping into the next image, each pixel read `off` further in W (zero outside). */
static void run_column(CUfunction f, CUtensorMap *map, const float *tensor, int w, int off,
                       int lo, int hi, const char *what) {
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 132));
    CHECK(cuMemsetD8(out, 0xa5, 132));
    void *params[] = {map, &out, &w, &off};
    CHECK(cuLaunchKernel(f, 1, 1, 1, NW_C * NW_PIXELS, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    float got[NW_C * NW_PIXELS];
    uint32_t done = 0;
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    CHECK(cuMemcpyDtoH(&done, out + 128, 4));
    ASSERT(done == 1);
    int pw = w, n = 0;
    for (int p = 0; p < NW_PIXELS; p++) {
        int gw = pw + off;
        int inside = gw >= 0 && gw < NW_W && n < NW_N;
        for (int c = 0; c < NW_C; c++) {
            float want = inside ? tensor[(n * NW_W + gw) * NW_C + c] : 0.0f;
            if (!same_bits(got[p * NW_C + c], want)) {
                fprintf(stderr, "%s: pixel %d channel %d = %g, expected %g\n", what, p, c,
                        got[p * NW_C + c], want);
                failures++;
                CHECK(cuMemFree(out));
                return;
            }
        }
        if (++pw > NW_W - 1 + hi) {
            pw = lo;
            n++;
        }
    }
    CHECK(cuMemFree(out));
}

static CUresult encode_im2col(CUtensorMap *map, cuuint32_t rank, CUdeviceptr base,
                              const int *lower, const int *upper, cuuint32_t channels,
                              cuuint32_t pixels) {
    const cuuint64_t dims[5] = {NW_C, NW_W, NW_N, 1, 1};
    const cuuint64_t strides[4] = {NW_C * 4, NW_C * NW_W * 4, NW_C * NW_W * NW_N * 4,
                                   NW_C * NW_W * NW_N * 4};
    const cuuint32_t es[5] = {1, 1, 1, 1, 1};
    return cuTensorMapEncodeIm2col(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, (void *)base,
                                   dims, strides, lower, upper, channels, pixels, es,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* cuTensorMapEncodeIm2col: a valid map read by an `.im2col` load, then the misuses. */
static void im2col_maps(CUmodule mod) {
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, mod, "column"));
    float host[NW_N * NW_W * NW_C];
    for (int i = 0; i < NW_N * NW_W * NW_C; i++) host[i] = (float)(i + 1) * 0.75f;
    CUdeviceptr tensor;
    CHECK(cuMemAlloc(&tensor, sizeof host));
    CHECK(cuMemcpyHtoD(tensor, host, sizeof host));
    _Alignas(64) CUtensorMap map;
    /* A 3-wide filter's box with one pixel of padding each side: W in [-1, 4]. */
    const int lower[3] = {-1, -1, -1}, upper[3] = {-1, -1, -1};
    CHECK(encode_im2col(&map, 3, tensor, lower, upper, NW_C, NW_PIXELS));
    run_column(f, &map, host, -1, 0, -1, -1, "im2col from the padding");
    run_column(f, &map, host, 2, 2, -1, -1, "im2col past the right edge");

    /* What the documentation rules out: the rank (3 to 5), the corners' ranges (rank 3:
     * [-2^15, 2^15 - 1]; rank 4: [-2^7, 2^7 - 1]; rank 5: [-2^4, 2^4 - 1]), a bounding box
     * of no pixels, channelsPerPixel (at most 256), pixelsPerColumn
     * (at most 1024), the map's alignment and a NULL map. */
    EXPECT(encode_im2col(&map, 2, tensor, lower, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col(&map, 6, tensor, lower, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    const int far[3] = {-32769, 0, 0};
    EXPECT(encode_im2col(&map, 3, tensor, far, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    const int wide[3] = {-1, 128, 0};
    EXPECT(encode_im2col(&map, 4, tensor, lower, wide, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    const int five[3] = {-16, -17, 0};
    EXPECT(encode_im2col(&map, 5, tensor, five, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    /* 4-d corners of -128 and 127 are in range. */
    const int edge_lo[3] = {-128, 0, 0}, edge_hi[3] = {127, 0, 0};
    CHECK(encode_im2col(&map, 4, tensor, edge_lo, edge_hi, NW_C, NW_PIXELS));
    /* W in [6, 6 - 1 - 1]: no pixel. */
    const int empty_lo[3] = {6, 0, 0}, empty_hi[3] = {-1, 0, 0};
    EXPECT(encode_im2col(&map, 3, tensor, empty_lo, empty_hi, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col(&map, 3, tensor, lower, upper, 260, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col(&map, 3, tensor, lower, upper, NW_C, 1025), CUDA_ERROR_INVALID_VALUE);
    CHECK(encode_im2col(&map, 3, tensor, lower, upper, NW_C, 1024));
    EXPECT(encode_im2col(&map, 3, tensor + 8, lower, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col((CUtensorMap *)((char *)&map + 16), 3, tensor, lower, upper, NW_C,
                         NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col(NULL, 3, tensor, lower, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(encode_im2col(&map, 3, tensor, NULL, upper, NW_C, NW_PIXELS),
           CUDA_ERROR_INVALID_VALUE);
    const cuuint64_t dims[3] = {NW_C, NW_W, NW_N};
    const cuuint64_t odd_strides[2] = {NW_C * 4 + 4, NW_C * NW_W * 4};
    const cuuint32_t es[3] = {1, 1, 1};
    EXPECT(cuTensorMapEncodeIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, (void *)tensor, dims,
                                   odd_strides, lower, upper, NW_C, NW_PIXELS, es,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(tensor));
}

/* cuTensorMapEncodeIm2colWide (the `.im2col::w` loads' maps): valid W and W128 maps, and what
 * its documentation rules out: no or the 32-byte swizzle, an unknown mode, a W corner outside
 * [-2^15, 2^15 - 1] (whatever the rank), rows wider than the swizzle, pixelsPerColumn above
 * 1024 in the W mode (W128 ignores it), a rank outside 3-5 and a NULL map. */
static void wide_maps(void) {
    CUdeviceptr tensor;
    CHECK(cuMemAlloc(&tensor, 4096));
    const cuuint64_t dims[4] = {16, 40, 2, 2};
    const cuuint64_t strides[3] = {32, 1280, 2560};
    const cuuint32_t es[4] = {1, 1, 1, 1};
    _Alignas(64) CUtensorMap map;
#define WIDE(m, rank, lo, hi, channels, pixels, mode, swizzle)                                  \
    cuTensorMapEncodeIm2colWide(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, (void *)tensor, dims, \
                                strides, lo, hi, channels, pixels, es,                          \
                                CU_TENSOR_MAP_INTERLEAVE_NONE, mode, swizzle,                   \
                                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    const CUtensorMapIm2ColWideMode w = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
                                    w128 = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128;
    CHECK(WIDE(&map, 4, -1, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_64B));
    CHECK(WIDE(&map, 4, -300, 200, 16, 5000, w128, CU_TENSOR_MAP_SWIZZLE_128B));
    CHECK(WIDE(&map, 4, -1, -1, 16, 64, w128, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B));
    EXPECT(WIDE(&map, 4, -1, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_NONE), CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 4, -1, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_32B), CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 4, -1, -1, 16, 64, (CUtensorMapIm2ColWideMode)2, CU_TENSOR_MAP_SWIZZLE_64B),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 4, -32769, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_64B),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 4, -1, -1, 64, 64, w, CU_TENSOR_MAP_SWIZZLE_64B), CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 4, -1, -1, 16, 1025, w, CU_TENSOR_MAP_SWIZZLE_64B),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(&map, 2, -1, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_64B), CUDA_ERROR_INVALID_VALUE);
    EXPECT(WIDE(NULL, 4, -1, -1, 16, 64, w, CU_TENSOR_MAP_SWIZZLE_64B), CUDA_ERROR_INVALID_VALUE);
#undef WIDE
    CHECK(cuMemFree(tensor));
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
    /* The 128-byte swizzles of 32- and 64-byte atoms take rows of up to 128 bytes; the one
     * with the 8-byte flip is valid for CUDA and not implemented. */
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, wide_box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_SUCCESS);
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, wide_box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_SUCCESS);
    EXPECT(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, wide_box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuTensorMapEncodeTiled(NULL, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor[0],
                                  dims, strides, boxes, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
           CUDA_ERROR_INVALID_VALUE);

    for (int t = 0; t < 2; t++) CHECK(cuMemFree(tensor[t]));
    CHECK(cuModuleUnload(mod));
    CHECK(cuModuleLoadData(&mod, COLUMN_PTX));
    im2col_maps(mod);
    CHECK(cuModuleUnload(mod));
    wide_maps();
    CHECK(cuCtxDestroy(ctx));
    if (failures) {
        fprintf(stderr, "tensor_map: %d failures\n", failures);
        return 1;
    }
    printf("tensor_map: ok\n");
    return 0;
}
