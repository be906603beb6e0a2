//! Shared by the corpus tests (clang output committed in shaders/corpus, NVRTC output made at
//! test time): run every PTX file through parse + check and every kernel through translation
//! and SPIR-V validation, and compare what fails with an explicit list of known failures.
//!
//! The comparison is exact in both directions: a failure that is not listed fails the test, and
//! so does a listed failure that no longer happens (remove its entry: it works now). On a
//! mismatch the panic message also prints the list as it would have to be now.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ptxvk_translator::profile::WarpStrategy;
use ptxvk_translator::{DeviceProfile, Program, SourceFile};

/// Which stage a known failure is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// `Program::parse` (parse + check) rejects the whole file.
    Check,
    /// `translate_kernel` fails, or its SPIR-V fails validation.
    Translate,
}

/// A failure ptxvk is known to have today.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// A file name, or `stem.*` for every file of one source (all targets, all levels).
    pub files: &'static str,
    /// The kernel (`""` for [`Stage::Check`], which concerns the whole file).
    pub kernel: &'static str,
    pub stage: Stage,
    /// Must occur in the error text.
    pub error: &'static str,
}

impl Known {
    fn matches_file(&self, file: &str) -> bool {
        match self.files.strip_suffix('*') {
            Some(prefix) => file.starts_with(prefix),
            None => self.files == file,
        }
    }
}

/// The translation profile of the corpus tests: lavapipe, whose 8-wide subgroups make warps
/// run on the SIMT emulation.
pub fn profile() -> DeviceProfile {
    let p = DeviceProfile::lavapipe();
    assert_eq!(p.warp_strategy(), WarpStrategy::Emulated);
    p
}

/// What happened to one file or kernel.
#[derive(Debug)]
struct Failure {
    file: String,
    stem: String,
    kernel: String,
    stage: Stage,
    /// One line per diagnostic.
    text: String,
}

/// Runs every file (name, stem, PTX text) and compares the failures with `known`.
/// Returns the number of kernels translated and validated. Panics with a report on mismatch.
pub fn run_corpus(what: &str, files: &[(String, String, String)], known: &[Known]) -> usize {
    let profile = profile();
    let mut failures = Vec::new();
    let mut translated = 0;
    let mut kernels_seen = 0;
    for (name, stem, text) in files {
        let file = SourceFile::new(name.clone(), text.clone());
        let program = match Program::parse(file) {
            Ok(p) => p,
            Err(d) => {
                failures.push(Failure {
                    file: name.clone(),
                    stem: stem.clone(),
                    kernel: String::new(),
                    stage: Stage::Check,
                    text: d.short(),
                });
                continue;
            }
        };
        let warnings = program.warnings();
        if !warnings.items.is_empty() {
            failures.push(Failure {
                file: name.clone(),
                stem: stem.clone(),
                kernel: String::new(),
                stage: Stage::Check,
                text: warnings.short(),
            });
        }
        let names = program.kernel_names();
        assert!(!names.is_empty(), "{name}: no kernels");
        for kernel in names {
            kernels_seen += 1;
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                program.translate_kernel(&kernel, &profile)
            }));
            let text = match result {
                Err(_) => "the translator panicked".to_string(),
                Ok(Err(d)) => d.short(),
                Ok(Ok(k)) => match ptxvk_translator::validate(&k.spirv) {
                    Ok(()) => {
                        translated += 1;
                        continue;
                    }
                    Err(e) => e.to_string(),
                },
            };
            failures.push(Failure {
                file: name.clone(),
                stem: stem.clone(),
                kernel,
                stage: Stage::Translate,
                text,
            });
        }
    }

    let mut problems = Vec::new();
    // Every failure must be listed (each entry that matches it finding its text).
    for f in &failures {
        let entries: Vec<&Known> = known
            .iter()
            .filter(|k| k.stage == f.stage && k.kernel == f.kernel && k.matches_file(&f.file))
            .collect();
        if entries.is_empty() {
            problems.push(format!(
                "new failure: {} {}: {}",
                f.file,
                display_kernel(&f.kernel),
                first_lines(&f.text)
            ));
        }
        if !entries.is_empty() {
            // Each error must be one the list knows of: a new one must not hide behind an old one.
            for line in lines_of(f) {
                if !entries.iter().any(|k| line.contains(k.error)) {
                    problems.push(format!(
                        "new failure: {} {}: {line}",
                        f.file,
                        display_kernel(&f.kernel)
                    ));
                }
            }
        }
        for k in entries {
            if !f.text.contains(k.error) {
                problems.push(format!(
                    "{} {}: the error no longer mentions {:?} (remove or update its entry); it is now: {}",
                    f.file,
                    display_kernel(&f.kernel),
                    k.error,
                    first_lines(&f.text)
                ));
            }
        }
    }
    // Every entry must still fail somewhere it names, and fail everywhere it names.
    for k in known {
        let mut matched_any = false;
        for (name, _, _) in files.iter().filter(|(n, _, _)| k.matches_file(n)) {
            matched_any = true;
            let failed = failures.iter().any(|f| {
                &f.file == name
                    && f.stage == k.stage
                    && f.kernel == k.kernel
                    && f.text.contains(k.error)
            });
            // A file that does not check cannot show kernel failures: that entry is untestable
            // there, not fixed.
            let blocked = k.stage == Stage::Translate
                && failures
                    .iter()
                    .any(|f| &f.file == name && f.stage == Stage::Check);
            if !failed && !blocked {
                problems.push(format!(
                    "{name} {}: known failure {:?} does not happen any more: remove its entry",
                    display_kernel(k.kernel),
                    k.error
                ));
            }
        }
        if !matched_any {
            problems.push(format!("entry {k:?} matches no {what} file"));
        }
    }

    if !problems.is_empty() {
        let mut msg = format!(
            "{what}: {} problem(s) ({} of {kernels_seen} kernels translated and validated)\n",
            problems.len(),
            translated
        );
        for p in &problems {
            let _ = writeln!(msg, "  - {p}");
        }
        let _ = writeln!(
            msg,
            "\nThe failures as they are now (check before pasting into the list):\n{}",
            suggest(files, &failures)
        );
        panic!("{msg}");
    }
    translated
}

/// The separate errors of a failure: diagnostics are one per line; a validation error is one.
fn lines_of(f: &Failure) -> Vec<&str> {
    if f.text.starts_with("SPIR-V validation failed") {
        vec![f.text.as_str()]
    } else {
        f.text.lines().collect()
    }
}

fn display_kernel(k: &str) -> String {
    if k.is_empty() {
        "(parse/check)".into()
    } else {
        format!("kernel `{k}`")
    }
}

fn first_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().take(3).collect();
    let more = text.lines().count().saturating_sub(3);
    let mut s = lines.join(" | ");
    if more > 0 {
        let _ = write!(s, " | (+{more} more)");
    }
    s
}

/// The key phrase of one diagnostic line: for unknown instructions the instruction, otherwise
/// the message after `error: `.
fn key_of(line: &str) -> String {
    let msg = line.split_once(": error: ").map_or(line, |(_, m)| m);
    let msg = msg.split_once(": warning: ").map_or(msg, |(_, m)| m).trim();
    if let Some(rest) = msg.strip_prefix("unknown or unsupported instruction ") {
        return format!("instruction {rest}");
    }
    msg.chars().take(80).collect()
}

/// The failures as list entries, a stem's files merged into `stem.*` where all of them agree.
fn suggest(files: &[(String, String, String)], failures: &[Failure]) -> String {
    // (stem, kernel, stage, key) -> files
    let mut groups: BTreeMap<(String, String, Stage, String), Vec<String>> = BTreeMap::new();
    for f in failures {
        let keys: std::collections::BTreeSet<String> =
            lines_of(f).into_iter().map(key_of).collect();
        for key in keys {
            groups
                .entry((f.stem.clone(), f.kernel.clone(), f.stage, key))
                .or_default()
                .push(f.file.clone());
        }
    }
    let mut out = String::new();
    for ((stem, kernel, stage, key), names) in groups {
        let all: Vec<&String> = files
            .iter()
            .filter(|(_, s, _)| *s == stem)
            .map(|(n, _, _)| n)
            .collect();
        let patterns: Vec<String> = if all.len() == names.len() {
            vec![format!("{stem}.*")]
        } else {
            names
        };
        for p in patterns {
            let _ = writeln!(
                out,
                "    known({p:?}, {kernel:?}, Stage::{stage:?}, {key:?}),"
            );
        }
    }
    out
}

/// Shorthand for the lists.
pub const fn known(
    files: &'static str,
    kernel: &'static str,
    stage: Stage,
    error: &'static str,
) -> Known {
    Known {
        files,
        kernel,
        stage,
        error,
    }
}

/// `shaders/` in the repository.
pub fn shaders_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders")
}

/// The corpus sources, sorted: (stem, path).
pub fn corpus_sources() -> Vec<(String, std::path::PathBuf)> {
    let dir = shaders_dir().join("corpus");
    let mut v: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p)))
        .collect();
    v.sort();
    v
}
