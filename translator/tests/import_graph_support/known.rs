//! What the import-graph lint finds today and must not grow: the edges that lie on a cycle between
//! files, and the edges from `ir/` or `emit/` into the front end. Each entry is `(from, to)`, paths
//! relative to `src/`. Remove an entry when its edge goes; the test says which.

/// Import edges that lie on a cycle between files.
pub const CYCLE_EDGES: &[(&str, &str)] = &[];

/// Edges from `ir/` or `emit/` into `check/`, `parse/` or `ast.rs`.
pub const LAYER_EDGES: &[(&str, &str)] = &[];
