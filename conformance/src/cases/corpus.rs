//! The kernel corpus (shaders/corpus/*.cu, our own CUDA C compiled by clang-19; see
//! xtask/src/corpus.rs) run on the device, each kernel against a Rust implementation of the same
//! algorithm written from the algorithm, not from the PTX. Every kernel runs from every PTX file
//! its source was compiled to (sm_70, sm_80, sm_90, and -O0/-O1 where built), on seeded random
//! inputs of edge sizes: one element, sizes that are not multiples of the block, and large ones.
//!
//! Launches are described as data ([`Launch`]), so `--record-cuda` can run the same cases on
//! NVIDIA's driver. Kernels that ptxvk cannot run yet are in [`KNOWN`]: such a case reports
//! "unsupported" with the reason while the failure is the listed one, and fails when it
//! passes (the entry must then go) or fails differently.

mod algo;
mod atomics;
mod linalg;
mod misc;
mod numeric;
mod sort;
mod warp;

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, OnceLock};

use ptxvk_runtime::{Context, KernelArg};

use crate::launch::{self, Arg, Launch, LaunchError};
use crate::values::Rng;
use crate::{Case, Outcome, launch_outcome};

pub(super) const FAMILY: &str = "corpus kernels";

/// A kernel ptxvk cannot run yet: (files, kernel, text the failure contains). `files` is a file
/// name in shaders/corpus or `stem.*` for all of one source's files. Remove an entry when its
/// cases pass (they fail while it is listed).
struct Known {
    files: &'static str,
    kernel: &'static str,
    error: &'static str,
}

// Unused while every corpus kernel passes; kept for the next known gap.
#[allow(dead_code)]
const fn known(files: &'static str, kernel: &'static str, error: &'static str) -> Known {
    Known {
        files,
        kernel,
        error,
    }
}

/// Instructions without a decoder yet (branches int-family, float-family and frontend), as in
/// translator/tests/corpus.rs. One entry per file: the error names every missing instruction,
/// the entry one of them. (No kernel that ptxvk translates fails its check today.)
#[rustfmt::skip]
const KNOWN: &[Known] = &[
];

impl Known {
    fn matches(&self, file: &str, kernel: &str) -> bool {
        let file_ok = match self.files.strip_suffix('*') {
            Some(prefix) => file.starts_with(prefix),
            None => self.files == file,
        };
        file_ok && (self.kernel == "*" || self.kernel == kernel)
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    algo::cases(&mut v);
    sort::cases(&mut v);
    linalg::cases(&mut v);
    atomics::cases(&mut v);
    warp::cases(&mut v);
    numeric::cases(&mut v);
    misc::cases(&mut v);
    v
}

/// The corpus files, by name (read once).
fn corpus_files() -> &'static HashMap<String, Arc<str>> {
    static FILES: OnceLock<HashMap<String, Arc<str>>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = format!("{}/../shaders/corpus", env!("CARGO_MANIFEST_DIR"));
        let mut m = HashMap::new();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".ptx") {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    m.insert(name, Arc::from(text));
                }
            }
        }
        m
    })
}

/// The files `stem` was compiled to (`stem.sm_70.ptx`, `stem.sm_70.O0.ptx`, ...), leaving out
/// those whose code is the same as an earlier one's but for `.version`/`.target` (clang's output
/// for sm_80 and sm_90 often is): running the same instructions again would only cost time.
fn variants(stem: &str) -> Vec<String> {
    let prefix = format!("{stem}.");
    let mut names: Vec<&String> = corpus_files()
        .keys()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort();
    let body = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.starts_with(".version") && !l.starts_with(".target"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut seen = Vec::new();
    let mut v = Vec::new();
    for name in names {
        let b = body(corpus_files().get(name).map_or("", |t| t));
        if !seen.contains(&b) {
            seen.push(b);
            v.push(name.clone());
        }
    }
    v
}

/// What a case body runs launches through: its kernel's module.
pub struct Dev<'a> {
    ctx: &'a Context,
    file: &'a str,
    ptx: &'a Arc<str>,
    kernel: &'a str,
}

/// One launch argument: a buffer (its initial bytes; its final bytes come back) or a scalar.
pub enum CorpusArg {
    Buf(Vec<u8>),
    Val(KernelArg),
}

/// A buffer argument holding `data`.
pub fn buf<T: Elem>(data: &[T]) -> CorpusArg {
    CorpusArg::Buf(to_bytes(data))
}

/// A scalar argument.
pub fn val(v: impl Into<KernelArg>) -> CorpusArg {
    CorpusArg::Val(v.into())
}

impl Dev<'_> {
    /// Launches this case's kernel; returns, for each argument, a buffer's final contents
    /// (empty for scalars), so results are indexed by argument position.
    pub fn launch(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
        args: Vec<CorpusArg>,
    ) -> Result<Vec<Vec<u8>>, LaunchError> {
        self.launch_kernel(self.kernel, grid, block, dynamic_shared, args)
    }

    /// Launches another kernel of the same module (multi-kernel algorithms).
    pub fn launch_kernel(
        &self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
        args: Vec<CorpusArg>,
    ) -> Result<Vec<Vec<u8>>, LaunchError> {
        let mut buffers = Vec::new();
        let mut largs = Vec::new();
        let mut slots = Vec::new();
        for a in args {
            match a {
                CorpusArg::Buf(b) => {
                    slots.push(Some(buffers.len()));
                    largs.push(Arg::Buffer(buffers.len()));
                    buffers.push(b);
                }
                CorpusArg::Val(v) => {
                    slots.push(None);
                    largs.push(Arg::Value(v));
                }
            }
        }
        let l = Launch {
            module_name: self.file.to_string(),
            ptx: self.ptx.clone(),
            kernel: kernel.to_string(),
            grid,
            block,
            dynamic_shared,
            buffers,
            args: largs,
        };
        let mut results = launch::execute(self.ctx, &l)?;
        Ok(slots
            .into_iter()
            .map(|slot| slot.map_or_else(Vec::new, |k| std::mem::take(&mut results[k])))
            .collect())
    }

    /// A 1-D launch over `n` threads in blocks of `block` (at least one block).
    pub fn launch_1d(
        &self,
        n: u32,
        block: u32,
        args: Vec<CorpusArg>,
    ) -> Result<Vec<Vec<u8>>, LaunchError> {
        self.launch([n.div_ceil(block).max(1), 1, 1], [block, 1, 1], 0, args)
    }
}

type Body = dyn Fn(&Dev) -> Result<Outcome, LaunchError> + Send + Sync;

/// Cases for `kernel` of `stem`: one per PTX file of the stem, named
/// `corpus/<stem>/<kernel>/<target>/<label>`.
pub fn add(
    out: &mut Vec<Case>,
    stem: &str,
    kernel: &'static str,
    label: &str,
    body: impl Fn(&Dev) -> Result<Outcome, LaunchError> + Send + Sync + 'static,
) {
    let body: Arc<Body> = Arc::new(body);
    let files = variants(stem);
    if files.is_empty() {
        out.push(Case {
            name: format!("corpus/{stem}/{kernel}/{label}"),
            family: FAMILY,
            ptx: String::new(),
            run: Box::new(move |_| {
                Outcome::Fail("no PTX in shaders/corpus: run `cargo xtask shaders`".into())
            }),
        });
        return;
    }
    for file in files {
        let ptx = corpus_files()
            .get(&file)
            .cloned()
            .unwrap_or_else(|| Arc::from(""));
        let target = file
            .strip_prefix(&format!("{stem}."))
            .and_then(|s| s.strip_suffix(".ptx"))
            .unwrap_or(&file)
            .to_string();
        let body = body.clone();
        let known: Option<&'static Known> = KNOWN.iter().find(|k| k.matches(&file, kernel));
        out.push(Case {
            name: format!("corpus/{stem}/{kernel}/{target}/{label}"),
            family: FAMILY,
            ptx: ptx.to_string(),
            run: Box::new(move |ctx| {
                let dev = Dev {
                    ctx,
                    file: &file,
                    ptx: &ptx,
                    kernel,
                };
                let outcome = body(&dev).unwrap_or_else(launch_outcome);
                judge_known(known, outcome)
            }),
        });
    }
}

/// A listed failure is reported as unsupported while it is the listed one.
fn judge_known(known: Option<&Known>, outcome: Outcome) -> Outcome {
    let Some(k) = known else {
        return outcome;
    };
    match outcome {
        Outcome::Fail(msg) if msg.contains(k.error) => Outcome::Unsupported(format!(
            "known ptxvk gap (conformance/src/cases/corpus.rs): {msg}"
        )),
        Outcome::Pass => Outcome::Fail(format!(
            "passes, but is listed as failing with {:?} in conformance/src/cases/corpus.rs: remove the entry",
            k.error
        )),
        other => other,
    }
}

/// Values that travel in buffers (little-endian), compared bit for bit.
pub trait Elem: Copy + Debug + Send + Sync + 'static {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
    fn bits(self) -> u64;
    /// Floats: any NaN matches any NaN (the ISA leaves f32 NaN payloads unspecified).
    fn nan(self) -> bool;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            fn bits(self) -> u64 {
                elem!(@bits self, $t)
            }
            #[allow(clippy::float_cmp, clippy::eq_op)]
            fn nan(self) -> bool {
                #[allow(clippy::eq_op)]
                let nan = self != self;
                nan
            }
        }
    )*};
    (@bits $v:ident, f32) => { u64::from($v.to_bits()) };
    (@bits $v:ident, f64) => { $v.to_bits() };
    (@bits $v:ident, $t:ty) => { $v as u64 };
}
elem!(u8, u16, u32, u64, i32, i64, f32, f64);

pub fn to_bytes<T: Elem>(data: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * T::SIZE);
    for v in data {
        v.put(&mut out);
    }
    out
}

pub fn from_bytes<T: Elem>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(T::SIZE).map(T::get).collect()
}

/// Argument `k`'s buffer after a launch, as `T`s.
pub fn out<T: Elem>(results: &[Vec<u8>], k: usize) -> Vec<T> {
    results.get(k).map_or_else(Vec::new, |b| from_bytes(b))
}

/// `got` must equal `want` bit for bit; the first difference is reported with `input(i)`.
pub fn same<T: Elem>(
    what: &str,
    got: &[T],
    want: &[T],
    input: impl Fn(usize) -> String,
) -> Outcome {
    if got.len() != want.len() {
        return Outcome::Fail(format!(
            "{what}: {} values, {} expected",
            got.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.bits() != w.bits() && !(g.nan() && w.nan()) {
            return Outcome::Fail(format!(
                "{what}[{i}] ({}): expected {w:?} (0x{:x}), got {g:?} (0x{:x})",
                input(i),
                w.bits(),
                g.bits()
            ));
        }
    }
    Outcome::Pass
}

/// Each `got[i]` within `tol(i)` of `want[i]` (computed in f64); NaN only where NaN is expected.
pub fn close(
    what: &str,
    got: &[f32],
    want: &[f64],
    tol: impl Fn(usize) -> f64,
    input: impl Fn(usize) -> String,
) -> Outcome {
    if got.len() != want.len() {
        return Outcome::Fail(format!(
            "{what}: {} values, {} expected",
            got.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = f64::from(*g);
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            g == *w || (g - w).abs() <= tol(i)
        };
        if !ok {
            return Outcome::Fail(format!(
                "{what}[{i}] ({}): expected {w} within {}, got {g} (error {})",
                input(i),
                tol(i),
                (g - w).abs()
            ));
        }
    }
    Outcome::Pass
}

/// The first outcome that is not a pass.
pub fn all(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
    outcomes
        .into_iter()
        .find(|o| *o != Outcome::Pass)
        .unwrap_or(Outcome::Pass)
}

/// Seeded random data.
pub fn rng(seed: u64) -> Rng {
    Rng::new(seed)
}

pub fn rand_i32s(r: &mut Rng, n: usize, lo: i32, hi: i32) -> Vec<i32> {
    let span = (i64::from(hi) - i64::from(lo) + 1) as u64;
    (0..n)
        .map(|_| (i64::from(lo) + r.below(span) as i64) as i32)
        .collect()
}

pub fn rand_u32s(r: &mut Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| r.next_u64() as u32).collect()
}

/// Uniform in [lo, hi).
pub fn rand_f32s(r: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let u = (r.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * u
        })
        .collect()
}

pub fn rand_f64s(r: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let u = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * u
        })
        .collect()
}
