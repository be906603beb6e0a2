//! The reference models of the video instructions (ISA 9.7.18), written from the ISA's
//! pseudocode in unbounded integers (i128), and the forms they and the PTX text are made from.

/// One instruction form: everything the PTX text and the model need.
#[derive(Clone)]
pub(super) struct Form {
    /// `add sub absdiff min max avrg shl shr set`.
    pub(super) op: &'static str,
    /// `vset`'s comparison (`eq ne lt le gt ge`).
    pub(super) cmp: &'static str,
    /// 1 (scalar), 2 or 4.
    pub(super) lanes: u32,
    /// `dtype`, `atype`, `btype` signed.
    pub(super) signed: [bool; 3],
    pub(super) sat: bool,
    /// `add`, `min`, `max` (scalar), `add` (SIMD accumulate), or empty.
    pub(super) secop: &'static str,
    /// `clamp`/`wrap` for the shifts.
    pub(super) mode: &'static str,
    /// Selector suffixes without dots (empty: none): d (merge or mask), a, b.
    pub(super) dsel: &'static str,
    pub(super) asel: &'static str,
    pub(super) bsel: &'static str,
}

impl Form {
    pub(super) fn opcode(&self) -> String {
        match self.lanes {
            1 => format!("v{}", self.op),
            n => format!("v{}{n}", self.op),
        }
    }

    pub(super) fn name(&self) -> String {
        let t = |s: bool| if s { "s32" } else { "u32" };
        // `vset` has no `dtype`: its result is unsigned.
        let mut n = if self.op == "set" {
            format!(
                "{}.{}.{}",
                self.opcode(),
                t(self.signed[1]),
                t(self.signed[2])
            )
        } else {
            format!(
                "{}.{}.{}.{}",
                self.opcode(),
                t(self.signed[0]),
                t(self.signed[1]),
                t(self.signed[2])
            )
        };
        for m in [
            if self.sat { "sat" } else { "" },
            self.cmp,
            self.mode,
            self.secop,
        ] {
            if !m.is_empty() {
                n += &format!(".{m}");
            }
        }
        for (w, s) in [("d", self.dsel), ("a", self.asel), ("b", self.bsel)] {
            if !s.is_empty() {
                n += &format!("/{w}.{s}");
            }
        }
        n
    }

    fn takes_c(&self) -> bool {
        self.lanes > 1 || !self.secop.is_empty() || !self.dsel.is_empty()
    }

    pub(super) fn line(&self) -> String {
        let sel = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!(".{s}")
            }
        };
        let name = self.name();
        let l = name.split('/').next().unwrap_or_default();
        let c = if self.takes_c() { ", %r3" } else { "" };
        format!(
            "{l} %r4{}, %r1{}, %r2{}{c};",
            sel(self.dsel),
            sel(self.asel),
            sel(self.bsel)
        )
    }
}

/// Bits `width * index ..` of `x`, sign- or zero-extended (the ISA's partSelectSignExtend).
fn part(x: u64, width: u32, index: u32, signed: bool) -> i128 {
    let v = i128::from((x >> (width * index)) & ((1u64 << width) - 1));
    if signed && v >> (width - 1) & 1 == 1 {
        v - (1i128 << width)
    } else {
        v
    }
}

/// The scalar selector `.b0`..`.h1` as (width, index); the whole word without one.
fn scalar_sel(s: &str) -> (u32, u32) {
    match s.as_bytes() {
        [b'b', d] => (8, u32::from(d - b'0')),
        [b'h', d] => (16, u32::from(d - b'0')),
        _ => (32, 0),
    }
}

fn clamp(x: i128, width: u32, signed: bool) -> i128 {
    if signed {
        x.clamp(-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        x.clamp(0, (1i128 << width) - 1)
    }
}

/// In unbounded integers, as the ISA's intermediate results are meant (a 33-bit value shifted
/// left by at most 32 fits an i128).
fn op_model(f: &Form, a: i128, b: i128) -> i128 {
    match f.op {
        "add" => a + b,
        "sub" => a - b,
        "absdiff" => (a - b).abs(),
        "min" => a.min(b),
        "max" => a.max(b),
        "avrg" if a + b >= 0 => (a + b + 1) >> 1,
        "avrg" => (a + b) >> 1,
        "shl" => a << b,
        "shr" => a >> b,
        _ => i128::from(match f.cmp {
            "eq" => a == b,
            "ne" => a != b,
            "lt" => a < b,
            "le" => a <= b,
            "gt" => a > b,
            _ => a >= b,
        }),
    }
}

/// ISA 9.7.18.1 (stages 1-4 and optSaturate, optSecOp, optMerge) for one input triple.
pub(super) fn scalar_model(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    let (aw, ai) = scalar_sel(f.asel);
    let (bw, bi) = scalar_sel(f.bsel);
    let ta = part(u64::from(a), aw, ai, f.signed[1]);
    let mut tb = part(u64::from(b), bw, bi, f.signed[2]);
    match f.mode {
        "clamp" => tb = tb.min(32),
        "wrap" => tb &= 0x1f,
        _ => {}
    }
    let mut tmp = op_model(f, ta, tb);
    let (dw, di) = scalar_sel(f.dsel);
    if f.sat {
        tmp = clamp(tmp, dw, f.signed[0]);
    }
    let cv = part(u64::from(c), 32, 0, f.signed[0]);
    let d = match f.secop {
        "add" => tmp + cv,
        "min" => tmp.min(cv),
        "max" => tmp.max(cv),
        _ if dw < 32 => {
            let mask = (1i128 << dw) - 1;
            ((tmp & mask) << (dw * di)) | (i128::from(c) & !(mask << (dw * di)))
        }
        _ => tmp,
    };
    d as u32
}

/// The lanes' parts of `{b, a}` a SIMD selector names (last digit lane 0), or the default.
fn simd_sel(s: &str, lanes: u32, default: u32) -> Vec<u32> {
    if s.is_empty() {
        return (default..default + lanes).collect();
    }
    s[1..].bytes().rev().map(|d| u32::from(d - b'0')).collect()
}

/// ISA 9.7.18.2 for one input triple: lanes selected from `{b, a}`, the operation, the clamp,
/// then the accumulate into `c` or the merge into `c`'s lanes.
pub(super) fn simd_model(f: &Form, a: u32, b: u32, c: u32) -> u32 {
    let width = 32 / f.lanes;
    let both = u64::from(b) << 32 | u64::from(a);
    let asel = simd_sel(f.asel, f.lanes, 0);
    let bsel = simd_sel(f.bsel, f.lanes, f.lanes);
    let mask: Vec<u32> = if f.dsel.is_empty() {
        (0..f.lanes).collect()
    } else {
        simd_sel(f.dsel, f.dsel.len() as u32 - 1, 0)
    };
    let mut d = i128::from(c);
    for lane in 0..f.lanes {
        if !mask.contains(&lane) {
            continue;
        }
        let va = part(both, width, asel[lane as usize], f.signed[1]);
        let vb = part(both, width, bsel[lane as usize], f.signed[2]);
        let mut t = op_model(f, va, vb);
        if f.sat {
            t = clamp(t, width, f.signed[0]);
        }
        if f.secop == "add" {
            d += t;
        } else {
            let m = (1i128 << width) - 1;
            d = ((t & m) << (width * lane)) | (d & !(m << (width * lane)));
        }
    }
    d as u32
}

/// A `vmad` form: input types, which operands are negated (`-a`, `-b`, `-c`), `.po`, `.sat`,
/// the scale and the selectors.
#[derive(Clone, Copy)]
pub(super) struct Mad {
    pub(super) signed: [bool; 2],
    pub(super) negated: [bool; 3],
    pub(super) po: bool,
    pub(super) sat: bool,
    pub(super) shift: u32,
    pub(super) asel: &'static str,
    pub(super) bsel: &'static str,
}

impl Mad {
    fn signed_final(&self) -> bool {
        let [na, nb, nc] = self.negated;
        self.signed[0] || self.signed[1] || (na != nb) || nc
    }

    pub(super) fn line(&self) -> String {
        let t = |s: bool| if s { "s32" } else { "u32" };
        let mut l = format!(
            "vmad.{}.{}.{}",
            t(self.signed_final()),
            t(self.signed[0]),
            t(self.signed[1])
        );
        if self.po {
            l += ".po";
        }
        if self.sat {
            l += ".sat";
        }
        if self.shift > 0 {
            l += &format!(".shr{}", self.shift);
        }
        let op = |neg: bool, reg: &str, sel: &str| {
            let sel = if sel.is_empty() {
                String::new()
            } else {
                format!(".{sel}")
            };
            format!("{}{reg}{sel}", if neg { "-" } else { "" })
        };
        format!(
            "{l} %r4, {}, {}, {};",
            op(self.negated[0], "%r1", self.asel),
            op(self.negated[1], "%r2", self.bsel),
            op(self.negated[2], "%r3", "")
        )
    }

    /// ISA 9.7.18.1.3's pseudocode, in i128.
    pub(super) fn model(&self, a: u32, b: u32, c: u32) -> u32 {
        let (aw, ai) = scalar_sel(self.asel);
        let (bw, bi) = scalar_sel(self.bsel);
        let ta = part(u64::from(a), aw, ai, self.signed[0]);
        let tb = part(u64::from(b), bw, bi, self.signed[1]);
        let signed_final = self.signed_final();
        let mut tmp = ta * tb;
        let mut c = c;
        let mut lsb = 0;
        if self.po {
            lsb = 1;
        } else if self.negated[0] != self.negated[1] {
            tmp = !tmp;
            lsb = 1;
        } else if self.negated[2] {
            c = !c;
            lsb = 1;
        }
        let c128 = if signed_final {
            i128::from(c as i32)
        } else {
            i128::from(c)
        };
        tmp = tmp + c128 + lsb;
        let mut result = if self.shift == 0 {
            tmp
        } else {
            let r = (tmp >> self.shift) as u64;
            if signed_final {
                i128::from(r as i64)
            } else {
                i128::from(r)
            }
        };
        if self.sat {
            result = clamp(result, 32, signed_final);
        }
        result as u32
    }
}
