//! The meaning of `nanosleep`.
//!
//! It has no effect on a program's results and Vulkan has no counterpart, so it emits nothing:
//! `nanosleep t` may sleep for any time in [0, 2t] (ISA), and 0 is in that range.

use super::Cx;
use crate::check::Src;

pub fn nanosleep(_cx: &mut Cx<'_>, _t: &Src) {}
