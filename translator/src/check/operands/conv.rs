//! The ISA's operand type rules (Tables 26 to 28) and the conversion of constant operands.

use crate::check::consteval::Const;
use crate::check::typed::*;
use crate::types::{ScalarType, TypeKind};

/// Which of the ISA's operand type rules an operand follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRule {
    /// Table 26: same size; kinds as the table allows.
    Strict,
    /// Tables 27/28 (`ld`, `st`, `cvt`): registers may be wider than the instruction type.
    Relaxed,
}

/// Table 26: may an operand of type `op` be used with instruction type `inst` (sizes aside)?
pub fn kinds_agree(inst: ScalarType, op: ScalarType) -> bool {
    use TypeKind::*;
    match (inst.kind(), op.kind()) {
        (Pred, Pred) => true,
        (Pred, _) | (_, Pred) => false,
        (Bits, _) => true,
        (Signed | Unsigned, Float) => false,
        (Signed | Unsigned, _) => true,
        (Float, Bits) => true,
        (Float, Float) => inst == op,
        (Float, _) => false,
    }
}

/// The conversion from a source register of type `reg` to instruction type `inst`, or why the
/// pair is invalid (Table 26 under `Strict`, Table 27 under `Relaxed`).
pub fn src_conv(inst: ScalarType, reg: ScalarType, rule: TypeRule) -> Result<Conv, String> {
    let (ib, rb) = (inst.bits(), reg.bits());
    if !kinds_agree(inst, reg) {
        return Err(format!(
            "a {reg} operand cannot be used with a {inst} instruction"
        ));
    }
    if ib == rb {
        return Ok(Conv::None);
    }
    if rule == TypeRule::Strict {
        return Err(format!(
            "a {reg} operand does not match the {inst} instruction type (sizes differ)"
        ));
    }
    if rb < ib {
        return Err(format!(
            "a {reg} register is narrower than the {inst} instruction type (Table 27: the register must be at least as wide)"
        ));
    }
    if inst.is_float() && reg.kind() != TypeKind::Bits {
        return Err(format!(
            "a {reg} register cannot be used with a {inst} instruction (Table 27: floating-point sizes must match)"
        ));
    }
    if inst == ScalarType::B128 {
        return Err(format!(
            "a .b128 instruction needs a .b128 operand, not {reg}"
        ));
    }
    Ok(Conv::Chop)
}

/// The conversion from instruction type `inst` to a destination register of type `reg`
/// (Table 26 under `Strict`, Table 28 under `Relaxed`).
pub fn dst_conv(inst: ScalarType, reg: ScalarType, rule: TypeRule) -> Result<Conv, String> {
    match src_conv(inst, reg, rule) {
        Ok(Conv::Chop) => Ok(if inst.is_signed() {
            Conv::Sext
        } else {
            Conv::Zext
        }),
        Ok(c) => Ok(c),
        Err(e) => Err(e.replace("Table 27", "Table 28")),
    }
}

/// Converts a constant to the bits of `ty` (ISA 4.5-4.6: integers are truncated to the size,
/// floating-point constants rounded to the size, predicates are "non-zero").
pub fn convert_const(c: Const, ty: ScalarType) -> Result<u64, String> {
    let mask = |bits: u32| {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    };
    match ty.kind() {
        TypeKind::Pred => match c {
            Const::S64(_) | Const::U64(_) => Ok(u64::from(c.as_bits_u64() != 0)),
            _ => Err("a predicate constant must be an integer".into()),
        },
        TypeKind::Signed | TypeKind::Unsigned => match c {
            Const::S64(_) | Const::U64(_) => Ok(c.as_bits_u64() & mask(ty.bits())),
            _ => Err(format!(
                "a floating-point constant cannot be used as {ty}; write an integer"
            )),
        },
        TypeKind::Float => {
            let v = match c {
                Const::F64(v) => v,
                Const::F32(v) => f64::from(v),
                Const::S64(_) | Const::U64(_) => {
                    return Err(format!(
                        "an integer constant cannot be used as {ty}; write a floating-point constant such as 1.0 or 0f3F800000"
                    ));
                }
            };
            float_bits(v, c, ty)
        }
        TypeKind::Bits => match c {
            Const::S64(_) | Const::U64(_) => Ok(c.as_bits_u64() & mask(ty.bits())),
            Const::F32(v) if ty.bits() == 32 => Ok(u64::from(v.to_bits())),
            Const::F64(v) => {
                let fty = match ty.bits() {
                    16 => ScalarType::F16,
                    32 => ScalarType::F32,
                    64 => ScalarType::F64,
                    _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
                };
                float_bits(v, c, fty)
            }
            Const::F32(v) => {
                let fty = match ty.bits() {
                    16 => ScalarType::F16,
                    64 => ScalarType::F64,
                    _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
                };
                float_bits(f64::from(v), c, fty)
            }
        },
    }
}

fn float_bits(v: f64, c: Const, ty: ScalarType) -> Result<u64, String> {
    Ok(match ty {
        ScalarType::F64 => v.to_bits(),
        ScalarType::F32 => match c {
            Const::F32(f) => u64::from(f.to_bits()),
            _ => u64::from((v as f32).to_bits()),
        },
        ScalarType::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        ScalarType::Bf16 => u64::from(half::bf16::from_f64(v).to_bits()),
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            return Err(format!("{ty} operands must be registers"));
        }
        _ => return Err(format!("a floating-point constant cannot be used as {ty}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    /// ISA Tables 27 and 28, transcribed once for this test and the conformance suite: rows
    /// are instruction types, columns source (27) or destination (28) operand types in the
    /// order of `COLS`; `-` no conversion, `c` chop, `z`/`s` zero/sign extension, `x` invalid.
    fn table(n: &str) -> Vec<(ScalarType, &'static str)> {
        include_str!("../../../../conformance/data/isa-9.4.1-tables-27-28.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next()? == n).then_some(())?;
                Some((ScalarType::from_name(w.next()?)?, w.next()?))
            })
            .collect()
    }

    const COLS: [ScalarType; 16] = [
        B8, B16, B32, B64, B128, S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, F64,
    ];

    fn row(s: &str) -> Vec<char> {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn table_27_every_cell() {
        let rows = table("27");
        assert_eq!(rows.len(), 16);
        for (inst, cells) in rows {
            let cells = row(cells);
            assert_eq!(cells.len(), 16, "{inst}");
            for (col, want) in COLS.iter().zip(cells) {
                let got = src_conv(inst, *col, TypeRule::Relaxed);
                match want {
                    '-' => assert_eq!(got, Ok(Conv::None), "{inst} <- {col}"),
                    'c' => assert_eq!(got, Ok(Conv::Chop), "{inst} <- {col}"),
                    _ => assert!(
                        got.is_err(),
                        "{inst} <- {col} should be invalid, got {got:?}"
                    ),
                }
            }
        }
    }

    #[test]
    fn table_28_every_cell() {
        let rows = table("28");
        assert_eq!(rows.len(), 16);
        for (inst, cells) in rows {
            let cells = row(cells);
            assert_eq!(cells.len(), 16, "{inst}");
            for (col, want) in COLS.iter().zip(cells) {
                let got = dst_conv(inst, *col, TypeRule::Relaxed);
                match want {
                    '-' => assert_eq!(got, Ok(Conv::None), "{inst} -> {col}"),
                    's' => assert_eq!(got, Ok(Conv::Sext), "{inst} -> {col}"),
                    'z' => assert_eq!(got, Ok(Conv::Zext), "{inst} -> {col}"),
                    _ => assert!(
                        got.is_err(),
                        "{inst} -> {col} should be invalid, got {got:?}"
                    ),
                }
            }
        }
    }

    /// ISA Table 26 (same sizes): rows instruction kind, columns operand kind b s u f.
    #[test]
    fn table_26_every_cell() {
        let by_kind = [B32, S32, U32, F32];
        let table = [(B32, "oooo"), (S32, "ooox"), (U32, "ooox"), (F32, "oxxo")];
        for (inst, cells) in table {
            for (op, want) in by_kind.iter().zip(cells.chars()) {
                let got = src_conv(inst, *op, TypeRule::Strict);
                assert_eq!(got.is_ok(), want == 'o', "{inst} with {op}: {got:?}");
            }
        }
        // Strict rules need equal sizes.
        assert!(src_conv(U32, U64, TypeRule::Strict).is_err());
        assert!(src_conv(B16, B32, TypeRule::Strict).is_err());
    }

    #[test]
    fn constants_convert_per_isa_4_5() {
        assert_eq!(convert_const(Const::S64(-1), U16), Ok(0xffff));
        assert_eq!(convert_const(Const::F64(1.0), F32), Ok(0x3f80_0000));
        assert_eq!(convert_const(Const::F32(1.5), F64), Ok(1.5f64.to_bits()));
        assert_eq!(convert_const(Const::F64(1.0), B32), Ok(0x3f80_0000));
        assert_eq!(convert_const(Const::S64(5), Pred), Ok(1));
        assert!(convert_const(Const::S64(1), F32).is_err());
        assert!(convert_const(Const::F64(1.0), S32).is_err());
    }
}
