/* Two PTX modules for the linkers: a kernel calling a function and reading a variable that the
 * other module defines, and the check that the linked image runs. Include after check.h. */
#ifndef PTXVK_TEST_LINK_INPUTS_H
#define PTXVK_TEST_LINK_INPUTS_H
#include <cuda.h>

static const char *LINK_USER =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".extern .func (.param .b32 r) add_one(.param .b32 x);\n"
    ".extern .global .align 4 .u32 start;\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    " .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [out]; ld.global.u32 %r1, [start];\n"
    " { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;\n"
    "   call.uni (b), add_one, (a); ld.param.b32 %r2, [b]; }\n"
    " st.global.u32 [%rd1], %r2;\n ret;\n}\n";
static const char *LINK_LIB =
    ".version 7.8\n.target sm_70\n.address_size 64\n"
    ".visible .global .align 4 .u32 start = 41;\n"
    ".visible .func (.param .b32 r) add_one(.param .b32 x)\n{\n"
    " .reg .b32 %t<3>; ld.param.b32 %t1, [x]; add.u32 %t2, %t1, 1; st.param.b32 [r], %t2;\n ret;\n}\n";

/* Runs k of a module loaded from a linked image: start (41) plus one. */
static void run_linked(CUmodule mod) {
    CUfunction k;
    CHECK(cuModuleGetFunction(&k, mod, "k"));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    unsigned v = 0;
    CHECK(cuMemcpyDtoH(&v, out, 4));
    ASSERT(v == 42);
    CHECK(cuMemFree(out));
    CHECK(cuModuleUnload(mod));
}

#endif
