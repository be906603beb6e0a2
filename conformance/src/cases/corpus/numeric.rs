//! Numerics (half.cu, double.cu, math.cu, intops.cu, fft.cu). Correctly rounded operations are
//! compared bit for bit; the `.approx` instructions within the ISA's stated bounds (each cited).

mod double;
mod fft;
mod halfp;
mod intops;
mod math;

use super::*;
use double::double;
use fft::fft;
use halfp::halfp;
use intops::intops;
use math::math;

const SIZES: [usize; 3] = [1, 1000, 65_537];

pub fn cases(v: &mut Vec<Case>) {
    halfp(v);
    double(v);
    math(v);
    intops(v);
    fft(v);
}
