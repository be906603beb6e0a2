//! The ptxvk reference suite: cases, their reference models, and the runner's bookkeeping.
//!
//! A [`Case`] is a PTX kernel, how to launch it, its inputs, and an expectation computed by a
//! Rust reference model written from the PTX ISA text. `cargo xtask conformance` runs them all.

pub mod cases;

use ptxvk_runtime::Context;

/// What running a case found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    /// The first mismatch, described for a person.
    Fail(String),
    /// The device lacks something the case needs; never counted as passed.
    Unsupported(String),
}

pub struct Case {
    pub name: String,
    /// The ISA section or topic, for the summary table.
    pub family: &'static str,
    pub run: Box<dyn Fn(&Context) -> Outcome + Send + Sync>,
}

/// Compares device output with the reference, reporting the first difference in hex and decimal.
pub fn compare_f32(got: &[f32], want: &[f32], inputs: impl Fn(usize) -> String) -> Outcome {
    if got.len() != want.len() {
        return Outcome::Fail(format!("{} results, {} expected", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.to_bits() != w.to_bits() {
            return Outcome::Fail(format!(
                "element {i} ({}): expected {w} (0x{:08x}), got {g} (0x{:08x})",
                inputs(i),
                w.to_bits(),
                g.to_bits()
            ));
        }
    }
    Outcome::Pass
}
