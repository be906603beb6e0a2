//! `mma.sync.aligned` cases: one per form of each shape and type.

use super::elem::{ElemType, thread_words, unpack};
use super::fragment::{Form, c_pos, check_elem, fragment_kernel, fragments, random_mats};
use super::{for_kind, launched_case, one_warp};
use crate::values::Rng;
use crate::{Case, Outcome};

/// A kernel in which lane `l` loads its A, B and C registers from `inp + l * in_stride`, runs
/// `mma`, and stores D at `out + l * out_stride`.
fn mma_kernel(f: &Form) -> (String, u32, u32) {
    let (ea, eb, ec) = f.elems();
    let inputs = [
        (f.a, f.regs(f.a, ea), true),
        (f.b, f.regs(f.b, eb), true),
        (f.c, f.regs(f.c, ec), true),
    ];
    fragment_kernel(&f.mnemonic(), &inputs, (f.d, f.regs(f.d, ec)), "")
}

pub(super) fn mma_case(f: Form, seed: u64) -> Case {
    let (ptx, in_stride, out_stride) = mma_kernel(&f);
    let ptx = for_kind(ptx, f.kind);
    let mut rng = Rng::new(seed);
    let x = random_mats(&f, &mut rng);
    let words = fragments(&f, &x);
    debug_assert_eq!(words.len() as u32 * 4, in_stride * 32);
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let name = format!("matrix/{}/{seed}", f.mnemonic());
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    launched_case(name, ptx, launch, move |out| {
        let (_, _, ec) = f.elems();
        for lane in 0..32u32 {
            let words = thread_words(&out[1], lane, out_stride);
            let d = unpack(f.d, &words, ec as usize);
            for (i, &got) in d.iter().enumerate() {
                let (r, col) = c_pos(lane, i as u32);
                if let Some(why) = check_elem(&f, &x, r as usize, col as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{col}] (lane {lane}, d{i}): {why}"));
                }
            }
        }
        Outcome::Pass
    })
}

pub(super) fn forms() -> Vec<Form> {
    let f = |m, n, k, d, a, b, c| Form {
        m,
        n,
        k,
        d,
        a,
        b,
        c,
        satfinite: false,
        and: false,
        kind: false,
    };
    let mut v = vec![
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::Bf16,
            ElemType::Bf16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::Bf16,
            ElemType::Bf16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::Tf32,
            ElemType::Tf32,
            ElemType::F32,
        ),
        f(
            16,
            8,
            4,
            ElemType::F32,
            ElemType::Tf32,
            ElemType::Tf32,
            ElemType::F32,
        ),
        f(
            8,
            8,
            4,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            4,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            8,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            16,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            8,
            8,
            16,
            ElemType::S32,
            ElemType::S8,
            ElemType::S8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            16,
            ElemType::S32,
            ElemType::S8,
            ElemType::U8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U8,
            ElemType::S8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U8,
            ElemType::U8,
            ElemType::S32,
        ),
        f(
            8,
            8,
            32,
            ElemType::S32,
            ElemType::S4,
            ElemType::S4,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U4,
            ElemType::S4,
            ElemType::S32,
        ),
        f(
            16,
            8,
            64,
            ElemType::S32,
            ElemType::S4,
            ElemType::U4,
            ElemType::S32,
        ),
        f(
            8,
            8,
            128,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            128,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            256,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::F32,
            ElemType::E4m3,
            ElemType::E5m2,
            ElemType::F32,
        ),
        f(
            16,
            8,
            32,
            ElemType::F32,
            ElemType::E5m2,
            ElemType::E5m2,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::E4m3,
            ElemType::E4m3,
            ElemType::F32,
        ),
    ];
    let sat: Vec<Form> = v
        .iter()
        .filter(|x| {
            matches!(
                x.a,
                ElemType::S8 | ElemType::U8 | ElemType::S4 | ElemType::U4
            )
        })
        .map(|x| Form {
            satfinite: true,
            ..*x
        })
        .collect();
    v.extend(sat);
    let and: Vec<Form> = v
        .iter()
        .filter(|x| x.a == ElemType::B1)
        .map(|x| Form { and: true, ..*x })
        .collect();
    v.extend(and);
    v
}

/// `.kind::f8f6f4` forms: every fp6/fp4 type and the fp8 ones beside them, both accumulator
/// types, mixed. Few, as each is a kernel lavapipe compiles.
pub(super) fn kind_forms() -> Vec<Form> {
    let f = |d, a, b, c| Form {
        m: 16,
        n: 8,
        k: 32,
        d,
        a,
        b,
        c,
        satfinite: false,
        and: false,
        kind: true,
    };
    vec![
        f(ElemType::F32, ElemType::E2m1, ElemType::E3m2, ElemType::F32),
        f(ElemType::F16, ElemType::E2m3, ElemType::E4m3, ElemType::F16),
        f(ElemType::F32, ElemType::E5m2, ElemType::E2m1, ElemType::F16),
    ]
}
