//! The placement of `mma` fragment elements by the ISA's formulas, the kernel that loads and
//! stores fragments, and the reference check of one element of D.

use super::HEADER;
use super::elem::{ElemType, pack};
use crate::values::Rng;

/// One `mma` form.
#[derive(Clone, Copy, Debug)]
pub(super) struct Form {
    pub(super) m: u32,
    pub(super) n: u32,
    pub(super) k: u32,
    pub(super) d: ElemType,
    pub(super) a: ElemType,
    pub(super) b: ElemType,
    pub(super) c: ElemType,
    pub(super) satfinite: bool,
    /// `.xor` (false) or `.and` (true) for `.b1`.
    pub(super) and: bool,
    /// `.kind::f8f6f4` (sm_120a).
    pub(super) kind: bool,
}

impl Form {
    pub(super) fn mnemonic(&self) -> String {
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
    pub(super) fn elems(&self) -> (u32, u32, u32) {
        (
            self.m * self.k / 32,
            self.k * self.n / 32,
            self.m * self.n / 32,
        )
    }

    pub(super) fn regs(&self, t: ElemType, elems: u32) -> u32 {
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
pub(super) fn b_pos(f: &Form, lane: u32, i: u32) -> (u32, u32) {
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
pub(super) fn c_pos(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
}

/// The PTX register class and load/store type of a fragment of `t`.
fn reg_class(t: ElemType) -> (&'static str, &'static str) {
    match t {
        ElemType::F64 => ("%fd", "f64"),
        ElemType::F32 => ("%f", "f32"),
        _ => ("%r", "b32"),
    }
}

/// A kernel in which lane `l` loads the registers of each of `inputs` (element type, registers,
/// written as a `{...}` vector or alone) in turn from `inp + l * in_stride`, runs `mnemonic` on
/// D and them (then `tail`), and stores D's registers at `out + l * out_stride`.
pub(super) fn fragment_kernel(
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
pub(super) struct Mats {
    pub(super) a: Vec<u64>,
    pub(super) b: Vec<u64>,
    pub(super) c: Vec<u64>,
}

pub(super) fn random_mats(f: &Form, rng: &mut Rng) -> Mats {
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
pub(super) fn fragments(f: &Form, x: &Mats) -> Vec<u32> {
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
pub(super) fn check_elem(f: &Form, x: &Mats, r: usize, col: usize, got: u64) -> Option<String> {
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
