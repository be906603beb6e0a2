//! Parser and checker: `Program::parse`, as `ptxvk check` runs it.

use ptxvk_translator::Program;

/// One input.
pub fn run(data: &[u8]) {
    match Program::parse(crate::source(data)) {
        Ok(p) => {
            crate::check_diagnostics(&p.warnings());
            for k in p.kernel_names() {
                assert!(
                    p.kernel_abi(&k).is_some(),
                    "kernel `{k}` listed without an ABI"
                );
            }
        }
        Err(d) => {
            assert!(d.has_errors(), "parse failed without an error");
            crate::check_diagnostics(&d);
        }
    }
}
