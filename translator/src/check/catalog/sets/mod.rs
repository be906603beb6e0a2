//! The modifier groups the rows' sets are made of, each declared once, and the sets, by ISA
//! chapter in the files below. Names are the ISA's, without their dots; a set lists what its
//! decoder accepts, not what it reads only to reject with a message of its own (integer `div`
//! reads `.approx` to say it has none).

mod arith;
mod groups;
mod matrix;
mod memory;

pub use arith::*;
pub use matrix::*;
pub use memory::*;
