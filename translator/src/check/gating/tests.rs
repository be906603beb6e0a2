use super::*;

/// A name the table row `op` stands for (`%pm0..3` is `%pm0`, ...).
fn sample_name(op: &str) -> &str {
    match op {
        "%pm0..3" => "%pm2",
        "%pm4..7" => "%pm5",
        "%pm_64" => "%pm3_64",
        "%envreg" => "%envreg7",
        "%cluster" => "%cluster_ctarank",
        _ => op.split('|').next().unwrap_or(op),
    }
}

/// The modifiers and operand facts of the smallest instruction a row applies to.
fn sample(gate: &Gate) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut mods = Vec::new();
    let mut facts = Vec::new();
    for cond in gate.when {
        if cond.starts_with('!') {
            continue;
        }
        let cond = cond.strip_prefix('~').unwrap_or(cond);
        let first = cond.split('|').next().unwrap_or(cond);
        if first.starts_with('<') {
            facts.push(first);
        } else {
            mods.push(first);
        }
    }
    (mods, facts)
}

fn previous_version(v: Version) -> Option<Version> {
    let i = VERSIONS.iter().position(|x| *x == v)?;
    i.checked_sub(1).map(|i| VERSIONS[i])
}

/// The highest architecture number below `sm` that a `.target` can name.
fn previous_sm(sm: u32) -> Option<u32> {
    TARGETS
        .iter()
        .filter_map(|(t, _)| sm_number(t))
        .filter(|n| *n < sm)
        .max()
}

#[test]
fn every_row_names_a_published_version_and_target() {
    let sms: Vec<u32> = TARGETS.iter().filter_map(|(t, _)| sm_number(t)).collect();
    for gate in gates().iter().chain(REMOVED) {
        assert!(VERSIONS.contains(&gate.ptx), "{gate:?}");
        assert!(gate.sm == 0 || sms.contains(&gate.sm), "{gate:?}");
    }
    for (t, v) in TARGETS {
        assert!(VERSIONS.contains(v), "{t}");
        assert!(sm_number(t).is_some(), "{t}");
    }
}

/// Generated from the table: every row's feature is accepted at exactly its minimum `.version`
/// and `.target`, and rejected one published version below, and one target below.
#[test]
fn every_row_accepted_at_its_minimum_and_rejected_below() {
    for gate in gates() {
        let (mods, facts) = sample(gate);
        let op = sample_name(gate.op);
        let at_min = Declared {
            version: gate.ptx,
            sm: gate.sm,
        };
        assert_eq!(
            first_failure(at_min, op, &mods, &facts),
            None,
            "{gate:?} must be accepted at its minimum"
        );
        if let Some(v) = previous_version(gate.ptx) {
            let below = Declared {
                version: v,
                sm: gate.sm,
            };
            assert!(
                first_failure(below, op, &mods, &facts).is_some(),
                "{gate:?} must be rejected under .version {v:?}"
            );
        }
        if let Some(sm) = previous_sm(gate.sm) {
            let below = Declared {
                version: gate.ptx,
                sm,
            };
            assert!(
                first_failure(below, op, &mods, &facts).is_some(),
                "{gate:?} must be rejected under sm_{sm}"
            );
        }
    }
}

#[test]
fn removed_forms_are_rejected_from_their_version_and_target_on() {
    for gate in REMOVED {
        let op = gate.op;
        let at = Declared {
            version: gate.ptx,
            sm: gate.sm,
        };
        assert!(removed(at, op, &[], &[]).is_some(), "{gate:?}");
        let older = Declared {
            version: previous_version(gate.ptx).unwrap_or((1, 0)),
            sm: gate.sm,
        };
        assert!(removed(older, op, &[], &[]).is_none(), "{gate:?}");
        let lower = Declared {
            version: gate.ptx,
            sm: previous_sm(gate.sm).unwrap_or(0),
        };
        assert!(removed(lower, op, &[], &[]).is_none(), "{gate:?}");
        // The `.sync` forms stay.
        assert!(removed(at, op, &["sync"], &[]).is_none(), "{gate:?}");
    }
}

/// The minimum `.version` and `sm` the table demands of `op` with `mods` (and facts).
fn need(op: &str, mods: &[&str], facts: &[&str]) -> (Version, u32) {
    let name = table_name(op);
    gates()
        .iter()
        .filter(|g| g.op.split('|').any(|o| o == name) && applies(g, mods, facts))
        .fold(((1, 0), 0), |(v, s), g| (v.max(g.ptx), s.max(g.sm)))
}

/// Entries checked one by one against the PTX ISA text: the ISA 4.1 chapters in
/// /work/shared/ptx-isa (popc, shf, fma.f32, div.rn.f64, ld.global.nc, prefetch) and NVIDIA's
/// current pages for the later instructions (each comment quotes the "PTX ISA Notes" /
/// "Target ISA Notes").
#[test]
fn entries_match_the_isa_text() {
    // "popc: Introduced in PTX ISA version 2.0. popc requires sm_20 or higher."
    assert_eq!(need("popc", &["b32"], &[]), ((2, 0), 20));
    // "shf: Introduced in PTX ISA version 3.1. Requires sm_32 or higher."
    assert_eq!(need("shf", &["l", "clamp", "b32"], &[]), ((3, 1), 32));
    // "fma.f32 introduced in PTX ISA version 2.0. fma.f32 requires sm_20 or higher."
    assert_eq!(need("fma", &["rn", "f32"], &[]), ((2, 0), 20));
    // "div.rn.f64 requires sm_13 or higher"; explicit rounding from PTX ISA 1.4.
    assert_eq!(need("div", &["rn", "f64"], &[]), ((1, 4), 13));
    // "ld.global.nc ... Requires sm_32 or higher"; introduced with sm_32 in PTX ISA 3.1.
    assert_eq!(need("ld", &["global", "nc", "u32"], &[]), ((3, 1), 32));
    // "prefetch and prefetchu require sm_20 or higher"; "Introduced in PTX ISA version 2.0."
    assert_eq!(need("prefetchu", &["L1"], &[]), ((2, 0), 20));
    // shfl.sync: "Introduced in PTX ISA version 6.0. Requires sm_30 or higher."
    assert_eq!(need("shfl", &["sync", "idx", "b32"], &[]), ((6, 0), 30));
    // atom: ".scope qualifier introduced in PTX ISA 5.0 ... requires sm_60"; ".sem qualifier
    // introduced in PTX ISA version 6.0 ... requires sm_70"; "atom.add.f64 introduced in PTX
    // ISA 5.0 ... requires sm_60"; "atom.add.noftz.f16 ... 6.3 ... sm_70"; "64-bit
    // atom.{and,or,xor,min,max} introduced in PTX ISA 3.1 ... require sm_32".
    assert_eq!(
        need("atom", &["global", "gpu", "add", "u32"], &[]),
        ((5, 0), 60)
    );
    assert_eq!(
        need("atom", &["acquire", "gpu", "global", "add", "u32"], &[]),
        ((6, 0), 70)
    );
    assert_eq!(need("atom", &["global", "add", "f64"], &[]), ((5, 0), 60));
    assert_eq!(
        need("atom", &["global", "add", "noftz", "f16"], &[]),
        ((6, 3), 70)
    );
    assert_eq!(need("atom", &["global", "and", "b64"], &[]), ((3, 1), 32));
    // cp.async: "Introduced in PTX ISA version 7.0 ... Requires sm_80"; "Support for
    // ignore-src operand introduced in PTX ISA version 7.5."
    assert_eq!(
        need("cp", &["async", "ca", "shared", "global"], &[]),
        ((7, 0), 80)
    );
    assert_eq!(
        need(
            "cp",
            &["async", "ca", "shared", "global"],
            &["<ignore-src>"]
        ),
        ((7, 5), 80)
    );
    // brx.idx: "Introduced in PTX ISA version 6.0. Requires sm_30 or higher."
    assert_eq!(need("brx", &["idx"], &[]), ((6, 0), 30));
    // call: "Indirect call introduced in PTX ISA version 2.1 ... requires sm_20 or higher."
    assert_eq!(need("call", &[], &["<indirect>"]), ((2, 1), 20));
    assert_eq!(need("call", &[], &[]), ((1, 0), 0));
    // .branchtargets: "Introduced in PTX ISA version 2.1. Requires sm_20 or higher."
    assert_eq!(need(".branchtargets", &[], &[]), ((2, 1), 20));
    // bmsk, szext: "Introduced in PTX ISA version 7.6 ... requires sm_70 or higher."
    assert_eq!(need("bmsk", &["clamp", "b32"], &[]), ((7, 6), 70));
    assert_eq!(need("szext", &["wrap", "u32"], &[]), ((7, 6), 70));
    // tanh: "Introduced in PTX ISA version 7.0. Requires sm_75"; "tanh.approx.{bf16/bf16x2}
    // introduced in PTX ISA version 7.8 ... requires sm_90".
    assert_eq!(need("tanh", &["approx", "f32"], &[]), ((7, 0), 75));
    assert_eq!(need("tanh", &["approx", "bf16"], &[]), ((7, 8), 90));
    // abs (half precision): "Introduced in PTX ISA version 6.5 ... Requires sm_53";
    // "abs.bf16 ... introduced in PTX ISA 7.0 ... requires architecture sm_80".
    assert_eq!(need("abs", &["f16"], &[]), ((6, 5), 53));
    assert_eq!(need("abs", &["bf16"], &[]), ((7, 0), 80));
    // barrier: "barrier instruction introduced in PTX ISA version 6.0 ... requires sm_30";
    // bar.warp.sync: "Introduced in PTX ISA version 6.0. Requires sm_30 or higher."
    assert_eq!(need("barrier", &["sync", "aligned"], &[]), ((6, 0), 30));
    assert_eq!(need("bar", &["warp", "sync"], &[]), ((6, 0), 30));
    assert_eq!(need("bar", &["sync"], &[]), ((1, 0), 0));
    // activemask: "Introduced in PTX ISA version 6.2. Requires sm_30 or higher."
    assert_eq!(need("activemask", &["b32"], &[]), ((6, 2), 30));
    // alloca: "Introduced in PTX ISA version 7.3 ... alloca requires sm_52 or higher."
    assert_eq!(need("alloca", &["u64"], &[]), ((7, 3), 52));
    // %clock64: "Introduced in PTX ISA version 2.0 ... requires sm_20"; "%clock_hi introduced
    // in PTX ISA version 5.0 ... requires sm_20".
    assert_eq!(need("%clock64", &[], &[]), ((2, 0), 20));
    assert_eq!(need("%clock_hi", &[], &[]), ((5, 0), 20));
    // The .target directive's notes: "Target string sm_70 introduced in PTX ISA version 6.0",
    // "sm_80 ... 7.0", "sm_90a ... 8.0", "sm_35 ... 3.1", "sm_53 ... 4.2".
    assert_eq!(target_version("sm_70"), Some((6, 0)));
    assert_eq!(target_version("compute_80"), Some((7, 0)));
    assert_eq!(target_version("sm_90a"), Some((8, 0)));
    assert_eq!(target_version("sm_35"), Some((3, 1)));
    assert_eq!(target_version("sm_53"), Some((4, 2)));
    // "The debug option requires PTX ISA version 3.0 or later."
    assert_eq!(need("debug", &[], &[]), ((3, 0), 0));
}

#[test]
fn messages_name_the_feature_and_what_the_module_declares() {
    let declared = Declared {
        version: (5, 0),
        sm: 30,
    };
    let mods = ["sync", "idx", "b32"];
    let gate = first_failure(declared, "shfl", &mods, &[]).expect("shfl.sync needs 6.0");
    assert_eq!(
        message(gate, &mods, declared),
        "`shfl.sync` requires PTX ISA 6.0 and sm_30; this module declares .version 5.0"
    );
    let declared = Declared {
        version: (7, 0),
        sm: 70,
    };
    let mods = ["async", "ca", "shared", "global"];
    let gate = first_failure(declared, "cp", &mods, &[]).expect("cp.async needs sm_80");
    assert_eq!(
        message(gate, &mods, declared),
        "`cp.async` requires PTX ISA 7.0 and sm_80; this module declares .target sm_70"
    );
}

#[test]
fn sm_numbers_and_compute_synonyms() {
    assert_eq!(sm_number("sm_90a"), Some(90));
    assert_eq!(sm_number("compute_75"), Some(75));
    assert_eq!(sm_number("sm_100f"), Some(100));
    assert_eq!(sm_number("sm_x"), None);
    assert_eq!(sm_number("sm_70q"), None);
    assert_eq!(sm_number("texmode_unified"), None);
}

/// The ISA's release history: 9.0 (CUDA 13.0) to 9.5 (CUDA 13.5), one per CUDA 13 minor
/// release, after 8.0-8.8; and the targets of those releases with their `a`/`f` variants.
#[test]
fn versions_and_targets_of_the_cuda_13_releases() {
    for minor in 0..=5 {
        assert!(VERSIONS.contains(&(9, minor)), "9.{minor}");
    }
    assert!(!VERSIONS.contains(&(8, 9)));
    assert_eq!(NEWEST, (9, 5));
    assert_eq!(VERSIONS.iter().max(), Some(&NEWEST));
    // "sm_100, sm_101 ... introduced in PTX ISA 8.6"; "sm_120 ... 8.7"; "sm_103, sm_121 and
    // the family-specific `f` targets ... 8.8"; "sm_110 ... 9.0" (sm_101 renamed sm_110 there).
    let expected = [
        ("sm_100", (8, 6)),
        ("sm_100a", (8, 6)),
        ("sm_100f", (8, 8)),
        ("sm_101", (8, 6)),
        ("sm_101a", (8, 6)),
        ("sm_103", (8, 8)),
        ("sm_103a", (8, 8)),
        ("sm_103f", (8, 8)),
        ("sm_110", (9, 0)),
        ("sm_110a", (9, 0)),
        ("sm_110f", (9, 0)),
        ("sm_120", (8, 7)),
        ("sm_120a", (8, 7)),
        ("sm_120f", (8, 8)),
        ("sm_121", (8, 8)),
        ("sm_121a", (8, 8)),
        ("sm_121f", (8, 8)),
        ("sm_107", (9, 4)),
        ("sm_107a", (9, 4)),
    ];
    for (t, v) in expected {
        assert_eq!(target_version(t), Some(v), "{t}");
        assert_eq!(
            target_version(&t.replace("sm_", "compute_")),
            Some(v),
            "{t}"
        );
    }
    assert_eq!(sm_number("sm_121f"), Some(121));
    assert_eq!(sm_number("sm_107a"), Some(107));
}

/// The rows of the later instructions against their "PTX ISA Notes" / "Target ISA Notes".
#[test]
fn later_entries_match_the_isa_text() {
    // Video (ISA 9.7.18): "vadd, vsub, vabsdiff, vmin, vmax require sm_20 or higher",
    // "Introduced in PTX ISA version 2.0"; the same for vshl, vshr, vmad, vset; the SIMD forms
    // "Introduced in PTX ISA version 3.0", "require sm_30 or higher".
    for op in ["vadd", "vabsdiff", "vshr", "vmad", "vset"] {
        assert_eq!(need(op, &["s32", "u32", "u32"], &[]), ((2, 0), 20), "{op}");
    }
    for op in ["vavrg2", "vset2", "vmax4", "vabsdiff4", "vset4"] {
        assert_eq!(need(op, &["u32", "u32", "u32"], &[]), ((3, 0), 30), "{op}");
    }
    // fence.proxy.alias and membar.proxy: PTX ISA 7.5, sm_70; the async proxy: 8.0, sm_90;
    // .tensormap::generic: 8.3; .sync_restrict and .async::generic: 8.6.
    assert_eq!(need("fence", &["proxy", "alias"], &[]), ((7, 5), 70));
    assert_eq!(
        need("fence", &["proxy", "async", "global"], &[]),
        ((8, 0), 90)
    );
    assert_eq!(
        need(
            "fence",
            &["proxy", "tensormap::generic", "release", "gpu"],
            &[]
        ),
        ((8, 3), 90)
    );
    assert_eq!(
        need(
            "fence",
            &["acquire", "sync_restrict::shared::cluster", "cluster"],
            &[]
        ),
        ((8, 6), 90)
    );
    assert_eq!(need("fence", &["sc", "gpu"], &[]), ((6, 0), 70));
    // elect.sync, setmaxnreg: PTX ISA 8.0, sm_90; griddepcontrol, mapa, getctarank, %cluster_*,
    // .reqnctapercluster: 7.8, sm_90; createpolicy: 7.4, sm_80.
    assert_eq!(need("elect", &["sync"], &[]), ((8, 0), 90));
    assert_eq!(
        need("setmaxnreg", &["inc", "sync", "aligned", "u32"], &[]),
        ((8, 0), 90)
    );
    assert_eq!(need("griddepcontrol", &["wait"], &[]), ((7, 8), 90));
    assert_eq!(need("mapa", &["shared::cluster", "u32"], &[]), ((7, 8), 90));
    assert_eq!(need("%cluster_nctarank", &[], &[]), ((7, 8), 90));
    assert_eq!(need("%is_explicit_cluster", &[], &[]), ((7, 8), 90));
    assert_eq!(need(".reqnctapercluster", &[], &[]), ((7, 8), 90));
    assert_eq!(
        need(
            "createpolicy",
            &["fractional", "L2::evict_last", "b64"],
            &[]
        ),
        ((7, 4), 80)
    );
}

/// The warp-level matrix instructions, from their "PTX ISA Notes" and "Target ISA Notes":
/// ldmatrix 6.5/sm_75; movmatrix 7.8/sm_75; stmatrix 7.8/sm_90; mma 6.4/sm_70 (.m8n8k4),
/// 6.5/sm_75 (.m8n8k16/.m8n8k32/.m8n8k128, .m16n8k8 with .f16), 7.0/sm_80 (the other
/// .m16n8 shapes, .bf16, .tf32, .m8n8k4 with .f64), 7.1 (.and.popc), 7.8/sm_90 (.m16n8 .f64),
/// 8.4/sm_89 (.e4m3/.e5m2 .m16n8k32), 8.7 (.e4m3/.e5m2 .m16n8k16); mma.sp 7.1/sm_80 and
/// mma.sp::ordered_metadata 8.5/sm_80.
#[test]
fn matrix_instructions() {
    let sync = ["sync", "aligned"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        sync.iter().copied().chain(extra.iter().copied()).collect()
    };
    assert_eq!(
        need("ldmatrix", &with(&["m8n8", "x4", "b16"]), &[]),
        ((6, 5), 75)
    );
    assert_eq!(
        need("movmatrix", &with(&["m8n8", "trans", "b16"]), &[]),
        ((7, 8), 75)
    );
    assert_eq!(
        need("stmatrix", &with(&["m8n8", "x1", "b16"]), &[]),
        ((7, 8), 90)
    );
    let mma = |m: &[&'static str]| need("mma", &with(m), &[]);
    assert_eq!(
        mma(&["m8n8k4", "row", "col", "f32", "f16", "f16", "f32"]),
        ((6, 4), 70)
    );
    assert_eq!(
        mma(&["m16n8k8", "row", "col", "f16", "f16", "f16", "f16"]),
        ((6, 5), 75)
    );
    assert_eq!(
        mma(&["m8n8k16", "row", "col", "s32", "s8", "s8", "s32"]),
        ((6, 5), 75)
    );
    assert_eq!(
        mma(&["m16n8k16", "row", "col", "f32", "bf16", "bf16", "f32"]),
        ((7, 0), 80)
    );
    assert_eq!(
        mma(&["m16n8k8", "row", "col", "f32", "tf32", "tf32", "f32"]),
        ((7, 0), 80)
    );
    assert_eq!(
        mma(&["m8n8k4", "row", "col", "f64", "f64", "f64", "f64"]),
        ((7, 0), 80)
    );
    assert_eq!(
        mma(&[
            "m16n8k256",
            "row",
            "col",
            "s32",
            "b1",
            "b1",
            "s32",
            "and",
            "popc"
        ]),
        ((7, 1), 80)
    );
    assert_eq!(
        mma(&["m16n8k8", "row", "col", "f64", "f64", "f64", "f64"]),
        ((7, 8), 90)
    );
    assert_eq!(
        mma(&["m16n8k32", "row", "col", "f32", "e4m3", "e5m2", "f32"]),
        ((8, 4), 89)
    );
    assert_eq!(
        mma(&["m16n8k16", "row", "col", "f32", "e4m3", "e4m3", "f32"]),
        ((8, 7), 89)
    );
    // .kind::f8f6f4 (any of its types): 8.7/sm_120a.
    assert_eq!(
        mma(&[
            "m16n8k32",
            "row",
            "col",
            "kind::f8f6f4",
            "f16",
            "e2m1",
            "e3m2",
            "f16"
        ]),
        ((8, 7), 120)
    );
    assert_eq!(
        mma(&[
            "m16n8k32",
            "row",
            "col",
            "kind::f8f6f4",
            "f32",
            "e4m3",
            "e4m3",
            "f32"
        ]),
        ((8, 7), 120)
    );
    // mma.sp: 7.1/sm_80; ::ordered_metadata 8.5/sm_80; .e4m3/.e5m2 8.4/sm_89.
    let sp = |m: &[&'static str]| need("mma", &[&m[..1], &with(&m[1..])].concat(), &[]);
    assert_eq!(
        sp(&["sp", "m16n8k16", "row", "col", "f16", "f16", "f16", "f16"]),
        ((7, 1), 80)
    );
    assert_eq!(
        sp(&[
            "sp::ordered_metadata",
            "m16n8k32",
            "row",
            "col",
            "s32",
            "u8",
            "s8",
            "s32"
        ]),
        ((8, 5), 80)
    );
    assert_eq!(
        sp(&["sp", "m16n8k64", "row", "col", "f32", "e4m3", "e5m2", "f32"]),
        ((8, 4), 89)
    );
    // wmma: 6.0/sm_70; .m32n8k16/.m8n32k16: 6.1; .s8/.u8: 6.3/sm_72; .bf16, .tf32: 7.0/sm_80.
    assert_eq!(
        need("wmma", &with(&["load", "a", "row", "m16n16k16", "s8"]), &[]),
        ((6, 3), 72)
    );
    assert_eq!(
        need(
            "wmma",
            &with(&[
                "mma", "row", "col", "m16n16k8", "f32", "tf32", "tf32", "f32"
            ]),
            &[]
        ),
        ((7, 0), 80)
    );
    assert_eq!(
        need(
            "wmma",
            &with(&["load", "a", "row", "m16n16k16", "f16"]),
            &[]
        ),
        ((6, 0), 70)
    );
    assert_eq!(
        need(
            "wmma",
            &with(&["mma", "row", "col", "m32n8k16", "f32", "f32"]),
            &[]
        ),
        ((6, 1), 70)
    );
}
