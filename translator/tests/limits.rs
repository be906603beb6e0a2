//! Pathological input: nesting far past the limit, unclosed parentheses, a line of thousands of
//! errors, CR-only line endings. Each must end in a positioned error (or success), on a thread
//! with a small stack so that a return to unbounded recursion shows up as a crash here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::parse::MAX_NESTING;
use ptxvk_translator::{Diagnostics, Program, SourceFile};

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Runs `f` on a thread with a 2 MiB stack.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n.reg .b32 %r<4>;\n{body}\nret;\n}}\n")
}

fn parse(src: String) -> Result<(), Diagnostics> {
    small_stack(move || Program::parse(SourceFile::new("t.ptx", src)).map(|_| ()))
}

/// The first error's `line:col` and message, from the short rendering.
fn first_error(src: String) -> (usize, usize, String) {
    let d = parse(src).expect_err("expected an error");
    let short = d.short();
    let line = short.lines().next().expect("one error at least");
    let mut parts = line.splitn(4, ':');
    assert_eq!(parts.next(), Some("t.ptx"), "{line}");
    let l = parts.next().and_then(|s| s.parse().ok()).expect("line");
    let c = parts.next().and_then(|s| s.parse().ok()).expect("column");
    (l, c, parts.next().unwrap_or_default().to_string())
}

const DEEP: usize = 100_000;

fn assert_too_deep(src: String) {
    let (line, col, msg) = first_error(src);
    assert!(msg.contains("nested deeper than 256 levels"), "{msg}");
    assert!(line >= 1 && col >= 1);
}

#[test]
fn deep_parentheses_are_an_error() {
    let src = kernel(&format!(
        "mov.u32 %r1, {}1{};",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    ));
    let (line, col, msg) = first_error(src);
    assert!(msg.contains("nested deeper"), "{msg}");
    // The parenthesis that passes the limit, on the instruction's line.
    assert_eq!(line, 7);
    assert!(col > 14 && col < 14 + MAX_NESTING + 2, "column {col}");
}

#[test]
fn deep_unary_chains_are_an_error() {
    assert_too_deep(kernel(&format!("mov.u32 %r1, {}1;", "-".repeat(DEEP))));
    assert_too_deep(kernel(&format!("mov.u32 %r1, {}1;", "~!".repeat(DEEP / 2))));
}

#[test]
fn deep_conditional_chains_are_an_error() {
    assert_too_deep(kernel(&format!(
        "mov.u32 %r1, {}1;",
        "1 ? 2 : ".repeat(DEEP)
    )));
}

#[test]
fn long_sums_are_an_error() {
    let sum = vec!["1"; DEEP].join("+");
    assert_too_deep(format!("{HEADER}.global .u32 g = {sum};\n"));
    assert_too_deep(kernel(&format!("add.u32 %r1, %r2, {sum};")));
}

#[test]
fn deep_blocks_are_an_error() {
    assert_too_deep(kernel(&format!("{}{}", "{".repeat(DEEP), "}".repeat(DEEP))));
}

#[test]
fn deep_initializer_braces_are_an_error() {
    assert_too_deep(format!(
        "{HEADER}.global .u32 g[1] = {}1{};\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    ));
}

/// Just inside the limit, the same constructs parse, check and translate on the small stack.
#[test]
fn nesting_near_the_limit_is_accepted() {
    let n = 100;
    let body = format!(
        "{}mov.u32 %r1, {}1{};\nadd.u32 %r2, %r1, {};\nmov.u32 %r3, {}1;{}",
        "{".repeat(n),
        "(".repeat(n),
        ")".repeat(n),
        vec!["1"; n].join("+"),
        "-".repeat(n),
        "}".repeat(n)
    );
    let src = kernel(&body);
    small_stack(move || {
        let p = Program::parse(SourceFile::new("t.ptx", src)).expect("valid");
        p.translate_kernel("k", &ptxvk_translator::DeviceProfile::lavapipe())
            .expect("translates");
    });
}

#[test]
fn unclosed_parentheses_are_reported_at_the_first() {
    for n in [1, 800, DEEP] {
        let src = kernel(&format!("mov.u32 %r1, {}1;", "(".repeat(n)));
        let (line, col, msg) = first_error(src);
        if n > MAX_NESTING {
            assert!(msg.contains("nested deeper"), "{msg}");
        } else {
            assert!(msg.contains("unclosed `(`"), "{msg}");
            assert_eq!((line, col), (7, 14), "{msg}");
        }
    }
    // Unclosed, but shallow enough: each statement's own error, at its first `(`.
    let src = kernel(&"mov.u32 %r1, ((1 + 2;\n".repeat(800));
    let d = parse(src).expect_err("unclosed");
    assert_eq!(d.errors().count(), 800);
    assert!(
        d.short().starts_with("t.ptx:7:14: error: unclosed `(`"),
        "{}",
        d.short()
    );
}
