//! `ptxvk_fuzz_harness::targets::translate_gen` under libFuzzer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptxvk_fuzz_harness::targets::translate_gen::run(data));
