//! ISA 9.4 Tables 26-28, every cell: operand types against instruction types.
//!
//! Valid cells run: Table 26 with `mov` (an ordinary instruction: same size, kinds as the table
//! allows); Tables 27 and 28 with `st`/`cvt` (source operands, chopped) and `ld`/`cvt`
//! (destination operands, zero- or sign-extended), each against the model in `model.rs`.
//! Invalid cells must be rejected by the checker with an error at the offending operand.

mod cell;
mod model;

use ptxvk_translator::ScalarType::{self, *};

use self::cell::{Kernel, RunCell};
use crate::Case;
use crate::rejected::rejected;
use crate::values::{Rng, edges, random};

const T26: &str = "9.4 Table 26";
const T27: &str = "9.4.1 Table 27";
const T28: &str = "9.4.1 Table 28";

/// The columns of Tables 27 and 28, in the ISA's order.
const COLS: [ScalarType; 16] = [
    B8, B16, B32, B64, B128, S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, F64,
];

/// ISA Tables 27 and 28, transcribed in one file shared with the checker's unit tests.
const TABLES_27_28: &str = include_str!("../../../data/isa-9.4.1-tables-27-28.txt");

/// The rows of Table `n` (27 or 28): instruction type and one cell per column of `COLS`
/// (`-` no conversion, `c` chop, `z`/`s` zero/sign extension, `x` invalid).
fn table(n: &str) -> Vec<(ScalarType, &'static str)> {
    TABLES_27_28
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == n).then_some(())?;
            let inst = ScalarType::from_name(w.next()?)?;
            Some((inst, w.next()?))
        })
        .collect()
}

/// Elements per case: every edge value of the instruction type, then random ones.
const ROWS: usize = 48;

/// `ld`/`st` types (ISA 8.7.6.6/8.7.6.9: no `.f16`).
fn mem_type(t: ScalarType) -> bool {
    t != F16
}

/// `cvt` types (ISA 8.7.6.13: no bit-size types).
fn cvt_type(t: ScalarType) -> bool {
    !matches!(t.kind(), ptxvk_translator::types::TypeKind::Bits)
}

/// The other side of a `cvt` whose `inst` side is under test: an exact widening where there is
/// one, else `.rn` narrowing. Returns (type, rounding modifier).
fn cvt_partner(inst: ScalarType, inst_is_source: bool) -> (ScalarType, &'static str) {
    match (inst, inst_is_source) {
        (F16, true) => (F32, ""),
        (F32, true) => (F64, ""),
        (F64, true) => (F32, ".rn"),
        (F16, false) => (F32, ".rn"),
        (F32, false) => (F16, ""),
        (F64, false) => (F32, ""),
        (t, true) => (if t.is_signed() { S64 } else { U64 }, ""),
        // The source of a conversion into `t`: half as wide and of the same signedness (exact).
        (t, false) => (
            match t {
                S16 => S8,
                S32 => S16,
                S64 => S32,
                U16 => U8,
                U32 => U16,
                U64 => U32,
                other => other,
            },
            "",
        ),
    }
}

/// Values whose low `ty.bits()` are edge values and random values of `ty` (never a NaN where
/// `no_nan`), with random bits above them up to `width`.
fn values(ty: ScalarType, width: u32, no_nan: bool, seed: u64) -> Vec<u128> {
    let mut rng = Rng::new(seed);
    let mut low: Vec<u128> = if ty.bits() <= 64 {
        edges(ty).into_iter().map(u128::from).collect()
    } else {
        vec![0, 1, u128::MAX, 1 << 127, (1 << 64) - 1, 1 << 64]
    };
    while low.len() < ROWS {
        let v = if ty.bits() <= 64 {
            u128::from(random(ty, &mut rng))
        } else {
            u128::from(rng.next_u64()) | (u128::from(rng.next_u64()) << 64)
        };
        low.push(v);
    }
    low.into_iter()
        .map(|v| {
            let v = if no_nan && model::is_nan(v, ty) { 0 } else { v };
            let garbage = u128::from(rng.next_u64()) | (u128::from(rng.next_u64()) << 64);
            (v & model::mask(ty.bits())) | (garbage & !model::mask(ty.bits()) & model::mask(width))
        })
        .collect()
}

fn seed(name: &str) -> u64 {
    let mut h = crate::launch::Fnv::new();
    h.bytes(name.as_bytes());
    h.finish()
}

fn b(t: ScalarType) -> String {
    format!(".b{}", t.bits())
}

/// Table 26 with `mov` at 16, 32 and 64 bits: rows instruction kinds, columns operand kinds
/// (`o` okay, `x` invalid), as transcribed from the ISA.
fn table_26() -> Vec<Case> {
    const KINDS: [&str; 4] = ["b", "s", "u", "f"];
    const CELLS: [&str; 4] = ["oooo", "ooox", "ooox", "oxxo"];
    let mut v = Vec::new();
    for bits in [16u32, 32, 64] {
        let ty = |k: &str| ScalarType::from_name(&format!("{k}{bits}"));
        for (row, cells) in KINDS.iter().zip(CELLS) {
            // ISA 8.7.6.2: `mov` has no `.f16` type; the 16-bit float row has no ordinary
            // instruction of ISA 4.1 to test it with.
            let Some(inst) = ty(row).filter(|t| !(bits == 16 && t.is_float())) else {
                continue;
            };
            for (col, cell) in KINDS.iter().zip(cells.chars()) {
                let Some(op) = ty(col) else { continue };
                let name = format!("tables/26/mov{inst}/{}", op.name());
                if cell == 'o' {
                    let inputs = values(op, bits, false, seed(&name));
                    v.push(
                        RunCell {
                            family: T26,
                            kernel: Kernel {
                                regs: vec![(op, "%a"), (op, "%d")],
                                body: vec![
                                    format!("ld.global{} %a, [%ia];", b(op)),
                                    format!("mov{inst} %d, %a;"),
                                    format!("st.global{} [%oa], %d;", b(op)),
                                ],
                                in_bytes: bits / 8,
                                out_bytes: bits / 8,
                            },
                            // "operands are silently cast to the instruction type": a copy.
                            expected: inputs.clone(),
                            inputs,
                            in_ty: op,
                            out_ty: op,
                            name,
                        }
                        .case(),
                    );
                } else {
                    for (pos, regs, line) in [
                        (
                            "src",
                            [(inst, "%d"), (op, "%a")],
                            format!("mov{inst} %d, «%a»;"),
                        ),
                        (
                            "dst",
                            [(op, "%d"), (inst, "%a")],
                            format!("mov{inst} «%d», %a;"),
                        ),
                    ] {
                        v.push(reject(
                            T26,
                            format!("tables/26/invalid/{pos}/mov{inst}/{}", op.name()),
                            regs.to_vec(),
                            vec![line],
                            "Table 26",
                        ));
                    }
                }
            }
        }
    }
    v
}

fn reject(
    family: &'static str,
    name: String,
    regs: Vec<(ScalarType, &'static str)>,
    body: Vec<String>,
    rule: &str,
) -> Case {
    let (ptx, mark) = Kernel {
        regs,
        body,
        in_bytes: 16,
        out_bytes: 16,
    }
    .ptx();
    rejected(family, name, ptx, mark.unwrap_or(0..0), rule)
}

/// Table 27: `st.I [a], %r` and `cvt.D.I %x, %r` with `%r` of each column's type.
fn table_27() -> Vec<Case> {
    let mut v = Vec::new();
    for (inst, row) in table("27") {
        for (reg, cell) in COLS.iter().copied().zip(row.chars()) {
            let load = format!("ld.global{} %r, [%ia];", b(reg));
            let (d, rnd) = cvt_partner(inst, true);
            if cell == 'x' {
                if mem_type(inst) {
                    v.push(reject(
                        T27,
                        format!("tables/27/invalid/st{inst}/{}", reg.name()),
                        vec![(reg, "%r")],
                        vec![load.clone(), format!("st.global{inst} [%oa], «%r»;")],
                        "Table 27",
                    ));
                }
                if cvt_type(inst) {
                    v.push(reject(
                        T27,
                        format!("tables/27/invalid/cvt{rnd}{d}{inst}/{}", reg.name()),
                        vec![(reg, "%r"), (d, "%x")],
                        vec![load, format!("cvt{rnd}{d}{inst} %x, «%r»;")],
                        "Table 27",
                    ));
                }
                continue;
            }
            if mem_type(inst) {
                let name = format!("tables/27/st{inst}/{}", reg.name());
                let inputs = values(inst, reg.bits(), false, seed(&name));
                v.push(
                    RunCell {
                        family: T27,
                        kernel: Kernel {
                            regs: vec![(reg, "%r")],
                            body: vec![load.clone(), format!("st.global{inst} [%oa], %r;")],
                            in_bytes: reg.bytes(),
                            out_bytes: inst.bytes(),
                        },
                        expected: inputs.iter().map(|x| model::chop(*x, inst)).collect(),
                        inputs,
                        in_ty: reg,
                        out_ty: inst,
                        name,
                    }
                    .case(),
                );
            }
            if cvt_type(inst) {
                let name = format!("tables/27/cvt{rnd}{d}{inst}/{}", reg.name());
                let inputs = values(inst, reg.bits(), true, seed(&name));
                let expected = inputs
                    .iter()
                    .map(|x| model::convert(model::chop(*x, inst), inst, d).unwrap_or(0))
                    .collect();
                v.push(
                    RunCell {
                        family: T27,
                        kernel: Kernel {
                            regs: vec![(reg, "%r"), (d, "%x")],
                            body: vec![
                                load,
                                format!("cvt{rnd}{d}{inst} %x, %r;"),
                                format!("st.global{} [%oa], %x;", b(d)),
                            ],
                            in_bytes: reg.bytes(),
                            out_bytes: d.bytes(),
                        },
                        expected,
                        inputs,
                        in_ty: reg,
                        out_ty: d,
                        name,
                    }
                    .case(),
                );
            }
        }
    }
    v
}

/// Table 28: `ld.I %r, [a]` and `cvt.I.S %r, %x` with `%r` of each column's type.
fn table_28() -> Vec<Case> {
    let mut v = Vec::new();
    for (inst, row) in table("28") {
        for (reg, cell) in COLS.iter().copied().zip(row.chars()) {
            let store = format!("st.global{} [%oa], %r;", b(reg));
            let (s, rnd) = cvt_partner(inst, false);
            let load_s = format!("ld.global{} %x, [%ia];", b(s));
            if cell == 'x' {
                if mem_type(inst) {
                    v.push(reject(
                        T28,
                        format!("tables/28/invalid/ld{inst}/{}", reg.name()),
                        vec![(reg, "%r")],
                        vec![format!("ld.global{inst} «%r», [%ia];"), store.clone()],
                        "Table 28",
                    ));
                }
                if cvt_type(inst) {
                    v.push(reject(
                        T28,
                        format!("tables/28/invalid/cvt{rnd}{inst}{s}/{}", reg.name()),
                        vec![(reg, "%r"), (s, "%x")],
                        vec![load_s, format!("cvt{rnd}{inst}{s} «%r», %x;"), store],
                        "Table 28",
                    ));
                }
                continue;
            }
            if mem_type(inst) {
                let name = format!("tables/28/ld{inst}/{}", reg.name());
                let inputs = values(inst, inst.bits(), false, seed(&name));
                v.push(
                    RunCell {
                        family: T28,
                        kernel: Kernel {
                            regs: vec![(reg, "%r")],
                            body: vec![format!("ld.global{inst} %r, [%ia];"), store.clone()],
                            in_bytes: inst.bytes(),
                            out_bytes: reg.bytes(),
                        },
                        expected: inputs
                            .iter()
                            .map(|x| model::extend(*x, inst, reg))
                            .collect(),
                        inputs,
                        in_ty: inst,
                        out_ty: reg,
                        name,
                    }
                    .case(),
                );
            }
            if cvt_type(inst) {
                let name = format!("tables/28/cvt{rnd}{inst}{s}/{}", reg.name());
                let inputs = values(s, s.bits(), true, seed(&name));
                let expected = inputs
                    .iter()
                    .map(|x| model::extend(model::convert(*x, s, inst).unwrap_or(0), inst, reg))
                    .collect();
                v.push(
                    RunCell {
                        family: T28,
                        kernel: Kernel {
                            regs: vec![(reg, "%r"), (s, "%x")],
                            body: vec![load_s, format!("cvt{rnd}{inst}{s} %r, %x;"), store],
                            in_bytes: s.bytes(),
                            out_bytes: reg.bytes(),
                        },
                        expected,
                        inputs,
                        in_ty: s,
                        out_ty: reg,
                        name,
                    }
                    .case(),
                );
            }
        }
    }
    v
}

pub fn cases() -> Vec<Case> {
    let mut v = table_26();
    v.extend(table_27());
    v.extend(table_28());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_have_a_row_per_type_and_a_cell_per_column() {
        for n in ["27", "28"] {
            let rows = table(n);
            assert_eq!(rows.len(), COLS.len(), "Table {n}");
            for (inst, row) in rows {
                assert_eq!(row.chars().count(), COLS.len(), "Table {n}, {inst}");
            }
        }
    }
}
