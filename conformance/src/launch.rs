//! A kernel launch as plain data: PTX, grid, block, arguments and the initial contents of every
//! buffer. Cases that describe their launches this way can run on any backend: ptxvk on a Vulkan
//! device (the default), or NVIDIA's CUDA driver (`--record-cuda`), and their outputs can be
//! digested and compared with recorded NVIDIA results.
//!
//! The backend is chosen per thread by the runner ([`capture`]), so case code stays a plain
//! `Fn(&Context) -> Outcome` and needs no knowledge of where it runs.

use std::cell::RefCell;
use std::sync::Arc;

use ptxvk_runtime::{Buffer, Context, KernelArg, LaunchConfig};

/// One argument of a [`Launch`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A scalar, typed as the runtime's arguments are.
    Value(KernelArg),
    /// The device address of buffer `n` of [`Launch::buffers`].
    Buffer(usize),
}

/// Everything needed to run one kernel once.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The module's name in diagnostics (a file name).
    pub module_name: String,
    pub ptx: Arc<str>,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// Initial contents of each buffer; the launch returns their final contents.
    pub buffers: Vec<Vec<u8>>,
    pub args: Vec<Arg>,
}

impl Launch {
    /// A digest of everything that determines the launch's result (PTX, launch shape,
    /// arguments, buffer contents), so a recorded result is only compared with the same launch.
    pub fn input_digest(&self) -> u64 {
        let mut h = Fnv::new();
        h.bytes(self.ptx.as_bytes());
        h.bytes(self.kernel.as_bytes());
        for v in self.grid.iter().chain(&self.block) {
            h.bytes(&v.to_le_bytes());
        }
        h.bytes(&self.dynamic_shared.to_le_bytes());
        for a in &self.args {
            match a {
                Arg::Value(v) => h.bytes(v.describe().as_bytes()),
                Arg::Buffer(n) => h.bytes(format!("buffer {n}").as_bytes()),
            }
        }
        for b in &self.buffers {
            h.bytes(&(b.len() as u64).to_le_bytes());
            h.bytes(b);
        }
        h.finish()
    }
}

/// Why a launch did not run.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Ptxvk(#[from] ptxvk_runtime::Error),
    #[error("{backend}: {message}")]
    Backend { backend: String, message: String },
    /// The backend's device lacks what the launch needs (a newer GPU generation, say).
    #[error("{backend}: {message}")]
    BackendLacks { backend: String, message: String },
}

/// Somewhere other than ptxvk to run launches (the CUDA driver, or a test double).
pub trait Backend: Send + Sync {
    /// Names the device and driver, for reports and record files.
    fn name(&self) -> String;
    /// Runs `launch` and returns the final contents of its buffers.
    fn execute(&self, launch: &Launch) -> Result<Vec<Vec<u8>>, String>;
    /// Whether an error `execute` gave means the device lacks a feature (the case is then
    /// unsupported there, not failed).
    fn lacks_feature(&self, _message: &str) -> bool {
        false
    }
}

/// What one launch of a case did: digests of its inputs and of its buffers afterwards.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LaunchDigest {
    pub input: String,
    pub output: String,
}

struct Capture {
    backend: Option<Arc<dyn Backend>>,
    log: Vec<LaunchDigest>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Runs `f` (a case) on this thread with launches going to `backend` (ptxvk when `None`) and
/// returns its result with the digests of the launches it made. `f` must not unwind (the runner
/// catches panics inside it).
pub fn capture<R>(
    backend: Option<Arc<dyn Backend>>,
    f: impl FnOnce() -> R,
) -> (R, Vec<LaunchDigest>) {
    let previous = CAPTURE.with(|c| {
        c.borrow_mut().replace(Capture {
            backend,
            log: Vec::new(),
        })
    });
    let r = f();
    let log = CAPTURE.with(|c| std::mem::replace(&mut *c.borrow_mut(), previous));
    (r, log.map(|c| c.log).unwrap_or_default())
}

/// The name of this thread's backend when it is not ptxvk: cases that use ptxvk's runtime
/// directly (textures) cannot run there.
pub fn other_backend() -> Option<String> {
    CAPTURE.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|c| c.backend.as_ref().map(|b| b.name()))
    })
}

/// Runs `launch` on this thread's backend (ptxvk on `ctx` unless the runner chose another) and
/// returns the final contents of its buffers.
pub fn execute(ctx: &Context, launch: &Launch) -> Result<Vec<Vec<u8>>, LaunchError> {
    let backend = CAPTURE.with(|c| c.borrow().as_ref().and_then(|c| c.backend.clone()));
    let out = match &backend {
        Some(b) => b.execute(launch).map_err(|message| {
            let backend = b.name();
            if b.lacks_feature(&message) {
                LaunchError::BackendLacks { backend, message }
            } else {
                LaunchError::Backend { backend, message }
            }
        })?,
        None => on_ptxvk(ctx, launch)?,
    };
    let mut h = Fnv::new();
    for b in &out {
        h.bytes(&(b.len() as u64).to_le_bytes());
        h.bytes(b);
    }
    let digest = LaunchDigest {
        input: hex(launch.input_digest()),
        output: hex(h.finish()),
    };
    CAPTURE.with(|c| {
        if let Some(c) = c.borrow_mut().as_mut() {
            c.log.push(digest);
        }
    });
    Ok(out)
}

/// Runs `l` on ptxvk whatever backend this thread has (for backends that wrap ptxvk).
pub fn on_ptxvk(ctx: &Context, l: &Launch) -> Result<Vec<Vec<u8>>, ptxvk_runtime::Error> {
    let module = ctx.load_ptx(&l.module_name, &l.ptx)?;
    let kernel = module.kernel(&l.kernel)?;
    let mut buffers = Vec::with_capacity(l.buffers.len());
    for init in &l.buffers {
        // Zero-sized buffers still need an address.
        let b = Buffer::new(ctx, init.len().max(1) as u64)?;
        b.write_bytes(0, init)?;
        buffers.push(b);
    }
    let args: Vec<KernelArg> = l
        .args
        .iter()
        .map(|a| match a {
            Arg::Value(v) => v.clone(),
            Arg::Buffer(n) => buffers
                .get(*n)
                .map_or(KernelArg::Ptr(0), |b: &Buffer| b.into()),
        })
        .collect();
    let cfg = LaunchConfig {
        grid: l.grid,
        block: l.block,
        shared_bytes: l.dynamic_shared,
    };
    kernel.launch(&cfg, &args)?;
    let mut out = Vec::with_capacity(buffers.len());
    for (b, init) in buffers.iter().zip(&l.buffers) {
        let mut bytes = vec![0u8; init.len()];
        b.read_bytes(0, &mut bytes)?;
        out.push(bytes);
    }
    Ok(out)
}

/// FNV-1a, 64 bits: stable across platforms and versions, which is all a record file needs.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(&mut self, data: &[u8]) {
        for b in data {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

pub fn hex(v: u64) -> String {
    format!("{v:016x}")
}
