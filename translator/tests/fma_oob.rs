//! `fma.oob` (ISA 9.7.4.4, PTX 8.1, sm_90) zeroes the result when an operand is the OOB-NaN that
//! tensor loads write out of bounds; the ISA names that NaN (5.5.3.3) without giving its
//! encoding, so ptxvk refuses the modifier, at the modifier, rather than guess the bits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{Program, SourceFile};

#[test]
fn fma_oob_is_refused_at_the_modifier() {
    for (ty, reg) in [
        ("f16", "b16"),
        ("bf16", "b16"),
        ("f16x2", "b32"),
        ("bf16x2", "b32"),
    ] {
        let text = format!(
            ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             \t.reg .{reg} %a, %d;\n\tfma.rn.oob.relu.{ty} %d, %a, %a, %a;\n\tret;\n}}\n"
        );
        let err = match Program::parse(SourceFile::new("oob.ptx", text)) {
            Ok(_) => panic!("fma.rn.oob.relu.{ty} was accepted"),
            Err(d) => d.to_string(),
        };
        // `.oob` starts at column 8 of line 7 (a tab, then `fma.rn`).
        assert!(err.contains("oob.ptx:7:8"), "{ty}: {err}");
        assert!(err.contains("`fma.oob` is not supported"), "{ty}: {err}");
        assert!(err.contains('^'), "{ty}: {err}");
    }
}
