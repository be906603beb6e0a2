//! Physical devices: what each can do, and which one to use.

use std::ffi::CStr;

use ash::vk;
use ptxvk_translator::DeviceProfile;
use serde::Serialize;

/// What ptxvk needs to know about a Vulkan device.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub kind: DeviceKind,
    pub api_version: (u32, u32, u32),
    pub driver: String,
    pub buffer_device_address: bool,
    pub vulkan_memory_model: bool,
    pub int8: bool,
    pub int16: bool,
    pub int64: bool,
    pub float16: bool,
    pub float64: bool,
    pub storage8: bool,
    pub storage16: bool,
    pub int64_atomics: bool,
    pub subgroup_size: u32,
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    pub subgroup_size_control: bool,
    pub compute_full_subgroups: bool,
    /// Basic, vote, ballot, shuffle and arithmetic subgroup operations in compute shaders.
    pub subgroup_ops: bool,
    pub subgroup_clustered: bool,
    pub max_shared_memory_bytes: u32,
    pub max_push_constant_bytes: u32,
    pub max_workgroup_invocations: u32,
    pub max_workgroup_size: [u32; 3],
    pub max_workgroup_count: [u32; 3],
    pub portability_subset: bool,
    pub workgroup_memory_explicit_layout: bool,
    #[serde(skip)]
    pub(crate) physical: vk::PhysicalDevice,
    #[serde(skip)]
    pub(crate) queue_family: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Discrete,
    Integrated,
    Virtual,
    Cpu,
    Other,
}

impl DeviceKind {
    /// Preference when choosing the default device: a real GPU first, the CPU last.
    fn rank(self) -> u32 {
        match self {
            DeviceKind::Discrete => 0,
            DeviceKind::Integrated => 1,
            DeviceKind::Virtual => 2,
            DeviceKind::Other => 3,
            DeviceKind::Cpu => 4,
        }
    }
}

impl DeviceInfo {
    pub(crate) fn query(
        instance: &ash::Instance,
        pd: vk::PhysicalDevice,
        index: usize,
    ) -> DeviceInfo {
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut subgroup)
            .push_next(&mut size_control)
            .push_next(&mut driver);
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut feats2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        // SAFETY: valid physical device; the chained structs live across the calls.
        let (exts, families) = unsafe {
            instance.get_physical_device_properties2(pd, &mut props2);
            instance.get_physical_device_features2(pd, &mut feats2);
            (
                instance
                    .enumerate_device_extension_properties(pd)
                    .unwrap_or_default(),
                instance.get_physical_device_queue_family_properties(pd),
            )
        };
        let p = props2.properties;
        let f = feats2.features;
        let name = p
            .device_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let has_ext = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(n))
        };
        let kind = match p.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceKind::Discrete,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceKind::Integrated,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceKind::Virtual,
            vk::PhysicalDeviceType::CPU => DeviceKind::Cpu,
            _ => DeviceKind::Other,
        };
        let queue_family = families
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .map(|i| i as u32);
        let api = p.api_version;
        let api13 = vk::api_version_minor(api) >= 3 || vk::api_version_major(api) > 1;
        let (min_sg, max_sg) = if api13 && size_control.min_subgroup_size > 0 {
            (
                size_control.min_subgroup_size,
                size_control.max_subgroup_size,
            )
        } else {
            (subgroup.subgroup_size, subgroup.subgroup_size)
        };
        let driver_name = driver
            .driver_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let driver_info = driver
            .driver_info_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        DeviceInfo {
            index,
            name,
            kind,
            api_version: (
                vk::api_version_major(api),
                vk::api_version_minor(api),
                vk::api_version_patch(api),
            ),
            driver: format!("{driver_name} {driver_info}").trim().to_string(),
            buffer_device_address: f12.buffer_device_address == vk::TRUE,
            vulkan_memory_model: f12.vulkan_memory_model == vk::TRUE,
            int8: f12.shader_int8 == vk::TRUE,
            int16: f.shader_int16 == vk::TRUE,
            int64: f.shader_int64 == vk::TRUE,
            float16: f12.shader_float16 == vk::TRUE,
            float64: f.shader_float64 == vk::TRUE,
            storage8: f12.storage_buffer8_bit_access == vk::TRUE,
            storage16: f11.storage_buffer16_bit_access == vk::TRUE,
            int64_atomics: f12.shader_buffer_int64_atomics == vk::TRUE,
            subgroup_size: subgroup.subgroup_size,
            min_subgroup_size: min_sg,
            max_subgroup_size: max_sg,
            subgroup_size_control: api13 && f13.subgroup_size_control == vk::TRUE,
            subgroup_ops: subgroup
                .supported_stages
                .contains(vk::ShaderStageFlags::COMPUTE)
                && subgroup.supported_operations.contains(
                    vk::SubgroupFeatureFlags::BASIC
                        | vk::SubgroupFeatureFlags::VOTE
                        | vk::SubgroupFeatureFlags::BALLOT
                        | vk::SubgroupFeatureFlags::SHUFFLE
                        | vk::SubgroupFeatureFlags::ARITHMETIC,
                ),
            subgroup_clustered: subgroup
                .supported_operations
                .contains(vk::SubgroupFeatureFlags::CLUSTERED),
            compute_full_subgroups: api13 && f13.compute_full_subgroups == vk::TRUE,
            max_shared_memory_bytes: p.limits.max_compute_shared_memory_size,
            max_push_constant_bytes: p.limits.max_push_constants_size,
            max_workgroup_invocations: p.limits.max_compute_work_group_invocations,
            max_workgroup_size: p.limits.max_compute_work_group_size,
            max_workgroup_count: p.limits.max_compute_work_group_count,
            portability_subset: has_ext(c"VK_KHR_portability_subset"),
            workgroup_memory_explicit_layout: has_ext(c"VK_KHR_workgroup_memory_explicit_layout"),
            physical: pd,
            queue_family,
        }
    }

    /// What the device lacks that every translated kernel needs, if anything.
    pub fn missing_requirements(&self) -> Option<String> {
        let mut missing = Vec::new();
        if self.api_version.0 == 1 && self.api_version.1 < 2 {
            missing.push("Vulkan 1.2");
        }
        if !self.buffer_device_address {
            missing.push("bufferDeviceAddress");
        }
        if !self.vulkan_memory_model {
            missing.push("vulkanMemoryModel");
        }
        if !self.int64 {
            missing.push("shaderInt64");
        }
        if self.queue_family.is_none() {
            missing.push("a compute queue");
        }
        (!missing.is_empty()).then(|| missing.join(", "))
    }

    /// The translator's view of this device.
    pub fn profile(&self) -> DeviceProfile {
        DeviceProfile {
            name: self.name.clone(),
            int8: self.int8,
            int16: self.int16,
            int64: self.int64,
            float16: self.float16,
            float64: self.float64,
            storage8: self.storage8,
            storage16: self.storage16,
            int64_atomics: self.int64_atomics,
            float32_atomic_add: false,
            float64_atomic_add: false,
            min_subgroup_size: self.min_subgroup_size,
            max_subgroup_size: self.max_subgroup_size,
            max_shared_memory_bytes: self.max_shared_memory_bytes,
            max_push_constant_bytes: self.max_push_constant_bytes,
            workgroup_memory_explicit_layout: self.workgroup_memory_explicit_layout,
            // Measured by the context's probes (`probe.rs`); assume the worst until then.
            fused_fma32: false,
            fused_fma64: false,
            subgroup_size_control: self.subgroup_size_control,
            subgroup_ops: self.subgroup_ops,
            subgroup_clustered: self.subgroup_clustered,
            // Mesa's llvmpipe turns workgroup-scope memory barriers into control barriers.
            widen_workgroup_fences: self.driver.contains("llvmpipe"),
        }
    }
}

/// Picks a device: `selector` (an index or a case-insensitive name substring) if given, else the
/// most capable usable device (discrete, then integrated, ..., the CPU last).
pub fn select(devices: &[DeviceInfo], selector: Option<&str>) -> crate::Result<usize> {
    if devices.is_empty() {
        return Err(crate::Error::NoDevice);
    }
    if let Some(sel) = selector.map(str::trim).filter(|s| !s.is_empty()) {
        let found = match sel.parse::<usize>() {
            Ok(i) => devices.iter().position(|d| d.index == i),
            Err(_) => {
                let lower = sel.to_lowercase();
                devices
                    .iter()
                    .position(|d| d.name.to_lowercase().contains(&lower))
            }
        };
        return found.ok_or_else(|| crate::Error::DeviceNotFound {
            selector: sel.to_string(),
            available: devices
                .iter()
                .map(|d| format!("{}: {}", d.index, d.name))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let usable = devices
        .iter()
        .enumerate()
        .filter(|(_, d)| d.missing_requirements().is_none())
        .min_by_key(|(_, d)| d.kind.rank());
    match usable {
        Some((i, _)) => Ok(i),
        None => Err(crate::Error::DeviceUnsuitable {
            device: devices[0].name.clone(),
            missing: devices[0].missing_requirements().unwrap_or_default(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: usize, name: &str, kind: DeviceKind) -> DeviceInfo {
        DeviceInfo {
            index,
            name: name.into(),
            kind,
            api_version: (1, 3, 0),
            driver: String::new(),
            buffer_device_address: true,
            vulkan_memory_model: true,
            int8: true,
            int16: true,
            int64: true,
            float16: true,
            float64: true,
            storage8: true,
            storage16: true,
            int64_atomics: true,
            subgroup_size: 32,
            min_subgroup_size: 32,
            max_subgroup_size: 32,
            subgroup_size_control: true,
            compute_full_subgroups: true,
            subgroup_ops: true,
            subgroup_clustered: true,
            max_shared_memory_bytes: 49152,
            max_push_constant_bytes: 128,
            max_workgroup_invocations: 1024,
            max_workgroup_size: [1024, 1024, 64],
            max_workgroup_count: [65535; 3],
            portability_subset: false,
            workgroup_memory_explicit_layout: false,
            physical: vk::PhysicalDevice::null(),
            queue_family: Some(0),
        }
    }

    #[test]
    fn prefers_gpus_over_lavapipe() {
        let devs = [
            dev(0, "llvmpipe (LLVM 15.0.6, 256 bits)", DeviceKind::Cpu),
            dev(1, "AMD Radeon RX 7900", DeviceKind::Discrete),
        ];
        assert_eq!(select(&devs, None).unwrap(), 1);
        assert_eq!(select(&devs[..1], None).unwrap(), 0);
    }

    #[test]
    fn selector_by_index_or_name() {
        let devs = [
            dev(0, "llvmpipe", DeviceKind::Cpu),
            dev(1, "NVIDIA H100", DeviceKind::Discrete),
        ];
        assert_eq!(select(&devs, Some("0")).unwrap(), 0);
        assert_eq!(select(&devs, Some("h100")).unwrap(), 1);
        let err = select(&devs, Some("radeon")).unwrap_err().to_string();
        assert!(
            err.contains("radeon") && err.contains("0: llvmpipe"),
            "{err}"
        );
    }

    #[test]
    fn unusable_devices_are_skipped() {
        let mut old = dev(0, "old GPU", DeviceKind::Discrete);
        old.buffer_device_address = false;
        let devs = [old, dev(1, "llvmpipe", DeviceKind::Cpu)];
        assert_eq!(select(&devs, None).unwrap(), 1);
        assert!(
            devs[0]
                .missing_requirements()
                .unwrap()
                .contains("bufferDeviceAddress")
        );
    }
}
