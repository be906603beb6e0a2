//! The reference model, written from the notes of ISA Tables 27 and 28 and the `cvt` text
//! (ISA 8.7.6.13). Values are raw bits, zero-extended to 128.

use ptxvk_translator::ScalarType;

pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Table 27: "the source data is truncated (chopped) to the appropriate number of bits
/// specified by the instruction type-size".
pub fn chop(v: u128, inst: ScalarType) -> u128 {
    v & mask(inst.bits())
}

/// Table 28: "If the corresponding instruction type is signed integer, the data is
/// sign-extended; otherwise, the data is zero-extended" (to the register's size).
pub fn extend(v: u128, inst: ScalarType, reg: ScalarType) -> u128 {
    let b = inst.bits();
    let v = v & mask(b);
    let wide = if inst.is_signed() && b < 128 && (v >> (b - 1)) & 1 == 1 {
        v | !mask(b)
    } else {
        v
    };
    wide & mask(reg.bits())
}

/// `cvt.to.from` for the conversions the table cases use: integer widening (sign- or
/// zero-extension by the source's signedness, exact), float widening (exact), and float
/// narrowing with `.rn` (round to nearest even). `None` for any other pair.
pub fn convert(v: u128, from: ScalarType, to: ScalarType) -> Option<u128> {
    use ScalarType::*;
    if from == to {
        return Some(v & mask(from.bits()));
    }
    if from.is_integer() && to.is_integer() && to.bits() >= from.bits() {
        // The value is kept: sign-extend signed sources, zero-extend unsigned ones.
        let as_inst = if from.is_signed() { from } else { to };
        return Some(extend(v, as_inst, to) & mask(to.bits()));
    }
    let f = |x: u128| x as u64;
    Some(match (from, to) {
        (F16, F32) => u128::from(half::f16::from_bits(f(v) as u16).to_f32().to_bits()),
        (F16, F64) => u128::from(half::f16::from_bits(f(v) as u16).to_f64().to_bits()),
        (F32, F64) => u128::from(f64::from(f32::from_bits(f(v) as u32)).to_bits()),
        // Rust's `as` and `half`'s conversions round to nearest even, as `.rn` does.
        (F64, F32) => u128::from((f64::from_bits(f(v)) as f32).to_bits()),
        (F32, F16) => u128::from(half::f16::from_f32(f32::from_bits(f(v) as u32)).to_bits()),
        _ => return None,
    })
}

/// Whether the low `ty.bits()` of `v` are a NaN of float type `ty`.
pub fn is_nan(v: u128, ty: ScalarType) -> bool {
    let f = v as u64;
    match ty {
        ScalarType::F16 => half::f16::from_bits(f as u16).is_nan(),
        ScalarType::F32 => f32::from_bits(f as u32).is_nan(),
        ScalarType::F64 => f64::from_bits(f).is_nan(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn chop_and_extend_follow_the_notes() {
        assert_eq!(chop(0x1234_5678, U8), 0x78);
        assert_eq!(extend(0xF0, S8, B32), 0xFFFF_FFF0);
        assert_eq!(extend(0xF0, U8, S32), 0xF0);
        assert_eq!(extend(0xF0, B8, S64), 0xF0);
        assert_eq!(extend(0x8000, S16, B128), !0x7FFFu128);
        // Floating-point instruction types zero-extend (note 4).
        assert_eq!(extend(0xBC00, F16, B32), 0xBC00);
    }

    #[test]
    fn conversions_are_exact_or_round_to_nearest_even() {
        assert_eq!(convert(0xF0, S8, S64), Some(u128::from(u64::MAX - 15)));
        assert_eq!(convert(0xF0, U8, U64), Some(0xF0));
        assert_eq!(
            convert(u128::from(1.0f32.to_bits()), F32, F64),
            Some(u128::from(1.0f64.to_bits()))
        );
        // 1 + 2^-24 is halfway between two f32 values: ties go to the even one, 1.0.
        let halfway = 1.0f64 + 2f64.powi(-24);
        assert_eq!(
            convert(u128::from(halfway.to_bits()), F64, F32),
            Some(u128::from(1.0f32.to_bits()))
        );
        assert_eq!(convert(0, F64, S32), None);
    }
}
