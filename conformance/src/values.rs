//! Input values: the edges of each type and seeded random values.

use ptxvk_translator::ScalarType;

/// Values at the edges of `ty` (as raw bits): zero, one, minus one, extremes, powers of two;
/// for floats signed zeros, infinities, NaNs, subnormals and the normal range's ends.
pub fn edges(ty: ScalarType) -> Vec<u64> {
    use ScalarType::*;
    let bits = ty.bits();
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut v: Vec<u64> = match ty {
        Pred => vec![0, 1],
        F32 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.0,
            3.0,
            -2.5,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::EPSILON,
            1.0 + f32::EPSILON,
            16777216.0,
            2147483648.0,
            4294967296.0,
            -2147483904.0,
            0.49999997,
            2.5,
            3.5,
            1e-30,
            123456.79,
        ]
        .iter()
        .map(|f| u64::from(f.to_bits()))
        .chain([
            0x7fc0_0000,
            0xffc0_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x7f80_0001,
        ])
        .collect(),
        F64 => [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.0,
            -2.5,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::EPSILON,
            1.0 + f64::EPSILON,
            9007199254740992.0,
            9.223372036854776e18,
            -9.223372036854776e18,
            1.8446744073709552e19,
            2147483648.0,
            2.5,
            1e-300,
            3.0e38,
            1.0e-40,
        ]
        .iter()
        .map(|f| f.to_bits())
        .chain([
            0x7ff8_0000_0000_0000,
            0x0000_0000_0000_0001,
            0x8000_0000_0000_0001,
        ])
        .collect(),
        F16 | Bf16 => {
            let list: &[u16] = if ty == F16 {
                &[
                    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x4000, 0x0001, 0x8001, 0x0400, 0x7bff,
                    0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x5640,
                ]
            } else {
                &[
                    0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x4000, 0x0001, 0x0080, 0x7f7f, 0xff7f,
                    0x7f80, 0xff80, 0x7fc0, 0x3eab, 0x4349,
                ]
            };
            list.iter().map(|&x| u64::from(x)).collect()
        }
        _ => {
            let signed_min = 1u64 << (bits - 1);
            vec![
                0,
                1,
                2,
                3,
                7,
                mask,           // -1 / MAX unsigned
                mask - 1,       // -2
                signed_min,     // MIN signed
                signed_min - 1, // MAX signed
                signed_min + 1,
                mask >> 1 >> 1,
                1 << (bits / 2),
                (1 << (bits / 2)) - 1,
                0x5555_5555_5555_5555 & mask,
                0xAAAA_AAAA_AAAA_AAAA & mask,
                bits as u64,
                bits as u64 - 1,
                bits as u64 + 1,
            ]
        }
    };
    for x in v.iter_mut() {
        *x &= mask;
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A random value of `ty`: integers uniform over their bits (half the time small), floats with
/// a random sign, exponent (mostly near 1) and mantissa.
pub fn random(ty: ScalarType, rng: &mut Rng) -> u64 {
    use ScalarType::*;
    let r = rng.next_u64();
    match ty {
        Pred => r & 1,
        F32 => {
            let f = ((r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
                * 2f64.powi((rng.below(40) as i32) - 20);
            u64::from((f as f32).to_bits())
        }
        F64 => {
            let f = ((r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
                * 2f64.powi((rng.below(80) as i32) - 40);
            f.to_bits()
        }
        F16 => u64::from(
            half::f16::from_f64(((r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * 64.0)
                .to_bits(),
        ),
        Bf16 => u64::from(
            half::bf16::from_f64(((r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * 64.0)
                .to_bits(),
        ),
        t => {
            let bits = t.bits();
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            if rng.below(2) == 0 {
                r & 0xffff & mask
            } else {
                r & mask
            }
        }
    }
}

/// Input rows for an instruction with inputs of types `tys`: every combination of edge values
/// (capped at `max_edges` rows, taken evenly), then `random` seeded random rows.
pub fn rows(tys: &[ScalarType], max_edges: usize, random_rows: usize, seed: u64) -> Vec<Vec<u64>> {
    let lists: Vec<Vec<u64>> = tys.iter().map(|t| edges(*t)).collect();
    let total: usize = lists.iter().map(Vec::len).product();
    let step = total.div_ceil(max_edges.max(1)).max(1);
    let mut out = Vec::new();
    let mut k = 0;
    while k < total {
        let mut idx = k;
        let row: Vec<u64> = lists
            .iter()
            .map(|l| {
                let v = l[idx % l.len()];
                idx /= l.len();
                v
            })
            .collect();
        out.push(row);
        k += step;
    }
    let mut rng = Rng::new(seed);
    for _ in 0..random_rows {
        out.push(tys.iter().map(|t| random(*t, &mut rng)).collect());
    }
    out
}
