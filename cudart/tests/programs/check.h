// Shared by the test programs: every runtime call is checked, and a program that finds a
// wrong result prints it and exits nonzero.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,  \
                         cudaGetErrorName(err_), cudaGetErrorString(err_));                 \
            std::exit(2);                                                                   \
        }                                                                                   \
    } while (0)

// After a launch: the launch itself and the kernel's execution.
#define CHECK_LAUNCH()                          \
    do {                                        \
        CHECK(cudaGetLastError());              \
        CHECK(cudaDeviceSynchronize());         \
    } while (0)

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            std::fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                              \
            std::fprintf(stderr, "\n");                                     \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)
