//! ISA 8.7.6.6-8.7.6.9: `ld`, `ld.global.nc`, `ldu` and `st` in every state space, of every type
//! and vector width, plus the extension into wider registers (Table 28), the truncation from
//! wider registers (Table 27), memory-ordering qualifiers and cache operators. Each case moves
//! per-thread data through the space under test and checks every byte; the expectation is the
//! data movement the ISA describes (`d = *a`, `*a = b`).

use ptxvk_runtime::KernelArg;
use ptxvk_translator::ScalarType::{self, *};

use super::kernel_case::{Arg, KernelCase};
use crate::Case;
use crate::values::Rng;

const FAMILY: &str = "8.7.6 ld/st";
const THREADS: u32 = 32;

const TYPES: [ScalarType; 14] = [
    B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F32, F64,
];

/// Where the data goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Global,
    /// `ld.global.nc` (read-only data through the non-coherent path).
    GlobalNc,
    /// `ldu.global` (read-only data, ISA 8.7.6.8).
    Ldu,
    /// Stored by each thread, read back by its neighbour after a barrier.
    Shared,
    Local,
    /// A module `.const` array with an initializer.
    Const,
    /// A kernel parameter array, through a register address.
    KernelParam,
    /// A device function's parameter and return value (`st.param` and `ld.param`).
    FuncParam,
    /// Generic addresses of global and shared memory.
    Generic,
}

const SPACES: [Space; 9] = [
    Space::Global,
    Space::GlobalNc,
    Space::Ldu,
    Space::Shared,
    Space::Local,
    Space::Const,
    Space::KernelParam,
    Space::FuncParam,
    Space::Generic,
];

fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// `%v0` or `{%v0, %v1, ...}` (with prefix `p`).
fn regs(p: &str, n: u32) -> String {
    if n == 1 {
        format!("{p}0")
    } else {
        let r: Vec<String> = (0..n).map(|i| format!("{p}{i}")).collect();
        format!("{{{}}}", r.join(", "))
    }
}

fn vec_mod(n: u32) -> String {
    if n == 1 {
        String::new()
    } else {
        format!(".v{n}")
    }
}

fn header(sm: u32, version: &str) -> String {
    format!(".version {version}\n.target sm_{sm}\n.address_size 64\n")
}

/// Thread index in `%t`, `%rd4 = in + t*size`, `%rd5 = out + t*size`.
fn prologue(size: u32) -> String {
    format!(
        "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [in];\n\tmov.u32 %t, %tid.x;\n\
         \tmul.wide.u32 %rd3, %t, {size};\n\tadd.s64 %rd4, %rd2, %rd3;\n\tadd.s64 %rd5, %rd1, %rd3;\n"
    )
}

/// One `ld`/`st` case of type `ty`, `vec` elements, through `space`.
fn space_case(space: Space, ty: ScalarType, vec: u32) -> Case {
    let size = ty.bytes() * vec;
    let total = (size * THREADS) as usize;
    let v = vec_mod(vec);
    // Data is loaded into %v; what the access under test reads goes to %w, so an access
    // that did nothing cannot pass.
    let r = regs("%v", vec);
    let w = regs("%w", vec);
    let name = format!("ld-st/{space:?}/ld-st{v}{ty}").to_lowercase();
    let input = data(
        total,
        u64::from(size) * 131 + ty.bits() as u64 + space as u64 * 7,
    );
    let wide = size > 16;
    let (sm, version) = if wide { (100, "8.8") } else { (90, "8.0") };
    let mut module = header(sm, version);
    let mut extra_params = String::new();
    let mut body = String::new();
    let mut expect = input.clone();
    let mut args = vec![Arg::Buf(0), Arg::Buf(1)];
    let mut decls = format!(
        "\t.reg .b32 %t, %s, %a, %b;\n\t.reg .b64 %rd<10>;\n\t.reg {ty} %v<{vec}>, %w<{vec}>;\n"
    );
    let load_in = format!("\tld.global{v}{ty} {r}, [%rd4];\n");
    let store_out = format!("\tst.global{v}{ty} [%rd5], {w};\n");
    match space {
        Space::Global => {
            body += &format!("\tld.global{v}{ty} {w}, [%rd4];\n");
            body += &store_out;
        }
        Space::GlobalNc => {
            body += &format!("\tld.global.nc{v}{ty} {w}, [%rd4];\n");
            body += &store_out;
        }
        Space::Ldu => {
            body += &format!("\tldu.global{v}{ty} {w}, [%rd4];\n");
            body += &store_out;
        }
        Space::Shared => {
            decls += &format!("\t.shared .align 16 .b8 sh[{total}];\n");
            body += &load_in;
            body += &format!(
                "\tmov.u32 %s, sh;\n\tmad.lo.u32 %a, %t, {size}, %s;\n\tst.shared{v}{ty} [%a], {r};\n\
                 \tbar.sync 0;\n\tadd.u32 %b, %t, 1;\n\trem.u32 %b, %b, {THREADS};\n\
                 \tmad.lo.u32 %a, %b, {size}, %s;\n\tld.shared{v}{ty} {w}, [%a];\n"
            );
            body += &store_out;
            // out[t] = in[(t + 1) % THREADS]
            let s = size as usize;
            expect = (0..THREADS as usize)
                .flat_map(|t| {
                    let from = (t + 1) % THREADS as usize;
                    input[from * s..(from + 1) * s].to_vec()
                })
                .collect();
        }
        Space::Local => {
            decls += &format!("\t.local .align 16 .b8 loc[{size}];\n");
            body += &load_in;
            body += &format!("\tst.local{v}{ty} [loc], {r};\n");
            body += &format!("\tld.local{v}{ty} {w}, [loc];\n");
            body += &store_out;
        }
        Space::Const => {
            let init: Vec<String> = input.iter().map(|b| b.to_string()).collect();
            module += &format!(
                ".const .align 16 .b8 ctab[{total}] = {{{}}};\n",
                init.join(", ")
            );
            body += &format!(
                "\tmov.u64 %rd6, ctab;\n\tadd.s64 %rd7, %rd6, %rd3;\n\tld.const{v}{ty} {w}, [%rd7];\n"
            );
            body += &store_out;
        }
        Space::KernelParam => {
            extra_params = format!(", .param .align 16 .b8 blob[{total}]");
            args.push(Arg::Value(KernelArg::Bytes(input.clone())));
            body += &format!(
                "\tmov.u64 %rd6, blob;\n\tadd.s64 %rd7, %rd6, %rd3;\n\tld.param{v}{ty} {w}, [%rd7];\n"
            );
            body += &store_out;
        }
        Space::FuncParam => {
            module += &format!(
                ".func (.param .align 16 .b8 fr[{size}]) pass(.param .align 16 .b8 fp[{size}])\n{{\n\
                 \t.reg {ty} %v<{vec}>;\n\tld.param{v}{ty} {r}, [fp];\n\tst.param{v}{ty} [fr], {r};\n\tret;\n}}\n"
            );
            body += &load_in;
            body += &format!(
                "\t{{\n\t.param .align 16 .b8 arg[{size}];\n\t.param .align 16 .b8 res[{size}];\n\
                 \tst.param{v}{ty} [arg], {r};\n\tcall.uni (res), pass, (arg);\n\
                 \tld.param{v}{ty} {w}, [res];\n\t}}\n"
            );
            body += &store_out;
        }
        Space::Generic => {
            // Global through generic addresses, then shared through generic addresses.
            decls += &format!("\t.shared .align 16 .b8 sh[{total}];\n");
            body += &format!(
                "\tcvta.global.u64 %rd6, %rd4;\n\tld{v}{ty} {r}, [%rd6];\n\
                 \tmov.u64 %rd7, sh;\n\tadd.s64 %rd7, %rd7, %rd3;\n\tcvta.shared.u64 %rd8, %rd7;\n\
                 \tst{v}{ty} [%rd8], {r};\n\tbar.sync 0;\n\tld{v}{ty} {w}, [%rd8];\n\
                 \tcvta.global.u64 %rd9, %rd5;\n\tst{v}{ty} [%rd9], {w};\n"
            );
        }
    }
    module += &format!(
        ".visible .entry k(.param .u64 out, .param .u64 in{extra_params})\n{{\n{decls}{}{body}\tret;\n}}\n",
        prologue(size)
    );
    KernelCase {
        family: FAMILY,
        name,
        ptx: module,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![vec![0xA5; total], input],
        args,
        expect: vec![(0, expect)],
        elem: size as usize,
    }
    .case()
}

/// `ld.T` into a register wider than T (Table 28: sign-extended for signed types, zero-extended
/// otherwise), and `st.T` from a wider register (Table 27: the low bits are stored).
fn widening_case(ty: ScalarType, reg_bits: u32) -> Case {
    let size = ty.bytes();
    let wide = reg_bits / 8;
    let prefix = match ty {
        S8 | S16 | S32 => "s",
        U8 | U16 | U32 => "u",
        _ => "b",
    };
    let reg = format!(".{prefix}{reg_bits}");
    let name = format!("ld-st/wider-register/ld{ty}-into{reg}");
    let input = data((size * THREADS) as usize, u64::from(size * reg_bits));
    let ptx = format!(
        "{}.visible .entry k(.param .u64 out, .param .u64 in, .param .u64 out2)\n{{\n\
         \t.reg .b32 %t;\n\t.reg .b64 %rd<10>;\n\t.reg {reg} %w;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd7, [out2];\n\
         \tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %rd3, %t, {size};\n\tadd.s64 %rd4, %rd2, %rd3;\n\
         \tld.global{ty} %w, [%rd4];\n\
         \tmul.wide.u32 %rd5, %t, {wide};\n\tadd.s64 %rd6, %rd1, %rd5;\n\tst.global.b{reg_bits} [%rd6], %w;\n\
         \tadd.s64 %rd8, %rd7, %rd3;\n\tst.global{ty} [%rd8], %w;\n\tret;\n}}\n",
        header(90, "8.0")
    );
    let mut expect = Vec::new();
    for t in 0..THREADS as usize {
        let b = &input[t * size as usize..(t + 1) * size as usize];
        let negative = b.last().is_some_and(|x| x & 0x80 != 0);
        let fill = if prefix == "s" && negative { 0xff } else { 0 };
        let mut w = b.to_vec();
        w.resize(wide as usize, fill);
        expect.extend(w);
    }
    KernelCase {
        family: FAMILY,
        name,
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![
            vec![0xA5; (wide * THREADS) as usize],
            input.clone(),
            vec![0xA5; (size * THREADS) as usize],
        ],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2)],
        expect: vec![(0, expect), (2, input)],
        elem: wide as usize,
    }
    .case()
}

/// Ordering qualifiers, cache operators and hints on global (and shared, generic) accesses:
/// the values moved are the same as for a plain access.
fn qualified(name: &str, ld: &str, st: &str, space: &str, sm: u32, version: &str) -> Case {
    let ty = B32;
    let size = 4u32;
    let total = (size * THREADS) as usize;
    let input = data(total, name.len() as u64 * 977);
    let shared = space == "shared";
    let mut body = prologue(size);
    if shared {
        body += &format!(
            "\tld.global.b32 %v0, [%rd4];\n\tmov.u32 %s, sh;\n\tmad.lo.u32 %a, %t, 4, %s;\n\
             \t{st} [%a], %v0;\n\tbar.sync 0;\n\t{ld} %v0, [%a];\n\tst.global.b32 [%rd5], %v0;\n"
        );
    } else if space == "generic" {
        body += &format!(
            "\tcvta.global.u64 %rd6, %rd4;\n\tcvta.global.u64 %rd7, %rd5;\n\
             \t{ld} %v0, [%rd6];\n\t{st} [%rd7], %v0;\n"
        );
    } else {
        body += &format!("\t{ld} %v0, [%rd4];\n\t{st} [%rd5], %v0;\n");
    }
    let ptx = format!(
        "{}.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %s, %a;\n\t.reg .b64 %rd<10>;\n\t.reg {ty} %v<1>;\n\
         \t.reg .b64 %policy;\n\t.shared .align 4 .b8 sh[{total}];\n\tmov.b64 %policy, 0;\n{body}\tret;\n}}\n",
        header(sm, version)
    );
    KernelCase {
        family: FAMILY,
        name: format!("ld-st/qualifiers/{name}"),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![vec![0xA5; total], input.clone()],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(0, input)],
        elem: 4,
    }
    .case()
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for space in SPACES {
        for ty in TYPES {
            for vec in [1, 2, 4] {
                if ty.bytes() * vec > 16 {
                    continue;
                }
                v.push(space_case(space, ty, vec));
            }
        }
    }
    // 256-bit accesses: `.global` only, sm_100 (PTX ISA 8.8).
    for ty in [B32, U32, S32, F32] {
        v.push(space_case(Space::Global, ty, 8));
        v.push(space_case(Space::GlobalNc, ty, 8));
    }
    for ty in [B64, U64, S64, F64] {
        v.push(space_case(Space::Global, ty, 4));
        v.push(space_case(Space::GlobalNc, ty, 4));
    }
    for ty in [B8, U8, S8, B16, U16, S16] {
        v.push(widening_case(ty, 32));
        v.push(widening_case(ty, 64));
    }
    for ty in [B32, U32, S32] {
        v.push(widening_case(ty, 64));
    }
    let g = "global";
    for (name, ld, st, space, sm, ver) in [
        (
            "volatile",
            "ld.volatile.global.b32",
            "st.volatile.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "relaxed.cta",
            "ld.relaxed.cta.global.b32",
            "st.relaxed.cta.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "relaxed.gpu",
            "ld.relaxed.gpu.global.b32",
            "st.relaxed.gpu.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "relaxed.sys",
            "ld.relaxed.sys.global.b32",
            "st.relaxed.sys.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "acquire-release.gpu",
            "ld.acquire.gpu.global.b32",
            "st.release.gpu.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "acquire-release.cta",
            "ld.acquire.cta.global.b32",
            "st.release.cta.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "acquire-release.sys",
            "ld.acquire.sys.global.b32",
            "st.release.sys.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "mmio",
            "ld.mmio.relaxed.sys.global.b32",
            "st.mmio.relaxed.sys.global.b32",
            g,
            90,
            "8.2",
        ),
        (
            "weak",
            "ld.weak.global.b32",
            "st.weak.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "volatile.shared",
            "ld.volatile.shared.b32",
            "st.volatile.shared.b32",
            "shared",
            90,
            "8.0",
        ),
        (
            "relaxed.shared",
            "ld.relaxed.cta.shared.b32",
            "st.relaxed.cta.shared.b32",
            "shared",
            90,
            "8.0",
        ),
        (
            "acquire-release.shared",
            "ld.acquire.cta.shared.b32",
            "st.release.cta.shared.b32",
            "shared",
            90,
            "8.0",
        ),
        (
            "volatile.generic",
            "ld.volatile.b32",
            "st.volatile.b32",
            "generic",
            90,
            "8.0",
        ),
        (
            "acquire-release.generic",
            "ld.acquire.gpu.b32",
            "st.release.gpu.b32",
            "generic",
            90,
            "8.0",
        ),
        (
            "ca-wb",
            "ld.global.ca.b32",
            "st.global.wb.b32",
            g,
            90,
            "8.0",
        ),
        (
            "cg-cg",
            "ld.global.cg.b32",
            "st.global.cg.b32",
            g,
            90,
            "8.0",
        ),
        (
            "cs-cs",
            "ld.global.cs.b32",
            "st.global.cs.b32",
            g,
            90,
            "8.0",
        ),
        (
            "lu-wt",
            "ld.global.lu.b32",
            "st.global.wt.b32",
            g,
            90,
            "8.0",
        ),
        ("cv", "ld.global.cv.b32", "st.global.b32", g, 90, "8.0"),
        ("nc", "ld.global.nc.b32", "st.global.b32", g, 90, "8.0"),
        (
            "nc.ca",
            "ld.global.ca.nc.b32",
            "st.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "nc.cs",
            "ld.global.cs.nc.b32",
            "st.global.b32",
            g,
            90,
            "8.0",
        ),
        ("ldu", "ldu.global.b32", "st.global.b32", g, 90, "8.0"),
        (
            "ldu.generic",
            "ldu.b32",
            "st.global.b32",
            "generic",
            90,
            "8.0",
        ),
        (
            "evict",
            "ld.global.L1::evict_last.b32",
            "st.global.L1::no_allocate.b32",
            g,
            90,
            "8.0",
        ),
        (
            "prefetch-size",
            "ld.global.L2::256B.b32",
            "st.global.b32",
            g,
            90,
            "8.0",
        ),
        (
            "nc-evict-size",
            "ld.global.nc.L1::no_allocate.L2::256B.b32",
            "st.global.b32",
            g,
            90,
            "8.0",
        ),
    ] {
        v.push(qualified(name, ld, st, space, sm, ver));
    }
    v.push(cache_hint_case());
    v.push(prefetch_case());
    v
}

/// `.L2::cache_hint` with its cache-policy operand (accepted and ignored).
fn cache_hint_case() -> Case {
    let total = (4 * THREADS) as usize;
    let input = data(total, 4242);
    let ptx = format!(
        "{}.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %v0;\n\t.reg .b64 %rd<10>, %policy;\n\
         \tmov.b64 %policy, 0;\n{}\
         \tld.global.L2::cache_hint.b32 %v0, [%rd4], %policy;\n\
         \tst.global.L2::cache_hint.b32 [%rd5], %v0, %policy;\n\tret;\n}}\n",
        header(90, "8.0"),
        prologue(4)
    );
    KernelCase {
        family: FAMILY,
        name: "ld-st/qualifiers/L2-cache-hint".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![vec![0xA5; total], input.clone()],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(0, input)],
        elem: 4,
    }
    .case()
}

/// `prefetch` and `prefetchu` change nothing: the data still moves as without them.
fn prefetch_case() -> Case {
    let total = (4 * THREADS) as usize;
    let input = data(total, 777);
    let ptx = format!(
        "{}.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %v0;\n\t.reg .b64 %rd<10>;\n\t.local .align 4 .b8 loc[4];\n{}\
         \tprefetch.global.L1 [%rd4];\n\tprefetch.global.L2 [%rd4];\n\tprefetch.L1 [%rd4];\n\
         \tprefetch.local.L1 [loc];\n\tprefetch.global.L2::evict_last [%rd4];\n\tprefetchu.L1 [%rd4];\n\
         \tld.global.b32 %v0, [%rd4];\n\tst.global.b32 [%rd5], %v0;\n\tret;\n}}\n",
        header(90, "8.0"),
        prologue(4)
    );
    KernelCase {
        family: FAMILY,
        name: "ld-st/prefetch".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![vec![0xA5; total], input.clone()],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(0, input)],
        elem: 4,
    }
    .case()
}
