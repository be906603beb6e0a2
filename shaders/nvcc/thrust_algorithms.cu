// thrust's algorithms on device vectors, instantiated from host code so that nvcc writes the
// kernels they launch: transform with a functor of ours, reduce, sort and an inclusive scan.
// Only the PTX is used; the host function is never run.
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

struct saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

float instantiate(float *x, float *y, int *keys, int n) {
  thrust::device_ptr<float> px(x), py(y);
  thrust::device_ptr<int> pk(keys);
  thrust::transform(px, px + n, py, py, saxpy{2.0f});
  thrust::inclusive_scan(pk, pk + n, pk);
  thrust::sort(pk, pk + n);
  return thrust::reduce(px, px + n, 0.0f);
}
