//! `ptxvk_fuzz_harness::targets::cuda_entry` under libFuzzer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptxvk_fuzz_harness::targets::cuda_entry::run(data));
