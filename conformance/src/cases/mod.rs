//! All cases, by family. Each family module has `cases() -> Vec<Case>`.

mod async_copy;
mod bulk_multicast;
mod cmp;
mod convert;
mod convert_model;
mod corpus;
mod extended;
mod float;
mod float_approx;
mod float_bits;
pub mod fuzz_regressions;
mod int;
mod int_bits;
mod kernel_case;
mod ldst;
mod logic;
mod matrix;
mod mbarrier;
mod moves;
mod operands;
mod prmt;
mod real_kernels;
mod sm90;
mod spaces;
mod tables;
mod tensor_copy;
mod tensor_four_rows;
mod tensor_im2col;
mod tensor_im2col_wide;
mod tensor_model;
mod texture;
mod video;
mod video_model;
mod wgmma;

use crate::Case;

/// The family of the corpus kernels' cases, whose PTX is built on the machine that runs them.
pub const CORPUS_FAMILY: &str = corpus::FAMILY;

pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(float::cases());
    v.extend(cmp::cases());
    v.extend(int::cases());
    v.extend(real_kernels::cases());
    v.extend(tables::cases());
    v.extend(int_bits::cases());
    v.extend(extended::cases());
    v.extend(logic::cases());
    v.extend(prmt::cases());
    v.extend(convert::cases());
    v.extend(ldst::cases());
    v.extend(moves::cases());
    v.extend(operands::cases());
    v.extend(spaces::cases());
    v.extend(sm90::cases());
    v.extend(mbarrier::cases());
    v.extend(bulk_multicast::cases());
    v.extend(tensor_copy::cases());
    v.extend(tensor_four_rows::cases());
    v.extend(tensor_im2col::cases());
    v.extend(tensor_im2col_wide::cases());
    v.extend(async_copy::cases());
    v.extend(video::cases());
    v.extend(matrix::cases());
    v.extend(wgmma::cases());
    v.extend(corpus::cases());
    v.extend(texture::cases());
    v.extend(fuzz_regressions::cases());
    v
}
