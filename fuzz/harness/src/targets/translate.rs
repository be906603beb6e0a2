//! The whole translator on arbitrary text: every kernel that parses is translated for the
//! default profile (lavapipe's) and, chosen by the input's last byte, one of the named
//! profiles; what comes out must pass spirv-val. The last byte, not the first, so that a PTX
//! file is an input as it stands (its final newline picks the profile): with the first, every
//! seed lost its first character and no longer parsed.

/// One input.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_last() else {
        return;
    };
    crate::translate_and_validate(&crate::source(rest), pick);
}
