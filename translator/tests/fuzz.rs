//! Robustness: random bytes and random mutations of every valid PTX file in the repository go
//! through `Program::parse` and, where that succeeds, through translation of every kernel. The
//! translator must never panic, every error must carry a span inside the file, and every
//! diagnostic must render.
//!
//! A seeded loop rather than proptest: the inputs are mutations of real files, where shrinking
//! buys little, and a failure prints its seed and iteration so it can be replayed exactly.
//! `PTXVK_FUZZ_ITERS` sets the number of cases (default 250, a few seconds) and
//! `PTXVK_FUZZ_SEED` the seed; `PTXVK_FUZZ_VALIDATE=1` also runs SPIRV-Tools on every module
//! that translates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use ptxvk_translator::{DeviceProfile, Diagnostics, Program, SourceFile};

/// xorshift64*: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
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

/// The repository's PTX files that parse without errors.
fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "shaders",
        "runtime/tests",
        "translator/tests",
        "conformance",
    ] {
        ptx_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let name = f.display().to_string();
        if Program::parse(SourceFile::new(name.clone(), text.clone())).is_ok() {
            out.push((name, text));
        }
    }
    assert!(
        out.len() >= 4,
        "too few valid PTX files found: {}",
        out.len()
    );
    for (name, text) in &out {
        assert!(
            ptxvk_translator::parse::fast_parser_accepts(text),
            "{name}: the hand-written parser rejects it"
        );
    }
    out
}

/// Overwrites a few random bytes with random values; what is no longer UTF-8 becomes U+FFFD, as
/// it would for a file read lossily (the API takes `&str`).
fn flip_bytes(rng: &mut Rng, text: String) -> String {
    let mut bytes = text.into_bytes();
    if bytes.is_empty() {
        return String::new();
    }
    for _ in 0..=rng.below(3) {
        let i = rng.below(bytes.len());
        bytes[i] = rng.next() as u8;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Splits text into tokens for mutation: identifier-like runs, whitespace runs, single others.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let word = |c: char| c.is_ascii_alphanumeric() || "_.%$".contains(c);
        let kind = |c: char| {
            if word(c) {
                0
            } else if c.is_whitespace() {
                1
            } else {
                2
            }
        };
        let k = kind(c);
        let mut end = i + c.len_utf8();
        if k != 2 {
            while let Some(&(j, d)) = chars.peek() {
                if kind(d) != k {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
        }
        out.push(&text[i..end]);
    }
    out
}

const JUNK: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "@",
    "!",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "|",
    ".reg",
    ".b32",
    ".u64",
    ".f16x2",
    ".shared",
    ".global",
    ".param",
    ".v4",
    ".align",
    ".entry",
    ".func",
    ".version",
    ".target",
    ".sync",
    ".v8",
    ".b128",
    ".pred",
    "%r1",
    "%rd1",
    "%p1",
    "%tid.x",
    "%clock64",
    "%envreg31",
    "_",
    "WARP_SZ",
    "0x7fffffffffffffff",
    "0xffffffffffffffff",
    "18446744073709551615",
    "-9223372036854775808",
    "0f7F800000",
    "0d7FF8000000000000",
    "1e308",
    "4294967296",
    "0",
    "1",
    "-1",
    "add.s32",
    "ld.global.u32",
    "st.shared.v4.f32",
    "bra",
    "brx.idx",
    "call",
    "ret;",
    "exit;",
    "mov.u64",
    "cp.async.ca.shared.global",
    "bar.sync",
    "shfl.sync.bfly.b32",
    "atom.global.add.u32",
    "cvt.rn.f32.s32",
    "setp.lt.s32",
    "selp.b32",
    ".branchtargets",
    ".callprototype",
    "\"str\"",
    "// c\n",
    "/* c */",
    "L<3>",
    "%r<1000000>",
    "\u{e9}",
    "\u{1F600}",
];

fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(300);
    (0..n)
        .map(|_| match rng.below(4) {
            0 => char::from_u32(rng.below(0x300) as u32).unwrap_or('?'),
            1 => (b' ' + rng.below(95) as u8) as char,
            2 => '\n',
            _ => JUNK[rng.below(JUNK.len())].chars().next().unwrap_or('x'),
        })
        .collect()
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut toks: Vec<String> = tokens(text).into_iter().map(String::from).collect();
    for _ in 0..=rng.below(4) {
        if toks.is_empty() {
            toks.push(JUNK[rng.below(JUNK.len())].to_string());
        }
        let i = rng.below(toks.len());
        match rng.below(6) {
            0 => {
                toks.remove(i);
            }
            1 => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 => {
                let j = rng.below(toks.len());
                toks.swap(i, j);
            }
            3 => toks.insert(i, JUNK[rng.below(JUNK.len())].to_string()),
            4 => toks.insert(i, random_text(rng).chars().take(8).collect()),
            _ => {
                // Truncate (at a token boundary here; raw byte cuts come from the others).
                toks.truncate(i);
            }
        }
    }
    toks.concat()
}

fn check_diagnostics(d: &Diagnostics, what: &str) {
    let len = d.file.text.len() as u32;
    for e in &d.items {
        assert!(
            e.span.start <= e.span.end && e.span.end <= len,
            "{what}: span {:?} outside the file ({len} bytes): {}",
            e.span,
            e.message
        );
        for (s, _) in &e.secondary {
            assert!(
                s.start <= s.end && s.end <= len,
                "{what}: secondary span {s:?} outside the file"
            );
        }
    }
    let _ = d.render(false);
}

/// The hand-written parser and the chumsky grammar agree: the same tree and diagnostics, and
/// every file the grammar accepts without errors, the hand-written one accepts too.
fn parsers_agree(text: &str) {
    use ptxvk_translator::parse;
    let fast = parse::parse(text);
    let grammar = parse::parse_with_grammar(text);
    assert!(
        fast == grammar,
        "the two parsers disagree:\n fast: {:?}\n grammar: {:?}",
        fast.1,
        grammar.1
    );
    if grammar.1.is_empty() {
        assert!(
            parse::fast_parser_accepts(text),
            "the hand-written parser rejects a file the grammar accepts"
        );
    }
}

fn run_case(text: String, validate: bool) -> Result<(), String> {
    let file = SourceFile::new("fuzz.ptx", text);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        parsers_agree(&file.text);
        match Program::parse(file.clone()) {
            Err(d) => check_diagnostics(&d, "parse"),
            Ok(program) => {
                check_diagnostics(&program.warnings(), "warnings");
                let profile = DeviceProfile::lavapipe();
                for name in program.kernel_names() {
                    match program.translate_kernel(&name, &profile) {
                        Err(d) => check_diagnostics(&d, "translate"),
                        Ok(k) => {
                            if validate && let Err(e) = ptxvk_translator::validate(&k.spirv) {
                                panic!("kernel `{name}` translates to invalid SPIR-V: {e}");
                            }
                        }
                    }
                }
            }
        }
    }));
    outcome.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

#[test]
fn mutated_and_random_ptx_never_panics() {
    let iters: usize = std::env::var("PTXVK_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(250);
    let seed: u64 = std::env::var("PTXVK_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x005E_ED0F_97C5);
    let validate = std::env::var("PTXVK_FUZZ_VALIDATE").is_ok_and(|v| v == "1");
    let corpus = corpus();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    for iter in 0..iters {
        let mut rng = Rng(seed ^ (iter as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let text = if rng.below(10) == 0 {
            random_text(&mut rng)
        } else {
            let (_, base) = &corpus[rng.below(corpus.len())];
            let mut t = mutate(&mut rng, base);
            if rng.below(4) == 0 {
                t = flip_bytes(&mut rng, t);
            }
            if rng.below(8) == 0 {
                // A raw cut, possibly inside a token.
                let mut cut = rng.below(t.len() + 1);
                while !t.is_char_boundary(cut) {
                    cut -= 1;
                }
                t.truncate(cut);
            }
            t
        };
        if let Err(msg) = run_case(text.clone(), validate) {
            failures.push(format!(
                "seed {seed} iteration {iter}: {msg}\n--- input ---\n{text}\n---"
            ));
            if failures.len() >= 5 {
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The hand-written parser sizes a body from the lines up to the next `}` in column 0; bodies
/// closed elsewhere (indented, on the last statement's line, many on one line) turn that off and
/// must parse exactly as the grammar parses them, and translate.
#[test]
fn bodies_closed_anywhere_parse_the_same() {
    let head = ".version 7.0\n.target sm_70\n.address_size 64\n";
    let k = |n: usize, close: &str| {
        format!(
            ".visible .entry k{n}(.param .u64 out)\n{{\n\t.reg .b64 %rd<2>;\n\
             \tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], {n};\n\tret;{close}"
        )
    };
    let texts = [
        format!("{head}{}{}{}", k(0, "\n  }\n"), k(1, " }\n"), k(2, "\n}\n")),
        format!("{head}{}{}", k(0, "\n}\n"), k(1, "\n\t}\n")),
        format!("{head}{}{}{}", k(0, "}"), k(1, "}"), k(2, "}")),
    ];
    for text in texts {
        parsers_agree(&text);
        let program = Program::parse(SourceFile::new("closed.ptx", text.clone()))
            .unwrap_or_else(|d| panic!("{text}\n{d}"));
        let names = program.kernel_names();
        assert!(names.len() >= 2, "{names:?}");
        for name in names {
            let m = program
                .translate_kernel(&name, &DeviceProfile::lavapipe())
                .unwrap_or_else(|d| panic!("{name}: {d}"));
            ptxvk_translator::validate(&m.spirv).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// A `.section` body the hand-written parser skipped by its braces alone, while the grammar
/// path refuses its unclosed `(` (found by the `parse` libFuzzer target): both now refuse it,
/// at the `(`.
#[test]
fn section_bodies_are_refused_as_the_grammar_refuses_them() {
    let text = "///f\n.section .f73{7;call(}\n";
    parsers_agree(text);
    assert!(!ptxvk_translator::parse::fast_parser_accepts(text));
    let (_, diags) = ptxvk_translator::parse::parse(text);
    let at = text.find('(').unwrap() as u32;
    assert!(
        diags
            .iter()
            .any(|d| d.message == "unclosed `(`" && d.span.start == at),
        "{diags:?}"
    );
    // A well-formed body is still skipped.
    let ok =
        ".version 7.0\n.target sm_70\n.address_size 64\n.section .debug_str { .b8 65, (66), 0; }\n";
    parsers_agree(ok);
    assert!(ptxvk_translator::parse::fast_parser_accepts(ok));
}
