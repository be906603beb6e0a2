//! Invalid PTX: every error names the problem and points at the offending token (file:line:col),
//! and independent errors in one file are all reported. Expected positions are found in the
//! source text itself (the first occurrence of a marker string), never copied from our output.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{Diagnostics, Program, SourceFile};

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

fn errors(src: &str) -> Diagnostics {
    match Program::parse(SourceFile::new("t.ptx", src)) {
        Ok(_) => panic!("expected errors for:\n{src}"),
        Err(d) => d,
    }
}

/// 1-based line and column (in characters) of the `nth` occurrence of `needle` in `src`.
fn position(src: &str, needle: &str, nth: usize) -> (usize, usize) {
    let mut from = 0;
    let mut at = 0;
    for _ in 0..=nth {
        let rel = src[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("occurrence {nth} of `{needle}` not in source"));
        at = from + rel;
        from = at + 1;
    }
    let before = &src[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, col)
}

/// One expected error: a piece of its message, and the text its span starts at (the `nth`
/// occurrence in the source).
struct Want<'a> {
    message: &'a str,
    at: &'a str,
    nth: usize,
}

fn want<'a>(message: &'a str, at: &'a str) -> Want<'a> {
    Want {
        message,
        at,
        nth: 0,
    }
}

fn want_nth<'a>(message: &'a str, at: &'a str, nth: usize) -> Want<'a> {
    Want { message, at, nth }
}

/// The errors of `src` are exactly `wanted`, in source order.
fn check(src: &str, wanted: &[Want<'_>]) {
    let d = errors(src);
    let got: Vec<_> = d.errors().collect();
    let listing = d.short();
    assert_eq!(
        got.len(),
        wanted.len(),
        "expected {} errors, got:\n{listing}",
        wanted.len()
    );
    for (g, w) in got.iter().zip(wanted) {
        assert!(
            g.message.contains(w.message),
            "message `{}` lacks `{}`\n{listing}",
            g.message,
            w.message
        );
        let want_pos = position(src, w.at, w.nth);
        assert_eq!(
            d.file.line_col(g.span.start),
            want_pos,
            "`{}` should point at `{}`\n{listing}",
            g.message,
            w.at
        );
        let spanned = &src[g.span.range()];
        assert!(
            w.at.starts_with(spanned) || spanned.starts_with(w.at),
            "`{}` spans `{spanned}`, expected `{}`\n{listing}",
            g.message,
            w.at
        );
        // The rendering shows the location, the line and a caret.
        let text = Diagnostics::new(d.file.clone(), vec![(*g).clone()]).render(false);
        assert!(
            text.contains(&format!("t.ptx:{}:{}", want_pos.0, want_pos.1)),
            "{text}"
        );
        assert!(text.contains('^'), "{text}");
    }
}

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\n{body}}}\n")
}

#[test]
fn truncated_files() {
    // Cut inside an address operand: the operand, then the body, are unfinished.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [p"
    );
    let end = src.len();
    let d = errors(&src);
    let got: Vec<_> = d.errors().collect();
    assert_eq!(got.len(), 2, "{}", d.short());
    assert!(got[0].message.contains("expected"), "{}", d.short());
    assert!(got[0].message.contains("`]`"), "{}", d.short());
    assert!(
        got[1].message.contains("ends inside a function body"),
        "{}",
        d.short()
    );
    for g in got {
        assert_eq!(g.span.start as usize, end, "{}", d.short());
        assert_eq!(d.file.line_col(g.span.start), (7, 24));
    }
    // Cut after `.version`.
    let src = ".version";
    let d = errors(src);
    let first = d.errors().next().unwrap();
    assert_eq!(
        first.message,
        "expected a version number such as 7.0, found end of input"
    );
    assert_eq!(d.file.line_col(first.span.start), (1, 9));
    // An empty file has neither `.version` nor `.target`.
    let d = errors("");
    let msgs: Vec<&str> = d.errors().map(|e| e.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "missing `.version` directive",
            "missing `.target` directive"
        ]
    );
}

#[test]
fn unknown_opcodes_and_bad_modifiers() {
    let src = kernel(
        "  .reg .b32 %r<3>;\n  frobnicate.u32 %r1, %r2;\n  add.rn.s32 %r1, %r1, %r2;\n  mul.lo.f32 %r1, %r1, %r2;\n  ret;\n",
    );
    check(
        &src,
        &[
            want(
                "unknown or unsupported instruction `frobnicate`",
                "frobnicate",
            ),
            want("`.rn` is not a modifier of `add` here", ".rn"),
            want("applies to integer `mul` only", ".lo"),
        ],
    );
}

#[test]
fn type_mismatches() {
    let src = kernel(
        "  .reg .u32 %u<3>;\n  .reg .f32 %f<3>;\n  .reg .u64 %d<3>;\n  add.f32 %f1, %u1, %f2;\n  add.u32 %u1, %u2, %d1;\n  cvt.rn.f32.u32 %u1, %u2;\n  ret;\n",
    );
    check(
        &src,
        &[
            want(
                "a .u32 operand cannot be used with a .f32 instruction",
                "%u1, %f2",
            ),
            want(
                "a .u64 operand does not match the .u32 instruction type (sizes differ)",
                "%d1;",
            ),
            want(
                "a .u32 operand cannot be used with a .f32 instruction",
                "%u1, %u2;",
            ),
        ],
    );
}

#[test]
fn undefined_symbols() {
    let src = kernel(
        "  .reg .b32 %r<3>;\n  add.u32 %r1, %r9, 1;\n  bra NOWHERE;\n  ld.global.u32 %r1, [nosuchvar];\n  add.u32 %r1, %q, 1;\n  call nofunc;\n  ret;\n",
    );
    check(
        &src,
        &[
            want(
                "`%r9` is not one of the 3 registers `%r<3>` declares",
                "%r9",
            ),
            want("unknown label `NOWHERE`", "NOWHERE"),
            want("unknown name `nosuchvar`", "nosuchvar"),
            want("unknown name `%q`", "%q"),
            want("`call` needs a function name", "call nofunc"),
        ],
    );
}

#[test]
fn duplicate_labels_and_declarations() {
    let src = format!(
        "{HEADER}.global .u32 g;\n.global .u32 g;\n.visible .entry k()\n{{\n  .reg .b32 %r<3>;\n  .reg .b32 %r1;\n  .reg .b32 %x;\n  .reg .f32 %x;\nL1:\nL1:\n  ret;\n}}\n.visible .entry k() {{ ret; }}\n.func f(.param .u32 a);\n.func f(.param .u64 a) {{ ret; }}\n"
    );
    check(
        &src,
        &[
            want_nth("`g` is declared twice", "g;", 1),
            want("`%r1` is already declared in this scope", "%r1;"),
            want_nth("`%x` is already declared in this scope", "%x;", 1),
            want_nth("label `L1` is defined twice", "L1:", 1),
            want_nth("function `k` is defined twice", "k()", 1),
            want_nth("`f` is declared again with a different signature", "f(", 1),
        ],
    );
}

/// `%r<N>` declares `%r0` .. `%r(N-1)` (ISA 5.4.5): a single name clashes with a range that
/// covers it, whichever comes first, and only then; `%r1<5>` covers `%r10` .. `%r14`.
#[test]
fn register_ranges_clash_with_the_names_they_declare() {
    let src = kernel(
        "  .reg .b32 %r<4>;\n  .reg .b32 %r12;\n  .reg .b32 %r3;\n  .reg .b32 %r03;\n  .reg .b32 %q1<5>;\n  .reg .b32 %q13;\n  .reg .b32 %q15;\n  .reg .b32 %q2;\n  .reg .b32 %a7;\n  .reg .b32 %a8;\n  .reg .b32 %a<8>;\n  .reg .b32 %b7;\n  .reg .b32 %b<7>;\n  ret;\n",
    );
    check(
        &src,
        &[
            want("`%r3` is already declared in this scope", "%r3;"),
            want("`%q13` is already declared in this scope", "%q13;"),
            want("`%a` is already declared in this scope", "%a<8>"),
        ],
    );
    // Many single declarations in one scope (the clash test used to walk the scope for each).
    let decls: String = (0..20_000)
        .map(|i| format!("  .reg .b32 %v{i};\n"))
        .collect();
    let src = kernel(&format!("{decls}  .reg .b32 %v<3>;\n  ret;\n"));
    check(
        &src,
        &[want("`%v` is already declared in this scope", "%v<3>")],
    );
}

#[test]
fn out_of_range_constants() {
    let src = kernel(
        "  .reg .b32 %r<99999999999>;\n  .reg .b64 %rd<3>;\n  .reg .b32 %s<3>;\n  mov.u32 %s1, 0x1FFFFFFFFFFFFFFFFF;\n  mov.u32 %s1, 09;\n  ld.global.u32 %s1, [%rd1+0x100000000];\n  ret;\n",
    );
    check(
        &src,
        &[
            want("value does not fit in 32 bits", "99999999999"),
            want(
                "integer constant `0x1FFFFFFFFFFFFFFFFF` does not fit in 64 bits",
                "0x1FFFFFFFFFFFFFFFFF",
            ),
            want("invalid integer constant `09`", "09"),
            want("address offset does not fit in 32 bits", "%rd1+0x100000000"),
        ],
    );
    // A constant expression that divides by zero (ISA 4.6: an error).
    let src = format!("{HEADER}.global .u32 a[4 / (2 - 2)];\n");
    check(&src, &[want("division by zero", "4 / (2 - 2)")]);
}

/// A version after the newest ptxvk knows is read with a warning at `.version`, and features
/// keep their own gates: a known instruction from a newer ISA needs its target all the same.
#[test]
fn newer_versions_warn_and_keep_per_feature_gates() {
    for version in ["9.9", "10.0", "12.3"] {
        let src = format!(
            ".version {version}\n.target sm_90\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
        );
        let program = Program::parse(SourceFile::new("t.ptx", &src))
            .unwrap_or_else(|d| panic!("{version} refused:\n{}", d.short()));
        let warnings = program.warnings();
        let w: Vec<_> = warnings.items.iter().collect();
        assert_eq!(w.len(), 1, "{}", warnings.short());
        assert!(
            w[0].message
                .contains(&format!("PTX ISA {version} is newer than ptxvk knows")),
            "{}",
            w[0].message
        );
        assert_eq!(
            w[0].span.start as usize,
            src.find(".version").unwrap_or(usize::MAX)
        );
    }
    let src = ".version 10.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  .reg .pred %p;\n  elect.sync _|%p, 0xffffffff;\n  ret;\n}\n";
    check(
        src,
        &[want("`elect` requires PTX ISA 8.0 and sm_90", "elect")],
    );
    // Every published version is read without a word.
    for version in ["9.2", "9.3", "9.4", "9.5"] {
        let src = format!(
            ".version {version}\n.target sm_90\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
        );
        let program = Program::parse(SourceFile::new("t.ptx", &src))
            .unwrap_or_else(|d| panic!("{version} refused:\n{}", d.short()));
        assert!(program.warnings().items.is_empty(), "{version}");
    }
}

#[test]
fn bad_version_and_target() {
    let src = ".version 7.9\n.target sm_70\n.address_size 64\n";
    check(src, &[want("unknown PTX ISA version 7.9", ".version")]);
    // Below the newest version a gap is an error: 8.8 was followed by 9.0.
    let src = ".version 8.9\n.target sm_70\n.address_size 64\n";
    check(src, &[want("unknown PTX ISA version 8.9", ".version")]);
    // sm_70 appeared in PTX ISA 6.0.
    let src = ".version 5.0\n.target sm_70\n.address_size 64\n";
    check(
        src,
        &[want(
            "target `sm_70` requires PTX ISA 6.0; this module declares .version 5.0",
            "sm_70",
        )],
    );
    let src = ".version 7.0\n.target sm_70, texmode_unified, texmode_independent\n";
    check(
        src,
        &[want(
            "a module declares one texturing mode",
            "texmode_independent",
        )],
    );
    let src = ".version 7.0\n.target sm_70, map_f64_to_f32\n.address_size 64\n";
    check(
        src,
        &[want(
            "`map_f64_to_f32` is not allowed for sm_13 and later",
            "map_f64_to_f32",
        )],
    );
    let src = ".version 7.0\n.target texmode_unified\n.address_size 64\n";
    check(
        src,
        &[want(
            "`.target` names no target architecture",
            "texmode_unified",
        )],
    );
    let src = ".version 7.0\n.target sm_70, fancy_option\n.address_size 64\n";
    check(
        src,
        &[want("unknown target `fancy_option`", "fancy_option")],
    );
    let src = ".version 7.0\n.target sm_70\n.address_size 32\n";
    check(src, &[want("`.address_size 32` is not supported", "32")]);
    let src = ".target sm_70\n.version 7.0\n.address_size 64\n";
    check(
        src,
        &[
            want("`.target` must follow `.version`", "sm_70"),
            want("`.version` must be the first directive", ".version"),
        ],
    );
}

#[test]
fn missing_target() {
    let src = ".version 7.0\n.address_size 64\n.visible .entry k() { ret; }\n";
    check(src, &[want("missing `.target` directive", ".version")]);
}

#[test]
fn feature_gating_points_at_the_feature() {
    let src = ".version 5.0\n.target sm_30\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<3>;\n  shfl.sync.idx.b32 %r1, %r2, 0, 31, 0xffffffff;\n  cp.async.ca.shared.global [%r1], [%r2], 4;\n  mov.u32 %r1, %pm0_64;\n  ret;\n}\n";
    check(
        src,
        &[
            want(
                "`shfl.sync` requires PTX ISA 6.0 and sm_30; this module declares .version 5.0",
                ".sync",
            ),
            want(
                "`cp.async` requires PTX ISA 7.0 and sm_80; this module declares .version 5.0 and .target sm_30",
                ".async",
            ),
            want(
                "`%pm0_64` requires PTX ISA 4.0 and sm_50; this module declares .target sm_30",
                "%pm0_64",
            ),
        ],
    );
    // shfl without .sync: removed for sm_70 and later from PTX ISA 6.4.
    let src = ".version 6.4\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<3>;\n  shfl.idx.b32 %r1, %r2, 0, 31;\n  ret;\n}\n";
    check(
        src,
        &[want(
            "`shfl` without `.sync` (write `shfl.sync` with a member mask) is not supported for sm_70",
            "shfl",
        )],
    );
}

#[test]
fn control_flow_directive_errors() {
    let src = kernel(
        "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\nL0:\n  brx.idx %r1, L0;\nP: .callprototype _ (.param .u32 _);\n  call %rd1, (%r1, %r2), P;\n  call %rd1, (%r1), NOLIST;\n  ret;\n",
    );
    check(
        &src,
        &[
            want("`L0` does not label a `.branchtargets` list", "L0;"),
            want("takes 1 argument(s), 2 given", "call %rd1, (%r1, %r2)"),
            want(
                "`NOLIST` is not a `.calltargets` or `.callprototype` label",
                "NOLIST",
            ),
        ],
    );
}

#[test]
fn independent_errors_are_all_reported() {
    // One error per line, each in a different stage (lexer, parser, checker), across two kernels.
    let src = format!(
        "{HEADER}.visible .entry a()\n{{\n  .reg .b32 %r<3>;\n  mov.u32 %r1, 0x;\n  add.u32 %r1, ,;\n  sub.u32 %r1, %nope, 1;\n  ret;\n}}\n.visible .entry b()\n{{\n  .reg .b32 %r<3>;\n  frob %r1;\n  bra MISSING;\n  ret;\n}}\n"
    );
    let d = errors(&src);
    let lines: Vec<usize> = d
        .errors()
        .map(|e| d.file.line_col(e.span.start).0)
        .collect();
    assert_eq!(lines, [7, 8, 9, 15, 16], "{}", d.short());
}

#[test]
fn function_names_are_operands_of_mov_and_call_only() {
    let src = format!(
        "{HEADER}.func f() {{ ret; }}\n.visible .entry k()\n{{\n  .reg .b64 %rd<3>;\n  mov.u64 %rd1, f;\n  add.u64 %rd1, f, 1;\n  mov.u64 %rd2, k;\n  ret;\n}}\n"
    );
    check(
        &src,
        &[
            want(
                "`f` is a function; function names are operands of `call` and `mov` only",
                "f, 1",
            ),
            want("the address of kernel `k`", "k;"),
        ],
    );
}

/// Forms NVIDIA's ptxas rejects (seen through `--record-cuda` on an H200, docs/nvidia.md):
/// `p|q` from a scalar half comparison, `.ftz` on a `.bf16` result, `cvt.sat` with a `.bf16`
/// operand (`.satfinite` stays), and the alternate formats as register types.
#[test]
fn forms_ptxas_rejects() {
    let src = format!(
        ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{}}}\n",
        "  .reg .b16 %h<3>;\n  .reg .pred %p, %q;\n  .reg .b32 %r;\n  .reg .f32 %f;\n  .reg .bf16 %bad;\n  .reg .b16 %d;\n  setp.lt.f16 %p|%q, %h1, %h2;\n  setp.lt.bf16 %p|%q, %h1, %h2;\n  setp.lt.f16 %p, %h1, %h2;\n  set.lt.ftz.bf16.f32 %d, %f, %f;\n  set.lt.ftz.f16.f32 %d, %f, %f;\n  cvt.rn.sat.bf16.f32 %d, %f;\n  cvt.rzi.sat.s32.bf16 %r, %d;\n  cvt.rn.satfinite.bf16.f32 %d, %f;\n  ret;\n"
    );
    check(
        &src,
        &[
            want("`.bf16` is not a register type", ".bf16 %bad"),
            want("`setp.f16` writes one predicate", "setp.lt.f16 %p|%q"),
            want("`setp.bf16` writes one predicate", "setp.lt.bf16"),
            want("`set.bf16` has no `.ftz` form", ".ftz.bf16"),
            want("`.sat` is not a modifier of `cvt.bf16.f32`", ".sat.bf16"),
            want("`.sat` is not a modifier of `cvt.s32.bf16`", ".sat.s32"),
        ],
    );
}
