//! The block-scaled forms run (each kind, type pair, scale vector and selector, the sparse
//! ones, and the fp8 forms with `.f16` accumulators), and those the ISA does not list.

use super::*;

pub(crate) fn cases() -> Vec<Case> {
    let s = |kind, a, b, vec, ue4m3, sel| Scaled {
        kind,
        a,
        b,
        vec,
        ue4m3,
        sel,
        regs: false,
        nan: false,
        extreme: false,
        sparse: false,
    };
    let scaled = [
        s(
            Kind::Mxf8f6f4,
            ElemType::E4m3,
            ElemType::E2m1,
            1,
            false,
            (3, 1, 2, 3),
        ),
        s(
            Kind::Mxf8f6f4,
            ElemType::E5m2,
            ElemType::E3m2,
            1,
            false,
            (0, 0, 0, 0),
        ),
        s(
            Kind::Mxf8f6f4,
            ElemType::E2m3,
            ElemType::E4m3,
            1,
            false,
            (1, 0, 1, 1),
        ),
        Scaled {
            regs: true,
            ..s(
                Kind::Mxf4nvf4,
                ElemType::E2m1,
                ElemType::E2m1,
                2,
                false,
                (2, 0, 0, 3),
            )
        },
        s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            2,
            false,
            (0, 0, 2, 1),
        ),
        s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            4,
            false,
            (0, 1, 0, 3),
        ),
        s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            4,
            true,
            (0, 0, 0, 2),
        ),
        Scaled {
            regs: true,
            ..s(
                Kind::Mxf8f6f4,
                ElemType::E3m2,
                ElemType::E2m3,
                1,
                false,
                (2, 1, 3, 2),
            )
        },
        // Eighth, so that `--quick` (every fourth case of the family) runs an mxf4 case.
        s(
            Kind::Mxf4,
            ElemType::E2m1,
            ElemType::E2m1,
            2,
            false,
            (2, 1, 0, 2),
        ),
        Scaled {
            extreme: true,
            ..s(
                Kind::Mxf8f6f4,
                ElemType::E5m2,
                ElemType::E4m3,
                1,
                false,
                (1, 1, 0, 1),
            )
        },
        Scaled {
            nan: true,
            ..s(
                Kind::Mxf4,
                ElemType::E2m1,
                ElemType::E2m1,
                2,
                false,
                (0, 1, 2, 0),
            )
        },
    ];
    // The sparse forms, in an order that gives `--quick` (every fourth case of the sparse
    // family, which these follow) one of each kind.
    let sp = |x: Scaled| Scaled { sparse: true, ..x };
    let sparse = [
        sp(s(
            Kind::Mxf8f6f4,
            ElemType::E4m3,
            ElemType::E2m1,
            1,
            false,
            (3, 1, 2, 3),
        )),
        sp(s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            4,
            false,
            (0, 1, 0, 3),
        )),
        Scaled {
            regs: true,
            ..sp(s(
                Kind::Mxf8f6f4,
                ElemType::E3m2,
                ElemType::E2m3,
                1,
                false,
                (2, 0, 3, 2),
            ))
        },
        Scaled {
            nan: true,
            ..sp(s(
                Kind::Mxf4,
                ElemType::E2m1,
                ElemType::E2m1,
                2,
                false,
                (0, 1, 2, 0),
            ))
        },
        sp(s(
            Kind::Mxf4,
            ElemType::E2m1,
            ElemType::E2m1,
            2,
            false,
            (2, 1, 0, 2),
        )),
        sp(s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            2,
            false,
            (0, 0, 2, 1),
        )),
        sp(s(
            Kind::Mxf4nvf4,
            ElemType::E2m1,
            ElemType::E2m1,
            4,
            true,
            (0, 0, 0, 2),
        )),
        Scaled {
            extreme: true,
            ..sp(s(
                Kind::Mxf8f6f4,
                ElemType::E5m2,
                ElemType::E4m3,
                1,
                false,
                (1, 1, 0, 1),
            ))
        },
        // A `.ue4m3` byte 0xFF: its low seven bits are the NaN 0x7F.
        Scaled {
            nan: true,
            ..sp(s(
                Kind::Mxf4nvf4,
                ElemType::E2m1,
                ElemType::E2m1,
                4,
                true,
                (0, 1, 0, 1),
            ))
        },
        Scaled {
            nan: true,
            ..sp(s(
                Kind::Mxf8f6f4,
                ElemType::E2m3,
                ElemType::E5m2,
                1,
                false,
                (1, 0, 1, 1),
            ))
        },
        Scaled {
            regs: true,
            ..sp(s(
                Kind::Mxf4nvf4,
                ElemType::E2m1,
                ElemType::E2m1,
                2,
                false,
                (2, 1, 2, 0),
            ))
        },
    ];
    let f = |k, d, a, b, c| Form {
        m: 16,
        n: 8,
        k,
        d,
        a,
        b,
        c,
        satfinite: false,
        and: false,
        kind: false,
    };
    let f16 = [
        f(
            32,
            ElemType::F16,
            ElemType::E4m3,
            ElemType::E5m2,
            ElemType::F16,
        ),
        f(
            16,
            ElemType::F32,
            ElemType::E5m2,
            ElemType::E4m3,
            ElemType::F16,
        ),
        f(
            16,
            ElemType::F16,
            ElemType::E4m3,
            ElemType::E4m3,
            ElemType::F32,
        ),
    ];
    let mut v: Vec<Case> = scaled
        .into_iter()
        .enumerate()
        .map(|(i, x)| case(x, 1300 + i as u64))
        .collect();
    v.extend(
        sparse
            .into_iter()
            .enumerate()
            .map(|(i, x)| case(x, 1350 + i as u64)),
    );
    v.extend(
        f16.into_iter()
            .enumerate()
            .map(|(i, x)| f16_acc_case(x, 1400 + i as u64)),
    );
    v.extend(rejections());
    v
}

/// A module of the plain sm_120 target, which lacks the family's features.
fn module_sm120_plain(line: &str) -> String {
    super::super::rejections::module(line).replacen(".target sm_90\n", ".target sm_120\n", 1)
}

/// Forms the ISA's tables do not list, and a target without the sm_120 family features.
fn rejections() -> Vec<Case> {
    let scales = "%r9, {0, 0}, %r10, {0, 0};";
    let line = |m: &str| {
        format!(
            "{m} {{%f1,%f2,%f3,%f4}}, {{%r1,%r2,%r3,%r4}}, {{%r5,%r6}}, {{%f5,%f6,%f7,%f8}}, {scales}"
        )
    };
    let lines = [
        (
            "mma-block-scale-mxf4-4x",
            line(
                "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
            ),
            "kind::mxf4",
        ),
        (
            "mma-block-scale-mxf8-ue4m3",
            line(
                "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue4m3",
            ),
            "kind::mxf8f6f4",
        ),
        (
            "mma-block-scale-f16-d",
            line(
                "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f16.e4m3.e4m3.f32.ue8m0",
            ),
            "kind::mxf8f6f4",
        ),
    ];
    let mut v: Vec<Case> = lines
        .iter()
        .map(|(n, l, at)| {
            rejected_line(
                super::super::FAMILY,
                "matrix/rejected",
                super::super::rejections::module_sm120,
                (n, l, at),
            )
        })
        .collect();
    let plain = line(
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0",
    );
    v.push(rejected_line(
        super::super::FAMILY,
        "matrix/rejected",
        module_sm120_plain,
        ("mma-block-scale-plain-sm120", &plain, "kind::mxf8f6f4"),
    ));
    v
}
