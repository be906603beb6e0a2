//! The JIT linker (`cuLink*`) for PTX inputs (text, or the PTX of a fatbinary): the
//! translator's linker (`ptxvk_translator::link`) resolves each input's `.extern` functions
//! and variables against the others' definitions and writes one PTX module, which
//! `cuModuleLoadData` accepts like the cubin CUDA's linker would produce. Unresolved and
//! duplicate symbols are errors naming the input, line and column.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use ptxvk_runtime::translator::{Program, SourceFile, link};

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

    /// Links the inputs and checks the result.
    pub fn complete(&mut self) -> CuResult<&[u8]> {
        if self.inputs.is_empty() {
            return Err(CuError::invalid("nothing was added to the linker"));
        }
        let files: Vec<Arc<SourceFile>> = self
            .inputs
            .iter()
            .map(|(name, text)| SourceFile::new(name.as_str(), text.as_str()))
            .collect();
        let linked =
            link::link("linked.ptx", &files).map_err(|e| CuError::InvalidPtx(e.to_string()))?;
        Program::parse(linked.clone()).map_err(|d| CuError::InvalidPtx(d.to_string()))?;
        let mut image = linked.text.as_bytes().to_vec();
        image.push(0);
        Ok(self.output.insert(image))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn an_unresolved_symbol_fails_the_link() {
        let mut l = Linker::default();
        let a = ".version 7.0\n.target sm_70\n.address_size 64\n.extern .global .u32 g;\n\
                 .visible .entry k() { .reg .b32 %r; ld.global.u32 %r, [g]; ret; }\n";
        l.add(INPUT_PTX, a.as_bytes(), "a.ptx")
            .unwrap_or_else(|e| panic!("{e}"));
        match l.complete() {
            Err(CuError::InvalidPtx(m)) => assert!(
                m.contains("a.ptx:5:")
                    && m.contains("`g` is declared `.extern` but no module defines it"),
                "{m}"
            ),
            Err(e) => panic!("{e}"),
            Ok(out) => panic!("linked: {}", String::from_utf8_lossy(out)),
        }
    }
}
