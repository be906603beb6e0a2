//! The fuzz targets' bodies (`targets`), what they share (the checks every translator answer
//! must pass) and a generator and interpreter of well-typed PTX (`ptxgen`) for the
//! structure-aware target and the differential fuzzer, and the file format that keeps the
//! differential fuzzer's programs as conformance cases (`regression`). Stable Rust: the
//! libFuzzer wrappers in `fuzz/` need nightly, these do not.

pub mod ptxgen;
pub mod regression;
pub mod targets;

// The CLI's argument parsing as it ships, for the cli_args target (it names `crate::args`).
#[allow(dead_code)]
#[path = "../../../runtime/src/bin/ptxvk/args.rs"]
mod args;
#[allow(dead_code)]
#[path = "../../../runtime/src/bin/ptxvk/cli.rs"]
mod cli;

use std::sync::Arc;

use ptxvk_translator::{Diagnostics, SourceFile};

/// The fuzzer's bytes as a source file. PTX is ASCII and the CLI refuses other bytes before the
/// translator sees them; lossy decoding keeps every input useful instead of discarding most.
pub fn source(data: &[u8]) -> Arc<SourceFile> {
    SourceFile::new("fuzz.ptx", String::from_utf8_lossy(data).into_owned())
}

/// Every diagnostic points into the file and renders (both renderings the CLI uses).
pub fn check_diagnostics(d: &Diagnostics) {
    let len = d.file.text.len() as u32;
    for item in &d.items {
        assert!(
            item.span.start <= item.span.end && item.span.end <= len,
            "span {:?} outside a file of {len} bytes: {}",
            item.span,
            item.message
        );
        assert!(!item.message.is_empty(), "a diagnostic without a message");
    }
    let _ = d.render(false);
    let _ = d.short();
}

#[cfg(feature = "validate")]
/// Translates every kernel of `src` for the profile `pick` selects (lavapipe's, or one of the
/// named ones) and validates each module. An invalid module is a translator bug: the runtime
/// would hand it to the driver.
pub fn translate_and_validate(src: &Arc<SourceFile>, pick: u8) {
    use ptxvk_translator::{DeviceProfile, Program};
    let program = match Program::parse(src.clone()) {
        Ok(p) => p,
        Err(d) => {
            check_diagnostics(&d);
            return;
        }
    };
    let names = DeviceProfile::names();
    let profile = match names.get(usize::from(pick) % (names.len() + 1)) {
        Some(name) => DeviceProfile::named(name).expect("a listed profile exists"),
        None => DeviceProfile::lavapipe(),
    };
    for name in program.kernel_names() {
        match program.translate_kernel(&name, &profile) {
            Ok(k) => {
                if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                    panic!("kernel `{name}` for {}: {e}\n{}", profile.name, src.text);
                }
            }
            Err(d) => {
                assert!(d.has_errors(), "translation failed without an error");
                check_diagnostics(&d);
                let internal = d
                    .items
                    .iter()
                    .find(|i| i.message.contains("internal error"));
                assert!(internal.is_none(), "{:?}\n{}", internal, src.text);
            }
        }
    }
}

#[cfg(feature = "validate")]
/// [`translate_and_validate`] for PTX that is valid by construction: it must also parse, check
/// and, for lavapipe's profile, translate.
pub fn translate_generated(text: &str, pick: u8) {
    use ptxvk_translator::{DeviceProfile, Program};
    let src = SourceFile::new("gen.ptx", text);
    let program = match Program::parse(src.clone()) {
        Ok(p) => p,
        Err(d) => panic!("generated PTX rejected:\n{}\n{text}", d.short()),
    };
    if pick.is_multiple_of(2) {
        let profile = DeviceProfile::lavapipe();
        for name in program.kernel_names() {
            match program.translate_kernel(&name, &profile) {
                Ok(k) => {
                    if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                        panic!("kernel `{name}`: {e}\n{text}");
                    }
                }
                Err(d) => panic!("generated PTX not translated:\n{}\n{text}", d.short()),
            }
        }
    } else {
        translate_and_validate(&src, pick / 2);
    }
}
