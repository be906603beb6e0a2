//! `--coverage`: which instructions and modifiers of ISA 8.7.1-8.7.7 some case exercises.
//!
//! The list comes from the ISA text (`data/isa-8.7.1-8.7.7.txt`, made by `data/isa_list.py`);
//! what a case exercises comes from parsing its PTX with ptxvk's own parser.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ptxvk_translator::ast::{Item, OperandKind, Statement};

use crate::Case;

const ISA_LIST: &str = include_str!("../data/isa-8.7.1-8.7.7.txt");
const VIDEO_LIST: &str = include_str!("../data/isa-9.7.18-video.txt");
const MODERN_LIST: &str = include_str!("../data/isa-modern.txt");

/// One instruction of the ISA's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub section: String,
    /// As the ISA titles it: `add`, `add.cc`, `rcp.approx.ftz.f64`.
    pub name: String,
    pub opcode: String,
    /// Modifiers in the name itself (`.cc` of `add.cc`), without dots.
    pub required: Vec<String>,
    /// Modifiers of its Syntax block, without dots.
    pub modifiers: Vec<String>,
}

/// The ISA's instructions, in section order.
pub fn isa_list() -> Vec<Entry> {
    parse_list(ISA_LIST)
}

/// The video instructions of the later ISA (9.7.18), reported after 8.7.1-8.7.7.
pub fn video_list() -> Vec<Entry> {
    parse_list(VIDEO_LIST)
}

/// Later forms (narrow-format `cvt`, ...), reported last.
pub fn modern_list() -> Vec<Entry> {
    parse_list(MODERN_LIST)
}

pub fn parse_list(text: &str) -> Vec<Entry> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (head, mods) = l.split_once('|')?;
            let mut h = head.split_whitespace();
            let section = h.next()?.to_string();
            let name = h.next()?.to_string();
            let mut parts = name.split('.');
            let opcode = parts.next()?.to_string();
            Some(Entry {
                section,
                opcode,
                required: parts.map(str::to_string).collect(),
                modifiers: mods
                    .split_whitespace()
                    .map(|m| m.trim_start_matches('.').to_string())
                    .collect(),
                name,
            })
        })
        .collect()
}

/// An instruction as a case writes it: opcode and modifiers (without dots).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Use {
    pub opcode: String,
    pub modifiers: Vec<String>,
    /// A `{a, b}` operand: `mov` packing or unpacking a vector is ISA 8.7.6.3, not 8.7.6.2.
    pub vector_operand: bool,
}

/// The section of `mov`'s pack/unpack form, which only its vector operand tells apart.
const MOV_PACK: &str = "8.7.6.3";

/// Every instruction in `ptx`, or `None` if it does not parse.
pub fn uses(ptx: &str) -> Option<Vec<Use>> {
    fn walk(stmts: &[Statement<'_>], out: &mut Vec<Use>) {
        for s in stmts {
            match s {
                Statement::Instruction(i) => out.push(Use {
                    opcode: i.opcode.node.to_string(),
                    modifiers: i.modifiers.iter().map(|m| m.node.to_string()).collect(),
                    vector_operand: i
                        .operands
                        .iter()
                        .any(|o| matches!(o.kind, OperandKind::Vector(_))),
                }),
                Statement::Block(b, _) => walk(b, out),
                _ => {}
            }
        }
    }
    let (module, _) = ptxvk_translator::parse::parse(ptx);
    let module = module?;
    let mut out = Vec::new();
    for item in &module.items {
        if let Item::Function(f) = item
            && let Some(body) = &f.body
        {
            walk(body, &mut out);
        }
    }
    Some(out)
}

/// Which entry of `list` a use belongs to: same opcode, every required modifier present, and
/// the most of its modifiers known to the entry (`add.u32` is 8.7.1.1, `add.rn.f32` 8.7.3.3,
/// `add.cc.u32` 8.7.2.1).
pub fn classify(list: &[Entry], u: &Use) -> Option<usize> {
    list.iter()
        .enumerate()
        .filter(|(_, e)| e.opcode == u.opcode && e.required.iter().all(|r| u.modifiers.contains(r)))
        .filter(|(_, e)| e.opcode != "mov" || (e.section == MOV_PACK) == u.vector_operand)
        .max_by_key(|(_, e)| {
            let known = u
                .modifiers
                .iter()
                .filter(|m| e.required.contains(m) || e.modifiers.contains(m))
                .count();
            // Ties go to the earlier section (max_by_key keeps the last maximum).
            (
                known,
                e.required.len(),
                std::cmp::Reverse(e.section.clone()),
            )
        })
        .map(|(i, _)| i)
}

/// Coverage of one ISA entry.
#[derive(Clone, Debug, Default)]
pub struct EntryCoverage {
    /// Cases with at least one use of the instruction.
    pub cases: usize,
    pub covered: BTreeSet<String>,
}

/// The coverage report.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// Which part of the ISA `list` is, for the report's closing line.
    pub title: &'static str,
    pub list: Vec<Entry>,
    pub entries: Vec<EntryCoverage>,
    /// Cases whose PTX did not parse (their instructions are not counted).
    pub unparsed: Vec<String>,
}

/// What `cases` exercise. The scaffolding every generated kernel shares (the element-wise
/// loads and stores) counts like anything else: it runs and is checked.
pub fn compute(cases: &[Case]) -> Coverage {
    compute_list(cases, isa_list(), "ISA 8.7.1-8.7.7")
}

/// The same for the video instructions (ISA 9.7.18).
pub fn compute_video(cases: &[Case]) -> Coverage {
    compute_list(cases, video_list(), "ISA 9.7.18 (video)")
}

/// The same for the later forms of [`modern_list`].
pub fn compute_modern(cases: &[Case]) -> Coverage {
    compute_list(cases, modern_list(), "the later ISA forms")
}

fn compute_list(cases: &[Case], list: Vec<Entry>, title: &'static str) -> Coverage {
    let mut entries = vec![EntryCoverage::default(); list.len()];
    let mut unparsed = Vec::new();
    for c in cases {
        let Some(us) = uses(&c.ptx) else {
            unparsed.push(c.name.clone());
            continue;
        };
        let mut hit = BTreeSet::new();
        for u in &us {
            let Some(i) = classify(&list, u) else {
                continue;
            };
            let e = &list[i];
            hit.insert(i);
            for m in &u.modifiers {
                if e.modifiers.contains(m) {
                    entries[i].covered.insert(m.clone());
                }
            }
        }
        for i in hit {
            entries[i].cases += 1;
        }
    }
    Coverage {
        title,
        list,
        entries,
        unparsed,
    }
}

impl Coverage {
    /// (instructions exercised, instructions), (modifiers exercised, modifiers).
    pub fn totals(&self) -> ((usize, usize), (usize, usize)) {
        let insts = self.entries.iter().filter(|e| e.cases > 0).count();
        let mods: usize = self.list.iter().map(|e| e.modifiers.len()).sum();
        let covered: usize = self.entries.iter().map(|e| e.covered.len()).sum();
        ((insts, self.list.len()), (covered, mods))
    }

    /// One line per instruction: section, name, cases, modifiers exercised, those missing.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<9} {:<20} {:>6}  {:<9}  missing modifiers",
            "section", "instruction", "cases", "modifiers"
        );
        for (e, c) in self.list.iter().zip(&self.entries) {
            let missing: Vec<String> = e
                .modifiers
                .iter()
                .filter(|m| !c.covered.contains(*m))
                .map(|m| format!(".{m}"))
                .collect();
            let mark = if c.cases == 0 { "  NOT EXERCISED" } else { "" };
            let _ = writeln!(
                s,
                "{:<9} {:<20} {:>6}  {:<9}  {}{mark}",
                e.section,
                e.name,
                c.cases,
                format!("{}/{}", c.covered.len(), e.modifiers.len()),
                missing.join(" ")
            );
        }
        let ((i, it), (m, mt)) = self.totals();
        let _ = writeln!(
            s,
            "\n{i} of {it} instructions and {m} of {mt} modifiers of {} are exercised by some case",
            self.title
        );
        if !self.unparsed.is_empty() {
            let _ = writeln!(
                s,
                "{} cases did not parse and were not counted: {}",
                self.unparsed.len(),
                self.unparsed.join(", ")
            );
        }
        s
    }

    pub fn to_json(&self) -> serde_json::Value {
        let rows: Vec<serde_json::Value> = self
            .list
            .iter()
            .zip(&self.entries)
            .map(|(e, c)| {
                let missing: Vec<&String> = e
                    .modifiers
                    .iter()
                    .filter(|m| !c.covered.contains(*m))
                    .collect();
                serde_json::json!({
                    "section": e.section,
                    "instruction": e.name,
                    "cases": c.cases,
                    "modifiers_exercised": c.covered,
                    "modifiers_missing": missing,
                })
            })
            .collect();
        serde_json::json!({ "part": self.title, "instructions": rows, "unparsed": self.unparsed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(u: &str) -> String {
        let list = isa_list();
        let mut parts = u.split('.');
        let u = Use {
            opcode: parts.next().unwrap_or_default().to_string(),
            modifiers: parts.map(str::to_string).collect(),
            vector_operand: false,
        };
        classify(&list, &u).map_or("none".into(), |i| list[i].section.clone())
    }

    #[test]
    fn uses_belong_to_their_isa_section() {
        assert_eq!(section("add.u32"), "8.7.1.1");
        assert_eq!(section("add.sat.s32"), "8.7.1.1");
        assert_eq!(section("add.rn.f32"), "8.7.3.3");
        assert_eq!(section("add.cc.u32"), "8.7.2.1");
        assert_eq!(section("mov.u32"), "8.7.6.2");
        assert_eq!(section("ld.global.nc.u32"), "8.7.6.7");
        assert_eq!(section("ld.global.u32"), "8.7.6.6");
        assert_eq!(section("rcp.approx.ftz.f64"), "8.7.3.14");
        assert_eq!(section("rcp.rn.f32"), "8.7.3.13");
        assert_eq!(section("bar.sync"), "none");
        let list = isa_list();
        let pack = Use {
            opcode: "mov".into(),
            modifiers: vec!["b32".into()],
            vector_operand: true,
        };
        assert_eq!(
            classify(&list, &pack).map(|i| list[i].section.as_str()),
            Some("8.7.6.3")
        );
    }

    #[test]
    fn the_list_covers_8_7_1_to_8_7_7() {
        let list = isa_list();
        for s in [
            "8.7.1.1", "8.7.2.6", "8.7.3.21", "8.7.4.4", "8.7.5.8", "8.7.6.13", "8.7.7.5",
        ] {
            assert!(list.iter().any(|e| e.section == s), "{s}");
        }
        let cvt = list
            .iter()
            .find(|e| e.name == "cvt")
            .map(|e| e.modifiers.clone());
        assert!(cvt.unwrap_or_default().contains(&"rni".to_string()));
    }

    #[test]
    fn modifiers_of_cases_are_counted() {
        let case = Case {
            name: "t".into(),
            family: "t",
            ptx: ".version 7.0\n.target sm_70\n.address_size 64\n.entry k() { .reg .b32 %r; add.sat.s32 %r, %r, 1; ret; }".into(),
            run: Box::new(|_| crate::Outcome::Pass),
        };
        let cov = compute(&[case]);
        let i = cov
            .list
            .iter()
            .position(|e| e.section == "8.7.1.1")
            .unwrap_or(0);
        assert_eq!(cov.entries[i].cases, 1);
        assert!(cov.entries[i].covered.contains("sat") && cov.entries[i].covered.contains("s32"));
        assert!(cov.report().contains("NOT EXERCISED"));
    }

    #[test]
    fn video_uses_belong_to_their_section() {
        let list = video_list();
        let section = |op: &str| {
            let mut parts = op.split('.');
            let u = Use {
                opcode: parts.next().unwrap_or_default().to_string(),
                modifiers: parts.map(str::to_string).collect(),
                vector_operand: false,
            };
            classify(&list, &u).map_or("none".into(), |i| list[i].section.clone())
        };
        assert_eq!(section("vadd.s32.u32.s32.sat"), "9.7.18.1.1");
        assert_eq!(section("vset.u32.u32.lt"), "9.7.18.1.4");
        assert_eq!(section("vavrg2.u32.u32.u32.add"), "9.7.18.2.1");
        assert_eq!(section("vset4.s32.s32.ne"), "9.7.18.2.4");
        assert_eq!(section("add.u32"), "none");
        assert_eq!(list.len(), 23);
    }

    #[test]
    fn later_forms_belong_to_their_entry() {
        let list = modern_list();
        let entry = |op: &str| {
            let mut parts = op.split('.');
            let u = Use {
                opcode: parts.next().unwrap_or_default().to_string(),
                modifiers: parts.map(str::to_string).collect(),
                vector_operand: false,
            };
            classify(&list, &u).map_or("none".into(), |i| list[i].name.clone())
        };
        assert_eq!(entry("cvt.rn.satfinite.relu.e4m3x2.f32"), "cvt.e4m3x2");
        assert_eq!(entry("cvt.rn.f16x2.e2m1x2"), "cvt.e2m1x2");
        assert_eq!(entry("cvt.rp.satfinite.ue8m0x2.bf16x2"), "cvt.ue8m0x2");
        assert_eq!(entry("cvt.rn.f16.f32"), "none");
        assert_eq!(
            entry("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"),
            "mbarrier.arrive"
        );
        assert_eq!(
            entry("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"),
            "cp.async.bulk"
        );
        assert_eq!(
            entry("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"),
            "cp.async.bulk.tensor"
        );
        assert_eq!(
            entry("cp.reduce.async.bulk.tensor.3d.global.shared::cta.xor.tile.bulk_group"),
            "cp.reduce.async.bulk.tensor"
        );
        assert_eq!(
            entry("cp.async.bulk.prefetch.tensor.1d.L2.global"),
            "cp.async.bulk.prefetch.tensor"
        );
        assert_eq!(
            entry("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16"),
            "cp.reduce.async.bulk"
        );
        assert_eq!(
            entry("tensormap.replace.tile.box_dim.shared::cta.b1024.b32"),
            "tensormap.replace"
        );
        assert_eq!(
            entry("cp.async.mbarrier.arrive.noinc.shared.b64"),
            "cp.async.mbarrier.arrive"
        );
        assert_eq!(entry("cp.async.ca.shared.global"), "none");
        assert_eq!(
            entry("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
            "mma"
        );
        assert_eq!(
            entry("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
            "ldmatrix"
        );
        // The sm_70 quad-pair form has an entry of its own; `.f64` `.m8n8k4` is plain `mma`.
        assert_eq!(
            entry("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32"),
            "mma.m8n8k4"
        );
        assert_eq!(
            entry("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"),
            "mma"
        );
        assert_eq!(
            entry("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32"),
            "mma.sp"
        );
        assert_eq!(
            entry("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
            "mma.sp::ordered_metadata"
        );
        assert_eq!(
            entry("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16"),
            "wgmma.mma_async.sp"
        );
    }

    /// Every instruction the coverage lists count is one the translator's catalog lists: a
    /// form counted here but refused by the decoder could never be covered.
    #[test]
    fn listed_instructions_are_in_the_catalog() {
        use ptxvk_translator::check::catalog;
        let lists = [isa_list(), video_list(), modern_list()];
        for entry in lists.iter().flatten() {
            assert!(
                catalog::lookup(&entry.opcode).is_some(),
                "{} `{}`: `{}` is not in the instruction catalog",
                entry.section,
                entry.name,
                entry.opcode
            );
        }
    }
}
