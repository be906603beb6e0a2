//! The coverage inventory by the translator's instruction catalog: for each catalog family, the
//! catalogued mnemonics some case runs. A case counts for the family the catalog picks for each
//! instruction it contains (`add.f32` is `float`, `add.cc.u32` `extended`), so the families here
//! are the decoder's (`check/inst/<family>.rs`), not the ISA-section labels of the run report.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use ptxvk_translator::ast::{Instruction, Item, Statement};
use ptxvk_translator::check::catalog::{self, CATALOG, Family};

use crate::Case;

/// For each family, the mnemonics some case runs in it, and how many cases touch it.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    pub families: BTreeMap<Family, (usize, BTreeSet<&'static str>)>,
}

/// Calls `f` with each instruction of `ptx`; false if it does not parse.
fn each_instruction(ptx: &str, f: &mut dyn FnMut(&Instruction<'_>)) -> bool {
    fn walk(stmts: &[Statement<'_>], f: &mut dyn FnMut(&Instruction<'_>)) {
        for s in stmts {
            match s {
                Statement::Instruction(i) => f(i),
                Statement::Block(b, _) => walk(b, f),
                _ => {}
            }
        }
    }
    let (module, _) = ptxvk_translator::parse::parse(ptx);
    let Some(module) = module else {
        return false;
    };
    for item in &module.items {
        if let Item::Function(func) = item
            && let Some(body) = &func.body
        {
            walk(body, f);
        }
    }
    true
}

/// What `cases` run, by catalog family.
pub fn compute(cases: &[Case]) -> Inventory {
    let mut inv = Inventory::default();
    for c in cases {
        let mut touched = BTreeSet::new();
        each_instruction(&c.ptx, &mut |i| {
            let Some(entry) = catalog::lookup(i.opcode.node) else {
                return;
            };
            let Some(form) = entry.form_for(i) else {
                return;
            };
            touched.insert(form.family);
            inv.families
                .entry(form.family)
                .or_default()
                .1
                .insert(entry.mnemonic);
        });
        for f in touched {
            inv.families.entry(f).or_default().0 += 1;
        }
    }
    inv
}

impl Inventory {
    /// Catalogued mnemonics no case runs in any of their families, in catalog order.
    pub fn unexercised(&self) -> Vec<&'static str> {
        CATALOG
            .iter()
            .filter(|e| {
                !self
                    .families
                    .values()
                    .any(|(_, used)| used.contains(e.mnemonic))
            })
            .map(|e| e.mnemonic)
            .collect()
    }

    /// One line per catalog family: cases, mnemonics run of those the catalog gives it, and the
    /// ones no case runs.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<11} {:>6}  {:<9}  not run",
            "family", "cases", "mnemonics"
        );
        for f in Family::ALL {
            let listed: Vec<&str> = CATALOG
                .iter()
                .filter(|e| e.families().any(|g| g == f))
                .map(|e| e.mnemonic)
                .collect();
            let (cases, used) = self.families.get(&f).cloned().unwrap_or_default();
            let missing: Vec<&str> = listed
                .iter()
                .copied()
                .filter(|m| !used.contains(m))
                .collect();
            let _ = writeln!(
                s,
                "{:<11} {:>6}  {:<9}  {}",
                f.name(),
                cases,
                format!("{}/{}", listed.len() - missing.len(), listed.len()),
                missing.join(" ")
            );
        }
        let missing = self.unexercised();
        let _ = writeln!(
            s,
            "\n{} of {} catalogued instructions are run by some case",
            CATALOG.len() - missing.len(),
            CATALOG.len()
        );
        s
    }
}

#[cfg(test)]
mod tests;
