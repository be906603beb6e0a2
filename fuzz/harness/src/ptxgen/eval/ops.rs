//! The arithmetic of single instructions (bit fields, integer, float and double operations)
//! and the step that combines two values of a reduction, as the ISA defines them, with each
//! reduction's identity.

use super::*;

/// `bfe` as the ISA defines it, for a 32-bit register.
pub(super) fn bfe(a: u32, b: u32, c: u32, signed: bool) -> u32 {
    let (pos, len) = (b & 0xff, c & 0xff);
    let sbit = if !signed || len == 0 {
        false
    } else {
        (a >> (pos + len - 1).min(31)) & 1 == 1
    };
    let mut d = 0u32;
    for i in 0..32 {
        let bit = if i < len && pos + i <= 31 {
            (a >> (pos + i)) & 1 == 1
        } else {
            sbit
        };
        d |= u32::from(bit) << i;
    }
    d
}

/// `bfi.b32 f, a, b, c, d`: `b` with `len` bits of `a` inserted at `pos`.
pub(super) fn bfi(a: u32, b: u32, c: u32, d: u32) -> u32 {
    let (pos, len) = (c & 0xff, d & 0xff);
    let mut f = b;
    for i in 0..len {
        if pos + i > 31 {
            break;
        }
        let bit = (a >> i) & 1;
        f = (f & !(1 << (pos + i))) | (bit << (pos + i));
    }
    f
}

/// `prmt.b32` in its default mode.
pub(super) fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    let mut d = 0u32;
    for n in 0..4 {
        let sel = (c >> (4 * n)) & 0xf;
        let byte = bytes[(sel & 7) as usize];
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte
        };
        d |= u32::from(byte) << (8 * n);
    }
    d
}

pub(super) fn bin(op: Bin, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32, b as i32);
    match op {
        Bin::Add => a.wrapping_add(b),
        Bin::Sub => a.wrapping_sub(b),
        Bin::MulLo => a.wrapping_mul(b),
        Bin::MulHiU => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        Bin::MulHiS => ((i64::from(sa) * i64::from(sb)) >> 32) as u32,
        Bin::And => a & b,
        Bin::Or => a | b,
        Bin::Xor => a ^ b,
        // Shift amounts past the width are clamped to it.
        Bin::Shl => a.checked_shl(b).unwrap_or(0),
        Bin::ShrU => a.checked_shr(b).unwrap_or(0),
        Bin::ShrS => (sa >> b.min(31)) as u32,
        Bin::MinU => a.min(b),
        Bin::MinS => sa.min(sb) as u32,
        Bin::MaxU => a.max(b),
        Bin::MaxS => sa.max(sb) as u32,
        Bin::DivU => a / (b | 1),
        Bin::RemU => a % (b | 1),
        Bin::AddSatS => sa.saturating_add(sb) as u32,
        // The low 32 bits of the 48-bit product of the low 24 bits.
        Bin::Mul24LoU => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff),
    }
}

pub(super) fn un(op: Un, a: u32) -> u32 {
    match op {
        Un::Not => !a,
        Un::Neg => (a as i32).wrapping_neg() as u32,
        Un::Popc => a.count_ones(),
        Un::Clz => a.leading_zeros(),
        Un::Brev => a.reverse_bits(),
        Un::AbsS => (a as i32).wrapping_abs() as u32,
        Un::Cnot => u32::from(a == 0),
    }
}

pub(super) fn reduce(op: Redux, x: u32, y: u32) -> u32 {
    match op {
        Redux::Add => x.wrapping_add(y),
        Redux::MinU => x.min(y),
        Redux::MinS => (x as i32).min(y as i32) as u32,
        Redux::MaxU => x.max(y),
        Redux::MaxS => (x as i32).max(y as i32) as u32,
        Redux::And => x & y,
        Redux::Or => x | y,
        Redux::Xor => x ^ y,
    }
}

/// `min`/`max` (ISA 9.7.3.10/11): a NaN operand is ignored, -0 is below +0.
pub(super) fn min_max(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        // Equal values differ only as zeros.
        return if a.is_sign_negative() != max { a } else { b };
    }
    if (a > b) == max { a } else { b }
}

pub(super) fn float(g: &mut Regs, op: FloatOp, d: u8, a: u8, b: u8, c: u8) {
    let (fa, fb, fc) = (g.f[a as usize], g.f[b as usize], g.f[c as usize]);
    let r = (d % NR) as usize;
    let v = match op {
        FloatOp::Add => fa + fb,
        FloatOp::Sub => fa - fb,
        FloatOp::Mul => fa * fb,
        FloatOp::Div => fa / fb,
        FloatOp::Sqrt => fa.sqrt(),
        FloatOp::Fma => fa.mul_add(fb, fc),
        FloatOp::Min => min_max(fa, fb, false),
        FloatOp::Max => min_max(fa, fb, true),
        FloatOp::Abs => fa.abs(),
        FloatOp::Neg => -fa,
        FloatOp::FromInt => g.r[a as usize] as f32,
        FloatOp::FromS => g.r[a as usize] as i32 as f32,
        FloatOp::Floor => fa.floor(),
        FloatOp::Ceil => fa.ceil(),
        FloatOp::Trunc => fa.trunc(),
        FloatOp::RoundEven => fa.round_ties_even(),
        FloatOp::FromBits => f32::from_bits(g.r[a as usize]),
        FloatOp::Selp => {
            if g.p[(c % NP) as usize] {
                fa
            } else {
                fb
            }
        }
        // Float to integer conversions saturate, NaN becomes 0 (ISA 9.7.9.21), as Rust's `as`.
        FloatOp::ToInt => {
            g.r[r] = fa as u32;
            return;
        }
        FloatOp::ToS => {
            g.r[r] = fa as i32 as u32;
            return;
        }
        FloatOp::ToSRni => {
            g.r[r] = fa.round_ties_even() as i32 as u32;
            return;
        }
        FloatOp::ToBits => {
            g.r[r] = if fa.is_nan() { CANON_F32 } else { fa.to_bits() };
            return;
        }
    };
    g.f[d as usize] = v;
}

pub(super) fn double(g: &mut Regs, op: DblOp, d: u8, a: u8, b: u8, c: u8) {
    let (d, a, b, c) = (
        (d % NFD) as usize,
        (a % NFD) as usize,
        (b % NFD) as usize,
        (c % NFD) as usize,
    );
    let (x, y, z) = (g.fd[a], g.fd[b], g.fd[c]);
    match op {
        DblOp::Add => g.fd[d] = x + y,
        DblOp::Mul => g.fd[d] = x * y,
        DblOp::Fma => g.fd[d] = x.mul_add(y, z),
        DblOp::Div => g.fd[d] = x / y,
        DblOp::Sqrt => g.fd[d] = x.sqrt(),
        DblOp::FromF => g.fd[d] = f64::from(g.f[b % NF as usize]),
        DblOp::ToF => g.f[b % NF as usize] = x as f32,
        DblOp::FromBits => g.fd[d] = f64::from_bits(g.rd[b % ND as usize]),
        DblOp::ToBits => {
            g.rd[b % ND as usize] = if x.is_nan() { CANON_F64 } else { x.to_bits() };
        }
    }
}

/// `x` with `identity(op)` reduced into it is `x`.
pub(super) fn identity(op: Redux) -> u32 {
    match op {
        Redux::Add | Redux::MaxU | Redux::Or | Redux::Xor => 0,
        Redux::MinU | Redux::And => u32::MAX,
        Redux::MinS => i32::MAX as u32,
        Redux::MaxS => i32::MIN as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_field_edges() {
        assert_eq!(bfe(0xf0, 4, 4, false), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, true), 0xffff_ffff);
        assert_eq!(bfe(0x8000_0000, 31, 8, true), 0xffff_ffff);
        assert_eq!(bfe(0x1234, 0, 0, true), 0);
        assert_eq!(bfi(0xf, 0, 28, 8), 0xf000_0000);
        assert_eq!(prmt(0x0403_0201, 0x0807_0605, 0x3210), 0x0403_0201);
        assert_eq!(prmt(0x0000_0080, 0, 0x8888), 0xffff_ffff);
    }

    /// The ISA's `min`/`max` table: NaN ignored, -0 below +0.
    #[test]
    fn float_min_max_edges() {
        assert_eq!(min_max(-0.0, 0.0, false).to_bits(), 0x8000_0000);
        assert_eq!(min_max(0.0, -0.0, false).to_bits(), 0x8000_0000);
        assert_eq!(min_max(-0.0, 0.0, true).to_bits(), 0);
        assert_eq!(min_max(f32::NAN, 1.0, false), 1.0);
        assert_eq!(min_max(2.0, f32::NAN, true), 2.0);
        assert!(min_max(f32::NAN, f32::NAN, true).is_nan());
    }
}
