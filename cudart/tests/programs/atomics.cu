// Global atomics of several kinds and widths: min/max, exchange, CAS loops (a float max and
// a 64-bit product-free update), and/or/xor, increments with wrap.
#include "check.h"

__device__ float atomic_max_float(float* addr, float v) {
    int* p = (int*)addr;
    int old = *p, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(p, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

struct Results {
    int mn, mx;
    unsigned and_, or_, xor_, inc;
    float fmax;
    unsigned long long sum64;
    int exch_seen;
};

__global__ void atomics(const int* in, int n, Results* r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicMin(&r->mn, v);
    atomicMax(&r->mx, v);
    atomicAnd(&r->and_, ~(1u << (i % 32)));
    atomicOr(&r->or_, 1u << (v & 31));
    atomicXor(&r->xor_, (unsigned)v);
    atomicInc(&r->inc, 99u);
    atomic_max_float(&r->fmax, v * 0.5f);
    atomicAdd(&r->sum64, (unsigned long long)(v + 1000) << 20);
    int old = atomicExch(&r->exch_seen, 1);
    (void)old;
}

int main() {
    const int n = 3000;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 7919) % 2001 - 1000;
    int* d;
    Results* r;
    CHECK(cudaMalloc(&d, sizeof(h)));
    CHECK(cudaMalloc(&r, sizeof(Results)));
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    Results init{1 << 30, -(1 << 30), 0xffffffffu, 0, 0, 0, -1e30f, 0, 0};
    CHECK(cudaMemcpy(r, &init, sizeof(init), cudaMemcpyHostToDevice));
    atomics<<<(n + 255) / 256, 256>>>(d, n, r);
    CHECK_LAUNCH();
    Results got;
    CHECK(cudaMemcpy(&got, r, sizeof(got), cudaMemcpyDeviceToHost));
    Results want = init;
    for (int i = 0; i < n; i++) {
        int v = h[i];
        want.mn = v < want.mn ? v : want.mn;
        want.mx = v > want.mx ? v : want.mx;
        want.and_ &= ~(1u << (i % 32));
        want.or_ |= 1u << (v & 31);
        want.xor_ ^= (unsigned)v;
        want.inc = want.inc >= 99u ? 0 : want.inc + 1;
        want.fmax = v * 0.5f > want.fmax ? v * 0.5f : want.fmax;
        want.sum64 += (unsigned long long)(v + 1000) << 20;
    }
    EXPECT(got.mn == want.mn && got.mx == want.mx, "min %d max %d", got.mn, got.mx);
    EXPECT(got.and_ == want.and_ && got.or_ == want.or_ && got.xor_ == want.xor_, "and %x or %x xor %x", got.and_, got.or_, got.xor_);
    EXPECT(got.inc == want.inc, "inc %u, want %u", got.inc, want.inc);
    EXPECT(got.fmax == want.fmax, "float max %f, want %f", got.fmax, want.fmax);
    EXPECT(got.sum64 == want.sum64, "sum64 %llu, want %llu", got.sum64, want.sum64);
    EXPECT(got.exch_seen == 1, "exchange %d", got.exch_seen);
    std::printf("atomics: ok\n");
    return 0;
}
