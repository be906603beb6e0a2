//! The device's choices that the passes after lowering read, taken from the device profile once
//! per translation and handed to each pass that needs them: the IR itself carries none, so one
//! IR module means the same on every device and a pass cannot read a choice it was not given.

use crate::profile::{DeviceProfile, FloatWidths, WarpStrategy};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// How warp primitives run: which functions are inlined, whether the SIMT emulation runs,
    /// how emission expresses warp operations.
    pub warp: WarpStrategy,
    /// Give workgroup-scope fences and ordered atomics queue-family scope (a driver quirk).
    pub widen_workgroup_fences: bool,
    /// Clustered subgroup reductions are available (partitioned warps use them).
    pub subgroup_clustered: bool,
    /// Widths whose subnormals the kernel asks the device to keep (`DenormPreserve`).
    pub denorm_preserve: FloatWidths,
    /// Widths whose signed zeros, infinities and NaNs the kernel asks the device to keep
    /// (`SignedZeroInfNanPreserve`).
    pub signed_zero_inf_nan_preserve: FloatWidths,
    /// Iterations a loop may run before the launch fails (`ir/loop_limit.rs`); `None`: no check.
    pub loop_limit: Option<u32>,
    /// Under the warp emulation, the width of the aligned lane groups that share a device
    /// subgroup, where lane reads inside one may be served by the subgroup (`simt/lanes/`);
    /// `None`: every lane read goes through shared memory.
    pub lane_group: Option<u32>,
}

impl TargetOptions {
    pub fn from_profile(profile: &DeviceProfile) -> Self {
        TargetOptions {
            warp: profile.warp_strategy(),
            widen_workgroup_fences: profile.widen_workgroup_fences,
            subgroup_clustered: profile.subgroup_clustered,
            denorm_preserve: profile.denorm_preserve,
            signed_zero_inf_nan_preserve: profile.signed_zero_inf_nan_preserve,
            loop_limit: profile.loop_limit,
            lane_group: lane_group(profile),
        }
    }
}

/// The lane groups a device subgroup holds, where the emulation may read lanes through it: the
/// smallest subgroup the device runs, when its subgroups follow linear invocation order and
/// launches keep lanes aligned with `%tid.x`.
fn lane_group(profile: &DeviceProfile) -> Option<u32> {
    let n = profile.min_subgroup_size;
    (profile.warp_strategy() == WarpStrategy::Emulated
        && profile.subgroup_ops
        && profile.linear_subgroups
        && profile.lane_shaped_blocks
        && n.is_power_of_two()
        && (2..32).contains(&n))
    .then_some(n)
}
