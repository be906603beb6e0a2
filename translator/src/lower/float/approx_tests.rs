//! `ex2.approx.f32` as lowered, run by the IR interpreter, against 2^x: the ISA's bound is
//! 2 ulp; the lowering promises at most one step from the correctly rounded result.

use crate::interp::{self, Inputs};
use crate::ir::{Module, Op, Ty};
use crate::simt::interp_tests::lowered;

/// Where the result is stored: the kernel's `out` parameter, fixed by the test.
const OUT: u64 = 0x1000;

/// `m` with its two parameter reads replaced by constants: `out` by [`OUT`], `x` by `x`.
fn with_input(m: &Module, x: f32) -> Module {
    let mut m = m.clone();
    let entry = m.entry.0 as usize;
    let f = &mut m.functions[entry];
    let tys = f.values.clone();
    for inst in f.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        if let (Op::Load { .. }, Some(r)) = (&inst.op, inst.result) {
            match tys[r.0 as usize] {
                Ty::I64 => inst.op = Op::Const(OUT),
                Ty::F32 => inst.op = Op::Const(u64::from(x.to_bits())),
                _ => {}
            }
        }
    }
    m
}

fn ex2_of(m: &Module, x: f32) -> f32 {
    let o = match interp::run(&with_input(m, x), &Inputs::new(Vec::new(), 1)) {
        Ok(o) => o,
        Err(e) => panic!("ex2({x:e}): {e:?}"),
    };
    let byte = |k: u64| o.global.get(&(OUT + k)).copied();
    match (byte(0), byte(1), byte(2), byte(3)) {
        (Some(a), Some(b), Some(c), Some(d)) => f32::from_le_bytes([a, b, c, d]),
        _ => panic!("ex2({x:e}) stored nothing at the output"),
    }
}

#[test]
fn ex2_is_within_one_step_of_correctly_rounded() {
    let (m, _) = lowered(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .f32 x)\n{\n\
         \t.reg .f32 %f<3>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.f32 %f1, [x];\n\
         \tex2.approx.f32 %f2, %f1;\n\tst.global.f32 [%rd1], %f2;\n\tret;\n}\n",
    );
    // Every 16,411th bit pattern of [-152, 129] (subnormal and overflowing results included),
    // plus the input of the largest error over all f32 inputs.
    let mut xs: Vec<f32> = (0..=u32::MAX)
        .step_by(16_411)
        .map(f32::from_bits)
        .filter(|x| x.is_finite() && (-152.0..129.0).contains(x))
        .collect();
    xs.push(f32::from_bits(0x3f03_39d2));
    for x in xs {
        let got = ex2_of(&m, x);
        let want = f64::from(x).exp2() as f32;
        let steps = (i64::from(got.to_bits()) - i64::from(want.to_bits())).unsigned_abs();
        assert!(
            steps <= 1,
            "ex2({x:e}) = {got:e}, correctly rounded {want:e}"
        );
    }
}
