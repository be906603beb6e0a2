//! Names as the table writes them, and the special registers it gates: what the operand checks
//! need, kept apart from the instruction rows that come from the catalog.

use std::sync::OnceLock;

use super::table::FORM_GATES;
use crate::check::map::Map;

/// `op` as the table names it, for an instruction opcode or a special register name.
pub(crate) fn table_name(name: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if let Some(n) = name.strip_prefix("%envreg")
        && n.parse::<u8>().is_ok()
    {
        return Cow::Borrowed("%envreg");
    }
    if let Some(n) = name.strip_prefix("%pm") {
        if n.ends_with("_64") {
            return Cow::Borrowed("%pm_64");
        }
        return match n.parse::<u8>() {
            Ok(0..=3) => Cow::Borrowed("%pm0..3"),
            Ok(_) => Cow::Borrowed("%pm4..7"),
            Err(_) => Cow::Borrowed(name),
        };
    }
    if name.starts_with("%cluster") || name.starts_with("%nclusterid") {
        return Cow::Borrowed("%cluster");
    }
    Cow::Borrowed(name)
}

/// Whether `name` is a special register the gating table knows (supported by ptxvk or not).
pub fn is_gated_special(name: &str) -> bool {
    static SPECIALS: OnceLock<Map<&'static str, ()>> = OnceLock::new();
    let specials = SPECIALS.get_or_init(|| {
        FORM_GATES
            .iter()
            .flat_map(|g| g.op.split('|'))
            .filter(|op| op.starts_with('%'))
            .map(|op| (op, ()))
            .collect()
    });
    name.starts_with('%') && specials.contains_key(table_name(name).as_ref())
}
