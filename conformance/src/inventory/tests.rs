use super::*;
use crate::cases;

/// Catalogued instructions no case runs, and why. Exact both ways: a new row without a case
/// fails here, and so does an entry whose instruction a case now runs (remove it).
const NOT_RUN: &[(&str, &str)] = &[
    (
        "activemask",
        "warp-level; run by the corpus kernels and the runtime's tests",
    ),
    ("atom", "run by the corpus kernels and the runtime's tests"),
    (
        "barrier",
        "`bar.sync` covers the CTA barrier; `barrier` only in the runtime's tests",
    ),
    ("brkpt", "a breakpoint: its only effect is on a debugger"),
    (
        "brx",
        "indirect branches: translator and runtime tests only",
    ),
    (
        "exit",
        "run by the corpus kernels; an element-wise case ends with `ret`",
    ),
    ("nanosleep", "a timing hint with no result to check"),
    ("red", "atomic reductions: the runtime's tests only"),
    (
        "redux",
        "warp-level; run by the corpus kernels and the runtime's tests",
    ),
    (
        "shfl",
        "warp-level; run by the corpus kernels and the runtime's tests",
    ),
    (
        "trap",
        "ends the launch with an error: the runtime's tests only",
    ),
    (
        "vote",
        "warp-level; run by the corpus kernels and the runtime's tests",
    ),
];

#[test]
fn catalogued_instructions_without_a_case_are_listed() {
    // The corpus's kernels come from files built on this machine; what the suite itself
    // covers must not depend on them.
    let suite: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| c.family != cases::CORPUS_FAMILY)
        .collect();
    let inv = compute(&suite);
    let found = inv.unexercised();
    let listed: Vec<&str> = NOT_RUN.iter().map(|(m, _)| *m).collect();
    assert_eq!(found, listed, "\n{}", inv.report());
}

/// A case counts for the family the catalog picks for each of its instructions.
#[test]
fn cases_count_for_the_family_of_each_instruction() {
    let case = Case {
        name: "t".into(),
        family: "t",
        ptx: ".version 7.0\n.target sm_70\n.address_size 64\n.entry k() { .reg .b32 %r<3>; .reg .f32 %f; add.cc.u32 %r1, %r1, %r2; add.f32 %f, %f, %f; add.u32 %r1, %r1, 1; ret; }".into(),
        run: Box::new(|_| crate::Outcome::Pass),
    };
    let inv = compute(&[case]);
    for f in [
        Family::Extended,
        Family::Float,
        Family::Arith,
        Family::Control,
    ] {
        let (cases, used) = inv.families.get(&f).cloned().unwrap_or_default();
        assert_eq!(cases, 1, "{f:?}");
        assert!(
            used.contains(if f == Family::Control { "ret" } else { "add" }),
            "{f:?}"
        );
    }
    assert!(!inv.families.contains_key(&Family::Int));
    assert!(inv.unexercised().contains(&"sub"));
    assert!(inv.report().contains("extended"));
}
