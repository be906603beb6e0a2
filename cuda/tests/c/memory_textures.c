/* Texture objects over device memory through the driver API: linear memory read by
 * integer-coordinate fetches (tex1Dfetch's PTX), pitched 2D memory sampled with float
 * coordinates, their resource descriptions, and the misuse cuTexObjectCreate refuses.
 * Results are checked against the values written. */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Thread t fetches element t (four u32 channels) and stores them at out + 16t. */
static const char *FETCH_PTX =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry fetch(.param .u64 tex, .param .u64 out)\n{\n"
    " .reg .b32 %r<8>; .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [tex]; ld.param.u64 %rd2, [out]; mov.u32 %r1, %tid.x;\n"
    " tex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];\n"
    " mul.wide.u32 %rd3, %r1, 16; add.s64 %rd4, %rd2, %rd3;\n"
    " st.global.v4.u32 [%rd4], {%r2, %r3, %r4, %r5};\n ret;\n}\n"
    /* Thread (x, y) samples at the texel centre and stores the red channel at out + 4(y w + x). */
    ".visible .entry sample(.param .u64 tex, .param .u64 out, .param .u32 w)\n{\n"
    " .reg .f32 %f<8>; .reg .b32 %r<6>; .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [tex]; ld.param.u64 %rd2, [out]; ld.param.u32 %r5, [w];\n"
    " mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y;\n"
    " cvt.rn.f32.u32 %f1, %r1; cvt.rn.f32.u32 %f2, %r2;\n"
    " add.f32 %f1, %f1, 0f3F000000; add.f32 %f2, %f2, 0f3F000000;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    " mad.lo.u32 %r3, %r2, %r5, %r1; mul.wide.u32 %rd3, %r3, 4; add.s64 %rd4, %rd2, %rd3;\n"
    " st.global.f32 [%rd4], %f3;\n ret;\n}\n";

static void linear(CUmodule mod, CUdeviceptr out) {
    CUfunction fetch;
    CHECK(cuModuleGetFunction(&fetch, mod, "fetch"));
    enum { N = 6 };
    uint16_t pairs[2 * N];
    for (int i = 0; i < 2 * N; i++) pairs[i] = (uint16_t)(65535 - 1000 * i);
    CUdeviceptr mem;
    CHECK(cuMemAlloc(&mem, sizeof pairs));
    CHECK(cuMemcpyHtoD(mem, pairs, sizeof pairs));
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = mem;
    res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT16;
    res.res.linear.numChannels = 2;
    res.res.linear.sizeInBytes = sizeof pairs;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.flags = CU_TRSF_READ_AS_INTEGER;
    CUtexObject tex = 0;
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    CUDA_RESOURCE_DESC back;
    memset(&back, 0xff, sizeof back);
    CHECK(cuTexObjectGetResourceDesc(&back, tex));
    ASSERT(back.resType == CU_RESOURCE_TYPE_LINEAR && back.res.linear.devPtr == mem &&
           back.res.linear.format == CU_AD_FORMAT_UNSIGNED_INT16 && back.res.linear.numChannels == 2 &&
           back.res.linear.sizeInBytes == sizeof pairs);
    /* N + 2 threads: the last two read past the end, which gives zeros. */
    void *params[] = {&tex, &out};
    CHECK(cuLaunchKernel(fetch, 1, 1, 1, N + 2, 1, 1, 0, NULL, params, NULL));
    uint32_t got[N + 2][4];
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    for (int i = 0; i < N + 2; i++) {
        uint32_t want[4] = {0, 0, 0, 0};
        if (i < N) {
            want[0] = pairs[2 * i];
            want[1] = pairs[2 * i + 1];
            want[3] = 1;
        }
        ASSERT(memcmp(got[i], want, sizeof want) == 0);
    }
    /* A fetch reads the memory as it is at the launch. */
    CHECK(cuMemsetD16(mem, 7, 2 * N));
    CHECK(cuLaunchKernel(fetch, 1, 1, 1, N, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    for (int i = 0; i < N; i++) ASSERT(got[i][0] == 7 && got[i][1] == 7);
    CHECK(cuTexObjectDestroy(tex));

    /* More bytes than the allocation holds, and memory that is not the device's. */
    res.res.linear.sizeInBytes = sizeof pairs + 4;
    EXPECT(cuTexObjectCreate(&tex, &res, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    res.res.linear.sizeInBytes = sizeof pairs;
    res.res.linear.devPtr = (CUdeviceptr)(uintptr_t)pairs;
    EXPECT(cuTexObjectCreate(&tex, &res, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(mem));
}

static void pitched(CUmodule mod, CUdeviceptr out) {
    CUfunction sample;
    CHECK(cuModuleGetFunction(&sample, mod, "sample"));
    enum { W = 7, H = 3 };
    float texels[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) texels[y][x] = (float)(100 * y + x) - 0.5f;
    CUdeviceptr mem;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&mem, &pitch, W * sizeof(float), H, 4));
    ASSERT(pitch >= W * sizeof(float) && pitch % 32 == 0);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = texels;
    c.srcPitch = W * sizeof(float);
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = mem;
    c.dstPitch = pitch;
    c.WidthInBytes = W * sizeof(float);
    c.Height = H;
    CHECK(cuMemcpy2D(&c));
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2D.devPtr = mem;
    res.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    res.res.pitch2D.numChannels = 1;
    res.res.pitch2D.width = W;
    res.res.pitch2D.height = H;
    res.res.pitch2D.pitchInBytes = pitch;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject tex = 0;
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    CUDA_RESOURCE_DESC back;
    memset(&back, 0xff, sizeof back);
    CHECK(cuTexObjectGetResourceDesc(&back, tex));
    ASSERT(back.resType == CU_RESOURCE_TYPE_PITCH2D && back.res.pitch2D.devPtr == mem &&
           back.res.pitch2D.format == CU_AD_FORMAT_FLOAT && back.res.pitch2D.numChannels == 1 &&
           back.res.pitch2D.width == W && back.res.pitch2D.height == H &&
           back.res.pitch2D.pitchInBytes == pitch);
    unsigned w = W;
    void *params[] = {&tex, &out, &w};
    float got[W * H];
    CHECK(cuLaunchKernel(sample, 1, 1, 1, W, H, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    ASSERT(memcmp(got, texels, sizeof got) == 0);
    /* Memory set between launches is what the next launch samples (1.0f's bits). */
    CHECK(cuMemsetD2D32(mem, pitch, 0x3f800000u, W, H));
    CHECK(cuLaunchKernel(sample, 1, 1, 1, W, H, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(got, out, sizeof got));
    for (int i = 0; i < W * H; i++) ASSERT(got[i] == 1.0f);
    CHECK(cuTexObjectDestroy(tex));

    /* A pitch off CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, and rows past the allocation. */
    int align = 0;
    CHECK(cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 0));
    res.res.pitch2D.pitchInBytes = pitch + (size_t)align / 2;
    EXPECT(cuTexObjectCreate(&tex, &res, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    res.res.pitch2D.pitchInBytes = pitch;
    res.res.pitch2D.height = H + 1;
    EXPECT(cuTexObjectCreate(&tex, &res, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemFree(mem));
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, FETCH_PTX));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4096));
    linear(mod, out);
    pitched(mod, out);
    CHECK(cuMemFree(out));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    if (failures) {
        fprintf(stderr, "memory_textures: %d check(s) failed\n", failures);
        return 1;
    }
    printf("memory_textures: ok\n");
    return 0;
}
