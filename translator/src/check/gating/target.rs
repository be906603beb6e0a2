//! A `.target` architecture as the gating rows read it: its number and its `a`/`f` suffix.

/// What a `.target` architecture string says beyond its number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Suffix {
    /// `sm_XXX`: the features common to every later architecture only.
    #[default]
    None,
    /// `sm_XXXa`: this architecture's own features too.
    Specific,
    /// `sm_XXXf`: the features of its family.
    Family,
}

/// A module's target architecture: the number and suffix of its `.target` (the highest, when
/// several are named).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arch {
    pub sm: u32,
    pub suffix: Suffix,
}

impl Arch {
    /// `sm_120a`, `compute_121f`, `sm_90`; `None` for what is not an architecture.
    pub fn parse(target: &str) -> Option<Arch> {
        let num = target
            .strip_prefix("sm_")
            .or_else(|| target.strip_prefix("compute_"))?;
        let digits = num.chars().take_while(|c| c.is_ascii_digit()).count();
        let suffix = match &num[digits..] {
            "" => Suffix::None,
            "a" => Suffix::Specific,
            "f" => Suffix::Family,
            _ => return None,
        };
        Some(Arch {
            sm: num[..digits].parse().ok()?,
            suffix,
        })
    }

    pub(crate) fn name(&self) -> String {
        let s = match self.suffix {
            Suffix::None => "",
            Suffix::Specific => "a",
            Suffix::Family => "f",
        };
        format!("sm_{}{s}", self.sm)
    }
}
