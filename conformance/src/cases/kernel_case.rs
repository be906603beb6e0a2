//! Cases made of a whole PTX module: buffers in, one launch, the bytes of chosen buffers
//! compared with what the reference computed; and cases whose PTX the ISA rejects.

use ptxvk_runtime::{Buffer, Context, KernelArg, LaunchConfig};
use ptxvk_translator::{Program, SourceFile, diag::Severity};

use crate::{Case, Outcome, outcome_of};

/// A kernel argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// The address of buffer `n`.
    Buf(usize),
    Value(KernelArg),
}

/// A module, its launch and the expected contents of some buffers afterwards.
#[derive(Clone, Debug)]
pub struct KernelCase {
    pub family: &'static str,
    pub name: String,
    pub ptx: String,
    pub kernel: String,
    pub grid: u32,
    pub block: u32,
    /// Initial contents of each buffer.
    pub buffers: Vec<Vec<u8>>,
    pub args: Vec<Arg>,
    /// `(buffer, bytes)`: what the buffer must hold after the launch.
    pub expect: Vec<(usize, Vec<u8>)>,
    /// Bytes per element when reporting a difference.
    pub elem: usize,
}

impl KernelCase {
    pub fn case(self) -> Case {
        let ptx = self.ptx.clone();
        Case {
            name: self.name.clone(),
            family: self.family,
            ptx,
            run: Box::new(move |ctx| self.run(ctx).unwrap_or_else(outcome_of)),
        }
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, ptxvk_runtime::Error> {
        let module = ctx.load_ptx(&format!("{}.ptx", self.name.replace('/', "_")), &self.ptx)?;
        let kernel = module.kernel(&self.kernel)?;
        let mut bufs = Vec::new();
        for init in &self.buffers {
            let b = Buffer::new(ctx, init.len().max(4) as u64)?;
            b.write_bytes(0, init)?;
            bufs.push(b);
        }
        let args: Vec<KernelArg> = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Buf(n) => bufs.get(*n).map_or(KernelArg::Ptr(0), KernelArg::from),
                Arg::Value(v) => v.clone(),
            })
            .collect();
        let cfg = LaunchConfig {
            grid: [self.grid, 1, 1],
            block: [self.block, 1, 1],
            shared_bytes: 0,
        };
        kernel.launch(&cfg, &args)?;
        for (n, want) in &self.expect {
            let Some(b) = bufs.get(*n) else {
                return Ok(Outcome::Fail(format!("no buffer {n}")));
            };
            let mut got = vec![0u8; want.len()];
            b.read_bytes(0, &mut got)?;
            if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                let e = self.elem.max(1);
                let at = i / e * e;
                let end = (at + e).min(want.len());
                return Ok(Outcome::Fail(format!(
                    "buffer {n}, bytes {at}..{end}: expected {}, got {}",
                    hex(&want[at..end]),
                    hex(&got[at..end])
                )));
            }
        }
        Ok(Outcome::Pass)
    }
}

/// Little-endian bytes as one hex number (and decimal when they fit in 64 bits).
fn hex(b: &[u8]) -> String {
    let mut v = 0u128;
    for (i, x) in b.iter().enumerate().take(16) {
        v |= u128::from(*x) << (8 * i);
    }
    format!("0x{v:0w$x} ({v})", w = b.len() * 2)
}

/// A case named `PREFIX/NAME` that passes when the kernel `module` builds around one
/// instruction `line` is rejected at `at` within that line ([`rejected`]).
pub fn rejected_line(
    family: &'static str,
    prefix: &str,
    module: fn(&str) -> String,
    (name, line, at): (&str, &str, &str),
) -> Case {
    rejected(
        family,
        &format!("{prefix}/{name}"),
        module(&format!("\t{line}")),
        line,
        at,
    )
}

/// A case that passes when checking `ptx` fails with an error whose span is the first
/// occurrence of `at` at or after `after` in the text (an operand or a modifier without its
/// dot).
pub fn rejected(family: &'static str, name: &str, ptx: String, after: &str, at: &str) -> Case {
    let text = ptx.clone();
    let after = after.to_string();
    let at = at.to_string();
    let file = format!("{}.ptx", name.replace('/', "_"));
    Case {
        name: name.to_string(),
        family,
        ptx,
        run: Box::new(move |_| {
            let start = text.find(after.as_str()).unwrap_or(0);
            let Some(pos) = text[start..].find(at.as_str()).map(|p| p + start) else {
                return Outcome::Fail(format!("`{at}` is not in the case's text"));
            };
            match Program::parse(SourceFile::new(file.clone(), text.clone())) {
                Ok(_) => Outcome::Fail(format!("accepted; the ISA rejects `{at}` in `{after}`")),
                Err(d) => {
                    let hit = d.items.iter().any(|i| {
                        i.severity == Severity::Error
                            && (i.span.start as usize..=i.span.start as usize + 1).contains(&pos)
                            && i.span.end as usize == pos + at.len()
                    });
                    if hit {
                        Outcome::Pass
                    } else {
                        Outcome::Fail(format!("rejected, but not at `{at}`: {}", d.short().trim()))
                    }
                }
            }
        }),
    }
}
