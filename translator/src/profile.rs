//! What a device can do, as far as translation is concerned.
//!
//! The runtime reads a profile from the Vulkan device; `ptxvk translate --device-profile NAME`
//! uses one of the named profiles here.

use serde::{Deserialize, Serialize};

mod named;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    pub name: String,
    pub int8: bool,
    pub int16: bool,
    pub int64: bool,
    pub float16: bool,
    pub float64: bool,
    /// 8- and 16-bit loads and stores through storage-buffer (and device-address) pointers.
    pub storage8: bool,
    pub storage16: bool,
    pub int64_atomics: bool,
    pub float32_atomic_add: bool,
    pub float64_atomic_add: bool,
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    pub max_shared_memory_bytes: u32,
    pub max_push_constant_bytes: u32,
    pub workgroup_memory_explicit_layout: bool,
    /// `GLSL.std.450 Fma` is computed with a single rounding (Vulkan does not promise it; the
    /// runtime measures it on each device). Where it is not, `fma` is emulated.
    pub fused_fma32: bool,
    pub fused_fma64: bool,
    /// The subgroup size can be required at pipeline creation (VK_EXT_subgroup_size_control).
    pub subgroup_size_control: bool,
    /// Basic, vote, ballot, shuffle and arithmetic subgroup operations in compute shaders.
    pub subgroup_ops: bool,
    /// Clustered subgroup operations (partitioned warps reduce per 32-lane cluster with them;
    /// without them, one masked reduction per partition).
    #[serde(default)]
    pub subgroup_clustered: bool,
    /// Workgroup-scope memory barriers (fences, acquire/release atomics) act as control barriers
    /// on this driver, which is wrong in divergent code: give them queue-family scope instead
    /// (stronger, same meaning). Measured on lavapipe.
    pub widen_workgroup_fences: bool,
    /// `VK_KHR_shader_clock` with `shaderSubgroupClock` is enabled: `%clock`, `%clock_hi` and
    /// `%clock64` read the subgroup's cycle counter (`OpReadClockKHR`).
    #[serde(default)]
    pub shader_clock: bool,
    /// Check every memory access against the launch's allocations (`lower/memcheck.rs`). Not a
    /// device property: the runtime turns it on where a wild access would take the process down
    /// (CPU drivers) or when asked (`PTXVK_MEMCHECK=1`).
    #[serde(default)]
    pub memcheck: bool,
    /// `imageCubeArray`: cubemap-array textures (`tex.acube`, `tld4.acube`).
    #[serde(default)]
    pub image_cube_array: bool,
    /// Combined image samplers one kernel may bind (the smaller of
    /// `maxPerStageDescriptorSamplers` and `maxPerStageDescriptorSampledImages`): each way a
    /// kernel samples a texture takes one.
    #[serde(default)]
    pub max_texture_bindings: u32,
    /// `shaderDenormPreserveFloat16/32/64`: the kernel can ask for subnormal inputs and results
    /// to be kept (`DenormPreserve`), as PTX does without `.ftz`. Where a width is not offered
    /// the driver's default holds: NVIDIA's Vulkan driver flushes float32 subnormals and cannot
    /// be asked otherwise (an H200, docs/nvidia.md); lavapipe keeps them.
    #[serde(default)]
    pub denorm_preserve: FloatWidths,
    /// `shaderSignedZeroInfNanPreserveFloat16/32/64`: the kernel can ask that float arithmetic
    /// keep the sign of zeros, infinities and NaNs (`SignedZeroInfNanPreserve`). Without it a
    /// driver may rewrite `x * 0.0` to `0.0` and `x + 0.0` to `x` even for an exact
    /// (`NoContraction`) operation, as Mesa's NIR does
    /// (docs/decisions/0198-signed-zero-inf-nan-preserve.md).
    #[serde(default)]
    pub signed_zero_inf_nan_preserve: FloatWidths,
    /// The driver ends every loop once this many iterations have run in one SIMD batch (Mesa
    /// 22.3's lavapipe: 65,535, silently). Kernels then check before they end that their loops
    /// ran to completion and fail the launch otherwise (`ir/loop_limit.rs`). Measured by the
    /// runtime on each device (`probe.rs`), never assumed.
    #[serde(default)]
    pub loop_limit: Option<u32>,
    /// Place the shared arena in device memory whatever its size (a kernel whose static shared
    /// memory exceeds `max_shared_memory_bytes` gets it anyway). Not a device property: the
    /// runtime asks for it when a launch's shared memory does not fit the device's
    /// (docs/decisions/0078-shared-memory-in-device-memory.md).
    #[serde(default)]
    pub shared_in_device_memory: bool,
    /// In a workgroup that is one-dimensional or whose x size is a multiple of 32, each subgroup
    /// is a run of consecutive linear invocation indices (x fastest) starting at a multiple of
    /// its size, and invocations that took different paths run together again where the paths
    /// merge. llvmpipe runs invocations in that order, a SIMD vector at a time under execution
    /// masks; the warp emulation then serves lane reads within one subgroup natively
    /// (docs/decisions/0206-lane-reads-within-a-subgroup.md).
    #[serde(default)]
    pub linear_subgroups: bool,
    /// The kernel will be launched only with blocks that are one-dimensional or whose x size
    /// is a multiple of 32, so that a lane is `%tid.x % 32`. Not a device property: the runtime
    /// assumes it and translates again for a launch where it does not hold
    /// ([`crate::abi::KernelAbi::lane_shaped_blocks`] says whether a translation relied on it).
    #[serde(default)]
    pub lane_shaped_blocks: bool,
}

/// What a launch that a loop limit cut short reports.
pub fn loop_limit_failure(limit: u32) -> String {
    format!(
        "the driver ended the kernel's loops early: it stops every loop after {limit} iterations \
         of a SIMD batch (as Mesa 22.3's lavapipe does), so the results are wrong; install a \
         newer Mesa (Debian 12: `cargo xtask demo`, or `apt-get install -t bookworm-backports \
         mesa-vulkan-drivers`)"
    )
}

/// One flag per floating-point width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FloatWidths {
    pub f16: bool,
    pub f32: bool,
    pub f64: bool,
}

impl FloatWidths {
    pub const ALL: FloatWidths = FloatWidths {
        f16: true,
        f32: true,
        f64: true,
    };
}

/// How PTX warps (32 threads) run on the device (DESIGN.md "Threads, warps, launch").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarpStrategy {
    /// Subgroups of exactly 32: warp operations are subgroup operations.
    Native32,
    /// Subgroups of 64 or 128 split into 32-lane partitions (clustered operations).
    Partitioned(u32),
    /// Smaller subgroups: warp operations go through shared memory and workgroup barriers, and
    /// control flow around them is made uniform across the block (`simt` module).
    #[default]
    Emulated,
}

impl DeviceProfile {
    pub fn warp_strategy(&self) -> WarpStrategy {
        if !self.subgroup_ops {
            return WarpStrategy::Emulated;
        }
        let (min, max) = (self.min_subgroup_size, self.max_subgroup_size);
        if (min..=max).contains(&32) && (self.subgroup_size_control || min == max) {
            WarpStrategy::Native32
        } else if min == max && (min == 64 || min == 128) {
            WarpStrategy::Partitioned(min)
        } else {
            WarpStrategy::Emulated
        }
    }
}

impl DeviceProfile {
    /// Mesa's lavapipe as shipped with Debian 12 (Mesa 22.3), measured (DESIGN.md).
    pub fn lavapipe() -> Self {
        DeviceProfile {
            name: "lavapipe".into(),
            int8: true,
            int16: true,
            int64: true,
            float16: true,
            float64: true,
            storage8: true,
            storage16: true,
            int64_atomics: true,
            float32_atomic_add: true,
            float64_atomic_add: false,
            min_subgroup_size: 8,
            max_subgroup_size: 8,
            max_shared_memory_bytes: 32 * 1024,
            max_push_constant_bytes: 128,
            workgroup_memory_explicit_layout: false,
            // Measured: lavapipe splits Fma into a multiply and an add.
            fused_fma32: false,
            fused_fma64: false,
            subgroup_size_control: true,
            subgroup_ops: true,
            // Mesa 22.3 lavapipe: no clustered (nor quad) subgroup operations.
            subgroup_clustered: false,
            widen_workgroup_fences: true,
            // vulkaninfo: VK_KHR_shader_clock with shaderSubgroupClock and shaderDeviceClock.
            shader_clock: true,
            memcheck: false,
            image_cube_array: true,
            // maxPerStageDescriptorSamplers.
            max_texture_bindings: 32,
            // Mesa 22.3 reports no float controls, yet keeps subnormals of every width
            // (measured: the conformance suite's subnormal rows pass).
            denorm_preserve: FloatWidths::default(),
            // Every lavapipe since float controls were added offers it for every width (Mesa's
            // lvp_device.c; 25.0.7 reports it, `ptxvk info`).
            signed_zero_inf_nan_preserve: FloatWidths::ALL,
            // Measured by the runtime where it matters (Mesa 22.3 has one: `loop_limit`).
            loop_limit: None,
            shared_in_device_memory: false,
            // Mesa's lp_state_cs.c: invocations in x-fastest order, a SIMD vector at a time.
            linear_subgroups: true,
            // Translations for unknown launches make no assumption on the block's shape.
            lane_shaped_blocks: false,
        }
    }
}

impl Default for DeviceProfile {
    fn default() -> Self {
        Self::lavapipe()
    }
}
