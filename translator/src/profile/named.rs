//! Named profiles for the device families users run on, written from what their Vulkan drivers
//! report (the drivers' published feature lists, as collected on vulkan.gpuinfo.org) for recent
//! drivers: NVIDIA's proprietary driver (Turing to Hopper), Mesa RADV on RDNA 2/3 and on
//! GCN 5 (Vega), Mesa ANV on Xe-LP/Xe-HPG (Arc), MoltenVK on Apple M1/M2. Where a driver's answer
//! varies by model or version the profile takes the weaker one: the profile says what a user
//! can count on. A real device is always read from the driver by the runtime; these are for
//! `ptxvk translate --device-profile NAME` and for testing the translator's fallbacks.

use super::{DeviceProfile, FloatWidths};

const NAMES: &[&str] = &[
    "nvidia", "amd-rdna", "amd-gcn", "intel", "apple", "lavapipe",
];

fn all() -> Vec<DeviceProfile> {
    vec![
        nvidia(),
        amd_rdna(),
        amd_gcn(),
        intel(),
        apple(),
        DeviceProfile::lavapipe(),
    ]
}

impl DeviceProfile {
    /// The profiles users can name with `--device-profile`.
    pub fn named(name: &str) -> Option<Self> {
        all()
            .into_iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    pub fn names() -> &'static [&'static str] {
        NAMES
    }
}

/// Everything a desktop GPU of the last years has; the families below differ from it.
fn desktop(name: &str) -> DeviceProfile {
    DeviceProfile {
        name: name.into(),
        int8: true,
        int16: true,
        int64: true,
        float16: true,
        float64: true,
        storage8: true,
        storage16: true,
        int64_atomics: true,
        float32_atomic_add: false,
        float64_atomic_add: false,
        min_subgroup_size: 32,
        max_subgroup_size: 32,
        max_shared_memory_bytes: 65536,
        max_push_constant_bytes: 256,
        workgroup_memory_explicit_layout: true,
        fused_fma32: true,
        fused_fma64: true,
        subgroup_size_control: true,
        subgroup_ops: true,
        subgroup_clustered: true,
        widen_workgroup_fences: false,
        memcheck: false,
        // VK_KHR_shader_clock with shaderSubgroupClock (NVIDIA, RADV, ANV).
        shader_clock: true,
        image_cube_array: true,
        max_texture_bindings: 4096,
        // RADV and ANV keep subnormals of every width when asked (NVIDIA: below).
        denorm_preserve: FloatWidths::ALL,
        // RADV, ANV and NVIDIA report it for every width (their drivers' property tables, not
        // measured here; the runtime reads the device's own answer).
        signed_zero_inf_nan_preserve: FloatWidths::ALL,
        loop_limit: None,
        shared_in_device_memory: false,
        linear_subgroups: false,
        lane_shaped_blocks: false,
    }
}

fn nvidia() -> DeviceProfile {
    DeviceProfile {
        // Measured on an H200 (driver 580.159.04): float16 only; float32 subnormals are
        // flushed (docs/nvidia.md).
        denorm_preserve: FloatWidths {
            f16: true,
            f32: false,
            f64: false,
        },
        // VK_EXT_shader_atomic_float: buffer float32 and float64 add.
        float32_atomic_add: true,
        float64_atomic_add: true,
        max_shared_memory_bytes: 49152,
        ..desktop("nvidia")
    }
}

/// RDNA runs wave32 or wave64; the required subgroup size picks 32.
fn amd_rdna() -> DeviceProfile {
    DeviceProfile {
        min_subgroup_size: 32,
        max_subgroup_size: 64,
        ..desktop("amd-rdna")
    }
}

/// GCN and Vega run wave64 only: warps are 32-lane halves of a subgroup.
fn amd_gcn() -> DeviceProfile {
    DeviceProfile {
        min_subgroup_size: 64,
        max_subgroup_size: 64,
        ..desktop("amd-gcn")
    }
}

/// Xe-LP and Arc have no float64 (ANV does not expose shaderFloat64 there); SIMD8 to SIMD32.
fn intel() -> DeviceProfile {
    DeviceProfile {
        float64: false,
        fused_fma64: false,
        float32_atomic_add: true,
        min_subgroup_size: 8,
        max_subgroup_size: 32,
        max_push_constant_bytes: 128,
        ..desktop("intel")
    }
}

/// Metal has no float64 and, before Apple8, no 64-bit atomics; MoltenVK has neither clustered
/// subgroup operations nor VK_KHR_workgroup_memory_explicit_layout. SIMD groups are 32 wide.
fn apple() -> DeviceProfile {
    DeviceProfile {
        float64: false,
        fused_fma64: false,
        int64_atomics: false,
        min_subgroup_size: 4,
        max_subgroup_size: 32,
        max_shared_memory_bytes: 32768,
        max_push_constant_bytes: 4096,
        workgroup_memory_explicit_layout: false,
        subgroup_clustered: false,
        // Not counted on through MoltenVK (the weaker answer, as for the other fields).
        shader_clock: false,
        // Metal's 16 samplers per stage (MoltenVK without argument buffers).
        max_texture_bindings: 16,
        // MoltenVK reports no float controls: float32 subnormals may be flushed.
        denorm_preserve: FloatWidths::default(),
        signed_zero_inf_nan_preserve: FloatWidths::default(),
        ..desktop("apple")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::WarpStrategy;

    #[test]
    fn names_match_profiles() {
        let names: Vec<String> = all().into_iter().map(|p| p.name).collect();
        assert_eq!(names, NAMES);
        for n in NAMES {
            assert_eq!(DeviceProfile::named(n).map(|p| p.name), Some(n.to_string()));
        }
        assert!(DeviceProfile::named("voodoo").is_none());
    }

    /// DESIGN.md: a 32-wide subgroup where it can be required, 32-lane partitions of wave64,
    /// the shared-memory emulation where subgroups are smaller than 32.
    #[test]
    fn warp_strategy_per_family() {
        let strategy = |n: &str| DeviceProfile::named(n).map(|p| p.warp_strategy());
        assert_eq!(strategy("nvidia"), Some(WarpStrategy::Native32));
        assert_eq!(strategy("amd-rdna"), Some(WarpStrategy::Native32));
        assert_eq!(strategy("amd-gcn"), Some(WarpStrategy::Partitioned(64)));
        assert_eq!(strategy("intel"), Some(WarpStrategy::Native32));
        assert_eq!(strategy("apple"), Some(WarpStrategy::Native32));
        assert_eq!(strategy("lavapipe"), Some(WarpStrategy::Emulated));
    }
}
