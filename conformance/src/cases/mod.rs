//! All cases, by family. Each family module has `cases() -> Vec<Case>`.

// --- float ---
mod cmp;
mod float;
mod float_approx;
mod float_bits;
// --- end float ---
mod int;
mod real_kernels;

use crate::Case;

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    // --- float ---
    v.extend(float::cases());
    v.extend(cmp::cases());
    // --- end float ---
    v.extend(int::cases());
    v.extend(real_kernels::cases());
    v
}
