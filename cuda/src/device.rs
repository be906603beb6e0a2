//! Devices: one CUDA device per usable Vulkan device, in the Vulkan loader's order, and the
//! attributes CUDA programs query.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ptxvk_runtime::translator::abi;
use ptxvk_runtime::{DeviceInfo, DeviceKind};

use crate::error::{CuError, CuResult};

static INITIALIZED: AtomicBool = AtomicBool::new(false);
static DEVICES: OnceLock<Result<Vec<DeviceInfo>, String>> = OnceLock::new();

/// The compute capability reported when `PTXVK_CC` does not set one: 8.0, the newest whose
/// instructions ptxvk translates apart from tensor-core `mma`/`wgmma` (sm_80 brings `cp.async`
/// and `redux.sync`, which it runs; sm_90's clusters and distributed shared memory it does not).
pub const DEFAULT_CC: (i32, i32) = (8, 0);

/// `cuInit`: enumerates the devices once. Later calls only check the result.
pub fn init() -> CuResult<()> {
    let devices = DEVICES.get_or_init(|| match ptxvk_runtime::devices() {
        Ok(all) => Ok(all
            .into_iter()
            .filter(|d| d.missing_requirements().is_none())
            .collect()),
        Err(e) => Err(e.to_string()),
    });
    match devices {
        Ok(d) if d.is_empty() => Err(CuError::NoDevice),
        Ok(_) => {
            INITIALIZED.store(true, Ordering::Release);
            Ok(())
        }
        Err(e) => {
            tracing::warn!("cuInit: {e}");
            Err(CuError::NoDevice)
        }
    }
}

/// Fails with `CUDA_ERROR_NOT_INITIALIZED` before a successful `cuInit`.
pub fn check_init() -> CuResult<()> {
    if INITIALIZED.load(Ordering::Acquire) {
        Ok(())
    } else {
        Err(CuError::NotInitialized)
    }
}

pub fn all() -> CuResult<&'static [DeviceInfo]> {
    check_init()?;
    match DEVICES.get() {
        Some(Ok(d)) => Ok(d),
        _ => Err(CuError::NotInitialized),
    }
}

pub fn get(ordinal: i32) -> CuResult<&'static DeviceInfo> {
    let all = all()?;
    usize::try_from(ordinal)
        .ok()
        .and_then(|i| all.get(i))
        .ok_or(CuError::InvalidDevice(ordinal))
}

/// `PTXVK_CC=MAJOR.MINOR`, else [`DEFAULT_CC`]; read once, at first use (launches check
/// their configuration against attributes that depend on it).
pub fn compute_capability() -> (i32, i32) {
    static CC: OnceLock<(i32, i32)> = OnceLock::new();
    *CC.get_or_init(|| {
        std::env::var("PTXVK_CC")
            .ok()
            .and_then(|v| {
                let (a, b) = v.trim().split_once('.')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .unwrap_or(DEFAULT_CC)
    })
}

/// A stable 16-byte id: the driver's pipeline-cache UUID mixed with the device's position and
/// name, so that two identical GPUs differ (FNV-1a over both halves).
pub fn uuid(info: &DeviceInfo) -> [u8; 16] {
    let text = format!("{}/{}/{}", info.pipeline_cache_uuid, info.index, info.name);
    let mut out = [0u8; 16];
    for (half, seed) in [0xcbf2_9ce4_8422_2325u64, 0x8422_2325_cbf2_9ce4]
        .into_iter()
        .enumerate()
    {
        let h = text.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        out[half * 8..half * 8 + 8].copy_from_slice(&h.to_le_bytes());
    }
    out
}

/// One past the last `CUdevice_attribute` of the newest header listed (CUDA 13.5).
const ATTRIBUTE_END: i32 = 153;

/// Streaming multiprocessors: Vulkan does not say; the host's cores for a CPU device,
/// otherwise a documented estimate (occupancy calculations only scale with it).
fn multiprocessors(info: &DeviceInfo) -> i32 {
    match info.kind {
        DeviceKind::Cpu => std::thread::available_parallelism()
            .map(|n| n.get() as i32)
            .unwrap_or(1),
        _ => 16,
    }
}

/// `cuDeviceGetAttribute`. Values Vulkan does not expose (clocks, bus width, L2 size) are
/// those of the compute capability's reference part, as estimates.
pub fn attribute(info: &DeviceInfo, attr: i32) -> CuResult<i32> {
    let sat = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    let (major, minor) = compute_capability();
    // Blocks get CUDA's shared memory whatever the device's: beyond the device's, the arena is
    // in device memory (docs/decisions/0078-shared-memory-in-device-memory.md).
    let optin = sat(abi::MAX_SHARED_BYTES);
    // A multiprocessor holds one such block and ptxvk's own words beside it, as an H100's does.
    let per_mp = sat(info.max_shared_memory_bytes).max(optin + 1024);
    let v = match attr {
        1 => sat(info.max_workgroup_invocations.min(1024)),
        2 => sat(info.max_workgroup_size[0].min(1024)),
        3 => sat(info.max_workgroup_size[1].min(1024)),
        4 => sat(info.max_workgroup_size[2].min(64)),
        // Grids larger than the Vulkan limit run as several dispatches: CUDA's limits hold.
        5 => i32::MAX,
        6 | 7 => 65535,
        8 => sat(abi::DEFAULT_SHARED_BYTES),
        9 => 64 * 1024,
        10 => 32,
        11 => i32::MAX,
        12 | 82 => 64 * 1024,
        13 => 1_410_000,
        14 | 30 => 512,
        15 => 1,
        16 => multiprocessors(info),
        18 => i32::from(matches!(
            info.kind,
            DeviceKind::Integrated | DeviceKind::Cpu
        )),
        // Texture sizes: Vulkan's guaranteed image limits (pitched 2D memory is sampled
        // through an image too).
        21 | 22 | 23 | 27 | 28 | 42 | 45 | 46 | 52 | 53 | 70 | 71 | 73 | 74 | 77 => 4096,
        // Linear memory is read by the shader itself: CUDA's element limit holds.
        69 => sat(ptxvk_runtime::MAX_LINEAR_WIDTH),
        72 => crate::texture::MAX_PITCH as i32,
        24..=26 | 47..=49 => 256,
        29 | 43 | 54 => 256,
        51 => 32,
        31 => i32::from(info.compute_queues > 1),
        // PCI location (bus 33, device 34, domain 50): Vulkan core does not give it; the
        // device number is the ordinal, so that each device has its own bus id string.
        34 => sat(info.index as u32),
        139 => sat((info.device_id << 16) | (info.vendor_id & 0xffff)),
        36 => 1_215_000,
        37 => 5120,
        38 => 40 * 1024 * 1024,
        39 => 2048,
        40 => 1,
        41 => 1,
        75 => major,
        76 => minor,
        79 | 80 => 1,
        // CAN_MAP_HOST_MEMORY: page-locked memory mapped for the device is device memory the
        // host sees. MANAGED_MEMORY, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: one address for both
        // needs the device's addresses to be the host's, as on a CPU device.
        19 => i32::from(info.host_visible_device_memory),
        83 | 101 => i32::from(info.host_visible_device_memory && info.kind == DeviceKind::Cpu),
        // HOST_REGISTER_SUPPORTED: registered memory is mapped for the device by importing it.
        99 => i32::from(info.host_import_alignment.is_some()),
        81 => per_mp,
        97 => optin,
        87 => 2,
        106 => 32,
        126 => 1,
        131 | 134 => -1,
        a if (1..ATTRIBUTE_END).contains(&a) => 0,
        a => return Err(CuError::invalid(format!("device attribute {a}"))),
    };
    Ok(v)
}
