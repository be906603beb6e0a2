//! The runner itself: outcomes, reports, the CLI, CUDA records and their comparison.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::Arc;

use ptxvk_conformance::launch::{self, Backend, Launch};
use ptxvk_conformance::record::{self, Record};
use ptxvk_conformance::runner::{self, Target};
use ptxvk_conformance::{Case, Outcome, cases, cuda};
use ptxvk_runtime::{Context, ContextOptions};

fn ctx() -> Context {
    Context::new(&ContextOptions::from_env()).unwrap()
}

fn some_cases() -> Vec<Case> {
    cases::all()
        .into_iter()
        .filter(|c| {
            c.name.starts_with("tables/28/ld.s16/") || c.name.starts_with("tables/27/st.u8/")
        })
        .collect()
}

/// Stands in for a GPU: runs on ptxvk, optionally flipping the lowest bit of every output byte
/// of the last buffer (as if the hardware disagreed with the reference).
struct Fake {
    ctx: Context,
    flip: bool,
}

impl Backend for Fake {
    fn name(&self) -> String {
        "fake GPU".into()
    }

    fn execute(&self, l: &Launch) -> Result<Vec<Vec<u8>>, String> {
        let mut out = launch::on_ptxvk(&self.ctx, l).map_err(|e| e.to_string())?;
        if self.flip
            && let Some(last) = out.last_mut()
        {
            for b in last.iter_mut() {
                *b ^= 1;
            }
        }
        Ok(out)
    }
}

#[test]
fn panics_are_failures_and_counts_add_up() {
    let target = Target::ptxvk(ctx());
    let cases = vec![
        Case {
            name: "t/panics".into(),
            family: "test",
            ptx: String::new(),
            run: Box::new(|_| panic!("boom")),
        },
        Case {
            name: "t/unsupported".into(),
            family: "test",
            ptx: String::new(),
            run: Box::new(|_| Outcome::Unsupported("no such feature".into())),
        },
        Case {
            name: "t/passes".into(),
            family: "test",
            ptx: String::new(),
            run: Box::new(|_| Outcome::Pass),
        },
    ];
    let r = runner::run(&cases, &[target], 2, &|_| {});
    assert_eq!(r.results[0].outcome, Outcome::Fail("panicked: boom".into()));
    let t = r.totals()[0];
    assert_eq!((t.passed, t.failed, t.unsupported), (1, 1, 1));
    assert!(r.failed());
    let table = r.table();
    assert!(table.contains("test") && table.contains("1/1/1"), "{table}");
    let json = r.to_json();
    assert_eq!(json["totals"][0]["unsupported"], 1);
    assert_eq!(json["cases"][1]["outcome"], "unsupported");
}

#[test]
fn records_compare_with_ptxvk_runs() {
    let ctx = ctx();
    let cases = some_cases();
    assert!(cases.len() > 10);
    let ptxvk = runner::run(&cases, &[Target::ptxvk(ctx.clone())], 2, &|_| {});
    assert!(!ptxvk.failed());

    for flip in [false, true] {
        let fake = Target::ptxvk(ctx.clone()).with_backend(
            "fake".into(),
            Arc::new(Fake {
                ctx: ctx.clone(),
                flip,
            }),
        );
        let on_fake = runner::run(&cases, &[fake], 2, &|_| {});
        // The cases' own checks judge the backend's outputs.
        assert_eq!(on_fake.failed(), flip);
        let rec = Record::from_report(&on_fake, 0, "Fake GPU 1000", "driver 1.0");
        assert_eq!(rec.cases.len(), cases.len());
        let path =
            std::env::temp_dir().join(format!("ptxvk-record-{}-{flip}.json", std::process::id()));
        rec.save(&path).unwrap();
        let back = Record::load(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(back, rec);

        let cmp = record::compare(&back, &ptxvk, 0);
        if flip {
            assert_eq!(cmp.differs.len(), cases.len());
            assert_eq!(cmp.disputed.len(), cases.len());
            assert!(cmp.summary().contains("the reference fails on NVIDIA"));
        } else {
            assert_eq!(cmp.same.len(), cases.len(), "{}", cmp.summary());
            assert!(cmp.differs.is_empty() && cmp.disputed.is_empty());
        }
    }
}

#[test]
fn records_are_versioned_and_stale_inputs_are_not_compared() {
    let err = Record::parse("r.json", r#"{"format": 99}"#).unwrap_err();
    assert!(err.to_string().contains("format 99"), "{err}");
    let err = Record::parse("r.json", "not json").unwrap_err();
    assert!(err.to_string().contains("not a ptxvk CUDA record"), "{err}");

    let ctx = ctx();
    let cases = some_cases();
    let report = runner::run(&cases[..2], &[Target::ptxvk(ctx)], 1, &|_| {});
    let mut rec = Record::from_report(&report, 0, "GPU", "driver");
    rec.cases[0].launches[0].input = "0000000000000000".into();
    rec.cases.pop();
    let cmp = record::compare(&rec, &report, 0);
    assert_eq!(cmp.stale, vec![cases[0].name.clone()]);
    assert_eq!(cmp.not_recorded, vec![cases[1].name.clone()]);
}

#[test]
fn cuda_without_a_gpu_fails_cleanly() {
    match cuda::Cuda::open(0) {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("--record-cuda needs an NVIDIA GPU"), "{msg}");
        }
        // On a machine with an NVIDIA GPU the driver opens and names it.
        Ok(gpu) => assert!(!gpu.gpu().is_empty() && gpu.driver().contains("CUDA")),
    }
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxvk-conformance"))
}

#[test]
fn cli_lists_filters_and_writes_json() {
    let out = bin()
        .args(["--list", "--filter", "^tables/26/mov.s32/"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tables/26/mov.s32/u32") && text.contains("3 cases"),
        "{text}"
    );

    let out = bin().args(["--filter", "("]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a valid regex"));

    let json = std::env::temp_dir().join(format!("ptxvk-conf-{}.json", std::process::id()));
    let out = bin()
        .args(["--filter", "^tables/27/st.b16/", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("family") && text.contains("9.4.1 Table 27"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    assert!(v["totals"][0]["passed"].as_u64().unwrap() >= 10);
    assert_eq!(v["totals"][0]["failed"], 0);
}

#[test]
fn cli_record_cuda_without_a_gpu_says_so() {
    if cuda::Cuda::open(0).is_ok() {
        return; // A real GPU: recording would run, which this test does not want.
    }
    let out = bin()
        .args([
            "--filter",
            "^tables/26/",
            "--record-cuda",
            "/nonexistent/r.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs an NVIDIA GPU"), "{err}");
}

#[test]
fn quick_keeps_every_family() {
    let all = cases::all();
    let families: std::collections::BTreeSet<_> = all.iter().map(|c| c.family).collect();
    let quick = runner::quick_subset(cases::all(), 4);
    let quick_families: std::collections::BTreeSet<_> = quick.iter().map(|c| c.family).collect();
    assert_eq!(families, quick_families);
    assert!(quick.len() * 3 < all.len());
}

#[test]
fn quick_runs_every_fuzz_regression() {
    let family = cases::fuzz_regressions::FAMILY;
    let count = |cs: &[Case]| cs.iter().filter(|c| c.family == family).count();
    let all = count(&cases::all());
    assert!(all >= 2, "{all} fuzz regressions");
    assert_eq!(count(&runner::quick_subset(cases::all(), 4)), all);
}

#[test]
fn quick_runs_each_block_scaled_kind_dense_and_sparse() {
    let quick = runner::quick_subset(cases::all(), 4);
    for sparse in ["mma.sync", "mma.sp::ordered_metadata"] {
        for kind in ["kind::mxf8f6f4", "kind::mxf4.", "kind::mxf4nvf4"] {
            assert!(
                quick
                    .iter()
                    .any(|c| c.name.starts_with(&format!("matrix/{sparse}"))
                        && c.name.contains(kind)
                        && c.name.contains("block_scale")),
                "--quick runs no {sparse} {kind} case"
            );
        }
    }
}

/// A backend whose device is too old for every launch, the way ptxas answers a `.target`
/// above the GPU's generation.
struct TooOld;

impl Backend for TooOld {
    fn name(&self) -> String {
        "old GPU".into()
    }

    fn execute(&self, _: &Launch) -> Result<Vec<Vec<u8>>, String> {
        Err("SM version too high".into())
    }

    fn lacks_feature(&self, message: &str) -> bool {
        message.contains("too high")
    }
}

/// What the backend's device lacks makes a case unsupported there, not failed.
#[test]
fn backend_lacking_a_feature_is_unsupported() {
    let ctx = ctx();
    let cases = some_cases();
    let old = Target::ptxvk(ctx).with_backend("old".into(), Arc::new(TooOld));
    let r = runner::run(&cases[..2], &[old], 1, &|_| {});
    for c in &r.results {
        assert!(
            matches!(&c.outcome, Outcome::Unsupported(m) if m.contains("old GPU: SM version too high")),
            "{:?}",
            c.outcome
        );
    }
    assert!(!r.failed());
}
