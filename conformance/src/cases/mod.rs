//! All cases, by family. Each family module has `cases() -> Vec<Case>`.

mod int;
mod real_kernels;
// --- data movement and conversion ---
mod convert;
mod convert_model;
mod kernel_case;
mod ldst;
mod moves;
mod operands;
mod spaces;

use crate::Case;

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(int::cases());
    v.extend(real_kernels::cases());
    // --- data movement and conversion ---
    v.extend(convert::cases());
    v.extend(ldst::cases());
    v.extend(moves::cases());
    v.extend(operands::cases());
    v.extend(spaces::cases());
    v
}
