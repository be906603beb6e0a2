//! Running cases on targets (devices, or another backend) and reporting what happened.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ptxvk_runtime::Context;

use crate::launch::{self, Backend, LaunchDigest};
use crate::{Case, Outcome};

/// Makes a target's context again after a case lost it.
pub type Remake = Arc<dyn Fn() -> Result<Context, ptxvk_runtime::Error> + Send + Sync>;

/// Where cases run: a ptxvk context, or another backend (launches described as data go there;
/// the context still serves anything else the case does).
#[derive(Clone)]
pub struct Target {
    /// The column heading: the device's name.
    pub label: String,
    ctx: Arc<Mutex<Context>>,
    remake: Option<Remake>,
    pub backend: Option<Arc<dyn Backend>>,
}

impl Target {
    pub fn ptxvk(ctx: Context) -> Target {
        Target {
            label: ctx.info().name.clone(),
            ctx: Arc::new(Mutex::new(ctx)),
            remake: None,
            backend: None,
        }
    }

    /// Cases go to `backend`, under `label`.
    pub fn with_backend(mut self, label: String, backend: Arc<dyn Backend>) -> Target {
        self.label = label;
        self.backend = Some(backend);
        self
    }

    /// After a case loses the context (a launch that timed out leaves it lost), the next case
    /// gets a new one from `remake`, so that one endless kernel fails one case, not the rest.
    pub fn remade_by(mut self, remake: Remake) -> Target {
        self.remake = Some(remake);
        self
    }

    /// The context for the next case.
    pub fn context(&self) -> Context {
        let mut ctx = self.ctx.lock().unwrap_or_else(|e| e.into_inner());
        if ctx.is_lost()
            && let Some(remake) = &self.remake
        {
            match remake() {
                Ok(fresh) => *ctx = fresh,
                Err(e) => eprintln!(
                    "{}: the context was lost and cannot be remade: {e}",
                    self.label
                ),
            }
        }
        ctx.clone()
    }
}

/// One case on one target.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    pub family: &'static str,
    /// Index into [`Report::targets`].
    pub target: usize,
    pub outcome: Outcome,
    pub millis: f64,
    pub launches: Vec<LaunchDigest>,
}

/// Everything a run found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub targets: Vec<String>,
    /// In case order, then target order.
    pub results: Vec<CaseResult>,
}

/// Passed, failed, unsupported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub unsupported: usize,
}

impl Counts {
    fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Unsupported(_) => self.unsupported += 1,
        }
    }
}

/// Runs one case, turning a panic into a failure.
pub fn run_case(case: &Case, target: &Target) -> (Outcome, Vec<LaunchDigest>) {
    launch::capture(target.backend.clone(), || {
        let ctx = target.context();
        catch_unwind(AssertUnwindSafe(|| (case.run)(&ctx))).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic".into());
            Outcome::Fail(format!("panicked: {msg}"))
        })
    })
}

/// Runs every case on every target with `jobs` threads, calling `progress` after each.
pub fn run(
    cases: &[Case],
    targets: &[Target],
    jobs: usize,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Report {
    run_traced(cases, targets, jobs, false, progress)
}

/// Worker threads' stacks: drivers compile shaders and PTX on the calling thread, and NVIDIA's
/// PTX compiler needs more than Rust's 2 MiB default.
const STACK_BYTES: usize = 64 << 20;

/// [`run`]; with `trace`, each case's start and end are written to stderr as they happen, so
/// that a driver taking the process down leaves the cases in flight named.
pub fn run_traced(
    cases: &[Case],
    targets: &[Target],
    jobs: usize,
    trace: bool,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Report {
    let total = cases.len() * targets.len();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; total]);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= total {
                break;
            }
            let (c, t) = (i / targets.len(), i % targets.len());
            let case = &cases[c];
            if trace {
                eprintln!("start [{}] {}", t + 1, case.name);
            }
            let start = Instant::now();
            let (outcome, launches) = run_case(case, &targets[t]);
            if trace {
                eprintln!("end   [{}] {}", t + 1, case.name);
            }
            let r = CaseResult {
                name: case.name.clone(),
                family: case.family,
                target: t,
                outcome,
                millis: start.elapsed().as_secs_f64() * 1e3,
                launches,
            };
            progress(&r);
            if let Ok(mut s) = slots.lock() {
                s[i] = Some(r);
            }
        }
    };
    let jobs = jobs.clamp(1, total.max(1));
    if jobs == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            let spawned = (0..jobs)
                .take_while(|_| {
                    std::thread::Builder::new()
                        .stack_size(STACK_BYTES)
                        .spawn_scoped(s, work)
                        .is_ok()
                })
                .count();
            if spawned == 0 {
                // No thread could be started: run the cases here.
                work();
            }
        });
    }
    let results = slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    Report {
        targets: targets.iter().map(|t| t.label.clone()).collect(),
        results,
    }
}

impl Report {
    /// Counts per family (in name order) and target.
    pub fn by_family(&self) -> BTreeMap<&'static str, Vec<Counts>> {
        let mut m: BTreeMap<&'static str, Vec<Counts>> = BTreeMap::new();
        for r in &self.results {
            let row = m
                .entry(r.family)
                .or_insert_with(|| vec![Counts::default(); self.targets.len()]);
            row[r.target].add(&r.outcome);
        }
        m
    }

    pub fn totals(&self) -> Vec<Counts> {
        let mut t = vec![Counts::default(); self.targets.len()];
        for r in &self.results {
            t[r.target].add(&r.outcome);
        }
        t
    }

    pub fn failed(&self) -> bool {
        self.results
            .iter()
            .any(|r| matches!(r.outcome, Outcome::Fail(_)))
    }

    /// The family x target table: passed / failed / unsupported in each cell.
    pub fn table(&self) -> String {
        let fam_w = self
            .by_family()
            .keys()
            .map(|f| f.len())
            .max()
            .unwrap_or(0)
            .max(6);
        let cell_w = 25;
        let mut s = String::new();
        for (i, t) in self.targets.iter().enumerate() {
            let _ = writeln!(s, "device {}: {t}", i + 1);
        }
        let _ = write!(s, "{:<fam_w$}", "family");
        for i in 0..self.targets.len() {
            let _ = write!(
                s,
                " | {:>cell_w$}",
                format!("device {}: pass/fail/unsup", i + 1)
            );
        }
        s.push('\n');
        let cell = |c: &Counts| format!("{}/{}/{}", c.passed, c.failed, c.unsupported);
        let line = |s: &mut String, name: &str, row: &[Counts]| {
            let _ = write!(s, "{name:<fam_w$}");
            for c in row {
                let _ = write!(s, " | {:>cell_w$}", cell(c));
            }
            s.push('\n');
        };
        for (f, row) in self.by_family() {
            line(&mut s, f, &row);
        }
        line(&mut s, "total", &self.totals());
        s
    }

    /// One line per failure: target, case, the first difference.
    pub fn failures(&self) -> Vec<String> {
        self.results
            .iter()
            .filter_map(|r| match &r.outcome {
                Outcome::Fail(why) => {
                    Some(format!("FAIL [device {}] {}: {why}", r.target + 1, r.name))
                }
                _ => None,
            })
            .collect()
    }

    /// Machine-readable results.
    pub fn to_json(&self) -> serde_json::Value {
        let outcome = |o: &Outcome| match o {
            Outcome::Pass => ("pass", None),
            Outcome::Fail(w) => ("fail", Some(w.clone())),
            Outcome::Unsupported(w) => ("unsupported", Some(w.clone())),
        };
        let counts = |c: &Counts| serde_json::json!({"passed": c.passed, "failed": c.failed, "unsupported": c.unsupported});
        let families: serde_json::Map<String, serde_json::Value> = self
            .by_family()
            .into_iter()
            .map(|(f, row)| {
                (
                    f.to_string(),
                    serde_json::Value::Array(row.iter().map(counts).collect()),
                )
            })
            .collect();
        let cases: Vec<serde_json::Value> = self
            .results
            .iter()
            .map(|r| {
                let (o, detail) = outcome(&r.outcome);
                serde_json::json!({
                    "name": r.name,
                    "family": r.family,
                    "device": self.targets.get(r.target),
                    "outcome": o,
                    "detail": detail,
                    "millis": (r.millis * 1000.0).round() / 1000.0,
                    "launches": r.launches,
                })
            })
            .collect();
        serde_json::json!({
            "devices": self.targets,
            "totals": self.totals().iter().map(counts).collect::<Vec<_>>(),
            "families": families,
            "cases": cases,
        })
    }
}

/// The `--quick` subset: every `stride`-th case of each family (in suite order), and at least
/// one case of each family, so every family is still exercised. The fuzz regressions run whole:
/// each is a bug that was found once, and they are few.
pub fn quick_subset(cases: Vec<Case>, stride: usize) -> Vec<Case> {
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    cases
        .into_iter()
        .filter(|c| {
            let n = seen.entry(c.family).or_insert(0);
            let keep =
                c.family == crate::cases::fuzz_regressions::FAMILY || *n % stride.max(1) == 0;
            *n += 1;
            keep
        })
        .collect()
}
