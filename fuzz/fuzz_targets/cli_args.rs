//! `ptxvk_fuzz_harness::targets::cli_args` under libFuzzer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptxvk_fuzz_harness::targets::cli_args::run(data));
