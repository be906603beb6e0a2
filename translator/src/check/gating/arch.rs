//! Architecture- and family-specific features: those an `sm_XXXa` target enables on that one
//! architecture, and the ones NVIDIA extends to the `sm_XXXf` family targets (PTX ISA 8.8),
//! which a later member of the family (its `a` and `f` targets) also has. A plain `sm_XXX`
//! target, or one of another family, has none of them whatever its number, so these rows sit
//! beside the version/number rows of [`super::FORM_GATES`] rather than in them.

use super::applies;
pub use super::target::{Arch, Suffix};

/// One row: instructions `op` meeting `when` (as in [`super::Gate`]) need a target with a
/// suffix whose architecture is one of `family` (the first being the one that introduced the
/// feature), an `f` suffix doing unless `specific_only`; `what` names the feature. An error
/// points at the modifier of the first condition.
#[derive(Clone, Copy, Debug)]
pub struct ArchGate {
    pub op: &'static str,
    pub when: &'static [&'static str],
    pub family: &'static [u32],
    pub specific_only: bool,
    pub what: &'static str,
}

/// The rows. Each feature's "Target ISA Notes": "requires sm_120a", "supported on sm_120f or
/// higher in the same family from PTX ISA 8.8"; sm_121 is the sm_120 family's other member.
pub const ARCH_GATES: &[ArchGate] = &[
    ArchGate {
        op: "mma",
        when: &["kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4|block_scale"],
        family: &[120, 121],
        specific_only: false,
        what: "block-scaled `mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`)",
    },
    // `mma.sp`'s notes take the mxf4 kinds out of the family: "except for
    // .kind::mxf4nvf4/.kind::mxf4 ... supported on following architectures: sm_120a, sm_121a".
    ArchGate {
        op: "mma",
        when: &["sp::ordered_metadata|sp", "kind::mxf4|kind::mxf4nvf4"],
        family: &[120, 121],
        specific_only: true,
        what: "sparse `mma` with `.kind::mxf4` or `.kind::mxf4nvf4`",
    },
    ArchGate {
        op: "mma",
        when: &["kind::f8f6f4"],
        family: &[120, 121],
        specific_only: false,
        what: "`mma.kind::f8f6f4`",
    },
    // `tensormap.replace` is sm_90a's, and the later architectures' (`cuda::ptx`'s table of
    // the ISA: "SM_90a, SM_100a, SM_100f, SM_103a, SM_103f, SM_110a, SM_110f, SM_120a,
    // SM_120f, SM_121a, SM_121f"); `tensormap.cp_fenceproxy` is plain sm_90.
    ArchGate {
        op: "tensormap",
        when: &["replace"],
        family: &[90, 100, 103, 110, 120, 121],
        specific_only: false,
        what: "`tensormap.replace`",
    },
    // `cp.async.bulk.tensor`'s notes: `.im2col::w` requires "sm_100a when destination state
    // space is .shared::cluster and is supported on sm_100f from PTX ISA version 8.8", sm_100
    // or higher into `.shared::cta`; `.im2col::w::128` is sm_100a's, sm_101a's (renamed sm_110a)
    // and their families'. The prefetch's table row gates both wide modes the same way.
    ArchGate {
        op: "cp",
        when: &["im2col::w", "shared::cluster", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "`cp.async.bulk.tensor` in `.im2col::w` into `.shared::cluster`",
    },
    ArchGate {
        op: "cp",
        when: &["im2col::w::128", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "the `.im2col::w::128` load mode",
    },
    ArchGate {
        op: "cp",
        when: &["im2col::w", "prefetch", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "`cp.async.bulk.prefetch.tensor` in `.im2col::w`",
    },
    // "Qualifiers .tile::gather4 and .im2col::w require: sm_100a when destination state space is
    // .shared::cluster and is supported on sm_100f from PTX ISA version 8.8" (sm_100 or higher
    // into `.shared::cta`); `.tile::scatter4` is sm_100a's, sm_101a's (sm_110a) and their
    // families'. The prefetch's table row gates its `.tile::gather4` as the wide modes'.
    ArchGate {
        op: "cp",
        when: &["tile::gather4", "shared::cluster", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "`cp.async.bulk.tensor` in `.tile::gather4` into `.shared::cluster`",
    },
    ArchGate {
        op: "cp",
        when: &["tile::gather4", "prefetch", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "`cp.async.bulk.prefetch.tensor` in `.tile::gather4`",
    },
    ArchGate {
        op: "cp",
        when: &["tile::scatter4", "tensor"],
        family: &[100, 101, 103, 110],
        specific_only: false,
        what: "the `.tile::scatter4` mode",
    },
    // Every `wgmma` instruction's notes: "Requires sm_90a"; no later architecture has them.
    ArchGate {
        op: "wgmma",
        when: &[],
        family: &[90],
        specific_only: true,
        what: "`wgmma`",
    },
];

/// The architectures that have `f` targets: the ISA introduced them with sm_100's generation
/// (8.8: sm_100f, sm_101f, sm_103f, sm_120f, sm_121f; 9.0 renamed sm_101 to sm_110), so an
/// older family member such as sm_90 has only its `a` target.
const FAMILY_TARGETS: &[u32] = &[100, 101, 103, 110, 120, 121];

/// Whether `arch` has a feature of `family` (of its `a` targets only, if `specific_only`).
pub fn has(arch: Arch, family: &[u32], specific_only: bool) -> bool {
    let suffix_ok = if specific_only {
        arch.suffix == Suffix::Specific
    } else {
        arch.suffix != Suffix::None
    };
    suffix_ok && family.contains(&arch.sm)
}

/// The first row `op` with `modifiers` fails on `arch`, if any.
pub fn failing(arch: Arch, op: &str, modifiers: &[&str]) -> Option<&'static ArchGate> {
    ARCH_GATES
        .iter()
        .find(|g| g.op == op && applies_to(g, modifiers) && !has(arch, g.family, g.specific_only))
}

/// The error for the first row `op` with `modifiers` fails on `arch`, if any.
pub fn failure(arch: Arch, op: &str, modifiers: &[&str]) -> Option<String> {
    let gate = failing(arch, op, modifiers)?;
    let first = gate.family[0];
    let specific = gate.family.iter().map(|sm| format!("sm_{sm}a"));
    if gate.specific_only {
        let names: Vec<String> = specific.collect();
        return Some(format!(
            "{} needs an architecture-specific target ({}); this module declares .target {}",
            gate.what,
            names.join(", "),
            arch.name()
        ));
    }
    let names: Vec<String> = specific
        .chain(
            gate.family
                .iter()
                .filter(|sm| FAMILY_TARGETS.contains(sm))
                .map(|sm| format!("sm_{sm}f")),
        )
        .collect();
    Some(format!(
        "{} needs the architecture-specific target sm_{first}a or a target of its family \
         ({}); this module declares .target {}",
        gate.what,
        names.join(", "),
        arch.name()
    ))
}

fn applies_to(gate: &ArchGate, modifiers: &[&str]) -> bool {
    let row = super::gate::g(gate.op, gate.when, (0, 0), 0);
    applies(&row, modifiers, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arch(t: &str) -> Arch {
        Arch::parse(t).expect("an architecture")
    }

    #[test]
    fn the_sm_120_family_targets_have_the_block_scaled_forms() {
        let mods = ["sync", "aligned", "kind::mxf4nvf4", "block_scale"];
        for t in ["sm_120a", "sm_121a", "sm_120f", "sm_121f", "compute_120a"] {
            assert_eq!(failure(arch(t), "mma", &mods), None, "{t}");
        }
    }

    #[test]
    fn plain_and_other_family_targets_do_not() {
        let mods = ["sync", "aligned", "kind::mxf8f6f4", "block_scale"];
        for t in [
            "sm_120", "sm_121", "sm_100a", "sm_100f", "sm_103a", "sm_90a", "sm_110f",
        ] {
            let e = failure(arch(t), "mma", &mods).unwrap_or_default();
            assert!(e.contains("sm_120a") && e.contains(t), "{t}: {e}");
        }
        // The unscaled kind likewise; other `mma` forms have no such row.
        assert!(failure(arch("sm_120"), "mma", &["kind::f8f6f4"]).is_some());
        assert_eq!(failure(arch("sm_120"), "mma", &["e4m3", "f16"]), None);
    }

    #[test]
    fn the_sparse_mxf4_kinds_are_the_specific_targets_only() {
        let mods = [
            "sp::ordered_metadata",
            "sync",
            "aligned",
            "kind::mxf4",
            "block_scale",
        ];
        for t in ["sm_120a", "sm_121a"] {
            assert_eq!(failure(arch(t), "mma", &mods), None, "{t}");
        }
        for t in ["sm_120f", "sm_121f"] {
            let e = failure(arch(t), "mma", &mods).unwrap_or_default();
            assert!(
                e.contains("(sm_120a, sm_121a)") && e.contains(t),
                "{t}: {e}"
            );
        }
        // The sparse mxf8f6f4 kind stays a family feature.
        let mods = ["sp::ordered_metadata", "kind::mxf8f6f4", "block_scale"];
        assert_eq!(failure(arch("sm_120f"), "mma", &mods), None);
    }

    #[test]
    fn the_tensor_map_replacement_names_only_targets_that_exist() {
        let e = failure(arch("sm_90"), "tensormap", &["replace", "tile"]).unwrap_or_default();
        assert!(e.contains("sm_90a") && e.contains("sm_100f"), "{e}");
        assert!(!e.contains("sm_90f"), "{e}");
    }

    #[test]
    fn the_wide_im2col_modes_follow_their_destination() {
        let load = |dst| ["async", "bulk", "tensor", "3d", dst, "global", "im2col::w"];
        for t in ["sm_100a", "sm_100f", "sm_103a", "sm_110f"] {
            assert_eq!(
                failure(arch(t), "cp", &load("shared::cluster")),
                None,
                "{t}"
            );
        }
        let e = failure(arch("sm_100"), "cp", &load("shared::cluster")).unwrap_or_default();
        assert!(e.contains("sm_100a") && e.contains("sm_100f"), "{e}");
        // Into the CTA's own shared memory any sm_100 will do.
        assert_eq!(failure(arch("sm_100"), "cp", &load("shared::cta")), None);
        let w128 = [
            "async",
            "bulk",
            "tensor",
            "3d",
            "shared::cta",
            "im2col::w::128",
        ];
        assert!(failure(arch("sm_100"), "cp", &w128).is_some());
        assert!(failure(arch("sm_120a"), "cp", &w128).is_some());
        assert_eq!(failure(arch("sm_110a"), "cp", &w128), None);
        let prefetch = [
            "async",
            "bulk",
            "prefetch",
            "tensor",
            "3d",
            "L2",
            "im2col::w",
        ];
        assert!(failure(arch("sm_100"), "cp", &prefetch).is_some());
        assert_eq!(failure(arch("sm_100f"), "cp", &prefetch), None);
    }

    #[test]
    fn wgmma_is_sm_90a_only() {
        for mods in [
            &["mma_async", "sync", "aligned"][..],
            &["fence", "sync", "aligned"],
        ] {
            assert_eq!(failure(arch("sm_90a"), "wgmma", mods), None);
            for t in ["sm_90", "sm_100a", "sm_100f", "sm_120a"] {
                let e = failure(arch(t), "wgmma", mods).unwrap_or_default();
                assert!(e.contains("(sm_90a)") && e.contains(t), "{t}: {e}");
            }
        }
    }

    #[test]
    fn suffixes_parse() {
        assert_eq!(arch("sm_120f").suffix, Suffix::Family);
        assert_eq!(arch("compute_90a").suffix, Suffix::Specific);
        assert_eq!(
            arch("sm_80"),
            Arch {
                sm: 80,
                suffix: Suffix::None
            }
        );
        assert_eq!(Arch::parse("sm_90x"), None);
    }
}
