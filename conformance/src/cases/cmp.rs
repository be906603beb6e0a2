//! ISA 8.7.4 (and the half-precision `set`/`setp` of newer versions): comparison and selection.
//!
//! Reference model: the comparison tables of ISA 8.3.1 on exact values (every format here is
//! exact in an f64; integers compared as integers), combined with `c` as 8.7.4.1-2 say.

use ptxvk_translator::ScalarType::{self, *};

use super::float::{BF16F, BF16X2, F16F, F16X2, F32F, F64F, Form, float_rows};
use crate::elementwise::Elementwise;
use crate::ieee::Fmt;
use crate::values::rows;
use crate::{Case, Expect};

const FAMILY: &str = "8.7.4 compare";

const FLOAT_CMPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];
const INT_CMPS: [&str; 10] = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
const BOOLS: [&str; 3] = ["and", "or", "xor"];

/// `a cmp b` on exact float values (ISA 8.3.1): ordered comparisons are false with a NaN,
/// unordered ones true.
fn float_cmp(cmp: &str, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        "eq" => a == b,
        "ne" => !unordered && a != b,
        "lt" => a < b,
        "le" => a <= b,
        "gt" => a > b,
        "ge" => a >= b,
        "equ" => unordered || a == b,
        "neu" => a != b,
        "ltu" => unordered || a < b,
        "leu" => unordered || a <= b,
        "gtu" => unordered || a > b,
        "geu" => unordered || a >= b,
        "num" => !unordered,
        _ => unordered,
    }
}

/// `a cmp b` on integers of type `ty` (raw bits, zero-extended).
fn int_cmp(cmp: &str, ty: ScalarType, a: u64, b: u64) -> bool {
    if ty.is_signed() {
        let s = 64 - ty.bits();
        let (a, b) = (((a << s) as i64) >> s, ((b << s) as i64) >> s);
        return match cmp {
            "eq" => a == b,
            "ne" => a != b,
            "lt" | "lo" => a < b,
            "le" | "ls" => a <= b,
            "gt" | "hi" => a > b,
            _ => a >= b,
        };
    }
    match cmp {
        "eq" => a == b,
        "ne" => a != b,
        "lt" | "lo" => a < b,
        "le" | "ls" => a <= b,
        "gt" | "hi" => a > b,
        _ => a >= b,
    }
}

fn combine(op: Option<&str>, t: bool, c: bool) -> bool {
    match op {
        Some("and") => t && c,
        Some("or") => t || c,
        Some("xor") => t ^ c,
        _ => t,
    }
}

/// A source type of `set`/`setp`: a float form or an integer/bit type.
#[derive(Clone, Copy)]
enum Src {
    Float(Form),
    Int(ScalarType),
}

impl Src {
    fn ty(self) -> ScalarType {
        match self {
            Src::Float(f) => f.ty,
            Src::Int(t) => t,
        }
    }
    fn reg(self) -> ScalarType {
        match self {
            Src::Float(f) => f.reg(),
            Src::Int(t) => t,
        }
    }
    fn cmps(self) -> &'static [&'static str] {
        match self {
            Src::Float(_) => &FLOAT_CMPS,
            Src::Int(t) if t.kind() == ptxvk_translator::types::TypeKind::Bits => &INT_CMPS[..2],
            // lo/ls/hi/hs are for unsigned values only.
            Src::Int(t) if t.is_signed() => &INT_CMPS[..6],
            Src::Int(_) => &INT_CMPS,
        }
    }
    fn packed(self) -> bool {
        matches!(self, Src::Float(f) if f.packed)
    }
    /// One comparison per lane.
    fn compare(self, cmp: &str, ftz: bool, a: u64, b: u64) -> Vec<bool> {
        match self {
            Src::Int(t) => vec![int_cmp(cmp, t, a, b)],
            Src::Float(f) => {
                let fmt = f.fmt;
                let lanes: Vec<(u64, u64)> = if f.packed {
                    vec![
                        (a & 0xffff, b & 0xffff),
                        (a >> 16 & 0xffff, b >> 16 & 0xffff),
                    ]
                } else {
                    vec![(a, b)]
                };
                lanes
                    .into_iter()
                    .map(|(x, y)| {
                        let (x, y) = if ftz {
                            (fmt.flush(x), fmt.flush(y))
                        } else {
                            (x, y)
                        };
                        float_cmp(cmp, fmt.value(x), fmt.value(y))
                    })
                    .collect()
            }
        }
    }
    fn rows(self, seed: u64) -> Vec<Vec<u64>> {
        match self {
            Src::Float(f) => {
                let mut r = float_rows(f, 2, seed);
                r.truncate(900);
                // Equal operands, so that eq/le/ge are exercised beyond the edge pairs.
                let n = r.len();
                for i in 0..n / 4 {
                    let a = r[i][0];
                    r.push(vec![a, a]);
                }
                r
            }
            Src::Int(t) => rows(&[t, t], 400, 300, seed),
        }
    }
    fn ftz_ok(self) -> bool {
        matches!(self, Src::Float(f) if matches!(f.fmt, Fmt::F32 | Fmt::F16))
    }
}

fn sources() -> Vec<Src> {
    let mut v: Vec<Src> = [B16, B32, B64, U16, U32, U64, S16, S32, S64]
        .into_iter()
        .map(Src::Int)
        .collect();
    v.extend([F32F, F64F, F16F, F16X2, BF16F, BF16X2].map(Src::Float));
    v
}

fn target(_s: Src) -> (u32, (u32, u32)) {
    (90, (7, 8))
}

/// Appends `c` (a predicate input) to each row: both values over the rows.
fn with_pred(mut rows: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
    for (i, r) in rows.iter_mut().enumerate() {
        r.push((i as u64 / 3) & 1);
    }
    rows
}

/// `setp` (ISA 8.7.4.2): every comparison of every type; every Boolean operator; `.ftz`.
fn setp(v: &mut Vec<Case>) {
    for src in sources() {
        let cmps = src.cmps();
        let mut forms: Vec<(&str, Option<&str>, bool)> =
            cmps.iter().map(|c| (*c, None, false)).collect();
        for (i, b) in BOOLS.iter().enumerate() {
            forms.push((cmps[(i * 5 + 2) % cmps.len()], Some(b), false));
        }
        if src.ftz_ok() {
            for c in cmps {
                forms.push((c, None, true));
            }
            forms.push(("lt", Some("and"), true));
        }
        for (k, (cmp, bop, ftz)) in forms.into_iter().enumerate() {
            let mut inst = format!("setp.{cmp}");
            if let Some(b) = bop {
                inst.push('.');
                inst.push_str(b);
            }
            if ftz {
                inst.push_str(".ftz");
            }
            inst.push_str(&src.ty().to_string());
            let c_arg = if bop.is_some() { ", %c" } else { "" };
            let mut inputs = vec![src.reg(), src.reg()];
            let mut rows = src.rows(50 + k as u64);
            if bop.is_some() {
                inputs.push(Pred);
                rows = with_pred(rows);
            }
            let cmp = cmp.to_string();
            let bop = bop.map(str::to_string);
            let packed = src.packed();
            // `p|q` is for the 32-bit and packed forms; `.f16`/`.bf16` write `p` alone.
            let single = matches!(src.ty(), F16 | Bf16);
            let (dsts, outs): (&str, &[ScalarType]) = if single {
                ("%d", &[Pred])
            } else {
                ("%d|%e", &[Pred, Pred])
            };
            let (sm, ver) = target(src);
            let mut e = Elementwise::new(
                FAMILY,
                format!("cmp/{inst}"),
                format!("{inst} {dsts}, %a, %b{c_arg};"),
                &inputs,
                outs,
                rows,
                move |r| {
                    let t = src.compare(&cmp, ftz, r[0], r[1]);
                    let c = r.get(2).is_some_and(|c| *c != 0);
                    let b = bop.as_deref();
                    // p = BoolOp(t, c), q = BoolOp(!t, c); for packed halves p and q are the
                    // two halves' results (ISA 9.7.7.2).
                    let (p, q) = if packed {
                        (combine(b, t[0], c), combine(b, t[1], c))
                    } else {
                        (combine(b, t[0], c), combine(b, !t[0], c))
                    };
                    let mut d = vec![Expect::Bits(u64::from(p)), Expect::Bits(u64::from(q))];
                    d.truncate(if single { 1 } else { 2 });
                    d
                },
            );
            e.sm = sm;
            e.version = ver;
            v.push(e.case());
        }
    }
}

/// Destination types `set` allows for a source type.
fn set_dtypes(src: Src) -> &'static [ScalarType] {
    match src.ty() {
        F16 => &[U16, S16, U32, S32, F16, Bf16],
        Bf16 => &[U16, S16, U32, S32],
        F16x2 => &[F16x2, U32, S32],
        Bf16x2 => &[Bf16x2, U32, S32],
        _ => &[U32, S32, F32, F16, Bf16],
    }
}

/// The value `set` writes for true: all ones (16 or 32 bits) or 1.0 in the destination's
/// format; packed sources give one 16-bit result per half (ISA 8.7.4.1, 9.7.7.1).
fn set_true(dtype: ScalarType, packed: bool) -> u64 {
    match (dtype, packed) {
        (F16x2, _) => 0x3c00,
        (Bf16x2, _) => 0x3f80,
        (_, true) => 0xffff,
        (F32, _) => 0x3f80_0000,
        (F16, _) => 0x3c00,
        (Bf16, _) => 0x3f80,
        (U16 | S16, _) => 0xffff,
        _ => 0xffff_ffff,
    }
}

/// `set` (ISA 8.7.4.1): every comparison and every destination type of each source type.
fn set(v: &mut Vec<Case>) {
    for src in sources() {
        let cmps = src.cmps();
        let dtypes = set_dtypes(src);
        let mut forms: Vec<(&str, Option<&str>, ScalarType, bool)> = Vec::new();
        for (i, c) in cmps.iter().enumerate() {
            forms.push((c, None, dtypes[i % dtypes.len()], false));
        }
        for (i, d) in dtypes.iter().enumerate() {
            forms.push((
                cmps[(i * 3 + 1) % cmps.len()],
                Some(BOOLS[i % 3]),
                *d,
                false,
            ));
        }
        if src.ftz_ok() {
            forms.push(("lt", None, dtypes[0], true));
            // `.ftz` has no `.bf16`/`.bf16x2` result form.
            if let Some(d) = dtypes.iter().rev().find(|d| !matches!(d, Bf16 | Bf16x2)) {
                forms.push(("geu", Some("or"), *d, true));
            }
        }
        for (k, (cmp, bop, dtype, ftz)) in forms.into_iter().enumerate() {
            let mut inst = format!("set.{cmp}");
            if let Some(b) = bop {
                inst.push('.');
                inst.push_str(b);
            }
            if ftz {
                inst.push_str(".ftz");
            }
            inst.push_str(&format!("{dtype}{}", src.ty()));
            let c_arg = if bop.is_some() { ", %c" } else { "" };
            let mut inputs = vec![src.reg(), src.reg()];
            let mut rows = src.rows(70 + k as u64);
            if bop.is_some() {
                inputs.push(Pred);
                rows = with_pred(rows);
            }
            let packed = src.packed();
            let out = match dtype {
                F16x2 | Bf16x2 => B32,
                Bf16 | F16 => B16,
                t => t,
            };
            let one = set_true(dtype, packed);
            let cmp = cmp.to_string();
            let bop = bop.map(str::to_string);
            let (sm, ver) = target(src);
            let mut e = Elementwise::new(
                FAMILY,
                format!("cmp/{inst}"),
                format!("{inst} %d, %a, %b{c_arg};"),
                &inputs,
                &[out],
                rows,
                move |r| {
                    let t = src.compare(&cmp, ftz, r[0], r[1]);
                    let c = r.get(2).is_some_and(|c| *c != 0);
                    let d = t
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            if combine(bop.as_deref(), *t, c) {
                                one << (16 * i)
                            } else {
                                0
                            }
                        })
                        .fold(0, |a, b| a | b);
                    vec![Expect::Bits(d)]
                },
            );
            e.sm = sm;
            e.version = ver;
            v.push(e.case());
        }
    }
}

/// `selp` (ISA 8.7.4.3): every type.
fn selp(v: &mut Vec<Case>) {
    for ty in [B16, B32, B64, U16, U32, U64, S16, S32, S64, F32, F64] {
        let inst = format!("selp{ty}");
        let mut r = rows(&[ty, ty], 200, 200, 5);
        r = with_pred(r);
        v.push(
            Elementwise::new(
                FAMILY,
                format!("cmp/{inst}"),
                format!("{inst} %d, %a, %b, %c;"),
                &[ty, ty, Pred],
                &[ty],
                r,
                |r| vec![Expect::Bits(if r[2] != 0 { r[0] } else { r[1] })],
            )
            .case(),
        );
    }
}

/// `slct` (ISA 8.7.4.4): every destination type with an .s32 and an .f32 `c` (`.ftz` too):
/// `c >= 0` selects `a`; -0 counts as 0, NaN selects `b`; `.ftz` flushes a subnormal `c`.
fn slct(v: &mut Vec<Case>) {
    let dtypes = [B16, B32, B64, U16, U32, U64, S16, S32, S64, F32, F64];
    for (i, ty) in dtypes.into_iter().enumerate() {
        for (ctype, ftz) in [(S32, false), (F32, false), (F32, true)] {
            let ftzs = if ftz { ".ftz" } else { "" };
            let inst = format!("slct{ftzs}{ty}{ctype}");
            let r = rows(&[ty, ty, ctype], 600, 300, 9 + i as u64);
            v.push(
                Elementwise::new(
                    FAMILY,
                    format!("cmp/{inst}"),
                    format!("{inst} %d, %a, %b, %c;"),
                    &[ty, ty, ctype],
                    &[ty],
                    r,
                    move |r| {
                        let ge = if ctype == S32 {
                            (r[2] as u32 as i32) >= 0
                        } else {
                            let c = if ftz { Fmt::F32.flush(r[2]) } else { r[2] };
                            f32::from_bits(c as u32) >= 0.0
                        };
                        vec![Expect::Bits(if ge { r[0] } else { r[1] })]
                    },
                )
                .case(),
            );
        }
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    setp(&mut v);
    set(&mut v);
    selp(&mut v);
    slct(&mut v);
    v
}
