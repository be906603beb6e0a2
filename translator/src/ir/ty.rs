//! The IR's scalar types and how PTX types map onto them.

use crate::types::ScalarType;

/// Scalar types. Integers are signless: operations say how they read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::I8 => 8,
            Ty::I16 | Ty::F16 => 16,
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }

    pub fn int(bits: u32) -> Ty {
        match bits {
            8 => Ty::I8,
            16 => Ty::I16,
            32 => Ty::I32,
            _ => Ty::I64,
        }
    }

    /// How a PTX type is held in the IR. `.bf16` is held as its 16 bits.
    pub fn of(t: ScalarType) -> Ty {
        use ScalarType::*;
        match t {
            Pred => Ty::Bool,
            B8 | U8 | S8 => Ty::I8,
            B16 | U16 | S16 | Bf16 => Ty::I16,
            F16 => Ty::F16,
            B32 | U32 | S32 | F16x2 | Bf16x2 | Tf32 => Ty::I32,
            F32 => Ty::F32,
            B64 | U64 | S64 | B128 => Ty::I64,
            F64 => Ty::F64,
        }
    }
}
