//! PTX's fundamental types and state spaces (ISA 5.1, 5.2).

use std::fmt;

/// A fundamental PTX type (ISA 5.2.1), plus the packed half types and the predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
}

/// What kind of value a type holds; the axis of ISA Table 26.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Pred,
    Bits,
    Unsigned,
    Signed,
    Float,
}

impl ScalarType {
    pub const ALL: [ScalarType; 21] = [
        ScalarType::Pred,
        ScalarType::B8,
        ScalarType::B16,
        ScalarType::B32,
        ScalarType::B64,
        ScalarType::B128,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::S8,
        ScalarType::S16,
        ScalarType::S32,
        ScalarType::S64,
        ScalarType::F16,
        ScalarType::F16x2,
        ScalarType::Bf16,
        ScalarType::Bf16x2,
        ScalarType::Tf32,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// The type named by a modifier such as `s32` (without the dot). A `match` rather than a
    /// search of [`ScalarType::ALL`]: the checker asks this of nearly every modifier.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match name {
            "pred" => Pred,
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "tf32" => Tf32,
            "f32" => F32,
            "f64" => F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            Tf32 => "tf32",
            F32 => "f32",
            F64 => "f64",
        }
    }

    /// Size in bits; the predicate counts as 1.
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | Bf16 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Size in bytes in memory (a predicate cannot be stored; it reports 1).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn kind(self) -> TypeKind {
        use ScalarType::*;
        match self {
            Pred => TypeKind::Pred,
            B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U8 | U16 | U32 | U64 => TypeKind::Unsigned,
            S8 | S16 | S32 | S64 => TypeKind::Signed,
            F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | F32 | F64 => TypeKind::Float,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    pub fn is_integer(self) -> bool {
        matches!(self.kind(), TypeKind::Signed | TypeKind::Unsigned)
    }

    /// The unsigned integer type of the same size (for bit manipulation).
    pub fn unsigned_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::U8,
            16 => ScalarType::U16,
            32 => ScalarType::U32,
            64 => ScalarType::U64,
            _ => return None,
        })
    }

    pub fn signed_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::S8,
            16 => ScalarType::S16,
            32 => ScalarType::S32,
            64 => ScalarType::S64,
            _ => return None,
        })
    }

    pub fn bits_of(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::B8,
            16 => ScalarType::B16,
            32 => ScalarType::B32,
            64 => ScalarType::B64,
            128 => ScalarType::B128,
            _ => return None,
        })
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// A state space (ISA 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
    /// No space given: a generic address.
    Generic,
}

impl StateSpace {
    pub fn from_name(name: &str) -> Option<StateSpace> {
        Some(match name {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::Shared => "shared",
            StateSpace::Tex => "tex",
            StateSpace::Generic => "generic",
        }
    }
}

impl fmt::Display for StateSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::ScalarType;

    #[test]
    fn scalar_type_names_round_trip() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::from_name(t.name()), Some(t), "{t:?}");
        }
        for not_a_type in ["", "f", "s33", "global", "F32", "b256", "pred "] {
            assert_eq!(ScalarType::from_name(not_a_type), None, "{not_a_type:?}");
        }
    }
}
