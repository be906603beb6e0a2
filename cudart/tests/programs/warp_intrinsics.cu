// Warp-level primitives: shuffles (xor butterfly, up, indexed), ballot, any/all, match-free
// popc counting, checked per lane against a host model of a 32-lane warp.
#include "check.h"

__global__ void warps(const int* in, int* sum, int* prefix, unsigned* ballots, int* flags, int* bcast) {
    int lane = threadIdx.x & 31;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    sum[gid] = s;
    int p = v;
    for (int o = 1; o < 32; o <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, p, o);
        if (lane >= o) p += up;
    }
    prefix[gid] = p;
    unsigned b = __ballot_sync(0xffffffffu, v % 3 == 0);
    if (lane == 0) ballots[gid / 32] = b;
    int any = __any_sync(0xffffffffu, v > 90);
    int all = __all_sync(0xffffffffu, v >= 0);
    flags[gid] = any * 2 + all + 4 * __popc(b & ((1u << lane) - 1));
    bcast[gid] = __shfl_sync(0xffffffffu, v, (lane * 7) % 32);
}

int main() {
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 29 + 3) % 97;
    int *din, *dsum, *dprefix, *dflags, *dbcast;
    unsigned* dballots;
    CHECK(cudaMalloc(&din, n * 4));
    CHECK(cudaMalloc(&dsum, n * 4));
    CHECK(cudaMalloc(&dprefix, n * 4));
    CHECK(cudaMalloc(&dflags, n * 4));
    CHECK(cudaMalloc(&dbcast, n * 4));
    CHECK(cudaMalloc(&dballots, n / 32 * 4));
    CHECK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    warps<<<2, 128>>>(din, dsum, dprefix, dballots, dflags, dbcast);
    CHECK_LAUNCH();
    int sum[n], prefix[n], flags[n], bcast[n];
    unsigned ballots[n / 32];
    CHECK(cudaMemcpy(sum, dsum, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(prefix, dprefix, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(flags, dflags, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bcast, dbcast, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ballots, dballots, sizeof(ballots), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; w++) {
        int s = 0, any = 0, all = 1;
        unsigned b = 0;
        for (int l = 0; l < 32; l++) {
            int v = h[w * 32 + l];
            s += v;
            any |= v > 90;
            all &= v >= 0;
            if (v % 3 == 0) b |= 1u << l;
        }
        EXPECT(ballots[w] == b, "warp %d ballot %08x, want %08x", w, ballots[w], b);
        int p = 0;
        for (int l = 0; l < 32; l++) {
            int g = w * 32 + l;
            p += h[g];
            EXPECT(sum[g] == s, "sum[%d] = %d, want %d", g, sum[g], s);
            EXPECT(prefix[g] == p, "prefix[%d] = %d, want %d", g, prefix[g], p);
            int want_flags = any * 2 + all + 4 * __builtin_popcount(b & ((1u << l) - 1));
            EXPECT(flags[g] == want_flags, "flags[%d] = %d, want %d", g, flags[g], want_flags);
            EXPECT(bcast[g] == h[w * 32 + (l * 7) % 32], "bcast[%d] = %d", g, bcast[g]);
        }
    }
    std::printf("warp_intrinsics: ok\n");
    return 0;
}
