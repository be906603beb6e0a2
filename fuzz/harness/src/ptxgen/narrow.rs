//! 8- and 16-bit types: arithmetic on `%rs` registers, conversions among the integer widths and
//! f32, and what a narrow load or store does to its bytes, from the ISA's `cvt` text and its
//! tables of operand sizes exceeding the instruction type (9.4.1: a narrow destination is
//! sign-extended for signed types and zero-extended otherwise; a wide source is chopped).

use arbitrary::Result;

use super::generate::Gen;
use super::{NH, NP, Src, Stmt};

/// 16-bit operations on `%rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HOp {
    Add,
    Sub,
    MulLo,
    MulHiU,
    MulHiS,
    And,
    Or,
    Xor,
    /// The amount is a 32-bit operand; amounts past 16 clamp.
    Shl,
    ShrU,
    ShrS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    /// The divisor is `b | 1`, as for 32 bits.
    DivU,
    RemU,
    /// `mul.wide.u16 %r{d}, %rs{a}, b`
    MulWideU,
    MulWideS,
    /// `setp.lt.s16 %p{d % NP}, %rs{a}, b`
    SetpLtS,
    /// `setp.ge.u16`
    SetpGeU,
    SetpEq,
}

const HOPS: [HOp; 22] = [
    HOp::Add,
    HOp::Sub,
    HOp::MulLo,
    HOp::MulHiU,
    HOp::MulHiS,
    HOp::And,
    HOp::Or,
    HOp::Xor,
    HOp::Shl,
    HOp::ShrU,
    HOp::ShrS,
    HOp::MinU,
    HOp::MinS,
    HOp::MaxU,
    HOp::MaxS,
    HOp::DivU,
    HOp::RemU,
    HOp::MulWideU,
    HOp::MulWideS,
    HOp::SetpLtS,
    HOp::SetpGeU,
    HOp::SetpEq,
];

/// A narrow memory or conversion type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowTy {
    U8,
    S8,
    U16,
    S16,
    B16,
}

impl NarrowTy {
    pub fn name(self) -> &'static str {
        match self {
            NarrowTy::U8 => "u8",
            NarrowTy::S8 => "s8",
            NarrowTy::U16 => "u16",
            NarrowTy::S16 => "s16",
            NarrowTy::B16 => "b16",
        }
    }
    pub fn bytes(self) -> u32 {
        match self {
            NarrowTy::U8 | NarrowTy::S8 => 1,
            _ => 2,
        }
    }
    /// `v`'s low bytes of this type, extended to 32 bits as a load into a wider register does.
    pub fn extend(self, v: u32) -> u32 {
        match self {
            NarrowTy::U8 => v & 0xff,
            NarrowTy::S8 => v as u8 as i8 as i32 as u32,
            NarrowTy::U16 | NarrowTy::B16 => v & 0xffff,
            NarrowTy::S16 => v as u16 as i16 as i32 as u32,
        }
    }
}

/// Conversions: `cvt.DST.SRC` with the registers the name gives (`R` `%r`, `H` `%rs`, `D` `%rd`,
/// `F` `%f`); `Sat` clamps to the destination's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NCvt {
    U16U32,
    S16S32,
    SatS16S32,
    SatU16S32,
    SatU16U32,
    U8U32,
    SatS8S32,
    U32U16,
    S32S16,
    S32S8,
    U32U8,
    U8U16,
    S8S16,
    SatS8S16,
    SatU8S16,
    SatS16U16,
    S64S16,
    U16U64,
    /// `cvt.rn.f32.s16 %f, %rs`
    F32S16,
    F32U8,
    /// `cvt.rzi.s16.f32 %rs, %f`: float to integer saturates, NaN to 0.
    S16F32Rzi,
    U8F32Rni,
    U16F32Rzi,
}

const NCVTS: [NCvt; 23] = [
    NCvt::U16U32,
    NCvt::S16S32,
    NCvt::SatS16S32,
    NCvt::SatU16S32,
    NCvt::SatU16U32,
    NCvt::U8U32,
    NCvt::SatS8S32,
    NCvt::U32U16,
    NCvt::S32S16,
    NCvt::S32S8,
    NCvt::U32U8,
    NCvt::U8U16,
    NCvt::S8S16,
    NCvt::SatS8S16,
    NCvt::SatU8S16,
    NCvt::SatS16U16,
    NCvt::S64S16,
    NCvt::U16U64,
    NCvt::F32S16,
    NCvt::F32U8,
    NCvt::S16F32Rzi,
    NCvt::U8F32Rni,
    NCvt::U16F32Rzi,
];

/// Register kinds of an operand or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    R,
    H,
    D,
    F,
}

impl NCvt {
    /// The PTX text's type suffixes, destination kind, source kind.
    pub fn parts(self) -> (&'static str, Kind, Kind) {
        use Kind::*;
        match self {
            NCvt::U16U32 => ("u16.u32", H, R),
            NCvt::S16S32 => ("s16.s32", H, R),
            NCvt::SatS16S32 => ("sat.s16.s32", H, R),
            NCvt::SatU16S32 => ("sat.u16.s32", H, R),
            NCvt::SatU16U32 => ("sat.u16.u32", H, R),
            NCvt::U8U32 => ("u8.u32", H, R),
            NCvt::SatS8S32 => ("sat.s8.s32", H, R),
            NCvt::U32U16 => ("u32.u16", R, H),
            NCvt::S32S16 => ("s32.s16", R, H),
            NCvt::S32S8 => ("s32.s8", R, H),
            NCvt::U32U8 => ("u32.u8", R, H),
            NCvt::U8U16 => ("u8.u16", H, H),
            NCvt::S8S16 => ("s8.s16", H, H),
            NCvt::SatS8S16 => ("sat.s8.s16", H, H),
            NCvt::SatU8S16 => ("sat.u8.s16", H, H),
            NCvt::SatS16U16 => ("sat.s16.u16", H, H),
            NCvt::S64S16 => ("s64.s16", D, H),
            NCvt::U16U64 => ("u16.u64", H, D),
            NCvt::F32S16 => ("rn.f32.s16", F, H),
            NCvt::F32U8 => ("rn.f32.u8", F, H),
            NCvt::S16F32Rzi => ("rzi.s16.f32", H, F),
            NCvt::U8F32Rni => ("rni.u8.f32", H, F),
            NCvt::U16F32Rzi => ("rzi.u16.f32", H, F),
        }
    }

    /// The integer result of a conversion from an integer source `x` (the source register's
    /// bits), as the destination register holds it (sign- or zero-extended to its width).
    pub fn int(self, x: u64) -> u64 {
        let sat = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
        let (s32, s16) = (x as u32 as i32 as i64, x as u16 as i16 as i64);
        let sext16 = |v: i64| v as i16 as u16 as u64;
        let sext8 = |v: i64| v as i8 as i16 as u16 as u64;
        match self {
            NCvt::U16U32 | NCvt::S16S32 => x & 0xffff,
            NCvt::SatS16S32 => sext16(sat(s32, -32768, 32767)),
            NCvt::SatU16S32 => sat(s32, 0, 65535) as u64,
            NCvt::SatU16U32 => (x as u32).min(65535) as u64,
            NCvt::U8U32 | NCvt::U8U16 => x & 0xff,
            NCvt::SatS8S32 => sext8(sat(s32, -128, 127)),
            NCvt::U32U16 => x & 0xffff,
            NCvt::S32S16 => s16 as u32 as u64,
            NCvt::S32S8 => x as u8 as i8 as i32 as u32 as u64,
            NCvt::U32U8 => x & 0xff,
            NCvt::S8S16 => sext8(x as u8 as i8 as i64),
            NCvt::SatS8S16 => sext8(sat(s16, -128, 127)),
            NCvt::SatU8S16 => sat(s16, 0, 255) as u64,
            NCvt::SatS16U16 => (x as u16).min(32767) as u64,
            NCvt::S64S16 => s16 as u64,
            NCvt::U16U64 => x & 0xffff,
            // Conversions with a float side: see `float_to` and `to_float`.
            _ => 0,
        }
    }

    /// A float-to-integer conversion: the value rounded as the modifier says, then clamped to
    /// the destination's range, NaN to 0 (ISA, `cvt`: such conversions saturate), as a 16-bit
    /// register holds it.
    pub fn float_to(self, f: f32) -> u16 {
        match self {
            NCvt::S16F32Rzi => f.trunc() as i16 as u16,
            NCvt::U8F32Rni => u16::from(f.round_ties_even() as u8),
            NCvt::U16F32Rzi => f.trunc() as u16,
            _ => 0,
        }
    }

    /// An integer-to-float conversion of the 16-bit register `h` (exact: every value fits).
    pub fn to_float(self, h: u16) -> f32 {
        match self {
            NCvt::F32S16 => f32::from(h as i16),
            NCvt::F32U8 => f32::from(h as u8),
            _ => 0.0,
        }
    }
}

/// The result of a 16-bit operation: a `%rs`, a `%r` or a predicate.
pub enum HOut {
    H(u16),
    R(u32),
    P(bool),
}

/// `a op b` for 16-bit `a`; `b` is a 16-bit value except for the shifts' 32-bit amount.
pub fn half(op: HOp, a: u16, b: u32) -> HOut {
    let bh = b as u16;
    let (sa, sb) = (a as i16, bh as i16);
    HOut::H(match op {
        HOp::Add => a.wrapping_add(bh),
        HOp::Sub => a.wrapping_sub(bh),
        HOp::MulLo => a.wrapping_mul(bh),
        HOp::MulHiU => ((u32::from(a) * u32::from(bh)) >> 16) as u16,
        HOp::MulHiS => ((i32::from(sa) * i32::from(sb)) >> 16) as u16,
        HOp::And => a & bh,
        HOp::Or => a | bh,
        HOp::Xor => a ^ bh,
        HOp::Shl => a.checked_shl(b).unwrap_or(0),
        HOp::ShrU => a.checked_shr(b).unwrap_or(0),
        HOp::ShrS => (sa >> b.min(15)) as u16,
        HOp::MinU => a.min(bh),
        HOp::MinS => sa.min(sb) as u16,
        HOp::MaxU => a.max(bh),
        HOp::MaxS => sa.max(sb) as u16,
        HOp::DivU => a / (bh | 1),
        HOp::RemU => a % (bh | 1),
        HOp::MulWideU => return HOut::R(u32::from(a) * u32::from(bh)),
        HOp::MulWideS => return HOut::R((i32::from(sa) * i32::from(sb)) as u32),
        HOp::SetpLtS => return HOut::P(sa < sb),
        HOp::SetpGeU => return HOut::P(a >= bh),
        HOp::SetpEq => return HOut::P(a == bh),
    })
}

/// The PTX text of `Stmt::Half`.
pub fn print_half(op: HOp, d: u8, a: u8, b: Src) -> String {
    let shift = matches!(op, HOp::Shl | HOp::ShrU | HOp::ShrS);
    let b = match b {
        Src::Imm(v) if shift => format!("{v}"),
        Src::Imm(v) => format!("{}", v & 0xffff),
        Src::Reg(r) if shift => format!("%r{r}"),
        Src::Reg(r) => format!("%rs{}", r % NH),
    };
    let (name, ty) = match op {
        HOp::Add => ("add", "u16"),
        HOp::Sub => ("sub", "s16"),
        HOp::MulLo => ("mul.lo", "u16"),
        HOp::MulHiU => ("mul.hi", "u16"),
        HOp::MulHiS => ("mul.hi", "s16"),
        HOp::And => ("and", "b16"),
        HOp::Or => ("or", "b16"),
        HOp::Xor => ("xor", "b16"),
        HOp::Shl => ("shl", "b16"),
        HOp::ShrU => ("shr", "u16"),
        HOp::ShrS => ("shr", "s16"),
        HOp::MinU => ("min", "u16"),
        HOp::MinS => ("min", "s16"),
        HOp::MaxU => ("max", "u16"),
        HOp::MaxS => ("max", "s16"),
        HOp::DivU => ("div", "u16"),
        HOp::RemU => ("rem", "u16"),
        HOp::MulWideU => return format!("mul.wide.u16 %r{d}, %rs{a}, {b};"),
        HOp::MulWideS => return format!("mul.wide.s16 %r{d}, %rs{a}, {b};"),
        HOp::SetpLtS => return format!("setp.lt.s16 %p{}, %rs{a}, {b};", d % NP),
        HOp::SetpGeU => return format!("setp.ge.u16 %p{}, %rs{a}, {b};", d % NP),
        HOp::SetpEq => return format!("setp.eq.u16 %p{}, %rs{a}, {b};", d % NP),
    };
    if matches!(op, HOp::DivU | HOp::RemU) {
        // As for 32 bits: the ISA leaves division by zero open.
        return format!("or.b16 %hd, {b}, 1;\n\t{name}.{ty} %rs{d}, %rs{a}, %hd;");
    }
    format!("{name}.{ty} %rs{d}, %rs{a}, {b};")
}

/// The register named `i` of kind `k`.
pub fn reg(k: Kind, i: u8) -> String {
    match k {
        Kind::R => format!("%r{i}"),
        Kind::H => format!("%rs{}", i % NH),
        Kind::D => format!("%rd{}", i % super::ND),
        Kind::F => format!("%f{}", i % super::NF),
    }
}

impl Gen<'_, '_> {
    pub(super) fn hreg(&mut self) -> Result<u8> {
        self.u.int_in_range(0..=NH - 1)
    }

    /// A 16-bit statement: arithmetic or a conversion.
    pub(super) fn narrow(&mut self) -> Result<Stmt> {
        Ok(if self.u.arbitrary()? {
            let op = *self.u.choose(&HOPS)?;
            let shift = matches!(op, HOp::Shl | HOp::ShrU | HOp::ShrS);
            let b = if self.u.ratio(1, 3)? {
                // The 16-bit edges, and for shifts the amounts around the width.
                const EDGES: [u32; 8] = [0, 1, 15, 16, 17, 0x7fff, 0x8000, 0xffff];
                Src::Imm(if self.u.arbitrary()? {
                    *self.u.choose(&EDGES)?
                } else {
                    self.u.arbitrary::<u16>()?.into()
                })
            } else if shift {
                Src::Reg(self.reg()?)
            } else {
                Src::Reg(self.hreg()?)
            };
            let d = if matches!(op, HOp::MulWideU | HOp::MulWideS) {
                self.reg()?
            } else {
                self.hreg()?
            };
            Stmt::Half {
                op,
                d,
                a: self.hreg()?,
                b,
            }
        } else {
            Stmt::CvtN {
                op: *self.u.choose(&NCVTS)?,
                d: self.u.int_in_range(0..=super::NR - 1)?,
                a: self.u.int_in_range(0..=super::NR - 1)?,
            }
        })
    }

    /// A narrow store and load round in shared memory or `gm`.
    pub(super) fn narrow_round(&mut self, global: bool) -> Result<Stmt> {
        let half = self.u.arbitrary()?;
        let (st, ld): (&[NarrowTy], &[NarrowTy]) = if half {
            (
                &[NarrowTy::U16, NarrowTy::S16, NarrowTy::B16],
                &[NarrowTy::U16, NarrowTy::S16, NarrowTy::B16],
            )
        } else {
            (&[NarrowTy::U8, NarrowTy::S8], &[NarrowTy::U8, NarrowTy::S8])
        };
        Ok(Stmt::NarrowRound {
            global,
            ty: *self.u.choose(st)?,
            load: *self.u.choose(ld)?,
            to32: self.u.arbitrary()?,
            v: self.hreg()?,
            sel: self.reg()?,
            d: self.reg()?,
            i: self.reg()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values worked from the ISA's text by hand.
    #[test]
    fn conversions_follow_the_isa() {
        // Chopped, and a narrow destination extended by the instruction type's signedness.
        assert_eq!(NCvt::U16U32.int(0x1234_8765), 0x8765);
        assert_eq!(NCvt::S8S16.int(0x0080), 0xff80);
        assert_eq!(NCvt::U8U16.int(0xff80), 0x0080);
        assert_eq!(NCvt::S32S8.int(0x00fe), 0xffff_fffe);
        assert_eq!(NCvt::S32S16.int(0x8000), 0xffff_8000);
        assert_eq!(NCvt::S64S16.int(0xffff), u64::MAX);
        // Saturation clamps to the destination type's range.
        assert_eq!(NCvt::SatS16S32.int(0x0001_0000), 0x7fff);
        assert_eq!(NCvt::SatS16S32.int(0xffff_0000), 0x8000);
        assert_eq!(NCvt::SatU16S32.int(0xffff_ffff), 0);
        assert_eq!(NCvt::SatU16U32.int(0xffff_ffff), 0xffff);
        assert_eq!(NCvt::SatS8S32.int(0x8000_0000), 0xff80);
        assert_eq!(NCvt::SatU8S16.int(0x8000), 0);
        assert_eq!(NCvt::SatU8S16.int(0x0100), 0xff);
        assert_eq!(NCvt::SatS16U16.int(0x8000), 0x7fff);
        // Float to integer saturates, NaN to 0; rni rounds ties to even.
        assert_eq!(NCvt::S16F32Rzi.float_to(-40000.0), 0x8000);
        assert_eq!(NCvt::S16F32Rzi.float_to(-2.9), (-2i16) as u16);
        assert_eq!(NCvt::U8F32Rni.float_to(2.5), 2);
        assert_eq!(NCvt::U8F32Rni.float_to(300.0), 255);
        assert_eq!(NCvt::U8F32Rni.float_to(-1.0), 0);
        assert_eq!(NCvt::U16F32Rzi.float_to(f32::NAN), 0);
        assert_eq!(NCvt::F32S16.to_float(0x8000), -32768.0);
        assert_eq!(NCvt::F32U8.to_float(0x1ff), 255.0);
    }

    #[test]
    fn half_arithmetic_follows_the_isa() {
        let h = |op, a, b| match half(op, a, b) {
            HOut::H(v) => u32::from(v),
            HOut::R(v) => v,
            HOut::P(p) => u32::from(p),
        };
        assert_eq!(h(HOp::Add, 0xffff, 2), 1);
        assert_eq!(h(HOp::MulHiS, 0x8000, 0x8000), 0x4000);
        assert_eq!(h(HOp::MulHiU, 0xffff, 0xffff), 0xfffe);
        // Shift amounts past the width clamp to it.
        assert_eq!(h(HOp::Shl, 1, 16), 0);
        assert_eq!(h(HOp::ShrS, 0x8000, 40), 0xffff);
        assert_eq!(h(HOp::ShrU, 0x8000, 0x1_0000), 0);
        assert_eq!(h(HOp::MinS, 0x8000, 1), 0x8000);
        assert_eq!(h(HOp::MinU, 0x8000, 1), 1);
        assert_eq!(h(HOp::MulWideS, 0xffff, 0x7fff), 0xffff_8001);
        assert_eq!(h(HOp::MulWideU, 0xffff, 0xffff), 0xfffe_0001);
        assert_eq!(h(HOp::SetpLtS, 0xffff, 0), 1);
        assert_eq!(h(HOp::SetpGeU, 0xffff, 0), 1);
        assert_eq!(NarrowTy::S8.extend(0x80), 0xffff_ff80);
        assert_eq!(NarrowTy::B16.extend(0xffff_8000), 0x8000);
    }
}
