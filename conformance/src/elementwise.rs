//! Element-wise instruction cases: a generated kernel loads inputs `%a, %b, %c` from buffers, runs
//! the instruction under test (which writes `%d`, and `%e` if it has a second result), and stores
//! the outputs; each row of inputs is checked against a reference model.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use ptxvk_runtime::{Context, LaunchConfig};
use ptxvk_translator::{Program, ScalarType, SourceFile};

use crate::launch::{self, Arg, Launch, LaunchError};
use crate::{Case, Expect, Outcome, launch_outcome, matches, show};

/// The reference model: input bits (zero-extended to u64, one per input) to one expectation per
/// output.
pub type Reference = Arc<dyn Fn(&[u64]) -> Vec<Expect> + Send + Sync>;

/// An element-wise case under construction.
pub struct Elementwise {
    pub name: String,
    pub family: &'static str,
    /// PTX for the instruction(s) under test, reading `%a %b %c` and writing `%d` (`%e`).
    pub body: String,
    /// Register types of `%a`, `%b`, `%c`.
    pub inputs: Vec<ScalarType>,
    /// Register types of `%d`, `%e`.
    pub outputs: Vec<ScalarType>,
    /// Input rows; ignored when `every_input` is set.
    pub rows: Vec<Vec<u64>>,
    /// Run every value of the single input instead of `rows` (generated when the case runs,
    /// so that the suite's hundreds of 16-bit cases do not hold 65,536 rows each).
    pub every_input: bool,
    pub reference: Reference,
    /// `.target sm_XX` and `.version X.Y` of the generated module.
    pub sm: u32,
    pub version: (u32, u32),
    /// Declare the lowest of sm_70, sm_80, sm_90 and `sm` at which ptxvk's checks accept the
    /// kernel, so that the GPU at hand can run it through its own driver (`--record-cuda`):
    /// for families that share one generator across forms of different generations.
    pub lowest_target: bool,
    /// The target `lowest_target` found (checked once: the kernel is generated per launch).
    found_target: OnceLock<u32>,
}

/// The targets [`Elementwise::lowest_target`] tries, lowest first.
const LOWER_TARGETS: [u32; 3] = [70, 80, 90];

const IN_NAMES: [&str; 3] = ["%a", "%b", "%c"];
const OUT_NAMES: [&str; 2] = ["%d", "%e"];

thread_local! {
    /// Where [`Elementwise::case`] leaves its specification while [`collecting`] runs.
    static SPECS: RefCell<Option<Vec<Arc<Elementwise>>>> = const { RefCell::new(None) };
}

/// Runs `f` (which builds cases) and returns, with its result, the specification of every
/// element-wise case it built on this thread: the exhaustive 32-bit cases (`crate::exhaustive`)
/// are the single-input ones again, over every input, without each family listing them twice.
pub fn collecting<R>(f: impl FnOnce() -> R) -> (R, Vec<Arc<Elementwise>>) {
    let previous = SPECS.with(|s| s.borrow_mut().replace(Vec::new()));
    let r = f();
    let specs = SPECS.with(|s| std::mem::replace(&mut *s.borrow_mut(), previous));
    (r, specs.unwrap_or_default())
}

/// How the generated kernel gets `%a`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InputSource {
    /// Every input from its buffer.
    Buffers,
    /// A single 32-bit input `base + i` (parameter `base`), so that a launch covers a range of
    /// inputs without uploading them.
    Counted,
}

impl Elementwise {
    pub fn new(
        family: &'static str,
        name: impl Into<String>,
        body: impl Into<String>,
        inputs: &[ScalarType],
        outputs: &[ScalarType],
        rows: Vec<Vec<u64>>,
        reference: impl Fn(&[u64]) -> Vec<Expect> + Send + Sync + 'static,
    ) -> Self {
        Elementwise {
            name: name.into(),
            family,
            body: body.into(),
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            rows,
            every_input: false,
            reference: Arc::new(reference),
            sm: 90,
            version: (8, 0),
            lowest_target: false,
            found_target: OnceLock::new(),
        }
    }

    /// The kernel: `elementwise(in0.., out0.., n)`.
    pub fn ptx(&self) -> String {
        self.kernel_text(InputSource::Buffers)
    }

    /// The kernel for a single 32-bit input counted from a base: `elementwise(base, out0..,
    /// n)` computes row `i` for the input `base + i`.
    pub fn counted_ptx(&self) -> String {
        self.kernel_text(InputSource::Counted)
    }

    fn kernel_text(&self, source: InputSource) -> String {
        if !self.lowest_target {
            return self.kernel_text_for(source, self.sm);
        }
        let sm = *self.found_target.get_or_init(|| {
            LOWER_TARGETS
                .into_iter()
                .filter(|sm| *sm < self.sm)
                .find(|sm| {
                    let text = self.kernel_text_for(InputSource::Buffers, *sm);
                    Program::parse(SourceFile::new("case.ptx", &text)).is_ok()
                })
                .unwrap_or(self.sm)
        });
        self.kernel_text_for(source, sm)
    }

    fn kernel_text_for(&self, source: InputSource, sm: u32) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            ".version {}.{}\n.target sm_{sm}\n.address_size 64\n",
            self.version.0, self.version.1
        );
        let mut params: Vec<String> = Vec::new();
        if source == InputSource::Counted {
            params.push(".param .u32 base".into());
        } else {
            for i in 0..self.inputs.len() {
                params.push(format!(".param .u64 in{i}"));
            }
        }
        for i in 0..self.outputs.len() {
            params.push(format!(".param .u64 out{i}"));
        }
        params.push(".param .u32 n".into());
        let _ = writeln!(s, ".visible .entry elementwise({})\n{{", params.join(", "));
        let _ = writeln!(
            s,
            "\t.reg .pred %guard;\n\t.reg .b32 %i, %n, %t32;\n\t.reg .b64 %base, %off, %addr;"
        );
        for (name, ty) in IN_NAMES
            .iter()
            .zip(&self.inputs)
            .chain(OUT_NAMES.iter().zip(&self.outputs))
        {
            let _ = writeln!(s, "\t.reg {} {name};", register_type(*ty));
        }
        let _ = writeln!(
            s,
            "\tmov.u32 %i, %ctaid.x;\n\tmov.u32 %t32, %ntid.x;\n\tmul.lo.u32 %i, %i, %t32;\n\tmov.u32 %t32, %tid.x;\n\tadd.u32 %i, %i, %t32;"
        );
        let _ = writeln!(
            s,
            "\tld.param.u32 %n, [n];\n\tsetp.ge.u32 %guard, %i, %n;\n\t@%guard bra DONE;"
        );
        if source == InputSource::Counted {
            let _ = writeln!(
                s,
                "\tld.param.u32 %t32, [base];\n\tadd.u32 %t32, %t32, %i;\n\tmov.b32 %a, %t32;"
            );
        }
        let loaded = if source == InputSource::Counted {
            &[][..]
        } else {
            &self.inputs[..]
        };
        for (k, ty) in loaded.iter().enumerate() {
            let size = storage_bytes(*ty);
            let _ = writeln!(
                s,
                "\tld.param.u64 %base, [in{k}];\n\tmul.wide.u32 %off, %i, {size};\n\tadd.s64 %addr, %base, %off;"
            );
            if *ty == ScalarType::Pred {
                let _ = writeln!(
                    s,
                    "\tld.global.u32 %t32, [%addr];\n\tsetp.ne.u32 {}, %t32, 0;",
                    IN_NAMES[k]
                );
            } else {
                let _ = writeln!(s, "\tld.global.b{} {}, [%addr];", size * 8, IN_NAMES[k]);
            }
        }
        for line in self.body.lines() {
            let _ = writeln!(s, "\t{}", line.trim());
        }
        for (k, ty) in self.outputs.iter().enumerate() {
            let size = storage_bytes(*ty);
            let _ = writeln!(
                s,
                "\tld.param.u64 %base, [out{k}];\n\tmul.wide.u32 %off, %i, {size};\n\tadd.s64 %addr, %base, %off;"
            );
            if *ty == ScalarType::Pred {
                let _ = writeln!(
                    s,
                    "\tselp.u32 %t32, 1, 0, {};\n\tst.global.u32 [%addr], %t32;",
                    OUT_NAMES[k]
                );
            } else {
                let _ = writeln!(s, "\tst.global.b{} [%addr], {};", size * 8, OUT_NAMES[k]);
            }
        }
        let _ = writeln!(s, "DONE:\n\tret;\n}}");
        s
    }

    pub fn case(mut self) -> Case {
        if let [ty] = self.inputs[..]
            && ty != ScalarType::Pred
            && ty.bits() <= 16
        {
            // Every input of a single-input instruction on an 8- or 16-bit type
            // (docs/decisions/0184-exhaustive-cases.md).
            self.every_input = true;
            self.rows = Vec::new();
        }
        let ptx = self.ptx();
        let name = self.name.clone();
        let family = self.family;
        let spec = Arc::new(self);
        SPECS.with(|s| {
            if let Some(v) = s.borrow_mut().as_mut() {
                v.push(spec.clone());
            }
        });
        let text: Arc<str> = ptx.clone().into();
        Case {
            name,
            family,
            ptx,
            run: Box::new(move |ctx| spec.run(ctx, &text).unwrap_or_else(launch_outcome)),
        }
    }

    /// The launch that runs every row: inputs, then outputs (pre-filled with a recognizable
    /// pattern, so that an output never written is reported as such), then `n`.
    pub fn launch(&self, ptx: Arc<str>) -> Launch {
        let rows = self.input_rows();
        let n = rows.len();
        let mut buffers = Vec::new();
        for (k, ty) in self.inputs.iter().enumerate() {
            let size = storage_bytes(*ty) as usize;
            let mut bytes = Vec::with_capacity(n * size);
            for row in rows.iter() {
                bytes.extend_from_slice(&row.get(k).copied().unwrap_or(0).to_le_bytes()[..size]);
            }
            buffers.push(bytes);
        }
        for ty in &self.outputs {
            buffers.push(vec![0xA5; storage_bytes(*ty) as usize * n]);
        }
        let mut args: Vec<Arg> = (0..buffers.len()).map(Arg::Buffer).collect();
        args.push(Arg::Value((n as u32).into()));
        let cfg = LaunchConfig::for_num_elems(n as u32, 128);
        Launch {
            module_name: format!("{}.ptx", self.name.replace('/', "_")),
            ptx,
            kernel: "elementwise".into(),
            grid: cfg.grid,
            block: cfg.block,
            dynamic_shared: 0,
            buffers,
            args,
        }
    }

    /// The rows a run checks.
    pub fn input_rows(&self) -> Cow<'_, [Vec<u64>]> {
        match self.inputs[..] {
            [ty] if self.every_input => {
                Cow::Owned((0..1u64 << ty.bits().min(32)).map(|x| vec![x]).collect())
            }
            _ => Cow::Borrowed(&self.rows),
        }
    }

    fn run(&self, ctx: &Context, ptx: &Arc<str>) -> Result<Outcome, LaunchError> {
        let rows = self.input_rows();
        let n = rows.len();
        let out = launch::execute(ctx, &self.launch(ptx.clone()))?;
        let got: Vec<Vec<u64>> = self
            .outputs
            .iter()
            .enumerate()
            .map(|(k, ty)| {
                let size = storage_bytes(*ty) as usize;
                let bytes = out
                    .get(self.inputs.len() + k)
                    .map_or(&[][..], Vec::as_slice);
                bytes
                    .chunks(size)
                    .take(n)
                    .map(|c| {
                        let mut w = [0u8; 8];
                        w[..c.len()].copy_from_slice(c);
                        u64::from_le_bytes(w)
                    })
                    .collect()
            })
            .collect();
        for (r, row) in rows.iter().enumerate() {
            let got_row: Vec<Option<u64>> = got.iter().map(|o| o.get(r).copied()).collect();
            if let Some(why) = self.check_row(row, &got_row) {
                return Ok(Outcome::Fail(format!("row {r}: {why}")));
            }
        }
        Ok(Outcome::Pass)
    }

    /// Checks one row's outputs (`None`: missing) against the reference; describes the first
    /// mismatch.
    pub fn check_row(&self, row: &[u64], got: &[Option<u64>]) -> Option<String> {
        let want = (self.reference)(row);
        for (k, ty) in self.outputs.iter().enumerate() {
            let Some(g) = got.get(k).copied().flatten() else {
                return Some(format!("output {} is missing", OUT_NAMES[k]));
            };
            let ok = want.get(k).is_some_and(|w| matches(*ty, g, *w));
            if !ok {
                let inputs: Vec<String> = row
                    .iter()
                    .zip(&self.inputs)
                    .enumerate()
                    .map(|(i, (v, t))| format!("{}={}", IN_NAMES[i], show(*t, *v)))
                    .collect();
                let expected = match want.get(k) {
                    Some(Expect::Bits(b)) => show(*ty, *b),
                    Some(other) => format!("{other:?}"),
                    None => "nothing (the reference gave too few outputs)".into(),
                };
                return Some(format!(
                    "{}: {}: expected {expected}, got {}",
                    inputs.join(", "),
                    OUT_NAMES[k],
                    show(*ty, g)
                ));
            }
        }
        None
    }
}

/// Bytes a register of `ty` takes in a buffer (predicates as `.u32`).
/// The type a register of `ty` values is declared with: the alternate formats (`.bf16`,
/// `.bf16x2`, `.tf32`) are instruction types only and live in bit-size registers.
pub fn register_type(ty: ScalarType) -> ScalarType {
    match ty {
        ScalarType::Bf16 => ScalarType::B16,
        ScalarType::Bf16x2 | ScalarType::Tf32 => ScalarType::B32,
        t => t,
    }
}

pub fn storage_bytes(ty: ScalarType) -> u32 {
    if ty == ScalarType::Pred {
        4
    } else {
        ty.bytes()
    }
}
