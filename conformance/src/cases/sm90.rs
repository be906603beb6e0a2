//! What compilers for sm_90 emit beside the arithmetic: `elect.sync` (the lowest active lane of
//! the mask, as a reference model), the cluster special registers, `mapa` and `getctarank` for
//! a launch without clusters (each block an implicit cluster of one, ISA "Cluster of
//! Cooperative Thread Arrays"), proxy fences, `griddepcontrol`, `setmaxnreg`, `createpolicy`
//! with `.L2::cache_hint` loads and stores, and the forms the ISA rejects.

use ptxvk_runtime::KernelArg;

use super::kernel_case::{Arg, KernelCase, rejected_line};
use crate::Case;

const FAMILY: &str = "sm_90 forms";
const HEADER: &str = ".version 9.4\n.target sm_90a\n.address_size 64\n";

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The ISA's `elect.sync`: lanes of `mask` (all of which execute it) learn the leader, the
/// lowest lane of the mask, and whether they are it; the others write 7, 7.
fn elect_model(mask: u32, lane: u32) -> [u32; 2] {
    if mask >> lane & 1 == 0 {
        return [7, 7];
    }
    let leader = mask.trailing_zeros();
    [leader, u32::from(lane == leader)]
}

fn elect(mask: u32) -> Case {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u32 mask)\n{{\n\
         \t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [mask];\n\
         \tmov.u32 %r2, %laneid;\n\tmov.u32 %r3, 7;\n\tmov.u32 %r4, 7;\n\
         \tshr.u32 %r5, %r1, %r2;\n\tand.b32 %r5, %r5, 1;\n\tsetp.eq.u32 %p1, %r5, 0;\n\
         \t@%p1 bra SKIP;\n\telect.sync %r3|%p2, %r1;\n\tselp.u32 %r4, 1, 0, %p2;\n\
         SKIP:\n\tmov.u32 %r6, %tid.x;\n\tmul.wide.u32 %rd2, %r6, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tst.global.v2.u32 [%rd3], {{%r3, %r4}};\n\tret;\n}}\n"
    );
    let want: Vec<u32> = (0..32).flat_map(|lane| elect_model(mask, lane)).collect();
    KernelCase {
        family: FAMILY,
        name: format!("sm90/elect.sync/{mask:#010x}"),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: 32,
        buffers: vec![vec![0xA5; want.len() * 4]],
        args: vec![Arg::Buf(0), Arg::Value(KernelArg::U32(mask))],
        expect: vec![(0, words(&want))],
        elem: 4,
    }
    .case()
}

/// Thread 0 of each of 3 blocks writes the cluster registers, `mapa`/`getctarank` of its shared
/// variable and a word round-tripped through `.shared::cta` and `.shared::cluster`, with every
/// fence and no-effect form on the way.
fn clusters() -> Case {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<3>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<4>;\n\
         \t.shared .align 4 .b32 w;\n\
         \tgriddepcontrol.wait;\n\tsetmaxnreg.dec.sync.aligned.u32 40;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %ctaid.x;\n\
         \tmul.wide.u32 %rd2, %r1, 48;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tmov.u32 %r2, %clusterid.x;\n\tmov.u32 %r3, %nclusterid.x;\n\
         \tmov.u32 %r4, %cluster_ctaid.x;\n\tmov.u32 %r5, %cluster_nctaid.x;\n\
         \tst.global.v4.u32 [%rd3], {{%r2, %r3, %r4, %r5}};\n\
         \tmov.u32 %r6, %cluster_ctarank;\n\tmov.u32 %r7, %cluster_nctarank;\n\
         \tmov.pred %p1, %is_explicit_cluster;\n\tselp.u32 %r8, 1, 0, %p1;\n\
         \tmov.u32 %r9, w;\n\tmapa.shared::cluster.u32 %r10, %r9, 0;\n\
         \tsetp.eq.u32 %p2, %r9, %r10;\n\tselp.u32 %r11, 1, 0, %p2;\n\
         \tst.global.v4.u32 [%rd3+16], {{%r6, %r7, %r8, %r11}};\n\
         \tadd.u32 %r12, %r1, 500;\n\tst.shared::cta.u32 [w], %r12;\n\
         \tfence.proxy.async.shared::cta;\n\tfence.proxy.alias;\n\tmembar.proxy.alias;\n\
         \tfence.mbarrier_init.release.cluster;\n\
         \tfence.acquire.sync_restrict::shared::cluster.cluster;\n\
         \tld.shared::cluster.u32 %r13, [%r10];\n\
         \tgetctarank.shared::cluster.u32 %r14, %r10;\n\
         \tcreatepolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd2, 0.25;\n\
         \tst.global.L2::cache_hint.u32 [%rd3+40], %r12, %rd2;\n\
         \tld.global.L2::cache_hint.u32 %r15, [%rd3+40], %rd2;\n\
         \tst.global.v2.u32 [%rd3+32], {{%r13, %r14}};\n\
         \tst.global.u32 [%rd3+44], %r15;\n\
         \tgriddepcontrol.launch_dependents;\n\tret;\n}}\n"
    );
    let grid = 3u32;
    // Per block: %clusterid.x = %ctaid.x, %nclusterid.x = %nctaid.x, %cluster_ctaid.x 0,
    // %cluster_nctaid.x 1, rank 0 of 1, not explicit, mapa of rank 0 is the address itself; the
    // word read back, rank 0, then the hinted store and load.
    let want: Vec<u32> = (0..grid)
        .flat_map(|b| [b, grid, 0, 1, 0, 1, 0, 1, b + 500, 0, b + 500, b + 500])
        .collect();
    KernelCase {
        family: FAMILY,
        name: "sm90/clusters-of-one".into(),
        ptx,
        kernel: "k".into(),
        grid,
        block: 1,
        buffers: vec![vec![0xA5; want.len() * 4]],
        args: vec![Arg::Buf(0)],
        expect: vec![(0, words(&want))],
        elem: 4,
    }
    .case()
}

/// A kernel around one instruction, for the rejected forms.
fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \t.reg .pred %p<2>;\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // "elect.sync d|p, membermask": the predicate destination is not optional.
        ("elect-without-predicate", "elect.sync %r1, -1;", "%r1"),
        ("elect-b64-lane", "elect.sync %rd1|%p1, -1;", "%rd1"),
        // ".proxykind = { .alias, .async, .async.global, .async.shared::{cta, cluster} }".
        ("fence.proxy-without-kind", "fence.proxy;", "fence.proxy"),
        // "imm-reg-count ... in the range 24 to 256 (both inclusive) ... multiple of 8".
        (
            "setmaxnreg-not-multiple-of-8",
            "setmaxnreg.inc.sync.aligned.u32 100;",
            "100",
        ),
        (
            "setmaxnreg-above-256",
            "setmaxnreg.inc.sync.aligned.u32 264;",
            "264",
        ),
        // "createpolicy ... .b64 cache-policy".
        (
            "createpolicy-b32",
            "createpolicy.fractional.L2::evict_last.b32 %r1, 1.0;",
            ".b32",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "sm90/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = [
        0xffff_ffff,
        0x0000_0001,
        0x8000_0000,
        0xf0f0_0f00,
        0x0001_0100,
    ]
    .into_iter()
    .map(elect)
    .collect();
    v.push(clusters());
    v.extend(rejections());
    v
}
