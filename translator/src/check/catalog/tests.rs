//! The catalog against what reads mnemonics: the decoder's dispatch, the gating table, the ISA's
//! section lists and the files of each family.

use std::path::Path;

use super::*;
use crate::check::gating::FORM_GATES;

const UNKNOWN: &str = "unknown or unsupported instruction";

/// The checker's messages for a kernel whose body is `body`.
fn messages(body: &str) -> Vec<String> {
    let src = format!(
        ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
    );
    let (module, mut diags) = crate::parse::parse(&src);
    let Some(mut module) = module else {
        panic!("`{body}` does not parse: {diags:?}");
    };
    crate::check::check(&mut module, &mut diags);
    diags.into_iter().map(|d| d.message).collect()
}

/// The family the catalog picks for the instruction `text` (one statement, no operands needed).
fn family(text: &str) -> Option<Family> {
    let src = format!(
        ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n{text};\n}}\n"
    );
    let (module, diags) = crate::parse::parse(&src);
    let module = module.unwrap_or_else(|| panic!("`{text}` does not parse: {diags:?}"));
    let body = module
        .items
        .iter()
        .find_map(|item| match item {
            crate::ast::Item::Function(f) => f.body.as_ref(),
            _ => None,
        })
        .expect("a kernel body");
    let first = body.iter().find_map(|s| match s {
        crate::ast::Statement::Instruction(i) => Some(i),
        _ => None,
    });
    family_of(first.expect("one instruction"))
}

#[test]
fn rows_are_sorted_and_unique() {
    for pair in CATALOG.windows(2) {
        assert!(
            pair[0].mnemonic < pair[1].mnemonic,
            "`{}` before `{}`",
            pair[0].mnemonic,
            pair[1].mnemonic
        );
    }
    for e in CATALOG {
        assert_eq!(lookup(e.mnemonic).map(|f| f.mnemonic), Some(e.mnemonic));
    }
    for r in REFUSED {
        assert!(r.forms.is_empty() && lookup(r.mnemonic).is_none(), "{r:?}");
    }
}

/// Forms are tried in order: every form but the last has a condition (a later one would never
/// be reached otherwise), and the last has none (an instruction of a catalogued mnemonic always
/// reaches a decoder, which reports what is wrong with it).
#[test]
fn every_form_can_be_reached() {
    for e in CATALOG {
        let Some((last, before)) = e.forms.split_last() else {
            panic!("`{}` has no form", e.mnemonic);
        };
        assert!(
            last.when.is_none(),
            "`{}`: the last form has a condition",
            e.mnemonic
        );
        for f in before {
            assert!(
                f.when.is_some(),
                "`{}`: {f:?} hides the forms after it",
                e.mnemonic
            );
        }
    }
}

/// A row whose mnemonic no decoder takes would be refused as unknown after the catalog let it
/// through; a mnemonic without a row is refused whatever it looks like.
#[test]
fn every_row_reaches_a_decoder_and_nothing_else_does() {
    // Whether `body` got past the gating table to the decoder; a decoder must take it.
    let reaches = |mnemonic: &str, body: String| {
        let found = messages(&body);
        assert!(
            !found.iter().any(|m| m.starts_with(UNKNOWN)),
            "`{mnemonic}` is catalogued but no decoder takes `{body}`: {found:?}"
        );
        !found.iter().any(|m| m.contains("this module declares"))
    };
    for e in CATALOG {
        let m = e.mnemonic;
        // `shfl` and `vote` without `.sync` are gated off for this target.
        assert!(
            reaches(m, format!("{m};")) || reaches(m, format!("{m}.sync;")),
            "`{m}` never got past the gating table"
        );
    }
    for name in
        REFUSED
            .iter()
            .map(|r| r.mnemonic)
            .chain(["frobnicate", "vavrg", "vshl2", "tensormaps"])
    {
        let found = messages(&format!("{name};"));
        assert!(
            found.iter().any(|m| m.starts_with(UNKNOWN)),
            "`{name}` has no row but was not refused: {found:?}"
        );
    }
}

/// The forms of one mnemonic are the ISA's sections for it: `add` is 8.7.3.3 on float types,
/// 8.7.2.1 with `.cc`, the packed 16-bit integer form of the later ISA, and 8.7.1.1 otherwise.
#[test]
fn conditions_pick_the_isa_section() {
    use Family::*;
    let cases: &[(&str, Family)] = &[
        ("add.f32 %f1, %f2, %f3", Float),
        ("add.rn.f16x2 %r1, %r2, %r3", Float),
        ("add.cc.u32 %r1, %r2, %r3", Extended),
        ("add.u16x2 %r1, %r2, %r3", Int),
        ("add.s32 %r1, %r2, %r3", Arith),
        ("sub.cc.s32 %r1, %r2, %r3", Extended),
        ("mad.lo.cc.u32 %r1, %r2, %r3, %r4", Extended),
        ("mad.rn.f64 %fd1, %fd2, %fd3, %fd4", Float),
        ("mad.wide.s32 %rd1, %r2, %r3, %rd4", Arith),
        ("min.s16x2 %r1, %r2, %r3", Int),
        ("max.NaN.f32 %f1, %f2, %f3", Float),
        ("max.u64 %rd1, %rd2, %rd3", Arith),
        ("div.full.f32 %f1, %f2, %f3", Float),
        ("div.s32 %r1, %r2, %r3", Arith),
        ("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4", Convert),
        ("cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2", Narrow),
        ("cvt.rn.f16x2.e2m1x2 %r1, %h1", Narrow),
        ("cvt.rn.f32.s32 %f1, %r1", Convert),
        ("bar.warp.sync %r1", Warp),
        ("bar.sync 0", Sync),
        ("barrier.sync 0", Sync),
        ("membar.gl", Fence),
        ("vadd4.u32.u32.u32.add %r1, %r2, %r3, %r4", Video),
    ];
    for (text, expected) in cases {
        assert_eq!(family(text), Some(*expected), "{text}");
    }
    assert_eq!(family("frobnicate.u32 %r1"), None);
}

/// Every instruction the table names is catalogued, or known and refused: a gate on a mnemonic
/// nothing decodes would never apply; and each bare instruction's requirement is its row's.
#[test]
fn gating_rows_name_catalogued_instructions() {
    // `.target` options the table gates alongside the instructions.
    const TARGET_OPTIONS: [&str; 3] = ["debug", "texmode_unified", "texmode_independent"];
    for gate in FORM_GATES {
        for op in gate.op.split('|') {
            if op.starts_with(['.', '%']) || TARGET_OPTIONS.contains(&op) {
                continue;
            }
            assert!(
                lookup(op).is_some() || REFUSED.iter().any(|r| r.mnemonic == op),
                "the gating table names `{op}`, which the catalog does not list"
            );
            assert!(
                !gate.when.is_empty(),
                "`{op}` has a bare row in the table; its requirement belongs in its catalog row"
            );
        }
    }
    let all = crate::check::gating::gates();
    for e in CATALOG.iter().chain(REFUSED) {
        let bare = all
            .iter()
            .filter(|g| g.op == e.mnemonic && g.when.is_empty());
        let found: Vec<Since> = bare
            .map(|g| Since {
                ptx: g.ptx,
                sm: g.sm,
            })
            .collect();
        assert_eq!(
            found,
            e.since.into_iter().collect::<Vec<_>>(),
            "`{}`",
            e.mnemonic
        );
    }
}

/// The section lists the conformance crate keeps of the ISA text (`conformance/data`): each
/// form's section is listed there under its mnemonic, and every listed instruction has a form.
#[test]
fn sections_are_the_isa_texts() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/data");
    let read = |name: &str| std::fs::read_to_string(data.join(name)).expect(name);
    // `8.7.1.1 add | .s16 ...`: (section, opcode).
    let parse = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let number = words.next()?.to_string();
                let opcode = words.next()?.split('.').next()?.to_string();
                Some((number, opcode))
            })
            .collect()
    };
    let isa41 = parse(&read("isa-8.7.1-8.7.7.txt"));
    let video = parse(&read("isa-9.7.18-video.txt"));
    let modern = parse(&read("isa-modern.txt"));
    for e in CATALOG {
        for f in e.forms {
            let s = f.section;
            let listed = |list: &[(String, String)]| {
                list.iter().any(|(n, o)| n == s.number && o == e.mnemonic)
            };
            match s.edition {
                Edition::Isa41 => {
                    assert!(
                        listed(&isa41),
                        "`{}`: {s} is not in the ISA 4.1 list",
                        e.mnemonic
                    )
                }
                // Later sections are given as deep as the lists name them: a listed number is
                // the list's, an unlisted one a chapter of the current ISA.
                Edition::Current => {
                    let in_lists = video.iter().chain(&modern).any(|(n, _)| n == s.number);
                    assert!(
                        !in_lists || listed(&video) || listed(&modern),
                        "`{}`: {s} is another instruction's section",
                        e.mnemonic
                    );
                    assert!(s.number.starts_with("9.7."), "`{}`: {s}", e.mnemonic);
                }
            }
        }
    }
    for (number, opcode) in isa41.iter().chain(&video) {
        let row = lookup(opcode).unwrap_or_else(|| panic!("{number} `{opcode}` has no row"));
        // `rcp.approx.ftz.f64`, `ld.global.nc` and `mov`'s packing form have sections of their
        // own that the instruction's decoder reads with the rest.
        let shared = ["8.7.3.14", "8.7.3.17", "8.7.6.3", "8.7.6.7"];
        assert!(
            shared.contains(&number.as_str())
                || row.forms.iter().any(|f| f.section.number == number),
            "{number} `{opcode}` is no form of its row"
        );
    }
}

/// The family names are the file names of the decoders and of the forms they build, and their
/// lowering modules exist.
#[test]
fn each_family_has_a_decoder_forms_and_a_lowering() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let check = src.join("check");
    for f in Family::ALL {
        let name = f.name();
        assert_eq!(Family::from_name(name), Some(f));
        let decoder = check.join(format!("inst/{name}.rs"));
        let folder = check.join(format!("inst/{name}/mod.rs"));
        assert!(decoder.exists() || folder.exists(), "no decoder for {f:?}");
        // `fence` and `membar` build `Op::Membar` with the data family's `Scope`, or misc's
        // `NoEffect`: no form of their own.
        assert!(
            f == Family::Fence || check.join(format!("op/{name}.rs")).exists(),
            "no forms file for {f:?}"
        );
        for module in f.lowering_modules() {
            assert!(
                src.join(format!("lower/{module}.rs")).exists()
                    || src.join(format!("lower/{module}/mod.rs")).exists(),
                "no lowering module `{module}` for {f:?}"
            );
        }
        assert!(
            CATALOG.iter().any(|e| e.families().any(|g| g == f)),
            "no row names {f:?}"
        );
    }
    for entry in std::fs::read_dir(check.join("op")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" || stem == "rounding" {
            continue;
        }
        assert!(
            Family::from_name(&stem).is_some(),
            "check/op/{stem}.rs is no family of the catalog"
        );
    }
}

/// The functions `Cx::op` (`lower/dispatch.rs`) dispatches to, as `module::function`, and whether
/// an arm of it emits nothing.
fn lowering_functions() -> (std::collections::BTreeSet<String>, bool) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lower/dispatch.rs");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("fn op(&mut self, op: &PtxOp)").expect("`Cx::op`");
    let body = &text[start..];
    let end = body.find("\n    }\n").expect("the end of `Cx::op`");
    let mut found = std::collections::BTreeSet::new();
    for arm in body[..end].split("=> ").skip(1) {
        let call: String = arm
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        if call.contains("::") && arm[call.len()..].starts_with("(self") {
            found.insert(call);
        }
    }
    (found, body[..end].contains("=> {}"))
}

/// Each form names the functions that lower it, the first in its family's lowering module;
/// each function `Cx::op` dispatches to is some form's: a family without a lowering, or a
/// lowering no row reaches, fails here.
#[test]
fn each_form_names_its_lowering_and_each_lowering_has_a_form() {
    let (dispatched, nothing) = lowering_functions();
    assert!(dispatched.len() > 50, "`Cx::op` not read: {dispatched:?}");
    let mut named = std::collections::BTreeSet::new();
    let mut wrong = Vec::new();
    for e in CATALOG {
        for f in e.forms {
            // The first is the family's own; a decoder may also build another family's form
            // (`fence.proxy` is misc's `NoEffect`).
            for (k, l) in f.lowering(e.mnemonic).into_iter().enumerate() {
                let module = l.split("::").next().unwrap_or("");
                let known = dispatched.contains(&l) || (l == NO_IR && nothing);
                let own = l == NO_IR || f.family.lowering_modules().contains(&module);
                if !known || (k == 0 && !own) {
                    wrong.push(format!("`{}` ({:?}): {l}", e.mnemonic, f.family));
                }
                named.insert(l);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "forms whose lowering is not a function `Cx::op` calls, first in the family's module \
         (name it with `.lowered_by(&[\"module::function\"])`):\n{}",
        wrong.join("\n")
    );
    let unnamed: Vec<_> = dispatched.difference(&named).collect();
    assert!(
        unnamed.is_empty(),
        "lowering functions no catalog form names: {unnamed:?}"
    );
}
