//! A reference model of the `.tile` mode of the tensor copies, written from the PTX ISA
//! ("Tensor": bounding box, traversal stride, out-of-bounds access, swizzling modes) and CUDA's
//! `cuTensorMapEncodeTiled` documentation, without the translator's tensor-map code:
//!
//! - the box starts at the coordinates and holds ceil(boxDim\[i\] / elementStrides\[i\])
//!   elements of dimension i, every elementStrides\[i\]-th one (the stride of dimension 0 is
//!   ignored without interleave);
//! - in shared memory the box is dense, dimension 0 fastest;
//! - a load reads elements outside the tensor as zero, or as a NaN when the map asks for
//!   `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA` (which NaN is not documented); a store
//!   writes nothing outside the tensor;
//! - with a swizzle of span S (32, 64 or 128 bytes) the 16-byte chunk c of 128-byte shared row r
//!   is stored at chunk c XOR (r mod S/16) of the same row (the box starts at a multiple of the
//!   pattern's repeat, as the ISA requires of its address);
//! - with the 128-byte swizzle of 32- or 64-byte atoms (`CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`,
//!   `_ATOM_64B`: "swizzle 32B (64B) chunks within 128B span") atom a of 128-byte shared row r
//!   is stored at atom a XOR (r mod 4), or a XOR (r mod 2), of the same row.

/// `CUtensorMapDataType` values the cases use.
pub const U8: u32 = 0;
pub const U16: u32 = 1;
pub const U32: u32 = 2;
pub const S32: u32 = 3;
pub const U64: u32 = 4;
pub const S64: u32 = 5;
pub const F16: u32 = 6;
pub const F32: u32 = 7;
pub const F64: u32 = 8;
pub const BF16: u32 = 9;

/// One tensor, its box and where the box starts; dimension 0 first.
#[derive(Clone, Debug)]
pub struct Spec {
    pub data_type: u32,
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (`globalStrides`).
    pub strides: Vec<u64>,
    pub box_dims: Vec<u32>,
    pub element_strides: Vec<u32>,
    /// `CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B, 4 128B of 32-byte atoms, 6 128B of
    /// 64-byte atoms.
    pub swizzle: u32,
    pub nan_fill: bool,
    pub coords: Vec<i32>,
}

/// What a load leaves in shared memory: the bytes, and the byte offsets of the elements
/// that must hold a NaN (whose bytes in `bytes` are then not compared).
pub struct Loaded {
    pub bytes: Vec<u8>,
    pub nans: Vec<usize>,
}

impl Spec {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    pub fn esize(&self) -> usize {
        match self.data_type {
            U8 => 1,
            U16 | F16 | BF16 => 2,
            U64 | S64 | F64 => 8,
            _ => 4,
        }
    }

    /// Elements of dimension `i` in the box.
    pub fn count(&self, i: usize) -> usize {
        let stride = if i == 0 { 1 } else { self.element_strides[i] };
        self.box_dims[i].div_ceil(stride) as usize
    }

    pub fn box_bytes(&self) -> usize {
        (0..self.rank()).map(|i| self.count(i)).product::<usize>() * self.esize()
    }

    /// Bytes from the tensor's address to the end of its last element.
    pub fn tensor_bytes(&self) -> usize {
        let mut end = self.esize() as u64;
        for i in 0..self.rank() {
            end += (self.dims[i] - 1) * self.byte_stride(i);
        }
        end as usize
    }

    fn byte_stride(&self, i: usize) -> u64 {
        if i == 0 {
            self.esize() as u64
        } else {
            self.strides[i - 1]
        }
    }

    /// The tensor's byte offset of the box element with these per-dimension indices, `None`
    /// outside the tensor.
    fn global_offset(&self, index: &[usize]) -> Option<usize> {
        let mut off = 0u64;
        for (i, &k) in index.iter().enumerate() {
            let stride = if i == 0 { 1 } else { self.element_strides[i] };
            let c = i64::from(self.coords[i]) + (k as i64) * i64::from(stride);
            let c = u64::try_from(c).ok().filter(|&c| c < self.dims[i])?;
            off += c * self.byte_stride(i);
        }
        Some(off as usize)
    }

    /// The box's elements in shared-memory order: (dense byte offset, tensor offset).
    fn elements(&self) -> Vec<(usize, Option<usize>)> {
        let mut index = vec![0usize; self.rank()];
        let total = (0..self.rank()).map(|i| self.count(i)).product::<usize>();
        let mut v = Vec::with_capacity(total);
        for n in 0..total {
            v.push((n * self.esize(), self.global_offset(&index)));
            // Dimension 0 fastest, carrying into the next.
            for (i, k) in index.iter_mut().enumerate() {
                *k += 1;
                if *k < self.count(i) {
                    break;
                }
                *k = 0;
            }
        }
        v
    }

    /// Where dense byte `off` of the box lies in shared memory.
    pub fn shared(&self, off: usize) -> usize {
        if self.swizzle == 0 {
            return off;
        }
        if let Some(atom) = match self.swizzle {
            4 => Some(32),
            6 => Some(64),
            _ => None,
        } {
            let (row, a, byte) = (off / 128, off % 128 / atom, off % atom);
            return row * 128 + (a ^ (row % (128 / atom))) * atom + byte;
        }
        let rows = 1usize << self.swizzle;
        let (row, chunk, byte) = (off / 128, off / 16 % 8, off % 16);
        row * 128 + (chunk ^ (row % rows)) * 16 + byte
    }

    /// Shared memory after a load from `tensor`.
    pub fn load(&self, tensor: &[u8]) -> Loaded {
        let e = self.esize();
        let mut bytes = vec![0u8; self.box_bytes()];
        let mut nans = Vec::new();
        for (dense, at) in self.elements() {
            let to = self.shared(dense);
            match at {
                Some(a) => bytes[to..to + e].copy_from_slice(&tensor[a..a + e]),
                None if self.nan_fill => nans.push(to),
                None => {}
            }
        }
        Loaded { bytes, nans }
    }

    /// The tensor after a store of `shared` into `tensor`.
    pub fn store(&self, tensor: &[u8], shared: &[u8]) -> Vec<u8> {
        let e = self.esize();
        let mut out = tensor.to_vec();
        for (dense, at) in self.elements() {
            if let Some(a) = at {
                let from = self.shared(dense);
                out[a..a + e].copy_from_slice(&shared[from..from + e]);
            }
        }
        out
    }

    /// Whether the element bytes `b` are a NaN of the map's float type.
    pub fn is_nan(&self, b: &[u8]) -> bool {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        let v = u64::from_le_bytes(w);
        let (exp, mant) = match self.data_type {
            F16 => (0x7c00, 0x03ff),
            BF16 => (0x7f80, 0x007f),
            F64 => (0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
            _ => (0x7f80_0000, 0x007f_ffff),
        };
        v & exp == exp && v & mant != 0
    }
}

/// The operators of `cp.reduce.async.bulk.tensor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Red {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
}

impl Red {
    pub const ALL: [Red; 8] = [
        Red::Add,
        Red::Min,
        Red::Max,
        Red::Inc,
        Red::Dec,
        Red::And,
        Red::Or,
        Red::Xor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Red::Add => "add",
            Red::Min => "min",
            Red::Max => "max",
            Red::Inc => "inc",
            Red::Dec => "dec",
            Red::And => "and",
            Red::Or => "or",
            Red::Xor => "xor",
        }
    }

    /// The element types the ISA's table of valid `.redOp` and element-type combinations
    /// lists for the operator.
    pub fn types(self) -> &'static [u32] {
        match self {
            Red::Add => &[U32, S32, U64, F32, F16, BF16],
            Red::Min | Red::Max => &[U32, S32, U64, S64, F16, BF16],
            Red::Inc | Red::Dec => &[U32],
            Red::And | Red::Or | Red::Xor => &[U32, S32, U64, S64],
        }
    }
}

/// `old op src` on elements of `data_type` (their bits, zero-extended): integer arithmetic
/// wraps; float adds (of f64 too, for `cp.reduce.async.bulk`) round to nearest even once;
/// half-precision min and max order -0 below +0 (the inputs hold no NaN); `inc` is
/// `old >= src ? 0 : old + 1` and `dec` `old == 0 || old > src ? src : old - 1`, unsigned.
pub fn reduce_element(data_type: u32, op: Red, old: u64, src: u64) -> u64 {
    let float = matches!(data_type, F16 | BF16 | F32 | F64);
    let value = |b: u64| -> f64 {
        match data_type {
            F16 => half::f16::from_bits(b as u16).to_f64(),
            BF16 => half::bf16::from_bits(b as u16).to_f64(),
            F64 => f64::from_bits(b),
            _ => f64::from(f32::from_bits(b as u32)),
        }
    };
    // Exact in f64 for the inputs the cases use, so one rounding to the element type.
    let bits = |v: f64| -> u64 {
        match data_type {
            F16 => u64::from(half::f16::from_f64(v).to_bits()),
            BF16 => u64::from(half::bf16::from_f64(v).to_bits()),
            F64 => v.to_bits(),
            _ => u64::from((v as f32).to_bits()),
        }
    };
    let (width, signed) = match data_type {
        U32 => (32, false),
        S32 => (32, true),
        S64 => (64, true),
        _ => (64, false),
    };
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let int = |b: u64| -> i128 {
        if signed {
            i128::from(((b << (64 - width)) as i64) >> (64 - width))
        } else {
            i128::from(b)
        }
    };
    let pick = |max: bool| -> u64 {
        let old_first = if float {
            let (x, y) = (value(old), value(src));
            // -0 below +0: the signs decide between equal values.
            if x == y {
                (x.is_sign_negative() && !y.is_sign_negative()) != max || old == src
            } else {
                (x < y) != max
            }
        } else {
            let (x, y) = (int(old), int(src));
            x == y || (x < y) != max
        };
        if old_first { old } else { src }
    };
    match op {
        Red::Add if float => bits(value(old) + value(src)),
        Red::Add => old.wrapping_add(src) & mask,
        Red::Min => pick(false),
        Red::Max => pick(true),
        Red::Inc => {
            if old >= src {
                0
            } else {
                (old + 1) & mask
            }
        }
        Red::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        Red::And => old & src,
        Red::Or => old | src,
        Red::Xor => old ^ src,
    }
}

impl Spec {
    /// The tensor after `cp.reduce.async.bulk.tensor` of `shared` into `tensor` with `op`.
    pub fn reduce(&self, tensor: &[u8], shared: &[u8], op: Red) -> Vec<u8> {
        let e = self.esize();
        let read = |b: &[u8]| {
            let mut w = [0u8; 8];
            w[..e].copy_from_slice(b);
            u64::from_le_bytes(w)
        };
        let mut out = tensor.to_vec();
        for (dense, at) in self.elements() {
            if let Some(a) = at {
                let from = self.shared(dense);
                let v = reduce_element(
                    self.data_type,
                    op,
                    read(&out[a..a + e]),
                    read(&shared[from..from + e]),
                );
                out[a..a + e].copy_from_slice(&v.to_le_bytes()[..e]);
            }
        }
        out
    }
}

/// `n` bytes of elements of `data_type` for the reductions: finite floats in [-8, 8) with few
/// significant bits (so sums are exact before their one rounding) and some signed zeros,
/// integers over their whole range, or below 6 for `inc` and `dec` (to reach their limits).
pub fn reduce_inputs(data_type: u32, op: Red, n: usize, seed: u32) -> Vec<u8> {
    let e = match data_type {
        F16 | BF16 => 2,
        U64 | S64 | F64 => 8,
        _ => 4,
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..(n / e) as u32 {
        let h = u64::from((i ^ seed).wrapping_mul(0x9e37_79b1))
            | u64::from((i.wrapping_add(seed)).wrapping_mul(0x85eb_ca6b)) << 32;
        let v = match data_type {
            F16 | BF16 | F32 | F64 => {
                let x = match h % 16 {
                    0 => 0.0,
                    1 => -0.0,
                    k => ((h >> 8) % 256) as f64 / 16.0 - 8.0 + k as f64 / 64.0,
                };
                match data_type {
                    F16 => u64::from(half::f16::from_f64(x).to_bits()),
                    BF16 => u64::from(half::bf16::from_f64(x).to_bits()),
                    F64 => x.to_bits(),
                    _ => u64::from((x as f32).to_bits()),
                }
            }
            _ if matches!(op, Red::Inc | Red::Dec) => h % 6,
            _ => h,
        };
        out.extend_from_slice(&v.to_le_bytes()[..e]);
    }
    out
}

/// Bytes with no period short enough to hide a misplaced row, none zero.
pub fn pattern(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32)
        .map(|i| (((i ^ seed).wrapping_mul(0x9e37_79b1) >> 24) as u8) | 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dims: &[u64], strides: &[u64], boxes: &[u32], coords: &[i32]) -> Spec {
        Spec {
            data_type: U32,
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            box_dims: boxes.to_vec(),
            element_strides: vec![1; dims.len()],
            swizzle: 0,
            nan_fill: false,
            coords: coords.to_vec(),
        }
    }

    /// A 2-d box over the top-left corner, worked by hand: rows -1 and 0, columns -2..2.
    #[test]
    fn corner_box_by_hand() {
        let s = spec(&[4, 3], &[16], &[4, 2], &[-2, -1]);
        let tensor: Vec<u8> = (0..48).collect();
        let got = s.load(&tensor).bytes;
        let mut want = vec![0u8; 32];
        // Row 0 of the tensor is box row 1; its columns 0 and 1 are box columns 2 and 3.
        want[24..32].copy_from_slice(&tensor[0..8]);
        assert_eq!(got, want);
    }

    /// The 128-byte swizzle of the CUDA documentation's figure: in row 1, chunk 0 holds what
    /// was chunk 1; in row 7, chunk 7 holds chunk 0.
    #[test]
    fn swizzle_128_rows() {
        let mut s = spec(&[32, 8], &[128], &[32, 8], &[0, 0]);
        s.swizzle = 3;
        assert_eq!(s.shared(128 + 16), 128);
        assert_eq!(s.shared(7 * 128), 7 * 128 + 7 * 16);
        s.swizzle = 1;
        assert_eq!(s.shared(3 * 128 + 5), 3 * 128 + 16 + 5);
    }

    /// Element strides: every second row from row 1, ceil(5/2) = 3 of them.
    #[test]
    fn element_strides_skip_rows() {
        let mut s = spec(&[4, 8], &[16], &[4, 5], &[0, 1]);
        s.element_strides = vec![1, 2];
        let tensor: Vec<u8> = (0..128).collect();
        let got = s.load(&tensor).bytes;
        assert_eq!(got.len(), 48);
        assert_eq!(got[0..16], tensor[16..32]);
        assert_eq!(got[16..32], tensor[48..64]);
        assert_eq!(got[32..48], tensor[80..96]);
    }
}
