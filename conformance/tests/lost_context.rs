//! A case that loses its context (an endless kernel ends in the launch timeout, which leaves
//! the context lost) fails alone: the cases after it get a new context. Its own test binary,
//! since the abandoned kernel keeps a driver thread busy until the process exits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ptxvk_conformance::runner::{self, Target};
use ptxvk_conformance::{Case, Outcome};
use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

const PTX: &str = include_str!("../../shaders/endless.ptx");

fn launch_one(ctx: &Context, kernel: &str) -> Result<u32, String> {
    let m = ctx.load_ptx("lost.ptx", PTX).map_err(|e| e.to_string())?;
    let out = DeviceBuffer::<u32>::zeroed(ctx, 1).map_err(|e| e.to_string())?;
    m.kernel(kernel)
        .and_then(|k| k.launch(&LaunchConfig::new([1, 1, 1], [1, 1, 1]), &[(&out).into()]))
        .map_err(|e| e.to_string())?;
    out.to_vec().map(|v| v[0]).map_err(|e| e.to_string())
}

fn cases() -> Vec<Case> {
    let case = |name: &str, run: Box<dyn Fn(&Context) -> Outcome + Send + Sync>| Case {
        name: name.into(),
        family: "lost context",
        ptx: PTX.into(),
        run,
    };
    vec![
        case(
            "endless",
            Box::new(|ctx| match launch_one(ctx, "endless") {
                Ok(v) => Outcome::Fail(format!("an endless kernel finished with {v}")),
                Err(e) => Outcome::Fail(e),
            }),
        ),
        case(
            "after",
            Box::new(|ctx| match launch_one(ctx, "answer") {
                Ok(42) => Outcome::Pass,
                Ok(v) => Outcome::Fail(format!("got {v}")),
                Err(e) => Outcome::Fail(e),
            }),
        ),
    ]
}

fn outcome(r: &runner::Report, i: usize) -> &Outcome {
    &r.results[i].outcome
}

#[test]
fn cases_after_a_lost_context_get_a_new_one() {
    let mut opts = ContextOptions::from_env();
    opts.timeout = Duration::from_millis(1500);
    // The endless launch is its kernel's first, which adds the compile allowance.
    opts.compile_timeout = Duration::from_millis(500);
    let cases = cases();

    // Without a way to remake it, the case after the endless one fails on the lost context:
    // what the runner did before, and what shows this test can fail.
    let kept = Target::ptxvk(Context::new(&opts).unwrap());
    let r = runner::run(&cases, &[kept], 1, &|_| {});
    assert!(
        matches!(outcome(&r, 0), Outcome::Fail(w) if w.contains("endless")),
        "{:?}",
        outcome(&r, 0)
    );
    assert!(
        matches!(outcome(&r, 1), Outcome::Fail(_)),
        "{:?}",
        outcome(&r, 1)
    );

    let o = opts.clone();
    let remade =
        Target::ptxvk(Context::new(&opts).unwrap()).remade_by(Arc::new(move || Context::new(&o)));
    let r = runner::run(&cases, &[remade], 1, &|_| {});
    assert!(
        matches!(outcome(&r, 0), Outcome::Fail(_)),
        "{:?}",
        outcome(&r, 0)
    );
    assert_eq!(outcome(&r, 1), &Outcome::Pass);
}
