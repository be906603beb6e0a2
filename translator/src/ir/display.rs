//! A readable text form of the IR (`ptxvk translate --emit ir`).

use std::fmt;

use super::*;

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fn {}({:?}) -> {:?} {{",
            self.name, self.params, self.returns
        )?;
        // Those that `forward` left unused are not listed.
        let mentioned = self.mentioned_vars();
        for (i, v) in self.vars.iter().enumerate() {
            if mentioned[i] {
                writeln!(f, "  var v{i}: {:?}  // {}", v.ty, v.name)?;
            }
        }
        for (i, b) in self.blocks.iter().enumerate() {
            let mark = if BlockId(i as u32) == self.entry {
                " (entry)"
            } else {
                ""
            };
            writeln!(f, "b{i}:{mark}")?;
            for inst in &b.insts {
                // A call or texture operation shows its entry of the side tables.
                let op: &dyn fmt::Debug = match &inst.op {
                    Op::Call(c) => self.side.call(*c),
                    Op::Texture(t) => self.side.tex(*t),
                    op => op,
                };
                match inst.result {
                    Some(r) => writeln!(f, "  %{}: {:?} = {op:?}", r.0, self.ty(r))?,
                    None => writeln!(f, "  {op:?}")?,
                }
            }
            writeln!(f, "  {:?}", b.term)?;
        }
        writeln!(f, "}}")
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for func in &self.functions {
            writeln!(f, "{func}")?;
        }
        Ok(())
    }
}
