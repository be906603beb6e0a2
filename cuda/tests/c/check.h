/* What the C test programs share: checks that count failures instead of stopping, so that
 * one run reports every mismatch. Include after cuda.h. */
#ifndef PTXVK_TEST_CHECK_H
#define PTXVK_TEST_CHECK_H
#include <stdio.h>

/* Counted from several threads. */
static _Atomic int failures = 0;

#define EXPECT(call, want)                                                         \
    do {                                                                           \
        CUresult got_ = (call);                                                    \
        if (got_ != (want)) {                                                      \
            const char *name_ = "?";                                               \
            cuGetErrorName(got_, &name_);                                          \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, \
                    __LINE__, #call, (int)got_, name_, (int)(want));               \
            failures++;                                                            \
        }                                                                          \
    } while (0)
#define CHECK(call) EXPECT(call, CUDA_SUCCESS)
#define ASSERT(cond)                                                               \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

#endif
