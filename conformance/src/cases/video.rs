//! ISA 9.7.18 video instructions against reference models of the ISA's pseudocode
//! (`video_model.rs`): the scalar `vadd vsub vabsdiff vmin vmax vshl vshr vset` (every type
//! combination, `.sat`, the byte and half-word selectors, the secondary `.add/.min/.max`, every
//! merge `d.b0`..`d.h1`, `.clamp` and `.wrap`, every comparison), `vmad` (negations, `.po`,
//! `.sat`, scales) and the SIMD `vadd2 ... vset2`, `vadd4 ... vset4` (`.sat`, the accumulate
//! `.add`, lane selectors and masks). Each case runs 256 input triples, the edges of every byte
//! and half-word among them.

use super::kernel_case::{Arg, KernelCase};
use super::video_model::{Form, Mad, scalar_model, simd_model};
use crate::Case;

const FAMILY: &str = "9.7.18 video";
const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";
const THREADS: u32 = 256;

const OPS: [&str; 6] = ["add", "sub", "absdiff", "min", "max", "avrg"];

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
        for (secop, sat) in [("add", false), ("min", true), ("max", false)] {
            v.push(Form {
                mode: "wrap",
                secop,
                sat,
                ..base(op, 1, [true, true, false])
            });
        }
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
