//! The translator's layering, checked from its sources: no two files of `src/` import each
//! other through a cycle, and nothing under `ir/` or `emit/` imports the front end (`check/`,
//! `parse/`, `ast.rs`): the IR and the emitter read target choices from their callers, never from
//! the checked PTX.
//!
//! What is wrong today is listed in `import_graph_support/known.rs`. The lists are exact in both
//! directions: a new violation fails, and so does an entry that no longer happens (remove it). On
//! a mismatch the message prints the list as it would have to be now.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod import_graph_support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use import_graph_support::{Crate, FilePath, cycle_edges, known};

/// Files that must not import the front end, and the front end's files.
fn lower_layer(path: &str) -> bool {
    path.starts_with("ir/") || path.starts_with("emit/")
}
fn front_end(path: &str) -> bool {
    path.starts_with("check/") || path.starts_with("parse/") || path == "ast.rs"
}

fn sources(root: &Path) -> BTreeMap<FilePath, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<FilePath, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap();
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn translator() -> Crate {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    Crate::new(&sources(&root))
}

/// Compares `found` with `known` both ways; the message lists `found` as a Rust table.
fn compare(what: &str, list: &str, found: &BTreeSet<(FilePath, FilePath)>, known: &[(&str, &str)]) {
    let known: BTreeSet<(FilePath, FilePath)> = known
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(found).collect();
    if new.is_empty() && gone.is_empty() {
        return;
    }
    let mut msg = String::new();
    for (a, b) in &new {
        writeln!(msg, "new {what}: {a} -> {b}").unwrap();
    }
    for (a, b) in &gone {
        writeln!(msg, "no longer {what} (remove it from {list}): {a} -> {b}").unwrap();
    }
    writeln!(msg, "\n{list} as it stands now:").unwrap();
    for (a, b) in found {
        writeln!(msg, "    (\"{a}\", \"{b}\"),").unwrap();
    }
    panic!("{msg}");
}

#[test]
fn no_new_import_cycle_between_files() {
    let krate = translator();
    assert!(
        krate.files().count() > 100,
        "the module tree was not followed from lib.rs"
    );
    let cycles = cycle_edges(&krate.edges());
    compare(
        "edge on a cycle",
        "CYCLE_EDGES",
        &cycles,
        known::CYCLE_EDGES,
    );
}

#[test]
fn ir_and_emit_do_not_import_the_front_end() {
    let layer: BTreeSet<_> = translator()
        .edges()
        .into_iter()
        .filter(|(a, b)| lower_layer(a) && front_end(b))
        .collect();
    compare(
        "import of the front end",
        "LAYER_EDGES",
        &layer,
        known::LAYER_EDGES,
    );
}

/// The lint itself, on a crate written here: it must see each kind of import it claims to.
#[test]
fn the_lint_sees_use_items_code_paths_and_re_exports() {
    let src: BTreeMap<FilePath, String> = [
        ("lib.rs", "mod a; pub mod b; mod c; pub use b::Thing;"),
        (
            "a/mod.rs",
            "mod inner; // use crate::c::Never;\nfn f() { let s = \"crate::c::Never\"; inner::g(); }",
        ),
        ("a/inner.rs", "use crate::Thing; pub fn g() {}"),
        ("b.rs", "pub struct Thing; fn h() { crate::c::run(); }"),
        (
            "c.rs",
            "use super::a::{self}; pub fn run() {}\n#[cfg(test)]\nmod tests { use crate::a::X; }",
        ),
    ]
    .into_iter()
    .map(|(p, s)| (p.to_string(), s.to_string()))
    .collect();
    let krate = Crate::new(&src);
    let edges = krate.edges();
    let expect: BTreeSet<(FilePath, FilePath)> = [
        ("a/inner.rs", "b.rs"),
        ("a/mod.rs", "a/inner.rs"),
        ("b.rs", "c.rs"),
        ("lib.rs", "b.rs"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(edges, expect);
    assert!(cycle_edges(&edges).is_empty());

    let mut cyclic = src;
    cyclic.insert(
        "c.rs".into(),
        "pub fn run() { crate::a::inner::g(); }".into(),
    );
    cyclic.insert(
        "a/inner.rs".into(),
        "use crate::Thing; pub fn g() {}".into(),
    );
    let edges = Crate::new(&cyclic).edges();
    let on_cycle: Vec<_> = cycle_edges(&edges).into_iter().collect();
    assert_eq!(
        on_cycle,
        [
            ("a/inner.rs".to_string(), "b.rs".to_string()),
            ("b.rs".to_string(), "c.rs".to_string()),
            ("c.rs".to_string(), "a/inner.rs".to_string()),
        ]
    );
}
