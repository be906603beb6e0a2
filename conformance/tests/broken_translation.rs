//! The suite must fail when the translation is wrong: deliberate mistakes are switched on in the
//! translator (feature `fault-injection`) and the same cases that pass without them must fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_conformance::elementwise::Elementwise;
use ptxvk_conformance::runner::{self, Report, Target};
use ptxvk_conformance::values::rows;
use ptxvk_conformance::{Case, Expect, Outcome, cases};
use ptxvk_runtime::{Context, ContextOptions};
use ptxvk_translator::ScalarType::{F32, S32};
use ptxvk_translator::fault::{self, Fault};

/// `cvt.rni.s32.f32` (ISA 8.7.6.13): round to the nearest integer, ties to even; float-to-integer
/// conversions clamp to the destination range; NaN gives 0 (ISA 8.7.6.13 and NVIDIA hardware).
fn cvt_rni() -> Case {
    Elementwise::new(
        "8.7.6 cvt (test)",
        "test/cvt.rni.s32.f32",
        "cvt.rni.s32.f32 %d, %a;",
        &[F32],
        &[S32],
        rows(&[F32], 100, 300, 11),
        |r| {
            let x = f32::from_bits(r[0] as u32);
            let v = if x.is_nan() {
                0
            } else {
                (x.round_ties_even() as f64).clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
            };
            vec![Expect::Bits(u64::from(v as u32))]
        },
    )
    .case()
}

fn run(cases: &[Case], target: &Target) -> Report {
    runner::run(cases, std::slice::from_ref(target), 2, &|_| {})
}

fn first_failure(r: &Report) -> String {
    r.results
        .iter()
        .find_map(|c| match &c.outcome {
            Outcome::Fail(w) => Some(format!("{}: {w}", c.name)),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn deliberate_mistakes_fail_the_suite() {
    let target = Target::ptxvk(Context::new(&ContextOptions::from_env()).unwrap());
    // Table 28's sign-extending cells, straight from the suite.
    let sext: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| c.name.starts_with("tables/28/ld.s") || c.name.starts_with("tables/28/cvt.s"))
        .collect();
    assert!(sext.len() > 20, "{} cases", sext.len());
    let rounding = vec![cvt_rni()];

    let clean = run(&sext, &target);
    assert!(!clean.failed(), "{}", first_failure(&clean));
    let clean = run(&rounding, &target);
    assert!(!clean.failed(), "{}", first_failure(&clean));

    fault::inject(Fault::ZeroExtendSigned);
    let broken = run(&sext, &target);
    fault::inject(Fault::SwapIntegerRounding);
    let swapped = run(&rounding, &target);
    fault::inject(Fault::None);

    // Every sign-extending cell into a wider register must notice; a same-size one cannot.
    assert!(broken.failed());
    let failed = broken.totals()[0].failed;
    assert!(failed >= 20, "only {failed} failed");
    let why = first_failure(&broken);
    assert!(
        why.contains("element")
            && why.contains("expected")
            && why.contains("got")
            && why.contains("(0x"),
        "{why}"
    );
    assert!(swapped.failed());
    let why = first_failure(&swapped);
    assert!(why.contains("expected") && why.contains("got"), "{why}");
}
