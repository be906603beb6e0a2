//! The JIT linker (`cuLink*`) for PTX inputs (text, or the PTX of a fatbinary): the inputs become one PTX module, in which each
//! `.extern` declaration meets the definition another input gives. The result is PTX text,
//! which `cuModuleLoadData` accepts like the cubin CUDA's linker would produce.
//!
//! The merge works on the text as compilers write it (one declaration per line): the header
//! directives of the first input are kept, with the highest `.version` of all and the
//! `.target` naming the newest `sm_` of all; the other inputs' header lines are dropped; an `.extern` variable declaration is dropped where another
//! input defines the variable (the checker rejects a declaration beside a definition, while
//! function prototypes may repeat).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Mutex;

use ptxvk_runtime::translator::{Program, SourceFile};

use crate::error::{CuError, CuResult};
use crate::handles::Table;
use crate::{fatbin, module};

#[derive(Default)]
pub struct Linker {
    inputs: Vec<(String, String)>,
    /// The linked image, NUL-terminated, kept until the linker is destroyed (CUDA hands out a
    /// pointer into it).
    pub output: Option<Vec<u8>>,
}

pub static LINKERS: Table<Mutex<Linker>> = Table::new("link state");

/// `CUjitInputType` values.
pub const INPUT_PTX: u32 = 1;
pub const INPUT_FATBINARY: u32 = 2;

fn header_directive(line: &str) -> Option<&str> {
    let t = line.trim_start();
    [".version", ".target", ".address_size"]
        .into_iter()
        .find(|d| {
            t.strip_prefix(d)
                .is_some_and(|r| r.starts_with(char::is_whitespace))
        })
}

/// `.version X.Y` as (X, Y).
fn version(line: &str) -> Option<(u32, u32)> {
    let (a, b) = line
        .trim()
        .strip_prefix(".version")?
        .trim()
        .split_once('.')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// The `sm_` number of a `.target` line.
fn target_sm(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix(".target")?;
    let at = rest.find("sm_")? + 3;
    let digits: String = rest[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The name a one-line variable declaration declares (`.global .align 4 .u32 g[4] = {...};`).
fn declared_variable(line: &str) -> Option<&str> {
    let t = line.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let space = [".global", ".const"];
    if !words.iter().any(|w| space.contains(w)) || t.contains(".func") || t.contains(".entry") {
        return None;
    }
    let decl = t.split(['=', ';']).next()?.trim_end();
    let decl = decl.split('[').next()?.trim_end();
    let name = decl.rsplit(char::is_whitespace).next()?;
    (!name.starts_with('.')).then_some(name)
}

impl Linker {
    pub fn add(&mut self, kind: u32, data: &[u8], name: &str) -> CuResult<()> {
        let text = match kind {
            INPUT_PTX => {
                let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
                std::str::from_utf8(&data[..end])
                    .map(Cow::Borrowed)
                    .map_err(|_| CuError::InvalidPtx(format!("{name}: not UTF-8 text")))?
            }
            // The PTX in it that a module load of the fatbinary would take.
            INPUT_FATBINARY if data.starts_with(&fatbin::FATBIN_MAGIC.to_le_bytes()) => {
                module::image_text(data)?
            }
            INPUT_FATBINARY => {
                return Err(CuError::InvalidImage(format!("{name}: not a fatbinary")));
            }
            _ => {
                return Err(CuError::NotSupported(format!(
                    "linker input type {kind} (PTX and fatbinaries holding PTX are linked)"
                )));
            }
        };
        // CUDA compiles each PTX input as it is added: errors show here.
        Program::parse(SourceFile::new(name, text.as_ref()))
            .map_err(|d| CuError::InvalidPtx(d.to_string()))?;
        self.inputs.push((name.to_string(), text.into_owned()));
        Ok(())
    }

    /// Merges the inputs and checks the result.
    pub fn complete(&mut self) -> CuResult<&[u8]> {
        let Some((_, first)) = self.inputs.first() else {
            return Err(CuError::invalid("nothing was added to the linker"));
        };
        let newest = self
            .inputs
            .iter()
            .flat_map(|(_, t)| t.lines().filter_map(version))
            .max();
        let target = self
            .inputs
            .iter()
            .flat_map(|(_, t)| t.lines())
            .filter_map(|l| Some((target_sm(l)?, l)))
            .max_by_key(|(sm, _)| *sm)
            .map(|(_, l)| l.trim());
        let mut out = String::new();
        for line in first.lines().filter(|l| header_directive(l).is_some()) {
            match (header_directive(line), newest, target) {
                (Some(".version"), Some((a, b)), _) => out.push_str(&format!(".version {a}.{b}\n")),
                (Some(".target"), _, Some(t)) => out.push_str(&format!("{t}\n")),
                _ => out.push_str(&format!("{line}\n")),
            }
        }
        let defined: BTreeSet<&str> = self
            .inputs
            .iter()
            .flat_map(|(_, t)| t.lines())
            .filter(|l| !l.trim_start().starts_with(".extern"))
            .filter_map(declared_variable)
            .collect();
        for (name, text) in &self.inputs {
            out.push_str(&format!("// {name}\n"));
            for line in text.lines().filter(|l| header_directive(l).is_none()) {
                let extern_var = line.trim_start().starts_with(".extern")
                    && declared_variable(line).is_some_and(|v| defined.contains(v));
                if !extern_var {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        Program::parse(SourceFile::new("linked.ptx", out.as_str()))
            .map_err(|d| CuError::InvalidPtx(d.to_string()))?;
        let mut image = out.into_bytes();
        image.push(0);
        Ok(self.output.insert(image))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_declarations_are_named() {
        assert_eq!(
            declared_variable(".visible .global .align 4 .u32 start = 41;"),
            Some("start")
        );
        assert_eq!(
            declared_variable(".extern .global .align 8 .b8 buf[16];"),
            Some("buf")
        );
        assert_eq!(
            declared_variable(".const .f32 k[2] = {1.0, 2.0};"),
            Some("k")
        );
        // Functions, and dynamic shared memory, which each module keeps for itself.
        assert_eq!(
            declared_variable(".visible .func (.param .b32 r) f(.param .b32 x)"),
            None
        );
        assert_eq!(
            declared_variable(".extern .shared .align 16 .b8 smem[];"),
            None
        );
    }

    #[test]
    fn the_newest_version_heads_the_merge() {
        let mut l = Linker::default();
        let a = ".version 7.0\n.target sm_70\n.address_size 64\n.extern .global .u32 g;\n";
        let b = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .global .u32 g;\n";
        l.add(INPUT_PTX, a.as_bytes(), "a.ptx")
            .unwrap_or_else(|e| panic!("{e}"));
        l.add(INPUT_PTX, b.as_bytes(), "b.ptx")
            .unwrap_or_else(|e| panic!("{e}"));
        let out =
            String::from_utf8_lossy(l.complete().unwrap_or_else(|e| panic!("{e}"))).into_owned();
        assert!(out.starts_with(".version 8.0\n.target sm_80\n"), "{out}");
        assert!(!out.contains(".extern .global"), "{out}");
        assert_eq!(out.matches(".version").count(), 1, "{out}");
    }
}
