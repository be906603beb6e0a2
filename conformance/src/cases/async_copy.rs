//! ISA 9.7.9.25.4 `cp.reduce.async.bulk` (without a tensor map): `size` bytes of shared memory
//! combined element by element into global memory (`.bulk_group`) or into shared memory
//! (`.shared::cluster` of a one-block cluster, completing an mbarrier's transaction), with each
//! operator on each element type the ISA's table lists for the destination. The expected bytes
//! come from the element model of `tensor_model.rs` ([`reduce_element`]), written from the ISA.

use super::kernel_case::{Arg, KernelCase, rejected_line};
use super::tensor_model::{
    BF16, F16, F32, F64, Red, S32, S64, U32, U64, reduce_element, reduce_inputs,
};
use crate::Case;

const FAMILY: &str = "9.7.9.25.4 cp.reduce.async.bulk";
const HEADER: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";
const THREADS: u32 = 32;

/// Element types into global memory, per operator (ISA: the table of valid `.redOp` and
/// element-type combinations); `f16` and `bf16` adds are written `.add.noftz`.
fn global_types(op: Red) -> &'static [&'static str] {
    match op {
        Red::Add => &["u32", "s32", "u64", "f32", "f64", "f16", "bf16"],
        Red::Min | Red::Max => &["u32", "s32", "u64", "s64", "f16", "bf16"],
        Red::Inc | Red::Dec => &["u32"],
        Red::And | Red::Or | Red::Xor => &["b32", "b64"],
    }
}

/// Element types into shared memory, per operator.
fn cluster_types(op: Red) -> &'static [&'static str] {
    match op {
        Red::Add => &["u32", "s32", "u64"],
        Red::Min | Red::Max => &["u32", "s32"],
        Red::Inc | Red::Dec => &["u32"],
        Red::And | Red::Or | Red::Xor => &["b32"],
    }
}

/// The model's data type for a PTX element type (bit types reduce as unsigned ones).
fn data_type(ty: &str) -> (u32, usize) {
    match ty {
        "u32" | "b32" => (U32, 4),
        "s32" => (S32, 4),
        "u64" | "b64" => (U64, 8),
        "s64" => (S64, 8),
        "f16" => (F16, 2),
        "bf16" => (BF16, 2),
        "f32" => (F32, 4),
        _ => (F64, 8),
    }
}

/// `dst` after `src` is reduced into it with `op`, element by element.
pub fn reduce(dt: u32, e: usize, op: Red, dst: &[u8], src: &[u8]) -> Vec<u8> {
    let read = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..e].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    dst.chunks(e)
        .zip(src.chunks(e))
        .flat_map(|(d, s)| reduce_element(dt, op, read(d), read(s)).to_le_bytes()[..e].to_vec())
        .collect()
}

/// How a case writes its instruction.
#[derive(Clone, Copy)]
struct Form {
    /// Into shared memory, completing an mbarrier's transaction.
    cluster: bool,
    /// The size in a register instead of an immediate.
    size_in_register: bool,
    /// `.L2::cache_hint` with a `createpolicy` policy.
    hint: bool,
}

/// Words `tid`, `tid + THREADS`, ... below `%r5`: `ld` reads word `%r8`/`%rd5`, `st` writes it.
fn words(name: &str, ld: &str, st: &str, global: &str) -> String {
    format!(
        "\tmov.u32 %r6, %r1;\n{name}:\n\tsetp.ge.u32 %p3, %r6, %r5;\n\t@%p3 bra {name}_END;\n\
         \tshl.b32 %r7, %r6, 2;\n\tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, {global}, %rd4;\n\
         \tmov.u32 %r8, tile;\n\tadd.u32 %r8, %r8, %r7;\n\tmov.u32 %r9, out;\n\tadd.u32 %r9, %r9, %r7;\n\
         \t{ld}\n\t{st}\n\tadd.u32 %r6, %r6, {THREADS};\n\tbra {name};\n{name}_END:\n"
    )
}

/// The kernel: `tile` is filled from `src`; the reduction goes into `dst` (global), or into
/// `out` (filled from `dst`, then copied back to it, with whether the mbarrier's phase
/// completed after `size` bytes in `flag`).
fn kernel(op: Red, ty: &str, size: usize, form: Form) -> String {
    let noftz = if matches!(ty, "f16" | "bf16") && op == Red::Add {
        ".noftz"
    } else {
        ""
    };
    let size_op = if form.size_in_register {
        "%r2".to_string()
    } else {
        size.to_string()
    };
    let (hint_mod, hint_op, policy) = if form.hint {
        (
            ".L2::cache_hint",
            ", %rd6",
            "\tcreatepolicy.fractional.L2::evict_last.b64 %rd6, 1.0;\n",
        )
    } else {
        ("", "", "")
    };
    let mut k = format!(
        "{HEADER}.visible .entry k(.param .u64 dst, .param .u64 src, .param .u64 flag)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 16 .b8 tile[{size}];\n\t.shared .align 16 .b8 out[{size}];\n\
         \t.shared .align 8 .b64 bar;\n\
         \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [dst];\n\tld.param.u64 %rd2, [src];\n\
         \tld.param.u64 %rd3, [flag];\n\tmov.u32 %r2, {size};\n\tshr.u32 %r5, %r2, 2;\n{policy}\
         \tsetp.ne.u32 %p1, %r1, 0;\n"
    );
    k += &words(
        "FILL",
        "ld.global.u32 %r10, [%rd5];",
        "st.shared.u32 [%r8], %r10;",
        "%rd2",
    );
    if !form.cluster {
        k += &format!(
            "\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n\t@%p1 bra END;\n\
             \tcp.reduce.async.bulk.global.shared::cta.bulk_group{hint_mod}.{}{noftz}.{ty} \
             [%rd1], [tile], {size_op}{hint_op};\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\nEND:\n\tret;\n}}\n",
            op.name()
        );
        return k;
    }
    k += &words(
        "FILL_OUT",
        "ld.global.u32 %r10, [%rd5];",
        "st.shared.u32 [%r9], %r10;",
        "%rd1",
    );
    k += &format!(
        "\t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
         \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tfence.proxy.async.shared::cta;\n\
         \tbar.sync 0;\n\t@%p1 bra WAIT;\n\
         \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd7, [bar], %r2;\n\
         \tcp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{}.{ty} \
         [out], [tile], {size_op}, [bar];\n\
         WAIT:\n\tmov.u32 %r3, 0;\n\
         TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
         \tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, 1000;\n\t@%p3 bra TRY;\n\
         DONE:\n\tselp.u32 %r4, 1, 0, %p2;\n",
        op.name()
    );
    k += &words(
        "COPY",
        "ld.shared.u32 %r10, [%r9];",
        "st.global.u32 [%rd5], %r10;",
        "%rd1",
    );
    k + "\t@%p1 bra END;\n\tst.global.u32 [%rd3], %r4;\nEND:\n\tret;\n}\n"
}

fn case(op: Red, ty: &str, size: usize, form: Form, seed: u32) -> Case {
    let (dt, e) = data_type(ty);
    let dst = reduce_inputs(dt, op, size, seed);
    let src = reduce_inputs(dt, op, size, seed ^ 0x5bd1);
    let want = reduce(dt, e, op, &dst, &src);
    let into = if form.cluster { "shared" } else { "global" };
    KernelCase {
        family: FAMILY,
        name: format!("bulk-reduce/{into}/{}.{ty}/{size}", op.name()),
        ptx: kernel(op, ty, size, form),
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![dst, src, vec![0xa5; 4]],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)],
        expect: if form.cluster {
            vec![(0, want), (2, vec![1, 0, 0, 0])]
        } else {
            vec![(0, want)]
        },
        elem: e,
    }
    .case()
}

/// A kernel around one instruction, for the rejected forms.
fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \t.shared .align 16 .b8 t[64];\n\t.shared .align 8 .b64 b;\n\
         \tld.param.u64 %rd1, [p];\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // ".min, .max: .u32, .s32, .u64, .s64, .f16, .bf16" into global memory.
        (
            "min-f32",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 [%rd1], [t], 16;",
            "f32",
        ),
        // ".and, .or, .xor: .b32" into shared memory.
        (
            "shared-and-b64",
            "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b64 \
             [t+32], [t], 16, [b];",
            "b64",
        ),
        // ".inc, .dec: .u32".
        (
            "dec-s32",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.s32 [%rd1], [t], 16;",
            "s32",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "bulk-reduce/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut k = 0u32;
    for cluster in [false, true] {
        for op in Red::ALL {
            let types = if cluster {
                cluster_types(op)
            } else {
                global_types(op)
            };
            for ty in types {
                // Sizes of one to several 16-byte chunks; every third size in a register,
                // every fourth global case with a cache hint.
                let size = [16, 48, 128, 256][k as usize % 4];
                let form = Form {
                    cluster,
                    size_in_register: k % 3 == 1,
                    hint: !cluster && k % 4 == 2,
                };
                v.push(case(op, ty, size, form, 0x3a7 + k));
                k += 1;
            }
        }
    }
    v.extend(rejections());
    v
}
