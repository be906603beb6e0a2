//! Physical devices: what each can do, and which one to use.

use std::ffi::CStr;

use ash::vk;
use ptxvk_translator::{DeviceProfile, FloatWidths};
use serde::Serialize;

mod cooperative;

pub use cooperative::MatrixConfig;

/// What ptxvk needs to know about a Vulkan device: identity, the features translated kernels
/// may use, and the limits launches are checked against.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    /// Position in the Vulkan loader's enumeration (what `PTXVK_DEVICE=N` selects).
    pub index: usize,
    /// The driver's device name.
    pub name: String,
    /// Discrete, integrated, CPU, ...
    pub kind: DeviceKind,
    /// The Vulkan version the device supports (major, minor, patch).
    pub api_version: (u32, u32, u32),
    /// Driver name and version.
    pub driver: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// Vendor-specific device id.
    pub device_id: u32,
    /// Vendor-specific driver version.
    pub driver_version: u32,
    /// `pipelineCacheUUID`, hex: pipeline caches are only valid for the same value.
    pub pipeline_cache_uuid: String,
    /// `bufferDeviceAddress` (required: global memory is reached through device addresses).
    pub buffer_device_address: bool,
    /// `vulkanMemoryModel` (required).
    pub vulkan_memory_model: bool,
    /// `shaderInt8`.
    pub int8: bool,
    /// `shaderInt16`.
    pub int16: bool,
    /// `shaderInt64` (required).
    pub int64: bool,
    /// `shaderFloat16`.
    pub float16: bool,
    /// `shaderFloat64`.
    pub float64: bool,
    /// `storageBuffer8BitAccess`.
    pub storage8: bool,
    /// `storageBuffer16BitAccess`.
    pub storage16: bool,
    /// `shaderBufferInt64Atomics`.
    pub int64_atomics: bool,
    /// The default subgroup size.
    pub subgroup_size: u32,
    /// The smallest subgroup size a pipeline can require.
    pub min_subgroup_size: u32,
    /// The largest subgroup size a pipeline can require.
    pub max_subgroup_size: u32,
    /// `subgroupSizeControl`.
    pub subgroup_size_control: bool,
    /// `computeFullSubgroups`.
    pub compute_full_subgroups: bool,
    /// Basic, vote, ballot, shuffle and arithmetic subgroup operations in compute shaders.
    pub subgroup_ops: bool,
    /// Clustered subgroup operations.
    pub subgroup_clustered: bool,
    /// `minImportedHostPointerAlignment` where the device has `VK_EXT_external_memory_host`:
    /// host memory it can import as device memory ([`crate::Buffer::import_host`]) starts
    /// and ends at multiples of it.
    pub host_import_alignment: Option<u64>,
    /// `maxComputeSharedMemorySize`: static plus dynamic shared memory of one block.
    pub max_shared_memory_bytes: u32,
    /// `maxPushConstantsSize`.
    pub max_push_constant_bytes: u32,
    /// `maxComputeWorkGroupInvocations`: threads per block.
    pub max_workgroup_invocations: u32,
    /// `maxComputeWorkGroupSize`: block size per dimension.
    pub max_workgroup_size: [u32; 3],
    /// `maxComputeWorkGroupCount`: larger grids are split into several dispatches.
    pub max_workgroup_count: [u32; 3],
    /// The device implements `VK_KHR_portability_subset` (MoltenVK); ptxvk enables it.
    pub portability_subset: bool,
    /// `VK_KHR_workgroup_memory_explicit_layout` (byte-addressed shared memory).
    pub workgroup_memory_explicit_layout: bool,
    /// Queues in the compute queue family (streams are spread over at most 4 of them).
    pub compute_queues: u32,
    /// The compute queue writes timestamps (event timing, `ptxvk run --time`).
    pub timestamps: bool,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// A memory type is device-local, host-visible and coherent: buffers are then written and
    /// read with plain memory copies instead of staging.
    pub host_visible_device_memory: bool,
    /// Size of the largest device-local memory heap (`cuDeviceTotalMem`).
    pub device_local_bytes: u64,
    /// `imageCubeArray`: cubemap-array textures.
    pub image_cube_array: bool,
    /// Combined image samplers a kernel may bind: the smaller of
    /// `maxPerStageDescriptorSamplers` and `maxPerStageDescriptorSampledImages`.
    pub max_texture_bindings: u32,
    /// `shaderDenormPreserveFloat16/32/64`.
    pub denorm_preserve: FloatWidths,
    /// `shaderSignedZeroInfNanPreserveFloat16/32/64`.
    pub signed_zero_inf_nan_preserve: FloatWidths,
    /// `VK_KHR_cooperative_matrix`'s subgroup-scope configurations for compute shaders (empty
    /// without the extension). Reported only: no kernel uses them yet, so devices are created
    /// without the extension.
    pub cooperative_matrix: Vec<MatrixConfig>,
    /// `timestampValidBits` of the compute queue family.
    #[serde(skip)]
    pub(crate) timestamp_bits: u32,
    #[serde(skip)]
    pub(crate) physical: vk::PhysicalDevice,
    #[serde(skip)]
    pub(crate) queue_family: Option<u32>,
}

/// The Vulkan device type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// A GPU with its own memory.
    Discrete,
    /// A GPU sharing the host's memory.
    Integrated,
    /// A GPU in a virtual machine.
    Virtual,
    /// A CPU implementation (lavapipe, SwiftShader).
    Cpu,
    /// Anything else.
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
        entry: &ash::Entry,
        instance: &ash::Instance,
        pd: vk::PhysicalDevice,
        index: usize,
    ) -> DeviceInfo {
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut mem = vk::PhysicalDeviceMemoryProperties2::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut subgroup)
            .push_next(&mut size_control)
            .push_next(&mut driver)
            .push_next(&mut float_controls);
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
            instance.get_physical_device_memory_properties2(pd, &mut mem);
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
        let host_import_alignment = has_ext(c"VK_EXT_external_memory_host").then(|| {
            let mut host = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut host);
            // SAFETY: valid physical device, which has the extension; `host` lives across it.
            unsafe { instance.get_physical_device_properties2(pd, &mut props) };
            host.min_imported_host_pointer_alignment.max(1)
        });
        let cooperative_matrix = cooperative::configurations(entry, instance, pd, &has_ext);
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
        let family = queue_family.map(|i| families[i as usize]);
        let mp = mem.memory_properties;
        let wanted = vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT;
        let host_visible_device_memory = mp.memory_types[..mp.memory_type_count as usize]
            .iter()
            .any(|t| t.property_flags.contains(wanted));
        let device_local_bytes = mp.memory_heaps[..mp.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
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
            vendor_id: p.vendor_id,
            device_id: p.device_id,
            driver_version: p.driver_version,
            pipeline_cache_uuid: p
                .pipeline_cache_uuid
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
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
            host_import_alignment,
            max_shared_memory_bytes: p.limits.max_compute_shared_memory_size,
            max_push_constant_bytes: p.limits.max_push_constants_size,
            max_workgroup_invocations: p.limits.max_compute_work_group_invocations,
            max_workgroup_size: p.limits.max_compute_work_group_size,
            max_workgroup_count: p.limits.max_compute_work_group_count,
            portability_subset: has_ext(c"VK_KHR_portability_subset"),
            workgroup_memory_explicit_layout: has_ext(c"VK_KHR_workgroup_memory_explicit_layout"),
            compute_queues: family.map_or(0, |f| f.queue_count),
            timestamps: family.is_some_and(|f| f.timestamp_valid_bits > 0)
                && p.limits.timestamp_period > 0.0,
            timestamp_period_ns: p.limits.timestamp_period,
            host_visible_device_memory,
            device_local_bytes,
            image_cube_array: f.image_cube_array == vk::TRUE,
            max_texture_bindings: p
                .limits
                .max_per_stage_descriptor_samplers
                .min(p.limits.max_per_stage_descriptor_sampled_images),
            denorm_preserve: FloatWidths {
                f16: float_controls.shader_denorm_preserve_float16 == vk::TRUE,
                f32: float_controls.shader_denorm_preserve_float32 == vk::TRUE,
                f64: float_controls.shader_denorm_preserve_float64 == vk::TRUE,
            },
            signed_zero_inf_nan_preserve: FloatWidths {
                f16: float_controls.shader_signed_zero_inf_nan_preserve_float16 == vk::TRUE,
                f32: float_controls.shader_signed_zero_inf_nan_preserve_float32 == vk::TRUE,
                f64: float_controls.shader_signed_zero_inf_nan_preserve_float64 == vk::TRUE,
            },
            cooperative_matrix,
            timestamp_bits: family.map_or(0, |f| f.timestamp_valid_bits),
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
            // The device is created without VK_KHR_shader_clock for now, so `%clock` and
            // `%clock64` read the translator's substitute counter
            // (docs/decisions/0101-clocks-substitute-counter.md).
            shader_clock: false,
            memcheck: false,
            image_cube_array: self.image_cube_array,
            max_texture_bindings: self.max_texture_bindings,
            denorm_preserve: self.denorm_preserve,
            signed_zero_inf_nan_preserve: self.signed_zero_inf_nan_preserve,
            // Measured by the context's probes.
            loop_limit: None,
            shared_in_device_memory: false,
            // Mesa's llvmpipe runs a workgroup's invocations in linear order, a SIMD vector at a
            // time (the warp tests check the lane reads this serves at every vector width).
            linear_subgroups: self.driver.contains("llvmpipe"),
            // Launches check it (`Kernel::for_launch`) and take a translation without the
            // assumption where a block's lanes are not `%tid.x % 32`.
            lane_shaped_blocks: true,
        }
    }
}

impl DeviceKind {
    fn parse(s: &str) -> Option<DeviceKind> {
        Some(match s {
            "discrete" => DeviceKind::Discrete,
            "integrated" => DeviceKind::Integrated,
            "virtual" => DeviceKind::Virtual,
            "cpu" => DeviceKind::Cpu,
            "other" => DeviceKind::Other,
            _ => return None,
        })
    }
}

/// Picks a device: `selector` if given, else the most capable usable device (discrete, then
/// integrated, ..., the CPU last). A selector is an index (`1`), a device type (`kind:discrete`,
/// `kind:integrated`, `kind:virtual`, `kind:cpu`, `kind:other`: the first usable one of that
/// type) or a case-insensitive name substring (`radeon`).
///
/// ```
/// # fn main() -> ptxvk_runtime::Result<()> {
/// let devices = ptxvk_runtime::devices()?;
/// let i = ptxvk_runtime::select_device(&devices, Some("kind:cpu"))?;
/// assert_eq!(devices[i].kind, ptxvk_runtime::DeviceKind::Cpu);
/// # Ok(()) }
/// ```
pub fn select(devices: &[DeviceInfo], selector: Option<&str>) -> crate::Result<usize> {
    if devices.is_empty() {
        return Err(crate::Error::NoDevice);
    }
    if let Some(sel) = selector.map(str::trim).filter(|s| !s.is_empty()) {
        let found = match sel.parse::<usize>() {
            Ok(i) => devices.iter().position(|d| d.index == i),
            Err(_) if sel.starts_with("kind:") => {
                let kind = DeviceKind::parse(sel["kind:".len()..].trim()).ok_or_else(|| {
                    crate::Error::DeviceNotFound {
                        selector: sel.to_string(),
                        available: "kinds: discrete, integrated, virtual, cpu, other".into(),
                    }
                })?;
                devices
                    .iter()
                    .position(|d| d.kind == kind && d.missing_requirements().is_none())
            }
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
            host_import_alignment: None,
            max_shared_memory_bytes: 49152,
            max_push_constant_bytes: 128,
            max_workgroup_invocations: 1024,
            max_workgroup_size: [1024, 1024, 64],
            max_workgroup_count: [65535; 3],
            portability_subset: false,
            workgroup_memory_explicit_layout: false,
            vendor_id: 0,
            device_id: 0,
            driver_version: 0,
            pipeline_cache_uuid: String::new(),
            compute_queues: 1,
            timestamps: true,
            timestamp_period_ns: 1.0,
            host_visible_device_memory: true,
            device_local_bytes: 1 << 30,
            image_cube_array: true,
            max_texture_bindings: 16,
            denorm_preserve: FloatWidths::ALL,
            signed_zero_inf_nan_preserve: FloatWidths::ALL,
            cooperative_matrix: Vec::new(),
            timestamp_bits: 64,
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
        assert_eq!(select(&devs, Some("kind:cpu")).unwrap(), 0);
        assert_eq!(select(&devs, Some("kind:discrete")).unwrap(), 1);
        assert!(select(&devs, Some("kind:integrated")).is_err());
        assert!(select(&devs, Some("kind:gpu")).is_err());
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
