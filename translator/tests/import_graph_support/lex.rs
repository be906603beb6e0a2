//! Just enough of Rust's lexical grammar to find paths: identifiers and `::`, with comments,
//! string and character literals dropped, and every item under `#[cfg(test)]` left out (a test
//! module may import what the code it tests must not).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of `src`, without comments, literals and `#[cfg(test)]` items.
pub fn tokens(src: &str) -> Vec<Tok> {
    drop_test_items(raw_tokens(src))
}

fn raw_tokens(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i = skip_block_comment(b, i);
        } else if c == b'"' {
            i = skip_string(b, i + 1);
        } else if (c == b'r' || c == b'b') && raw_string_start(b, i).is_some() {
            i = skip_raw_string(b, i);
        } else if c == b'b' && b.get(i + 1) == Some(&b'"') {
            i = skip_string(b, i + 2);
        } else if c == b'b' && b.get(i + 1) == Some(&b'\'') {
            i = skip_char(b, i + 1).unwrap_or(i + 2);
        } else if c == b'\'' {
            // A character literal, or a lifetime (whose name is not a path).
            match skip_char(b, i) {
                Some(end) => i = end,
                None => {
                    i += 1;
                    while i < b.len() && is_ident(b[i]) {
                        i += 1;
                    }
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push(Tok::Ident(src[start..i].to_string()));
        } else if c.is_ascii_digit() {
            while i < b.len() && (is_ident(b[i]) || b[i] == b'.' && b.get(i + 1) != Some(&b'.')) {
                i += 1;
            }
        } else if b[i..].starts_with(b"::") {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            // Multi-byte characters only occur in literals and comments, skipped above.
            out.push(Tok::Punct(c as char));
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_block_comment(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Past the closing quote of a string whose body starts at `i`.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The number of `#` of a raw string starting at `i` (`r"`, `r#"`, `br"`, ...).
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b[j] == b'b' {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    (b.get(j + hashes) == Some(&b'"')).then_some(hashes)
}

fn skip_raw_string(b: &[u8], i: usize) -> usize {
    let hashes = raw_string_start(b, i).unwrap_or(0);
    let mut j = i + b[i..].iter().position(|&c| c == b'"').unwrap_or(0) + 1;
    while j < b.len() {
        if b[j] == b'"'
            && b[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return j + 1 + hashes;
        }
        j += 1;
    }
    j
}

/// Past a character literal starting at the quote `i`, or `None` where `i` starts a lifetime.
fn skip_char(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i + 1) == Some(&b'\\') {
        let close = b[i + 2..].iter().position(|&c| c == b'\'')?;
        return Some(i + 2 + close + 1);
    }
    // One character of up to four bytes, then the closing quote.
    (2..=5)
        .find(|&n| b.get(i + n) == Some(&b'\'') && std::str::from_utf8(&b[i + 1..i + n]).is_ok())
        .map(|n| i + n + 1)
}

/// `toks` without each item that `#[cfg(test)]` marks: up to its `;` or its closing brace.
fn drop_test_items(toks: Vec<Tok>) -> Vec<Tok> {
    let cfg_test = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if !toks[i..].starts_with(&cfg_test) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += cfg_test.len();
        let mut depth = 0usize;
        while i < toks.len() {
            let t = &toks[i];
            i += 1;
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Punct(';') if depth == 0 => break,
                _ => {}
            }
        }
    }
    out
}
