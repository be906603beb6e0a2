// Cooperative groups within a block: thread_block sync, 32- and 8-wide tiles with their
// shuffles and cg::reduce, and coalesced groups of the active threads.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void groups(const int* in, int* tile32_sums, int* tile8_max, int* odd_ranks, int* block_sums) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ int partial[4];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int s = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0) {
        tile32_sums[gid / 32] = s;
        partial[warp.meta_group_rank()] = s;
    }
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    int m = v;
    for (int o = tile8.size() / 2; o > 0; o /= 2) m = max(m, tile8.shfl_down(m, o));
    if (tile8.thread_rank() == 0) tile8_max[gid / 8] = m;
    if (v % 2 == 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        odd_ranks[gid] = odd.thread_rank();
    } else {
        odd_ranks[gid] = -1;
    }
    block.sync();
    if (block.thread_rank() == 0) block_sums[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];
}

int main() {
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 13 + 5) % 41;
    int *din, *d32, *d8, *dodd, *dblock;
    CHECK(cudaMalloc(&din, n * 4));
    CHECK(cudaMalloc(&d32, n / 32 * 4));
    CHECK(cudaMalloc(&d8, n / 8 * 4));
    CHECK(cudaMalloc(&dodd, n * 4));
    CHECK(cudaMalloc(&dblock, 2 * 4));
    CHECK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    groups<<<2, 128>>>(din, d32, d8, dodd, dblock);
    CHECK_LAUNCH();
    int s32[n / 32], m8[n / 8], odd[n], blocks[2];
    CHECK(cudaMemcpy(s32, d32, sizeof(s32), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(m8, d8, sizeof(m8), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(odd, dodd, sizeof(odd), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(blocks, dblock, sizeof(blocks), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; w++) {
        int s = 0, rank = 0;
        for (int l = 0; l < 32; l++) {
            int g = w * 32 + l;
            s += h[g];
            int want = h[g] % 2 == 1 ? rank++ : -1;
            EXPECT(odd[g] == want, "odd rank [%d] = %d, want %d", g, odd[g], want);
        }
        EXPECT(s32[w] == s, "tile32 %d sum %d, want %d", w, s32[w], s);
    }
    for (int t = 0; t < n / 8; t++) {
        int m = 0;
        for (int l = 0; l < 8; l++) m = h[t * 8 + l] > m ? h[t * 8 + l] : m;
        EXPECT(m8[t] == m, "tile8 %d max %d, want %d", t, m8[t], m);
    }
    for (int b = 0; b < 2; b++) {
        int s = 0;
        for (int i = 0; i < 128; i++) s += h[b * 128 + i];
        EXPECT(blocks[b] == s, "block %d sum %d, want %d", b, blocks[b], s);
    }
    std::printf("cooperative_groups: ok\n");
    return 0;
}
