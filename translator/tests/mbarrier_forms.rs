//! `mbarrier` and the bulk asynchronous copies as sm_90 compilers write them: every form
//! checks, translates for every warp strategy (lavapipe's emulation, NVIDIA's native 32-wide
//! subgroups, AMD's partitions) and passes SPIRV-Tools; forms the ISA does not have are
//! refused. What they compute is run by the conformance suite's mbarrier family.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn kernel(body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\
         \t.shared .align 8 .b64 bar;\n\t.shared .align 16 .b8 tile[256];\n\
         \tld.param.u64 %rd1, [out];\n\
         {body}\n\tret;\n}}\n"
    )
}

fn translates(body: &str) {
    let program = Program::parse(SourceFile::new("k.ptx", kernel(body)))
        .unwrap_or_else(|d| panic!("{body}:\n{d}"));
    for name in ["lavapipe", "nvidia", "amd-rdna"] {
        let profile = DeviceProfile::named(name).expect("a named profile");
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{body} for {name}:\n{d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{body} for {name}: invalid SPIR-V: {e}");
        }
    }
}

fn refused(body: &str, message: &str) {
    match Program::parse(SourceFile::new("bad.ptx", kernel(body))) {
        Ok(_) => panic!("`{body}` was accepted"),
        Err(d) => assert!(
            d.errors().any(|e| e.message.contains(message)),
            "`{body}`: no error `{message}`:\n{d}"
        ),
    }
}

#[test]
fn every_mbarrier_form_translates() {
    translates(
        "\tmbarrier.init.shared::cta.b64 [bar], 32;\n\
         \tmbarrier.init.b64 [%rd1], %r1;\n\
         \tmbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [bar], 128;\n\
         \tmbarrier.complete_tx.shared::cta.b64 [bar], %r2;\n\
         \tmbarrier.arrive.shared.b64 %rd2, [bar];\n\
         \tmbarrier.arrive.release.cta.shared::cta.b64 %rd2, [bar], 2;\n\
         \tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];\n\
         \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], 256;\n\
         \tmbarrier.arrive.noComplete.shared.b64 %rd2, [bar], 1;\n\
         \tmbarrier.arrive_drop.shared.b64 %rd2, [bar];\n\
         \tmbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd2, [bar], 64;\n\
         \tmbarrier.arrive_drop.noComplete.shared.b64 %rd2, [bar], 1;\n\
         \tmbarrier.pending_count.b64 %r3, %rd2;\n\
         \tmbarrier.test_wait.shared.b64 %p1, [bar], %rd2;\n\
         \tmbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %p1, [bar], %r3;\n\
         WAIT:\n\
         \tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0, 100;\n\
         \t@!%p2 bra WAIT;\n\
         \tmbarrier.try_wait.relaxed.cluster.shared::cta.b64 %p2, [bar], %rd2;\n\
         \tmbarrier.inval.shared.b64 [bar];",
    );
}

#[test]
fn every_bulk_copy_form_translates() {
    translates(
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 256, [bar];\n\
         \tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [tile], [%rd1], %r1, [bar];\n\
         \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [%rd1], 64, [bar], %rd3;\n\
         \tcp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [tile], [tile+128], 128, [bar];\n\
         \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1], 256, [bar], %rs1;\n\
         \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint \
         [tile], [%rd1], %r1, [bar], 1, %rd3;\n\
         \tcp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 256;\n\
         \tcp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [tile], 32, %rd3;\n\
         \tcp.async.bulk.prefetch.L2.global [%rd1], 256;\n\
         \tcp.async.bulk.commit_group;\n\
         \tcp.async.bulk.wait_group 1;\n\
         \tcp.async.bulk.wait_group.read 0;\n\
         \tcp.async.mbarrier.arrive.shared.b64 [bar];\n\
         \tcp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];",
    );
}

#[test]
fn forms_outside_the_isa_are_refused() {
    refused(
        "\tmbarrier.test_wait.shared::cluster.b64 %p1, [bar], %rd2;",
        "only the arrive, expect_tx and complete_tx forms",
    );
    refused(
        "\tmbarrier.arrive.acquire.cta.shared.b64 %rd2, [bar];",
        "memory order",
    );
    refused(
        "\tmbarrier.arrive.shared::cluster.b64 %rd2, [bar];",
        "must be `_`",
    );
    refused("\tmbarrier.init.shared.b64 [bar];", "takes 2 operands");
    refused(
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 24, [bar];",
        "not a multiple of 16",
    );
    refused(
        "\tcp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [%rd1], [tile], 32, [bar];",
        "`cp.async.bulk` copies",
    );
}

#[test]
fn multicast_beyond_the_one_block_cluster_is_refused() {
    // ptxvk's clusters hold one block: a constant mask naming other ranks cannot be honoured.
    refused(
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1], 256, [bar], 2;",
        "only bit 0 can be honoured",
    );
    // Only the copy from global memory into `.shared::cluster` multicasts.
    for body in [
        "\tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1], 256, [bar], %rs1;",
        "\tcp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [tile+128], 128, [bar], %rs1;",
        "\tcp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [%rd1], [tile], 256, %rs1;",
    ] {
        refused(body, "`.multicast::cluster` is for copies from `.global`");
    }
    refused(
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1], 256, [bar];",
        "takes 5 operands",
    );
}

#[test]
fn older_targets_are_gated() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .visible .entry k()\n{\n\t.reg .pred %p;\n\t.shared .align 8 .b64 bar;\n\
               \tmbarrier.try_wait.parity.shared.b64 %p, [bar], 0;\n\tret;\n}\n";
    match Program::parse(SourceFile::new("old.ptx", src.to_string())) {
        Ok(_) => panic!("try_wait accepted for sm_80"),
        Err(d) => assert!(d.errors().any(|e| e.message.contains("sm_90")), "{d}"),
    }
}
