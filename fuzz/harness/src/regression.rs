//! Differential-fuzzer programs kept as conformance cases (`fuzz/regressions/*.ptx`).
//!
//! A case file is the PTX of one program, as [`crate::ptxgen::Program::to_ptx`] prints it,
//! after comment lines that say how it is launched and what every thread must store, as the
//! generator's interpreter computed it when the file was written. The expectation travels in
//! the file, not as a seed, because a minimised program has no seed and the generator's draws
//! change as it grows. A comment line the format does not know (a title, a driver's verdict)
//! is kept and ignored, so a file the fuzzer saves is a case as it stands.

use std::fmt::Write as _;

use thiserror::Error;

/// The kernel every generated program is: `k(.param .u64 out)`.
pub const KERNEL: &str = "k";

/// One case: how `k` is launched (1-D) and the `u32` words `out` must hold afterwards, thread
/// by thread, then `after` words that belong to no thread (the reductions across blocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegressionCase {
    pub grid: u32,
    pub block: u32,
    pub words_per_thread: u32,
    pub after: u32,
    pub expect: Vec<u32>,
}

/// What is wrong with a case file, with its 1-based line.
#[derive(Debug, Error)]
pub enum CaseError {
    #[error("line {line}: {what}")]
    Line { line: usize, what: String },
    #[error("no `// launch:` line")]
    NoLaunch,
    #[error("expected {want} threads' words, found {found}")]
    Threads { want: u64, found: usize },
    #[error("thread {thread} has {found} words, not {want}")]
    Words {
        thread: usize,
        found: usize,
        want: u32,
    },
    #[error("expected {want} words after the threads', found {found}")]
    After { want: u32, found: usize },
}

/// The case file for `ptx`, launched as `case` says, with `title` as its first line.
pub fn write(title: &str, case: &RegressionCase, ptx: &str) -> String {
    let mut out = String::new();
    for line in title.lines() {
        let _ = writeln!(out, "// {line}");
    }
    let _ = write!(
        out,
        "// launch: grid {}, block {}, words {}",
        case.grid, case.block, case.words_per_thread
    );
    if case.after > 0 {
        let _ = write!(out, ", after {}", case.after);
    }
    out.push('\n');
    let hex = |words: &[u32]| -> String {
        let words: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
        words.join(" ")
    };
    let threads = case.grid as usize * case.block as usize;
    let per = case.words_per_thread as usize;
    let (rows, after) = case.expect.split_at((threads * per).min(case.expect.len()));
    for (t, words) in rows.chunks(per.max(1)).enumerate() {
        let _ = writeln!(out, "// expect {t}: {}", hex(words));
    }
    if !after.is_empty() {
        let _ = writeln!(out, "// expect after: {}", hex(after));
    }
    out.push_str(ptx);
    out
}

/// Reads the launch and the expectation from a case file's comment lines.
pub fn parse(text: &str) -> Result<RegressionCase, CaseError> {
    let mut launch = None;
    let mut rows: Vec<Vec<u32>> = Vec::new();
    let mut after: Option<Vec<u32>> = None;
    for (n, line) in text.lines().enumerate() {
        let err = |what: String| CaseError::Line { line: n + 1, what };
        let Some(rest) = line.trim().strip_prefix("//") else {
            continue;
        };
        let rest = rest.trim();
        if let Some(fields) = rest.strip_prefix("launch:") {
            launch = Some(parse_launch(fields).map_err(err)?);
        } else if let Some(row) = rest.strip_prefix("expect ") {
            let (t, words) = row
                .split_once(':')
                .ok_or_else(|| err("`expect T:` needs a colon".into()))?;
            let words = words
                .split_whitespace()
                .map(|w| u32::from_str_radix(w, 16))
                .collect::<Result<Vec<u32>, _>>()
                .map_err(|e| err(format!("a word is not 8 hex digits: {e}")))?;
            // Threads in order, then at most one `after` row.
            if after.is_none() && t.trim() == "after" {
                after = Some(words);
            } else if after.is_none() && t.trim().parse::<usize>().ok() == Some(rows.len()) {
                rows.push(words);
            } else {
                return Err(err(format!("expected the words of thread {}", rows.len())));
            }
        }
    }
    let (grid, block, words_per_thread, after_words) = launch.ok_or(CaseError::NoLaunch)?;
    let want = u64::from(grid) * u64::from(block);
    if rows.len() as u64 != want {
        return Err(CaseError::Threads {
            want,
            found: rows.len(),
        });
    }
    if let Some(t) = rows
        .iter()
        .position(|r| r.len() != words_per_thread as usize)
    {
        return Err(CaseError::Words {
            thread: t,
            found: rows[t].len(),
            want: words_per_thread,
        });
    }
    let after = after.unwrap_or_default();
    if after.len() != after_words as usize {
        return Err(CaseError::After {
            want: after_words,
            found: after.len(),
        });
    }
    let mut expect = rows.concat();
    expect.extend(after);
    Ok(RegressionCase {
        grid,
        block,
        words_per_thread,
        after: after_words,
        expect,
    })
}

/// `grid G, block B, words W[, after A]`, each between 1 (`after`: 0) and a size a test can
/// hold.
fn parse_launch(fields: &str) -> Result<(u32, u32, u32, u32), String> {
    let mut values = [0u32; 4];
    let names = ["grid", "block", "words", "after"];
    let parts: Vec<&str> = fields.split(',').map(str::trim).collect();
    if !(3..=4).contains(&parts.len()) {
        return Err("`launch:` needs `grid G, block B, words W` and may add `after A`".into());
    }
    for (n, ((part, name), value)) in parts.iter().zip(names).zip(&mut values).enumerate() {
        let least = u32::from(n < 3);
        *value = part
            .strip_prefix(name)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|v| (least..=1024).contains(v))
            .ok_or_else(|| format!("`{name} N` with N from {least} to 1024, not `{part}`"))?;
    }
    Ok((values[0], values[1], values[2], values[3]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_case_reads_back() {
        for after in [0, 3] {
            let case = RegressionCase {
                grid: 2,
                block: 3,
                words_per_thread: 2,
                after,
                expect: (0..12 + after).map(|i| i * 0x1111_1111).collect(),
            };
            let text = write("seed 7: a title\nover two lines", &case, ".version 7.8\n");
            assert!(text.starts_with("// seed 7: a title\n// over two lines\n// launch:"));
            assert!(text.ends_with(".version 7.8\n"));
            assert_eq!(text.contains("// expect after: "), after > 0);
            let prefixed = format!("// seed 7 on another driver: fails there too\n{text}");
            assert_eq!(parse(&prefixed).unwrap(), case);
        }
    }

    #[test]
    fn malformed_cases_are_refused_with_their_line() {
        let good = "// launch: grid 1, block 2, words 1\n// expect 0: 00000001\n// expect 1: 2\n";
        assert!(parse(good).is_ok());
        let cases = [
            ("", "no `// launch:` line"),
            ("// launch: grid 1, block 0, words 1\n", "line 1"),
            ("// launch: grid 1, block 2\n", "line 1"),
            (
                "// launch: grid 1, block 2, words 1\n// expect 0: 1\n",
                "expected 2 threads' words, found 1",
            ),
            (
                "// launch: grid 1, block 2, words 1\n// expect 1: 1\n",
                "line 2: expected the words of thread 0",
            ),
            (
                "// launch: grid 1, block 2, words 1\n// expect 0: 1\n// expect 1: xyz\n",
                "line 3: a word is not 8 hex digits",
            ),
            (
                "// launch: grid 1, block 2, words 2\n// expect 0: 1 2\n// expect 1: 3\n",
                "thread 1 has 1 words, not 2",
            ),
            (
                "// launch: grid 1, block 2, words 1, after 2\n// expect 0: 1\n// expect 1: 2\n",
                "expected 2 words after the threads', found 0",
            ),
            (
                "// launch: grid 1, block 2, words 1, after 1\n// expect 0: 1\n\
                 // expect after: 2\n// expect 1: 2\n",
                "line 4: expected the words of thread 1",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
