use super::*;

#[test]
fn rounding_to_single_matches_rust_for_doubles() {
    // Rust's `as f32` rounds to nearest even; the model must agree on nearest even.
    for x in [
        1.0f64,
        1.0 + 2f64.powi(-24),
        1.0 + 2f64.powi(-24) + 2f64.powi(-50),
        3.0e38,
        3.5e38,
        1.0e-40,
        1.0e-46,
        -2.5e-45,
        f64::MAX,
        f64::MIN_POSITIVE,
    ] {
        let Value::Num { neg, n, e } = decode(x.to_bits(), DOUBLE) else {
            panic!()
        };
        assert_eq!(
            round(neg, n, e, SINGLE, Mode::Even),
            u64::from((x as f32).to_bits()),
            "{x:e}"
        );
    }
}

/// Nearest-even rounding agrees with Rust's own conversions (`as`, and `half`'s f32 -> f16)
/// on many random values.
#[test]
fn nearest_even_agrees_with_rust_conversions() {
    let mut rng = crate::values::Rng::new(99);
    for _ in 0..20_000 {
        let x = rng.next_u64();
        let shift = rng.below(64) as u32;
        let u = x >> shift;
        assert_eq!(
            round(false, u128::from(u), 0, SINGLE, Mode::Even),
            u64::from((u as f32).to_bits()),
            "{u}"
        );
        assert_eq!(
            round(false, u128::from(u), 0, DOUBLE, Mode::Even),
            (u as f64).to_bits(),
            "{u}"
        );
        let i = u as i64;
        assert_eq!(
            round(i < 0, u128::from(i.unsigned_abs()), 0, SINGLE, Mode::Even),
            u64::from((i as f32).to_bits()),
            "{i}"
        );
        let d = f64::from_bits(x);
        if let Value::Num { neg, n, e } = decode(x, DOUBLE) {
            assert_eq!(
                round(neg, n, e, SINGLE, Mode::Even),
                u64::from((d as f32).to_bits()),
                "{d:e}"
            );
        }
        let f = x as u32;
        if let Value::Num { neg, n, e } = decode(u64::from(f), SINGLE) {
            assert_eq!(
                round(neg, n, e, HALF, Mode::Even),
                u64::from(half::f16::from_f32(f32::from_bits(f)).to_bits()),
                "{:e}",
                f32::from_bits(f)
            );
        }
    }
}

#[test]
fn directed_rounding_brackets_the_value() {
    // For an inexact value, .rm and .rp give neighbouring values around it.
    let x = 1.0 + 2f64.powi(-30);
    let Value::Num { neg, n, e } = decode(x.to_bits(), DOUBLE) else {
        panic!()
    };
    let down = round(neg, n, e, SINGLE, Mode::Down);
    let up = round(neg, n, e, SINGLE, Mode::Up);
    assert_eq!(down, 0x3f80_0000);
    assert_eq!(up, 0x3f80_0001);
    assert_eq!(round(neg, n, e, SINGLE, Mode::Zero), down);
    // Overflow: .rz gives the largest finite value, .rn infinity.
    let Value::Num { neg, n, e } = decode(1e300f64.to_bits(), DOUBLE) else {
        panic!()
    };
    assert_eq!(round(neg, n, e, HALF, Mode::Zero), 0x7bff);
    assert_eq!(round(neg, n, e, HALF, Mode::Even), 0x7c00);
    assert_eq!(round(true, n, e, HALF, Mode::Up), 0xfbff);
}

#[test]
fn integers_to_float() {
    // 2^24 + 1 is halfway between two floats: ties to even goes down.
    assert_eq!(
        round(false, (1 << 24) + 1, 0, SINGLE, Mode::Even),
        0x4b80_0000
    );
    assert_eq!(
        round(false, (1 << 24) + 1, 0, SINGLE, Mode::Up),
        0x4b80_0001
    );
    assert_eq!(
        round(false, (1 << 24) + 3, 0, SINGLE, Mode::Even),
        0x4b80_0002
    );
    assert_eq!(
        round(false, u128::from(u64::MAX), 0, DOUBLE, Mode::Zero),
        (u64::MAX as f64).to_bits() - 1
    );
}

#[test]
fn float_to_int_saturates_and_nan() {
    let m = Mods {
        mode: Some(Mode::Zero),
        integer: true,
        ..Mods::default()
    };
    assert_eq!(float_to_int(S32, F32, m, 0x7fc0_0000), 0);
    assert_eq!(float_to_int(S64, F32, m, 0x7fc0_0000), 1 << 63);
    assert_eq!(float_to_int(S32, F64, m, f64::NAN.to_bits()), 0x8000_0000);
    assert_eq!(float_to_int(U8, F32, m, 300f32.to_bits().into()), 255);
    assert_eq!(float_to_int(U8, F32, m, (-3f32).to_bits().into()), 0);
    assert_eq!(float_to_int(S8, F32, m, (-300f32).to_bits().into()), 0x80);
}

#[test]
fn pack_examples() {
    assert_eq!(
        pack(16, true, 70000, (-70000i32) as u32 as u64, None),
        0x7fff_8000
    );
    assert_eq!(pack(8, false, 300, 5, Some(0xABCD)), 0xABCD_FF05);
    assert_eq!(pack(4, true, (-9i32) as u32 as u64, 3, Some(0)), 0x83);
}
#[test]
fn narrow_formats_match_their_published_ranges() {
    // MAX_NORM: e4m3 448, e5m2 57344, e2m3 7.5, e3m2 28, e2m1 6; smallest subnormals
    // 2^-9, 2^-16, 2^-3, 2^-4, 2^-1.
    let max = |n: Narrow| n.max_norm().0;
    assert_eq!(max(Narrow::E4m3), 448.0);
    assert_eq!(max(Narrow::E5m2), 57344.0);
    assert_eq!(max(Narrow::E2m3), 7.5);
    assert_eq!(max(Narrow::E3m2), 28.0);
    assert_eq!(max(Narrow::E2m1), 6.0);
    assert_eq!(Narrow::E4m3.value(1), 2f64.powi(-9));
    assert_eq!(Narrow::E5m2.value(1), 2f64.powi(-16));
    assert_eq!(Narrow::E2m3.value(1), 0.125);
    assert_eq!(Narrow::E3m2.value(1), 0.0625);
    assert_eq!(Narrow::E2m1.value(1), 0.5);
    assert!(Narrow::E4m3.value(0x7f).is_nan());
    assert!(Narrow::E5m2.value(0x7c).is_infinite());
    assert_eq!(Narrow::Ue8m0.value(0), 2f64.powi(-127));
}

#[test]
fn narrow_rounding_and_saturation() {
    let b = |e: Expect| match e {
        Expect::Bits(b) => b,
        other => panic!("{other:?}"),
    };
    // 17 lies halfway between 16 (0x58) and 18 (0x59) in e4m3: ties to even.
    assert_eq!(b(to_narrow(Narrow::E4m3, 17.0, false)), 0x58);
    assert_eq!(b(to_narrow(Narrow::E4m3, 1e9, false)), 0x7e);
    assert_eq!(b(to_narrow(Narrow::E4m3, f64::NEG_INFINITY, false)), 0xfe);
    assert_eq!(b(to_narrow(Narrow::E5m2, f64::INFINITY, false)), 0x7b);
    assert_eq!(b(to_narrow(Narrow::E2m1, f64::NAN, false)), 0x7);
    assert_eq!(b(to_narrow(Narrow::E2m1, -2.5, false)), 0xc);
    assert_eq!(b(to_narrow(Narrow::E2m3, -100.0, false)), 0x3f);
    assert_eq!(to_ue8m0(3.0, false, false), 128);
    assert_eq!(to_ue8m0(3.0, true, false), 129);
    assert_eq!(to_ue8m0(0.0, true, false), 0);
    assert_eq!(to_ue8m0(f64::from(f32::MAX), true, false), 0xff);
    assert_eq!(to_ue8m0(f64::from(f32::MAX), true, true), 0xfe);
}
