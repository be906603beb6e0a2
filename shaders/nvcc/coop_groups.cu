// Cooperative groups: the block, 32- and 8-thread tiles, shuffles through a tile, cg::reduce,
// a coalesced group under divergence and the grid's ranks.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// One sum per block: cg::reduce in each 32-thread tile, the tiles' sums added in shared memory.
extern "C" __global__ void cg_block_sum(const int *in, int *out) {
  __shared__ int tiles[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = in[cg::this_grid().thread_rank()];
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) tiles[tile.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned t = 0; t < tile.meta_group_size(); ++t) total += tiles[t];
    out[block.group_index().x] = total;
  }
}

// An inclusive prefix sum over each 8-thread tile by shfl_up.
extern "C" __global__ void cg_tile8_scan(const int *in, int *out) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  unsigned i = cg::this_grid().thread_rank();
  int v = in[i];
  for (unsigned d = 1; d < tile.size(); d *= 2) {
    int u = tile.shfl_up(v, d);
    if (tile.thread_rank() >= d) v += u;
  }
  out[i] = v;
}

// The odd elements' threads form a coalesced group; each writes its rank in it and the
// group's size.
extern "C" __global__ void cg_coalesced(const int *in, int *rank, int *size) {
  unsigned i = cg::this_grid().thread_rank();
  rank[i] = -1;
  size[i] = -1;
  if (in[i] & 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    rank[i] = g.thread_rank();
    size[i] = g.size();
  }
}
