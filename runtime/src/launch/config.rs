//! Launch configurations: grid and block sizes, and their check against the device's limits
//! and the kernel's directives.

use ptxvk_translator::abi;

use crate::error::{Error, Result};
use crate::module::Kernel;

/// The largest grid CUDA launches, in blocks per dimension (`maxGridSize`).
pub const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

/// Grid and block dimensions, as in `cuLaunchKernel`.
///
/// ```
/// use ptxvk_runtime::LaunchConfig;
/// let cfg = LaunchConfig::for_num_elems(1000, 256);
/// assert_eq!((cfg.grid, cfg.block), ([4, 1, 1], [256, 1, 1]));
/// let tiles = LaunchConfig::new([8, 8, 1], [16, 16, 1]).with_shared_bytes(2048);
/// assert_eq!(tiles.shared_bytes, 2048);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z (`%nctaid`). Grids beyond the device's workgroup-count limit are run
    /// as several dispatches.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z (`%ntid`).
    pub block: [u32; 3],
    /// Dynamic shared memory bytes (`extern .shared` arrays).
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A grid of `grid` blocks of `block` threads, without dynamic shared memory.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// The same with `bytes` of dynamic shared memory.
    pub fn with_shared_bytes(self, bytes: u32) -> LaunchConfig {
        LaunchConfig {
            shared_bytes: bytes,
            ..self
        }
    }

    /// Enough blocks of `block` threads to cover `n` threads in x.
    pub fn for_num_elems(n: u32, block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [n.div_ceil(block.max(1)).max(1), 1, 1],
            block: [block.max(1), 1, 1],
            shared_bytes: 0,
        }
    }
}

impl Kernel {
    /// Checks a launch configuration against the device's limits and the kernel's directives.
    pub fn check_config(&self, cfg: &LaunchConfig) -> Result<()> {
        let info = self.ctx.info();
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: self.name().to_string(),
                reason,
            })
        };
        if cfg.block.contains(&0) || cfg.grid.contains(&0) {
            return bad(format!(
                "grid {:?} and block {:?} must be at least 1 in every dimension",
                cfg.grid, cfg.block
            ));
        }
        // CUDA's grid limits. Larger grids than the device's are split over several
        // dispatches, so nothing else would stop one of 2^31 blocks from running for minutes.
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if cfg.grid[i] > MAX_GRID[i] {
                return bad(format!(
                    "grid {axis} = {} exceeds CUDA's limit of {} blocks",
                    cfg.grid[i], MAX_GRID[i]
                ));
            }
        }
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if cfg.block[i] > info.max_workgroup_size[i] {
                return bad(format!(
                    "block {axis} = {} exceeds the device limit {}",
                    cfg.block[i], info.max_workgroup_size[i]
                ));
            }
        }
        let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
        if threads > u64::from(info.max_workgroup_invocations) {
            return bad(format!(
                "a block of {threads} threads exceeds the device limit of {} threads",
                info.max_workgroup_invocations
            ));
        }
        if let Some(req) = self.abi().reqntid
            && req != cfg.block
        {
            return bad(format!(
                "the kernel requires block {req:?} (.reqntid), got {:?}",
                cfg.block
            ));
        }
        if let Some(max) = self.abi().maxntid {
            let limit: u64 = max.iter().map(|&b| u64::from(b)).product();
            if threads > limit {
                return bad(format!(
                    "the kernel allows at most {limit} threads per block (.maxntid)"
                ));
            }
        }
        // Dynamic shared memory for a kernel that declares no `extern .shared` array is reserved
        // and unused, as CUDA does: frameworks pass one size to every kernel they launch.
        let abi = self.abi();
        // More than the device's shared memory runs from device memory (`spill.rs`), up to
        // CUDA's largest opt-in figure.
        let asked = u64::from(abi.static_shared_bytes) + u64::from(cfg.shared_bytes);
        if asked > u64::from(abi::MAX_SHARED_BYTES) {
            return bad(format!(
                "{} bytes of shared memory ({} static + {} dynamic) exceed ptxvk's limit of {} per block",
                asked,
                abi.static_shared_bytes,
                cfg.shared_bytes,
                abi::MAX_SHARED_BYTES
            ));
        }
        Ok(())
    }
}
