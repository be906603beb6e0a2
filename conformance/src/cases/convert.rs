//! ISA 8.7.6.13, `cvt` and `cvt.pack`: one case per destination x source type x modifier
//! combination the ISA allows, over edge values, values at the rounding and range boundaries of
//! the destination, and seeded random values; expectations from `convert_model`.
mod narrow;
mod packed;
mod scalar;

use ptxvk_translator::ScalarType::{self, *};

use super::convert_model::{Format, Mode, Mods};
use crate::Case;

use narrow::narrow_cases;
use packed::{pack, packed, tf32, wider};
use scalar::case;

const INTS: [ScalarType; 8] = [U8, U16, U32, U64, S8, S16, S32, S64];
const FLOATS: [ScalarType; 4] = [F16, Bf16, F32, F64];

const FLOAT_MODES: [(&str, Mode); 4] = [
    ("rn", Mode::Even),
    ("rz", Mode::Zero),
    ("rm", Mode::Down),
    ("rp", Mode::Up),
];
const INT_MODES: [(&str, Mode); 4] = [
    ("rni", Mode::Even),
    ("rzi", Mode::Zero),
    ("rmi", Mode::Down),
    ("rpi", Mode::Up),
];
/// Whether every value of integer type `src` fits in `dst`.
fn int_fits(dst: ScalarType, src: ScalarType) -> bool {
    match (dst.is_signed(), src.is_signed()) {
        (true, true) | (false, false) => dst.bits() >= src.bits(),
        (true, false) => dst.bits() > src.bits(),
        (false, true) => false,
    }
}

/// Whether a float conversion can lose precision or range.
fn narrows(dst: ScalarType, src: ScalarType) -> bool {
    let (d, s) = (Format::of(dst), Format::of(src));
    d.exp < s.exp || d.mant < s.mant
}

/// `.ftz` (where allowed) and `.sat` (not with a `.bf16` operand: ptxas refuses it) on and
/// off.
fn flag_sets(ftz_allowed: bool, bf16: bool) -> Vec<Mods> {
    let mut v = Vec::new();
    for ftz in [false, true] {
        if ftz && !ftz_allowed {
            continue;
        }
        for sat in [false, true] {
            if sat && bf16 {
                continue;
            }
            v.push(Mods {
                ftz,
                sat,
                ..Mods::default()
            });
        }
    }
    v
}
pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // Integer to integer.
    for dst in INTS {
        for src in INTS {
            v.push(case(dst, src, None, Mods::default()));
            if !int_fits(dst, src) {
                let sat = Mods {
                    sat: true,
                    ..Mods::default()
                };
                v.push(case(dst, src, None, sat));
            }
        }
    }
    // Float to integer: an integer rounding is required; `.sat` is redundant but allowed.
    for dst in INTS {
        for src in FLOATS {
            for rnd in INT_MODES {
                for m in flag_sets(src == F32, src == Bf16) {
                    let m = Mods { integer: true, ..m };
                    v.push(case(dst, src, Some(rnd), m));
                }
            }
        }
    }
    // Integer to float: a floating-point rounding is required.
    for dst in FLOATS {
        for src in INTS {
            for rnd in FLOAT_MODES {
                for m in flag_sets(dst == F32, dst == Bf16) {
                    v.push(case(dst, src, Some(rnd), m));
                }
            }
        }
    }
    // Float to float.
    for dst in FLOATS {
        for src in FLOATS {
            let ftz = dst == F32 || src == F32;
            if dst == src {
                for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                    v.push(case(dst, src, None, m));
                    for rnd in INT_MODES {
                        let m = Mods { integer: true, ..m };
                        v.push(case(dst, src, Some(rnd), m));
                    }
                }
            } else if narrows(dst, src) {
                for rnd in FLOAT_MODES {
                    for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                        v.push(case(dst, src, Some(rnd), m));
                    }
                }
                if src == F32 && matches!(dst, F16 | Bf16) {
                    for rnd in &FLOAT_MODES[..2] {
                        for (relu, satfinite) in [(true, false), (false, true), (true, true)] {
                            let m = Mods {
                                relu,
                                satfinite,
                                ..Mods::default()
                            };
                            v.push(case(dst, src, Some(*rnd), m));
                        }
                    }
                }
            } else {
                for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                    v.push(case(dst, src, None, m));
                }
            }
        }
    }
    // The ISA's own example gives a (meaningless) rounding to a widening conversion from .bf16.
    v.push(case(F64, Bf16, Some(("rp", Mode::Up)), Mods::default()));
    // Packing conversions and tf32.
    for dst in [F16x2, Bf16x2] {
        for rnd in &FLOAT_MODES[..2] {
            for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
                let m = Mods {
                    relu,
                    satfinite,
                    ..Mods::default()
                };
                v.push(packed(dst, *rnd, m));
            }
        }
    }
    for satfinite in [false, true] {
        let m = Mods {
            satfinite,
            ..Mods::default()
        };
        v.push(tf32(("rna", Mode::Away), m));
        for rnd in &FLOAT_MODES[..2] {
            for relu in [false, true] {
                v.push(tf32(*rnd, Mods { relu, ..m }));
            }
        }
    }
    v.push(wider("cvt", S8, S32, S32, S32));
    v.push(wider("cvt", U8, S32, U32, S32));
    v.push(wider("cvt", S16, U64, S64, U64));
    v.push(wider("cvt", S32, S8, S32, B32));
    v.push(wider("cvt", U64, U16, U64, B64));
    v.push(wider("cvt.rn", F16, F32, B32, F32));
    v.push(wider("cvt", F32, F16, F32, B32));
    v.push(wider("cvt.rzi", S8, F32, S32, F32));
    for (bits, signed) in [
        (16, false),
        (16, true),
        (8, false),
        (8, true),
        (4, false),
        (4, true),
        (2, false),
        (2, true),
    ] {
        v.push(pack(bits, signed));
    }
    v.extend(narrow_cases());
    v
}

#[cfg(test)]
mod tests {
    use crate::elementwise::collecting;

    /// The cvt forms are generated for sm_100 but declare the lowest target ptxvk's checks
    /// accept, so that an older GPU's driver runs them (`--record-cuda`): `cvt.rn.f32.f64` is
    /// sm_70 code, `cvt.rn.satfinite.f16x2.f32` needs sm_80 (ISA 9.7.9.21).
    #[test]
    fn cvt_cases_declare_the_lowest_target_they_need() {
        let (_, specs) = collecting(super::cases);
        let target = |name: &str| {
            let spec = specs.iter().find(|s| s.name == name);
            spec.map(|s| {
                let ptx = s.ptx();
                ptx.lines()
                    .find(|l| l.starts_with(".target"))
                    .map(str::to_string)
            })
        };
        assert_eq!(
            target("cvt/cvt.rn.f32.f64"),
            Some(Some(".target sm_70".into()))
        );
        assert_eq!(
            target("cvt/cvt.rn.satfinite.f16x2.f32"),
            Some(Some(".target sm_80".into()))
        );
    }
}
