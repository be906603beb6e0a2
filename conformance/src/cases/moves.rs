//! ISA 8.7.6.2-8.7.6.3, `mov`: every type, vector moves, packing and unpacking (with the ISA's
//! semantics `d = a.x | (a.y << n) ...` and `{d.x, d.y} = {a[0..n-1], a[n..]}`), addresses of
//! variables, and special registers (ISA 10).

use ptxvk_translator::ScalarType::{self, *};

use super::kernel_case::{Arg, KernelCase};
use crate::elementwise::Elementwise;
use crate::values::rows;
use crate::{Case, Expect};

const FAMILY: &str = "8.7.6 mov";

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn seed(s: &str) -> u64 {
    s.bytes()
        .fold(7, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
}

fn case(
    name: &str,
    body: &str,
    ins: &[ScalarType],
    outs: &[ScalarType],
    f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static,
) -> Case {
    let name = format!("mov/{name}");
    let r = rows(ins, 300, 200, seed(&name));
    Elementwise::new(FAMILY, name, body, ins, outs, r, move |r| {
        f(r).into_iter().map(Expect::Bits).collect()
    })
    .case()
}

/// Lane `k` of `n`-bit lanes of `a`.
fn lane(a: u64, n: u32, k: u32) -> u64 {
    (a >> (n * k)) & mask(n)
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // d = a for every type (floats included: the bits move unchanged, NaNs too).
    for ty in [B16, B32, B64, U16, U32, U64, S16, S32, S64, F32, F64] {
        v.push(case(
            &format!("mov{ty}"),
            &format!("mov{ty} %d, %a;"),
            &[ty],
            &[ty],
            |r| vec![r[0]],
        ));
    }
    v.push(case(
        "mov.pred",
        "mov.pred %d, %a;\nmov.pred %e, 1;",
        &[Pred],
        &[Pred, Pred],
        |r| vec![r[0], 1],
    ));
    // Immediates in every constant form (ISA 4.5): hex, octal, binary, negative, float bits,
    // constant expressions.
    v.push(case(
        "mov.immediates",
        "mov.u32 %d, 0x7f;\nadd.u32 %d, %d, 017;\nadd.u32 %d, %d, 0b101;\nadd.u32 %d, %d, (3+4)*2;\n\
         add.u32 %d, %d, %a;\nmov.s32 %e, -5;",
        &[U32],
        &[U32, S32],
        |r| vec![(0x7f + 0o17 + 0b101 + 14 + r[0]) & 0xffff_ffff, (-5i32) as u32 as u64],
    ));
    v.push(case(
        "mov.float-immediates",
        "mov.f32 %d, 0f3FC00000;\nmov.f64 %e, 0d4004000000000000;",
        &[U32],
        &[F32, F64],
        |_| vec![u64::from(1.5f32.to_bits()), 2.5f64.to_bits()],
    ));
    // Vector moves: every element copied, the sources read before any destination is written.
    v.push(case(
        "mov.v2.u32",
        ".reg .v2 .u32 %x, %y;\nmov.u32 %x.x, %a;\nmov.u32 %x.y, %b;\nmov.v2.u32 %y, %x;\n\
         mov.u32 %d, %y.y;\nmov.u32 %e, %y.x;",
        &[U32, U32],
        &[U32, U32],
        |r| vec![r[1], r[0]],
    ));
    v.push(case(
        "mov.v4.b16",
        ".reg .v4 .b16 %x, %y;\nmov.b16 %x.r, %a;\nmov.b16 %x.g, %b;\nmov.b16 %x.b, %c;\n\
         mov.b16 %x.a, %a;\nmov.v4.b16 %y, %x;\nmov.b16 %d, %y.z;\nmov.b16 %e, %y.w;",
        &[B16, B16, B16],
        &[B16, B16],
        |r| vec![r[2], r[0]],
    ));
    // Packing (ISA 8.7.6.3 Semantics).
    v.push(case(
        "mov.b16.pack2x8",
        ".reg .b8 %x<2>;\nmov.b16 {%x0, %x1}, %a;\nmov.b16 %d, {%x1, %x0};",
        &[B16],
        &[B16],
        |r| vec![lane(r[0], 8, 1) | lane(r[0], 8, 0) << 8],
    ));
    v.push(case(
        "mov.b32.pack2x16",
        "mov.b32 %d, {%a, %b};",
        &[B16, B16],
        &[B32],
        |r| vec![r[0] | r[1] << 16],
    ));
    v.push(case(
        "mov.b32.pack4x8",
        ".reg .b8 %x<4>;\nmov.b32 {%x0, %x1, %x2, %x3}, %a;\nmov.b32 %d, {%x3, %x2, %x1, %x0};",
        &[B32],
        &[B32],
        |r| {
            vec![
                (0..4)
                    .map(|k| lane(r[0], 8, 3 - k) << (8 * k))
                    .fold(0, |a, b| a | b),
            ]
        },
    ));
    v.push(case(
        "mov.b64.pack2x32",
        "mov.b64 %d, {%a, %b};",
        &[B32, B32],
        &[B64],
        |r| vec![r[0] | r[1] << 32],
    ));
    v.push(case(
        "mov.b64.pack4x16",
        "mov.b64 %d, {%a, %b, %c, %a};",
        &[B16, B16, B16],
        &[B64],
        |r| vec![r[0] | r[1] << 16 | r[2] << 32 | r[0] << 48],
    ));
    // Unpacking.
    v.push(case(
        "mov.b32.unpack2x16",
        "mov.b32 {%d, %e}, %a;",
        &[B32],
        &[B16, B16],
        |r| vec![lane(r[0], 16, 0), lane(r[0], 16, 1)],
    ));
    v.push(case(
        "mov.b64.unpack2x32",
        "mov.b64 {%d, %e}, %a;",
        &[B64],
        &[B32, B32],
        |r| vec![lane(r[0], 32, 0), lane(r[0], 32, 1)],
    ));
    v.push(case(
        "mov.b64.unpack4x16",
        ".reg .b16 %x<4>;\nmov.b64 {%x0, %x1, %x2, %x3}, %a;\nmov.b32 %d, {%x1, %x0};\nmov.b32 %e, {%x3, %x2};",
        &[B64],
        &[B32, B32],
        |r| {
            let x = |k| lane(r[0], 16, k);
            vec![x(1) | x(0) << 16, x(3) | x(2) << 16]
        },
    ));
    v.push(case(
        "mov.b64.unpack-sink",
        "mov.b64 {_, %d}, %a;\nmov.b32 {%e, _}, %b;",
        &[B64, B32],
        &[B32, B16],
        |r| vec![lane(r[0], 32, 1), lane(r[1], 16, 0)],
    ));
    // Unpacking a double into its halves (the ISA's example `mov.b64 {lo,hi}, %x`).
    v.push(case(
        "mov.b64.unpack-f64",
        ".reg .f64 %x;\nmov.b64 %x, %a;\nmov.b64 {%d, %e}, %x;",
        &[B64],
        &[U32, U32],
        |r| vec![lane(r[0], 32, 0), lane(r[0], 32, 1)],
    ));
    v.push(special_registers());
    v.push(addresses());
    v
}

/// `mov` of special registers in a 2 x 48-thread launch: each thread writes 16 words.
fn special_registers() -> Case {
    let (grid, block) = (2u32, 48u32);
    let regs = [
        "%tid.x",
        "%ntid.x",
        "%ctaid.x",
        "%nctaid.x",
        "%tid.y",
        "%ntid.y",
        "%ctaid.z",
        "%nctaid.z",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%lanemask_eq",
        "%lanemask_lt",
        "%lanemask_le",
        "%lanemask_gt",
        "%lanemask_ge",
    ];
    let mut body = String::new();
    for (k, r) in regs.iter().enumerate() {
        body += &format!(
            "\tmov.u32 %r, {r};\n\tst.global.u32 [%rd3+{}], %r;\n",
            4 * k
        );
    }
    // WARP_SZ as an operand, and legacy 16-bit moves of %tid/%ntid.
    body += "\tmov.u32 %r, WARP_SZ;\n\tst.global.u32 [%rd3+64], %r;\n";
    // %smid is below %nsmid (ptxvk reports one SM, docs/decisions/0100-special-registers.md).
    body += "\tmov.u32 %r, %smid;\n\tmov.u32 %n, %nsmid;\n\tsetp.lt.u32 %q, %r, %n;\n\
             \tselp.u32 %r, 1, 0, %q;\n\tst.global.u32 [%rd3+72], %r;\n";
    body += "\tmov.u16 %h, %tid.x;\n\tst.global.u16 [%rd3+68], %h;\n";
    body += "\tmov.u16 %h, %ntid.x;\n\tst.global.u16 [%rd3+70], %h;\n";
    let words = 19usize;
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .pred %q;\n\t.reg .b32 %r, %t, %n, %c, %i;\n\t.reg .b16 %h;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %t, %tid.x;\n\tmov.u32 %n, %ntid.x;\n\tmov.u32 %c, %ctaid.x;\n\
         \tmad.lo.u32 %i, %c, %n, %t;\n\tmul.wide.u32 %rd2, %i, {};\n\tadd.s64 %rd3, %rd1, %rd2;\n{body}\tret;\n}}\n",
        words * 4
    );
    let mut expect = Vec::new();
    for c in 0..grid {
        for t in 0..block {
            let lane = t % 32;
            let w: [u32; 16] = [
                t,
                block,
                c,
                grid,
                0,
                1,
                0,
                1,
                lane,
                t / 32,
                block.div_ceil(32),
                1 << lane,
                (1u32 << lane) - 1,
                ((1u64 << (lane + 1)) - 1) as u32,
                !(((1u64 << (lane + 1)) - 1) as u32),
                !((1u32 << lane) - 1),
            ];
            for x in w {
                expect.extend(x.to_le_bytes());
            }
            expect.extend(32u32.to_le_bytes());
            expect.extend((t as u16).to_le_bytes());
            expect.extend((block as u16).to_le_bytes());
            expect.extend(1u32.to_le_bytes());
        }
    }
    KernelCase {
        family: FAMILY,
        name: "mov/special-registers".into(),
        ptx,
        kernel: "k".into(),
        grid,
        block,
        buffers: vec![vec![0xA5; expect.len()]],
        args: vec![Arg::Buf(0)],
        expect: vec![(0, expect)],
        elem: 4,
    }
    .case()
}

/// `mov` of variable addresses (`var`, `var+imm`, `var[imm]`) in each addressable space: the
/// address read through gives the variable's element.
fn addresses() -> Case {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .global .align 4 .u32 g[4] = {11, 12, 13, 14};\n\
        .const .align 4 .u32 c[4] = {21, 22, 23, 24};\n\
        .visible .entry k(.param .u64 out, .param .u32 p0, .param .u32 p1)\n{\n\
        \t.reg .b32 %r<4>, %a;\n\t.reg .b64 %rd<6>;\n\
        \t.shared .align 4 .u32 s[4];\n\t.local .align 4 .u32 l[4];\n\
        \tld.param.u64 %rd1, [out];\n\
        \tst.shared.u32 [s+8], 31;\n\tst.local.u32 [l+12], 41;\n\
        \tmov.u64 %rd2, g;\n\tld.global.u32 %r0, [%rd2];\n\tst.global.u32 [%rd1], %r0;\n\
        \tmov.u64 %rd2, g+4;\n\tld.global.u32 %r0, [%rd2];\n\tst.global.u32 [%rd1+4], %r0;\n\
        \tmov.u64 %rd2, g[3];\n\tld.global.u32 %r0, [%rd2];\n\tst.global.u32 [%rd1+8], %r0;\n\
        \tmov.u64 %rd2, c[2];\n\tld.const.u32 %r0, [%rd2];\n\tst.global.u32 [%rd1+12], %r0;\n\
        \tmov.u32 %a, s[2];\n\tld.shared.u32 %r0, [%a];\n\tst.global.u32 [%rd1+16], %r0;\n\
        \tmov.u32 %a, l+12;\n\tld.local.u32 %r0, [%a];\n\tst.global.u32 [%rd1+20], %r0;\n\
        \tmov.u64 %rd2, p1;\n\tld.param.u32 %r0, [%rd2];\n\tst.global.u32 [%rd1+24], %r0;\n\
        \tmov.u64 %rd3, g;\n\tmov.u64 %rd4, g+8;\n\tsub.s64 %rd5, %rd4, %rd3;\n\tcvt.u32.u64 %r1, %rd5;\n\
        \tst.global.u32 [%rd1+28], %r1;\n\tret;\n}\n";
    let expect: Vec<u8> = [11u32, 12, 14, 23, 31, 41, 52, 8]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    KernelCase {
        family: FAMILY,
        name: "mov/address-of-variables".into(),
        ptx: ptx.into(),
        kernel: "k".into(),
        grid: 1,
        block: 1,
        buffers: vec![vec![0xA5; 32]],
        args: vec![
            Arg::Buf(0),
            Arg::Value(51u32.into()),
            Arg::Value(52u32.into()),
        ],
        expect: vec![(0, expect)],
        elem: 4,
    }
    .case()
}
