//! The `wgmma.mma_async` forms run: shapes, type pairs, layouts and transposes, `scale-d`, A
//! from registers, and the sparse forms with each selector.

use super::*;

fn forms() -> Vec<Form> {
    let base = Form {
        n: 16,
        d: ElemType::F32,
        a: ElemType::F16,
        b: ElemType::F16,
        a_regs: false,
        a_layout: 1,
        b_layout: 1,
        trans_a: false,
        trans_b: false,
        scale_d: None,
        neg_a: false,
        neg_b: false,
        satfinite: false,
        sp: None,
    };
    let mut v = Vec::new();
    // Every swizzling mode, K- and MN-major, for both operands.
    for mode in 0..4 {
        for (ta, tb) in [(false, false), (true, true), (false, true)] {
            v.push(Form {
                a_layout: mode,
                b_layout: (mode + 1) % 4,
                trans_a: ta,
                trans_b: tb,
                ..base
            });
        }
    }
    let types = [
        (ElemType::F16, ElemType::F16, ElemType::F16),
        (ElemType::F32, ElemType::Bf16, ElemType::Bf16),
        (ElemType::F32, ElemType::Tf32, ElemType::Tf32),
        (ElemType::F32, ElemType::E4m3, ElemType::E5m2),
        (ElemType::F16, ElemType::E5m2, ElemType::E4m3),
        (ElemType::S32, ElemType::S8, ElemType::U8),
        (ElemType::S32, ElemType::U8, ElemType::S8),
    ];
    for (d, a, b) in types {
        for a_regs in [false, true] {
            v.push(Form {
                d,
                a,
                b,
                a_regs,
                a_layout: 2,
                b_layout: 3,
                ..base
            });
        }
    }
    v.push(Form {
        n: 8,
        scale_d: Some(false),
        neg_a: true,
        ..base
    });
    v.push(Form {
        n: 64,
        scale_d: Some(true),
        neg_b: true,
        a_regs: true,
        trans_b: true,
        ..base
    });
    v.push(Form {
        n: 24,
        d: ElemType::S32,
        a: ElemType::S8,
        b: ElemType::S8,
        satfinite: true,
        ..base
    });
    v.push(Form {
        n: 96,
        a: ElemType::Tf32,
        b: ElemType::Tf32,
        b_layout: 3,
        ..base
    });
    // `.sp`: each type's chunking and metadata holders, A from shared memory (MN-major too)
    // and from registers, both selectors of the pair forms.
    let sparse = [
        (ElemType::F32, ElemType::F16, ElemType::F16, false, true, 1),
        (
            ElemType::F32,
            ElemType::Tf32,
            ElemType::Tf32,
            true,
            false,
            0,
        ),
        (
            ElemType::F16,
            ElemType::E4m3,
            ElemType::E5m2,
            false,
            false,
            0,
        ),
        (ElemType::S32, ElemType::S8, ElemType::U8, true, false, 0),
    ];
    for (d, a, b, a_regs, trans_a, sel) in sparse {
        v.push(Form {
            n: if a == ElemType::F16 { 16 } else { 8 },
            d,
            a,
            b,
            a_regs,
            a_layout: 2,
            trans_a,
            sp: Some(sel),
            ..base
        });
    }
    v
}

pub(crate) fn cases() -> Vec<Case> {
    forms()
        .into_iter()
        .enumerate()
        .map(|(i, f)| case(f, 3000 + i as u64))
        .collect()
}
