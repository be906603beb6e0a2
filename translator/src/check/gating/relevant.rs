//! What one module's declaration leaves to check, kept apart from the table itself: the
//! checker's context holds it, and the table's rows come from the instruction catalog, which
//! names the decoders that use that context.

use super::names::table_name;
use crate::check::map::Map;

/// The rows that can fail in one module: those its `.version`/`.target` does not meet, and the
/// removed forms it does meet. Built once per module, so that instructions without such rows
/// (nearly all of them) skip the table, their operand facts and their `%`-names.
pub(crate) struct Relevant {
    pub(super) unmet: Map<&'static str, ()>,
    pub(super) removed: Map<&'static str, ()>,
    /// Some unmet row gates a special register.
    pub(super) specials: bool,
}

impl Relevant {
    /// Whether instruction `op` may fail the table under this module's declaration.
    pub(crate) fn op_may_fail(&self, op: &str) -> bool {
        self.unmet.contains_key(table_name(op).as_ref()) || self.removed.contains_key(op)
    }

    /// Whether `name` may be a special register this module may not use.
    pub(crate) fn special_may_fail(&self, name: &str) -> bool {
        self.specials && name.starts_with('%') && self.unmet.contains_key(table_name(name).as_ref())
    }

    pub(crate) fn any_special(&self) -> bool {
        self.specials
    }
}
