//! The parser alone: both the hand-written parser and the grammar it falls back to.

use ptxvk_translator::parse;

/// One input.
pub fn run(data: &[u8]) {
    let src = crate::source(data);
    let text = src.text.as_str();
    let (module, diags) = parse::parse(text);
    let len = text.len() as u32;
    for d in &diags {
        assert!(d.span.end <= len && d.span.start <= d.span.end, "{d:?}");
    }
    let errors = diags
        .iter()
        .any(|d| d.severity == ptxvk_translator::diag::Severity::Error);
    assert!(
        module.is_some() || errors,
        "no module and no error for this input"
    );
    // What the hand-written parser accepts, the grammar must accept too: it is the reference
    // the fast path was written against (the grammar is far slower, so only for small inputs).
    if text.len() <= 4096 && parse::fast_parser_accepts(text) {
        let (grammar, gdiags) = parse::parse_with_grammar(text);
        assert!(
            grammar.is_some()
                && gdiags
                    .iter()
                    .all(|d| d.severity != ptxvk_translator::diag::Severity::Error),
            "the fast parser accepts what the grammar rejects: {gdiags:?}"
        );
    }
}
