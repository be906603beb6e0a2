//! The catalog's modifier sets against the decoders: while a test collects, every decoded
//! instruction records, for its form, the modifier names its decoder looked for and the ones it
//! consumed. The tests run the checker over the PTX the repository has and compare.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{CATALOG, Entry, Form, modset};
use crate::check::mods::Mods;

/// What the decoder of one form did, over every instruction of the form decoded.
#[derive(Default, Debug)]
pub(crate) struct Seen {
    /// Names looked for, written or not.
    pub asked: BTreeSet<String>,
    /// Modifiers consumed where the decoder reported nothing about the modifiers (a decoder
    /// may consume one to reject it with a better message), each with the first instruction
    /// that consumed it.
    pub consumed: BTreeMap<String, String>,
    pub instructions: usize,
}

/// A form: its mnemonic and its index in the row.
pub(crate) type FormKey = (&'static str, usize);

thread_local! {
    static LOG: RefCell<Option<BTreeMap<FormKey, Seen>>> = const { RefCell::new(None) };
}

/// Called by the decoder after each instruction; records only while [`collect`] runs.
pub(crate) fn record(entry: &'static Entry, form: &'static Form, m: &Mods<'_, '_>) {
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        let Some(log) = log.as_mut() else { return };
        let k = entry
            .forms
            .iter()
            .position(|f| std::ptr::eq(f, form))
            .unwrap_or(usize::MAX);
        let seen = log.entry((entry.mnemonic, k)).or_default();
        let (asked, consumed) = m.audit();
        seen.instructions += 1;
        seen.asked.extend(asked);
        if !m.errors.is_empty() {
            return;
        }
        for c in consumed {
            seen.consumed.entry(c).or_insert_with(|| m.full_name());
        }
    });
}

/// What the decoders did while `run` ran.
pub(crate) fn collect(run: impl FnOnce()) -> BTreeMap<FormKey, Seen> {
    LOG.with(|log| *log.borrow_mut() = Some(BTreeMap::new()));
    run();
    LOG.with(|log| log.borrow_mut().take().unwrap_or_default())
}

/// Checks one module (errors are expected in places: a decoder reads modifiers before it
/// rejects operands, and what it read is what the audit wants).
fn check_source(src: &str) {
    let (module, mut diags) = crate::parse::parse(src);
    if let Some(mut module) = module {
        crate::check::check(&mut module, &mut diags);
    }
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of `text` (a Rust source), with `\n`, `\t` and line continuations
/// read as white space; raw strings and escapes other than those are left as written.
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            // A character literal or a lifetime; `'"'` would otherwise open a string.
            '\'' => {
                let ahead: String = chars.clone().take(3).collect();
                if ahead.starts_with("\"'") || ahead.starts_with("\\\"'") {
                    chars.nth(ahead.find('\'').unwrap_or(0));
                }
            }
            '"' => {
                let mut lit = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n' | 't' | '\n') => lit.push(' '),
                            Some(e) => {
                                lit.push('\\');
                                lit.push(e);
                            }
                            None => break,
                        },
                        c => lit.push(c),
                    }
                }
                out.push(lit);
            }
            _ => {}
        }
    }
    out
}

/// Whether `stmt` has a `format!` placeholder (`{}`, `{name}`) rather than a PTX vector
/// operand (`{%r1, %r2}`, `{0, 0}`).
fn templated(stmt: &str) -> bool {
    stmt.split('{').skip(1).any(|after| {
        after
            .split('}')
            .next()
            .is_some_and(|inner| !inner.contains(['%', ',']))
    })
}

/// The instruction statements written out in full in the string literals of `text`: from a
/// catalogued mnemonic with a modifier to the `;`, without a guard.
fn instructions_in(text: &str, out: &mut BTreeSet<String>) {
    for literal in literals(text) {
        for stmt in literal.split([';', '\n']) {
            let stmt = stmt.trim();
            let stmt = stmt
                .strip_prefix('@')
                .and_then(|s| s.split_once(' ').map(|(_, s)| s.trim()))
                .unwrap_or(stmt);
            let Some((head, _)) = stmt.split_once('.') else {
                continue;
            };
            if super::lookup(head).is_none()
                || templated(stmt)
                || stmt.contains(['\\', '"'])
                || !stmt.is_ascii()
            {
                continue;
            }
            out.insert(stmt.to_string());
        }
    }
}

/// Instructions no PTX of the repository writes out, from the ISA's syntax blocks, so that
/// every form's decoder is reached.
const SYNTHESIZED: &[&str] = &[
    "barrier.red.popc.u32 %r1, 0, %p1",
    "brkpt",
    "cp.async.bulk.wait_group.read 0",
    "createpolicy.range.global.L2::evict_normal.L2::evict_unchanged.b64 %rd1, [%rd2], %r1, %r2",
    "createpolicy.cvt.L2.b64 %rd1, %rd2",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 \
     {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}, %r7, {0, 0}, \
     %r8, {0, 0}",
    "red.global.and.b32 [%rd1], %r1",
    "red.global.or.b64 [%rd1], %rd2",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
     [%rd1], [smem], 128",
    "prefetchu.L1 [%rd1]",
    "vabsdiff2.u32.u32.u32.add %r1, %r2, %r3, %r4",
    "vavrg4.s32.s32.s32.sat %r1, %r2, %r3, %r4",
    "vmax.s32.s32.s32.sat.max %r1, %r2, %r3, %r4",
    "vmin.u32.u32.u32.add %r1, %r2, %r3, %r4",
    "vmin2.s32.s32.s32.add %r1, %r2, %r3, %r4",
    "vmin4.u32.u32.u32.sat %r1, %r2, %r3, %r4",
    "vset2.u32.u32.ne.add %r1, %r2, %r3, %r4",
    "vsub.s32.s32.s32.sat.min %r1, %r2, %r3, %r4",
    "vsub2.u32.u32.u32.sat %r1, %r2, %r3, %r4",
    "vshr.u32.u32.u32.wrap.add %r1, %r2, %r3, %r4",
    "wgmma.fence.sync.aligned",
    "wgmma.commit_group.sync.aligned",
    "wgmma.wait_group.sync.aligned 0",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0",
];

const PREAMBLE: &str = ".reg .pred %p<8>;\n.reg .b16 %rs<16>;\n.reg .b16 %h<16>;\n\
    .reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n.reg .f32 %f<32>;\n.reg .f64 %fd<16>;\n\
    .shared .align 16 .b8 smem[1024];\n.shared .align 8 .b64 bar;\n";

/// Runs the checker over the repository's PTX: the golden kernels, the runtime's kernels, and
/// every instruction the tests and the conformance cases write out in full.
pub(crate) fn corpus() -> BTreeMap<FormKey, Seen> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["translator/tests", "runtime/tests", "conformance"] {
        ptx_files(&root.join(dir), &mut files);
    }
    let mut sources = Vec::new();
    for dir in ["translator/tests", "conformance/src", "conformance/tests"] {
        rust_files(&root.join(dir), &mut sources);
    }
    let mut stmts: BTreeSet<String> = SYNTHESIZED.iter().map(|s| s.to_string()).collect();
    for s in &sources {
        if let Ok(text) = std::fs::read_to_string(s) {
            instructions_in(&text, &mut stmts);
        }
    }
    collect(|| {
        for f in &files {
            if let Ok(text) = std::fs::read_to_string(f) {
                check_source(&text);
            }
        }
        for stmt in &stmts {
            // `wgmma` is sm_90a's alone and `mma.kind::*` the sm_120 family's; the rest is
            // checked on sm_100a, which has the newest of the others.
            let target = if stmt.starts_with("wgmma.") {
                "sm_90a"
            } else if stmt.contains("kind::") {
                "sm_120a"
            } else {
                "sm_100a"
            };
            check_source(&format!(
                ".version 9.0\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{PREAMBLE}{stmt};\nret;\n}}\n"
            ));
        }
    })
}

/// The mnemonics whose rows have no modifier set yet.
fn unwritten() -> Vec<&'static str> {
    CATALOG
        .iter()
        .filter(|e| e.forms.iter().any(|f| f.modifiers.is_none()))
        .map(|e| e.mnemonic)
        .collect()
}

/// Every modifier a decoder consumed is in its form's set.
#[test]
fn decoders_consume_only_what_their_rows_list() {
    let seen = corpus();
    let mut wrong = Vec::new();
    for (&(mnemonic, k), s) in &seen {
        let Some(entry) = super::lookup(mnemonic) else {
            continue;
        };
        let Some(set) = entry.forms.get(k).and_then(|f| f.modifiers) else {
            continue;
        };
        for (m, example) in &s.consumed {
            if !modset::takes(set, m) {
                wrong.push(format!("{mnemonic} form {k}: .{m} (in `{example}`)"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "consumed by the decoder, missing from the row's set:\n{}",
        wrong.join("\n")
    );
    assert!(seen.len() > 100, "the corpus reached {} forms", seen.len());
}

/// Every member of a form's set is one its decoder looks for in some instruction of the
/// corpus, except the members listed here, which no instruction there reaches.
#[test]
fn every_listed_modifier_is_one_a_decoder_reads() {
    let seen = corpus();
    let mut unread = Vec::new();
    let mut unreached = Vec::new();
    for e in CATALOG {
        for (k, f) in e.forms.iter().enumerate() {
            let Some(set) = f.modifiers else { continue };
            let Some(seen) = seen.get(&(e.mnemonic, k)) else {
                unreached.push(format!("{} form {k}", e.mnemonic));
                continue;
            };
            for g in set {
                for n in g.names() {
                    let read = seen.asked.contains(n) || seen.consumed.contains_key(n);
                    if !read && !UNREACHED.contains(&(e.mnemonic, n)) {
                        unread.push(format!("(\"{}\", \"{n}\"),", e.mnemonic));
                    }
                }
            }
        }
    }
    assert!(
        unreached.is_empty(),
        "forms no instruction of the corpus reaches:\n{}",
        unreached.join("\n")
    );
    assert!(
        unread.is_empty(),
        "listed in a row, read by no decoder over the corpus:\n{}",
        unread.join("\n")
    );
}

/// Members of a set that the corpus does not exercise, each checked by hand against the
/// decoder.
const UNREACHED: &[(&str, &str)] = &[];

/// The rows still without a modifier set are exactly these (an empty list once every row has
/// one): a row cannot lose its set unnoticed.
#[test]
fn rows_without_a_modifier_set() {
    assert_eq!(unwritten(), UNWRITTEN);
}

const UNWRITTEN: &[&str] = &[];

/// Prints what the decoders did per form: `cargo test dump_modifier_audit -- --ignored
/// --nocapture` when writing a row's set.
#[test]
#[ignore]
fn dump_modifier_audit() {
    for ((mnemonic, k), s) in corpus() {
        let consumed: Vec<&String> = s.consumed.keys().collect();
        println!(
            "{mnemonic} #{k} ({} insts)\n  asked: {:?}\n  consumed: {consumed:?}",
            s.instructions, s.asked
        );
    }
}
