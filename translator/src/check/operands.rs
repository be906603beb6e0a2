//! Operands (ISA chapter 6) and the type rules of ISA 9.4: Table 26 for ordinary instructions,
//! Tables 27 and 28 for the relaxed rules of `ld`, `st` and `cvt`.

mod conv;
mod place;
mod source;
mod special;

pub use conv::{TypeRule, convert_const};
