//! Compute pipelines: creation from a kernel's requirements, and the on-disk pipeline cache.
//!
//! Each loaded module has one `VkPipelineCache`, filled from
//! `DIR/<device key>/<module key>.bin` when it exists and written back when the module is
//! dropped if new pipelines were made. The device key is vendor, device, driver version and
//! `pipelineCacheUUID` (what the driver checks too); the module key is a SHA-256 of the PTX
//! text, the translator version and the device profile. A file that is truncated, corrupt or
//! from another device is ignored (the checksum and the Vulkan header are checked before the
//! driver sees the data).

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;
use ptxvk_translator::abi;
use sha2::{Digest, Sha256};

use crate::context::Vk;
use crate::device::DeviceInfo;
use crate::error::Result;

/// What a pipeline is specialised for. One pipeline exists per distinct key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// Memory checking: bit `k` set when the launch proved fact `k` of the kernel's
    /// `KernelAbi::mem_facts` (specialization constant `abi::SPEC_MEM_PROVEN + k`).
    pub proven: u64,
}

/// What the device lets a pipeline ask of its subgroups.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SubgroupControl {
    pub size_control: bool,
    pub full_subgroups: bool,
    pub min: u32,
    pub max: u32,
}

/// Creates the compute pipeline for `key`. Everything a kernel needs of its pipeline (block
/// size, dynamic shared memory, subgroup size, proven memory accesses) is decided here, from
/// the key and the kernel's ABI. A kernel translated for native warps
/// (`required_subgroup_size`) gets exactly that subgroup size, and full subgroups when the
/// block's x size allows them, so that a warp is 32 consecutive threads.
pub(crate) fn create_pipeline(
    vk: &Vk,
    cache: vk::PipelineCache,
    shader: vk::ShaderModule,
    layout: vk::PipelineLayout,
    entry: &CStr,
    key: &PipelineKey,
    abi: &abi::KernelAbi,
) -> Result<vk::Pipeline> {
    let required_subgroup_size = abi.required_subgroup_size;
    let facts = abi.mem_facts.facts.len();
    let mut values = vec![key.block[0], key.block[1], key.block[2], key.shared_bytes];
    let mut ids = vec![
        abi::SPEC_BLOCK_X,
        abi::SPEC_BLOCK_Y,
        abi::SPEC_BLOCK_Z,
        abi::SPEC_DYNAMIC_SHARED_BYTES,
    ];
    for k in 0..facts.min(ptxvk_translator::memfacts::MAX_FACTS) {
        ids.push(abi::SPEC_MEM_PROVEN + k as u32);
        values.push(u32::from(key.proven >> k & 1 == 1));
    }
    let entries: Vec<vk::SpecializationMapEntry> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            vk::SpecializationMapEntry::default()
                .constant_id(id)
                .offset(4 * i as u32)
                .size(4)
        })
        .collect();
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let spec = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    let sg = vk.subgroups;
    let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(shader)
        .name(entry)
        .specialization_info(&spec);
    if let Some(n) = required_subgroup_size {
        if sg.size_control && (sg.min..=sg.max).contains(&n) {
            required = required.required_subgroup_size(n);
            stage = stage.push_next(&mut required);
            if sg.full_subgroups && key.block[0] % n == 0 {
                stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
            }
        } else if sg.min != n || sg.max != n {
            return Err(crate::Error::Unsupported {
                what: format!(
                    "a kernel translated for subgroups of {n} on a device that cannot require them (it runs {}..={})",
                    sg.min, sg.max
                ),
            });
        }
    }
    let info = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout);
    // SAFETY: the shader, layout and cache belong to this device.
    let pipelines = unsafe { vk.device.create_compute_pipelines(cache, &[info], None) }
        .map_err(|(_, e)| vk.error("vkCreateComputePipelines", e))?;
    pipelines.into_iter().next().ok_or(crate::Error::DeviceLost)
}

/// A shader module of `words` and a pipeline layout with `push_bytes` of push constants and
/// `set_layouts`, or neither.
pub(crate) fn shader_and_layout(
    vk: &Vk,
    words: &[u32],
    push_bytes: u32,
    set_layouts: &[vk::DescriptorSetLayout],
) -> Result<(vk::ShaderModule, vk::PipelineLayout)> {
    let dev = &vk.device;
    let info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: valid device; the code is our emitter's (validated in tests) or a caller's, which
    // the driver and, when on, the validation layer check.
    let shader = unsafe { dev.create_shader_module(&info, None) }
        .map_err(|e| vk.error("vkCreateShaderModule", e))?;
    let ranges = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(push_bytes)];
    let layout_info = vk::PipelineLayoutCreateInfo::default()
        .push_constant_ranges(&ranges)
        .set_layouts(set_layouts);
    // SAFETY: valid device and create info.
    match unsafe { dev.create_pipeline_layout(&layout_info, None) } {
        Ok(layout) => Ok((shader, layout)),
        Err(e) => {
            // SAFETY: created above, unused.
            unsafe { dev.destroy_shader_module(shader, None) };
            Err(vk.error("vkCreatePipelineLayout", e))
        }
    }
}

/// The platform's cache directory for ptxvk, if there is one.
pub(crate) fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    #[cfg(target_os = "windows")]
    let base = env("LOCALAPPDATA");
    #[cfg(target_os = "macos")]
    let base = env("HOME").map(|h| h.join("Library").join("Caches"));
    #[cfg(not(any(target_os = "windows", target_os = "macos")))]
    let base = env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")));
    base.map(|b| b.join("ptxvk").join("pipelines"))
}

const MAGIC: &[u8; 8] = b"PTXVKPC1";

/// One module's `VkPipelineCache` and where it is kept on disk.
pub(crate) struct ModuleCache {
    vk: Arc<Vk>,
    pub cache: vk::PipelineCache,
    path: Option<PathBuf>,
    /// Pipelines were created since the cache was loaded.
    pub dirty: AtomicBool,
    /// The data loaded from disk was accepted (for tests and logs).
    pub loaded: bool,
    /// SHA-256 of what is on disk, to skip writing the same data again.
    on_disk: Option<Vec<u8>>,
}

fn device_key(info: &DeviceInfo) -> String {
    format!(
        "{:04x}-{:04x}-{:08x}-{}",
        info.vendor_id, info.device_id, info.driver_version, info.pipeline_cache_uuid
    )
}

/// The module key: what the SPIR-V (and so the pipelines) depends on.
pub(crate) fn module_key(ptx: &str, profile: &ptxvk_translator::DeviceProfile) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update([0]);
    h.update(format!("{profile:?}").as_bytes());
    h.update([0]);
    h.update(ptx.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl ModuleCache {
    pub fn open(
        vk: &Arc<Vk>,
        info: &DeviceInfo,
        dir: Option<&Path>,
        key: &str,
    ) -> Result<ModuleCache> {
        let path = dir.map(|d| d.join(device_key(info)).join(format!("{key}.bin")));
        let initial = path.as_deref().and_then(|p| read_cache_file(p, info));
        let info_ci =
            vk::PipelineCacheCreateInfo::default().initial_data(initial.as_deref().unwrap_or(&[]));
        // SAFETY: valid device; the initial data passed the header checks of `read_cache_file`.
        let cache = unsafe { vk.device.create_pipeline_cache(&info_ci, None) }
            .map_err(|e| vk.error("vkCreatePipelineCache", e))?;
        if initial.is_some() {
            tracing::debug!(path = ?path, "loaded the pipeline cache");
        }
        Ok(ModuleCache {
            vk: vk.clone(),
            cache,
            path,
            dirty: AtomicBool::new(false),
            loaded: initial.is_some(),
            on_disk: initial.map(|d| Sha256::digest(&d).to_vec()),
        })
    }

    /// Writes the cache to disk if pipelines were added (errors are logged: a cache that cannot
    /// be written only costs time).
    pub fn save(&self) {
        let Some(path) = &self.path else { return };
        if !self.dirty.swap(false, Ordering::AcqRel) || self.vk.is_lost() {
            return;
        }
        // SAFETY: the cache belongs to this device; concurrent use is internally synchronized.
        let data = match unsafe { self.vk.device.get_pipeline_cache_data(self.cache) } {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(?e, "cannot read the pipeline cache");
                return;
            }
        };
        if self.on_disk.as_deref() == Some(Sha256::digest(&data).as_slice()) {
            return; // the pipelines were all found in the cache
        }
        if let Err(e) = write_cache_file(path, &data) {
            tracing::warn!(path = %path.display(), %e, "cannot write the pipeline cache");
        } else {
            tracing::debug!(path = %path.display(), bytes = data.len(), "saved the pipeline cache");
        }
    }
}

impl Drop for ModuleCache {
    fn drop(&mut self) {
        self.save();
        if !self.vk.is_lost() {
            // SAFETY: no pipeline creation uses the cache any more (its owners are gone).
            unsafe { self.vk.device.destroy_pipeline_cache(self.cache, None) };
        }
    }
}

fn read_cache_file(path: &Path, info: &DeviceInfo) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let reject = |why: &str| {
        tracing::debug!(path = %path.display(), why, "ignoring the pipeline cache file");
        None
    };
    if bytes.len() < MAGIC.len() + 32 || &bytes[..8] != MAGIC {
        return reject("not a ptxvk pipeline cache");
    }
    let (sum, payload) = bytes[8..].split_at(32);
    if Sha256::digest(payload).as_slice() != sum {
        return reject("checksum mismatch");
    }
    // VkPipelineCacheHeaderVersionOne: length, version, vendor, device, UUID.
    let word = |i: usize| {
        payload
            .get(4 * i..4 * i + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let uuid: String = payload
        .get(16..32)
        .map(|u| u.iter().map(|b| format!("{b:02x}")).collect())
        .unwrap_or_default();
    let ok = word(0).is_some_and(|l| l >= 32 && l as usize <= payload.len())
        && word(1) == Some(1)
        && word(2) == Some(info.vendor_id)
        && word(3) == Some(info.device_id)
        && uuid == info.pipeline_cache_uuid;
    if !ok {
        return reject("made for another device or driver");
    }
    Some(payload.to_vec())
}

fn write_cache_file(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = Vec::with_capacity(data.len() + 40);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&Sha256::digest(data));
    out.extend_from_slice(data);
    // Write, flush to disk, then rename: a concurrent reader, or the next process after a kill
    // or a crash midway, sees the old file or the new one, never a part.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, &out)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
