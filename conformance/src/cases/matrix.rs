//! The warp-level matrix instructions: `mma.sync.aligned` for each shape and type, `ldmatrix`,
//! `stmatrix` and `movmatrix`, on one warp with random inputs. The reference model places every
//! fragment element by the formulas of the ISA's "Matrix Fragments for mma.mXnYkZ" tables and
//! the `ldmatrix`/`stmatrix`/`movmatrix` fragment figures, and computes D from the matrices.
//! Integer results are exact; floating-point ones are within the bound of
//! docs/decisions/0111-mma-accumulation-order.md of the exact value, the ISA leaving the order of
//! accumulation open.

use std::sync::Arc;

use super::kernel_case::rejected_line;
use crate::launch::{self, Arg, Launch};
use crate::values::Rng;
use crate::{Case, Outcome, launch_outcome};

mod block_scale;
mod quad_pair;
pub(super) mod sparse;

const FAMILY: &str = "warp matrix";
const HEADER: &str = ".version 8.7\n.target sm_90\n.address_size 64\n";

/// The PTX type of a matrix fragment's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ElemType {
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
    pub(super) fn name(self) -> &'static str {
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

    pub(super) fn bits(self) -> u32 {
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
    pub(super) fn per_reg(self) -> u32 {
        (32 / self.bits()).max(1)
    }

    /// The value of an element's bits.
    pub(super) fn value(self, b: u64) -> f64 {
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
    pub(super) fn random(self, rng: &mut Rng) -> u64 {
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

/// One `mma` form.
#[derive(Clone, Copy, Debug)]
struct Form {
    m: u32,
    n: u32,
    k: u32,
    d: ElemType,
    a: ElemType,
    b: ElemType,
    c: ElemType,
    satfinite: bool,
    /// `.xor` (false) or `.and` (true) for `.b1`.
    and: bool,
    /// `.kind::f8f6f4` (sm_120a).
    kind: bool,
}

impl Form {
    fn mnemonic(&self) -> String {
        let mut s = format!("mma.sync.aligned.m{}n{}k{}.row.col", self.m, self.n, self.k);
        if self.kind {
            s.push_str(".kind::f8f6f4");
        }
        if self.satfinite {
            s.push_str(".satfinite");
        }
        for t in [self.d, self.a, self.b, self.c] {
            s.push('.');
            s.push_str(t.name());
        }
        if self.a == ElemType::B1 {
            s.push_str(if self.and { ".and.popc" } else { ".xor.popc" });
        }
        s
    }

    /// Elements of each fragment per lane: A, B, C/D.
    fn elems(&self) -> (u32, u32, u32) {
        (
            self.m * self.k / 32,
            self.k * self.n / 32,
            self.m * self.n / 32,
        )
    }

    fn regs(&self, t: ElemType, elems: u32) -> u32 {
        if t == ElemType::F64 {
            elems
        } else {
            elems / t.per_reg()
        }
    }
}

/// `(row, col)` of element `i` of lane `lane`'s A fragment, by the ISA's formulas (groupID =
/// %laneid >> 2, threadID_in_group = %laneid % 4).
fn a_pos(f: &Form, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    match (f.a, f.m, f.k) {
        // .f16/.bf16 m16n8k16: row groupID for a0,a1,a4,a5, else groupID + 8; col
        // threadID_in_group * 2 + (i & 1), + 8 for i >= 4.
        (ElemType::F16 | ElemType::Bf16, 16, 16) => (
            if i < 2 || (4..6).contains(&i) {
                g
            } else {
                g + 8
            },
            t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 },
        ),
        // m16n8k8: row groupID for a0,a1, groupID + 8 for a2,a3; col threadID_in_group * 2 + (i & 1).
        (ElemType::F16 | ElemType::Bf16, 16, 8) => (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1)),
        // .tf32 and .f64: row groupID for even i, groupID + 8 for odd (m16); col
        // threadID_in_group + 4 * (i >> 1) (m16), threadID_in_group (m8n8k4).
        (ElemType::Tf32 | ElemType::F64, 16, _) => {
            (if i % 2 == 0 { g } else { g + 8 }, t + 4 * (i >> 1))
        }
        (ElemType::F64, 8, 4) => (g, t),
        // 8-bit: m8n8k16 row groupID, col threadID_in_group * 4 + i; m16n8k16 row groupID
        // for i < 4; m16n8k32 row groupID for i < 4 or 8 <= i < 12; col + 16 for i >= 8.
        (
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1,
            8,
            16,
        ) => (g, t * 4 + i),
        (
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1,
            16,
            16,
        ) => (if i < 4 { g } else { g + 8 }, t * 4 + (i & 3)),
        (
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1,
            16,
            32,
        ) => (
            if i < 4 || (8..12).contains(&i) {
                g
            } else {
                g + 8
            },
            t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 },
        ),
        // 4-bit: m8n8k32 col threadID_in_group * 8 + i; m16n8k32 row groupID for i < 8;
        // m16n8k64 row groupID for i < 8 or 16 <= i < 24, col + 32 for i >= 16.
        (ElemType::S4 | ElemType::U4, 8, 32) => (g, t * 8 + i),
        (ElemType::S4 | ElemType::U4, 16, 32) => (if i < 8 { g } else { g + 8 }, t * 8 + (i & 7)),
        (ElemType::S4 | ElemType::U4, 16, 64) => (
            if i < 8 || (16..24).contains(&i) {
                g
            } else {
                g + 8
            },
            t * 8 + (i & 7) + if i >= 16 { 32 } else { 0 },
        ),
        // 1-bit: m8n8k128 col threadID_in_group * 32 + i; m16n8k128 row groupID for i < 32;
        // m16n8k256 row groupID for i < 32 or 64 <= i < 96, col + 128 for i >= 64.
        (ElemType::B1, 8, 128) => (g, t * 32 + i),
        (ElemType::B1, 16, 128) => (if i < 32 { g } else { g + 8 }, t * 32 + (i & 31)),
        (ElemType::B1, 16, 256) => (
            if i < 32 || (64..96).contains(&i) {
                g
            } else {
                g + 8
            },
            t * 32 + (i & 31) + if i >= 64 { 128 } else { 0 },
        ),
        _ => (0, 0),
    }
}

/// `(row, col)` of element `i` of the B fragment.
fn b_pos(f: &Form, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    let row = match (f.b, f.k) {
        // .f16/.bf16: threadID_in_group * 2 + (i & 1), + 8 for i >= 2 (k16), and each further
        // register 8 rows on (the k32 of `mma.sp`).
        (ElemType::F16 | ElemType::Bf16, _) => t * 2 + (i & 1) + 8 * (i >> 1),
        // .tf32/.f64: threadID_in_group + 4 * i.
        (ElemType::Tf32 | ElemType::F64, _) => t + 4 * i,
        // 8-bit: threadID_in_group * 4 + (i & 3), + 16 for i >= 4 (k32), + 16 a register on.
        (
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1,
            _,
        ) => t * 4 + (i & 3) + 16 * (i >> 2),
        // 4-bit: threadID_in_group * 8 + (i & 7), + 32 for i >= 8 (k64), + 32 a register on.
        (ElemType::S4 | ElemType::U4, _) => t * 8 + (i & 7) + 32 * (i >> 3),
        // 1-bit: threadID_in_group * 32 + (i & 31), + 128 for i >= 32 (k256).
        (ElemType::B1, _) => t * 32 + (i & 31) + if i >= 32 { 128 } else { 0 },
        _ => 0,
    };
    (row, g)
}

/// `(row, col)` of element `i` of C and D: row groupID (+ 8 for c2, c3), col
/// threadID_in_group * 2 + (i & 1).
fn c_pos(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// Packs a lane's elements (in fragment order) into registers of `t`, as words.
pub(super) fn pack(t: ElemType, elems: &[u64]) -> Vec<u32> {
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

pub(super) fn unpack(t: ElemType, words: &[u32], n: usize) -> Vec<u64> {
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

/// The PTX register class and load/store type of a fragment of `t`.
/// The little-endian words thread `t` wrote to `out` at `stride` bytes per thread.
pub(super) fn thread_words(out: &[u8], t: u32, stride: u32) -> Vec<u32> {
    let at = (t * stride) as usize;
    out[at..at + stride as usize]
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn reg_class(t: ElemType) -> (&'static str, &'static str) {
    match t {
        ElemType::F64 => ("%fd", "f64"),
        ElemType::F32 => ("%f", "f32"),
        _ => ("%r", "b32"),
    }
}

/// A kernel in which lane `l` loads its A, B and C registers from `inp + l * in_stride`, runs
/// `mma`, and stores D at `out + l * out_stride`.
fn mma_kernel(f: &Form) -> (String, u32, u32) {
    let (ea, eb, ec) = f.elems();
    let inputs = [
        (f.a, f.regs(f.a, ea), true),
        (f.b, f.regs(f.b, eb), true),
        (f.c, f.regs(f.c, ec), true),
    ];
    fragment_kernel(&f.mnemonic(), &inputs, (f.d, f.regs(f.d, ec)), "")
}

/// A kernel in which lane `l` loads the registers of each of `inputs` (element type, registers,
/// written as a `{...}` vector or alone) in turn from `inp + l * in_stride`, runs `mnemonic` on
/// D and them (then `tail`), and stores D's registers at `out + l * out_stride`.
fn fragment_kernel(
    mnemonic: &str,
    inputs: &[(ElemType, u32, bool)],
    (d_ty, nd): (ElemType, u32),
    tail: &str,
) -> (String, u32, u32) {
    let mut body = String::new();
    let mut off = 0u32;
    let mut names: Vec<String> = Vec::new();
    let mut next = [0u32; 3];
    let idx = |class: &str| match class {
        "%fd" => 0,
        "%f" => 1,
        _ => 2,
    };
    for &(t, n, vector) in inputs {
        let (class, ty) = reg_class(t);
        let mut v = Vec::new();
        for _ in 0..n {
            let r = &mut next[idx(class)];
            let name = format!("{class}{r}");
            *r += 1;
            body.push_str(&format!("\tld.global.{ty} {name}, [%rd3+{off}];\n"));
            off += if t == ElemType::F64 { 8 } else { 4 };
            v.push(name);
        }
        names.push(if vector {
            format!("{{{}}}", v.join(", "))
        } else {
            v.join(", ")
        });
    }
    let in_stride = off;
    let (dclass, dty) = reg_class(d_ty);
    let mut dn = Vec::new();
    for _ in 0..nd {
        let r = &mut next[idx(dclass)];
        dn.push(format!("{dclass}{r}"));
        *r += 1;
    }
    body.push_str(&format!(
        "\t{mnemonic} {{{}}}, {}{tail};\n",
        dn.join(", "),
        names.join(", ")
    ));
    let dsize = if d_ty == ElemType::F64 { 8 } else { 4 };
    for (i, d) in dn.iter().enumerate() {
        body.push_str(&format!(
            "\tst.global.{dty} [%rd5+{}], {d};\n",
            i as u32 * dsize
        ));
    }
    let out_stride = nd * dsize;
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<{}>;\n\t.reg .f32 %f<{}>;\n\t.reg .f64 %fd<{}>;\n\t.reg .b64 %rd<8>;\n\
         \t.reg .b32 %lane;\n\
         \tld.param.u64 %rd1, [inp];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %lane, %laneid;\n\
         \tmul.wide.u32 %rd6, %lane, {in_stride};\n\tadd.s64 %rd3, %rd1, %rd6;\n\
         \tmul.wide.u32 %rd7, %lane, {out_stride};\n\tadd.s64 %rd5, %rd2, %rd7;\n\
         {body}\tret;\n}}\n",
        next[2] + 1,
        next[1] + 1,
        next[0] + 1,
    );
    (ptx, in_stride, out_stride)
}

/// The matrices of one test: A (M x K), B (K x N), C (M x N), as element bits.
struct Mats {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
}

fn random_mats(f: &Form, rng: &mut Rng) -> Mats {
    let (m, n, k) = (f.m as usize, f.n as usize, f.k as usize);
    Mats {
        a: (0..m * k).map(|_| f.a.random(rng)).collect(),
        b: (0..k * n).map(|_| f.b.random(rng)).collect(),
        c: (0..m * n)
            .map(|_| match f.c {
                // Accumulators of every size.
                ElemType::S32 => rng.next_u64() >> (rng.below(3) * 16) & 0xFFFF_FFFF,
                t => t.random(rng),
            })
            .collect(),
    }
}

/// The input words of every lane.
fn fragments(f: &Form, x: &Mats) -> Vec<u32> {
    let (ea, eb, ec) = f.elems();
    let k = f.k as usize;
    let n = f.n as usize;
    let mut words = Vec::new();
    for lane in 0..32 {
        let a: Vec<u64> = (0..ea)
            .map(|i| {
                let (r, c) = a_pos(f, lane, i);
                x.a[r as usize * k + c as usize]
            })
            .collect();
        let b: Vec<u64> = (0..eb)
            .map(|i| {
                let (r, c) = b_pos(f, lane, i);
                x.b[r as usize * n + c as usize]
            })
            .collect();
        let c: Vec<u64> = (0..ec)
            .map(|i| {
                let (r, col) = c_pos(lane, i);
                x.c[r as usize * n + col as usize]
            })
            .collect();
        words.extend(pack(f.a, &a));
        words.extend(pack(f.b, &b));
        words.extend(pack(f.c, &c));
    }
    words
}

/// Why element `(r, col)` of D, `got`, is wrong, if it is.
fn check_elem(f: &Form, x: &Mats, r: usize, col: usize, got: u64) -> Option<String> {
    let (n, k) = (f.n as usize, f.k as usize);
    if f.d == ElemType::S32 {
        let mut sum = i64::from(x.c[r * n + col] as u32 as i32);
        for kk in 0..k {
            let (a, b) = (x.a[r * k + kk], x.b[kk * n + col]);
            sum += if f.a == ElemType::B1 {
                i64::from(if f.and { a & b } else { a ^ b } as u8 & 1)
            } else {
                f.a.value(a) as i64 * f.b.value(b) as i64
            };
        }
        let want = if f.satfinite {
            sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        } else {
            sum as i32
        };
        return (got as u32 as i32 != want)
            .then(|| format!("expected {want}, got {}", got as u32 as i32));
    }
    // The exact sum (products of these formats are exact in f64; the sum is within a few f64
    // units, far inside the bound) and the sum of magnitudes that bounds the rounding.
    let c = f.c.value(x.c[r * n + col]);
    let mut exact = c;
    let mut mag = c.abs();
    for kk in 0..k {
        let p = f.a.value(x.a[r * k + kk]) * f.b.value(x.b[kk * n + col]);
        exact += p;
        mag += p.abs();
    }
    let (got_v, unit, tiny) = match f.d {
        ElemType::F64 => (f64::from_bits(got), 2f64.powi(-53), 2f64.powi(-1074)),
        ElemType::F16 => (
            f64::from(half::f16::from_bits(got as u16)),
            2f64.powi(-24),
            2f64.powi(-149),
        ),
        _ => (
            f64::from(f32::from_bits(got as u32)),
            2f64.powi(-24),
            2f64.powi(-149),
        ),
    };
    // A rounding of each product and of each of the K + 1 additions (a term passes through
    // at most K + 2 roundings), plus the final rounding to .f16.
    let mut bound = f64::from(f.k + 2) * unit * mag + f64::from(f.k + 2) * tiny;
    if f.d == ElemType::F16 {
        bound += (exact.abs() + bound) * 2f64.powi(-11) + 2f64.powi(-25);
    }
    ((got_v - exact).abs() > bound || got_v.is_nan())
        .then(|| format!("expected {exact} (within {bound:e}), got {got_v}"))
}

/// A launch of one warp running kernel `k` of `ptx`, whose parameters are the addresses of
/// `buffers` in order.
fn one_warp(name: &str, ptx: &str, buffers: Vec<Vec<u8>>) -> Launch {
    Launch {
        module_name: format!("{}.ptx", name.replace('/', "_")),
        ptx: Arc::from(ptx),
        kernel: "k".into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        args: (0..buffers.len()).map(Arg::Buffer).collect(),
        buffers,
    }
}

/// `ptx` for sm_120a when `kind` (`.kind::f8f6f4` needs it), else as written.
pub(super) fn for_kind(ptx: String, kind: bool) -> String {
    if kind {
        ptx.replacen(".target sm_90\n", ".target sm_120a\n", 1)
    } else {
        ptx
    }
}

fn mma_case(f: Form, seed: u64) -> Case {
    let (ptx, in_stride, out_stride) = mma_kernel(&f);
    let ptx = for_kind(ptx, f.kind);
    let mut rng = Rng::new(seed);
    let x = random_mats(&f, &mut rng);
    let words = fragments(&f, &x);
    debug_assert_eq!(words.len() as u32 * 4, in_stride * 32);
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let name = format!("matrix/{}/{seed}", f.mnemonic());
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    launched_case(name, ptx, launch, move |out| {
        let (_, _, ec) = f.elems();
        for lane in 0..32u32 {
            let words = thread_words(&out[1], lane, out_stride);
            let d = unpack(f.d, &words, ec as usize);
            for (i, &got) in d.iter().enumerate() {
                let (r, col) = c_pos(lane, i as u32);
                if let Some(why) = check_elem(&f, &x, r as usize, col as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{col}] (lane {lane}, d{i}): {why}"));
                }
            }
        }
        Outcome::Pass
    })
}

fn forms() -> Vec<Form> {
    let f = |m, n, k, d, a, b, c| Form {
        m,
        n,
        k,
        d,
        a,
        b,
        c,
        satfinite: false,
        and: false,
        kind: false,
    };
    let mut v = vec![
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::Bf16,
            ElemType::Bf16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::F16,
            ElemType::F16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
            ElemType::F16,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::Bf16,
            ElemType::Bf16,
            ElemType::F32,
        ),
        f(
            16,
            8,
            8,
            ElemType::F32,
            ElemType::Tf32,
            ElemType::Tf32,
            ElemType::F32,
        ),
        f(
            16,
            8,
            4,
            ElemType::F32,
            ElemType::Tf32,
            ElemType::Tf32,
            ElemType::F32,
        ),
        f(
            8,
            8,
            4,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            4,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            8,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            16,
            8,
            16,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
            ElemType::F64,
        ),
        f(
            8,
            8,
            16,
            ElemType::S32,
            ElemType::S8,
            ElemType::S8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            16,
            ElemType::S32,
            ElemType::S8,
            ElemType::U8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U8,
            ElemType::S8,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U8,
            ElemType::U8,
            ElemType::S32,
        ),
        f(
            8,
            8,
            32,
            ElemType::S32,
            ElemType::S4,
            ElemType::S4,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::S32,
            ElemType::U4,
            ElemType::S4,
            ElemType::S32,
        ),
        f(
            16,
            8,
            64,
            ElemType::S32,
            ElemType::S4,
            ElemType::U4,
            ElemType::S32,
        ),
        f(
            8,
            8,
            128,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            128,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            256,
            ElemType::S32,
            ElemType::B1,
            ElemType::B1,
            ElemType::S32,
        ),
        f(
            16,
            8,
            32,
            ElemType::F32,
            ElemType::E4m3,
            ElemType::E5m2,
            ElemType::F32,
        ),
        f(
            16,
            8,
            32,
            ElemType::F32,
            ElemType::E5m2,
            ElemType::E5m2,
            ElemType::F32,
        ),
        f(
            16,
            8,
            16,
            ElemType::F32,
            ElemType::E4m3,
            ElemType::E4m3,
            ElemType::F32,
        ),
    ];
    let sat: Vec<Form> = v
        .iter()
        .filter(|x| {
            matches!(
                x.a,
                ElemType::S8 | ElemType::U8 | ElemType::S4 | ElemType::U4
            )
        })
        .map(|x| Form {
            satfinite: true,
            ..*x
        })
        .collect();
    v.extend(sat);
    let and: Vec<Form> = v
        .iter()
        .filter(|x| x.a == ElemType::B1)
        .map(|x| Form { and: true, ..*x })
        .collect();
    v.extend(and);
    v
}

// Ldmatrix, stmatrix, movmatrix.

/// Byte offsets (16-byte aligned, distinct) of the 32 rows lanes give, within a 1 KiB array.
fn row_offsets(rng: &mut Rng) -> Vec<u32> {
    let mut slots: Vec<u32> = (0..64).collect();
    for i in (1..slots.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        slots.swap(i, j);
    }
    slots[..32].iter().map(|s| s * 16).collect()
}

/// Halfword `col` of row `row` of matrix `mi`, whose rows start at `offs[8 * mi + row]`.
fn half_at(mem: &[u8], offs: &[u32], mi: u32, row: u32, col: u32) -> u16 {
    let at = (offs[(8 * mi + row) as usize] + 2 * col) as usize;
    u16::from_le_bytes([mem[at], mem[at + 1]])
}

/// The fragment word of lane `lane` for matrix `mi`: elements (lane / 4, 2 * (lane % 4) + j)
/// of the matrix, of its transpose with `.trans`.
fn frag_word(mem: &[u8], offs: &[u32], mi: u32, lane: u32, trans: bool) -> u32 {
    let (r, c0) = (lane / 4, 2 * (lane % 4));
    let h = |j: u32| {
        if trans {
            half_at(mem, offs, mi, c0 + j, r)
        } else {
            half_at(mem, offs, mi, r, c0 + j)
        }
    };
    u32::from(h(0)) | u32::from(h(1)) << 16
}

fn ld_st_case(store: bool, num: u32, trans: bool, generic: bool, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let offs = row_offsets(&mut rng);
    let mem: Vec<u8> = (0..1024).map(|_| rng.next_u64() as u8).collect();
    let frags: Vec<u32> = (0..32 * 4).map(|_| rng.next_u64() as u32).collect();
    let regs: Vec<String> = (0..num).map(|i| format!("%r{}", 10 + i)).collect();
    let list = format!("{{{}}}", regs.join(", "));
    let shape = format!(
        "m8n8.x{num}{}{}.b16",
        if trans { ".trans" } else { "" },
        if generic { "" } else { ".shared" }
    );
    let op = if store { "stmatrix" } else { "ldmatrix" };
    let addr = if generic { "%rd8" } else { "%r5" };
    let mut body = String::new();
    if store {
        for (i, r) in regs.iter().enumerate() {
            body.push_str(&format!("\tld.global.b32 {r}, [%rd6+{}];\n", 4 * i));
        }
        body.push_str(&format!(
            "\tstmatrix.sync.aligned.{shape} [{addr}], {list};\n"
        ));
        body.push_str("\tbar.sync 0;\n");
        // Lane l copies bytes 32l..32l+32 of the array out.
        for w in 0..8 {
            body.push_str(&format!(
                "\tld.shared.b32 %r20, [%r6+{}];\n\tst.global.b32 [%rd9+{}], %r20;\n",
                4 * w,
                4 * w
            ));
        }
    } else {
        body.push_str(&format!(
            "\tldmatrix.sync.aligned.{shape} {list}, [{addr}];\n"
        ));
        for (i, r) in regs.iter().enumerate() {
            body.push_str(&format!("\tst.global.b32 [%rd7+{}], {r};\n", 4 * i));
        }
    }
    // Lane l: fills bytes 32l.. of the array from `mem`, reads its row offset.
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 mem, .param .u64 offs, .param .u64 frag, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<24>;\n\t.reg .b64 %rd<12>;\n\
         \t.shared .align 16 .b8 arr[1024];\n\
         \tld.param.u64 %rd1, [mem];\n\tld.param.u64 %rd2, [offs];\n\
         \tld.param.u64 %rd3, [frag];\n\tld.param.u64 %rd4, [out];\n\
         \tmov.u32 %r1, %laneid;\n\
         \tmov.u32 %r2, arr;\n\tshl.b32 %r3, %r1, 5;\n\tadd.u32 %r6, %r2, %r3;\n\
         \tcvt.u64.u32 %rd5, %r3;\n\tadd.s64 %rd5, %rd1, %rd5;\n\
         \tld.global.v4.b32 {{%r12, %r13, %r14, %r15}}, [%rd5];\n\
         \tst.shared.v4.b32 [%r6], {{%r12, %r13, %r14, %r15}};\n\
         \tld.global.v4.b32 {{%r12, %r13, %r14, %r15}}, [%rd5+16];\n\
         \tst.shared.v4.b32 [%r6+16], {{%r12, %r13, %r14, %r15}};\n\
         \tbar.sync 0;\n\
         \tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd5, %rd2, %rd5;\n\tld.global.u32 %r4, [%rd5];\n\
         \tadd.u32 %r5, %r2, %r4;\n\
         \tcvta.shared.u64 %rd8, arr;\n\tcvt.u64.u32 %rd10, %r4;\n\
         \tadd.s64 %rd8, %rd8, %rd10;\n\
         \tmul.wide.u32 %rd5, %r1, 16;\n\tadd.s64 %rd6, %rd3, %rd5;\n\tadd.s64 %rd7, %rd4, %rd5;\n\
         \tmul.wide.u32 %rd5, %r1, 32;\n\tadd.s64 %rd9, %rd4, %rd5;\n\
         {body}\tret;\n}}\n"
    );
    // The expected output buffer.
    let want: Vec<u8> = if store {
        let mut m = mem.clone();
        for lane in 0..32u32 {
            for mi in 0..num {
                let w = frags[(lane * 4 + mi) as usize];
                let (r, c0) = (lane / 4, 2 * (lane % 4));
                for j in 0..2u32 {
                    let (row, col) = if trans { (c0 + j, r) } else { (r, c0 + j) };
                    let at = (offs[(8 * mi + row) as usize] + 2 * col) as usize;
                    let h = (w >> (16 * j)) as u16;
                    m[at..at + 2].copy_from_slice(&h.to_le_bytes());
                }
            }
        }
        m
    } else {
        let mut out = vec![0xA5u8; 32 * 16];
        for lane in 0..32u32 {
            for mi in 0..num {
                let w = frag_word(&mem, &offs, mi, lane, trans);
                let at = (lane * 16 + mi * 4) as usize;
                out[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        out
    };
    let out_len = if store { 1024 } else { 32 * 16 };
    let name = format!("matrix/{op}.{shape}/{seed}");
    let words = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let launch = one_warp(
        &name,
        &ptx,
        vec![mem, words(&offs), words(&frags), vec![0xA5; out_len]],
    );
    bytes_case(name, ptx, launch, 3, want)
}

/// A case that runs `launch` and judges the final buffers with `check`.
fn launched_case(
    name: String,
    ptx: String,
    launch: Launch,
    check: impl Fn(&[Vec<u8>]) -> Outcome + Send + Sync + 'static,
) -> Case {
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| match launch::execute(ctx, &launch) {
            Ok(out) => check(&out),
            Err(e) => launch_outcome(e),
        }),
    }
}

/// A case that passes when buffer `n` holds `want` after the launch.
fn bytes_case(name: String, ptx: String, launch: Launch, n: usize, want: Vec<u8>) -> Case {
    launched_case(name, ptx, launch, move |out| {
        match (0..want.len()).find(|&i| out[n][i] != want[i]) {
            None => Outcome::Pass,
            Some(i) => {
                let at = i / 4 * 4;
                Outcome::Fail(format!(
                    "bytes {at}..{}: expected {:02x?}, got {:02x?}",
                    at + 4,
                    &want[at..at + 4],
                    &out[n][at..at + 4]
                ))
            }
        }
    })
}

/// `movmatrix`: lane l's word holds elements (l / 4, 2 * (l % 4) + j); afterwards, of the
/// transpose.
fn movmatrix_case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let a: Vec<u32> = (0..32).map(|_| rng.next_u64() as u32).collect();
    let elem = |r: u32, c: u32| (a[(4 * r + c / 2) as usize] >> (16 * (c % 2))) as u16;
    let want: Vec<u8> = (0..32u32)
        .flat_map(|l| {
            let (r, c0) = (l / 4, 2 * (l % 4));
            let w = u32::from(elem(c0, r)) | u32::from(elem(c0 + 1, r)) << 16;
            w.to_le_bytes()
        })
        .collect();
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<6>;\n\
         \tld.param.u64 %rd1, [inp];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r1, %laneid;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd5, %rd2, %rd3;\n\
         \tld.global.b32 %r2, [%rd4];\n\
         \tmovmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n\
         \tst.global.b32 [%rd5], %r3;\n\tret;\n}}\n"
    );
    let name = format!("matrix/movmatrix.sync.aligned.m8n8.trans.b16/{seed}");
    let launch = one_warp(
        &name,
        &ptx,
        vec![
            a.iter().flat_map(|x| x.to_le_bytes()).collect(),
            vec![0xA5; 128],
        ],
    );
    bytes_case(name, ptx, launch, 1, want)
}

/// One `wmma` test: shape, the memory layouts of A, B and D (`true` = `.row`), the
/// accumulator types, and the padding added to each leading dimension (0: the stride operand
/// is left out, so the default applies).
#[derive(Clone, Copy, Debug)]
struct WmmaForm {
    shape: (u32, u32, u32),
    /// The multiplicand types.
    ab: (ElemType, ElemType),
    satfinite: bool,
    a_row: bool,
    b_row: bool,
    d_row: bool,
    c: ElemType,
    d: ElemType,
    pad: u32,
}

/// Element `(r, c)` of an `rows x cols` matrix at index `r * stride + c` (`.row`) or
/// `c * stride + r` (`.col`), stride the leading dimension plus `pad`.
fn wmma_index(row_major: bool, (rows, cols): (u32, u32), pad: u32, (r, c): (u32, u32)) -> usize {
    if row_major {
        (r * (cols + pad) + c) as usize
    } else {
        (c * (rows + pad) + r) as usize
    }
}

fn wmma_case(w: WmmaForm, seed: u64) -> Case {
    let (m, n, k) = w.shape;
    let shape = format!("m{m}n{n}k{k}");
    let lay = |r: bool| if r { "row" } else { "col" };
    let stride = |r: bool, (rows, cols): (u32, u32)| {
        if w.pad == 0 {
            String::new()
        } else {
            format!(", {}", if r { cols } else { rows } + w.pad)
        }
    };
    let regs = |class: &str, from: u32, n: u32| {
        let v: Vec<String> = (from..from + n).map(|i| format!("{class}{i}")).collect();
        format!("{{{}}}", v.join(", "))
    };
    let acc_regs = |t: ElemType, from: u32| match t {
        ElemType::F32 => regs("%f", from, 8),
        ElemType::F16 => regs("%r", 16 + from, 4),
        _ => regs("%r", 16 + from, 8),
    };
    let (c_regs, d_regs) = (acc_regs(w.c, 0), acc_regs(w.d, 8));
    // The ISA's register counts: eight for .f16 A and B, else the elements over 32 lanes.
    let frag_regs = |t: ElemType, elems: u32| {
        if t == ElemType::F16 {
            8
        } else {
            elems / 32 / t.per_reg()
        }
    };
    let (ta, tb) = w.ab;
    let (a_regs, b_regs) = (
        regs("%r", 0, frag_regs(ta, m * k)),
        regs("%r", 8, frag_regs(tb, k * n)),
    );
    let types = if ta == ElemType::F16 {
        format!("{}.{}", w.d.name(), w.c.name())
    } else {
        format!("{}.{}.{}.{}", w.d.name(), ta.name(), tb.name(), w.c.name())
    };
    let sat = if w.satfinite { ".satfinite" } else { "" };
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
         \t.reg .b32 %r<40>;\n\t.reg .f32 %f<16>;\n\t.reg .b64 %rd<5>;\n\
         \tld.param.u64 %rd1, [pa];\n\tld.param.u64 %rd2, [pb];\n\
         \tld.param.u64 %rd3, [pc];\n\tld.param.u64 %rd4, [pd];\n\
         \twmma.load.a.sync.aligned.{}.{shape}.global.{} {a_regs}, [%rd1]{};\n\
         \twmma.load.b.sync.aligned.{}.{shape}.global.{} {b_regs}, [%rd2]{};\n\
         \twmma.load.c.sync.aligned.row.{shape}.global.{} {c_regs}, [%rd3]{};\n\
         \twmma.mma.sync.aligned.{}.{}.{shape}.{types}{sat} {d_regs}, {a_regs}, {b_regs}, {c_regs};\n\
         \twmma.store.d.sync.aligned.{}.{shape}.global.{} [%rd4], {d_regs}{};\n\tret;\n}}\n",
        lay(w.a_row),
        ta.name(),
        stride(w.a_row, (m, k)),
        lay(w.b_row),
        tb.name(),
        stride(w.b_row, (k, n)),
        w.c.name(),
        stride(true, (m, n)),
        lay(w.a_row),
        lay(w.b_row),
        lay(w.d_row),
        w.d.name(),
        stride(w.d_row, (m, n)),
    );
    let f = Form {
        m,
        n,
        k,
        d: w.d,
        a: ta,
        b: tb,
        c: w.c,
        satfinite: w.satfinite,
        and: false,
        kind: false,
    };
    let mut rng = Rng::new(seed);
    let x = random_mats(&f, &mut rng);
    // Lay the logical matrices out in memory; the padding holds garbage.
    let lay_out = |row: bool, dims: (u32, u32), elems: &[u64], t: ElemType| -> Vec<u8> {
        let (rows, cols) = dims;
        let len = if row {
            rows * (cols + w.pad)
        } else {
            cols * (rows + w.pad)
        } as usize;
        let size = (t.bits() / 8) as usize;
        let mut mem = vec![0x7Bu8; len * size];
        for r in 0..rows {
            for c in 0..cols {
                let at = wmma_index(row, dims, w.pad, (r, c)) * size;
                let e = elems[(r * cols + c) as usize];
                mem[at..at + size].copy_from_slice(&e.to_le_bytes()[..size]);
            }
        }
        mem
    };
    let a_mem = lay_out(w.a_row, (m, k), &x.a, ta);
    let b_mem = lay_out(w.b_row, (k, n), &x.b, tb);
    let c_mem = lay_out(true, (m, n), &x.c, w.c);
    let d_size = (w.d.bits() / 8) as usize;
    let d_len = lay_out(w.d_row, (m, n), &x.c, w.d).len();
    let name = format!(
        "matrix/wmma.{shape}.{}.{}.{types}{sat}.{}/pad{}/{seed}",
        lay(w.a_row),
        lay(w.b_row),
        lay(w.d_row),
        w.pad
    );
    let launch = one_warp(&name, &ptx, vec![a_mem, b_mem, c_mem, vec![0xA5; d_len]]);
    launched_case(name, ptx, launch, move |out| {
        for r in 0..m {
            for c in 0..n {
                let at = wmma_index(w.d_row, (m, n), w.pad, (r, c)) * d_size;
                let mut b = [0u8; 8];
                b[..d_size].copy_from_slice(&out[3][at..at + d_size]);
                let got = u64::from_le_bytes(b);
                if let Some(why) = check_elem(&f, &x, r as usize, c as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{c}]: {why}"));
                }
            }
        }
        Outcome::Pass
    })
}

fn wmma_forms() -> Vec<WmmaForm> {
    // (shape, A and B types, A row-major, B row-major, D row-major, C, D, padding)
    let (row, col) = (true, false);
    let h = (ElemType::F16, ElemType::F16);
    let bf = (ElemType::Bf16, ElemType::Bf16);
    let mut v: Vec<WmmaForm> = [
        (
            (16, 16, 16),
            h,
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (16, 16, 16),
            h,
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            8,
        ),
        (
            (16, 16, 16),
            h,
            col,
            row,
            col,
            ElemType::F32,
            ElemType::F32,
            8,
        ),
        (
            (16, 16, 16),
            h,
            row,
            col,
            row,
            ElemType::F16,
            ElemType::F16,
            0,
        ),
        (
            (16, 16, 16),
            h,
            row,
            row,
            row,
            ElemType::F16,
            ElemType::F32,
            16,
        ),
        (
            (16, 16, 16),
            h,
            col,
            col,
            row,
            ElemType::F32,
            ElemType::F16,
            0,
        ),
        (
            (32, 8, 16),
            h,
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (32, 8, 16),
            h,
            col,
            row,
            col,
            ElemType::F32,
            ElemType::F32,
            8,
        ),
        (
            (8, 32, 16),
            h,
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (8, 32, 16),
            h,
            row,
            col,
            col,
            ElemType::F16,
            ElemType::F16,
            8,
        ),
        (
            (16, 16, 16),
            bf,
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (32, 8, 16),
            bf,
            col,
            row,
            row,
            ElemType::F32,
            ElemType::F32,
            8,
        ),
        (
            (8, 32, 16),
            bf,
            row,
            row,
            col,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (16, 16, 8),
            (ElemType::Tf32, ElemType::Tf32),
            row,
            col,
            row,
            ElemType::F32,
            ElemType::F32,
            0,
        ),
        (
            (16, 16, 8),
            (ElemType::Tf32, ElemType::Tf32),
            col,
            row,
            col,
            ElemType::F32,
            ElemType::F32,
            4,
        ),
        (
            (16, 16, 16),
            (ElemType::S8, ElemType::S8),
            row,
            col,
            row,
            ElemType::S32,
            ElemType::S32,
            0,
        ),
        (
            (32, 8, 16),
            (ElemType::U8, ElemType::S8),
            col,
            row,
            row,
            ElemType::S32,
            ElemType::S32,
            16,
        ),
        (
            (8, 32, 16),
            (ElemType::U8, ElemType::U8),
            row,
            col,
            col,
            ElemType::S32,
            ElemType::S32,
            0,
        ),
    ]
    .into_iter()
    .map(|(shape, ab, a_row, b_row, d_row, c, d, pad)| WmmaForm {
        shape,
        ab,
        satfinite: false,
        a_row,
        b_row,
        d_row,
        c,
        d,
        pad,
    })
    .collect();
    let sat: Vec<WmmaForm> = v
        .iter()
        .filter(|w| w.c == ElemType::S32)
        .map(|w| WmmaForm {
            satfinite: true,
            ..*w
        })
        .collect();
    v.extend(sat);
    v
}

/// `.kind::f8f6f4` forms: every fp6/fp4 type and the fp8 ones beside them, both accumulator
/// types, mixed. Few, as each is a kernel lavapipe compiles.
fn kind_forms() -> Vec<Form> {
    let f = |d, a, b, c| Form {
        m: 16,
        n: 8,
        k: 32,
        d,
        a,
        b,
        c,
        satfinite: false,
        and: false,
        kind: true,
    };
    vec![
        f(ElemType::F32, ElemType::E2m1, ElemType::E3m2, ElemType::F32),
        f(ElemType::F16, ElemType::E2m3, ElemType::E4m3, ElemType::F16),
        f(ElemType::F32, ElemType::E5m2, ElemType::E2m1, ElemType::F16),
    ]
}

fn module(line: &str) -> String {
    format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<12>;\n\t.reg .f32 %f<12>;\n\
         \t.reg .b64 %rd<4>;\n\t.shared .align 16 .b8 s[256];\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // ".num = {.x1, .x2, .x4}" and one register per matrix.
        ("ldmatrix-count", "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [s];", "{%r1}"),
        ("ldmatrix-without-sync", "ldmatrix.aligned.m8n8.x1.shared.b16 {%r1}, [s];", "ldmatrix"),
        ("ldmatrix-b32", "ldmatrix.sync.aligned.m8n8.x1.shared.b32 {%r1}, [s];", "b32"),
        // "movmatrix ... .trans" is mandatory.
        ("movmatrix-without-trans", "movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", "movmatrix.sync.aligned.m8n8.b16"),
        // m16n8k16 .f16: A is four registers.
        (
            "mma-a-count",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%f5,%f6,%f7,%f8};",
            "{%r1,%r2}",
        ),
        // ".alayout = {.row}; .blayout = {.col}" beyond .m8n8k4.
        (
            "mma-col-row",
            "mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f8};",
            "mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32",
        ),
        // .bf16 accumulates into .f32 only.
        (
            "mma-bf16-into-f16",
            "mma.sync.aligned.m16n8k8.row.col.f16.bf16.bf16.f16 {%r1,%r2}, {%r3,%r4}, {%r5}, {%r6,%r7};",
            "bf16",
        ),
        // No .m16n8k4 for .f16.
        (
            "mma-f16-k4",
            "mma.sync.aligned.m16n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1}, {%r3}, {%f5,%f6,%f7,%f8};",
            "m16n8k4",
        ),
        // `mma.sp` .m16n8k32 .f16: "the sparsity selector must be either 0 (threads T0, T1)
        // or 1 (threads T2, T3)".
        (
            "mma-sp-selector",
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%f5,%f6,%f7,%f8}, %r9, 0x2;",
            "0x2",
        ),
        // "In case of shapes .m16n8k16, .m16n8k32 and .m16n8k64, .dtype must be the same as
        // .ctype".
        (
            "mma-sp-dtype-ctype",
            "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3,%r4}, {%r5,%r6}, %r9, 0;",
            "f16",
        ),
        // `mma.sp` has no .m16n8k8 for .f16.
        (
            "mma-sp-f16-k8",
            "mma.sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1}, {%r2}, {%f5,%f6,%f7,%f8}, %r9, 0;",
            "m16n8k8",
        ),
        // A sparse A is half the dense one: two registers for .m16n8k16 .bf16.
        (
            "mma-sp-a-count",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8}, %r9, 0;",
            "{%r1,%r2,%r3,%r4}",
        ),
        // wmma .f16 A fragments are eight registers.
        (
            "wmma-a-count",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4}, [%rd1];",
            "{%r1,%r2,%r3,%r4}",
        ),
        // .tf32 wmma has the shape .m16n16k8 only.
        (
            "wmma-tf32-k16",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32 {%r1,%r2,%r3,%r4}, [%rd1];",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32",
        ),
        // wmma.store writes D only.
        (
            "wmma-store-a",
            "wmma.store.a.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};",
            "wmma.store.a.sync.aligned.row.m16n16k16.global.f32",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module, form))
    .chain(kind_rejections())
    .collect()
}

fn module_sm120(line: &str) -> String {
    for_kind(module(line), true)
}

fn kind_rejections() -> Vec<Case> {
    let sm120 = [
        // The fp6 and fp4 types exist only in ".kind::f8f6f4" forms.
        (
            "mma-e2m1-without-kind",
            "mma.sync.aligned.m16n8k32.row.col.f32.e2m1.e2m1.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
            "e2m1",
        ),
        // ".shape = {.m16n8k32}" for ".kind::f8f6f4".
        (
            "mma-kind-k16",
            "mma.sync.aligned.m16n8k16.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f8};",
            "kind::f8f6f4",
        ),
        // ".f8f6f4type = {.e4m3, .e5m2, .e3m2, .e2m3, .e2m1}".
        (
            "mma-kind-s8",
            "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%r9,%r10}, {%r1,%r2,%r3,%r4};",
            "kind::f8f6f4",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module_sm120, form));
    // "requires sm_120a": refused for the sm_90 of the other cases.
    let sm90 = std::iter::once((
        "mma-kind-sm90",
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
        "kind::f8f6f4",
    ))
    .map(|form| rejected_line(FAMILY, "matrix/rejected", module, form));
    sm120.chain(sm90).collect()
}

pub fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    for (i, f) in forms().into_iter().enumerate() {
        for s in 0..2 {
            v.push(mma_case(f, 1000 + 2 * i as u64 + s));
        }
    }
    for store in [false, true] {
        for num in [1, 2, 4] {
            for trans in [false, true] {
                v.push(ld_st_case(
                    store,
                    num,
                    trans,
                    false,
                    u64::from(num) * 7 + u64::from(trans),
                ));
            }
        }
        v.push(ld_st_case(store, 4, true, true, 99));
        v.push(ld_st_case(store, 2, false, true, 98));
    }
    for seed in 0..3 {
        v.push(movmatrix_case(seed));
    }
    for (i, w) in wmma_forms().into_iter().enumerate() {
        v.push(wmma_case(w, 500 + i as u64));
    }
    v.extend(rejections());
    v.extend(quad_pair::cases());
    v.extend(sparse::cases());
    for (i, f) in kind_forms().into_iter().enumerate() {
        v.push(mma_case(f, 1200 + i as u64));
    }
    v.extend(block_scale::cases());
    v
}

#[cfg(test)]
mod tests {
    use ptxvk_translator::{DeviceProfile, Program, SourceFile};

    /// The family runs on lavapipe's emulated warps; under the other strategies (native
    /// 32-lane subgroups, partitions of 64-lane ones) every kernel must still translate to
    /// SPIR-V that validates.
    #[test]
    fn every_kernel_validates_under_every_profile() {
        let kernels: Vec<_> = super::cases()
            .into_iter()
            .filter(|c| !c.name.starts_with("matrix/rejected"))
            .collect();
        assert!(kernels.len() > 90);
        for name in DeviceProfile::names() {
            let Some(p) = DeviceProfile::named(name) else {
                continue;
            };
            let mut valid = 0;
            for c in &kernels {
                let program = Program::parse(SourceFile::new("case.ptx", c.ptx.clone()))
                    .unwrap_or_else(|d| panic!("{}: {d}", c.name));
                match program.translate_kernel("k", &p) {
                    Ok(k) => {
                        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                            panic!("{} under {name}: invalid SPIR-V: {e}", c.name);
                        }
                        valid += 1;
                    }
                    // A device without 64-bit floats refuses the .f64 forms, naming them.
                    Err(d) => assert!(
                        d.items.iter().all(|i| i.message.contains("lacks")),
                        "{} under {name}: {d}",
                        c.name
                    ),
                }
            }
            assert!(valid >= 80, "only {valid} kernels translated under {name}");
        }
    }
}
