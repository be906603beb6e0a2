//! ISA 9.7.18 video instructions against a reference model of the ISA's pseudocode: the scalar
//! `vadd vsub vabsdiff vmin vmax vshl vshr` (every type combination, `.sat`, the byte and
//! half-word selectors, the secondary `.add/.min/.max`, every merge `d.b0`..`d.h1`, `.clamp`
//! and `.wrap`) and the SIMD `vadd2 ... vmax2`, `vadd4 ... vmax4` (`.sat`, the accumulate
//! `.add`, lane selectors and masks). Each case runs 256 input triples, the edges of every byte
//! and half-word among them.

use super::kernel_case::{Arg, KernelCase};
use crate::Case;

const FAMILY: &str = "9.7.18 video";
const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";
const THREADS: u32 = 256;

const OPS: [&str; 6] = ["add", "sub", "absdiff", "min", "max", "avrg"];

/// One instruction form: everything the PTX text and the model need.
#[derive(Clone)]
struct Form {
    /// `add sub absdiff min max avrg shl shr set`.
    op: &'static str,
    /// `vset`'s comparison (`eq ne lt le gt ge`).
    cmp: &'static str,
    /// 1 (scalar), 2 or 4.
    lanes: u32,
    /// `dtype`, `atype`, `btype` signed.
    signed: [bool; 3],
    sat: bool,
    /// `add`, `min`, `max` (scalar), `add` (SIMD accumulate), or empty.
    secop: &'static str,
    /// `clamp`/`wrap` for the shifts.
    mode: &'static str,
    /// Selector suffixes without dots (empty: none): d (merge or mask), a, b.
    dsel: &'static str,
    asel: &'static str,
    bsel: &'static str,
}

impl Form {
    fn opcode(&self) -> String {
        match self.lanes {
            1 => format!("v{}", self.op),
            n => format!("v{}{n}", self.op),
        }
    }

    fn name(&self) -> String {
        let t = |s: bool| if s { "s32" } else { "u32" };
        // `vset` has no `dtype`: its result is unsigned.
        let mut n = if self.op == "set" {
            format!(
                "{}.{}.{}",
                self.opcode(),
                t(self.signed[1]),
                t(self.signed[2])
            )
        } else {
            format!(
                "{}.{}.{}.{}",
                self.opcode(),
                t(self.signed[0]),
                t(self.signed[1]),
                t(self.signed[2])
            )
        };
        for m in [
            if self.sat { "sat" } else { "" },
            self.cmp,
            self.mode,
            self.secop,
        ] {
            if !m.is_empty() {
                n += &format!(".{m}");
            }
        }
        for (w, s) in [("d", self.dsel), ("a", self.asel), ("b", self.bsel)] {
            if !s.is_empty() {
                n += &format!("/{w}.{s}");
            }
        }
        n
    }

    fn takes_c(&self) -> bool {
        self.lanes > 1 || !self.secop.is_empty() || !self.dsel.is_empty()
    }

    fn line(&self) -> String {
        let sel = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!(".{s}")
            }
        };
        let name = self.name();
        let l = name.split('/').next().unwrap_or_default();
        let c = if self.takes_c() { ", %r3" } else { "" };
        format!(
            "{l} %r4{}, %r1{}, %r2{}{c};",
            sel(self.dsel),
            sel(self.asel),
            sel(self.bsel)
        )
    }
}

/// Bits `width * index ..` of `x`, sign- or zero-extended (the ISA's partSelectSignExtend).
fn part(x: u64, width: u32, index: u32, signed: bool) -> i128 {
    let v = i128::from((x >> (width * index)) & ((1u64 << width) - 1));
    if signed && v >> (width - 1) & 1 == 1 {
        v - (1i128 << width)
    } else {
        v
    }
}

/// The scalar selector `.b0`..`.h1` as (width, index); the whole word without one.
fn scalar_sel(s: &str) -> (u32, u32) {
    match s.as_bytes() {
        [b'b', d] => (8, u32::from(d - b'0')),
        [b'h', d] => (16, u32::from(d - b'0')),
        _ => (32, 0),
    }
}

fn clamp(x: i128, width: u32, signed: bool) -> i128 {
    if signed {
        x.clamp(-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        x.clamp(0, (1i128 << width) - 1)
    }
}

/// In unbounded integers, as the ISA's intermediate results are meant (a 33-bit value shifted
/// left by at most 32 fits an i128).
fn op_model(f: &Form, a: i128, b: i128) -> i128 {
    match f.op {
        "add" => a + b,
        "sub" => a - b,
        "absdiff" => (a - b).abs(),
        "min" => a.min(b),
        "max" => a.max(b),
        "avrg" if a + b >= 0 => (a + b + 1) >> 1,
        "avrg" => (a + b) >> 1,
        "shl" => a << b,
        "shr" => a >> b,
        _ => i128::from(match f.cmp {
            "eq" => a == b,
            "ne" => a != b,
            "lt" => a < b,
            "le" => a <= b,
            "gt" => a > b,
            _ => a >= b,
        }),
    }
}

/// ISA 9.7.18.1 (stages 1-4 and optSaturate, optSecOp, optMerge) for one input triple.
fn scalar_model(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    let (aw, ai) = scalar_sel(f.asel);
    let (bw, bi) = scalar_sel(f.bsel);
    let ta = part(u64::from(a), aw, ai, f.signed[1]);
    let mut tb = part(u64::from(b), bw, bi, f.signed[2]);
    match f.mode {
        "clamp" => tb = tb.min(32),
        "wrap" => tb &= 0x1f,
        _ => {}
    }
    let mut tmp = op_model(f, ta, tb);
    let (dw, di) = scalar_sel(f.dsel);
    if f.sat {
        tmp = clamp(tmp, dw, f.signed[0]);
    }
    let cv = part(u64::from(c), 32, 0, f.signed[0]);
    let d = match f.secop {
        "add" => tmp + cv,
        "min" => tmp.min(cv),
        "max" => tmp.max(cv),
        _ if dw < 32 => {
            let mask = (1i128 << dw) - 1;
            ((tmp & mask) << (dw * di)) | (i128::from(c) & !(mask << (dw * di)))
        }
        _ => tmp,
    };
    d as u32
}

/// The lanes' parts of `{b, a}` a SIMD selector names (last digit lane 0), or the default.
fn simd_sel(s: &str, lanes: u32, default: u32) -> Vec<u32> {
    if s.is_empty() {
        return (default..default + lanes).collect();
    }
    s[1..].bytes().rev().map(|d| u32::from(d - b'0')).collect()
}

/// ISA 9.7.18.2 for one input triple: lanes selected from `{b, a}`, the operation, the clamp,
/// then the accumulate into `c` or the merge into `c`'s lanes.
fn simd_model(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    let width = 32 / f.lanes;
    let both = u64::from(b) << 32 | u64::from(a);
    let asel = simd_sel(f.asel, f.lanes, 0);
    let bsel = simd_sel(f.bsel, f.lanes, f.lanes);
    let mask: Vec<u32> = if f.dsel.is_empty() {
        (0..f.lanes).collect()
    } else {
        simd_sel(f.dsel, f.dsel.len() as u32 - 1, 0)
    };
    let mut d = i128::from(c);
    for lane in 0..f.lanes {
        if !mask.contains(&lane) {
            continue;
        }
        let va = part(both, width, asel[lane as usize], f.signed[1]);
        let vb = part(both, width, bsel[lane as usize], f.signed[2]);
        let mut t = op_model(f, va, vb);
        if f.sat {
            t = clamp(t, width, f.signed[0]);
        }
        if f.secop == "add" {
            d += t;
        } else {
            let m = (1i128 << width) - 1;
            d = ((t & m) << (width * lane)) | (d & !(m << (width * lane)));
        }
    }
    d as u32
}

/// 256 triples: every pair of 16 edge values for `a` and `b` (each byte's and half-word's
/// extremes and sign changes), with pseudo-random `c`.
fn inputs() -> Vec<[u32; 3]> {
    const EDGES: [u32; 16] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x7fff,
        0x8000,
        0xffff,
        0x8080_7f7f,
        0x7fff_8000,
        0x1234_5678,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
    ];
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    (0..THREADS as usize)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            [EDGES[i % 16], EDGES[i / 16], (s >> 16) as u32]
        })
        .collect()
}

fn case(f: &Form) -> Case {
    let triples = inputs();
    let want: Vec<u32> = triples
        .iter()
        .map(|&[a, b, c]| {
            if f.lanes == 1 {
                scalar_model(f, a, b, c)
            } else {
                simd_model(f, a, b, c)
            }
        })
        .collect();
    kernel_case(format!("video/{}", f.name()), &f.line(), &triples, &want)
}

/// A kernel that runs `line` on `%r1, %r2, %r3` = each input triple and stores `%r4`.
fn kernel_case(name: String, line: &str, triples: &[[u32; 3]], want: &[u32]) -> Case {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<6>;\n\
         \tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r5, %tid.x;\n\tmul.wide.u32 %rd3, %r5, 12;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.u32 %r1, [%rd4];\n\tld.global.u32 %r2, [%rd4+4];\n\tld.global.u32 %r3, [%rd4+8];\n\
         \tmov.u32 %r4, 0;\n\t{line}\n\
         \tmul.wide.u32 %rd3, %r5, 4;\n\tadd.s64 %rd5, %rd2, %rd3;\n\tst.global.u32 [%rd5], %r4;\n\
         \tret;\n}}\n"
    );
    let input: Vec<u8> = triples
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let want: Vec<u8> = want.iter().flat_map(|x| x.to_le_bytes()).collect();
    KernelCase {
        family: FAMILY,
        name,
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: THREADS,
        buffers: vec![input, vec![0xA5; want.len()]],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(1, want)],
        elem: 4,
    }
    .case()
}

const TYPES: [[bool; 3]; 8] = [
    [false, false, false],
    [false, false, true],
    [false, true, false],
    [false, true, true],
    [true, false, false],
    [true, false, true],
    [true, true, false],
    [true, true, true],
];

fn base(op: &'static str, lanes: u32, signed: [bool; 3]) -> Form {
    Form {
        op,
        cmp: "",
        lanes,
        signed,
        sat: false,
        secop: "",
        mode: "",
        dsel: "",
        asel: "",
        bsel: "",
    }
}

fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for op in &OPS[..5] {
        for signed in TYPES {
            for sat in [false, true] {
                v.push(Form {
                    sat,
                    ..base(op, 1, signed)
                });
            }
        }
        for (asel, bsel) in [("b0", "h1"), ("b3", "b2"), ("h0", "b1"), ("h1", "h0")] {
            v.push(Form {
                sat: true,
                asel,
                bsel,
                ..base(op, 1, [true, true, false])
            });
        }
        for secop in ["add", "min", "max"] {
            for signed in [[false, true, true], [true, false, false]] {
                v.push(Form {
                    sat: true,
                    secop,
                    ..base(op, 1, signed)
                });
            }
        }
        for dsel in ["b0", "b1", "b2", "b3", "h0", "h1"] {
            for (sat, signed) in [(false, [true, true, true]), (true, [true, true, true])] {
                v.push(Form {
                    sat,
                    dsel,
                    asel: "b1",
                    ..base(op, 1, signed)
                });
            }
            v.push(Form {
                sat: true,
                dsel,
                ..base(op, 1, [false, true, false])
            });
        }
    }
    for op in ["shl", "shr"] {
        for signed in [
            [false, false, false],
            [true, true, false],
            [false, true, false],
            [true, false, false],
        ] {
            for mode in ["clamp", "wrap"] {
                for sat in [false, true] {
                    v.push(Form {
                        sat,
                        mode,
                        ..base(op, 1, signed)
                    });
                }
            }
        }
        v.push(Form {
            sat: true,
            mode: "clamp",
            dsel: "h1",
            asel: "h0",
            bsel: "b0",
            ..base(op, 1, [true, true, false])
        });
        v.push(Form {
            mode: "wrap",
            secop: "add",
            ..base(op, 1, [true, true, false])
        });
    }
    for lanes in [2, 4] {
        for op in OPS {
            for signed in [
                [false, false, false],
                [true, true, true],
                [true, false, true],
                [false, true, false],
            ] {
                for (sat, secop) in [(false, ""), (true, ""), (false, "add")] {
                    v.push(Form {
                        sat,
                        secop,
                        ..base(op, lanes, signed)
                    });
                }
            }
            let (dsel, asel, bsel) = if lanes == 2 {
                ("h1", "h03", "h21")
            } else {
                ("b20", "b7250", "b0316")
            };
            v.push(Form {
                sat: true,
                dsel,
                asel,
                bsel,
                ..base(op, lanes, [true, true, false])
            });
            v.push(Form {
                secop: "add",
                dsel: if lanes == 2 { "h0" } else { "b31" },
                asel,
                ..base(op, lanes, [false, false, true])
            });
        }
    }
    v.extend(set_forms());
    v
}

/// `vset`, `vset2`, `vset4`: every comparison on every pair of input types, with the secondary
/// operations, merges, accumulates, selectors and masks.
fn set_forms() -> Vec<Form> {
    let mut v = Vec::new();
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
        let set = |lanes, signed| Form {
            cmp,
            ..base("set", lanes, signed)
        };
        for signed in [
            [false, false, false],
            [false, false, true],
            [false, true, false],
            [false, true, true],
        ] {
            v.push(set(1, signed));
            for lanes in [2, 4] {
                v.push(set(lanes, signed));
                v.push(Form {
                    secop: "add",
                    ..set(lanes, signed)
                });
            }
        }
        for secop in ["add", "min", "max"] {
            v.push(Form {
                secop,
                asel: "h1",
                ..set(1, [false, true, false])
            });
        }
        for dsel in ["b2", "h1"] {
            v.push(Form {
                dsel,
                bsel: "b3",
                ..set(1, [false, false, true])
            });
        }
        v.push(Form {
            dsel: "h0",
            asel: "h30",
            bsel: "h12",
            ..set(2, [false, true, true])
        });
        v.push(Form {
            dsel: "b310",
            asel: "b4567",
            bsel: "b0213",
            ..set(4, [false, true, false])
        });
    }
    v
}

/// A `vmad` form: input types, which operands are negated (`-a`, `-b`, `-c`), `.po`, `.sat`,
/// the scale and the selectors.
#[derive(Clone, Copy)]
struct Mad {
    signed: [bool; 2],
    negated: [bool; 3],
    po: bool,
    sat: bool,
    shift: u32,
    asel: &'static str,
    bsel: &'static str,
}

impl Mad {
    fn signed_final(&self) -> bool {
        let [na, nb, nc] = self.negated;
        self.signed[0] || self.signed[1] || (na != nb) || nc
    }

    fn line(&self) -> String {
        let t = |s: bool| if s { "s32" } else { "u32" };
        let mut l = format!(
            "vmad.{}.{}.{}",
            t(self.signed_final()),
            t(self.signed[0]),
            t(self.signed[1])
        );
        if self.po {
            l += ".po";
        }
        if self.sat {
            l += ".sat";
        }
        if self.shift > 0 {
            l += &format!(".shr{}", self.shift);
        }
        let op = |neg: bool, reg: &str, sel: &str| {
            let sel = if sel.is_empty() {
                String::new()
            } else {
                format!(".{sel}")
            };
            format!("{}{reg}{sel}", if neg { "-" } else { "" })
        };
        format!(
            "{l} %r4, {}, {}, {};",
            op(self.negated[0], "%r1", self.asel),
            op(self.negated[1], "%r2", self.bsel),
            op(self.negated[2], "%r3", "")
        )
    }

    /// ISA 9.7.18.1.3's pseudocode, in i128.
    fn model(&self, a: u32, b: u32, c: u32) -> u32 {
        let (aw, ai) = scalar_sel(self.asel);
        let (bw, bi) = scalar_sel(self.bsel);
        let ta = part(u64::from(a), aw, ai, self.signed[0]);
        let tb = part(u64::from(b), bw, bi, self.signed[1]);
        let signed_final = self.signed_final();
        let mut tmp = ta * tb;
        let mut c = c;
        let mut lsb = 0;
        if self.po {
            lsb = 1;
        } else if self.negated[0] != self.negated[1] {
            tmp = !tmp;
            lsb = 1;
        } else if self.negated[2] {
            c = !c;
            lsb = 1;
        }
        let c128 = if signed_final {
            i128::from(c as i32)
        } else {
            i128::from(c)
        };
        tmp = tmp + c128 + lsb;
        let mut result = if self.shift == 0 {
            tmp
        } else {
            let r = (tmp >> self.shift) as u64;
            if signed_final {
                i128::from(r as i64)
            } else {
                i128::from(r)
            }
        };
        if self.sat {
            result = clamp(result, 32, signed_final);
        }
        result as u32
    }
}

fn mad_case(f: &Mad) -> Case {
    let line = f.line();
    let triples = inputs();
    let want: Vec<u32> = triples.iter().map(|&[a, b, c]| f.model(a, b, c)).collect();
    kernel_case(
        format!("video/{}", line.trim_end_matches(';')),
        &line,
        &triples,
        &want,
    )
}

fn mad_forms() -> Vec<Mad> {
    let mut v = Vec::new();
    let negations = [
        ([false; 3], false),
        ([true, false, false], false),
        ([false, true, false], false),
        ([true, true, false], false),
        ([false, false, true], false),
        ([false; 3], true),
    ];
    for signed in [[false, false], [false, true], [true, false], [true, true]] {
        for (negated, po) in negations {
            for sat in [false, true] {
                for shift in [0, 7, 15] {
                    v.push(Mad {
                        signed,
                        negated,
                        po,
                        sat,
                        shift,
                        asel: "",
                        bsel: "",
                    });
                }
            }
        }
    }
    for (asel, bsel) in [("h0", "h1"), ("b3", "b0"), ("h1", "")] {
        v.push(Mad {
            signed: [true, false],
            negated: [true, false, false],
            po: false,
            sat: true,
            shift: 15,
            asel,
            bsel,
        });
    }
    v
}

pub fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = forms().iter().map(case).collect();
    v.extend(mad_forms().iter().map(mad_case));
    v
}
