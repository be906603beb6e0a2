//! The exhaustive 32-bit machinery (`--exhaustive`) on a slice of the input space: chunked
//! launches cover every input once (a partial last chunk included), a wrong reference for a
//! single input is caught and named, and the 8/16-bit single-input cases run every input.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use ptxvk_conformance::elementwise::{Elementwise, collecting};
use ptxvk_conformance::exhaustive::{self, CHUNK};
use ptxvk_conformance::{Expect, Outcome, cases};
use ptxvk_runtime::{Context, ContextOptions};
use ptxvk_translator::ScalarType::{B32, Pred, U32};

fn context() -> Context {
    Context::new(&ContextOptions::from_env()).unwrap()
}

/// popc.b32 with a reference written here from the ISA ("the number of one bits"), optionally
/// wrong for one input.
fn popc(wrong_at: Option<u64>) -> Arc<Elementwise> {
    Arc::new(Elementwise::new(
        "test",
        "int/popc.b32",
        "popc.b32 %d, %a;",
        &[B32],
        &[U32],
        Vec::new(),
        move |r| {
            let ones = u64::from(r[0].count_ones());
            vec![Expect::Bits(if Some(r[0]) == wrong_at {
                ones + 1
            } else {
                ones
            })]
        },
    ))
}

#[test]
fn chunks_cover_every_input_and_a_wrong_reference_is_named() {
    let ctx = context();
    // Two launches: a full chunk and 1000 more inputs.
    let count = CHUNK + 1000;
    let pass = exhaustive::case(popc(None), count);
    assert_eq!(pass.name, "exhaustive/int/popc.b32");
    assert_eq!((pass.run)(&ctx), Outcome::Pass);
    // The last input of the partial chunk is checked too.
    let last = count - 1;
    match (exhaustive::case(popc(Some(last)), count).run)(&ctx) {
        Outcome::Fail(why) => assert!(why.contains(&format!("{last:#010x}")), "{why}"),
        other => panic!("a wrong reference at {last:#x} gave {other:?}"),
    }
}

#[test]
fn the_suite_extends_its_32_bit_single_input_cases() {
    let (_, specs) = collecting(cases::all);
    let names: Vec<String> = exhaustive::cases().into_iter().map(|c| c.name).collect();
    for want in [
        "exhaustive/int/popc.b32",
        "exhaustive/int/bfind.shiftamt.s32",
        "exhaustive/logic/cnot.b32",
        "exhaustive/float/sqrt.rn.f32",
        "exhaustive/float/ex2.approx.f32",
        "exhaustive/cvt/cvt.rni.s32.f32",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} missing");
    }
    // Packed forms are their 16-bit halves, exhaustive already; two inputs are never extended.
    assert!(!names.iter().any(|n| n.contains("16x2")));
    assert!(!names.iter().any(|n| n.contains("add.")));
    // Every single-input case on an 8- or 16-bit type runs all of its inputs.
    let small: Vec<_> = specs
        .iter()
        .filter(|s| matches!(s.inputs[..], [t] if t != Pred && t.bits() <= 16))
        .collect();
    assert!(small.len() > 20, "{} small single-input cases", small.len());
    for s in small {
        let bits = s.inputs[0].bits();
        assert!(s.every_input, "{}", s.name);
        assert_eq!(s.input_rows().len(), 1 << bits, "{}", s.name);
    }
}
