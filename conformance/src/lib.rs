//! The ptxvk reference suite: cases, their reference models, and the runner's bookkeeping.
//!
//! A [`Case`] is a PTX module, how to launch it, its inputs, and an expectation computed by a Rust
//! reference model written from the PTX ISA text. Most cases test one instruction variant
//! element-wise ([`elementwise::Elementwise`]): one case per instruction x type x modifier
//! combination, run over edge values and seeded random inputs. `cargo xtask conformance` runs them.

pub mod cases;
pub mod coverage;
pub mod cuda;
pub mod elementwise;
pub mod exhaustive;
pub mod ieee;
pub mod inventory;
pub mod launch;
pub mod record;
pub mod rejected;
pub mod runner;
pub mod values;

use ptxvk_runtime::{Context, Error};
use ptxvk_translator::ScalarType;

use crate::launch::LaunchError;

/// What running a case found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    /// The first mismatch, described for a person.
    Fail(String),
    /// The device lacks something the case needs; never counted as passed.
    Unsupported(String),
}

/// One case of the suite.
pub struct Case {
    /// Unique, `/`-separated: `family/instruction/...`.
    pub name: String,
    /// The ISA section or topic, for the summary table.
    pub family: &'static str,
    /// The PTX the case runs (for reports and `--coverage`).
    pub ptx: String,
    pub run: Box<dyn Fn(&Context) -> Outcome + Send + Sync>,
}

/// The expected value of one output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// Exactly these bits (the low bits of the output type).
    Bits(u64),
    /// Any NaN.
    AnyNan,
    /// A float within `ulps` units in the last place of the output type.
    Ulps { value: f64, ulps: u32 },
    /// A float within an absolute error.
    Abs { value: f64, tol: f64 },
    /// The ISA leaves the result unspecified.
    Any,
    /// Either of these bits (where the ISA, or IEEE 754 under it, leaves a choice of two).
    Either(u64, u64),
}

/// A translation or launch error as a case outcome: a device that lacks a feature makes the
/// case unsupported; everything else is a failure.
pub fn outcome_of(e: Error) -> Outcome {
    match e {
        Error::Translate(d) if d.items.iter().any(|i| i.message.contains("which device")) => {
            Outcome::Unsupported(d.short().trim().to_string())
        }
        Error::Translate(d) => Outcome::Fail(d.short().trim().to_string()),
        other => Outcome::Fail(other.to_string()),
    }
}

/// A launch error as a case outcome (see [`outcome_of`]); another backend's errors are failures.
pub fn launch_outcome(e: LaunchError) -> Outcome {
    match e {
        LaunchError::Ptxvk(e) => outcome_of(e),
        e @ LaunchError::BackendLacks { .. } => Outcome::Unsupported(e.to_string()),
        other => Outcome::Fail(other.to_string()),
    }
}

/// `bits` of type `ty` in hex and decimal, for reports.
pub fn show(ty: ScalarType, bits: u64) -> String {
    let b = ty.bits();
    let bits = if b >= 64 {
        bits
    } else {
        bits & ((1u64 << b) - 1)
    };
    let dec = match ty {
        ScalarType::F64 => format!("{}", f64::from_bits(bits)),
        ScalarType::F32 => format!("{}", f32::from_bits(bits as u32)),
        ScalarType::F16 => format!("{}", half::f16::from_bits(bits as u16)),
        ScalarType::Bf16 => format!("{}", half::bf16::from_bits(bits as u16)),
        ScalarType::Pred => (if bits != 0 { "true" } else { "false" }).to_string(),
        t if t.is_signed() => format!("{}", ((bits << (64 - b)) as i64) >> (64 - b)),
        _ => format!("{bits}"),
    };
    format!("{dec} (0x{bits:0w$x})", w = (b.max(4) / 4) as usize)
}

/// Whether `got` (bits of `ty`) satisfies `want`.
pub fn matches(ty: ScalarType, got: u64, want: Expect) -> bool {
    let as_f64 = |bits: u64| -> f64 {
        match ty {
            ScalarType::F64 => f64::from_bits(bits),
            ScalarType::F32 => f64::from(f32::from_bits(bits as u32)),
            ScalarType::F16 => f64::from(half::f16::from_bits(bits as u16)),
            ScalarType::Bf16 => f64::from(half::bf16::from_bits(bits as u16)),
            _ => bits as f64,
        }
    };
    let b = ty.bits();
    let mask = if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    match want {
        Expect::Bits(w) => got & mask == w & mask,
        Expect::AnyNan => as_f64(got & mask).is_nan(),
        Expect::Any => true,
        Expect::Either(a, b) => got & mask == a & mask || got & mask == b & mask,
        Expect::Abs { value, tol } => {
            let g = as_f64(got & mask);
            if value.is_nan() {
                return g.is_nan();
            }
            g == value || (g - value).abs() <= tol
        }
        Expect::Ulps { value, ulps } => {
            let g = as_f64(got & mask);
            if value.is_nan() {
                return g.is_nan();
            }
            if g == value {
                return true;
            }
            if value.is_infinite() || g.is_infinite() {
                return false;
            }
            (g - value).abs() <= f64::from(ulps) * ulp(ty, value)
        }
    }
}

/// The size of one unit in the last place of `ty` at `v`.
pub fn ulp(ty: ScalarType, v: f64) -> f64 {
    let (mant, min_exp) = match ty {
        ScalarType::F64 => (52, -1022),
        ScalarType::F16 => (10, -14),
        ScalarType::Bf16 => (7, -126),
        _ => (23, -126),
    };
    let e = if v == 0.0 {
        min_exp
    } else {
        (v.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

/// Compares device output with the reference, reporting the first difference in hex and decimal.
pub fn compare_f32(got: &[f32], want: &[f32], inputs: impl Fn(usize) -> String) -> Outcome {
    if got.len() != want.len() {
        return Outcome::Fail(format!("{} results, {} expected", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.to_bits() != w.to_bits() {
            return Outcome::Fail(format!(
                "element {i} ({}): expected {}, got {}",
                inputs(i),
                show(ScalarType::F32, u64::from(w.to_bits())),
                show(ScalarType::F32, u64::from(g.to_bits()))
            ));
        }
    }
    Outcome::Pass
}
