//! ISA chapter 5 state spaces and generic addressing (8.7.6.11 `isspacep`, 8.7.6.12 `cvta`):
//! which window a generic address of each space falls in, conversions to and from generic
//! addresses (64- and 32-bit), loads and stores through generic addresses of every space, and
//! the rules that reject writes to `.const` and to kernel parameters.

use ptxvk_runtime::KernelArg;

use super::kernel_case::{Arg, KernelCase, rejected_line};
use crate::Case;

const FAMILY: &str = "5 state spaces";
const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn case(name: &str, ptx: String, args: Vec<Arg>, want: &[u32]) -> Case {
    KernelCase {
        family: FAMILY,
        name: format!("spaces/{name}"),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: 1,
        buffers: vec![vec![0xA5; want.len() * 4]],
        args,
        expect: vec![(0, words(want))],
        elem: 4,
    }
    .case()
}

const SPACES: [&str; 5] = ["global", "shared", "local", "const", "param"];

/// `isspacep.{global,shared,local,const,param}` on generic addresses of a global buffer, a
/// global variable, a shared, a local and a constant variable, and a kernel parameter. Per the
/// ISA, an address is in exactly one window, except that the kernel-parameter window lies
/// inside the global one.
fn isspacep() -> Case {
    let mut body = String::from(
        "\tld.param.u64 %rout, [out];\n\tcvta.global.u64 %g0, %rout;\n\tcvta.global.u64 %g1, gv;\n\
         \tcvta.shared.u64 %g2, sv;\n\tcvta.local.u64 %g3, lv;\n\tcvta.const.u64 %g4, cv;\n\
         \tcvta.param.u64 %g5, kp;\n",
    );
    let mut want = Vec::new();
    // (address, the windows it is in)
    let addrs: [(u32, &[&str]); 6] = [
        (0, &["global"]),
        (1, &["global"]),
        (2, &["shared"]),
        (3, &["local"]),
        (4, &["const"]),
        (5, &["global", "param"]),
    ];
    let mut k = 0;
    for (a, inside) in addrs {
        for s in SPACES {
            body += &format!(
                "\tisspacep.{s} %p, %g{a};\n\tselp.u32 %x, 1, 0, %p;\n\tst.global.u32 [%rout+{}], %x;\n",
                4 * k
            );
            want.push(u32::from(inside.contains(&s)));
            k += 1;
        }
    }
    let ptx = format!(
        "{HEADER}.global .align 4 .u32 gv;\n.const .align 4 .u32 cv = 1;\n\
         .visible .entry k(.param .u64 out, .param .u32 kp)\n{{\n\t.reg .pred %p;\n\t.reg .b32 %x;\n\
         \t.reg .b64 %rout, %g<6>;\n\t.shared .align 4 .u32 sv;\n\t.local .align 4 .u32 lv;\n{body}\tret;\n}}\n"
    );
    case(
        "isspacep",
        ptx,
        vec![Arg::Buf(0), Arg::Value(7u32.into())],
        &want,
    )
}

/// Loads and stores through generic addresses of every space (`cvta.space` of a variable,
/// `var+imm`, or a register), and back with `cvta.to.space` (64- and 32-bit).
fn generic_access() -> Case {
    let ptx = format!(
        "{HEADER}.global .align 4 .u32 gv[2] = {{11, 12}};\n.const .align 4 .u32 cv[2] = {{21, 22}};\n\
         .visible .entry k(.param .u64 out, .param .align 4 .u32 kp[2])\n{{\n\t.reg .b32 %x, %s32, %g32, %b32;\n\
         \t.reg .b64 %rout, %g, %a, %b;\n\t.shared .align 4 .u32 sv[2];\n\t.local .align 4 .u32 lv[2];\n\
         \tld.param.u64 %rout, [out];\n\
         \tcvta.global.u64 %g, gv+4;\n\tld.u32 %x, [%g];\n\tst.global.u32 [%rout], %x;\n\
         \tst.u32 [%g], 13;\n\tld.global.u32 %x, [gv+4];\n\tst.global.u32 [%rout+4], %x;\n\
         \tcvta.const.u64 %g, cv;\n\tld.u32 %x, [%g+4];\n\tst.global.u32 [%rout+8], %x;\n\
         \tcvta.to.const.u64 %a, %g;\n\tld.const.u32 %x, [%a];\n\tst.global.u32 [%rout+12], %x;\n\
         \tcvta.param.u64 %g, kp;\n\tld.u32 %x, [%g+4];\n\tst.global.u32 [%rout+16], %x;\n\
         \tcvta.to.param.u64 %a, %g;\n\tld.param.u32 %x, [%a];\n\tst.global.u32 [%rout+20], %x;\n\
         \tst.shared.u32 [sv+4], 41;\n\tcvta.shared.u64 %g, sv+4;\n\tld.u32 %x, [%g];\n\tst.global.u32 [%rout+24], %x;\n\
         \tst.u32 [%g+-4], 42;\n\tld.shared.u32 %x, [sv];\n\tst.global.u32 [%rout+28], %x;\n\
         \tst.local.u32 [lv], 51;\n\tmov.u64 %a, lv;\n\tcvta.local.u64 %g, %a;\n\tld.u32 %x, [%g];\n\
         \tst.global.u32 [%rout+32], %x;\n\tst.u32 [%g+4], 52;\n\tld.local.u32 %x, [lv+4];\n\tst.global.u32 [%rout+36], %x;\n\
         \tmov.u64 %b, sv;\n\tcvta.shared.u64 %g, %b;\n\tcvta.to.shared.u64 %a, %g;\n\tsetp.eq.u64 %p, %a, %b;\n\
         \tselp.u32 %x, 1, 0, %p;\n\tst.global.u32 [%rout+40], %x;\n\
         \tmov.u32 %s32, sv+4;\n\tcvta.shared.u32 %g32, %s32;\n\tcvta.to.shared.u32 %b32, %g32;\n\
         \tld.shared.u32 %x, [%b32];\n\tst.global.u32 [%rout+44], %x;\n\
         \tmov.u32 %s32, lv;\n\tcvta.local.u32 %g32, %s32;\n\tcvta.to.local.u32 %b32, %g32;\n\
         \tld.local.u32 %x, [%b32];\n\tst.global.u32 [%rout+48], %x;\n\
         \tmov.u64 %b, gv;\n\tcvta.global.u64 %g, %b;\n\tcvta.to.global.u64 %a, %g;\n\tsetp.eq.u64 %p, %a, %b;\n\
         \tselp.u32 %x, 1, 0, %p;\n\tst.global.u32 [%rout+52], %x;\n\tret;\n}}\n"
    )
    .replace("\t.reg .b32 %x,", "\t.reg .pred %p;\n\t.reg .b32 %x,");
    let kp = words(&[31, 32]);
    case(
        "generic-access",
        ptx,
        vec![Arg::Buf(0), Arg::Value(KernelArg::Bytes(kp))],
        &[12, 13, 22, 21, 32, 31, 41, 42, 51, 52, 1, 41, 51, 1],
    )
}

/// A generic address taken in a kernel and dereferenced in a device function.
fn generic_across_calls() -> Case {
    let ptx = format!(
        "{HEADER}.func (.reg .u32 r) get(.reg .u64 p)\n{{\n\tld.u32 r, [p+4];\n\tst.u32 [p], 9;\n\tret;\n}}\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.reg .b32 %x;\n\t.reg .b64 %rout, %g;\n\
         \t.shared .align 4 .u32 sv[2];\n\t.local .align 4 .u32 lv[2];\n\tld.param.u64 %rout, [out];\n\
         \tst.shared.u32 [sv+4], 5;\n\tcvta.shared.u64 %g, sv;\n\tcall (%x), get, (%g);\n\
         \tst.global.u32 [%rout], %x;\n\tld.shared.u32 %x, [sv];\n\tst.global.u32 [%rout+4], %x;\n\
         \tst.local.u32 [lv+4], 6;\n\tcvta.local.u64 %g, lv;\n\tcall (%x), get, (%g);\n\
         \tst.global.u32 [%rout+8], %x;\n\tld.local.u32 %x, [lv];\n\tst.global.u32 [%rout+12], %x;\n\tret;\n}}\n"
    );
    case(
        "generic-across-calls",
        ptx,
        vec![Arg::Buf(0)],
        &[5, 9, 6, 9],
    )
}

/// A kernel around `body`, with variables in every space, for the rejected forms.
fn module(body: &str) -> String {
    format!(
        "{HEADER}.global .align 16 .u32 gv[4];\n.const .align 4 .u32 cv = 1;\n\
         .visible .entry k(.param .u64 kp)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \t.shared .align 4 .u32 sv;\n{body}\n\tret;\n}}\n"
    )
}

/// The writes the ISA forbids: to `.const` ("Stores to const memory are illegal") and to kernel
/// parameters (read-only; written only by the launch), each reported at the offending
/// modifier or operand.
fn rejections() -> Vec<Case> {
    [
        ("st.const", "st.const.u32 [cv], %r1;", "const"),
        (
            "st.global-to-const-variable",
            "st.global.u32 [cv], %r1;",
            "[cv]",
        ),
        ("st-generic-const-variable", "st.u32 [cv], %r1;", "[cv]"),
        (
            "st.param-kernel-parameter",
            "st.param.u64 [kp], %rd1;",
            "[kp]",
        ),
        ("st-generic-kernel-parameter", "st.u64 [kp], %rd1;", "[kp]"),
        (
            "st.param::entry",
            "st.param::entry.u64 [%rd1], %rd1;",
            "param::entry",
        ),
        (
            "ld.shared-of-global-variable",
            "ld.shared.u32 %r1, [gv];",
            "[gv]",
        ),
        ("ldu.shared", "ldu.shared.u32 %r1, [sv];", "shared"),
        ("nc-local", "ld.local.nc.u32 %r1, [%rd1];", "nc"),
        ("cvta-wrong-space", "cvta.global.u64 %rd1, sv;", "sv"),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "spaces/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = vec![isspacep(), generic_access(), generic_across_calls()];
    v.extend(rejections());
    v
}
