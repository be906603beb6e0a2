// Tensor-core matrix products through <mma.h>: one warp computes the 16x16 tile
// D = A * B + C, A row-major and B column-major, f16 inputs with an f32 accumulator, and the
// same for 8-bit integers with an s32 accumulator (sm_72 and newer). One product per kernel:
// under the emulated warp, lavapipe's compiler takes tens of seconds over an mma in a loop.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// A is 16 x 16 row-major, B 16 x 16 column-major, C 16 x 16 row-major, updated in place.
extern "C" __global__ void wmma_f16_f32(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

// The same with signed 8-bit inputs and an s32 accumulator starting from zero.
extern "C" __global__ void wmma_s8_s32(const signed char *a, const signed char *b, int *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
