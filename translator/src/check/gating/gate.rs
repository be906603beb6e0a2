//! One row of the gating table, and the constructors the table is written with.

/// A PTX ISA version, `(major, minor)`.
pub type Version = (u32, u32);

/// One row: instructions (or special registers, or directives) named `op` whose modifiers meet
/// every condition in `when` need PTX ISA `ptx` and target `sm_<sm>` or later.
///
/// Conditions: `"sync"` — the modifier `.sync` is present; `"a|b"` — one of them is; `"!sync"` —
/// `.sync` is absent; `"~u64|s64"` — one of them is, but the error points at the opcode rather
/// than at it (where the whole instruction form is what is new). Names in angle brackets are
/// facts about the operands that modifiers cannot express (see [`operand_facts`](super::operand_facts)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    pub op: &'static str,
    pub when: &'static [&'static str],
    pub ptx: Version,
    pub sm: u32,
    /// How the message names the feature; empty means `op.cond.cond` as written.
    pub what: &'static str,
}

pub(crate) const fn g(
    op: &'static str,
    when: &'static [&'static str],
    ptx: Version,
    sm: u32,
) -> Gate {
    gw(op, when, ptx, sm, "")
}

pub(crate) const fn gw(
    op: &'static str,
    when: &'static [&'static str],
    ptx: Version,
    sm: u32,
    what: &'static str,
) -> Gate {
    Gate {
        op,
        when,
        ptx,
        sm,
        what,
    }
}

/// Whether `gate`'s conditions hold for an instruction with `modifiers` and operand `facts`.
pub fn applies(gate: &Gate, modifiers: &[&str], facts: &[&str]) -> bool {
    gate.when.iter().all(|cond| {
        if let Some(absent) = cond.strip_prefix('!') {
            !modifiers.contains(&absent)
        } else {
            let cond = cond.strip_prefix('~').unwrap_or(cond);
            cond.split('|')
                .any(|alt| modifiers.contains(&alt) || facts.contains(&alt))
        }
    })
}
