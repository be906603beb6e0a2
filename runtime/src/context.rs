//! A context: one Vulkan device, ready to run kernels. Cheap to clone and usable from several
//! threads.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use ptxvk_translator::DeviceProfile;

use crate::device::{self, DeviceInfo};
use crate::error::{Error, Result, vk_err};
use crate::instance::{Instance, Validation};
use crate::stream::{Stream, StreamCore};

/// How to create a [`Context`].
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// A device selector (index, `kind:TYPE` or name substring, see [`crate::select_device`]);
    /// `None` picks the most capable device.
    pub device: Option<String>,
    /// Whether to run with the Khronos validation layer.
    pub validation: Validation,
    /// How long any wait for the device may take (plus `compile_timeout` where the work holds
    /// kernels' first launches) before it is reported as [`Error::Timeout`] (a hung kernel).
    pub timeout: Duration,
    /// How much longer than `timeout` a wait may take for each pipeline dispatched for the
    /// first time in the work it waits for (counting at most four): some drivers, lavapipe
    /// among them, compile a pipeline at its first dispatch, inside the wait. 5 min by default
    /// (`PTXVK_COMPILE_TIMEOUT_MS`); see docs/decisions/0213-first-dispatch-compile-allowance.md.
    pub compile_timeout: Duration,
    /// Where compiled pipelines are kept between runs (a `VkPipelineCache` per module and
    /// device); `None` keeps them in memory only.
    pub pipeline_cache_dir: Option<PathBuf>,
    /// Pretend the device lacks some features (portability testing).
    pub restrict: Restrictions,
    /// Check every memory access of every kernel against the live allocations, so that a wild
    /// pointer is reported as [`Error::KernelFailed`] naming the instruction instead of
    /// faulting. `None`: on for CPU devices (where a fault would take the process down), off
    /// for GPUs. `PTXVK_MEMCHECK=1`/`0` sets it.
    pub memcheck: Option<bool>,
}

/// Features to leave unused even where the device has them, to see how kernels and the
/// runtime behave on a smaller device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Restrictions {
    /// Do not use `shaderFloat64`.
    pub no_float64: bool,
    /// Do not use `shaderBufferInt64Atomics` (as on some Apple GPUs): 64-bit atomics on global
    /// memory are refused, those on shared memory take the lock path they always take.
    pub no_int64_atomics: bool,
    /// Do not read and write device memory from the host directly, even where it is
    /// host-visible: every copy goes through staging buffers, as on a discrete GPU.
    pub no_host_visible_device_memory: bool,
    /// Use at most this many queues (streams then share them).
    pub max_queues: Option<u32>,
    /// Treat the device as one that ends loops after this many iterations (as Mesa 22.3's
    /// lavapipe does), so that every kernel checks its loops ran to the end.
    pub loop_limit: Option<u32>,
    /// Treat the device as one with at most this much shared memory per block, so that
    /// kernels beyond it place their shared arena in device memory (`spill.rs`).
    pub max_shared_memory_bytes: Option<u32>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            device: None,
            validation: Validation::Off,
            timeout: Duration::from_secs(60),
            compile_timeout: Duration::from_secs(300),
            pipeline_cache_dir: crate::pipeline::default_cache_dir(),
            restrict: Restrictions::default(),
            memcheck: None,
        }
    }
}

impl ContextOptions {
    /// From the environment: `PTXVK_DEVICE`, `PTXVK_VALIDATION` (`1`, `required`),
    /// `PTXVK_TIMEOUT_MS`, `PTXVK_COMPILE_TIMEOUT_MS`, `PTXVK_MEMCHECK` and `PTXVK_CACHE_DIR`
    /// (`off` disables the on-disk pipeline cache).
    pub fn from_env() -> Self {
        let mut o = ContextOptions {
            device: std::env::var("PTXVK_DEVICE").ok(),
            validation: Validation::from_env(),
            ..ContextOptions::default()
        };
        let millis = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
        if let Some(ms) = millis("PTXVK_TIMEOUT_MS") {
            o.timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = millis("PTXVK_COMPILE_TIMEOUT_MS") {
            o.compile_timeout = Duration::from_millis(ms);
        }
        match std::env::var("PTXVK_MEMCHECK").as_deref() {
            Ok("1" | "on") => o.memcheck = Some(true),
            Ok("0" | "off") => o.memcheck = Some(false),
            _ => {}
        }
        match std::env::var_os("PTXVK_CACHE_DIR") {
            Some(d) if d == "off" || d == "0" || d.is_empty() => o.pipeline_cache_dir = None,
            Some(d) => o.pipeline_cache_dir = Some(PathBuf::from(d)),
            None => {}
        }
        o
    }
}

/// A Vulkan device with everything needed to run translated kernels.
///
/// A context is cheap to clone (clones share the device) and can be used from several threads
/// at once. Several contexts, on the same or different devices, can live in one process.
///
/// ```no_run
/// use ptxvk_runtime::{Context, ContextOptions};
///
/// let ctx = Context::new(&ContextOptions::from_env())?;
/// println!("running on {}", ctx.info().name);
/// let stream = ctx.new_stream()?; // an ordered queue of work
/// // ... launches and copies on `stream` ...
/// stream.synchronize()?;
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<Inner>,
}

/// The Vulkan device and what lives exactly as long as it. Every object that owns Vulkan
/// handles holds an `Arc` of this (not of the context), so that work still in flight keeps the
/// device alive without reference cycles through the context.
pub(crate) struct Vk {
    pub instance: Arc<Instance>,
    pub device: ash::Device,
    pub allocator: Mutex<Option<Allocator>>,
    pub queues: Vec<Mutex<vk::Queue>>,
    pub family: u32,
    pub timeout: Duration,
    /// `ContextOptions::compile_timeout`.
    pub compile_timeout: Duration,
    /// Submissions that hold pipelines' first dispatches, for the compile allowance.
    pub first_dispatches: crate::wait::FirstDispatches,
    pub lost: AtomicBool,
    /// Copies between host and device go through staging buffers.
    pub staging: bool,
    pub timestamp_mask: u64,
    pub timestamp_period_ns: f64,
    /// What pipelines can ask of subgroups (`VK_EXT_subgroup_size_control`, core in 1.3).
    pub subgroups: crate::pipeline::SubgroupControl,
    /// Live buffers by device address (start -> end), for kernels that check their accesses.
    pub allocations: Mutex<std::collections::BTreeMap<u64, u64>>,
    /// Live buffers the host maps, by device address (start -> (end, host address)), so that
    /// device printf can read strings kernels point at (`Vk::read_c_string`).
    pub mapped: Mutex<std::collections::BTreeMap<u64, (u64, usize)>>,
    /// Command pools and timeline semaphores of dropped streams, destroyed later (see
    /// [`Vk::retire`]).
    pub retired: Mutex<std::collections::VecDeque<(vk::CommandPool, vk::Semaphore)>>,
}

/// Retired stream objects kept before the oldest are destroyed.
const RETIRED_KEPT: usize = 64;

impl Vk {
    pub fn check_lost(&self) -> Result<()> {
        if self.lost.load(Ordering::Acquire) {
            Err(Error::DeviceLost)
        } else {
            Ok(())
        }
    }

    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Takes a dropped stream's command pool and timeline semaphore, whose work has completed
    /// as far as the host can see. Lavapipe's queue thread still touches a submission's
    /// objects for a moment after signalling its semaphore, and destroying them at once
    /// crashed it when threads created and destroyed streams concurrently; waiting for the
    /// queue to drain instead would hang on another stream's endless kernel before its
    /// timeout is noticed. So they are destroyed once many more streams have been retired
    /// since, or with the device.
    pub fn retire(&self, pool: vk::CommandPool, semaphore: vk::Semaphore) {
        let Ok(mut retired) = self.retired.lock() else {
            return;
        };
        retired.push_back((pool, semaphore));
        while retired.len() > RETIRED_KEPT {
            if let Some((pool, semaphore)) = retired.pop_front() {
                // SAFETY: retired long ago, after its own work completed.
                unsafe {
                    self.device.destroy_command_pool(pool, None);
                    self.device.destroy_semaphore(semaphore, None);
                }
            }
        }
    }

    /// The bytes at device address `addr` up to its NUL (at most `max`, and not past its
    /// buffer), where that buffer is one the host maps; `None` for any other address.
    pub fn read_c_string(&self, addr: u64, max: usize) -> Option<Vec<u8>> {
        // Held while reading: a buffer leaves the map before its memory is freed.
        let mapped = self.mapped.lock().ok()?;
        let (&start, &(end, host)) = mapped.range(..=addr).next_back()?;
        if addr >= end {
            return None;
        }
        let len = usize::try_from(end - addr).ok()?.min(max);
        let at = usize::try_from(addr - start).ok()?;
        // SAFETY: [addr, addr + len) lies in the live mapping of a buffer that cannot be freed
        // while the lock is held; the device may write it meanwhile, as for any mapped read.
        let bytes = unsafe { std::slice::from_raw_parts((host as *const u8).add(at), len) };
        let n = bytes.iter().position(|&b| b == 0).unwrap_or(len);
        Some(bytes[..n].to_vec())
    }

    /// Records that the device is unusable (lost, or running work that never finished).
    pub fn mark_lost(&self) {
        self.lost.store(true, Ordering::Release);
    }

    /// Turns a Vulkan error into [`Error`], remembering a device loss.
    pub fn error(&self, call: &'static str, r: vk::Result) -> Error {
        let e = vk_err(call)(r);
        if matches!(e, Error::DeviceLost) {
            self.mark_lost();
        }
        e
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        if self.is_lost() {
            // Work may still be running on a hung or lost device: leaking is the only safe
            // choice (the memory is returned when the process ends). The allocator would unmap
            // and free memory, and the instance must outlive the leaked device.
            if let Ok(mut a) = self.allocator.lock() {
                std::mem::forget(a.take());
            }
            std::mem::forget(self.instance.clone());
            return;
        }
        // SAFETY: the last owner of the device is going away: every stream, buffer and
        // pipeline (which hold this Arc) is gone, and each waited for its own work; the device
        // is idle before the retired stream objects go.
        unsafe {
            let _ = self.device.device_wait_idle();
            if let Ok(mut retired) = self.retired.lock() {
                for (pool, semaphore) in retired.drain(..) {
                    self.device.destroy_command_pool(pool, None);
                    self.device.destroy_semaphore(semaphore, None);
                }
            }
            if let Ok(mut a) = self.allocator.lock() {
                a.take();
            }
            self.device.destroy_device(None);
        }
    }
}

pub(crate) struct Inner {
    pub vk: Arc<Vk>,
    pub info: DeviceInfo,
    pub profile: DeviceProfile,
    pub cache_dir: Option<PathBuf>,
    streams: Mutex<Vec<Weak<StreamCore>>>,
    default_stream: OnceLock<Arc<StreamCore>>,
    next_queue: AtomicUsize,
    /// The printf FIFO and device heap, once a kernel needs them (`services.rs`).
    pub services: crate::services::Slot,
}

/// Lists every Vulkan device, usable or not.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    Instance::new(Validation::Off)?.devices()
}

impl Context {
    /// Opens the device `opts` selects and measures what the translator needs to know about it
    /// (a few milliseconds; see [`Context::profile`]).
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let instance = Arc::new(Instance::new(opts.validation)?);
        let devices = instance.devices()?;
        let idx = device::select(&devices, opts.device.as_deref())?;
        let mut info = devices[idx].clone();
        if let Some(missing) = info.missing_requirements() {
            return Err(Error::DeviceUnsuitable {
                device: info.name.clone(),
                missing,
            });
        }
        if opts.restrict.no_float64 {
            info.float64 = false;
        }
        if opts.restrict.no_int64_atomics {
            info.int64_atomics = false;
        }
        if let Some(max) = opts.restrict.max_shared_memory_bytes {
            info.max_shared_memory_bytes = info.max_shared_memory_bytes.min(max);
        }
        let family = info.queue_family.unwrap_or(0);
        let n_queues = info
            .compute_queues
            .clamp(1, opts.restrict.max_queues.unwrap_or(4).clamp(1, 4));
        let device = create_device(&instance.instance, &info, family, n_queues)?;
        let queues = (0..n_queues)
            // SAFETY: the queues were requested at device creation.
            .map(|i| Mutex::new(unsafe { device.get_device_queue(family, i) }))
            .collect();
        let allocator = match Allocator::new(&AllocatorCreateDesc {
            instance: instance.instance.clone(),
            device: device.clone(),
            physical_device: info.physical,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        }) {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: nothing was created on the device yet.
                unsafe { device.destroy_device(None) };
                return Err(Error::Allocation(e.to_string()));
            }
        };
        let timestamp_mask = match info.timestamp_bits {
            0 => 0,
            64.. => u64::MAX,
            b => (1u64 << b) - 1,
        };
        let vk = Arc::new(Vk {
            instance,
            device,
            allocator: Mutex::new(Some(allocator)),
            queues,
            family,
            timeout: opts.timeout,
            compile_timeout: opts.compile_timeout,
            first_dispatches: Default::default(),
            lost: AtomicBool::new(false),
            retired: Mutex::new(std::collections::VecDeque::new()),
            staging: !info.host_visible_device_memory
                || opts.restrict.no_host_visible_device_memory,
            timestamp_mask,
            timestamp_period_ns: f64::from(info.timestamp_period_ns),
            subgroups: crate::pipeline::SubgroupControl {
                size_control: info.subgroup_size_control,
                full_subgroups: info.compute_full_subgroups,
                min: info.min_subgroup_size,
                max: info.max_subgroup_size,
            },
            allocations: Mutex::new(std::collections::BTreeMap::new()),
            mapped: Mutex::new(std::collections::BTreeMap::new()),
        });
        // The probes run with the native instructions claimed, then the profile says what was found.
        let mut profile = info.profile();
        profile.fused_fma32 = true;
        profile.fused_fma64 = profile.float64;
        // Probed without memory checking: its lookups are loops too, and where the driver ends
        // loops early they would fail the loop probe's store instead of letting it report.
        let memcheck = opts
            .memcheck
            .unwrap_or(info.kind == crate::device::DeviceKind::Cpu);
        profile.memcheck = false;
        let mut ctx = Context {
            inner: Arc::new(Inner {
                vk,
                info,
                profile,
                cache_dir: opts.pipeline_cache_dir.clone(),
                streams: Mutex::new(Vec::new()),
                default_stream: OnceLock::new(),
                next_queue: AtomicUsize::new(0),
                services: Default::default(),
            }),
        };
        let probed = crate::probe::run(&ctx)?;
        if let Some(inner) = Arc::get_mut(&mut ctx.inner) {
            inner.profile.fused_fma32 = probed.fused_fma32;
            inner.profile.fused_fma64 = probed.fused_fma64;
            inner.profile.loop_limit = probed.loop_limit.or(opts.restrict.loop_limit);
            inner.profile.memcheck = memcheck;
        }
        if let Some(limit) = probed.loop_limit {
            tracing::warn!(
                device = %ctx.inner.info.name,
                driver = %ctx.inner.info.driver,
                "the driver ends loops after {limit} iterations: kernels check that theirs ran \
                 to the end (install a newer Mesa to run longer loops)"
            );
        }
        tracing::debug!(
            device = %ctx.inner.info.name,
            queues = n_queues,
            staging = ctx.inner.vk.staging,
            fused_fma32 = ctx.inner.profile.fused_fma32,
            fused_fma64 = ctx.inner.profile.fused_fma64,
            loop_limit = ?probed.loop_limit,
            "created context"
        );
        Ok(ctx)
    }

    /// The device this context runs on.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// What the translator may use on this device.
    pub fn profile(&self) -> &DeviceProfile {
        &self.inner.profile
    }

    /// Whether the Khronos validation layer is active.
    pub fn validation_enabled(&self) -> bool {
        self.inner.vk.instance.validation
    }

    /// Whether host copies go through staging buffers (the device has no host-visible
    /// device-local memory, or [`Restrictions::no_host_visible_device_memory`] was asked for).
    pub fn uses_staging(&self) -> bool {
        self.inner.vk.staging
    }

    /// Fails with [`Error::Validation`] if the validation layer reported anything since the
    /// last call.
    pub fn check_validation(&self) -> Result<()> {
        let msgs = self.inner.vk.instance.take_messages();
        if msgs.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(msgs))
        }
    }

    /// Whether the device was lost or a wait timed out. A lost context refuses all further
    /// work with [`Error::DeviceLost`]; create a new [`Context`] to go on.
    pub fn is_lost(&self) -> bool {
        self.inner.vk.is_lost()
    }

    /// A new stream: an ordered queue of launches and copies. Work on different streams may
    /// run concurrently where the device has several compute queues
    /// ([`DeviceInfo::compute_queues`]); otherwise streams take turns on one queue.
    pub fn new_stream(&self) -> Result<Stream> {
        self.check_lost()?;
        let n = self.inner.vk.queues.len();
        // Queue 0 serves the default stream; user streams start on the next one.
        let queue = (self.inner.next_queue.fetch_add(1, Ordering::Relaxed) + 1) % n;
        let core = Arc::new(StreamCore::new(self.inner.vk.clone(), queue)?);
        let mut streams = self.inner.streams.lock().map_err(|_| Error::DeviceLost)?;
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&core));
        drop(streams);
        Ok(Stream::from_core(self.clone(), core))
    }

    /// The default stream, which [`crate::Kernel::launch`] and the synchronous copies use.
    pub fn default_stream(&self) -> Result<Stream> {
        Ok(Stream::from_core(self.clone(), self.default_core()?))
    }

    pub(crate) fn default_core(&self) -> Result<Arc<StreamCore>> {
        if let Some(c) = self.inner.default_stream.get() {
            return Ok(c.clone());
        }
        let core = Arc::new(StreamCore::new(self.inner.vk.clone(), 0)?);
        // Another thread may have won the race; either stream works, one is kept.
        let _ = self.inner.default_stream.set(core);
        self.inner
            .default_stream
            .get()
            .cloned()
            .ok_or(Error::DeviceLost)
    }

    /// Waits until all work on every stream of this context is done (`cudaDeviceSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        self.check_lost()?;
        let streams: Vec<Arc<StreamCore>> = {
            let s = self.inner.streams.lock().map_err(|_| Error::DeviceLost)?;
            s.iter().filter_map(Weak::upgrade).collect()
        };
        if let Some(d) = self.inner.default_stream.get() {
            d.synchronize()?;
        }
        for s in streams {
            s.synchronize()?;
        }
        Ok(())
    }

    pub(crate) fn vk(&self) -> &Arc<Vk> {
        &self.inner.vk
    }

    pub(crate) fn check_lost(&self) -> Result<()> {
        self.inner.vk.check_lost()
    }

    /// Fails if the validation layer reported anything (when it is on).
    pub(crate) fn after_work(&self) -> Result<()> {
        if self.validation_enabled() {
            self.check_validation()?;
        }
        Ok(())
    }
}

fn create_device(
    instance: &ash::Instance,
    info: &DeviceInfo,
    family: u32,
    n_queues: u32,
) -> Result<ash::Device> {
    let priorities = vec![1.0f32; n_queues as usize];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let f10 = vk::PhysicalDeviceFeatures::default()
        .shader_int64(info.int64)
        .shader_int16(info.int16)
        .shader_float64(info.float64)
        .image_cube_array(info.image_cube_array);
    let mut f11 =
        vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(info.storage16);
    // Timeline semaphores and host query reset are required by Vulkan 1.2.
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .vulkan_memory_model(true)
        .timeline_semaphore(true)
        .host_query_reset(true)
        .shader_int8(info.int8)
        .shader_float16(info.float16)
        .storage_buffer8_bit_access(info.storage8)
        .shader_buffer_int64_atomics(info.int64_atomics);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
        .subgroup_size_control(info.subgroup_size_control)
        .compute_full_subgroups(info.compute_full_subgroups);
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .features(f10)
        .push_next(&mut f11)
        .push_next(&mut f12);
    if info.api_version.1 >= 3 || info.api_version.0 > 1 {
        features = features.push_next(&mut f13);
    }
    let mut exts: Vec<*const i8> = Vec::new();
    // The spec requires enabling VK_KHR_portability_subset where it is offered (MoltenVK).
    // Nothing ptxvk does needs a feature the subset removes (they concern graphics).
    if info.portability_subset {
        exts.push(c"VK_KHR_portability_subset".as_ptr());
    }
    // Host memory a program registers for the device (`cuMemHostRegister`) is imported.
    if info.host_import_alignment.is_some() {
        exts.push(c"VK_EXT_external_memory_host".as_ptr());
    }
    let create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut features);
    // SAFETY: the physical device belongs to `instance`; every requested feature is supported.
    unsafe { instance.create_device(info.physical, &create, None) }
        .map_err(vk_err("vkCreateDevice"))
}
