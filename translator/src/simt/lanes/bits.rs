//! Lane sets and integer arithmetic on the bits the analysis computes with.

use crate::ir::BinOp;

/// Every lane of a warp.
pub(super) const ALL: u32 = u32::MAX;

/// A value in each of the 32 lanes.
pub(super) type Lanes = [u64; 32];

pub(super) fn lane_mask(p: impl Fn(u32) -> bool) -> u32 {
    (0..32).filter(|&l| p(l)).fold(0, |m, l| m | 1 << l)
}

/// The lanes `lane(l)` names for each lane `l` in `lanes`; `None` if one is not a lane.
pub(super) fn lane_set(lanes: u32, lane: impl Fn(u32) -> u64) -> Option<u32> {
    let mut m = 0u32;
    for l in (0..32).filter(|l| lanes >> l & 1 != 0) {
        let s = lane(l);
        if s >= 32 {
            return None;
        }
        m |= 1 << s;
    }
    Some(m)
}

pub(super) fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub(super) fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        let sh = 64 - bits;
        ((x << sh) as i64) >> sh
    }
}

/// An integer operation on operands of `bits` bits (the result is masked by the caller);
/// `None` where the IR leaves it undefined or it is not an integer operation.
pub(super) fn binary(op: BinOp, a: u64, b: u64, bits: u32) -> Option<u64> {
    use BinOp::*;
    let m = width_mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    Some(match op {
        IAdd => a.wrapping_add(b),
        ISub => a.wrapping_sub(b),
        IMul => a.wrapping_mul(b),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl if b < u64::from(bits) => a << b,
        LShr if b < u64::from(bits) => a >> b,
        AShr if b < u64::from(bits) => (sa >> b) as u64,
        UDiv if b != 0 => a / b,
        UMod if b != 0 => a % b,
        IEq => u64::from(a == b),
        INe => u64::from(a != b),
        ULt => u64::from(a < b),
        ULe => u64::from(a <= b),
        UGt => u64::from(a > b),
        UGe => u64::from(a >= b),
        SLt => u64::from(sa < sb),
        SLe => u64::from(sa <= sb),
        SGt => u64::from(sa > sb),
        SGe => u64::from(sa >= sb),
        _ => return None,
    })
}
