//! Matrix instruction forms the ISA forbids, each rejected with a diagnostic naming it.

use super::{FAMILY, HEADER, for_kind};
use crate::Case;
use crate::cases::kernel_case::rejected_line;

pub(super) fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<12>;\n\t.reg .f32 %f<12>;\n\
         \t.reg .b64 %rd<4>;\n\t.shared .align 16 .b8 s[256];\n{line}\n\tret;\n}}\n"
    )
}

pub(super) fn rejections() -> Vec<Case> {
    [
        // ".num = {.x1, .x2, .x4}" and one register per matrix.
        ("ldmatrix-count", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [s];", "{%r1}"),
        ("ldmatrix-without-sync", "ldmatrix.aligned.m8n8.x1.shared.b16 {%r1}, [s];", "ldmatrix"),
        ("ldmatrix-b32", "ldmatrix.sync.aligned.m8n8.x1.shared.b32 {%r1}, [s];", "b32"),
        // "movmatrix ... .trans" is mandatory.
        ("movmatrix-without-trans", "movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", "movmatrix.sync.aligned.m8n8.b16"),
        // m16n8k16 .f16: A is four registers.
        (
            "mma-a-count",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%f5,%f6,%f7,%f8};",
            "{%r1,%r2}",
        ),
        // ".alayout = {.row}; .blayout = {.col}" beyond .m8n8k4.
        (
            "mma-col-row",
            "mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f8};",
            "mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32",
        ),
        // .bf16 accumulates into .f32 only.
        (
            "mma-bf16-into-f16",
            "mma.sync.aligned.m16n8k8.row.col.f16.bf16.bf16.f16 {%r1,%r2}, {%r3,%r4}, {%r5}, {%r6,%r7};",
            "bf16",
        ),
        // No .m16n8k4 for .f16.
        (
            "mma-f16-k4",
            "mma.sync.aligned.m16n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1}, {%r3}, {%f5,%f6,%f7,%f8};",
            "m16n8k4",
        ),
        // `mma.sp` .m16n8k32 .f16: "the sparsity selector must be either 0 (threads T0, T1)
        // or 1 (threads T2, T3)".
        (
            "mma-sp-selector",
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%f5,%f6,%f7,%f8}, %r9, 0x2;",
            "0x2",
        ),
        // "In case of shapes .m16n8k16, .m16n8k32 and .m16n8k64, .dtype must be the same as
        // .ctype".
        (
            "mma-sp-dtype-ctype",
            "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%r5,%r6}, %r9, 0;",
            "f16",
        ),
        // `mma.sp` has no .m16n8k8 for .f16.
        (
            "mma-sp-f16-k8",
            "mma.sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1}, {%r2}, {%f5,%f6,%f7,%f8}, %r9, 0;",
            "m16n8k8",
        ),
        // A sparse A is half the dense one: two registers for .m16n8k16 .bf16.
        (
            "mma-sp-a-count",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}, %r9, 0;",
            "{%r1,%r2,%r3,%r4}",
        ),
        // wmma .f16 A fragments are eight registers.
        (
            "wmma-a-count",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4}, [%rd1];",
            "{%r1,%r2,%r3,%r4}",
        ),
        // .tf32 wmma has the shape .m16n16k8 only.
        (
            "wmma-tf32-k16",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32 {%r1,%r2,%r3,%r4}, [%rd1];",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32",
        ),
        // wmma.store writes D only.
        (
            "wmma-store-a",
            "wmma.store.a.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};",
            "wmma.store.a.sync.aligned.row.m16n16k16.global.f32",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module, form))
    .chain(kind_rejections())
    .collect()
}

pub(super) fn module_sm120(line: &str) -> String {
    for_kind(module(line), true)
}

fn kind_rejections() -> Vec<Case> {
    let sm120 = [
        // The fp6 and fp4 types exist only in ".kind::f8f6f4" forms.
        (
            "mma-e2m1-without-kind",
            "mma.sync.aligned.m16n8k32.row.col.f32.e2m1.e2m1.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
            "e2m1",
        ),
        // ".shape = {.m16n8k32}" for ".kind::f8f6f4".
        (
            "mma-kind-k16",
            "mma.sync.aligned.m16n8k16.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f8};",
            "kind::f8f6f4",
        ),
        // ".f8f6f4type = {.e4m3, .e5m2, .e3m2, .e2m3, .e2m1}".
        (
            "mma-kind-s8",
            "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r1,%r2,%r3,%r4};",
            "kind::f8f6f4",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module_sm120, form));
    // "requires sm_120a": refused for the sm_90 of the other cases.
    let sm90 = std::iter::once((
        "mma-kind-sm90",
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
        "kind::f8f6f4",
    ))
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module, form));
    sm120.chain(sm90).collect()
}
