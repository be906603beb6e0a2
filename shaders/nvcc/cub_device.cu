// cub's device-wide algorithms, instantiated from host code so that nvcc writes their kernels:
// reduce, inclusive scan and radix sort over 32-bit keys. Only the PTX is used; the host
// functions are never run.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

void instantiate(void *temp, size_t bytes, const int *in, int *out, unsigned *keys_in,
                 unsigned *keys_out, int n, cudaStream_t stream) {
  cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream);
  cub::DeviceReduce::Max(temp, bytes, in, out, n, stream);
  cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, stream);
  cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, n, 0, 32, stream);
}
