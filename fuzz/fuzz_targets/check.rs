//! Parser and checker: `Program::parse`, as `ptxvk check` runs it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxvk_translator::Program;

fuzz_target!(|data: &[u8]| {
    match Program::parse(ptxvk_fuzz::source(data)) {
        Ok(p) => {
            ptxvk_fuzz::check_diagnostics(&p.warnings());
            for k in p.kernel_names() {
                assert!(
                    p.kernel_abi(&k).is_some(),
                    "kernel `{k}` listed without an ABI"
                );
            }
        }
        Err(d) => {
            assert!(d.has_errors(), "parse failed without an error");
            ptxvk_fuzz::check_diagnostics(&d);
        }
    }
});
