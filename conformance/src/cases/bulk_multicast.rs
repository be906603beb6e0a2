//! ISA 9.7.9.25.4.1 `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
//! .multicast::cluster`: "the source data is multicast to the same CTA-relative offset as
//! dstMem in the shared memory of each destination CTA", the CTAs that `ctaMask`'s bits name by
//! cluster rank, each with its mbarrier's complete-tx. A kernel launched without a cluster runs
//! in a cluster of one CTA, rank 0, so the model is: the copy and its transaction happen when
//! bit 0 is set, and nothing happens otherwise (the other bits name no CTA); a constant mask
//! naming other CTAs is refused, as ptxvk cannot honour it.

use super::kernel_case::{Arg, KernelCase, rejected_line};
use crate::Case;
use ptxvk_runtime::KernelArg;

const FAMILY: &str = "9.7.9.25.4.1 cp.async.bulk";
const HEADER: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";
const BYTES: usize = 256;
const FILL: u8 = 0x5a;
const THREADS: u32 = 64;

/// Every thread fills `tile` with [`FILL`]; thread 0 announces `tx` bytes on the mbarrier and
/// multicasts `BYTES` bytes of `src` into `tile` with `mask` (a register from the `mask`
/// parameter, or the constant `constant`); every thread waits for the phase and copies the
/// tile to `out`, thread 0 then whether the phase completed.
fn kernel(constant: Option<u16>) -> String {
    let mask = match constant {
        Some(m) => format!("{m}"),
        None => "%rs1".into(),
    };
    format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 src, .param .u32 mask, \
         .param .u32 tx)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %rs<2>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 16 .b8 tile[{BYTES}];\n\t.shared .align 8 .b64 bar;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [src];\n\
         \tld.param.u32 %r10, [mask];\n\tcvt.u16.u32 %rs1, %r10;\n\tld.param.u32 %r11, [tx];\n\
         \tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\
         \tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, tile;\n\tadd.u32 %r3, %r3, %r2;\n\
         \tst.shared.u32 [%r3], {};\n\
         \t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
         \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tbar.sync 0;\n\t@%p1 bra WAIT;\n\
         \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], %r11;\n\
         \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd2], {BYTES}, [bar], {mask};\n\
         WAIT:\n\tmov.u32 %r4, 0;\n\
         TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
         \tadd.u32 %r4, %r4, 1;\n\tsetp.lt.u32 %p3, %r4, 1000;\n\t@%p3 bra TRY;\n\
         DONE:\n\tselp.u32 %r5, 1, 0, %p2;\n\
         \tld.shared.u32 %r6, [%r3];\n\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
         \tst.global.u32 [%rd5], %r6;\n\
         \t@%p1 bra END;\n\tst.global.u32 [%rd1+{BYTES}], %r5;\nEND:\n\tret;\n}}\n",
        u32::from_le_bytes([FILL; 4])
    )
}

fn case(name: &str, constant: Option<u16>, mask: u16) -> Case {
    let src: Vec<u8> = (0..BYTES).map(|i| (i * 7 + 3) as u8).collect();
    // Rank 0 receives the copy, and its mbarrier the bytes, iff the mask names it.
    let copied = mask & 1 == 1;
    let mut want = if copied {
        src.clone()
    } else {
        vec![FILL; BYTES]
    };
    want.extend(1u32.to_le_bytes());
    let tx = if copied { BYTES as u32 } else { 0 };
    KernelCase {
        family: FAMILY,
        name: format!("bulk/multicast/{name}"),
        ptx: kernel(constant),
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![vec![0xa5; BYTES + 4], src],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::Value(KernelArg::U32(u32::from(mask))),
            Arg::Value(KernelArg::U32(tx)),
        ],
        expect: vec![(0, want)],
        elem: 4,
    }
    .case()
}

fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 g)\n{{\n\t.reg .b16 %rs<4>;\n\t.reg .b64 %rd<4>;\n\
         \t.shared .align 16 .b8 t[256];\n\t.shared .align 8 .b64 b;\n\
         \tld.param.u64 %rd1, [g];\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // Ranks 1 and up do not exist in ptxvk's one-block clusters.
        (
            "multicast-to-other-ctas",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
             [t], [%rd1], 256, [b], 0x0003;",
            "0x0003",
        ),
        // Only the copy from global memory into `.shared::cluster` multicasts.
        (
            "multicast-into-cta",
            "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster \
             [t], [%rd1], 256, [b], %rs1;",
            "multicast::cluster",
        ),
        (
            "multicast-store",
            "cp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [%rd1], [t], 256, %rs1;",
            "multicast::cluster",
        ),
        // `ctaMask` is a 16-bit operand.
        (
            "multicast-mask-width",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
             [t], [%rd1], 256, [b], %rd2;",
            "%rd2",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "bulk/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = vec![
        case("constant-mask", Some(1), 1),
        case("register-mask", None, 1),
        // Bits naming CTAs the cluster does not have are ignored; rank 0's decides.
        case("register-mask-other-bits", None, 0x8001),
        case("register-mask-without-rank-0", None, 0x0006),
    ];
    v.extend(rejections());
    v
}
