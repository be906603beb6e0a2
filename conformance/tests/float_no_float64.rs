//! The floating-point cases again on a context that may not use float64, so that the emulation
//! paths for devices without it (integer fma and half-precision arithmetic, f32 estimates for
//! division and square root, `ex2` in f32) run on lavapipe too. The .f64 cases are refused there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_conformance::{Outcome, cases};
use ptxvk_runtime::{Context, ContextOptions};

#[test]
fn float_cases_without_float64() {
    let mut opts = ContextOptions::from_env();
    opts.restrict.no_float64 = true;
    let ctx = Context::new(&opts).unwrap();
    assert!(!ctx.profile().float64);
    let mut failures = Vec::new();
    let mut ran = 0;
    for c in cases::all() {
        let float = c.name.starts_with("float/");
        if !float || c.name.contains("f64") {
            continue;
        }
        ran += 1;
        match (c.run)(&ctx) {
            Outcome::Pass => {}
            other => failures.push(format!("{}: {other:?}", c.name)),
        }
    }
    assert!(ran > 200, "only {ran} cases");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
