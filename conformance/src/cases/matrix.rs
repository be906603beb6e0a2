//! The warp-level matrix instructions: `mma.sync.aligned` for each shape and type, `ldmatrix`,
//! `stmatrix` and `movmatrix`, on one warp with random inputs. The reference model places every
//! fragment element by the formulas of the ISA's "Matrix Fragments for mma.mXnYkZ" tables and
//! the `ldmatrix`/`stmatrix`/`movmatrix` fragment figures, and computes D from the matrices.
//! Integer results are exact; floating-point ones are within the bound of
//! docs/decisions/0111-mma-accumulation-order.md of the exact value, the ISA leaving the order of
//! accumulation open.

use std::sync::Arc;

use crate::launch::{self, Arg, Launch};
use crate::{Case, Outcome, launch_outcome};

mod block_scale;
mod elem;
mod fragment;
mod ldmatrix;
mod mma;
mod quad_pair;
mod rejections;
pub(super) mod sparse;
mod wmma;

pub(super) use elem::{ElemType, pack, thread_words, unpack};
use ldmatrix::{ld_st_case, movmatrix_case};
use mma::{forms, kind_forms, mma_case};
use rejections::rejections;
use wmma::{wmma_case, wmma_forms};

const FAMILY: &str = "warp matrix";
const HEADER: &str = ".version 8.7\n.target sm_90\n.address_size 64\n";

/// A launch of one warp running kernel `k` of `ptx`, whose parameters are the addresses of
/// `buffers` in order.
pub(super) fn one_warp(name: &str, ptx: &str, buffers: Vec<Vec<u8>>) -> Launch {
    Launch {
        module_name: format!("{}.ptx", name.replace('/', "_")),
        ptx: Arc::from(ptx),
        kernel: "k".into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        args: (0..buffers.len()).map(Arg::Buffer).collect(),
        buffers,
    }
}

/// `ptx` for sm_120a when `kind` (`.kind::f8f6f4` needs it), else as written.
pub(super) fn for_kind(ptx: String, kind: bool) -> String {
    if kind {
        ptx.replacen(".target sm_90\n", ".target sm_120a\n", 1)
    } else {
        ptx
    }
}

/// A case that runs `launch` and judges the final buffers with `check`.
pub(super) fn launched_case(
    name: String,
    ptx: String,
    launch: Launch,
    check: impl Fn(&[Vec<u8>]) -> Outcome + Send + Sync + 'static,
) -> Case {
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| match launch::execute(ctx, &launch) {
            Ok(out) => check(&out),
            Err(e) => launch_outcome(e),
        }),
    }
}

/// A case that passes when buffer `n` holds `want` after the launch.
pub(super) fn bytes_case(
    name: String,
    ptx: String,
    launch: Launch,
    n: usize,
    want: Vec<u8>,
) -> Case {
    launched_case(name, ptx, launch, move |out| {
        match (0..want.len()).find(|&i| out[n][i] != want[i]) {
            None => Outcome::Pass,
            Some(i) => {
                let at = i / 4 * 4;
                Outcome::Fail(format!(
                    "bytes {at}..{}: expected {:02x?}, got {:02x?}",
                    at + 4,
                    &want[at..at + 4],
                    &out[n][at..at + 4]
                ))
            }
        }
    })
}

pub fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    for (i, f) in forms().into_iter().enumerate() {
        for s in 0..2 {
            v.push(mma_case(f, 1000 + 2 * i as u64 + s));
        }
    }
    for store in [false, true] {
        for num in [1, 2, 4] {
            for trans in [false, true] {
                v.push(ld_st_case(
                    store,
                    num,
                    trans,
                    false,
                    u64::from(num) * 7 + u64::from(trans),
                ));
            }
        }
        v.push(ld_st_case(store, 4, true, true, 99));
        v.push(ld_st_case(store, 2, false, true, 98));
    }
    for seed in 0..3 {
        v.push(movmatrix_case(seed));
    }
    for (i, w) in wmma_forms().into_iter().enumerate() {
        v.push(wmma_case(w, 500 + i as u64));
    }
    v.extend(rejections());
    v.extend(quad_pair::cases());
    v.extend(sparse::cases());
    for (i, f) in kind_forms().into_iter().enumerate() {
        v.push(mma_case(f, 1200 + i as u64));
    }
    v.extend(block_scale::cases());
    v
}

#[cfg(test)]
mod tests {
    use ptxvk_translator::{DeviceProfile, Program, SourceFile};

    /// The family runs on lavapipe's emulated warps; under the other strategies (native
    /// 32-lane subgroups, partitions of 64-lane ones) every kernel must still translate to
    /// SPIR-V that validates.
    #[test]
    fn every_kernel_validates_under_every_profile() {
        let kernels: Vec<_> = super::cases()
            .into_iter()
            .filter(|c| !c.name.starts_with("matrix/rejected"))
            .collect();
        assert!(kernels.len() > 90);
        for name in DeviceProfile::names() {
            let Some(p) = DeviceProfile::named(name) else {
                continue;
            };
            let mut valid = 0;
            for c in &kernels {
                let program = Program::parse(SourceFile::new("case.ptx", c.ptx.clone()))
                    .unwrap_or_else(|d| panic!("{}: {d}", c.name));
                match program.translate_kernel("k", &p) {
                    Ok(k) => {
                        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                            panic!("{} under {name}: invalid SPIR-V: {e}", c.name);
                        }
                        valid += 1;
                    }
                    // A device without 64-bit floats refuses the .f64 forms, naming them.
                    Err(d) => assert!(
                        d.items.iter().all(|i| i.message.contains("lacks")),
                        "{} under {name}: {d}",
                        c.name
                    ),
                }
            }
            assert!(valid >= 80, "only {valid} kernels translated under {name}");
        }
    }
}
