//! What a device can do, as far as translation is concerned.
//!
//! The runtime reads a profile from the Vulkan device; `ptxvk translate --device-profile NAME`
//! uses one of the named profiles here.

use serde::{Deserialize, Serialize};

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
        }
    }

    /// The profiles users can name with `--device-profile`.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "lavapipe" => Some(Self::lavapipe()),
            _ => None,
        }
    }

    pub fn names() -> &'static [&'static str] {
        &["lavapipe"]
    }
}

impl Default for DeviceProfile {
    fn default() -> Self {
        Self::lavapipe()
    }
}
