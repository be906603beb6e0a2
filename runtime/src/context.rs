//! A context: one Vulkan device, ready to run kernels. Cheap to clone and usable from several
//! threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use ptxvk_translator::DeviceProfile;

use crate::device::{self, DeviceInfo};
use crate::error::{Error, Result, vk_err};
use crate::instance::{Instance, Validation};

/// How to create a [`Context`].
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// A device index or name substring; `None` picks the most capable device.
    pub device: Option<String>,
    pub validation: Validation,
    /// How long to wait for the device before reporting a hung kernel.
    pub timeout: Duration,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            device: None,
            validation: Validation::Off,
            timeout: Duration::from_secs(60),
        }
    }
}

impl ContextOptions {
    /// From the environment: `PTXVK_DEVICE`, `PTXVK_VALIDATION` (`1`, `required`) and
    /// `PTXVK_TIMEOUT_MS`.
    pub fn from_env() -> Self {
        let mut o = ContextOptions {
            device: std::env::var("PTXVK_DEVICE").ok(),
            validation: Validation::from_env(),
            ..ContextOptions::default()
        };
        if let Some(ms) = std::env::var("PTXVK_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            o.timeout = Duration::from_millis(ms);
        }
        o
    }
}

/// A Vulkan device with everything needed to run translated kernels.
///
/// ```no_run
/// let ctx = ptxvk_runtime::Context::new(&ptxvk_runtime::ContextOptions::from_env())?;
/// println!("running on {}", ctx.info().name);
/// # Ok::<(), ptxvk_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub instance: Arc<Instance>,
    pub device: ash::Device,
    pub info: DeviceInfo,
    pub profile: DeviceProfile,
    pub queue: Mutex<vk::Queue>,
    pub pool: Mutex<vk::CommandPool>,
    pub allocator: Mutex<Option<Allocator>>,
    pub pipeline_cache: vk::PipelineCache,
    pub timeout: Duration,
    pub lost: AtomicBool,
}

/// Lists every Vulkan device, usable or not.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    Instance::new(Validation::Off)?.devices()
}

impl Context {
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let instance = Arc::new(Instance::new(opts.validation)?);
        let devices = instance.devices()?;
        let idx = device::select(&devices, opts.device.as_deref())?;
        let info = devices[idx].clone();
        if let Some(missing) = info.missing_requirements() {
            return Err(Error::DeviceUnsuitable {
                device: info.name.clone(),
                missing,
            });
        }
        let family = info.queue_family.unwrap_or(0);
        let device = create_device(&instance.instance, &info, family)?;
        // SAFETY: the queue family was requested at device creation.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device and create info.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(vk_err("vkCreateCommandPool"))?;
        // SAFETY: as above.
        let pipeline_cache =
            unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
                .map_err(vk_err("vkCreatePipelineCache"))?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.instance.clone(),
            device: device.clone(),
            physical_device: info.physical,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| Error::Allocation(e.to_string()))?;
        // The probes run with the native instructions claimed, then the profile says what was found.
        let mut profile = info.profile();
        profile.fused_fma32 = true;
        profile.fused_fma64 = profile.float64;
        let mut ctx = Context {
            inner: Arc::new(Inner {
                instance,
                device,
                info,
                profile,
                queue: Mutex::new(queue),
                pool: Mutex::new(pool),
                allocator: Mutex::new(Some(allocator)),
                pipeline_cache,
                timeout: opts.timeout,
                lost: AtomicBool::new(false),
            }),
        };
        let probed = crate::probe::run(&ctx)?;
        if let Some(inner) = Arc::get_mut(&mut ctx.inner) {
            inner.profile.fused_fma32 = probed.fused_fma32;
            inner.profile.fused_fma64 = probed.fused_fma64;
        }
        tracing::debug!(
            device = %ctx.inner.info.name,
            fused_fma32 = probed.fused_fma32,
            fused_fma64 = probed.fused_fma64,
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
        self.inner.instance.validation
    }

    /// Fails with [`Error::Validation`] if the validation layer reported anything since the
    /// last call.
    pub fn check_validation(&self) -> Result<()> {
        let msgs = self.inner.instance.take_messages();
        if msgs.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(msgs))
        }
    }

    pub(crate) fn device(&self) -> &ash::Device {
        &self.inner.device
    }

    pub(crate) fn check_lost(&self) -> Result<()> {
        if self.inner.lost.load(Ordering::Relaxed) {
            Err(Error::DeviceLost)
        } else {
            Ok(())
        }
    }

    /// Records commands with `record`, submits them and waits (with the context's timeout).
    pub(crate) fn run_commands(
        &self,
        what: &str,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
        self.check_lost()?;
        let dev = &self.inner.device;
        let pool = self.inner.pool.lock().map_err(|_| Error::DeviceLost)?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(*pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is externally synchronized by its mutex, held until submission ends.
        let cb = unsafe { dev.allocate_command_buffers(&alloc) }
            .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
        let result = (|| {
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: a freshly allocated primary command buffer.
            unsafe { dev.begin_command_buffer(cb, &begin) }
                .map_err(vk_err("vkBeginCommandBuffer"))?;
            record(dev, cb);
            // SAFETY: recording started above.
            unsafe { dev.end_command_buffer(cb) }.map_err(vk_err("vkEndCommandBuffer"))?;
            // SAFETY: valid device.
            let fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }
                .map_err(vk_err("vkCreateFence"))?;
            let cbs = [cb];
            let submit = vk::SubmitInfo::default().command_buffers(&cbs);
            let queue = self.inner.queue.lock().map_err(|_| Error::DeviceLost)?;
            // SAFETY: the queue is synchronized by its mutex; the command buffer is complete.
            let submitted = unsafe { dev.queue_submit(*queue, &[submit], fence) };
            drop(queue);
            if let Err(e) = submitted {
                // SAFETY: the fence was never submitted.
                unsafe { dev.destroy_fence(fence, None) };
                return Err(self.note_error(vk_err("vkQueueSubmit")(e)));
            }
            let timeout = self.inner.timeout;
            // SAFETY: waiting on our own fence.
            let waited = unsafe { dev.wait_for_fences(&[fence], true, timeout.as_nanos() as u64) };
            match waited {
                Ok(()) => {
                    // SAFETY: the fence has signalled; nothing uses it any more.
                    unsafe { dev.destroy_fence(fence, None) };
                    Ok(())
                }
                Err(vk::Result::TIMEOUT) => {
                    // The work may still run: keep the fence and command buffer alive (leaked)
                    // rather than free what the device uses, and refuse further work.
                    self.inner.lost.store(true, Ordering::Relaxed);
                    Err(Error::Timeout {
                        what: what.to_string(),
                        millis: timeout.as_millis() as u64,
                    })
                }
                Err(e) => Err(self.note_error(vk_err("vkWaitForFences")(e))),
            }
        })();
        if !matches!(result, Err(Error::Timeout { .. }) | Err(Error::DeviceLost)) {
            // SAFETY: the command buffer is no longer in use (completed or never submitted).
            unsafe { dev.free_command_buffers(*pool, &[cb]) };
        }
        result?;
        if self.inner.instance.validation {
            self.check_validation()?;
        }
        Ok(())
    }

    fn note_error(&self, e: Error) -> Error {
        if matches!(e, Error::DeviceLost) {
            self.inner.lost.store(true, Ordering::Relaxed);
        }
        e
    }
}

fn create_device(instance: &ash::Instance, info: &DeviceInfo, family: u32) -> Result<ash::Device> {
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let f10 = vk::PhysicalDeviceFeatures::default()
        .shader_int64(info.int64)
        .shader_int16(info.int16)
        .shader_float64(info.float64);
    let mut f11 =
        vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(info.storage16);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .vulkan_memory_model(true)
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
    if info.portability_subset {
        exts.push(c"VK_KHR_portability_subset".as_ptr());
    }
    let create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut features);
    // SAFETY: the physical device belongs to `instance`; every requested feature is supported.
    unsafe { instance.create_device(info.physical, &create, None) }
        .map_err(vk_err("vkCreateDevice"))
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: the last reference to the context is going away: no other thread can submit;
        // wait for the device, then destroy children before the device.
        unsafe {
            if self.lost.load(Ordering::Relaxed) {
                // Work may still be running on a hung or lost device: leaking it is the only
                // safe choice.
                return;
            }
            let _ = self.device.device_wait_idle();
            if let Ok(mut a) = self.allocator.lock() {
                a.take();
            }
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            if let Ok(pool) = self.pool.lock() {
                self.device.destroy_command_pool(*pool, None);
            }
            self.device.destroy_device(None);
        }
    }
}
