//! Barriers (ISA 8.7.12 in later numbering): `bar`, `barrier`.

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Bar, BarKind, BarRed};
use crate::check::operands::TypeRule;
use crate::types::ScalarType;

/// `bar{.cta}.sync|arrive|red a{, b}` and `barrier{.cta}.sync{.aligned}|arrive|red`.
pub fn bar(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Bar> {
    m.flag("cta");
    m.flag("aligned");
    let kind = if m.flag("arrive") {
        BarKind::Arrive
    } else if m.flag("red") {
        let op = m.pick(&[
            ("popc", BarRed::Popc),
            ("and", BarRed::And),
            ("or", BarRed::Or),
        ]);
        let Some(op) = op else {
            m.error("`bar.red` needs `.popc`, `.and` or `.or`", "add one");
            return None;
        };
        BarKind::Red(op)
    } else {
        // `bar` alone is `bar.sync` (ISA: "bar.sync is equivalent to barrier.sync.aligned").
        m.flag("sync");
        BarKind::Sync
    };
    let ops = &i.operands;
    match kind {
        BarKind::Red(op) => {
            let ty = if op == BarRed::Popc {
                ScalarType::U32
            } else {
                ScalarType::Pred
            };
            m.ty(&[ty])?;
            if !(3..=4).contains(&ops.len()) {
                operands(cx, i, 3)?;
            }
            let d = cx.dst(&ops[0], ty, TypeRule::Strict);
            let id = cx.src(&ops[1], ScalarType::U32, TypeRule::Strict);
            let count = if ops.len() == 4 {
                Some(cx.src(&ops[2], ScalarType::U32, TypeRule::Strict)?)
            } else {
                None
            };
            let c = cx.src(&ops[ops.len() - 1], ScalarType::Pred, TypeRule::Strict);
            Some(Bar {
                kind,
                id: id?,
                count,
                red: Some((d?, c?)),
            })
        }
        _ => {
            if kind == BarKind::Arrive && ops.len() != 2 {
                operands(cx, i, 2)?;
            }
            if ops.is_empty() || ops.len() > 2 {
                operands(cx, i, 1)?;
            }
            let id = cx.src(&ops[0], ScalarType::U32, TypeRule::Strict)?;
            let count = match ops.get(1) {
                Some(o) => Some(cx.src(o, ScalarType::U32, TypeRule::Strict)?),
                None => None,
            };
            Some(Bar {
                kind,
                id,
                count,
                red: None,
            })
        }
    }
}
