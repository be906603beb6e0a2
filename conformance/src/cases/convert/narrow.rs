//! The narrow float formats (fp8, fp6, fp4 and ue8m0), to and from `f32` and `.f16x2`.

use ptxvk_translator::ScalarType::{self, *};

use crate::cases::convert_model::{self as model, Narrow};
use crate::elementwise::Elementwise;
use crate::values::rows;
use crate::{Case, Expect};

use super::scalar::{FAMILY, seed};

/// Values at the rounding boundaries of narrow format `n`: every finite value, the halfway
/// points between neighbours (ties) and values just beside them, past `MAX_NORM`, below the
/// smallest subnormal, infinities, NaN; both signs. All are exact in `f64`.
fn narrow_boundaries(n: Narrow) -> Vec<f64> {
    let mut mags: Vec<f64> = (0..1u64 << (n.width() - 1))
        .map(|c| n.value(c))
        .filter(|v| v.is_finite())
        .collect();
    mags.sort_by(f64::total_cmp);
    let mut xs = Vec::new();
    for w in mags.windows(2) {
        let mid = (w[0] + w[1]) / 2.0;
        let step = (w[1] - w[0]) / 64.0;
        xs.extend([w[0], mid, mid - step, mid + step]);
    }
    let (max, _) = n.max_norm();
    let top = mags.get(mags.len().wrapping_sub(2)).copied().unwrap_or(0.0);
    let ulp = max - top;
    xs.extend([
        max,
        max + ulp / 4.0,
        max + ulp / 2.0,
        max + ulp,
        max * 4.0,
        1e30,
        f64::INFINITY,
        f64::NAN,
        0.0,
    ]);
    let tiny = mags.get(1).copied().unwrap_or(1.0);
    xs.extend([tiny / 2.0, tiny / 4.0, tiny * 0.75, 1e-30]);
    let negs: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negs);
    xs
}

/// Pairs `(v[i], v[j])` covering every value in both positions.
fn pairs(v: &[u64]) -> Vec<Vec<u64>> {
    let n = v.len();
    (0..n)
        .map(|i| vec![v[i], v[(i * 7 + 3) % n.max(1)]])
        .collect()
}

/// PTX that splits a packed narrow pair `%q` into `%d` (the upper value) and `%e`.
fn split_narrow(n: Narrow) -> String {
    let (u, slot) = if n == Narrow::E2m1 {
        ("u8", 4)
    } else {
        ("u16", 8)
    };
    format!(
        "cvt.u32.{u} %w, %q;\nshr.u32 %d, %w, {slot};\nand.b32 %e, %w, {};",
        (1 << slot) - 1
    )
}

fn narrow_reg(n: Narrow) -> &'static str {
    if n == Narrow::E2m1 { "b8" } else { "b16" }
}

/// The target and version a narrow conversion needs (fp8: sm_89 with PTX ISA 8.1, which
/// NVIDIA's ptxas asks for sm_89; the others sm_100a, PTX ISA 8.6).
fn narrow_target(e: &mut Elementwise, n: Narrow) {
    if matches!(n, Narrow::E4m3 | Narrow::E5m2) {
        e.sm = 89;
        e.version = (8, 1);
    } else {
        e.sm = 100;
        e.version = (8, 6);
    }
}

/// `cvt.rn.satfinite{.relu}.<narrow>x2.f32 d, a, b`, checked through its two values.
fn to_narrow_f32(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn.satfinite{}.{}.f32",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let mut r = rows(&[F32, F32], 400, 300, seed(&name));
    let edge: Vec<u64> = narrow_boundaries(n)
        .into_iter()
        .map(|x| u64::from((x as f32).to_bits()))
        .collect();
    r.extend(pairs(&edge));
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .{} %q;\n.reg .b32 %w;\n{op} %q, %a, %b;\n{}",
            narrow_reg(n),
            split_narrow(n)
        ),
        &[F32, F32],
        &[U32, U32],
        r,
        move |r| {
            [r[0], r[1]]
                .iter()
                .map(|&x| model::to_narrow(n, model::to_f64(x, F32), relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.rn.satfinite{.relu}.<fp8>x2.f16x2 d, a`: the upper half of `a` goes to the upper byte.
fn to_narrow_f16x2(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn.satfinite{}.{}.f16x2",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let mut halves: Vec<Vec<u64>> = rows(&[F16, F16], 400, 300, seed(&name));
    let edge: Vec<u64> = narrow_boundaries(n)
        .into_iter()
        .map(|x| u64::from(half::f16::from_f64(x).to_bits()))
        .collect();
    halves.extend(pairs(&edge));
    let r = halves
        .into_iter()
        .map(|h| vec![(h[0] & 0xffff) << 16 | (h[1] & 0xffff)])
        .collect();
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .b16 %q;\n.reg .b32 %w;\nmov.b32 %w, %a;\n{op} %q, %w;\n{}",
            split_narrow(n)
        ),
        &[U32],
        &[U32, U32],
        r,
        move |r| {
            [r[0] >> 16, r[0] & 0xffff]
                .iter()
                .map(|&x| model::to_narrow(n, model::to_f64(x, F16), relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.rn{.relu}.f16x2.<narrow>x2 d, a` over every encoding in both positions.
fn from_narrow(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn{}.f16x2.{}",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let slot = n.slot();
    let mask = (1u64 << slot) - 1;
    // The 6-bit formats' bytes have their two top bits zero.
    let codes = 1u64 << n.width();
    let r = (0..codes)
        .map(|c| vec![c << slot | ((c * 37 + 11) % codes)])
        .collect();
    let (u, reg) = if n == Narrow::E2m1 {
        ("u8", "b8")
    } else {
        ("u16", "b16")
    };
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .{reg} %q;\n.reg .b32 %p;\ncvt.{u}.u32 %q, %a;\n{op} %p, %q;\nmov.b32 {{%e, %d}}, %p;"
        ),
        &[U32],
        &[F16, F16],
        r,
        move |r| {
            [(r[0] >> slot) & mask, r[0] & mask]
                .iter()
                .map(|&c| model::from_narrow(n, c, relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b` and `.ue8m0x2.bf16x2 d, a`.
fn to_ue8m0(up: bool, satfinite: bool, packed: bool) -> Case {
    let op = format!(
        "cvt.{}{}.ue8m0x2.{}",
        if up { "rp" } else { "rz" },
        if satfinite { ".satfinite" } else { "" },
        if packed { "bf16x2" } else { "f32" }
    );
    let name = format!("cvt/{op}");
    let mut xs: Vec<f64> = (-130..=128)
        .flat_map(|k| {
            let p = 2f64.powi(k);
            [p, p * 1.5, p * (1.0 + 1.0 / 128.0), p * (2.0 - 1.0 / 128.0)]
        })
        .collect();
    xs.extend([0.0, f64::INFINITY, f64::NAN, 1e-45, 3e38]);
    let negs: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negs);
    let (ty, body_in, inputs): (ScalarType, &str, &[ScalarType]) = if packed {
        (Bf16, "%h", &[U32])
    } else {
        (F32, "%a, %b", &[F32, F32])
    };
    let edge: Vec<u64> = xs
        .iter()
        .map(|&x| {
            if packed {
                u64::from(half::bf16::from_f64(x).to_bits())
            } else {
                u64::from((x as f32).to_bits())
            }
        })
        .collect();
    let mut r = rows(&[ty, ty], 400, 300, seed(&name));
    r.extend(pairs(&edge));
    let r: Vec<Vec<u64>> = if packed {
        r.into_iter()
            .map(|h| vec![(h[0] & 0xffff) << 16 | (h[1] & 0xffff)])
            .collect()
    } else {
        r
    };
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .b16 %q;\n.reg .b32 %w;\n.reg .b32 %h;\nmov.b32 %h, %a;\n{op} %q, {body_in};\n{}",
            split_narrow(Narrow::Ue8m0)
        ),
        inputs,
        &[U32, U32],
        r,
        move |r| {
            let vals = if packed {
                [r[0] >> 16, r[0] & 0xffff]
            } else {
                [r[0], r[1]]
            };
            vals.iter()
                .map(|&x| Expect::Bits(model::to_ue8m0(model::to_f64(x, ty), up, satfinite)))
                .collect()
        },
    );
    narrow_target(&mut e, Narrow::Ue8m0);
    e.case()
}

/// `cvt.rn.bf16x2.ue8m0x2 d, a` over every encoding.
fn from_ue8m0() -> Case {
    let op = "cvt.rn.bf16x2.ue8m0x2";
    let r = (0..256u64)
        .map(|c| vec![c << 8 | ((c * 37 + 11) & 0xff)])
        .collect();
    let mut e = Elementwise::new(
        FAMILY,
        format!("cvt/{op}"),
        format!(
            ".reg .b16 %q;\n.reg .b32 %p;\ncvt.u16.u32 %q, %a;\n{op} %p, %q;\nmov.b32 {{%e, %d}}, %p;"
        ),
        &[U32],
        &[Bf16, Bf16],
        r,
        |r| {
            vec![
                model::from_ue8m0(r[0] >> 8 & 0xff),
                model::from_ue8m0(r[0] & 0xff),
            ]
        },
    );
    narrow_target(&mut e, Narrow::Ue8m0);
    e.case()
}

/// Every narrow-format conversion form of the ISA's `cvt` (stochastic `.rs` rounding and the
/// four-value forms aside).
pub(super) fn narrow_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for n in Narrow::FLOATS {
        for relu in [false, true] {
            v.push(to_narrow_f32(n, relu));
            if matches!(n, Narrow::E4m3 | Narrow::E5m2) {
                v.push(to_narrow_f16x2(n, relu));
            }
            v.push(from_narrow(n, relu));
        }
    }
    for up in [false, true] {
        for satfinite in [false, true] {
            for packed in [false, true] {
                v.push(to_ue8m0(up, satfinite, packed));
            }
        }
    }
    v.push(from_ue8m0());
    v
}
