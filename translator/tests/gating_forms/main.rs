//! Instruction forms newer than a module's `.version`/`.target` are rejected by the gating table
//! (`check/gating/table.rs`), at the modifier that needs the newer target or at the opcode, and
//! accepted once the module declares the version and target the ISA's "PTX ISA Notes" and
//! "Target ISA Notes" give. These rules used to be repeated in the family decoders; each case
//! here is one of those rules, so that removing the decoders' copies keeps the behaviour.
//! Expected positions are found in the source text, never copied from our output.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{Program, SourceFile};

mod float;

fn kernel(version: &str, sm: u32, line: &str) -> String {
    // `.address_size` exists from PTX ISA 2.3 (ISA 11.3.4).
    let v: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
    let address_size = if v >= vec![2, 3] {
        ".address_size 64\n"
    } else {
        ""
    };
    format!(
        ".version {version}\n.target sm_{sm}\n{address_size}.visible .entry k()\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .f32 %f<5>;\n\t.reg .f64 %fd<5>;\n\t.reg .b16 %rs<5>;\n\
         \t.reg .b32 %r<5>;\n\t.reg .s32 %s<5>;\n\t.reg .u64 %rd<5>;\n\t.reg .s64 %sd<5>;\n\
         \t{line}\n\tret;\n}}\n"
    )
}

/// `line` under `.version version`/`.target sm_<sm>` gets an error containing `message` whose
/// span is exactly `at` (a modifier without its dot, or the opcode) within the line.
fn rejected(version: &str, sm: u32, line: &str, message: &str, at: &str) -> Result<(), String> {
    let src = kernel(version, sm, line);
    let err = match Program::parse(SourceFile::new("t.ptx", src.clone())) {
        Ok(_) => {
            return Err(format!(
                "`{line}` was accepted under .version {version} .target sm_{sm}"
            ));
        }
        Err(d) => d,
    };
    let start = src.find(line).expect("line in source");
    let found = err.items.iter().find(|d| {
        let r = d.span.range();
        r.start >= start
            && r.end <= start + line.len()
            && src[r].trim_start_matches('.') == at
            && d.message.contains(message)
    });
    if found.is_none() {
        return Err(format!(
            "`{line}` (.version {version}, sm_{sm}): no error at `{at}` saying `{message}`:\n{err}"
        ));
    }
    let rendered = err.to_string();
    assert!(
        rendered.contains("t.ptx:") && rendered.contains('^'),
        "{rendered}"
    );
    Ok(())
}

/// `line` is accepted under `.version version`/`.target sm_<sm>`.
fn accepted(version: &str, sm: u32, line: &str) -> Result<(), String> {
    let src = kernel(version, sm, line);
    match Program::parse(SourceFile::new("t.ptx", src)) {
        Ok(_) => Ok(()),
        Err(d) => Err(format!(
            "`{line}` rejected under .version {version} .target sm_{sm}:\n{d}"
        )),
    }
}

/// One form: rejected below its minimum (`old`), accepted at it (`new`, when given).
struct Form {
    line: &'static str,
    old: (&'static str, u32),
    message: &'static str,
    at: &'static str,
    new: Option<(&'static str, u32)>,
}

const fn form(
    line: &'static str,
    old: (&'static str, u32),
    message: &'static str,
    at: &'static str,
    new: Option<(&'static str, u32)>,
) -> Form {
    Form {
        line,
        old,
        message,
        at,
        new,
    }
}

/// Checks every form, then reports all that failed.
fn run(forms: &[Form]) {
    let mut failures = Vec::new();
    for f in forms {
        failures.extend(rejected(f.old.0, f.old.1, f.line, f.message, f.at).err());
        if let Some((v, sm)) = f.new {
            failures.extend(accepted(v, sm, f.line).err());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn comparison_forms() {
    run(&[
        form(
            "setp.lt.f16 %p1, %rs1, %rs2;",
            ("4.1", 52),
            "`setp.f16` requires PTX ISA 4.2 and sm_53",
            "f16",
            Some(("4.2", 53)),
        ),
        form(
            "setp.lt.bf16 %p1, %rs1, %rs2;",
            ("7.0", 80),
            "`setp.bf16` requires PTX ISA 7.8 and sm_90",
            "bf16",
            Some(("7.8", 90)),
        ),
        // `set` with .bf16 sources or destinations: PTX 7.8, sm_90.
        form(
            "set.lt.u32.bf16 %r1, %rs1, %rs2;",
            ("7.0", 80),
            "`set.bf16` requires PTX ISA 7.8 and sm_90",
            "bf16",
            Some(("7.8", 90)),
        ),
        form(
            "set.lt.bf16.f32 %rs1, %f1, %f2;",
            ("7.0", 80),
            "`set.bf16` requires PTX ISA 7.8 and sm_90",
            "bf16",
            Some(("7.8", 90)),
        ),
        form(
            "set.lt.f16.f32 %rs1, %f1, %f2;",
            ("4.1", 52),
            "`set.f16` requires PTX ISA 4.2 and sm_53",
            "f16",
            Some(("4.2", 53)),
        ),
        // Kept in the decoder (the table cannot tell destination from source type): integer
        // results of .f16 comparisons need PTX 6.5.
        form(
            "set.lt.u32.f16 %r1, %rs1, %rs2;",
            ("6.4", 53),
            "requires sm_53 and PTX ISA 6.5",
            "u32",
            Some(("6.5", 53)),
        ),
    ]);
}

#[test]
fn integer_and_logic_forms() {
    run(&[
        form(
            "popc.b32 %r1, %r2;",
            ("1.4", 13),
            "`popc` requires PTX ISA 2.0 and sm_20",
            "popc",
            Some(("2.0", 20)),
        ),
        form(
            "clz.b32 %r1, %r2;",
            ("1.4", 13),
            "`clz` requires PTX ISA 2.0 and sm_20",
            "clz",
            Some(("2.0", 20)),
        ),
        form(
            "brev.b32 %r1, %r2;",
            ("1.4", 13),
            "`brev` requires PTX ISA 2.0 and sm_20",
            "brev",
            Some(("2.0", 20)),
        ),
        form(
            "bfind.u32 %r1, %r2;",
            ("1.4", 13),
            "`bfind` requires PTX ISA 2.0 and sm_20",
            "bfind",
            Some(("2.0", 20)),
        ),
        form(
            "bfe.u32 %r1, %r2, %r3, %r4;",
            ("1.4", 13),
            "`bfe` requires PTX ISA 2.0 and sm_20",
            "bfe",
            Some(("2.0", 20)),
        ),
        form(
            "bfi.b32 %r1, %r2, %r3, %r4, %r4;",
            ("1.4", 13),
            "`bfi` requires PTX ISA 2.0 and sm_20",
            "bfi",
            Some(("2.0", 20)),
        ),
        form(
            "prmt.b32 %r1, %r2, %r3, %r4;",
            ("1.4", 13),
            "`prmt` requires PTX ISA 2.0 and sm_20",
            "prmt",
            Some(("2.0", 20)),
        ),
        form(
            "szext.wrap.s32 %s1, %s2, %r3;",
            ("7.5", 75),
            "`szext` requires PTX ISA 7.6",
            "szext",
            Some(("7.6", 70)),
        ),
        form(
            "dp2a.lo.u32.u32 %r1, %r2, %r3, %r4;",
            ("5.0", 60),
            "`dp2a` requires PTX ISA 5.0 and sm_61",
            "dp2a",
            Some(("5.0", 61)),
        ),
        // Packed 16-bit and .relu forms of add/min/max: PTX 8.0, sm_90 (at the opcode).
        form(
            "min.s16x2 %r1, %r2, %r3;",
            ("7.8", 90),
            "`min.s16x2` requires PTX ISA 8.0",
            "min",
            Some(("8.0", 90)),
        ),
        form(
            "min.relu.s32 %s1, %s2, %s3;",
            ("8.0", 89),
            "`min.relu` requires PTX ISA 8.0 and sm_90",
            "min",
            Some(("8.0", 90)),
        ),
        form(
            "lop3.b32 %r1, %r2, %r3, %r4, 1;",
            ("4.2", 50),
            "`lop3` requires PTX ISA 4.3",
            "lop3",
            Some(("4.3", 50)),
        ),
        form(
            "lop3.and.b32 %r1|%p1, %r2, %r3, %r4, 1, %p2;",
            ("8.1", 90),
            "`lop3.and` requires PTX ISA 8.2",
            "lop3",
            Some(("8.2", 90)),
        ),
        form(
            "shf.r.clamp.b32 %r1, %r2, %r3, %r4;",
            ("3.0", 30),
            "`shf` requires PTX ISA 3.1 and sm_32",
            "shf",
            Some(("3.1", 35)),
        ),
    ]);
}

#[test]
fn extended_precision_forms() {
    run(&[
        form(
            "mad.lo.cc.u32 %r1, %r2, %r3, %r4;",
            ("2.3", 20),
            "`mad.cc` requires PTX ISA 3.0",
            "cc",
            Some(("3.0", 20)),
        ),
        form(
            "madc.hi.u32 %r1, %r2, %r3, %r4;",
            ("2.3", 20),
            "`madc` requires PTX ISA 3.0",
            "madc",
            Some(("3.0", 20)),
        ),
        // 64-bit forms: PTX 4.3 (at the opcode).
        form(
            "add.cc.u64 %rd1, %rd2, %rd3;",
            ("4.2", 35),
            "`add.cc.u64` requires PTX ISA 4.3",
            "add",
            Some(("4.3", 35)),
        ),
        form(
            "sub.cc.s64 %sd1, %sd2, %sd3;",
            ("4.2", 35),
            "`sub.cc.s64` requires PTX ISA 4.3",
            "sub",
            Some(("4.3", 35)),
        ),
        form(
            "subc.u64 %rd1, %rd2, %rd3;",
            ("4.2", 35),
            "`subc.u64` requires PTX ISA 4.3",
            "subc",
            Some(("4.3", 35)),
        ),
        form(
            "mad.lo.cc.s64 %sd1, %sd2, %sd3, %sd4;",
            ("4.2", 35),
            "`mad.cc.s64` requires PTX ISA 4.3",
            "mad",
            Some(("4.3", 35)),
        ),
        form(
            "madc.hi.u64 %rd1, %rd2, %rd3, %rd4;",
            ("4.2", 35),
            "`madc.u64` requires PTX ISA 4.3",
            "madc",
            Some(("4.3", 35)),
        ),
    ]);
}

#[test]
fn memory_and_conversion_forms() {
    run(&[
        form(
            "ld.relaxed.gpu.global.u32 %r1, [%rd1];",
            ("6.0", 62),
            "`ld.relaxed` requires PTX ISA 6.0 and sm_70",
            "relaxed",
            Some(("6.0", 70)),
        ),
        form(
            "st.release.sys.global.u32 [%rd1], %r1;",
            ("5.0", 70),
            "`st.release` requires PTX ISA 6.0 and sm_70",
            "release",
            None,
        ),
        form(
            "ld.global.nc.u32 %r1, [%rd1];",
            ("3.0", 30),
            "`ld.nc` requires PTX ISA 3.1 and sm_32",
            "nc",
            Some(("3.1", 35)),
        ),
        form(
            "cvta.param.u64 %rd1, %rd2;",
            ("7.6", 70),
            "`cvta.param` requires PTX ISA 7.7",
            "param",
            Some(("7.7", 70)),
        ),
        form(
            "isspacep.param::func %p1, %rd2;",
            ("7.6", 70),
            "`isspacep.param::func` requires PTX ISA 7.7",
            "param::func",
            None,
        ),
        form(
            "cvt.rn.relu.f16.f32 %rs1, %f1;",
            ("6.5", 75),
            "`cvt.relu` requires PTX ISA 7.0 and sm_80",
            "relu",
            Some(("7.0", 80)),
        ),
        form(
            "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
            ("6.5", 75),
            "`cvt.f16x2.f32` requires PTX ISA 7.0 and sm_80",
            "f16x2",
            Some(("7.0", 80)),
        ),
        form(
            "cvt.rn.bf16x2.f32 %r1, %f1, %f2;",
            ("6.5", 75),
            "`cvt.bf16x2` requires PTX ISA 7.0 and sm_80",
            "bf16x2",
            Some(("7.0", 80)),
        ),
        form(
            "cvt.rn.bf16.f32 %rs1, %f1;",
            ("6.5", 75),
            "`cvt.bf16` requires PTX ISA 7.0 and sm_80",
            "bf16",
            Some(("7.0", 80)),
        ),
        form(
            "cvt.rna.tf32.f32 %r1, %f1;",
            ("6.5", 75),
            "`cvt.tf32` requires PTX ISA 7.0 and sm_80",
            "tf32",
            Some(("7.0", 80)),
        ),
        form(
            "cvt.pack.sat.u16.s32 %r1, %s1, %s2;",
            ("6.4", 72),
            "`cvt.pack` requires PTX ISA 6.5",
            "pack",
            Some(("6.5", 72)),
        ),
        form(
            "cvt.pack.sat.u4.s32.b32 %r1, %s1, %s2, %r2;",
            ("6.5", 72),
            "`cvt.pack.u4` requires PTX ISA 6.5 and sm_75",
            "pack",
            Some(("6.5", 75)),
        ),
    ]);
}
