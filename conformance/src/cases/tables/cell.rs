//! One cell of a type-rule table as a runnable case: a kernel that loads one value per thread,
//! runs the instruction under test with the cell's register type, and stores the result; the
//! expectation comes from the reference model in `model.rs`.

use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use ptxvk_runtime::{Context, KernelArg, LaunchConfig};
use ptxvk_translator::ScalarType;

use crate::launch::{self, Arg, Launch};
use crate::{Case, Outcome, launch_outcome, show};

/// A generated kernel: registers, a body between the loads of the addresses and `ret`.
pub struct Kernel {
    /// `.reg` declarations: (type, name).
    pub regs: Vec<(ScalarType, &'static str)>,
    /// Instructions; one operand may be marked `«...»` (the one a rejection must point at).
    pub body: Vec<String>,
    /// Bytes per element read from `in` and written to `out`.
    pub in_bytes: u32,
    pub out_bytes: u32,
}

impl Kernel {
    /// The PTX text and the byte range of the marked operand, if any.
    pub fn ptx(&self) -> (String, Option<Range<usize>>) {
        // `.b128` needs PTX ISA 8.3; everything else runs on any PTX 7.0 driver.
        let b128 = self.regs.iter().any(|(t, _)| *t == ScalarType::B128)
            || self.body.iter().any(|l| l.contains("b128"));
        let version = if b128 { "8.3" } else { "7.0" };
        let mut s = format!(
            ".version {version}\n.target sm_70\n.address_size 64\n\n.visible .entry cell(.param .u64 in, .param .u64 out, .param .u32 n)\n{{\n"
        );
        s.push_str("\t.reg .pred %p;\n\t.reg .b32 %i, %t, %n;\n\t.reg .b64 %ia, %oa, %off;\n");
        for (ty, name) in &self.regs {
            let _ = writeln!(s, "\t.reg {ty} {name};");
        }
        s.push_str(
            "\tmov.u32 %i, %ctaid.x;\n\tmov.u32 %t, %ntid.x;\n\tmul.lo.u32 %i, %i, %t;\n\tmov.u32 %t, %tid.x;\n\tadd.u32 %i, %i, %t;\n\tld.param.u32 %n, [n];\n\tsetp.ge.u32 %p, %i, %n;\n\t@%p bra DONE;\n",
        );
        let _ = write!(
            s,
            "\tld.param.u64 %ia, [in];\n\tmul.wide.u32 %off, %i, {};\n\tadd.s64 %ia, %ia, %off;\n\tld.param.u64 %oa, [out];\n\tmul.wide.u32 %off, %i, {};\n\tadd.s64 %oa, %oa, %off;\n",
            self.in_bytes, self.out_bytes
        );
        let mut mark = None;
        for line in &self.body {
            s.push('\t');
            match (line.find('«'), line.find('»')) {
                (Some(a), Some(b)) if a < b => {
                    s.push_str(&line[..a]);
                    let start = s.len();
                    s.push_str(&line[a + '«'.len_utf8()..b]);
                    mark = Some(start..s.len());
                    s.push_str(&line[b + '»'.len_utf8()..]);
                }
                _ => s.push_str(line),
            }
            s.push('\n');
        }
        s.push_str("DONE:\n\tret;\n}\n");
        (s, mark)
    }
}

/// A cell case that runs: inputs (little-endian, `in_bytes` each) and the expected outputs.
pub struct RunCell {
    pub name: String,
    pub family: &'static str,
    pub kernel: Kernel,
    pub inputs: Vec<u128>,
    pub expected: Vec<u128>,
    /// For reports: the types the input and output bits are shown as.
    pub in_ty: ScalarType,
    pub out_ty: ScalarType,
}

fn show128(ty: ScalarType, v: u128) -> String {
    if ty.bits() > 64 {
        format!("0x{v:032x}")
    } else {
        show(ty, v as u64)
    }
}

impl RunCell {
    pub fn case(self) -> Case {
        let (ptx, _) = self.kernel.ptx();
        let n = self.inputs.len();
        let mut input = Vec::with_capacity(n * self.kernel.in_bytes as usize);
        for v in &self.inputs {
            input.extend_from_slice(&v.to_le_bytes()[..self.kernel.in_bytes as usize]);
        }
        let cfg = LaunchConfig::for_num_elems(n as u32, 64);
        let spec = Launch {
            module_name: format!("{}.ptx", self.name.replace('/', "_")),
            ptx: Arc::from(ptx.as_str()),
            kernel: "cell".into(),
            grid: cfg.grid,
            block: cfg.block,
            dynamic_shared: 0,
            buffers: vec![input, vec![0xA5; n * self.kernel.out_bytes as usize]],
            args: vec![
                Arg::Buffer(0),
                Arg::Buffer(1),
                Arg::Value(KernelArg::U32(n as u32)),
            ],
        };
        let out_bytes = self.kernel.out_bytes as usize;
        let (inputs, expected, in_ty, out_ty) =
            (self.inputs, self.expected, self.in_ty, self.out_ty);
        Case {
            name: self.name,
            family: self.family,
            ptx,
            run: Box::new(move |ctx: &Context| {
                let out = match launch::execute(ctx, &spec) {
                    Ok(o) => o,
                    Err(e) => return launch_outcome(e),
                };
                let Some(got) = out.get(1) else {
                    return Outcome::Fail("the output buffer did not come back".into());
                };
                for (i, (chunk, want)) in got.chunks(out_bytes).zip(&expected).enumerate() {
                    let mut w = [0u8; 16];
                    w[..chunk.len()].copy_from_slice(chunk);
                    let g = u128::from_le_bytes(w);
                    if g != *want {
                        return Outcome::Fail(format!(
                            "element {i}: input {}: expected {}, got {}",
                            show128(in_ty, inputs[i]),
                            show128(out_ty, *want),
                            show128(out_ty, g)
                        ));
                    }
                }
                Outcome::Pass
            }),
        }
    }
}
