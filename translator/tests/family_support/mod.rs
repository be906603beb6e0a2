//! Helpers shared by the instruction-family and forms tests (`data_family`, `int_family`,
//! `textures`, `*_forms`): translate a kernel `k` and validate its SPIR-V, or find the
//! diagnostic that rejects a line.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use ptxvk_translator::{DeviceProfile, Diagnostics, KernelModule, Program, SourceFile};

/// Parses `src`, translates its kernel `k` for lavapipe and validates the SPIR-V; `what` heads
/// any failure message.
pub fn translate_valid(src: &str, what: &str) -> KernelModule {
    let program = Program::parse(SourceFile::new("ok.ptx", src.to_string()))
        .unwrap_or_else(|d| panic!("{what}\n{d}"));
    let k = program
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_or_else(|d| panic!("{what}\n{d}"));
    if let Err(e) = ptxvk_translator::validate(&k.spirv) {
        panic!("{what}: {e}\n{}", ptxvk_translator::disassemble(&k.spirv));
    }
    k
}

/// Where a rejection must come from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The checker (`Program::parse`), and every error lies on the line.
    Check,
    /// The checker or, failing that, translating kernel `k`.
    CheckOrTranslate,
}

/// Checks that `line` of `src` is rejected with one error whose span is exactly `at` (a
/// modifier without its dot, an operand, the opcode, or the whole instruction), rendered with
/// the file name and a caret; returns that error's message.
pub fn rejected_in(src: &str, line: &str, at: &str, stage: Stage) -> String {
    let err: Diagnostics = match Program::parse(SourceFile::new("bad.ptx", src.to_string())) {
        Err(d) => d,
        Ok(_) if stage == Stage::Check => panic!("`{line}` was accepted"),
        Ok(p) => match p.translate_kernel("k", &DeviceProfile::lavapipe()) {
            Ok(_) => panic!("`{line}` was accepted"),
            Err(d) => d,
        },
    };
    if stage == Stage::Check {
        let start = src.find(line).expect("line in source");
        for d in &err.items {
            assert!(
                d.span.start as usize >= start && (d.span.end as usize) <= start + line.len(),
                "`{line}`: an error is not on the instruction: {err}"
            );
        }
    }
    let Some(found) = err
        .items
        .iter()
        .find(|d| src[d.span.range()].trim_start_matches('.') == at)
    else {
        panic!("`{line}`: no error points at `{at}`\n{err}");
    };
    let rendered = err.to_string();
    assert!(rendered.contains("bad.ptx:"), "{rendered}");
    assert!(rendered.contains('^'), "{rendered}");
    found.message.clone()
}

/// Stores every register of the kernel to `out` at the end, so that what the body computes is
/// used (the translator removes computations whose results nobody reads).
pub fn keep_live(regs: &[(&str, &str, u32, u32)]) -> String {
    let mut s = String::from(
        "\t.reg .b64 %keep;\n\t.reg .b32 %keepp;\n\tld.param.u64 %keep, [out];\n\tmov.b32 %keepp, 1;\n",
    );
    let mut at = 0;
    for &(name, ty, count, size) in regs {
        for i in 0..count {
            if ty == "pred" {
                s += &format!("\t@{name}{i} st.global.b32 [%keep+{at}], %keepp;\n");
            } else {
                s += &format!("\tst.global.{ty} [%keep+{at}], {name}{i};\n");
            }
            at += size;
        }
    }
    s
}

/// Parses `src` and translates its kernel `k` for lavapipe, NVIDIA and RDNA, validating each
/// SPIR-V module; `what` heads any failure message.
pub fn translates_for_every_profile(src: &str, what: &str) {
    let program = Program::parse(SourceFile::new("k.ptx", src.to_string()))
        .unwrap_or_else(|d| panic!("{what}:\n{d}"));
    for name in ["lavapipe", "nvidia", "amd-rdna"] {
        let profile = DeviceProfile::named(name).expect("a named profile");
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{what} for {name}:\n{d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{what} for {name}: invalid SPIR-V: {e}");
        }
    }
}

/// Checks that the checker refuses `src` with an error whose message contains `message`.
pub fn refused_with_message(src: &str, what: &str, message: &str) {
    match Program::parse(SourceFile::new("bad.ptx", src.to_string())) {
        Ok(_) => panic!("`{what}` was accepted"),
        Err(d) => assert!(
            d.errors().any(|e| e.message.contains(message)),
            "`{what}`: no error `{message}`:\n{d}"
        ),
    }
}
