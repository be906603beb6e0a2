//! ISA chapter 6, operands: every address form of 6.4.1 (`[var]`, `[var+imm]`, `var[imm]`,
//! `[reg]`, `[reg+imm]`, `[reg+-imm]`, `[imm]`) in each state space, for loads and stores;
//! vector operands with `.x/.y/.z/.w` and `.r/.g/.b/.a` selectors (6.4.3), arrays (6.4.2), and
//! labels and function names as operands (6.4.4).

use ptxvk_runtime::KernelArg;

use super::kernel_case::{Arg, KernelCase};
use crate::Case;

const FAMILY: &str = "6 operands";
const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn kernel_case(name: &str, ptx: String, args: Vec<Arg>, out_words: usize, want: &[u32]) -> Case {
    KernelCase {
        family: FAMILY,
        name: format!("operands/{name}"),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: 1,
        buffers: vec![vec![0xA5; out_words * 4]],
        args,
        expect: vec![(0, words(want))],
        elem: 4,
    }
    .case()
}

/// The loads of the table `T` (8 words, values 100..107) through every address form, written to
/// out[0..8]. `a` is the address register width for the space (`u32` or `u64`).
fn loads(space: &str, a: &str) -> String {
    let ld = format!("ld.{space}.u32");
    format!(
        "\tmov.{a} %ra, T;\n\tadd.{a} %rb, %ra, 16;\n\tadd.{a} %rc, %ra, 24;\n\
         \t{ld} %x, [T];\n\tst.global.u32 [%rout], %x;\n\
         \t{ld} %x, [T+4];\n\tst.global.u32 [%rout+4], %x;\n\
         \t{ld} %x, T[2];\n\tst.global.u32 [%rout+8], %x;\n\
         \t{ld} %x, [%ra+12];\n\tst.global.u32 [%rout+12], %x;\n\
         \t{ld} %x, [%rb];\n\tst.global.u32 [%rout+16], %x;\n\
         \t{ld} %x, [%rc+-4];\n\tst.global.u32 [%rout+20], %x;\n\
         \t{ld} %x, [%rc+0];\n\tst.global.u32 [%rout+24], %x;\n\
         \t{ld} %x, [T+28];\n\tst.global.u32 [%rout+28], %x;\n"
    )
}

/// The stores of 100..107 into `T` through every address form.
fn stores(space: &str, a: &str) -> String {
    let st = format!("st.{space}.u32");
    format!(
        "\tmov.{a} %ra, T;\n\tadd.{a} %rb, %ra, 16;\n\tadd.{a} %rc, %ra, 24;\n\
         \t{st} [T], 100;\n\t{st} [T+4], 101;\n\t{st} T[2], 102;\n\t{st} [%ra+12], 103;\n\
         \t{st} [%rb], 104;\n\t{st} [%rc+-4], 105;\n\t{st} [%rc], 106;\n\t{st} [T+28], 107;\n"
    )
}

const TABLE: [u32; 8] = [100, 101, 102, 103, 104, 105, 106, 107];

fn entry(params: &str, decls: &str, body: &str, a: &str) -> String {
    format!(
        ".visible .entry k(.param .u64 out{params})\n{{\n\t.reg .b32 %x;\n\t.reg .b64 %rout;\n\
         \t.reg .{a} %ra, %rb, %rc;\n{decls}\tld.param.u64 %rout, [out];\n{body}\tret;\n}}\n"
    )
}

fn address_forms() -> Vec<Case> {
    let mut v = Vec::new();
    let init = "{100, 101, 102, 103, 104, 105, 106, 107}";
    // Global: loads from an initialized table, and stores into another one read back.
    v.push(kernel_case(
        "address-forms/global-load",
        format!(
            "{HEADER}.global .align 4 .u32 T[8] = {init};\n{}",
            entry("", "", &loads("global", "u64"), "u64")
        ),
        vec![Arg::Buf(0)],
        8,
        &TABLE,
    ));
    v.push(kernel_case(
        "address-forms/global-store",
        format!(
            "{HEADER}.global .align 4 .u32 T[8];\n{}",
            entry(
                "",
                "",
                &(stores("global", "u64") + &loads("global", "u64")),
                "u64"
            )
        ),
        vec![Arg::Buf(0)],
        8,
        &TABLE,
    ));
    v.push(kernel_case(
        "address-forms/const",
        format!(
            "{HEADER}.const .align 4 .u32 T[8] = {init};\n{}",
            entry("", "", &loads("const", "u64"), "u64")
        ),
        vec![Arg::Buf(0)],
        8,
        &TABLE,
    ));
    let table_bytes = words(&TABLE);
    v.push(kernel_case(
        "address-forms/kernel-param",
        format!(
            "{HEADER}{}",
            entry(
                ", .param .align 4 .u32 T[8]",
                "",
                &loads("param", "u64"),
                "u64"
            )
        ),
        vec![Arg::Buf(0), Arg::Value(KernelArg::Bytes(table_bytes))],
        8,
        &TABLE,
    ));
    for (space, a) in [
        ("shared", "u32"),
        ("shared", "u64"),
        ("local", "u32"),
        ("local", "u64"),
    ] {
        // `[imm]`: T is the only variable of its space, so it starts at address 0 (the layout
        // ptxvk documents); the address itself is checked too.
        let imm = format!(
            "\tld.{space}.u32 %x, [20];\n\tst.global.u32 [%rout+32], %x;\n\
             \tst.{space}.u32 [8], 7;\n\tld.{space}.u32 %x, T[2];\n\tst.global.u32 [%rout+36], %x;\n\
             \tmov.u32 %x, T;\n\tst.global.u32 [%rout+40], %x;\n"
        );
        v.push(kernel_case(
            &format!("address-forms/{space}-{a}"),
            format!(
                "{HEADER}{}",
                entry(
                    "",
                    &format!("\t.{space} .align 4 .u32 T[8];\n"),
                    &(stores(space, a) + &loads(space, a) + &imm),
                    a
                )
            ),
            vec![Arg::Buf(0)],
            11,
            &[100, 101, 102, 103, 104, 105, 106, 107, 105, 7, 0],
        ));
    }
    // Device-function parameters: `[p]`, `[p+imm]`, `p[imm]` in ld.param and st.param.
    v.push(kernel_case(
        "address-forms/func-param",
        format!(
            "{HEADER}.func (.param .align 4 .b8 r[16]) f(.param .align 4 .b8 p[16])\n{{\n\t.reg .b32 %y;\n\
             \tld.param.u32 %y, [p];\n\tst.param.u32 [r+12], %y;\n\tld.param.u32 %y, [p+4];\n\tst.param.u32 r[8], %y;\n\
             \tld.param.u32 %y, p[8];\n\tst.param.u32 [r+4], %y;\n\tld.param.u32 %y, [p+12];\n\tst.param.u32 [r], %y;\n\
             \tret;\n}}\n{}",
            entry(
                "",
                "\t.param .align 4 .b8 a[16];\n\t.param .align 4 .b8 b[16];\n",
                "\tst.param.u32 [a], 100;\n\tst.param.u32 [a+4], 101;\n\tst.param.u32 a[8], 102;\n\
                 \tst.param.u32 [a+12], 103;\n\tcall (b), f, (a);\n\
                 \tld.param.u32 %x, [b];\n\tst.global.u32 [%rout], %x;\n\tld.param.u32 %x, b[4];\n\
                 \tst.global.u32 [%rout+4], %x;\n\tld.param.u32 %x, [b+8];\n\tst.global.u32 [%rout+8], %x;\n\
                 \tld.param.u32 %x, [b+12];\n\tst.global.u32 [%rout+12], %x;\n",
                "u64"
            )
        ),
        vec![Arg::Buf(0)],
        4,
        &[103, 102, 101, 100],
    ));
    v
}

/// Vector registers as whole operands and their components by `.x/.y/.z/.w` and `.r/.g/.b/.a`,
/// mixed with scalars in `{...}` lists.
fn vectors() -> Case {
    let ptx = format!(
        "{HEADER}.global .align 16 .u32 src[4] = {{5, 7, 11, 13}};\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .v4 .u32 %q, %p;\n\t.reg .v2 .f64 %d;\n\
         \t.reg .b32 %s, %t;\n\t.reg .b64 %rout;\n\tld.param.u64 %rout, [out];\n\
         \tld.global.v4.u32 %q, [src];\n\
         \tadd.u32 %s, %q.x, %q.w;\n\tadd.u32 %t, %q.r, %q.g;\n\tmov.u32 %p.x, %s;\n\tmov.u32 %p.g, %t;\n\
         \tmov.u32 %p.b, %q.b;\n\tmov.u32 %p.w, %q.a;\n\
         \tst.global.v4.u32 [%rout], %p;\n\
         \tst.global.v2.u32 [%rout+16], {{%q.w, %s}};\n\
         \tmov.f64 %d.x, 0d3FF8000000000000;\n\tmov.f64 %d.y, 0dC004000000000000;\n\
         \tst.global.v2.f64 [%rout+24], %d;\n\tret;\n}}\n"
    );
    let mut want = words(&[18, 12, 11, 13, 13, 18]);
    want.extend(1.5f64.to_le_bytes());
    want.extend((-2.5f64).to_le_bytes());
    KernelCase {
        family: FAMILY,
        name: "operands/vectors-and-selectors".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: 1,
        buffers: vec![vec![0xA5; want.len()]],
        args: vec![Arg::Buf(0)],
        expect: vec![(0, want)],
        elem: 4,
    }
    .case()
}

/// Arrays (6.4.2): multi-dimensional declarations are flat in memory, `var[imm]` counts
/// elements, and aggregate initializers fill them in order.
fn arrays() -> Case {
    let ptx = format!(
        "{HEADER}.global .align 4 .u32 m[2][3] = {{{{1, 2, 3}}, {{4, 5, 6}}}};\n\
         .global .align 8 .u16 h[4] = {{0x1111, 0x2222, 0x3333, 0x4444}};\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .b32 %x;\n\t.reg .b16 %y;\n\t.reg .b64 %rout, %a;\n\
         \tld.param.u64 %rout, [out];\n\
         \tld.global.u32 %x, m[4];\n\tst.global.u32 [%rout], %x;\n\
         \tld.global.u32 %x, [m+20];\n\tst.global.u32 [%rout+4], %x;\n\
         \tmov.u64 %a, m[3];\n\tld.global.u32 %x, [%a];\n\tst.global.u32 [%rout+8], %x;\n\
         \tld.global.u16 %y, h[3];\n\tcvt.u32.u16 %x, %y;\n\tst.global.u32 [%rout+12], %x;\n\
         \tld.global.v2.u16 {{%y, _}}, h[2];\n\tcvt.u32.u16 %x, %y;\n\tst.global.u32 [%rout+16], %x;\n\
         \tret;\n}}\n"
    );
    kernel_case(
        "arrays",
        ptx,
        vec![Arg::Buf(0)],
        5,
        &[5, 6, 4, 0x4444, 0x3333],
    )
}

/// Labels as branch targets and function names as call targets (6.4.4).
fn labels_and_functions() -> Case {
    let ptx = format!(
        "{HEADER}.func (.reg .u32 r) twice(.reg .u32 a)\n{{\n\tadd.u32 r, a, a;\n\tret;\n}}\n\
         .func (.param .u32 r) plus1(.param .u32 a)\n{{\n\t.reg .u32 %v;\n\tld.param.u32 %v, [a];\n\
         \tadd.u32 %v, %v, 1;\n\tst.param.u32 [r], %v;\n\tret;\n}}\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .pred %p;\n\t.reg .u32 %i, %s, %t;\n\t.reg .b64 %rout;\n\
         \tld.param.u64 %rout, [out];\n\tmov.u32 %i, 0;\n\tmov.u32 %s, 0;\n\
         LOOP:\n\tadd.u32 %s, %s, %i;\n\tadd.u32 %i, %i, 1;\n\tsetp.lt.u32 %p, %i, 10;\n\t@%p bra LOOP;\n\
         \tbra.uni SKIP;\n\tmov.u32 %s, 999;\nSKIP:\n\
         \tcall.uni (%t), twice, (%s);\n\tst.global.u32 [%rout], %t;\n\
         \t{{\n\t.param .u32 pa;\n\t.param .u32 pr;\n\tst.param.u32 [pa], %t;\n\tcall (pr), plus1, (pa);\n\
         \tld.param.u32 %t, [pr];\n\t}}\n\tst.global.u32 [%rout+4], %t;\n\tret;\n}}\n"
    );
    kernel_case("labels-and-functions", ptx, vec![Arg::Buf(0)], 2, &[90, 91])
}

pub fn cases() -> Vec<Case> {
    let mut v = address_forms();
    v.push(vectors());
    v.push(arrays());
    v.push(labels_and_functions());
    v
}
