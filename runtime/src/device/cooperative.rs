//! The matrix shapes and types a device multiplies in hardware, as `VK_KHR_cooperative_matrix`
//! offers them (docs/decisions/0214-cooperative-matrix-configurations.md).

use std::ffi::CStr;

use ash::vk;
use serde::Serialize;

/// One subgroup-scope configuration of `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`:
/// `result (m x n) = a (m x k) * b (k x n) + c (m x n)`, element types as PTX names them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatrixConfig {
    /// Rows of A, C and the result.
    pub m: u32,
    /// Columns of B, C and the result.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// A's element type (`s8`, `f16`, ...; `other` for a type not named here).
    pub a: &'static str,
    /// B's element type.
    pub b: &'static str,
    /// C's element type.
    pub c: &'static str,
    /// The result's element type.
    pub result: &'static str,
    /// The multiply-add may clamp its sum to the result type (`SaturatingAccumulation`).
    pub saturating: bool,
}

impl std::fmt::Display for MatrixConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{} {}*{}+{}->{}{}",
            self.m,
            self.n,
            self.k,
            self.a,
            self.b,
            self.c,
            self.result,
            if self.saturating { " (sat)" } else { "" }
        )
    }
}

/// The PTX name of a component type (`other` for one this table does not know).
fn component(t: vk::ComponentTypeKHR) -> &'static str {
    match t {
        vk::ComponentTypeKHR::FLOAT16 => "f16",
        vk::ComponentTypeKHR::FLOAT32 => "f32",
        vk::ComponentTypeKHR::FLOAT64 => "f64",
        vk::ComponentTypeKHR::SINT8 => "s8",
        vk::ComponentTypeKHR::SINT16 => "s16",
        vk::ComponentTypeKHR::SINT32 => "s32",
        vk::ComponentTypeKHR::SINT64 => "s64",
        vk::ComponentTypeKHR::UINT8 => "u8",
        vk::ComponentTypeKHR::UINT16 => "u16",
        vk::ComponentTypeKHR::UINT32 => "u32",
        vk::ComponentTypeKHR::UINT64 => "u64",
        _ => "other",
    }
}

/// The subgroup-scope configurations compute shaders may use, where the device has
/// `VK_KHR_cooperative_matrix` with its `cooperativeMatrix` feature for the compute stage;
/// none otherwise (and where the query fails: the device then simply offers none).
pub(crate) fn configurations(
    entry: &ash::Entry,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    has_ext: &dyn Fn(&CStr) -> bool,
) -> Vec<MatrixConfig> {
    if !has_ext(ash::khr::cooperative_matrix::NAME) {
        return Vec::new();
    }
    let mut feature = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
    let mut props = vk::PhysicalDeviceCooperativeMatrixPropertiesKHR::default();
    {
        let mut feats2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut feature);
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
        // SAFETY: valid physical device, which has the extension; the chained structs live
        // across the calls.
        unsafe {
            instance.get_physical_device_features2(pd, &mut feats2);
            instance.get_physical_device_properties2(pd, &mut props2);
        }
    }
    if feature.cooperative_matrix != vk::TRUE
        || !props
            .cooperative_matrix_supported_stages
            .contains(vk::ShaderStageFlags::COMPUTE)
    {
        return Vec::new();
    }
    let fns = ash::khr::cooperative_matrix::Instance::new(entry, instance);
    // SAFETY: valid physical device, which has the extension the function belongs to.
    let list = unsafe { fns.get_physical_device_cooperative_matrix_properties(pd) };
    let mut out: Vec<MatrixConfig> = list
        .unwrap_or_default()
        .iter()
        .filter(|p| p.scope == vk::ScopeKHR::SUBGROUP)
        .map(|p| MatrixConfig {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            a: component(p.a_type),
            b: component(p.b_type),
            c: component(p.c_type),
            result: component(p.result_type),
            saturating: p.saturating_accumulation == vk::TRUE,
        })
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_types_take_ptx_names() {
        // VkComponentTypeKHR's values as the Vulkan registry numbers them.
        let names = [
            (0, "f16"),
            (1, "f32"),
            (2, "f64"),
            (3, "s8"),
            (4, "s16"),
            (5, "s32"),
            (6, "s64"),
            (7, "u8"),
            (8, "u16"),
            (9, "u32"),
            (10, "u64"),
            (1_000_141_000, "other"),
        ];
        for (raw, name) in names {
            assert_eq!(
                component(vk::ComponentTypeKHR::from_raw(raw)),
                name,
                "{raw}"
            );
        }
    }

    #[test]
    fn a_configuration_reads_as_its_product() {
        let c = MatrixConfig {
            m: 16,
            n: 8,
            k: 32,
            a: "s8",
            b: "u8",
            c: "s32",
            result: "s32",
            saturating: true,
        };
        assert_eq!(c.to_string(), "16x8x32 s8*u8+s32->s32 (sat)");
    }
}
