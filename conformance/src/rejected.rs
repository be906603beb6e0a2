//! Cases whose PTX is invalid: the expectation is a checker error at a given operand.

use std::ops::Range;

use ptxvk_translator::{Program, SourceFile, diag::Severity};

use crate::{Case, Outcome};

/// A case that passes when checking `ptx` fails with an error whose span lies inside `at` (byte
/// offsets into `ptx`, normally one operand). `rule` says why the ISA rejects it, for reports.
pub fn rejected(
    family: &'static str,
    name: impl Into<String>,
    ptx: String,
    at: Range<usize>,
    rule: impl Into<String>,
) -> Case {
    let name = name.into();
    let rule = rule.into();
    let text = ptx.clone();
    let file = format!("{}.ptx", name.replace('/', "_"));
    Case {
        name,
        family,
        ptx,
        run: Box::new(move |_ctx| check_rejected(&file, &text, &at, &rule)),
    }
}

/// The outcome of checking `text`, which must fail inside `at`.
pub fn check_rejected(file: &str, text: &str, at: &Range<usize>, rule: &str) -> Outcome {
    let operand = text.get(at.clone()).unwrap_or("?");
    match Program::parse(SourceFile::new(file, text)) {
        Ok(_) => Outcome::Fail(format!(
            "accepted, but the ISA rejects `{operand}` ({rule})"
        )),
        Err(d) => {
            let hit = d.items.iter().any(|i| {
                i.severity == Severity::Error
                    && i.span.start as usize >= at.start
                    && i.span.end as usize <= at.end
            });
            if hit {
                Outcome::Pass
            } else {
                Outcome::Fail(format!(
                    "rejected, but not at `{operand}` ({rule}): {}",
                    d.short().trim()
                ))
            }
        }
    }
}
