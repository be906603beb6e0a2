//! The floating-point forms: arithmetic and its rounding modifiers, `fma`, `min`/`max`, the
//! approximate functions, `testp` and `copysign`.

use super::{form, run};

#[test]
fn floating_point_forms() {
    run(&[
        // ISA 8.7.3.1-3: `.rm/.rp` on .f32 add/sub/mul need sm_20.
        form(
            "add.rm.f32 %f1, %f2, %f3;",
            ("1.4", 13),
            "`add.rm.f32` requires PTX ISA 1.0 and sm_20",
            "rm",
            Some(("2.0", 20)),
        ),
        form(
            "mul.rp.f32 %f1, %f2, %f3;",
            ("1.4", 13),
            "`mul.rp.f32` requires PTX ISA 1.0 and sm_20",
            "rp",
            Some(("2.0", 20)),
        ),
        // 8.7.3.6: fma.f32 PTX 2.0, sm_20.
        form(
            "fma.rn.f32 %f1, %f2, %f3, %f4;",
            ("1.4", 13),
            "`fma.f32` requires PTX ISA 2.0 and sm_20",
            "f32",
            Some(("2.0", 20)),
        ),
        // Half-precision fma PTX 4.2 sm_53; .relu and .bf16 PTX 7.0 sm_80.
        form(
            "fma.rn.f16 %rs1, %rs2, %rs3, %rs4;",
            ("4.1", 52),
            "`fma.f16` requires PTX ISA 4.2 and sm_53",
            "f16",
            Some(("4.2", 53)),
        ),
        form(
            "fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs4;",
            ("7.0", 75),
            "`fma.relu` requires PTX ISA 7.0 and sm_80",
            "relu",
            Some(("7.0", 80)),
        ),
        form(
            "fma.rn.bf16 %rs1, %rs2, %rs3, %rs4;",
            ("6.5", 75),
            "`fma.bf16` requires PTX ISA 7.0 and sm_80",
            "bf16",
            Some(("7.0", 80)),
        ),
        // 8.7.3.8: div.rnd.f32 PTX 1.4, sm_20.
        form(
            "div.rn.f32 %f1, %f2, %f3;",
            ("1.4", 13),
            "`div.rn.f32` requires PTX ISA 1.4 and sm_20",
            "rn",
            Some(("2.0", 20)),
        ),
        // 8.7.3.13: rcp.approx.ftz.f64 PTX 2.1, sm_20 (without .ftz too, at the opcode).
        form(
            "rcp.approx.ftz.f64 %fd1, %fd2;",
            ("2.0", 20),
            "`rcp.approx.ftz.f64` requires PTX ISA 2.1",
            "approx",
            Some(("2.1", 20)),
        ),
        form(
            "rcp.approx.f64 %fd1, %fd2;",
            ("2.0", 20),
            "`rcp.approx.ftz.f64` requires PTX ISA 2.1",
            "rcp",
            None,
        ),
        // 8.7.3.16: rsqrt.approx.ftz.f64 PTX 4.0, sm_20; before PTX 1.4 `.approx` was implied.
        form(
            "rsqrt.approx.ftz.f64 %fd1, %fd2;",
            ("3.2", 20),
            "`rsqrt.approx.ftz.f64` requires PTX ISA 4.0",
            "approx",
            Some(("4.0", 20)),
        ),
        form(
            "rsqrt.ftz.f64 %fd1, %fd2;",
            ("1.3", 13),
            "`rsqrt.approx.ftz.f64` requires PTX ISA 4.0 and sm_20",
            "rsqrt",
            None,
        ),
        // tanh PTX 7.0 sm_75; ex2 on .f16 PTX 7.0 sm_75; ex2/tanh on .bf16 PTX 7.8 sm_90.
        form(
            "tanh.approx.f32 %f1, %f2;",
            ("6.5", 75),
            "`tanh` requires PTX ISA 7.0",
            "tanh",
            Some(("7.0", 75)),
        ),
        form(
            "ex2.approx.f16 %rs1, %rs2;",
            ("7.0", 70),
            "`ex2.f16` requires PTX ISA 7.0 and sm_75",
            "f16",
            Some(("7.0", 75)),
        ),
        form(
            "ex2.approx.ftz.bf16 %rs1, %rs2;",
            ("7.0", 80),
            "`ex2.bf16` requires PTX ISA 7.8 and sm_90",
            "bf16",
            Some(("7.8", 90)),
        ),
        form(
            "tanh.approx.bf16 %rs1, %rs2;",
            ("7.0", 80),
            "`tanh.bf16` requires PTX ISA 7.8 and sm_90",
            "bf16",
            Some(("7.8", 90)),
        ),
        // min/max: three inputs PTX 8.8 sm_100; .NaN PTX 7.0 sm_80; .xorsign.abs PTX 7.2
        // sm_86; .f16 PTX 7.0 sm_80.
        form(
            "max.f32 %f1, %f2, %f3, %f4;",
            ("8.7", 90),
            "three-input `max` requires PTX ISA 8.8 and sm_100",
            "max",
            Some(("8.8", 100)),
        ),
        form(
            "min.NaN.f32 %f1, %f2, %f3;",
            ("6.5", 75),
            "`min.NaN` requires PTX ISA 7.0 and sm_80",
            "NaN",
            Some(("7.0", 80)),
        ),
        form(
            "max.xorsign.abs.f32 %f1, %f2, %f3;",
            ("7.1", 86),
            "`max.xorsign` requires PTX ISA 7.2",
            "xorsign",
            Some(("7.2", 86)),
        ),
        form(
            "min.f16 %rs1, %rs2, %rs3;",
            ("6.5", 75),
            "`min.f16` requires PTX ISA 7.0 and sm_80",
            "f16",
            Some(("7.0", 80)),
        ),
        // abs/neg: .f16 (abs PTX 6.5, neg PTX 6.0, sm_53), .bf16 PTX 7.0 sm_80.
        form(
            "abs.f16 %rs1, %rs2;",
            ("6.0", 53),
            "`abs.f16` requires PTX ISA 6.5",
            "f16",
            Some(("6.5", 53)),
        ),
        form(
            "neg.bf16 %rs1, %rs2;",
            ("7.0", 75),
            "`neg.bf16` requires PTX ISA 7.0 and sm_80",
            "bf16",
            Some(("7.0", 80)),
        ),
        // copysign and testp PTX 2.0 sm_20.
        form(
            "copysign.f32 %f1, %f2, %f3;",
            ("1.4", 13),
            "`copysign` requires PTX ISA 2.0 and sm_20",
            "copysign",
            Some(("2.0", 20)),
        ),
        form(
            "testp.normal.f32 %p1, %f2;",
            ("1.4", 13),
            "`testp` requires PTX ISA 2.0 and sm_20",
            "testp",
            Some(("2.0", 20)),
        ),
        // Half-precision add/sub/mul PTX 4.2 sm_53; on .bf16 PTX 7.8 sm_90.
        form(
            "sub.f16 %rs1, %rs2, %rs3;",
            ("4.1", 52),
            "`sub.f16` requires PTX ISA 4.2 and sm_53",
            "f16",
            Some(("4.2", 53)),
        ),
        form(
            "mul.rn.bf16x2 %r1, %r2, %r3;",
            ("7.7", 86),
            "`mul.bf16x2` requires PTX ISA 7.8 and sm_90",
            "bf16x2",
            Some(("7.8", 90)),
        ),
    ]);
}
