//! The element types of matrix fragments: their values, random bits, and packing into registers.

use crate::values::Rng;

/// The PTX type of a matrix fragment's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElemType {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
    E4m3,
    E5m2,
    /// The fp6 and fp4 types of `.kind::f8f6f4`, each in an 8-bit container.
    E3m2,
    E2m3,
    E2m1,
}

impl ElemType {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::Tf32 => "tf32",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::S8 => "s8",
            ElemType::U8 => "u8",
            ElemType::S4 => "s4",
            ElemType::U4 => "u4",
            ElemType::B1 => "b1",
            ElemType::S32 => "s32",
            ElemType::E4m3 => "e4m3",
            ElemType::E5m2 => "e5m2",
            ElemType::E3m2 => "e3m2",
            ElemType::E2m3 => "e2m3",
            ElemType::E2m1 => "e2m1",
        }
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            ElemType::B1 => 1,
            ElemType::S4 | ElemType::U4 => 4,
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1 => 8,
            ElemType::F16 | ElemType::Bf16 => 16,
            ElemType::Tf32 | ElemType::F32 | ElemType::S32 => 32,
            ElemType::F64 => 64,
        }
    }

    /// Elements per fragment register.
    pub(crate) fn per_reg(self) -> u32 {
        (32 / self.bits()).max(1)
    }

    /// The value of an element's bits.
    pub(crate) fn value(self, b: u64) -> f64 {
        match self {
            ElemType::F16 => f64::from(half::f16::from_bits(b as u16)),
            ElemType::Bf16 => f64::from(half::bf16::from_bits(b as u16)),
            // "The lower 13 bits are ignored": .tf32 is an f32 with a 10-bit fraction.
            ElemType::Tf32 => f64::from(f32::from_bits(b as u32 & !0x1FFF)),
            ElemType::F32 => f64::from(f32::from_bits(b as u32)),
            ElemType::F64 => f64::from_bits(b),
            ElemType::S8 => f64::from(b as u8 as i8),
            ElemType::U8 => f64::from(b as u8),
            ElemType::S4 => f64::from(((b as u8) << 4) as i8 >> 4),
            ElemType::U4 => f64::from(b as u8 & 15),
            ElemType::B1 => (b & 1) as f64,
            ElemType::S32 => f64::from(b as u32 as i32),
            ElemType::E4m3 => fp8(b as u8, 4, 3),
            ElemType::E5m2 => fp8(b as u8, 5, 2),
            // "The matrix element of type .e2m1 resides in central 4 bits of the 8-bit
            // container ... .e3m2 or .e2m3 ... in the lower 6 bits": the padding is ignored.
            ElemType::E3m2 => finite_float(b as u32 & 0x3F, 3, 2),
            ElemType::E2m3 => finite_float(b as u32 & 0x3F, 2, 3),
            ElemType::E2m1 => finite_float((b as u32 >> 2) & 0xF, 2, 1),
        }
    }

    /// Random element bits: floats of moderate range (no overflow of the accumulation),
    /// integers over all their values.
    pub(crate) fn random(self, rng: &mut Rng) -> u64 {
        let r = rng.next_u64();
        let small = |rng: &mut Rng| {
            let m = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            m * 2f64.powi(rng.below(8) as i32 - 4)
        };
        match self {
            ElemType::F16 => u64::from(half::f16::from_f64(small(rng)).to_bits()),
            ElemType::Bf16 => u64::from(half::bf16::from_f64(small(rng)).to_bits()),
            // Random low bits, which the instruction must ignore.
            ElemType::Tf32 => u64::from((small(rng) as f32).to_bits() ^ (r as u32 & 0x1FFF)),
            ElemType::F32 => u64::from((small(rng) as f32).to_bits()),
            ElemType::F64 => small(rng).to_bits(),
            ElemType::E4m3 | ElemType::E5m2 => {
                // Any byte but the NaNs (and, for .e5m2, infinities).
                let b = r as u8;
                let nan =
                    self.value(u64::from(b)).is_nan() || self.value(u64::from(b)).is_infinite();
                u64::from(if nan { b & 0xB7 } else { b })
            }
            // Every byte: all encodings are finite, and random padding must be ignored.
            ElemType::E3m2 | ElemType::E2m3 | ElemType::E2m1 => r & 0xFF,
            _ => r & ((1u64 << self.bits()) - 1),
        }
    }
}

/// The value of an 8-bit float: `.e4m3` (bias 7, S.1111.111 NaN, no infinities) or `.e5m2`
/// (IEEE binary16's top byte).
fn fp8(b: u8, e: u32, m: u32) -> f64 {
    let sign = if b >> 7 == 1 { -1.0 } else { 1.0 };
    let ex = (u32::from(b) >> m) & ((1 << e) - 1);
    let fr = u32::from(b) & ((1 << m) - 1);
    let bias = (1i32 << (e - 1)) - 1;
    if e == 4 && ex == 15 && fr == 7 {
        return f64::NAN;
    }
    if e == 5 && ex == 31 {
        return if fr == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let (sig, p) = if ex == 0 {
        (f64::from(fr), 1 - bias - m as i32)
    } else {
        (f64::from(fr | (1 << m)), ex as i32 - bias - m as i32)
    };
    sign * sig * 2f64.powi(p)
}

/// The value of a float of `1 + e + m` bits with no infinities or NaNs (the OCP MX formats
/// `.e3m2`, `.e2m3`, `.e2m1`: bias `2^(e-1) - 1`, exponent field 0 subnormal).
fn finite_float(b: u32, e: u32, m: u32) -> f64 {
    let sign = if (b >> (e + m)) & 1 == 1 { -1.0 } else { 1.0 };
    let ex = (b >> m) & ((1 << e) - 1);
    let fr = b & ((1 << m) - 1);
    let bias = (1i32 << (e - 1)) - 1;
    let (sig, p) = if ex == 0 {
        (f64::from(fr), 1 - bias - m as i32)
    } else {
        (f64::from(fr | (1 << m)), ex as i32 - bias - m as i32)
    };
    sign * sig * 2f64.powi(p)
}

/// Packs a lane's elements (in fragment order) into registers of `t`, as words.
pub(crate) fn pack(t: ElemType, elems: &[u64]) -> Vec<u32> {
    if t == ElemType::F64 {
        return elems
            .iter()
            .flat_map(|&e| [e as u32, (e >> 32) as u32])
            .collect();
    }
    let per = t.per_reg() as usize;
    let mask = if t.bits() == 32 {
        u64::MAX
    } else {
        (1u64 << t.bits()) - 1
    };
    elems
        .chunks(per)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u64, |w, (j, &e)| w | ((e & mask) << (j as u32 * t.bits())))
                as u32
        })
        .collect()
}

pub(crate) fn unpack(t: ElemType, words: &[u32], n: usize) -> Vec<u64> {
    if t == ElemType::F64 {
        return words
            .chunks(2)
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect();
    }
    let per = t.per_reg() as usize;
    (0..n)
        .map(|i| {
            let w = u64::from(words[i / per]);
            let sh = (i % per) as u32 * t.bits();
            if t.bits() == 32 {
                w
            } else {
                (w >> sh) & ((1u64 << t.bits()) - 1)
            }
        })
        .collect()
}

/// The little-endian words thread `t` wrote to `out` at `stride` bytes per thread.
pub(crate) fn thread_words(out: &[u8], t: u32, stride: u32) -> Vec<u32> {
    let at = (t * stride) as usize;
    out[at..at + stride as usize]
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
