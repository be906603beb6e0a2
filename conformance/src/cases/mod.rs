//! All cases, by family. Each family module has `cases() -> Vec<Case>`.

mod int;
mod real_kernels;
mod tables;
// --- integer, extended precision, logic/shift, prmt ---
mod extended;
mod int_bits;
mod logic;
mod prmt;
// --- textures ---
mod texture;

use crate::Case;

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(int::cases());
    v.extend(real_kernels::cases());
    v.extend(tables::cases());
    // --- integer, extended precision, logic/shift, prmt ---
    v.extend(int_bits::cases());
    v.extend(extended::cases());
    v.extend(logic::cases());
    v.extend(prmt::cases());
    // --- textures ---
    v.extend(texture::cases());
    v
}
