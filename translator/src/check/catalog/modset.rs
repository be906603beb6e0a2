//! Typed modifier sets: which modifiers a form of an instruction takes, as groups with a
//! meaning (the rounding modes, the state spaces, the types it is defined for).
//!
//! A row's set is what the decoder of that form may consume, read from the decoder and checked
//! against the ISA's syntax block. The decoder still decides which combinations are valid; the
//! set lets the checker tell a modifier the instruction never takes (named with what it does
//! take) from one it takes but not in this combination.

use crate::types::ScalarType;

/// Modifiers of one meaning.
#[derive(Clone, Copy, Debug)]
pub enum Group {
    /// Keywords, without their dot.
    Words {
        meaning: &'static str,
        names: &'static [&'static str],
    },
    /// Type suffixes.
    Types(&'static [ScalarType]),
    /// A family of names too large to list (`wgmma`'s 128 shapes), by a test and how a
    /// message shows it.
    Pattern {
        meaning: &'static str,
        shown: &'static str,
        test: fn(&str) -> bool,
    },
}

/// What a form takes: its groups, each once.
pub type ModSet = &'static [Group];

impl Group {
    pub const fn words(meaning: &'static str, names: &'static [&'static str]) -> Group {
        Group::Words { meaning, names }
    }

    /// Whether `.name` is of this group.
    pub fn contains(&self, name: &str) -> bool {
        match self {
            Group::Words { names, .. } => names.contains(&name),
            Group::Types(types) => ScalarType::from_name(name).is_some_and(|t| types.contains(&t)),
            Group::Pattern { test, .. } => test(name),
        }
    }

    /// The group's modifiers, without their dots (none listed for a pattern).
    pub fn names(&self) -> Vec<&'static str> {
        match self {
            Group::Words { names, .. } => names.to_vec(),
            Group::Types(types) => types.iter().map(|t| t.name()).collect(),
            Group::Pattern { .. } => Vec::new(),
        }
    }

    pub fn meaning(&self) -> &'static str {
        match self {
            Group::Words { meaning, .. } => meaning,
            Group::Types(_) => "type",
            Group::Pattern { meaning, .. } => meaning,
        }
    }
}

/// Whether `set` takes `.name`.
pub fn takes(set: ModSet, name: &str) -> bool {
    set.iter().any(|g| g.contains(name))
}

/// `set` for messages, after `lead`: `rounding .rn .rz, .ftz, type .f32 .f64`. A long set is
/// cut between groups into several notes, each short enough to be kept whole (a diagnostic's
/// note is bounded, `diag::MAX_MESSAGE`).
pub fn describe(set: ModSet, lead: &str) -> Vec<String> {
    const WIDTH: usize = 300;
    if set.is_empty() {
        return vec![format!("{lead}no modifiers")];
    }
    let mut notes = vec![lead.to_string()];
    for (k, g) in set.iter().enumerate() {
        let names: Vec<String> = g.names().iter().map(|n| format!(".{n}")).collect();
        let text = match g {
            Group::Words { names: [one], .. } if g.meaning() == *one => names.join(" "),
            Group::Pattern { meaning, shown, .. } => format!("{meaning} {shown}"),
            _ => format!("{} {}", g.meaning(), names.join(" ")),
        };
        let last = notes.last().map_or(0, String::len);
        if k > 0 && last + text.len() > WIDTH {
            notes.push(format!("and {text}"));
        } else if let Some(n) = notes.last_mut() {
            if k > 0 {
                n.push_str(", ");
            }
            n.push_str(&text);
        }
    }
    notes
}
