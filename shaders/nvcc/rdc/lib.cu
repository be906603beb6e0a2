// Device code of a separately compiled module (`nvcc -rdc=true`): a function, a variable and
// a table that main.cu uses through `extern` declarations, and a module-local `bias` whose
// name main.cu uses for a variable of its own.
__device__ int scale = 3;
__device__ int table[4] = {10, 20, 30, 40};
static __device__ int bias = 100;

__device__ __noinline__ int apply(int x) { return x * scale + table[x & 3] + bias; }
