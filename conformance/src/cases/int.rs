//! ISA 8.7.1, integer arithmetic: reference models written from the instruction descriptions.

use ptxvk_translator::ScalarType::{self, *};

use crate::elementwise::Elementwise;
use crate::values::rows;
use crate::{Case, Expect};

const FAMILY: &str = "8.7.1 integer";

fn mask(ty: ScalarType) -> u64 {
    if ty.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << ty.bits()) - 1
    }
}

/// Sign-extends the low `ty.bits()` of `v`.
fn sext(ty: ScalarType, v: u64) -> i64 {
    let s = 64 - ty.bits();
    ((v << s) as i64) >> s
}

fn binary(name: &str, ty: ScalarType, f: impl Fn(u64, u64) -> u64 + Send + Sync + 'static) -> Case {
    Elementwise::new(
        FAMILY,
        format!("int/{name}{ty}"),
        format!("{name}{ty} %d, %a, %b;"),
        &[ty, ty],
        &[ty],
        rows(&[ty, ty], 400, 200, 7),
        move |r| vec![Expect::Bits(f(r[0], r[1]) & mask(ty))],
    )
    .case()
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for ty in [U16, U32, U64, S16, S32, S64] {
        // add/sub: d = a + b, wrapping (ISA 8.7.1.1-2).
        v.push(binary("add", ty, |a, b| a.wrapping_add(b)));
        v.push(binary("sub", ty, |a, b| a.wrapping_sub(b)));
        // mul.lo: the low half of the full product (ISA 8.7.1.3).
        v.push(binary("mul.lo", ty, |a, b| a.wrapping_mul(b)));
    }
    // add.sat.s32: clamps to [MIN_INT, MAX_INT] (ISA 8.7.1.1).
    v.push(binary("add.sat", S32, |a, b| {
        (sext(S32, a) + sext(S32, b)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u64
    }));
    v
}
