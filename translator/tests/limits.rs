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

/// Bounds a rendering: at most 100 diagnostics, each with a short excerpt of its line.
fn assert_bounded(d: &Diagnostics, total: usize) {
    let text = d.render(false);
    let shown = text.matches("\nerror").count() + usize::from(text.starts_with("error"));
    assert_eq!(shown, 100, "{}", &text[..text.len().min(2000)]);
    assert!(
        text.ends_with(&format!("{} more errors not shown\n", total - 100)),
        "{}",
        &text[text.len().saturating_sub(500)..]
    );
    assert!(text.len() < 100 * 1200, "{} bytes", text.len());
    let short = d.short();
    assert_eq!(short.lines().count(), 101);
    assert!(short.lines().take(100).all(|l| l.starts_with("t.ptx:")));
}

#[test]
fn a_line_of_closing_braces_gives_a_bounded_report() {
    let src = format!("{HEADER}{}\n", "}".repeat(4000));
    let d = parse(src).expect_err("stray braces");
    let total = d.items.len();
    assert!(total > 100, "{total}");
    assert_bounded(&d, total);
    let first = d.short();
    assert!(first.starts_with("t.ptx:4:1: error"), "{first}");
}

#[test]
fn a_line_of_repeated_instructions_gives_a_bounded_report() {
    let src = kernel(&"mov.u32 ".repeat(4000));
    let d = parse(src).expect_err("no operands");
    let text = d.render(false);
    assert!(text.contains("--> t.ptx:7:"), "{text}");
    assert!(text.len() < 100 * 1200, "{} bytes", text.len());
}

#[test]
fn long_lines_are_shown_as_an_excerpt_around_the_caret() {
    let pad = " ".repeat(50_000);
    let src = kernel(&format!("{pad}add.u32 %r1, %r2, %nope;{pad}"));
    let d = parse(src).expect_err("undeclared register");
    let text = d.render(false);
    assert!(text.contains("--> t.ptx:7:50019"), "{text}");
    assert!(text.contains("...") && text.contains("%nope"), "{text}");
    assert!(text.len() < 1000, "{text}");
    // The caret is under the name.
    let src_line = text.lines().find(|l| l.starts_with("7 |")).expect("line");
    let caret = text.lines().find(|l| l.contains('^')).expect("caret");
    assert_eq!(src_line.find("%nope"), caret.find('^'), "{text}");
}

#[test]
fn carriage_returns_alone_end_lines() {
    let src = kernel("add.u32 %r1, %r2, %nope;").replace('\n', "\r");
    let d = parse(src).expect_err("undeclared register");
    assert!(d.short().starts_with("t.ptx:7:19: error"), "{}", d.short());
    let text = d.render(false);
    assert!(text.contains("--> t.ptx:7:19"), "{text}");
    let shown = text.lines().find(|l| l.starts_with("7 |")).expect("line");
    assert!(!shown.contains("ret;"), "{text}");
}

/// `n` forward branches, each over the next: ifs nested `n` deep once structured.
fn nested_ifs(n: usize) -> String {
    let mut body = String::from(".reg .pred %p;\nsetp.eq.u32 %p, %r1, 0;\n");
    for i in 0..n {
        body.push_str(&format!("@%p bra L{i};\nadd.u32 %r2, %r2, 1;\n"));
    }
    for i in (0..n).rev() {
        body.push_str(&format!("L{i}:\nadd.u32 %r3, %r3, 1;\n"));
    }
    kernel(&body)
}

/// `n` backward branches, each around the one before: loops nested `n` deep.
fn nested_loops(n: usize) -> String {
    let mut body = String::from(".reg .pred %p;\nsetp.eq.u32 %p, %r1, 0;\n");
    for i in 0..n {
        body.push_str(&format!("H{i}:\nadd.u32 %r2, %r2, 1;\n"));
    }
    for i in (0..n).rev() {
        body.push_str(&format!("@%p bra H{i};\n"));
    }
    kernel(&body)
}

fn translate(src: String) -> Result<(), Diagnostics> {
    small_stack(move || {
        let p = Program::parse(SourceFile::new("t.ptx", src))?;
        p.translate_kernel("k", &ptxvk_translator::DeviceProfile::lavapipe())
            .map(|_| ())
    })
}

#[test]
fn deeply_nested_control_flow_is_an_error() {
    for src in [nested_ifs(3000), nested_loops(3000)] {
        let d = translate(src).expect_err("too deep");
        let short = d.short();
        assert!(
            short.starts_with("t.ptx:4:1: error: control flow of `k` nests deeper than 256"),
            "{short}"
        );
    }
}

#[test]
fn nested_control_flow_near_the_limit_translates() {
    translate(nested_ifs(100)).expect("100 nested ifs");
    translate(nested_loops(100)).expect("100 nested loops");
}

/// A file the hand-written parser rejects goes to the grammar, which needs far more stack a
/// level: nesting just inside the limit still ends in the file's own error on the small stack.
#[test]
fn the_grammar_path_handles_nesting_near_the_limit() {
    // 150 blocks and 50 parentheses, each counted twice (a bracket and an operator): 250.
    let n = 150;
    let body = format!(
        "{}mov.u32 %r1, {}1{};\nmov.u32 %r2 %r1;\n{}",
        "{".repeat(n),
        "(".repeat(n / 3),
        ")".repeat(n / 3),
        "}".repeat(n)
    );
    let (line, col, msg) = first_error(kernel(&body));
    assert_eq!(line, 8, "{msg}");
    assert!(col > 1, "{msg}");
    assert!(!msg.contains("nested"), "{msg}");
}
