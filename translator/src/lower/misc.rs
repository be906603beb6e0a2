//! The meaning of miscellaneous and hint instructions: `nanosleep`, `prefetch`, `prefetchu`.
//!
//! They have no effect on a program's results, and Vulkan has no counterpart, so they emit
//! nothing: `nanosleep t` may sleep for any time in [0, 2t] (ISA), and 0 is in that range; a
//! prefetch is a performance hint.

use super::Cx;
use crate::check::Src;

pub fn nanosleep(_cx: &mut Cx<'_>, _t: &Src) {}

pub fn prefetch(_cx: &mut Cx<'_>) {}
