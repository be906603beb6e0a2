//! Floating-point, comparison and selection instructions (ISA 8.7.3-8.7.4): invalid forms are
//! rejected with a diagnostic at the offending modifier, and every valid form translates to
//! SPIR-V that SPIRV-Tools accepts, under each device profile's code path.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

/// A kernel with registers of every type the instructions below use, around `body`.
fn kernel(sm: u32, version: &str, body: &str) -> String {
    kernel_with(sm, version, body, true, true)
}

/// The same, without any f64 register when `f64` is false (devices without float64) and with
/// the half-precision registers `%h` declared .b16 when `f16` is false (without float16).
fn kernel_with(sm: u32, version: &str, body: &str, f64: bool, f16: bool) -> String {
    let h = if f16 { ".f16" } else { ".b16" };
    let (decl, load, store) = if f64 {
        (
            "\t.reg .f64 %fd<8>;\n",
            "\tld.global.f64 %fd1, [%rd1];\n\tld.global.f64 %fd2, [%rd1+8];\n\tld.global.f64 %fd3, [%rd1+16];\n",
            "\tst.global.f64 [%rd1+8], %fd4;\n",
        )
    } else {
        ("", "", "")
    };
    // `.address_size` exists from PTX ISA 2.3 (ISA 11.3.4); older modules omit it.
    let v: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
    let address_size = if v >= vec![2, 3] {
        ".address_size 64\n"
    } else {
        ""
    };
    format!(
        ".version {version}\n.target sm_{sm}\n{address_size}\n.visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .f32 %f<8>;\n{decl}\t.reg {h} %h<8>;\n\
         \t.reg .b16 %rs<8>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .s32 %s<4>;\n\
         \t.reg .u32 %u<4>;\n\t.reg .u16 %us<4>;\n\
         \tld.param.u64 %rd1, [out];\n\
         \tld.global.f32 %f1, [%rd1];\n\tld.global.f32 %f2, [%rd1+4];\n\tld.global.f32 %f3, [%rd1+8];\n\
         {load}\
         \tld.global.b16 %rs1, [%rd1];\n\tld.global.b16 %rs2, [%rd1+2];\n\tld.global.b16 %rs3, [%rd1+4];\n\
         \tld.global.b16 %h1, [%rd1];\n\tld.global.b16 %h2, [%rd1+2];\n\tld.global.b16 %h3, [%rd1+4];\n\
         \tld.global.b32 %r1, [%rd1];\n\tld.global.b32 %r2, [%rd1+4];\n\tld.global.b32 %r3, [%rd1+8];\n\
         \tld.global.s32 %s1, [%rd1];\n\tsetp.ne.s32 %p1, %s1, 0;\n\
         {body}\n\
         \tst.global.f32 [%rd1], %f4;\n{store}\tst.global.b16 [%rd1+16], %rs4;\n\
         \tst.global.b16 [%rd1+18], %h4;\n\tst.global.b32 [%rd1+20], %r4;\n\
         \tselp.u32 %u1, 1, 0, %p2;\n\tst.global.u32 [%rd1+24], %u1;\n\
         \tret;\n}}\n"
    )
}

/// Checks that `line` (one instruction) is rejected with a message containing `message`,
/// pointing at the first occurrence of `at` in the line.
fn rejected(sm: u32, version: &str, line: &str, message: &str, at: &str) {
    let text = kernel(sm, version, &format!("\t{line}"));
    let err = match Program::parse(SourceFile::new("t.ptx", text.clone())) {
        Ok(_) => panic!("`{line}` was accepted"),
        Err(d) => d,
    };
    let d = err
        .items
        .iter()
        .find(|d| d.message.contains(message))
        .unwrap_or_else(|| panic!("`{line}`: no error saying `{message}`:\n{err}"));
    let (l, col) = err.file.line_col(d.span.start);
    let src_line = text.lines().nth(l - 1).unwrap();
    assert!(
        src_line.contains(line.trim_end_matches(';')),
        "`{line}`: error on line {l}: {src_line}"
    );
    let want = src_line.find(at).unwrap() + 1;
    // The span may start at the modifier's dot.
    assert!(
        col == want || col + 1 == want,
        "`{line}`: caret at column {col}, expected {want} (`{at}`):\n{err}"
    );
}

#[test]
fn invalid_forms_are_rejected_at_the_offending_modifier() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "fma.f32 %f4, %f1, %f2, %f3;",
            "needs a rounding modifier",
            "fma",
        ),
        (
            "fma.f64 %fd4, %fd1, %fd2, %fd3;",
            "needs a rounding modifier",
            "fma",
        ),
        (
            "add.ftz.f64 %fd4, %fd1, %fd2;",
            "`.ftz` is not allowed",
            "ftz",
        ),
        (
            "add.rn.sat.f64 %fd4, %fd1, %fd2;",
            "`.sat` is not allowed",
            "sat",
        ),
        (
            "mul.rn.ftz.bf16 %rs4, %rs1, %rs2;",
            "`.ftz` is not allowed",
            "ftz",
        ),
        (
            "add.rz.f16 %h4, %h1, %h2;",
            "rounds to nearest even only",
            "rz",
        ),
        (
            "sqrt.f32 %f4, %f1;",
            "needs `.approx` or a rounding modifier",
            "sqrt",
        ),
        (
            "rcp.f64 %fd4, %fd1;",
            "needs `.approx` or a rounding modifier",
            "rcp",
        ),
        (
            "div.f32 %f4, %f1, %f2;",
            "needs `.approx`, `.full` or a rounding",
            "div",
        ),
        (
            "div.full.f64 %fd4, %fd1, %fd2;",
            "`.full` applies to `div.f32` only",
            "full",
        ),
        (
            "div.rn.ftz.f64 %fd4, %fd1, %fd2;",
            "`.ftz` is not allowed",
            "ftz",
        ),
        (
            "div.approx.rn.f32 %f4, %f1, %f2;",
            "takes one of `.approx`, `.full`",
            "approx",
        ),
        (
            "rcp.approx.f64 %fd4, %fd1;",
            "exists only as `rcp.approx.ftz.f64`",
            "rcp",
        ),
        ("rcp.rn.ftz.f64 %fd4, %fd1;", "`.ftz` is not allowed", "ftz"),
        ("sin.f32 %f4, %f1;", "needs `.approx`", "sin"),
        ("tanh.f32 %f4, %f1;", "needs `.approx`", "tanh"),
        (
            "sin.approx.f64 %fd4, %fd1;",
            "does not take type .f64",
            "f64",
        ),
        (
            "ex2.approx.bf16 %rs4, %rs1;",
            "exists only with `.ftz`",
            "ex2",
        ),
        (
            "ex2.approx.ftz.f16 %h4, %h1;",
            "`.ftz` is not allowed",
            "ftz",
        ),
        (
            "min.NaN.f64 %fd4, %fd1, %fd2;",
            "`.NaN` is not allowed",
            "NaN",
        ),
        (
            "min.xorsign.f32 %f4, %f1, %f2;",
            "must be followed by `.abs`",
            "xorsign",
        ),
        (
            "max.abs.f32 %f4, %f1, %f2;",
            "`.abs` alone needs three inputs",
            "abs",
        ),
        ("abs.rn.f32 %f4, %f1;", "takes no rounding modifier", "rn"),
        ("neg.sat.f32 %f4, %f1;", "`.sat` is not allowed", "sat"),
        (
            "fma.rn.sat.relu.f16 %h4, %h1, %h2, %h3;",
            "cannot both be given",
            "sat",
        ),
        (
            "fma.rn.relu.f32 %f4, %f1, %f2, %f3;",
            "`.relu` is not allowed",
            "relu",
        ),
        (
            "copysign.ftz.f32 %f4, %f1, %f2;",
            "`.ftz` is not allowed",
            "ftz",
        ),
        ("testp.f32 %p2, %f1;", "needs a property", "testp"),
        (
            "testp.normal.f16 %p2, %h1;",
            "does not take type .f16",
            "f16",
        ),
        (
            "mul.wide.f32 %f4, %f1, %f2;",
            "`.wide` applies to integer",
            "wide",
        ),
        ("rsqrt.rn.f32 %f4, %f1;", "takes no rounding modifier", "rn"),
        (
            "setp.lt.ftz.f64 %p2, %fd1, %fd2;",
            "`.ftz` applies to .f32 and .f16",
            "ftz",
        ),
        (
            "setp.lo.s32 %p2, %s1, %s1;",
            "is not defined for .s32",
            "setp",
        ),
        (
            "setp.lt.f16x2 %p2, %r1, %r2;",
            "one predicate per half",
            "setp",
        ),
        ("set.eq.f64.f32 %fd4, %f1, %f2;", "cannot write .f64", "f64"),
        (
            "slct.ftz.u32.s32 %u1, %u1, %u1, %s1;",
            "`.ftz` applies to `slct`",
            "ftz",
        ),
        (
            "add.f32 %fd4, %f1, %f2;",
            "cannot be used with a .f32 instruction",
            "%fd4",
        ),
    ];
    for (line, msg, at) in cases {
        rejected(90, "7.8", line, msg, at);
    }
    // Three-input forms exist from sm_100 and PTX ISA 8.8; below, the gating table rejects the
    // instruction before its form is checked.
    rejected(
        100,
        "8.8",
        "min.xorsign.abs.f32 %f4, %f1, %f2, %f3;",
        "not allowed with three inputs",
        "xorsign",
    );
    // Target and version rules.
    rejected(
        20,
        "3.2",
        "mad.f32 %f4, %f1, %f2, %f3;",
        "needs a rounding modifier on sm_20",
        "mad",
    );
    rejected(
        70,
        "7.0",
        "tanh.approx.f32 %f4, %f1;",
        // The .version/.target table words it "requires PTX ISA a.b and sm_NN".
        "sm_75",
        "tanh",
    );
    rejected(
        80,
        "7.0",
        "min.xorsign.abs.f32 %f4, %f1, %f2;",
        // The .version/.target table words it "requires PTX ISA a.b and sm_NN".
        "sm_86",
        "xorsign",
    );
    rejected(
        80,
        "7.0",
        "add.bf16 %rs4, %rs1, %rs2;",
        // The .version/.target table words it "requires PTX ISA a.b and sm_NN".
        "sm_90",
        // It points at the modifier that needs the newer target.
        "bf16",
    );
    rejected(
        90,
        "8.0",
        "min.f32 %f4, %f1, %f2, %f3;",
        // The .version/.target table words it "requires PTX ISA a.b and sm_NN".
        "sm_100",
        "min",
    );
    rejected(
        75,
        "6.4",
        "min.NaN.f32 %f4, %f1, %f2;",
        // The .version/.target table words it "requires PTX ISA a.b and sm_NN".
        "sm_80",
        "NaN",
    );
}

/// Legacy forms the ISA still defines: `mad.f32` before sm_20 rules (fma.rn.ftz), and the
/// PTX 1.x defaults of `div`/`sqrt`/`rcp`.
#[test]
fn legacy_defaults_are_accepted() {
    for (sm, version, line) in [
        (13, "1.3", "div.f32 %f4, %f1, %f2;"),
        (13, "1.3", "sqrt.f32 %f4, %f1;"),
        (13, "1.3", "rcp.f64 %fd4, %fd1;"),
        (13, "1.3", "mad.f64 %fd4, %fd1, %fd2, %fd3;"),
        (20, "3.1", "mad.f32 %f4, %f1, %f2, %f3;"),
    ] {
        let text = kernel(sm, version, &format!("\t{line}"));
        if let Err(d) = Program::parse(SourceFile::new("t.ptx", text)) {
            panic!("`{line}` on sm_{sm}: {d}");
        }
    }
}

/// Every valid form, for the profile paths: every named device profile (lavapipe: f32 fma
/// through f64, f64 fma emulated), a device with fused fma, one without float64 (integer
/// emulation only; the .f64 forms are refused there, naming the feature) and one without
/// float16.
#[test]
fn every_form_translates_and_validates() {
    let mut lines: Vec<String> = Vec::new();
    let rnds = ["", ".rn", ".rz", ".rm", ".rp"];
    for op in ["add", "sub", "mul"] {
        for r in rnds {
            lines.push(format!("{op}{r}.ftz.sat.f32 %f4, %f1, %f2;"));
            lines.push(format!("{op}{r}.f32 %f4, %f1, %f2;"));
        }
        for r in ["", ".rn"] {
            lines.push(format!("{op}{r}.ftz.sat.f16 %h4, %h1, %h2;"));
            lines.push(format!("{op}{r}.f16x2 %r4, %r1, %r2;"));
            lines.push(format!("{op}{r}.bf16 %rs4, %rs1, %rs2;"));
            lines.push(format!("{op}{r}.bf16x2 %r4, %r1, %r2;"));
        }
    }
    for r in &rnds[1..] {
        lines.push(format!("fma{r}.ftz.sat.f32 %f4, %f1, %f2, %f3;"));
        lines.push(format!("mad{r}.f32 %f4, %f1, %f2, %f3;"));
        lines.push(format!("div{r}.ftz.f32 %f4, %f1, %f2;"));
        lines.push(format!("rcp{r}.f32 %f4, %f1;"));
        lines.push(format!("sqrt{r}.ftz.f32 %f4, %f1;"));
    }
    for l in [
        "fma.rn.relu.f16 %h4, %h1, %h2, %h3;",
        "fma.rn.ftz.sat.f16x2 %r4, %r1, %r2, %r3;",
        "fma.rn.relu.bf16 %rs4, %rs1, %rs2, %rs3;",
        "fma.rn.bf16x2 %r4, %r1, %r2, %r3;",
        "div.approx.ftz.f32 %f4, %f1, %f2;",
        "div.full.f32 %f4, %f1, %f2;",
        "rcp.approx.f32 %f4, %f1;",
        "sqrt.approx.f32 %f4, %f1;",
        "rsqrt.approx.ftz.f32 %f4, %f1;",
        "sin.approx.f32 %f4, %f1;",
        "cos.approx.ftz.f32 %f4, %f1;",
        "lg2.approx.f32 %f4, %f1;",
        "ex2.approx.ftz.f32 %f4, %f1;",
        "tanh.approx.f32 %f4, %f1;",
        "ex2.approx.f16 %h4, %h1;",
        "ex2.approx.ftz.bf16x2 %r4, %r1;",
        "tanh.approx.bf16 %rs4, %rs1;",
        "tanh.approx.f16x2 %r4, %r1;",
        "abs.ftz.f32 %f4, %f1;",
        "neg.f16x2 %r4, %r1;",
        "abs.bf16 %rs4, %rs1;",
        "copysign.f32 %f4, %f1, %f2;",
        "min.ftz.NaN.xorsign.abs.f32 %f4, %f1, %f2;",
        "max.NaN.abs.f32 %f4, %f1, %f2, %f3;",
        "min.ftz.NaN.f16x2 %r4, %r1, %r2;",
        "max.xorsign.abs.bf16 %rs4, %rs1, %rs2;",
        "testp.subnormal.f32 %p2, %f1;",
        "setp.ltu.or.ftz.f32 %p2|%p3, %f1, %f2, !%p1;",
        "setp.nan.f16x2 %p2|%p3, %r1, %r2;",
        "setp.geu.xor.bf16 %p2, %rs1, %rs2, %p1;",
        "set.lt.and.f32.s32 %f4, %s1, %s1, %p1;",
        "set.equ.f16x2.f16x2 %r4, %r1, %r2;",
        "set.num.u16.bf16 %rs4, %rs1, %rs2;",
        "slct.ftz.b32.f32 %r4, %r1, %r2, %f1;",
        "selp.f32 %f4, %f1, %f2, %p1;",
    ] {
        lines.push(l.to_string());
    }
    let f64_lines = [
        "add.rz.f64 %fd4, %fd1, %fd2;",
        "mul.rm.f64 %fd4, %fd1, %fd2;",
        "fma.rn.f64 %fd4, %fd1, %fd2, %fd3;",
        "fma.rp.f64 %fd4, %fd1, %fd2, %fd3;",
        "div.rn.f64 %fd4, %fd1, %fd2;",
        "rcp.rz.f64 %fd4, %fd1;",
        "sqrt.rm.f64 %fd4, %fd1;",
        "rcp.approx.ftz.f64 %fd4, %fd1;",
        "rsqrt.approx.ftz.f64 %fd4, %fd1;",
        "rsqrt.approx.f64 %fd4, %fd1;",
        "min.f64 %fd4, %fd1, %fd2;",
        "testp.normal.f64 %p2, %fd1;",
        "set.gtu.u32.f64 %r4, %fd1, %fd2;",
    ];
    let body: String = lines.iter().map(|l| format!("\t{l}\n")).collect();
    let body64: String = f64_lines.iter().map(|l| format!("\t{l}\n")).collect();
    let mut fused = DeviceProfile::lavapipe();
    fused.name = "fused".into();
    fused.fused_fma32 = true;
    fused.fused_fma64 = true;
    let mut no_f64 = DeviceProfile::lavapipe();
    no_f64.name = "no-float64".into();
    no_f64.float64 = false;
    let mut no_f16 = DeviceProfile::lavapipe();
    no_f16.name = "no-float16".into();
    no_f16.float16 = false;
    let named = DeviceProfile::names()
        .iter()
        .map(|n| DeviceProfile::named(n).expect("a named profile"));
    let profiles: Vec<DeviceProfile> = [fused, no_f64.clone(), no_f16]
        .into_iter()
        .chain(named)
        .collect();
    for profile in profiles {
        let with64 = profile.float64;
        let text = kernel_with(
            100,
            "8.8",
            &if with64 {
                format!("{body}{body64}")
            } else {
                body.clone()
            },
            with64,
            profile.float16,
        );
        let program =
            Program::parse(SourceFile::new("forms.ptx", text)).unwrap_or_else(|d| panic!("{d}"));
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{}: {d}", profile.name));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{}: {e}", profile.name);
        }
    }
    // Without float64 the .f64 forms are refused, naming the feature.
    let text = kernel(100, "8.8", "\tdiv.rn.f64 %fd4, %fd1, %fd2;\n");
    let program = Program::parse(SourceFile::new("f64.ptx", text)).unwrap();
    let Err(err) = program.translate_kernel("k", &no_f64) else {
        panic!("div.rn.f64 translated for a device without float64");
    };
    assert!(
        err.to_string().contains("float64") || err.to_string().contains("Float64"),
        "{err}"
    );
}
