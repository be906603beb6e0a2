//! Float and double statements, with NaNs made canonical where their bits are read.

use super::printer::Printer;
use super::values::{CANON_F32, CANON_F64};
use crate::ptxgen::{DblOp, FloatOp, ND, NF, NFD, NP, NR};

impl Printer {
    pub(super) fn float(&mut self, op: FloatOp, d: u8, a: u8, b: u8, c: u8) {
        let r = d % NR;
        let line = match op {
            FloatOp::Add => format!("add.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Sub => format!("sub.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Mul => format!("mul.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Div => format!("div.rn.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Sqrt => format!("sqrt.rn.f32 %f{d}, %f{a};"),
            FloatOp::Fma => format!("fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{c};"),
            FloatOp::Min => format!("min.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Max => format!("max.f32 %f{d}, %f{a}, %f{b};"),
            FloatOp::Abs => format!("abs.f32 %f{d}, %f{a};"),
            FloatOp::Neg => format!("neg.f32 %f{d}, %f{a};"),
            FloatOp::FromInt => format!("cvt.rn.f32.u32 %f{d}, %r{a};"),
            FloatOp::FromS => format!("cvt.rn.f32.s32 %f{d}, %r{a};"),
            FloatOp::ToInt => format!("cvt.rzi.u32.f32 %r{r}, %f{a};"),
            FloatOp::ToS => format!("cvt.rzi.s32.f32 %r{r}, %f{a};"),
            FloatOp::ToSRni => format!("cvt.rni.s32.f32 %r{r}, %f{a};"),
            FloatOp::Floor => format!("cvt.rmi.f32.f32 %f{d}, %f{a};"),
            FloatOp::Ceil => format!("cvt.rpi.f32.f32 %f{d}, %f{a};"),
            FloatOp::Trunc => format!("cvt.rzi.f32.f32 %f{d}, %f{a};"),
            FloatOp::RoundEven => format!("cvt.rni.f32.f32 %f{d}, %f{a};"),
            FloatOp::FromBits => format!("mov.b32 %f{d}, %r{a};"),
            FloatOp::ToBits => {
                self.line(&format!("testp.notanumber.f32 %pl, %f{a};"));
                self.line(&format!("mov.b32 %r{r}, %f{a};"));
                format!("selp.b32 %r{r}, {CANON_F32}, %r{r}, %pl;")
            }
            FloatOp::Selp => format!("selp.f32 %f{d}, %f{a}, %f{b}, %p{};", c % NP),
        };
        self.line(&line);
    }

    pub(super) fn double(&mut self, op: DblOp, d: u8, a: u8, b: u8, c: u8) {
        let (d, a, b, c) = (d % NFD, a % NFD, b % NFD, c % NFD);
        let line = match op {
            DblOp::Add => format!("add.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Mul => format!("mul.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Fma => format!("fma.rn.f64 %fd{d}, %fd{a}, %fd{b}, %fd{c};"),
            DblOp::Div => format!("div.rn.f64 %fd{d}, %fd{a}, %fd{b};"),
            DblOp::Sqrt => format!("sqrt.rn.f64 %fd{d}, %fd{a};"),
            DblOp::FromF => format!("cvt.f64.f32 %fd{d}, %f{};", b % NF),
            DblOp::ToF => format!("cvt.rn.f32.f64 %f{}, %fd{a};", b % NF),
            DblOp::FromBits => format!("mov.b64 %fd{d}, %rd{};", b % ND),
            DblOp::ToBits => {
                let r = b % ND;
                self.line(&format!("testp.notanumber.f64 %pl, %fd{a};"));
                self.line(&format!("mov.b64 %rd{r}, %fd{a};"));
                format!("selp.b64 %rd{r}, {CANON_F64}, %rd{r}, %pl;")
            }
        };
        self.line(&line);
    }
}
