//! Real kernels: CUDA C of our own compiled by clang (and hand-written PTX in the same style),
//! each checked against a Rust implementation of the same algorithm.

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig};

use crate::{Case, Outcome, compare_f32, outcome_of};

fn shader(name: &str) -> String {
    let path = format!("{}/../shaders/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| format!("// cannot read {path}: {e}"))
}

/// saxpy (`y = a*x + y` with `fma.rn.f32`) from hand-written PTX and from clang's output.
fn saxpy(file: &'static str, n: u32) -> Case {
    let ptx = shader(file);
    let text = ptx.clone();
    Case {
        name: format!("real/saxpy/{file}/n={n}"),
        family: "real kernels",
        ptx,
        run: Box::new(move |ctx: &Context| {
            let run = || -> Result<Outcome, Error> {
                let module = ctx.load_ptx(file, &text)?;
                let k = module.kernel("saxpy")?;
                let a = -0.75f32;
                let x: Vec<f32> = (0..n).map(|i| (i as f32).sin() * 100.0).collect();
                let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).cos()).collect();
                let dx = DeviceBuffer::from_slice(ctx, &x)?;
                let dy = DeviceBuffer::from_slice(ctx, &y)?;
                k.launch(
                    &LaunchConfig::for_num_elems(n, 128),
                    &[n.into(), a.into(), (&dx).into(), (&dy).into()],
                )?;
                // ISA 8.7.3.6: fma.rn computes a*b+c in infinite precision, rounded once.
                let want: Vec<f32> = (0..n as usize).map(|i| a.mul_add(x[i], y[i])).collect();
                Ok(compare_f32(&dy.to_vec()?, &want, |i| {
                    format!("a={a}, x={}, y={}", x[i], y[i])
                }))
            };
            run().unwrap_or_else(outcome_of)
        }),
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for file in ["saxpy.ptx", "saxpy_clang.ptx"] {
        for n in [1, 127, 1000, 65_537] {
            v.push(saxpy(file, n));
        }
    }
    v
}
