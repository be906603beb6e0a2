//! The same PTX through NVIDIA's CUDA driver, where one is installed: the driver's own PTX
//! compiler builds `bench.ptx`, and each case runs with the same buffers, launch shapes and
//! timing (events around the steps, median of the runs) as ptxvk's side.

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{
    CudaContext, CudaModule, CudaStream, DevicePtr, LaunchConfig, PushKernelArg, sys,
};
use cudarc::nvrtc::Ptx;

use super::{Arg, Case, Res, enough};

pub struct Cuda {
    ctx: Arc<CudaContext>,
    module: Arc<CudaModule>,
    pub name: String,
}

/// Whether NVIDIA's driver library is on the loader's path: cudarc panics when there is none.
/// The loader's path may also hold the `libcuda.so` this workspace builds (ptxvk's own: cargo
/// puts its output folders there, for this build's profile and for the one that ran xtask),
/// which is not the comparison wanted. ptxvk's library also carries nvJitLink's entry points,
/// which NVIDIA's driver library does not, so a library exporting `nvJitLinkCreate` is ours.
fn driver_present() -> bool {
    ["libcuda.so.1", "libcuda.so"].iter().any(|name| {
        // SAFETY: loading the driver runs only its initialisers, which have no preconditions.
        let Ok(lib) = (unsafe { libloading::Library::new(name) }) else {
            return false;
        };
        // SAFETY: the symbol is only looked up, never called.
        let ours = unsafe { lib.get::<unsafe extern "C" fn()>(b"nvJitLinkCreate\0") }.is_ok();
        !ours
    })
}

impl Cuda {
    /// The first CUDA device with `ptx` loaded, or `None` when there is no CUDA driver or
    /// device (the comparison is then left out of the table).
    pub fn open(ptx: &str) -> Option<Res<Cuda>> {
        if std::env::var_os("PTXVK_BENCH_NO_CUDA").is_some() || !driver_present() {
            return None;
        }
        let ctx = match CudaContext::new(0) {
            Ok(c) => c,
            Err(e) => {
                println!("CUDA: no device ({e}); the CUDA column is left out");
                return None;
            }
        };
        Some((|| {
            let module = ctx.load_module(Ptx::from_src(ptx))?;
            let name = ctx.name()?;
            Ok(Cuda { ctx, module, name })
        })())
    }

    /// Runs `case` as `super::measure` does: the median device time of the runs after a
    /// warm-up (`super::enough`), and the output of the last, checked.
    pub fn measure(&self, case: &Case) -> Res<Duration> {
        let stream = self.ctx.new_stream()?;
        let mut buffers = Vec::new();
        for init in &case.buffers {
            buffers.push(stream.alloc_zeros::<u8>(init.len().max(4))?);
        }
        let addrs: Vec<u64> = buffers.iter().map(|b| address(b, &stream)).collect();
        let f = self.module.load_function(case.name)?;
        let mut times = Vec::new();
        for run in 0.. {
            if enough(&times) {
                break;
            }
            for (b, init) in buffers.iter_mut().zip(&case.buffers) {
                stream.memcpy_htod(init.as_slice(), &mut b.slice_mut(..init.len()))?;
            }
            let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
            let start = stream.record_event(flags)?;
            for step in &case.steps {
                let values: Vec<ArgValue> = step
                    .ptx_args
                    .iter()
                    .map(|a| match *a {
                        Arg::Buf(i) => ArgValue::U64(addrs[i]),
                        Arg::U32(v) => ArgValue::U32(v),
                        Arg::F32(v) => ArgValue::F32(v),
                    })
                    .collect();
                let mut launch = stream.launch_builder(&f);
                for v in &values {
                    match v {
                        ArgValue::U64(x) => launch.arg(x),
                        ArgValue::U32(x) => launch.arg(x),
                        ArgValue::F32(x) => launch.arg(x),
                    };
                }
                let cfg = LaunchConfig {
                    grid_dim: (step.grid[0], step.grid[1], step.grid[2]),
                    block_dim: (step.block[0], step.block[1], step.block[2]),
                    shared_mem_bytes: 0,
                };
                // SAFETY: the arguments follow the kernel's PTX signature (the same list ptxvk
                // checks against it), and every buffer outlives the stream's work.
                unsafe { launch.launch(cfg) }?;
            }
            let end = stream.record_event(flags)?;
            stream.synchronize()?;
            if run > 0 {
                times.push(Duration::from_secs_f64(
                    f64::from(start.elapsed_ms(&end)?) / 1e3,
                ));
            }
        }
        let out = &buffers[case.output];
        let mut bytes = stream.clone_dtoh(out)?;
        bytes.truncate(case.buffers[case.output].len());
        (case.check)(&bytes).map_err(|e| format!("{}: CUDA is wrong: {e}", case.name))?;
        times.sort();
        Ok(times[times.len() / 2])
    }
}

enum ArgValue {
    U64(u64),
    U32(u32),
    F32(f32),
}

fn address(b: &cudarc::driver::CudaSlice<u8>, stream: &CudaStream) -> u64 {
    let (ptr, _sync) = b.device_ptr(stream);
    ptr
}
