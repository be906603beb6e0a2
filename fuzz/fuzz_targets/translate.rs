//! The whole translator on arbitrary text: every kernel that parses is translated for the
//! default profile (lavapipe's) and, chosen by the input's first byte, one of the named
//! profiles; what comes out must pass spirv-val.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    ptxvk_fuzz::translate_and_validate(&ptxvk_fuzz::source(rest), pick);
});
