//! What compilers for sm_90 and later write around the memory system and clusters: proxy fences,
//! `elect.sync`, `griddepcontrol`, `setmaxnreg`, `createpolicy` and cache-hint operands,
//! `.shared::cta`/`.shared::cluster`, the cluster special registers, `mapa` and `getctarank`.
//! Each form checks, translates for every warp strategy (lavapipe's emulation, NVIDIA's native
//! 32-wide subgroups, AMD's partitions) and the SPIR-V passes SPIRV-Tools; malformed forms are
//! refused at the operand or modifier at fault. What the forms compute is run in
//! runtime/tests/modern.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn kernel(body: &str) -> String {
    format!(
        ".version 9.4\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\t.reg .f32 %f<2>;\n\
         \t.shared .align 16 .b8 sh[256];\n\
         {body}\n\tret;\n}}\n"
    )
}

fn profiles() -> Vec<DeviceProfile> {
    ["lavapipe", "nvidia", "amd-rdna"]
        .iter()
        .map(|n| DeviceProfile::named(n).expect("a named profile"))
        .collect()
}

/// Checks and translates `body` for every warp strategy; each module passes SPIRV-Tools.
fn translates(body: &str) {
    let program = Program::parse(SourceFile::new("k.ptx", kernel(body)))
        .unwrap_or_else(|d| panic!("{body}:\n{d}"));
    for profile in profiles() {
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{body} for {}:\n{d}", profile.name));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{body} for {}: invalid SPIR-V: {e}", profile.name);
        }
    }
}

/// `body` is refused with an error containing `message` whose span starts where `at` is
/// written in it (at one of the places, when it is written more than once).
fn refused(body: &str, message: &str, at: &str) {
    let src = kernel(body);
    let d = match Program::parse(SourceFile::new("bad.ptx", src.clone())) {
        Ok(_) => panic!("`{body}` was accepted"),
        Err(d) => d,
    };
    let base = src.find(body).expect("body in source");
    let starts: Vec<usize> = body.match_indices(at).map(|(i, _)| base + i).collect();
    assert!(!starts.is_empty(), "`{at}` is not in `{body}`");
    let hit = d
        .errors()
        .any(|e| e.message.contains(message) && starts.contains(&(e.span.start as usize)));
    assert!(
        hit,
        "`{body}`: no error `{message}` at `{at}`:\n{}",
        d.short()
    );
}

/// ISA "membar/fence": every proxy kind of the bidirectional form, the unidirectional
/// tensormap and async::generic forms, `.mbarrier_init`, `.sync_restrict`, `.acquire/.release`.
#[test]
fn every_fence_form_translates() {
    translates(
        "\tfence.proxy.alias;\n\tfence.proxy.async;\n\tfence.proxy.async.global;\n\
         \tfence.proxy.async.shared::cta;\n\tfence.proxy.async.shared::cluster;\n\
         \tmembar.proxy.alias;\n\tmembar.proxy.async.shared::cta;\n\
         \tld.param.u64 %rd1, [out];\n\
         \tfence.proxy.tensormap::generic.release.gpu;\n\
         \tfence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;\n\
         \tfence.proxy.tensormap::generic.acquire.sys [%rd1+128], 128;\n\
         \tfence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;\n\
         \tfence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;\n\
         \tfence.mbarrier_init.release.cluster;\n\
         \tfence.acquire.sync_restrict::shared::cluster.cluster;\n\
         \tfence.release.sync_restrict::shared::cta.cluster;\n\
         \tfence.acquire.gpu;\n\tfence.release.cta;\n\tfence.sc.cluster;\n\tfence.acq_rel.sys;",
    );
}

#[test]
fn malformed_fences_are_refused_where_they_go_wrong() {
    refused("\tfence.proxy;", "needs a proxy kind", "fence");
    refused(
        "\tfence.proxy.tensormap::generic.gpu;",
        "needs `.acquire` or `.release`",
        "fence",
    );
    refused(
        "\tld.param.u64 %rd1, [out];\n\tfence.proxy.tensormap::generic.acquire.gpu [%rd1], 96;",
        "is the constant 128",
        "96",
    );
    refused(
        "\tfence.acquire.sync_restrict::shared::cta.cluster;",
        "needs `.release`",
        ".sync_restrict",
    );
    refused(
        "\tfence.release.sync_restrict::shared::cta.gpu;",
        "scope `.cluster` only",
        "fence",
    );
    refused("\tfence.sc;", "needs a scope", "fence");
    refused(
        "\tmembar.proxy.tensormap::generic.release.gpu;",
        "needs a proxy kind",
        "membar",
    );
}

/// ISA "elect.sync": `d|p` with `d` a `.b32` register or `_`, and a `.b32` membermask.
#[test]
fn elect_translates_with_and_without_the_lane() {
    translates(
        "\telect.sync %r1|%p1, 0xffffffff;\n\telect.sync _|%p2, %r1;\n\
         \tselp.u32 %r2, 1, 0, %p1;\n\tselp.u32 %r3, 1, 0, %p2;",
    );
    refused(
        "\telect.sync %p1, -1;",
        "writes a lane and a predicate",
        "%p1",
    );
    refused("\telect %r1|%p1, -1;", "needs `.sync`", "elect");
    refused("\telect.sync %rd1|%p1, -1;", "", "%rd1");
}

/// ISA "griddepcontrol" and "setmaxnreg": accepted, no effect; the register count is a
/// constant multiple of 8 in 24..=256.
#[test]
fn griddepcontrol_and_setmaxnreg_translate() {
    translates(
        "\tgriddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;\n\
         \tsetmaxnreg.inc.sync.aligned.u32 240;\n\tsetmaxnreg.dec.sync.aligned.u32 24;",
    );
    refused("\tgriddepcontrol;", "needs an action", "griddepcontrol");
    refused(
        "\tsetmaxnreg.inc.sync.aligned.u32 100;",
        "multiple of 8 in 24..=256",
        "100",
    );
    refused(
        "\tsetmaxnreg.inc.sync.aligned.u32 %r1;",
        "multiple of 8 in 24..=256",
        "%r1",
    );
    refused("\tsetmaxnreg.inc.u32 64;", "needs `.sync`", "setmaxnreg");
}

/// ISA "createpolicy": the fractional, range and cvt forms, and the policy consumed by
/// `.L2::cache_hint` on ld, st, atom and cp.async.
#[test]
fn createpolicy_and_cache_hints_translate() {
    translates(
        "\tld.param.u64 %rd1, [out];\n\
         \tcreatepolicy.fractional.L2::evict_last.b64 %rd2, 1.0;\n\
         \tcreatepolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd3, 0.5;\n\
         \tcreatepolicy.fractional.L2::evict_first.b64 %rd4;\n\
         \tcreatepolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd5, [%rd1], 64, 128;\n\
         \tcreatepolicy.cvt.L2.b64 %rd6, %rd5;\n\
         \tld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;\n\
         \tst.global.L2::cache_hint.u32 [%rd1+4], %r1, %rd3;\n\
         \tatom.global.add.L2::cache_hint.u32 %r2, [%rd1+8], 1, %rd4;\n\
         \tmov.u32 %r3, sh;\n\
         \tcp.async.ca.shared.global.L2::cache_hint [%r3], [%rd1], 16, %rd6;\n\
         \tcp.async.wait_all;",
    );
    refused(
        "\tcreatepolicy.fractional.b64 %rd2, 1.0;",
        "needs a primary priority",
        "createpolicy",
    );
    refused(
        "\tcreatepolicy.fractional.L2::evict_last.b32 %r2, 1.0;",
        "does not take type",
        ".b32",
    );
}

/// `.shared::cta` and `.shared::cluster` name the block's shared memory (clusters are one
/// block), on ld, st, atom, red, cvta and isspacep.
#[test]
fn shared_cta_and_cluster_spellings_translate() {
    translates(
        "\tmov.u32 %r1, sh;\n\tst.shared::cta.u32 [%r1], 5;\n\
         \tld.shared::cluster.u32 %r2, [%r1];\n\
         \tatom.shared::cluster.add.u32 %r3, [%r1], 1;\n\
         \tred.shared::cta.add.u32 [%r1], 1;\n\
         \tcvta.shared::cluster.u64 %rd1, %rd2;\n\
         \tcvta.to.shared::cta.u64 %rd3, %rd1;\n\
         \tisspacep.shared::cluster %p1, %rd1;\n\
         \tld.shared::cta.v2.u32 {%r4, %r5}, [sh+8];",
    );
}

/// ISA "Special Registers": %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid (`.v4
/// .u32`), %cluster_ctarank, %cluster_nctarank (`.u32`), %is_explicit_cluster (`.pred`); and
/// `mapa`/`getctarank` in both address forms.
#[test]
fn cluster_registers_mapa_and_getctarank_translate() {
    translates(
        "\tmov.u32 %r1, %clusterid.x;\n\tmov.u32 %r2, %nclusterid.y;\n\
         \tmov.u32 %r3, %cluster_ctaid.z;\n\tmov.u32 %r4, %cluster_nctaid.x;\n\
         \tmov.u32 %r5, %cluster_ctarank;\n\tmov.u32 %r6, %cluster_nctarank;\n\
         \tmov.pred %p1, %is_explicit_cluster;\n\
         \tmov.u32 %r7, sh;\n\tmapa.shared::cluster.u32 %r1, %r7, 0;\n\
         \tmov.u64 %rd1, sh;\n\tmapa.u64 %rd2, %rd1, %r5;\n\
         \tgetctarank.shared::cluster.u32 %r2, %r7;\n\tgetctarank.u64 %r3, %rd2;",
    );
    refused("\tmapa.u64 %rd2, %rd1;", "takes 3 operands", "mapa");
    refused("\tmov.u64 %rd1, %cluster_ctarank;", "", "%cluster_ctarank");
}

/// Function-scope `.global`/`.const` variables (static storage, with initializers) and vector
/// registers named whole as `mov`'s packed operand (ISA 8.7.6.3: `.b64` holds 2 or 4 elements
/// of the register's type).
#[test]
fn function_scope_globals_and_whole_vector_registers_translate() {
    translates(
        "\t.global .align 4 .u32 counter;\n\t.const .align 4 .u32 table[2] = {3, 4};\n\
         \t.reg .v2 .u32 %v;\n\t.reg .v4 .u16 %h;\n\
         \tld.const.u32 %r1, [table+4];\n\tatom.global.add.u32 %r2, [counter], %r1;\n\
         \tmov.b64 %rd1, {%r1, %r2};\n\tmov.b64 %v, %rd1;\n\tmov.b64 %rd2, %v;\n\
         \tmov.b64 %h, %rd2;\n\tmov.b64 %rd3, %h;\n\tmov.u64 %rd4, counter;",
    );
    refused(
        "\t.reg .v4 .u32 %q;\n\tmov.b64 %rd1, %q;",
        "a .u32 operand does not match the .b16 instruction type",
        "%q;",
    );
}

/// A kernel that asks for clusters of more than one block is refused at the directive (each
/// block runs as a cluster of one); a cluster of one is the launch ptxvk makes anyway.
#[test]
fn clusters_of_several_blocks_are_refused() {
    let src = |dims: &str| {
        format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k() .reqnctapercluster {dims} {{ ret; }}\n"
        )
    };
    let ok = Program::parse(SourceFile::new("k.ptx", src("1, 1, 1")));
    assert!(ok.is_ok(), "{:?}", ok.err().map(|d| d.short()));
    let text = src("2, 1, 1");
    let d = match Program::parse(SourceFile::new("k.ptx", text.clone())) {
        Ok(_) => panic!("a cluster of 2 blocks was accepted"),
        Err(d) => d,
    };
    let at = text.find(".reqnctapercluster").expect("directive");
    assert!(
        d.errors()
            .any(|e| e.message.contains("clusters of 2 blocks") && e.span.start as usize == at),
        "{}",
        d.short()
    );
}

/// ISA 9.7.18: the video instructions' selectors are operands (`%r.b0`, `%r.h10`, `%r.b7654`),
/// parsed by both parsers and checked by the decoder; wrong ones are refused where written.
#[test]
fn video_forms_translate_and_bad_selectors_are_refused() {
    translates(
        "\tvadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h0;\n\
         \tvabsdiff.s32.s32.s32.sat %r1.h0, %r2.b0, %r3.b2, %r4;\n\
         \tvmin.u32.s32.u32.max %r1, %r2, %r3, %r4;\n\
         \tvshl.s32.s32.u32.clamp %r1.b3, %r2, %r3.h1, %r4;\n\
         \tvadd2.s32.s32.u32.sat %r1.h10, %r2.h10, %r3.h32, %r1;\n\
         \tvavrg4.u32.u32.u32.add %r1.b20, %r2.b7654, %r3, %r1;\n\
         \tvset.s32.u32.lt %r1, %r2, %r3.h1;\n\tvset.u32.u32.ne.add %r1, %r2, %r3, %r4;\n\
         \tvset2.s32.s32.ge.add %r1.h1, %r2.h03, %r3, %r4;\n\tvset4.u32.s32.eq %r1, %r2, %r3, %r4;",
    );
    refused(
        "\tvset.u32.u32.u32.lt %r1, %r2, %r3;",
        "not a modifier",
        ".u32",
    );
    refused(
        "\tvset.u32.u32 %r1, %r2, %r3;",
        "needs a comparison",
        "vset",
    );
    refused(
        "\tvset.u32.u32.lt.sat %r1, %r2, %r3;",
        "not a modifier",
        ".sat",
    );
    refused(
        "\tvadd.u32.u32.u32 %r1, %r2.h2, %r3;",
        "expected `.b0`",
        "%r2.h2",
    );
    refused(
        "\tvadd2.u32.u32.u32 %r1, %r2.h4, %r3, %r4;",
        "`.hxy`",
        "%r2.h4",
    );
    refused(
        "\tvmax4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;",
        "a mask of lanes",
        "%r1.b02",
    );
    refused(
        "\tvadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;",
        "`.sat` cannot",
        ".add",
    );
    refused(
        "\tvshr.u32.u32.u32 %r1, %r2, %r3;",
        "needs a shift mode",
        "vshr",
    );
    refused(
        "\tvshl.u32.u32.s32.wrap %r1, %r2, %r3;",
        "does not take type",
        ".s32",
    );
    refused(
        "\tadd.u32 %r1, %r2.b0, 1;",
        "operands of the video instructions only",
        "%r2.b0",
    );
    refused(
        "\tvadd.u32.u32.u32.add %r1.h0, %r2, %r3, %r4;",
        "no secondary operation",
        "%r1.h0",
    );
    refused(
        "\tvadd.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "takes 3 operands",
        "vadd",
    );
}

/// ISA 9.7.18.1.3 `vmad`: negated operands (`-a`, `-b`, `-c`, with or without a selector), `.po`,
/// `.sat`, `.shr7/.shr15`; the product or `c` may be negated, not both, and nothing under `.po`.
#[test]
fn vmad_forms_translate_and_its_negation_rules_hold() {
    translates(
        "\tvmad.s32.s32.u32.sat %r1, %r2, %r3, -%r4;\n\
         \tvmad.u32.u32.u32.shr15 %r1, %r2.h0, %r3.h0, %r4;\n\
         \tvmad.s32.u32.s32.sat.shr7 %r1, -%r2.b1, %r3.h1, %r4;\n\
         \tvmad.u32.u32.u32.po.sat %r1, %r2, %r3, %r4;\n\
         \tvmad.s32.s32.s32 %r1, -%r2, -%r3, %r4;",
    );
    refused(
        "\tvmad.s32.s32.s32 %r1, -%r2, %r3, -%r4;",
        "the product or `c`, not both",
        "-%r4",
    );
    refused(
        "\tvmad.u32.u32.u32.po %r1, %r2, -%r3.h1, %r4;",
        "takes no negated operand",
        "-%r3.h1",
    );
    refused(
        "\tvadd.s32.s32.s32 %r1, -%r2.b0, %r3;",
        "only `vmad` takes negated operands",
        "-%r2.b0",
    );
}
