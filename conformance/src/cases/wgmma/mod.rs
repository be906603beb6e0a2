//! `wgmma.mma_async` on one warpgroup (128 threads) with random inputs: A from a shared-memory
//! matrix descriptor or from registers, B from a descriptor, every swizzling mode, K- and
//! MN-major layouts, `scale-d`, negated multiplicands, with `wgmma.fence`, `commit_group` and
//! `wait_group` around it.
//!
//! The reference model places each element as the ISA's "Shared Memory Matrix Layout" and
//! "Matrix Descriptor Format" sections do: a matrix is made of 8-row atoms of R-byte rows (R the
//! swizzle width, 16 bytes without swizzling, where the atom is the 8x16-byte core matrix); the
//! leading-dimension byte offset steps between atoms along the leading dimension, the
//! stride-dimension byte offset between groups of 8 rows (for MN-major without swizzling the
//! two trade places); the swizzle permutes the 16-byte chunks of each 128-byte line of shared
//! memory by XOR with the line's index in its 1024-byte period. Register fragments and D follow
//! the "Register Fragments" figures: warp w holds rows 16w..16w+15 in `mma.m16n8`'s layout.
//! Integer results are exact; floating-point ones within the bound of
//! docs/decisions/0111-mma-accumulation-order.md.
//!
//! `wgmma.mma_async.sp` ("Sparse matrix storage"): A is structured sparse, its operand (in
//! shared memory or registers) the packed 64 x K/2 matrix of each row's non-zero elements in
//! the dense layouts of that size, and each warp's metadata that of `mma.sp` for its 16 rows
//! (`matrix/sparse.rs` builds the rows), held by the threads `sp-sel` names; the others get
//! random metadata.

mod forms;

pub(super) use forms::cases;

use std::sync::Arc;

use super::matrix::sparse::{chunk_width, sparse_rows};
use super::matrix::{ElemType, pack, thread_words, unpack};
use crate::launch::{self, Arg, Launch};
use crate::values::Rng;
use crate::{Case, Outcome, launch_outcome};

const FAMILY: &str = "warpgroup matrix";
const HEADER: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n";
/// Where B starts in the shared array (A lies below it).
const B_BASE: u32 = 8192;
/// The shared array: A and B with room to spare under lavapipe's 32 KiB.
const SHARED: u32 = 16384;

/// How a matrix lies in shared memory.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// 0 none, 1 128-byte, 2 64-byte, 3 32-byte swizzling (the descriptor's encoding).
    mode: u32,
    /// MN-major (`imm-trans` 1).
    mn_major: bool,
    lbo: u32,
    sbo: u32,
}

impl Layout {
    /// The row width of the swizzle atom in bytes.
    fn r(self) -> u32 {
        match self.mode {
            0 => 16,
            m => 256 >> m,
        }
    }

    /// A layout whose strides leave no overlap for a matrix of `mn` rows (or columns) and
    /// `kb` bytes of K, with a 16-byte gap where the strides are free.
    fn new(mode: u32, mn_major: bool, mn: u32, k: u32, eb: u32) -> Layout {
        let r = if mode == 0 { 16 } else { 256 >> mode };
        let (lbo, sbo) = if !mn_major {
            if mode == 0 {
                // Core matrices of 128 bytes: K blocks at LBO, 8-row groups at SBO.
                let kblocks = (k * eb).div_ceil(16);
                (128, 128 * kblocks + 16)
            } else {
                (16, 8 * r)
            }
        } else if mode == 0 {
            // Along MN 16-byte chunks at SBO, along K 8-row groups at LBO.
            let chunks = (mn * eb).div_ceil(16);
            (128 * chunks + 16, 128)
        } else {
            // Along MN atoms at LBO, along K 8-row groups at SBO.
            let atoms = (mn * eb).div_ceil(r);
            (8 * r, 8 * r * atoms)
        };
        Layout {
            mode,
            mn_major,
            lbo,
            sbo,
        }
    }

    /// The byte offset of element `(mn, k)` from the matrix's start, before swizzling.
    fn offset(self, mn: u32, k: u32, eb: u32) -> u32 {
        let r = self.r();
        if !self.mn_major {
            let kb = k * eb;
            (mn % 8) * r + (mn / 8) * self.sbo + kb % r + (kb / r) * self.lbo
        } else {
            let mnb = mn * eb;
            let (along_mn, along_k) = if self.mode == 0 {
                (self.sbo, self.lbo)
            } else {
                (self.lbo, self.sbo)
            };
            mnb % r + (mnb / r) * along_mn + (k % 8) * r + (k / 8) * along_k
        }
    }

    /// The shared-memory address of a byte at `addr` once swizzled.
    fn swizzle(self, addr: u32) -> u32 {
        let chunks_bits = match self.mode {
            1 => 0b111,
            2 => 0b11,
            3 => 0b1,
            _ => 0,
        };
        addr ^ (((addr >> 7) & chunks_bits) << 4)
    }

    /// The descriptor's bits other than the start address.
    fn desc_bits(self) -> u64 {
        u64::from(self.lbo >> 4) << 16 | u64::from(self.sbo >> 4) << 32 | u64::from(self.mode) << 62
    }
}

/// One `wgmma.mma_async` form.
#[derive(Clone, Copy, Debug)]
struct Form {
    n: u32,
    d: ElemType,
    a: ElemType,
    b: ElemType,
    /// A in registers, else through a descriptor.
    a_regs: bool,
    a_layout: u32,
    b_layout: u32,
    trans_a: bool,
    trans_b: bool,
    /// `scale-d`: None for a predicate that is true, else the constant.
    scale_d: Option<bool>,
    neg_a: bool,
    neg_b: bool,
    satfinite: bool,
    /// `.sp` with this sparsity selector.
    sp: Option<u32>,
}

impl Form {
    /// K of the product.
    fn k(&self) -> u32 {
        let dense = 256 / self.a.bits();
        if self.sp.is_some() { 2 * dense } else { dense }
    }

    /// Columns of A's operand: half of K for a sparse A.
    fn ka(&self) -> u32 {
        if self.sp.is_some() {
            self.k() / 2
        } else {
            self.k()
        }
    }

    fn mnemonic(&self) -> String {
        let sp = if self.sp.is_some() { ".sp" } else { "" };
        let mut s = format!(
            "wgmma.mma_async{sp}.sync.aligned.m64n{}k{}",
            self.n,
            self.k()
        );
        if self.satfinite {
            s.push_str(".satfinite");
        }
        for t in [self.d, self.a, self.b] {
            s.push('.');
            s.push_str(t.name());
        }
        s
    }

    fn layouts(&self) -> (Layout, Layout) {
        let (k, eb) = (self.k(), self.a.bits() / 8);
        (
            Layout::new(self.a_layout, self.trans_a, 64, self.ka(), eb),
            Layout::new(self.b_layout, self.trans_b, self.n, k, eb),
        )
    }

    /// D registers per thread.
    fn d_regs(&self) -> u32 {
        if self.d == ElemType::F16 {
            self.n / 4
        } else {
            self.n / 2
        }
    }
}

/// `(row, col)` of accumulator element `i` of thread `tid`.
fn d_pos(tid: u32, i: u32) -> (u32, u32) {
    let (w, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    (16 * w + g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// `(row, col)` of element `i` of thread `tid`'s A fragment: `mma`'s m16 A of the warp's rows.
fn a_pos(f: &Form, tid: u32, i: u32) -> (u32, u32) {
    let (w, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let e = f.a.per_reg();
    let reg = i / e;
    let row = 16 * w + g + 8 * (reg % 2);
    let col = 4 * e * (reg / 2) + e * t + i % e;
    (row, col)
}

/// The matrices, as element bits: A (64 x K), B (K x N), C (64 x N); A's operand (64 x K/2 for
/// a sparse A) and each row's metadata fields.
struct Mats {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    a_op: Vec<Vec<u64>>,
    fields: Vec<Vec<u32>>,
}

/// Thread `tid`'s metadata word: for a holder (of the group's threads `sp-sel` names), the
/// fields of its chunks of rows `groupID` (bits 0-15) and `groupID + 8` (bits 16-31) of its
/// warp's 16; for the others, random bits the instruction must not read.
fn meta_word(f: &Form, x: &Mats, tid: u32, sel: u32, rng: &mut Rng) -> u32 {
    let (w, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let holders = (f.k() / chunk_width(f.a) / 4).max(1);
    if !(sel * holders..(sel + 1) * holders).contains(&t) {
        return rng.next_u64() as u32;
    }
    let p = t - sel * holders;
    let mut word = 0;
    for h in 0..2 {
        for c in 0..4 {
            let field = x.fields[(16 * w + g + 8 * h) as usize][(4 * p + c) as usize];
            word |= field << (16 * h + 4 * c);
        }
    }
    word
}

fn kernel(f: &Form, a_desc: u64, b_desc: u64, in_words: u32) -> String {
    let nd = f.d_regs();
    let mut body = String::new();
    // The shared image, copied in by all 128 threads.
    body.push_str(&format!(
        "\tmov.u32 %r0, 0;\n\
         COPY:\n\
         \tadd.u32 %r1, %r0, %t0;\n\
         \tsetp.ge.u32 %p1, %r1, {};\n\
         \t@%p1 bra COPIED;\n\
         \tmul.wide.u32 %rd6, %r1, 4;\n\
         \tadd.s64 %rd7, %rd3, %rd6;\n\
         \tld.global.u32 %r2, [%rd7];\n\
         \tmov.u32 %r3, smem;\n\
         \tshl.b32 %r4, %r1, 2;\n\
         \tadd.u32 %r3, %r3, %r4;\n\
         \tst.shared.u32 [%r3], %r2;\n\
         \tadd.u32 %r0, %r0, 128;\n\
         \tbra COPY;\n\
         COPIED:\n\
         \tbar.sync 0;\n",
        SHARED / 4
    ));
    // Descriptors: the shared address of each matrix in 16-byte units, and the rest.
    body.push_str(&format!(
        "\tmov.u32 %r5, smem;\n\tcvt.u64.u32 %rd8, %r5;\n\tshr.u64 %rd8, %rd8, 4;\n\
         \tadd.s64 %rd9, %rd8, {};\n\tand.b64 %rd9, %rd9, 16383;\n\tor.b64 %rd9, %rd9, {a_desc};\n\
         \tadd.s64 %rd10, %rd8, {};\n\tand.b64 %rd10, %rd10, 16383;\n\tor.b64 %rd10, %rd10, {b_desc};\n",
        0,
        B_BASE / 16
    ));
    // This thread's inputs: C, then A's registers.
    body.push_str(&format!(
        "\tmul.wide.u32 %rd6, %t0, {};\n\tadd.s64 %rd11, %rd4, %rd6;\n",
        in_words * 4
    ));
    let d: Vec<String> = (0..nd).map(|i| format!("%d{i}")).collect();
    for (i, r) in d.iter().enumerate() {
        body.push_str(&format!("\tld.global.b32 {r}, [%rd11+{}];\n", 4 * i));
    }
    let sp = match f.sp {
        Some(sel) => {
            body.push_str(&format!("\tld.global.b32 %m, [%rd11+{}];\n", 4 * (nd + 4)));
            format!(", %m, {sel}")
        }
        None => String::new(),
    };
    let a_op = if f.a_regs {
        for i in 0..4 {
            body.push_str(&format!(
                "\tld.global.b32 %a{i}, [%rd11+{}];\n",
                4 * (nd + i)
            ));
        }
        "{%a0, %a1, %a2, %a3}".to_string()
    } else {
        "%rd9".to_string()
    };
    let scale_d = match f.scale_d {
        None => {
            body.push_str("\tsetp.eq.u32 %p2, %r5, %r5;\n");
            "%p2".to_string()
        }
        Some(v) => u32::from(v).to_string(),
    };
    let mut tail = String::new();
    if f.d != ElemType::S32 {
        let s = |neg: bool| if neg { "-1" } else { "1" };
        tail.push_str(&format!(", {}, {}", s(f.neg_a), s(f.neg_b)));
        if matches!(f.a, ElemType::F16 | ElemType::Bf16) {
            if !f.a_regs {
                tail.push_str(&format!(", {}", u32::from(f.trans_a)));
            }
            tail.push_str(&format!(", {}", u32::from(f.trans_b)));
        }
    }
    body.push_str(&format!(
        "\twgmma.fence.sync.aligned;\n\t{} {{{}}}, {a_op}, %rd10{sp}, {scale_d}{tail};\n\
         \twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n",
        f.mnemonic(),
        d.join(", ")
    ));
    body.push_str(&format!(
        "\tmul.wide.u32 %rd6, %t0, {};\n\tadd.s64 %rd12, %rd5, %rd6;\n",
        nd * 4
    ));
    for (i, r) in d.iter().enumerate() {
        body.push_str(&format!("\tst.global.b32 [%rd12+{}], {r};\n", 4 * i));
    }
    // `.sp` came with PTX ISA 8.2.
    let header = if f.sp.is_some() {
        HEADER.replacen("8.0", "8.2", 1)
    } else {
        HEADER.to_string()
    };
    format!(
        "{header}.visible .entry k(.param .u64 image, .param .u64 inp, .param .u64 out)\n{{\n\
         \t.shared .align 1024 .b8 smem[{SHARED}];\n\
         \t.reg .b32 %r<8>;\n\t.reg .b32 %d<{nd}>;\n\t.reg .b32 %a<4>;\n\t.reg .b32 %m;\n\
         \t.reg .b64 %rd<16>;\n\t.reg .pred %p<4>;\n\t.reg .b32 %t0;\n\
         \tmov.u32 %t0, %tid.x;\n\
         \tld.param.u64 %rd3, [image];\n\tld.param.u64 %rd4, [inp];\n\tld.param.u64 %rd5, [out];\n\
         {body}\tret;\n}}\n"
    )
}

/// Why D element `(r, col)`, `got`, is wrong, if it is.
fn check_elem(f: &Form, x: &Mats, r: usize, col: usize, got: u64) -> Option<String> {
    let (n, k) = (f.n as usize, f.k() as usize);
    let keep_c = f.scale_d.unwrap_or(true);
    if f.d == ElemType::S32 {
        let mut sum = if keep_c {
            i64::from(x.c[r * n + col] as u32 as i32)
        } else {
            0
        };
        for kk in 0..k {
            sum += f.a.value(x.a[r * k + kk]) as i64 * f.b.value(x.b[kk * n + col]) as i64;
        }
        let want = if f.satfinite {
            sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
        } else {
            sum as i32
        };
        return (got as u32 as i32 != want)
            .then(|| format!("expected {want}, got {}", got as u32 as i32));
    }
    let c = if keep_c {
        f.d.value(x.c[r * n + col])
    } else {
        0.0
    };
    let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
    let mut exact = c;
    let mut mag = c.abs();
    for kk in 0..k {
        let p = sign(f.neg_a)
            * f.a.value(x.a[r * k + kk])
            * sign(f.neg_b)
            * f.b.value(x.b[kk * n + col]);
        exact += p;
        mag += p.abs();
    }
    let got_v = if f.d == ElemType::F16 {
        f64::from(half::f16::from_bits(got as u16))
    } else {
        f64::from(f32::from_bits(got as u32))
    };
    let (unit, tiny) = (2f64.powi(-24), 2f64.powi(-149));
    let mut bound = f64::from(f.k() + 2) * unit * mag + f64::from(f.k() + 2) * tiny;
    if f.d == ElemType::F16 {
        bound += (exact.abs() + bound) * 2f64.powi(-11) + 2f64.powi(-25);
    }
    ((got_v - exact).abs() > bound || got_v.is_nan())
        .then(|| format!("expected {exact} (within {bound:e}), got {got_v}"))
}

/// Random element bits of `t`; 8-bit floats below 2 in magnitude (the top exponent bit clear)
/// where D is `.f16`, whose range a sum of their products could leave.
fn small(f: Form, t: ElemType, rng: &mut Rng) -> u64 {
    let b = t.random(rng);
    if f.d == ElemType::F16 && matches!(t, ElemType::E4m3 | ElemType::E5m2) {
        b & 0xBF
    } else {
        b
    }
}

fn case(f: Form, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let (k, n) = (f.k(), f.n);
    let (a, a_op, fields) = if f.sp.is_some() {
        sparse_rows(f.a, 64, k, false, &mut rng, &mut |rng| small(f, f.a, rng))
    } else {
        let a: Vec<u64> = (0..64 * k).map(|_| small(f, f.a, &mut rng)).collect();
        let rows = a.chunks(k as usize).map(<[u64]>::to_vec).collect();
        (a, rows, Vec::new())
    };
    let x = Mats {
        a,
        a_op,
        fields,
        b: (0..k * n).map(|_| small(f, f.b, &mut rng)).collect(),
        c: (0..64 * n)
            .map(|_| match f.d {
                ElemType::S32 => rng.next_u64() >> (rng.below(3) * 16) & 0xFFFF_FFFF,
                ElemType::F32 => u64::from(
                    (ElemType::F16.value(ElemType::F16.random(&mut rng)) as f32).to_bits(),
                ),
                t => t.random(&mut rng),
            })
            .collect(),
    };
    let (la, lb) = f.layouts();
    let eb = f.a.bits() / 8;
    // The shared image, placed as at a 1024-byte-aligned array (`.align 1024`).
    let mut image = vec![0u8; SHARED as usize];
    let mut put = |base: u32, l: Layout, mn: u32, kk: u32, bits: u64| {
        for byte in 0..eb {
            let at = l.swizzle(base + l.offset(mn, kk, eb) + byte) as usize;
            image[at] = (bits >> (8 * byte)) as u8;
        }
    };
    if !f.a_regs {
        for r in 0..64 {
            for kk in 0..f.ka() {
                put(0, la, r, kk, x.a_op[r as usize][kk as usize]);
            }
        }
    }
    for col in 0..n {
        for kk in 0..k {
            put(B_BASE, lb, col, kk, x.b[(kk * n + col) as usize]);
        }
    }
    let nd = f.d_regs();
    // C, A's registers, and the metadata of `.sp`.
    let in_words = nd + if f.sp.is_some() { 5 } else { 4 };
    let mut inp = Vec::new();
    for tid in 0..128 {
        let per = if f.d == ElemType::F16 { 2 } else { 1 };
        let c: Vec<u64> = (0..nd * per)
            .map(|i| {
                let (r, col) = d_pos(tid, i);
                x.c[(r * n + col) as usize]
            })
            .collect();
        let dt = if f.d == ElemType::F16 {
            ElemType::F16
        } else {
            ElemType::S32
        };
        let mut words = pack(dt, &c);
        if f.a_regs {
            let a: Vec<u64> = (0..4 * f.a.per_reg())
                .map(|i| {
                    let (r, col) = a_pos(&f, tid, i);
                    x.a_op[r as usize][col as usize]
                })
                .collect();
            words.extend(pack(f.a, &a));
        }
        if let Some(sel) = f.sp {
            words.resize(nd as usize + 4, 0);
            words.push(meta_word(&f, &x, tid, sel, &mut rng));
        }
        words.resize(in_words as usize, 0);
        inp.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    }
    let ptx = kernel(&f, la.desc_bits(), lb.desc_bits(), in_words);
    let name = format!(
        "wgmma/{}/{}{}/{seed}",
        f.mnemonic(),
        if f.a_regs {
            "areg".to_string()
        } else {
            format!("a{}{}", la.mode, if f.trans_a { "t" } else { "" })
        },
        format_args!("-b{}{}", lb.mode, if f.trans_b { "t" } else { "" }),
    );
    let launch = Launch {
        module_name: format!("{}.ptx", name.replace('/', "_")),
        ptx: Arc::from(ptx.as_str()),
        kernel: "k".into(),
        grid: [1, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 0,
        args: vec![Arg::Buffer(0), Arg::Buffer(1), Arg::Buffer(2)],
        buffers: vec![image, inp, vec![0xA5; (nd * 4 * 128) as usize]],
    };
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| match launch::execute(ctx, &launch) {
            Ok(out) => {
                let per = if f.d == ElemType::F16 { 2 } else { 1 };
                for tid in 0..128u32 {
                    let words = thread_words(&out[2], tid, nd * 4);
                    let dt = if f.d == ElemType::F16 {
                        ElemType::F16
                    } else {
                        ElemType::S32
                    };
                    let d = unpack(dt, &words, (nd * per) as usize);
                    for (i, &got) in d.iter().enumerate() {
                        let (r, col) = d_pos(tid, i as u32);
                        if let Some(why) = check_elem(&f, &x, r as usize, col as usize, got) {
                            return Outcome::Fail(format!(
                                "D[{r}][{col}] (thread {tid}, d{i}): {why}"
                            ));
                        }
                    }
                }
                Outcome::Pass
            }
            Err(e) => launch_outcome(e),
        }),
    }
}
