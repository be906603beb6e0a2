//! The large inputs a hostile or generated file can hold: a hundred thousand 8-byte labels (the
//! names a weak hash put into a few buckets), a million registers, a 100 MB line, a file of NUL
//! bytes. Each ends in success or a positioned error, on a thread with a small stack.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Diagnostics, Program, SourceFile};

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Parses, checks and translates `src` for lavapipe on a thread with a 2 MiB stack.
fn translate(src: String) -> Result<usize, Diagnostics> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let p = Program::parse(SourceFile::new("t.ptx", src))?;
            let kernels = p.translate_all(&DeviceProfile::lavapipe())?;
            Ok(kernels.len())
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn a_hundred_thousand_eight_byte_labels_translate() {
    let labels: String = (0..100_000).map(|i| format!("LBL{i:05}:\n")).collect();
    let src = format!("{HEADER}.visible .entry k()\n{{\n{labels}ret;\n}}\n");
    assert_eq!(translate(src).map_err(|d| d.short()), Ok(1));
}

#[test]
fn a_million_registers_translate() {
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<1000000>;\n.reg .b64 %rd1;\n\
         ld.param.u64 %rd1, [p];\nmov.u32 %r999999, 7;\nst.global.u32 [%rd1], %r999999;\nret;\n}}\n"
    );
    assert_eq!(translate(src).map_err(|d| d.short()), Ok(1));
}

#[test]
fn a_hundred_megabyte_line_is_read_through() {
    let src = format!(
        "{HEADER}// {}\n.visible .entry k()\n{{\nret;\n}}\n",
        "x".repeat(100 << 20)
    );
    assert_eq!(translate(src).map_err(|d| d.short()), Ok(1));
    // The same line as an operand: one error, shown as an excerpt of the line.
    let src = format!(
        "{HEADER}.visible .entry k()\n{{\n.reg .b32 %r1;\nmov.u32 %r1, {};\nret;\n}}\n",
        "y".repeat(100 << 20)
    );
    let d = translate(src).expect_err("an undeclared name");
    let text = d.render(false);
    assert!(
        text.contains("t.ptx:7:"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(text.len() < 10_000, "the report holds {} bytes", text.len());
}

#[test]
fn a_file_of_nul_bytes_is_an_error_at_its_start() {
    let d = translate("\0".repeat(100_000)).expect_err("not PTX");
    let short = d.short();
    assert!(
        short.starts_with("t.ptx:1:1:"),
        "{}",
        &short[..short.len().min(500)]
    );
    assert!(d.render(false).len() < 20_000);
}
