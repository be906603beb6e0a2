//! The translator on generated, well-typed PTX (`crate::ptxgen`): straight-line integer and
//! float code, branches, loops with breaks, calls, shuffles, votes, barriers and shared memory.
//! Every program must parse and check, translate for lavapipe's profile, and validate; for the
//! named profiles (picked by the first byte) a refusal naming a missing device feature is fine.

use crate::ptxgen::{Features, Program};
use arbitrary::Unstructured;

/// One input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(pick) = u.arbitrary::<u8>() else {
        return;
    };
    let Ok(program) = Program::generate(&mut u, Features::ALL) else {
        return;
    };
    crate::translate_generated(&program.to_ptx(), pick);
}
