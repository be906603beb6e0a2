/* nvJitLink's API as ptxvk's libcuda exports it, looked up in the process's global scope the
 * way NVIDIA's Python bindings look it up: two PTX modules linked by their externs, the
 * "cubin" loaded as a module and run, and the inputs and options it refuses. The
 * declarations follow nvJitLink's documented C signatures (its header is not installed). */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link_inputs.h"

typedef void *Handle;
typedef int (*Version)(unsigned *, unsigned *);
typedef int (*Create)(Handle *, uint32_t, const char **);
typedef int (*Destroy)(Handle *);
typedef int (*AddData)(Handle, int, const void *, size_t, const char *);
typedef int (*Complete)(Handle);
typedef int (*Size)(Handle, size_t *);
typedef int (*Get)(Handle, void *);

enum { SUCCESS = 0, UNRECOGNIZED_OPTION = 1, MISSING_ARCH = 2, INVALID_INPUT = 3, PTX_COMPILE = 4 };
enum { INPUT_CUBIN = 1, INPUT_PTX = 2, INPUT_LTOIR = 3 };

#define SAME(got, want)                                                              \
    do {                                                                             \
        int g_ = (got);                                                              \
        if (g_ != (want)) {                                                          \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, \
                    #got, g_, (int)(want));                                          \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void *sym(const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p) {
        fprintf(stderr, "%s is not in the global scope\n", name);
        exit(1);
    }
    return p;
}

int main(void) {
    Version version = (Version)sym("nvJitLinkVersion");
    Create create = (Create)sym("nvJitLinkCreate");
    Destroy destroy = (Destroy)sym("nvJitLinkDestroy");
    AddData add = (AddData)sym("nvJitLinkAddData");
    Complete complete = (Complete)sym("nvJitLinkComplete");
    Size cubin_size = (Size)sym("nvJitLinkGetLinkedCubinSize");
    Get cubin = (Get)sym("nvJitLinkGetLinkedCubin");
    Size ptx_size = (Size)sym("nvJitLinkGetLinkedPtxSize");
    Size error_size = (Size)sym("nvJitLinkGetErrorLogSize");
    Get error_log = (Get)sym("nvJitLinkGetErrorLog");

    /* Below 12.3: numba-cuda and cuda.core then compile to PTX instead of LTO IR. */
    unsigned major = 0, minor = 0;
    SAME(version(&major, &minor), SUCCESS);
    ASSERT(major == 12 && minor < 3);

    Handle h = NULL;
    const char *no_arch[] = {"-lto"};
    SAME(create(&h, 1, no_arch), MISSING_ARCH);
    const char *bogus[] = {"-arch=sm_80", "-frobnicate"};
    SAME(create(&h, 2, bogus), UNRECOGNIZED_OPTION);
    const char *options[] = {"-arch=sm_80", "-O3"};
    SAME(create(&h, 2, options), SUCCESS);
    ASSERT(h != NULL);

    size_t n = 0;
    SAME(cubin_size(h, &n), INVALID_INPUT); /* nothing is linked yet */
    SAME(add(h, INPUT_PTX, LINK_USER, strlen(LINK_USER) + 1, "user.ptx"), SUCCESS);
    SAME(add(h, INPUT_PTX, LINK_LIB, strlen(LINK_LIB), "lib.ptx"), SUCCESS);
    SAME(add(h, INPUT_LTOIR, "\x7fNVVM", 5, "k.ltoir"), INVALID_INPUT);
    SAME(add(h, INPUT_CUBIN, "\x7f" "ELF", 4, "k.cubin"), INVALID_INPUT);
    SAME(add(h, INPUT_PTX, "garbage", 7, "bad.ptx"), PTX_COMPILE);
    SAME(error_size(h, &n), SUCCESS);
    char *log = malloc(n);
    SAME(error_log(h, log), SUCCESS);
    ASSERT(log[n - 1] == 0 && strstr(log, "k.ltoir") && strstr(log, "k.cubin") && strstr(log, "bad.ptx"));
    free(log);

    SAME(complete(h), SUCCESS);
    size_t ptx_n = 0;
    SAME(cubin_size(h, &n), SUCCESS);
    SAME(ptx_size(h, &ptx_n), SUCCESS);
    ASSERT(n > 0 && n == ptx_n);
    char *image = malloc(n);
    SAME(cubin(h, image), SUCCESS);
    SAME(destroy(&h), SUCCESS);
    ASSERT(h == NULL);
    SAME(destroy(&h), INVALID_INPUT);

    /* The image is what the driver loads; nvJitLink itself needed no context. */
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, image));
    free(image);
    run_linked(mod);
    CHECK(cuDevicePrimaryCtxRelease(dev));
    if (failures) return 1;
    printf("nvjitlink: ok\n");
    return 0;
}
