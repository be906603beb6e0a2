//! The Vulkan instance: loader, validation layer, and the devices it sees.

use std::ffi::{CStr, c_void};
use std::sync::{Arc, Mutex};

use ash::{ext, khr, vk};

use crate::device::DeviceInfo;
use crate::error::{Error, Result, vk_err};

/// Whether to run with the Khronos validation layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validation {
    /// No validation layer.
    Off,
    /// Enabled when installed.
    IfAvailable,
    /// Enabled; creating a context fails when the layer is not installed.
    Required,
}

impl Validation {
    /// From `PTXVK_VALIDATION`: `1`/`on` = if available, `required`, anything else = off.
    pub fn from_env() -> Validation {
        match std::env::var("PTXVK_VALIDATION").as_deref() {
            Ok("1" | "on" | "true") => Validation::IfAvailable,
            Ok("required" | "require") => Validation::Required,
            _ => Validation::Off,
        }
    }
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Messages from the validation layer, collected by the debug callback.
pub(crate) type Messages = Arc<Mutex<Vec<String>>>;

pub(crate) struct Instance {
    /// Keeps the loader library loaded while the instance lives; loads instance-level
    /// extension functions.
    entry: ash::Entry,
    pub instance: ash::Instance,
    debug: Option<(ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub messages: Messages,
    /// Raw pointer to `messages`, owned by the messenger's user data.
    user_data: *mut Messages,
    pub validation: bool,
}

// The raw pointer is only read by the callback; the Arc it points to is Send + Sync.
unsafe impl Send for Instance {}
unsafe impl Sync for Instance {}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the loader passes a valid callback data pointer for the duration of the call, and
    // `user` is the `Messages` box we registered, alive until the messenger is destroyed.
    let (msg, messages) = unsafe {
        let d = &*data;
        let msg = if d.p_message.is_null() {
            String::from("(no message)")
        } else {
            CStr::from_ptr(d.p_message).to_string_lossy().into_owned()
        };
        (msg, &*(user as *const Messages))
    };
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        "error"
    } else {
        "warning"
    };
    tracing::warn!(target: "ptxvk::validation", "{level}: {msg}");
    if let Ok(mut m) = messages.lock() {
        m.push(format!("{level}: {msg}"));
    }
    vk::FALSE
}

impl Instance {
    pub fn new(validation: Validation) -> Result<Instance> {
        // SAFETY: loading the system's Vulkan loader library; ash checks the entry points.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::LoaderMissing {
            detail: e.to_string(),
        })?;
        // SAFETY: plain enumeration calls on a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(vk_err("vkEnumerateInstanceLayerProperties"))?;
        let has_layer = layers
            .iter()
            .any(|l| l.layer_name_as_c_str().ok() == Some(VALIDATION_LAYER));
        let use_layer = match validation {
            Validation::Off => false,
            Validation::IfAvailable => has_layer,
            Validation::Required if has_layer => true,
            Validation::Required => return Err(Error::ValidationLayerMissing),
        };
        // SAFETY: as above.
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(vk_err("vkEnumerateInstanceExtensionProperties"))?;
        let has_ext = |name: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(name))
        };
        let mut ext_names: Vec<*const i8> = Vec::new();
        let mut flags = vk::InstanceCreateFlags::empty();
        // MoltenVK devices only appear with portability enumeration.
        if has_ext(khr::portability_enumeration::NAME) {
            ext_names.push(khr::portability_enumeration::NAME.as_ptr());
            flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        }
        if use_layer {
            ext_names.push(ext::debug_utils::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"ptxvk")
            .engine_name(c"ptxvk")
            .api_version(vk::API_VERSION_1_3);
        let layer_names = [VALIDATION_LAYER.as_ptr()];
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ext_names)
            .flags(flags);
        if use_layer {
            info = info.enabled_layer_names(&layer_names);
        }
        // SAFETY: the create info and everything it points to live until the call returns.
        let instance =
            unsafe { entry.create_instance(&info, None) }.map_err(vk_err("vkCreateInstance"))?;
        let messages: Messages = Arc::new(Mutex::new(Vec::new()));
        let user_data = Box::into_raw(Box::new(messages.clone()));
        let debug = if use_layer {
            let du = ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(debug_callback))
                .user_data(user_data as *mut c_void);
            // SAFETY: valid instance; the callback and user data outlive the messenger.
            match unsafe { du.create_debug_utils_messenger(&info, None) } {
                Ok(m) => Some((du, m)),
                Err(e) => {
                    // SAFETY: destroying what we created above, nothing else uses it yet.
                    unsafe {
                        instance.destroy_instance(None);
                        drop(Box::from_raw(user_data));
                    }
                    return Err(vk_err("vkCreateDebugUtilsMessengerEXT")(e));
                }
            }
        } else {
            None
        };
        Ok(Instance {
            entry,
            instance,
            debug,
            messages,
            user_data,
            validation: use_layer,
        })
    }

    /// Every physical device, with what ptxvk needs to know about it.
    pub fn devices(&self) -> Result<Vec<DeviceInfo>> {
        // SAFETY: valid instance.
        let pds = unsafe { self.instance.enumerate_physical_devices() }
            .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
        Ok(pds
            .into_iter()
            .enumerate()
            .map(|(i, pd)| DeviceInfo::query(&self.entry, &self.instance, pd, i))
            .collect())
    }

    /// Takes the validation messages collected so far.
    pub fn take_messages(&self) -> Vec<String> {
        self.messages
            .lock()
            .map(|mut m| std::mem::take(&mut *m))
            .unwrap_or_default()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: all child objects (devices) are destroyed before the instance: `Context` holds
        // the instance in an Arc that outlives its device.
        unsafe {
            if let Some((du, m)) = self.debug.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
            drop(Box::from_raw(self.user_data));
        }
    }
}
