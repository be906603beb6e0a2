//! All cases, by family. Each family module has `cases() -> Vec<Case>`.

mod int;
mod real_kernels;
mod tables;
// --- corpus ---
mod corpus;

use crate::Case;

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(int::cases());
    v.extend(real_kernels::cases());
    v.extend(tables::cases());
    // --- corpus ---
    v.extend(corpus::cases());
    v
}
