// cub's block- and warp-level collectives inside kernels of ours, with plain signatures so
// that the tests can launch them: a block reduce, a block exclusive scan, a block radix sort
// and a warp reduce.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#define THREADS 128
#define ITEMS 4

// One sum per block of THREADS * ITEMS ints.
extern "C" __global__ void __launch_bounds__(THREADS)
    cub_block_sum(const int *in, int *out) {
  using Reduce = cub::BlockReduce<int, THREADS>;
  __shared__ typename Reduce::TempStorage temp;
  int items[ITEMS];
  const int *base = in + blockIdx.x * THREADS * ITEMS;
  for (int i = 0; i < ITEMS; ++i) items[i] = base[threadIdx.x * ITEMS + i];
  int sum = Reduce(temp).Sum(items);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// The exclusive prefix sum of each block's THREADS * ITEMS ints (blocked arrangement).
extern "C" __global__ void __launch_bounds__(THREADS)
    cub_block_scan(const int *in, int *out) {
  using Scan = cub::BlockScan<int, THREADS>;
  __shared__ typename Scan::TempStorage temp;
  int items[ITEMS];
  int offset = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
  for (int i = 0; i < ITEMS; ++i) items[i] = in[offset + i];
  Scan(temp).ExclusiveSum(items, items);
  for (int i = 0; i < ITEMS; ++i) out[offset + i] = items[i];
}

// Each block sorts its THREADS * ITEMS unsigned keys ascending.
extern "C" __global__ void __launch_bounds__(THREADS)
    cub_block_sort(const unsigned *in, unsigned *out) {
  using Sort = cub::BlockRadixSort<unsigned, THREADS, ITEMS>;
  __shared__ typename Sort::TempStorage temp;
  unsigned keys[ITEMS];
  int offset = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
  for (int i = 0; i < ITEMS; ++i) keys[i] = in[offset + i];
  Sort(temp).Sort(keys);
  for (int i = 0; i < ITEMS; ++i) out[offset + i] = keys[i];
}

// The maximum of each warp's 32 values.
extern "C" __global__ void __launch_bounds__(THREADS)
    cub_warp_max(const int *in, int *out) {
  using Warp = cub::WarpReduce<int>;
  __shared__ typename Warp::TempStorage temp[THREADS / 32];
  int i = blockIdx.x * THREADS + threadIdx.x;
  int m = Warp(temp[threadIdx.x / 32]).Reduce(in[i], cuda::maximum<>{});
  if (threadIdx.x % 32 == 0) out[i / 32] = m;
}
