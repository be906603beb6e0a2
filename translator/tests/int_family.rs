//! Integer, extended-precision, logic/shift and `prmt` instructions in the checker and the
//! translator: every valid instruction x type x modifier form translates to SPIR-V that
//! SPIRV-Tools accepts, and invalid forms are rejected with a diagnostic whose span is the
//! offending modifier or operand (ISA 8.7.1, 8.7.2, 8.7.5, 8.7.6.5).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

use family_support::{Stage, keep_live, rejected_in, translate_valid};
use ptxvk_translator::{DeviceProfile, Program, SourceFile};

/// A kernel around `body`, with registers of every integer width.
fn kernel(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \t.reg .f32 %f<4>;\n\
         {body}\n{keep}\tret;\n}}\n",
        keep = keep_live(&[
            ("%p", "pred", 4, 4),
            ("%h", "b16", 8, 2),
            ("%r", "b32", 8, 4),
            ("%rd", "b64", 8, 8),
            ("%f", "b32", 4, 4),
        ])
    )
}

/// Translates `body` (in a sm_90, PTX 8.2 kernel) and validates the SPIR-V.
fn translates(body: &str) {
    translate_valid(&kernel("8.2", "sm_90", body), body);
}

/// Checks that the checker rejects `line` with an error whose span is exactly `at`.
fn rejected_at_with(version: &str, target: &str, line: &str, at: &str) -> String {
    rejected_in(
        &kernel(version, target, &format!("\t{line}")),
        line,
        at,
        Stage::Check,
    )
}

fn rejected_at(line: &str, at: &str) -> String {
    rejected_at_with("8.2", "sm_90", line, at)
}

#[test]
fn integer_arithmetic_forms_validate() {
    let mut body = String::new();
    for (t, r) in [
        ("u16", "%h"),
        ("s16", "%h"),
        ("u32", "%r"),
        ("s32", "%r"),
        ("u64", "%rd"),
        ("s64", "%rd"),
    ] {
        for op in ["add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"] {
            body += &format!("{op}.{t} {r}1, {r}2, {r}3;\n");
        }
        for op in ["mad.lo", "mad.hi", "sad"] {
            body += &format!("{op}.{t} {r}1, {r}2, {r}3, {r}4;\n");
        }
        if t.starts_with('s') {
            body += &format!("abs.{t} {r}1, {r}2;\nneg.{t} {r}1, {r}2;\n");
        }
    }
    body += "mul.wide.u16 %r1, %h1, %h2;\nmul.wide.s32 %rd1, %r1, %r2;\n\
             mad.wide.s16 %r1, %h1, %h2, %r3;\nmad.wide.u32 %rd1, %r1, %r2, %rd3;\n\
             add.sat.s32 %r1, %r2, %r3;\nsub.sat.s32 %r1, %r2, -5;\n\
             mad.hi.sat.s32 %r1, %r2, %r3, %r4;\n";
    for t in ["u32", "s32"] {
        body += &format!(
            "mul24.lo.{t} %r1, %r2, %r3;\nmul24.hi.{t} %r1, %r2, %r3;\n\
             mad24.lo.{t} %r1, %r2, %r3, %r4;\nmad24.hi.{t} %r1, %r2, %r3, %r4;\n"
        );
    }
    body += "mad24.hi.sat.s32 %r1, %r2, %r3, %r4;\n\
             add.u16x2 %r1, %r2, %r3;\nadd.s16x2 %r1, %r2, %r3;\n\
             min.u16x2 %r1, %r2, %r3;\nmax.s16x2 %r1, %r2, %r3;\n\
             min.relu.s16x2 %r1, %r2, %r3;\nmax.s16x2.relu %r1, %r2, %r3;\n\
             min.relu.s32 %r1, %r2, %r3;\nmax.relu.s32 %r1, %r2, 0;\n";
    translates(&body);
}

#[test]
fn bit_instruction_forms_validate() {
    let mut body = String::new();
    for (t, r) in [("32", "%r"), ("64", "%rd")] {
        body += &format!(
            "popc.b{t} %r1, {r}2;\nclz.b{t} %r1, {r}2;\nbrev.b{t} {r}1, {r}2;\n\
             bfi.b{t} {r}1, {r}2, {r}3, %r4, %r5;\n"
        );
        for s in ["u", "s"] {
            body += &format!(
                "bfind.{s}{t} %r1, {r}2;\nbfind.shiftamt.{s}{t} %r1, {r}2;\n\
                 bfe.{s}{t} {r}1, {r}2, %r3, %r4;\nbfe.{s}{t} {r}1, {r}2, 8, 300;\n"
            );
        }
    }
    body += "bmsk.clamp.b32 %r1, %r2, %r3;\nbmsk.wrap.b32 %r1, 1, 2;\n\
             szext.clamp.s32 %r1, %r2, %r3;\nszext.wrap.u32 %r1, 0xffffffff, 0;\n";
    for a in ["u32", "s32"] {
        for b in ["u32", "s32"] {
            body += &format!(
                "dp4a.{a}.{b} %r1, %r2, %r3, %r4;\ndp2a.lo.{a}.{b} %r1, %r2, %r3, %r4;\n\
                 dp2a.hi.{a}.{b} %r1, %r2, %r3, %r4;\n"
            );
        }
    }
    translates(&body);
}

#[test]
fn extended_precision_forms_validate() {
    let mut body = String::new();
    for (t, r) in [("u32", "%r"), ("s32", "%r"), ("u64", "%rd"), ("s64", "%rd")] {
        body += &format!(
            "add.cc.{t} {r}1, {r}2, {r}3;\naddc.{t} {r}1, {r}2, {r}3;\n\
             addc.cc.{t} {r}1, {r}2, 1;\nsub.cc.{t} {r}1, {r}2, {r}3;\n\
             subc.{t} {r}1, {r}2, {r}3;\nsubc.cc.{t} {r}1, 0, {r}3;\n"
        );
        for m in ["lo", "hi"] {
            body += &format!(
                "mad.{m}.cc.{t} {r}1, {r}2, {r}3, {r}4;\nmadc.{m}.{t} {r}1, {r}2, {r}3, {r}4;\n\
                 madc.{m}.cc.{t} {r}1, {r}2, {r}3, 0;\n"
            );
        }
    }
    // The carry flag crosses a branch.
    body += "add.cc.u32 %r1, %r2, %r3;\n@%p1 bra SKIP;\naddc.cc.u32 %r4, %r4, %r4;\n\
             SKIP:\naddc.u32 %r5, 0, 0;\n";
    translates(&body);
}

#[test]
fn logic_shift_and_prmt_forms_validate() {
    let mut body = String::new();
    for (t, r) in [("pred", "%p"), ("b16", "%h"), ("b32", "%r"), ("b64", "%rd")] {
        body += &format!(
            "and.{t} {r}1, {r}2, {r}3;\nor.{t} {r}1, {r}2, {r}3;\nxor.{t} {r}1, {r}2, {r}3;\n\
             not.{t} {r}1, {r}2;\n"
        );
        if t != "pred" {
            body += &format!(
                "cnot.{t} {r}1, {r}2;\nshl.{t} {r}1, {r}2, %r3;\nshr.{t} {r}1, {r}2, 40;\n"
            );
        }
    }
    for t in ["u16", "s16"] {
        body += &format!("shr.{t} %h1, %h2, %r3;\n");
    }
    for t in ["u32", "s32"] {
        body += &format!("shr.{t} %r1, %r2, %r3;\n");
    }
    for t in ["u64", "s64"] {
        body += &format!("shr.{t} %rd1, %rd2, %r3;\n");
    }
    for lut in 0..=255 {
        body += &format!("lop3.b32 %r1, %r2, %r3, %r4, {lut};\n");
    }
    body += "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2;\n\
             lop3.and.b32 _|%p1, %r2, %r3, %r4, 0x3f, !%p2;\n";
    for d in ["l", "r"] {
        for m in ["clamp", "wrap"] {
            body += &format!("shf.{d}.{m}.b32 %r1, %r2, %r3, %r4;\n");
        }
    }
    for m in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"] {
        body += &format!("prmt.b32{m} %r1, %r2, %r3, %r4;\nprmt.b32{m} %r1, %r2, %r3, 0x8d31;\n");
    }
    translates(&body);
}

#[test]
fn sat_and_mode_rules() {
    rejected_at("add.sat.u32 %r1, %r2, %r3;", "sat");
    rejected_at("sub.sat.s16 %h1, %h2, %h3;", "sat");
    rejected_at("add.sat.s64 %rd1, %rd2, %rd3;", "sat");
    rejected_at("mad.lo.sat.s32 %r1, %r2, %r3, %r4;", "sat");
    rejected_at("mad.hi.sat.u32 %r1, %r2, %r3, %r4;", "sat");
    rejected_at("mad24.lo.sat.s32 %r1, %r2, %r3, %r4;", "sat");
    rejected_at("mul24.hi.sat.s32 %r1, %r2, %r3;", "sat");
    let msg = rejected_at("mul.s32 %r1, %r2, %r3;", "mul");
    assert!(msg.contains(".lo") && msg.contains(".wide"), "{msg}");
    rejected_at("mad.u16 %h1, %h2, %h3, %h4;", "mad");
    rejected_at("mul.wide.u64 %rd1, %rd2, %rd3;", "wide");
    rejected_at("mad.wide.s64 %rd1, %rd2, %rd3, %rd4;", "wide");
    rejected_at("mul24.wide.u32 %r1, %r2, %r3;", "wide");
    rejected_at("mul.lo.hi.u32 %r1, %r2, %r3;", "hi");
    rejected_at("div.rn.s32 %r1, %r2, %r3;", "rn");
}

#[test]
fn type_rules() {
    rejected_at("bfind.f32 %r1, %f1;", "f32");
    rejected_at("bfind.b32 %r1, %r2;", "b32");
    rejected_at("popc.b16 %r1, %h2;", "b16");
    rejected_at("clz.u32 %r1, %r2;", "u32");
    rejected_at("brev.s64 %rd1, %rd2;", "s64");
    rejected_at("bfe.b32 %r1, %r2, %r3, %r4;", "b32");
    rejected_at("bfi.u64 %rd1, %rd2, %rd3, %r4, %r5;", "u64");
    rejected_at("mul24.lo.u16 %h1, %h2, %h3;", "u16");
    rejected_at("sad.b32 %r1, %r2, %r3, %r4;", "b32");
    rejected_at("abs.u32 %r1, %r2;", "u32");
    rejected_at("neg.u16 %h1, %h2;", "u16");
    rejected_at("add.cc.u16 %h1, %h2, %h3;", "u16");
    rejected_at("cnot.pred %p1, %p2;", "pred");
    rejected_at("shl.u32 %r1, %r2, 3;", "u32");
    rejected_at("shf.l.clamp.b64 %rd1, %rd2, %rd3, %r4;", "b64");
    rejected_at("prmt.b64 %rd1, %rd2, %rd3, %rd4;", "b64");
    rejected_at("lop3.b64 %rd1, %rd2, %rd3, %rd4, 0x80;", "b64");
    rejected_at("bmsk.clamp.u32 %r1, %r2, %r3;", "u32");
    rejected_at("szext.wrap.b32 %r1, %r2, %r3;", "b32");
    rejected_at("dp4a.u32.f32 %r1, %r2, %r3, %r4;", "f32");
    rejected_at("min.relu.u32 %r1, %r2, %r3;", "u32");
}

#[test]
fn operand_rules() {
    // The destination of popc/clz/bfind is .u32, whatever the input's width.
    rejected_at("popc.b64 %rd1, %rd2;", "%rd1");
    rejected_at("clz.b32 %h1, %r2;", "%h1");
    rejected_at("bfind.u64 %rd1, %rd2;", "%rd1");
    // Positions, lengths and shift amounts are .u32.
    rejected_at("bfe.u64 %rd1, %rd2, %rd3, %r4;", "%rd3");
    rejected_at("bfi.b32 %r1, %r2, %r3, %r4, %h5;", "%h5");
    rejected_at("shl.b64 %rd1, %rd2, %rd3;", "%rd3");
    rejected_at("shf.r.wrap.b32 %r1, %r2, %r3, %rd4;", "%rd4");
    rejected_at("szext.clamp.s32 %r1, %r2, %h3;", "%h3");
    // mul.wide writes twice the width; mad.wide also reads c at that width.
    rejected_at("mul.wide.s32 %r1, %r2, %r3;", "%r1");
    rejected_at("mad.wide.u32 %rd1, %r2, %r3, %r4;", "%r4");
    // Packed 16-bit forms read and write 32-bit registers.
    rejected_at("add.u16x2 %h1, %r2, %r3;", "%h1");
    // dp4a accumulates in .s32 unless both inputs are .u32.
    rejected_at("dp4a.u32.s32 %r1, %r2, %r3, %f1;", "%f1");
    // lop3: immLut is a constant 0..255; the predicate form writes d|p and reads q.
    rejected_at("lop3.b32 %r1, %r2, %r3, %r4, 256;", "256");
    rejected_at("lop3.b32 %r1, %r2, %r3, %r4, %r5;", "%r5");
    rejected_at("lop3.or.b32 %r1, %r2, %r3, %r4, 0x80, %p1;", "%r1");
    rejected_at("lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x80;", "%r1|%p1");
    rejected_at("lop3.and.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %r5;", "%r5");
    // Operand counts.
    rejected_at("addc.u32 %r1, %r2;", "addc.u32 %r1, %r2;");
    rejected_at(
        "mad.lo.cc.u32 %r1, %r2, %r3;",
        "mad.lo.cc.u32 %r1, %r2, %r3;",
    );
    rejected_at("bfi.b32 %r1, %r2, %r3, %r4;", "bfi.b32 %r1, %r2, %r3, %r4;");
}

#[test]
fn modifier_rules() {
    rejected_at("sub.u16x2 %r1, %r2, %r3;", "u16x2");
    rejected_at("add.relu.s16x2 %r1, %r2, %r3;", "relu");
    rejected_at("min.relu.u16x2 %r1, %r2, %r3;", "relu");
    rejected_at("add.cc.sat.s32 %r1, %r2, %r3;", "sat");
    rejected_at("madc.wide.u32 %r1, %r2, %r3, %r4;", "wide");
    rejected_at("madc.u32 %r1, %r2, %r3, %r4;", "madc");
    rejected_at("prmt.b32.xyz %r1, %r2, %r3, %r4;", "xyz");
    rejected_at("prmt.b32.f4e.ecl %r1, %r2, %r3, %r4;", "ecl");
    rejected_at("shf.l.clamp.wrap.b32 %r1, %r2, %r3, %r4;", "wrap");
    rejected_at("bfind.shiftamt.shiftamt.u32 %r1, %r2;", "shiftamt");
    rejected_at("lop3.xor.b32 %r1, %r2, %r3, %r4, 0x80;", "xor");
    let msg = rejected_at("shf.clamp.b32 %r1, %r2, %r3, %r4;", "shf");
    assert!(msg.contains(".l") && msg.contains(".r"), "{msg}");
    let msg = rejected_at("bmsk.b32 %r1, %r2, %r3;", "bmsk");
    assert!(msg.contains(".clamp"), "{msg}");
    rejected_at("dp2a.u32.u32 %r1, %r2, %r3, %r4;", "dp2a");
}

#[test]
fn target_and_version_rules() {
    let msg = rejected_at_with("8.0", "sm_60", "dp4a.u32.u32 %r1, %r2, %r3, %r4;", "dp4a");
    assert!(msg.contains("sm_61"), "{msg}");
    let msg = rejected_at_with("7.0", "sm_80", "bmsk.wrap.b32 %r1, %r2, %r3;", "bmsk");
    assert!(msg.contains("7.6"), "{msg}");
    rejected_at_with("7.5", "sm_75", "szext.clamp.u32 %r1, %r2, %r3;", "szext");
    rejected_at_with("8.0", "sm_80", "add.u16x2 %r1, %r2, %r3;", "add");
    rejected_at_with("7.8", "sm_90", "max.relu.s32 %r1, %r2, %r3;", "max");
    rejected_at_with(
        "8.1",
        "sm_90",
        "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 1, %p2;",
        "lop3",
    );
    rejected_at_with("4.2", "sm_50", "lop3.b32 %r1, %r2, %r3, %r4, 1;", "lop3");
    rejected_at_with("4.2", "sm_30", "shf.l.wrap.b32 %r1, %r2, %r3, %r4;", "shf");
    rejected_at_with("4.2", "sm_35", "addc.u64 %rd1, %rd2, %rd3;", "addc");
    // And the same instructions are accepted once the target and version allow them.
    let src = kernel(
        "7.6",
        "sm_70",
        "\tdp4a.u32.u32 %r1, %r2, %r3, %r4;\n\tbmsk.wrap.b32 %r1, %r2, %r3;\n\
         \taddc.u64 %rd1, %rd2, %rd3;\n\tshf.l.wrap.b32 %r1, %r2, %r3, %r4;",
    );
    Program::parse(SourceFile::new("ok.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
}

/// The SPIR-V assembly of a kernel running `body`.
fn spirv_of(body: &str) -> String {
    let src = kernel("8.2", "sm_90", body);
    let program = Program::parse(SourceFile::new("k.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
    let k = program
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_or_else(|d| panic!("{d}"));
    ptxvk_translator::disassemble(&k.spirv)
}

#[test]
fn native_operations_where_their_edges_match_the_isa() {
    for (line, op) in [
        ("popc.b32 %r1, %r2;", "OpBitCount"),
        ("popc.b64 %r1, %rd2;", "OpBitCount"),
        ("brev.b32 %r1, %r2;", "OpBitReverse"),
        ("clz.b32 %r1, %r2;", "FindUMsb"),
        ("bfind.u64 %r1, %rd2;", "FindUMsb"),
        ("bfind.s32 %r1, %r2;", "FindSMsb"),
        ("bfe.u32 %r1, %r2, %r3, %r4;", "OpBitFieldUExtract"),
        ("bfe.s32 %r1, %r2, %r3, %r4;", "OpBitFieldSExtract"),
        ("bfi.b32 %r1, %r2, %r3, %r4, %r5;", "OpBitFieldInsert"),
        ("szext.clamp.s32 %r1, %r2, %r3;", "OpBitFieldSExtract"),
        ("bmsk.wrap.b32 %r1, %r2, %r3;", "OpBitFieldInsert"),
        ("mul.hi.u32 %r1, %r2, %r3;", "OpUMulExtended"),
        ("mul24.hi.s32 %r1, %r2, %r3;", "OpSMulExtended"),
    ] {
        let asm = spirv_of(line);
        assert!(asm.contains(op), "`{line}` does not use {op}:\n{asm}");
    }
}

#[test]
fn constant_prmt_selectors_fold_to_bit_fields() {
    // Whole opcodes: `OpSelect` is not `OpSelectionMerge` (the guarded stores that keep the
    // registers live branch).
    let count = |asm: &str, what: &str| {
        asm.lines()
            .filter(|l| {
                l.split_whitespace()
                    .any(|w| w.starts_with(what) && w != "OpSelectionMerge")
            })
            .count()
    };
    // The identity selector is a copy of a.
    let asm = spirv_of("prmt.b32 %r1, %r2, %r3, 0x3210;");
    assert_eq!(count(&asm, "OpBitField"), 0, "{asm}");
    // Two runs of two bytes: two extracts and one insert, no run-time selection.
    let asm = spirv_of("prmt.b32 %r1, %r2, %r3, 0x5432;");
    assert_eq!(count(&asm, "OpBitField"), 3, "{asm}");
    assert_eq!(count(&asm, "OpSelect"), 0, "{asm}");
    // A mode with a constant c is a constant selector too.
    let asm = spirv_of("prmt.b32.f4e %r1, %r2, %r3, 2;");
    assert_eq!(count(&asm, "OpSelect"), 0, "{asm}");
}

#[test]
fn lop3_builds_small_expressions() {
    let ops = |lut: u32| {
        let asm = spirv_of(&format!("lop3.b32 %r1, %r2, %r3, %r4, {lut};"));
        asm.lines()
            .filter(|l| ["OpBitwise", "OpNot"].iter().any(|op| l.contains(op)))
            .count()
    };
    // a & b & c, a | b | c, a ^ b ^ c, a, ~c, 0, 0xffffffff.
    assert_eq!(ops(0x80), 2);
    assert_eq!(ops(0xfe), 2);
    assert_eq!(ops(0x96), 2);
    assert_eq!(ops(0xf0), 0);
    assert_eq!(ops(0x55), 1);
    assert_eq!(ops(0x00), 0);
    assert_eq!(ops(0xff), 0);
    // Every function of three inputs takes a handful of operations.
    for lut in 0..=255 {
        assert!(ops(lut) <= 7, "lut {lut:#x}: {} operations", ops(lut));
    }
}
