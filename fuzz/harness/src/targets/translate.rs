//! The whole translator on arbitrary text: every kernel that parses is translated for the
//! default profile (lavapipe's) and, chosen by the input's first byte, one of the named
//! profiles; what comes out must pass spirv-val.

/// One input.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    crate::translate_and_validate(&crate::source(rest), pick);
}
