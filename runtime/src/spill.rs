//! Launches whose shared memory exceeds the device's: the kernel translated with its shared
//! arena in device memory, one slice per workgroup of a buffer the stream keeps
//! (docs/decisions/0078-shared-memory-in-device-memory.md).

use std::sync::{Arc, Mutex};

use ptxvk_translator::DeviceProfile;
use ptxvk_translator::abi::KernelAbi;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::module::{Kernel, KernelState, translate};

/// The most device memory one dispatch's slices take. A grid whose slices would take more runs
/// as several dispatches, one after another, each reusing the buffer: 64 MiB is over a
/// thousand 48 KiB blocks, more than any device runs at once.
pub(crate) const BUDGET: u64 = 64 << 20;

impl KernelState {
    /// This kernel translated with its shared arena in device memory (itself if it already is).
    fn spilled(self: &Arc<Self>, ctx: &Context) -> Result<Arc<KernelState>> {
        if self.translated.abi.shared_spilled {
            return Ok(self.clone());
        }
        let profile = DeviceProfile {
            shared_in_device_memory: true,
            ..ctx.profile().clone()
        };
        self.variant(ctx, &self.spilled, &profile)
    }

    /// This kernel translated without assuming lanes are `%tid.x % 32` (itself if it does not).
    fn unshaped(self: &Arc<Self>, ctx: &Context) -> Result<Arc<KernelState>> {
        if !self.translated.abi.lane_shaped_blocks {
            return Ok(self.clone());
        }
        let profile = DeviceProfile {
            shared_in_device_memory: self.translated.abi.shared_spilled,
            lane_shaped_blocks: false,
            ..ctx.profile().clone()
        };
        self.variant(ctx, &self.unshaped, &profile)
    }

    /// This kernel translated for `profile`, kept in `slot`: translated and compiled at the
    /// first launch that needs it, under the slot's lock so that concurrent launches build it
    /// once.
    fn variant(
        &self,
        ctx: &Context,
        slot: &Mutex<Option<Arc<KernelState>>>,
        profile: &DeviceProfile,
    ) -> Result<Arc<KernelState>> {
        let mut slot = slot.lock().map_err(|_| Error::DeviceLost)?;
        if let Some(s) = slot.as_ref() {
            return Ok(s.clone());
        }
        let translated = translate(ctx, &self.program, &self.translated.abi.name, profile)?;
        let state = Arc::new(KernelState::new(
            &self.vk,
            self.cache.clone(),
            self.program.clone(),
            translated,
        )?);
        *slot = Some(state.clone());
        Ok(state)
    }
}

impl Kernel {
    /// The kernel a launch with `cfg` runs: this one, or where the launch's shared memory
    /// (with ptxvk's own) exceeds the device's, this one with its arena in device memory.
    /// Where its lanes are not `%tid.x % 32` and the translation relied on it, the one
    /// translated without that assumption (itself spilled where that one's shared memory does
    /// not fit).
    pub(crate) fn for_launch(&self, cfg: &LaunchConfig) -> Result<Kernel> {
        let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
        let fits = |abi: &KernelAbi| {
            abi.shared_spilled
                || abi.shared_bytes(threads, cfg.shared_bytes)
                    <= u64::from(self.ctx.info().max_shared_memory_bytes)
        };
        let mut state = self.state.clone();
        // At most: unshaped, then spilled (translated for lane-shaped blocks again), then
        // unshaped again.
        for _ in 0..3 {
            let abi = &state.translated.abi;
            state = if !abi.lane_shaped(cfg.block) {
                state.unshaped(&self.ctx)?
            } else if !fits(abi) {
                state.spilled(&self.ctx)?
            } else {
                break;
            };
        }
        if Arc::ptr_eq(&state, &self.state) {
            return Ok(self.clone());
        }
        Ok(Kernel {
            state,
            ..self.clone()
        })
    }
}

/// How a launch of a kernel with its arena in device memory is dispatched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The most workgroups of one dispatch in x, y and z.
    pub step: [u32; 3],
    /// The buffer's size: a slice per workgroup of the largest dispatch.
    pub bytes: u64,
}

/// The dispatches of a launch of `abi` with `cfg` (`None` where the arena is workgroup
/// memory), `max` being the device's workgroup counts. Each dispatch holds at most
/// `BUDGET / slice` workgroups (at least one), filling x first, then y, then z.
pub(crate) fn plan(abi: &KernelAbi, cfg: &LaunchConfig, max: [u32; 3]) -> Option<Plan> {
    if !abi.shared_spilled {
        return None;
    }
    let threads: u64 = cfg.block.iter().map(|&b| u64::from(b)).product();
    let slice = abi.arena_bytes(threads, cfg.shared_bytes).max(4);
    let slices = (BUDGET / slice).clamp(1, u64::from(u32::MAX)) as u32;
    let x = slices.min(max[0]).min(cfg.grid[0]).max(1);
    let y = (slices / x).min(max[1]).min(cfg.grid[1]).max(1);
    let z = (slices / (x * y)).min(max[2]).min(cfg.grid[2]).max(1);
    Some(Plan {
        step: [x, y, z],
        bytes: u64::from(x) * u64::from(y) * u64::from(z) * slice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spilled(static_bytes: u32) -> KernelAbi {
        KernelAbi {
            name: "k".into(),
            params: Vec::new(),
            param_block_size: 0,
            push_constant_size: 0,
            static_shared_bytes: static_bytes,
            dynamic_shared: true,
            shared_spilled: true,
            lane_shaped_blocks: false,
            warp_scratch_bytes_per_thread: 12,
            shared_tail_bytes: 8,
            required_subgroup_size: None,
            reqntid: None,
            maxntid: None,
            status_codes: Vec::new(),
            textures: Default::default(),
            mem_facts: Default::default(),
        }
    }

    #[test]
    fn dispatches_stay_within_the_budget_and_cover_the_grid() {
        let max = [65535, 65535, 65535];
        for (grid, block, dynamic) in [
            ([1, 1, 1], [256, 1, 1], 16384),
            ([100_000, 1, 1], [128, 1, 1], 0),
            ([7, 300, 5], [32, 4, 1], 20000),
            ([3, 3, 3000], [1, 1, 1], 200_000),
        ] {
            let abi = spilled(33_001);
            let cfg = LaunchConfig {
                grid,
                block,
                shared_bytes: dynamic,
            };
            let p = plan(&abi, &cfg, max).expect("spilled");
            let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
            // Static bytes rounded to words, dynamic to words, 12 per thread, the tail.
            let slice = 33_004 + u64::from(dynamic).next_multiple_of(4) + 12 * threads + 8;
            let n: u64 = p.step.iter().map(|&s| u64::from(s)).product();
            assert_eq!(p.bytes, n * slice, "{grid:?}");
            assert!(p.bytes <= BUDGET.max(slice), "{grid:?}: {p:?}");
            for i in 0..3 {
                assert!(p.step[i] >= 1 && p.step[i] <= grid[i], "{grid:?}: {p:?}");
            }
            // A grid that fits the budget is one dispatch.
            let blocks: u64 = grid.iter().map(|&g| u64::from(g)).product();
            if blocks * slice <= BUDGET {
                assert_eq!(p.step, grid);
            }
        }
        let mut small = spilled(1024);
        small.shared_spilled = false;
        let cfg = LaunchConfig::new([4, 1, 1], [32, 1, 1]);
        assert_eq!(plan(&small, &cfg, max), None);
    }
}
