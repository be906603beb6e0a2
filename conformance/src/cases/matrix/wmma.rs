//! `wmma` cases: load, multiply-accumulate and store through memory in each layout.

use super::elem::ElemType;
use super::fragment::{Form, check_elem, random_mats};
use super::{HEADER, launched_case, one_warp};
use crate::values::Rng;
use crate::{Case, Outcome};

/// One `wmma` test: shape, the memory layouts of A, B and D (`true` = `.row`), the
/// accumulator types, and the padding added to each leading dimension (0: the stride operand
/// is left out, so the default applies).
#[derive(Clone, Copy, Debug)]
pub(super) struct WmmaForm {
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

pub(super) fn wmma_case(w: WmmaForm, seed: u64) -> Case {
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

pub(super) fn wmma_forms() -> Vec<WmmaForm> {
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
