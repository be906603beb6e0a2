//! The body of every libFuzzer target as a plain function of the input's bytes: the nightly
//! `fuzz/` package wraps each in `fuzz_target!`, and `tests/replay.rs` runs them on stable over
//! the committed seeds, the local corpus and seeded random inputs.

pub mod check;
pub mod cli_args;
#[cfg(feature = "cuda")]
pub mod cuda_entry;
pub mod parse;
#[cfg(feature = "validate")]
pub mod translate;
#[cfg(feature = "validate")]
pub mod translate_gen;
