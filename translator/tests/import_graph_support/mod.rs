//! The file-level import graph of a crate's sources: which file takes a name from which.
//!
//! Files are found the way rustc finds them, from `lib.rs` through `mod NAME;` (those under
//! `#[cfg(test)]` are left out). An import is a `use` item or a path written in code that starts
//! at `crate`, `super`, `self` or a child module; its target is the file that defines the item
//! named, found through `use` re-exports and globs the way rustc's name resolution would, and
//! the module's own file where that search finds nothing. Importing a module by name (`use
//! crate::ir;`) is no edge by itself: the paths written through it are.

pub mod known;
pub mod lex;

use std::collections::{BTreeMap, BTreeSet};

use lex::Tok;

/// A file's path relative to `src/`, with `/` separators.
pub type FilePath = String;

#[derive(Debug, Default)]
struct File {
    module: Vec<String>,
    defs: BTreeSet<String>,
    /// Names bound by `use`, with the absolute path each names.
    bindings: Vec<(String, Vec<String>)>,
    /// Absolute paths of `use PATH::*`.
    globs: Vec<Vec<String>>,
    /// Absolute paths written in code, outside `use` items.
    code_paths: Vec<Vec<String>>,
    /// Other paths written in code: those that start at a name bound by `use` count.
    relative_paths: Vec<Vec<String>>,
}

/// The crate: its files, and the module each declares.
pub struct Crate {
    files: BTreeMap<FilePath, File>,
    modules: BTreeMap<Vec<String>, FilePath>,
}

enum Target {
    Module(Vec<String>),
    Item(FilePath),
}

impl Crate {
    /// Reads the crate rooted at `lib.rs` from `sources` (path relative to `src/` -> text).
    pub fn new(sources: &BTreeMap<FilePath, String>) -> Crate {
        let mut krate = Crate {
            files: BTreeMap::new(),
            modules: BTreeMap::new(),
        };
        let mut todo = vec![("lib.rs".to_string(), Vec::<String>::new())];
        let mut parsed = BTreeMap::new();
        while let Some((path, module)) = todo.pop() {
            let Some(text) = sources.get(&path) else {
                continue;
            };
            let toks = lex::tokens(text);
            let dir = child_dir(&path);
            for name in child_modules(&toks) {
                let mut m = module.clone();
                m.push(name.clone());
                let flat = format!("{dir}{name}.rs");
                let nested = format!("{dir}{name}/mod.rs");
                let child = if sources.contains_key(&flat) {
                    flat
                } else {
                    nested
                };
                todo.push((child, m));
            }
            krate.modules.insert(module.clone(), path.clone());
            parsed.insert(path, (module, toks));
        }
        for (path, (module, toks)) in parsed {
            let file = krate.read_file(module, &toks);
            krate.files.insert(path, file);
        }
        krate
    }

    /// Every file, sorted.
    pub fn files(&self) -> impl Iterator<Item = &FilePath> {
        self.files.keys()
    }

    /// The edges `from -> to` between distinct files, sorted.
    pub fn edges(&self) -> BTreeSet<(FilePath, FilePath)> {
        let mut out = BTreeSet::new();
        for (path, f) in &self.files {
            let bound = f.bindings.iter().map(|(_, p)| p);
            let through: Vec<_> = f
                .relative_paths
                .iter()
                .filter_map(|p| self.through_binding(f, p))
                .collect();
            for p in bound.chain(&f.code_paths).chain(&through) {
                if let Some(Target::Item(to)) = self.resolve(p) {
                    out.insert((path.clone(), to));
                }
            }
            for g in &f.globs {
                let to = match self.resolve(g) {
                    Some(Target::Item(to)) => to,
                    Some(Target::Module(m)) => self.modules[&m].clone(),
                    None => continue,
                };
                out.insert((path.clone(), to));
            }
        }
        out.retain(|(a, b)| a != b);
        out
    }

    fn read_file(&self, module: Vec<String>, toks: &[Tok]) -> File {
        let children: BTreeSet<String> = self
            .modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(&module))
            .map(|m| m[module.len()].clone())
            .collect();
        let mut file = File {
            module,
            ..File::default()
        };
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                Tok::Ident(kw) if kw == "use" => {
                    let end = toks[i..]
                        .iter()
                        .position(|t| *t == Tok::Punct(';'))
                        .map_or(toks.len(), |n| i + n);
                    let mut uses = Vec::new();
                    parse_use_tree(&toks[i + 1..end], &[], &mut uses);
                    for (name, path) in uses {
                        let Some(abs) = absolute(&file.module, &children, &path) else {
                            continue;
                        };
                        match name {
                            Some(name) => file.bindings.push((name, abs)),
                            None => file.globs.push(abs),
                        }
                    }
                    i = end + 1;
                    continue;
                }
                Tok::Ident(kw) if is_def_keyword(kw) => {
                    let at = if kw == "macro_rules" { i + 2 } else { i + 1 };
                    if let Some(Tok::Ident(name)) = toks.get(at) {
                        file.defs.insert(name.clone());
                    }
                }
                Tok::Ident(first)
                    if toks.get(i + 1) == Some(&Tok::PathSep)
                        && (i == 0 || toks[i - 1] != Tok::PathSep) =>
                {
                    let mut path = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Tok::PathSep) {
                        match toks.get(j + 1) {
                            Some(Tok::Ident(s)) => path.push(s.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    let via_crate = i > 0 && toks[i - 1] == Tok::Punct('$');
                    if via_crate {
                        path[0] = "crate".into();
                    }
                    match absolute(&file.module, &children, &path) {
                        Some(abs) => file.code_paths.push(abs),
                        None => file.relative_paths.push(path),
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        file
    }

    /// `path` whose first segment is a module the file bound by `use` (`ir::forward::X` after
    /// `use crate::ir;`).
    fn through_binding(&self, file: &File, path: &[String]) -> Option<Vec<String>> {
        let (_, to) = file.bindings.iter().find(|(name, _)| *name == path[0])?;
        let mut abs = to.clone();
        abs.extend_from_slice(&path[1..]);
        matches!(self.resolve(to), Some(Target::Module(_))).then_some(abs)
    }

    fn resolve(&self, path: &[String]) -> Option<Target> {
        let (m, k) = self.longest_module(path);
        if k == path.len() {
            return Some(Target::Module(m));
        }
        Some(
            self.find(&path[..k], &path[k..], 0)
                .unwrap_or_else(|| Target::Item(self.modules[&m].clone())),
        )
    }

    fn longest_module(&self, path: &[String]) -> (Vec<String>, usize) {
        (0..=path.len())
            .rev()
            .find(|&k| self.modules.contains_key(&path[..k]))
            .map(|k| (path[..k].to_vec(), k))
            .unwrap_or_default()
    }

    /// `rest[0]` as module `module` sees it: defined there, or bound there by `use`.
    fn find(&self, module: &[String], rest: &[String], depth: usize) -> Option<Target> {
        if depth > 16 {
            return None;
        }
        let path = self.modules.get(module)?;
        let file = self.files.get(path)?;
        let name = &rest[0];
        if file.defs.contains(name) {
            return Some(Target::Item(path.clone()));
        }
        let bound = file.bindings.iter().find(|(n, _)| n == name);
        let candidates = bound
            .map(|(_, to)| to.clone())
            .into_iter()
            .chain(file.globs.iter().map(|g| {
                let mut p = g.clone();
                p.push(name.clone());
                p
            }));
        for mut to in candidates {
            to.extend_from_slice(&rest[1..]);
            let (m, k) = self.longest_module(&to);
            if k == to.len() {
                return Some(Target::Module(m));
            }
            if let Some(t) = self.find(&m, &to[k..], depth + 1) {
                return Some(t);
            }
        }
        None
    }
}

fn is_def_keyword(kw: &str) -> bool {
    matches!(
        kw,
        "fn" | "struct" | "enum" | "const" | "static" | "type" | "trait" | "union" | "macro_rules"
    )
}

/// The folder holding the children of the module whose file is `path`.
fn child_dir(path: &str) -> String {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    match name {
        "lib.rs" | "mod.rs" => dir,
        _ => format!("{dir}{}/", name.trim_end_matches(".rs")),
    }
}

/// The names of `mod NAME;` items.
fn child_modules(toks: &[Tok]) -> Vec<String> {
    toks.windows(3)
        .filter_map(|w| match w {
            [Tok::Ident(kw), Tok::Ident(name), Tok::Punct(';')] if kw == "mod" => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

/// The crate-absolute form of a path written in `module`, or `None` for another crate's.
fn absolute(
    module: &[String],
    children: &BTreeSet<String>,
    path: &[String],
) -> Option<Vec<String>> {
    let mut abs = module.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            abs.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                abs.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) if children.contains(first) => {}
        _ => return None,
    }
    abs.extend_from_slice(rest);
    Some(abs)
}

/// The bindings of a `use` tree: (bound name, path) for each leaf, `None` for a glob.
fn parse_use_tree(toks: &[Tok], prefix: &[String], out: &mut Vec<(Option<String>, Vec<String>)>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    if toks.first() == Some(&Tok::PathSep) {
        i = 1;
    }
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(s) if s == "as" => {
                if let Some(Tok::Ident(alias)) = toks.get(i + 1) {
                    out.push((Some(alias.clone()), path));
                }
                return;
            }
            Tok::Ident(s) => path.push(s.clone()),
            Tok::PathSep => {}
            Tok::Punct('*') => {
                out.push((None, path));
                return;
            }
            Tok::Punct('{') => {
                for item in split_top_level(&toks[i + 1..]) {
                    parse_use_tree(item, &path, out);
                }
                return;
            }
            _ => return,
        }
        i += 1;
    }
    match path.last().map(String::as_str) {
        Some("self") => {
            path.pop();
            if let Some(name) = path.last().cloned() {
                out.push((Some(name), path));
            }
        }
        Some(name) => out.push((Some(name.to_string()), path.clone())),
        None => {}
    }
}

/// The comma-separated items of a brace group whose opening brace is just before `toks`.
fn split_top_level(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') if depth == 0 => {
                out.push(&toks[start..i]);
                return out;
            }
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

/// The edges that lie on a cycle: both ends in one strongly connected component.
pub fn cycle_edges(edges: &BTreeSet<(FilePath, FilePath)>) -> BTreeSet<(FilePath, FilePath)> {
    let mut succ: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        succ.entry(a).or_default().push(b);
        succ.entry(b).or_default();
    }
    let component = components(&succ);
    edges
        .iter()
        .filter(|(a, b)| component[a.as_str()] == component[b.as_str()])
        .cloned()
        .collect()
}

/// Tarjan's strongly connected components (iterative): node -> component number.
fn components<'a>(succ: &BTreeMap<&'a str, Vec<&'a str>>) -> BTreeMap<&'a str, usize> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut low: BTreeMap<&str, usize> = BTreeMap::new();
    let mut on_stack = BTreeSet::new();
    let mut stack = Vec::new();
    let mut comp = BTreeMap::new();
    let mut next = 0;
    let mut ncomp = 0;
    for &root in succ.keys() {
        if index.contains_key(root) {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&(v, k)) = work.last() {
            if k == 0 && !index.contains_key(v) {
                index.insert(v, next);
                low.insert(v, next);
                next += 1;
                stack.push(v);
                on_stack.insert(v);
            }
            if let Some(&w) = succ[v].get(k) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                if !index.contains_key(w) {
                    work.push((w, 0));
                } else if on_stack.contains(w) {
                    let l = low[v].min(index[w]);
                    low.insert(v, l);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                let l = low[parent].min(low[v]);
                low.insert(parent, l);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack.remove(w);
                    comp.insert(w, ncomp);
                    if w == v {
                        break;
                    }
                }
                ncomp += 1;
            }
        }
    }
    comp
}
