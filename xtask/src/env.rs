//! What the machine has: the Vulkan loader, a driver (lavapipe when there is no GPU), the
//! validation layer, clang-19. `deps.rs` installs what is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

const ICD_DIRS: [&str; 3] = [
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
];
const LAYER_FILE: &str = "VkLayer_khronos_validation.json";
const LAYER_DIRS: [&str; 3] = [
    "/usr/share/vulkan/explicit_layer.d",
    "/etc/vulkan/explicit_layer.d",
    "/usr/local/share/vulkan/explicit_layer.d",
];

pub fn has_loader() -> bool {
    if let Ok(out) = Command::new("ldconfig").arg("-p").output() {
        return String::from_utf8_lossy(&out.stdout).contains("libvulkan.so.1");
    }
    [
        "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
        "/usr/lib/libvulkan.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

fn dir_has(dirs: &[&str], pred: impl Fn(&str) -> bool) -> bool {
    dirs.iter().any(|d| {
        std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .any(|e| pred(&e.file_name().to_string_lossy()))
            })
            .unwrap_or(false)
    })
}

pub fn has_driver() -> bool {
    std::env::var_os("VK_ICD_FILENAMES").is_some()
        || std::env::var_os("VK_DRIVER_FILES").is_some()
        || dir_has(&ICD_DIRS, |f| f.ends_with(".json"))
}

pub fn has_validation_layer() -> bool {
    dir_has(&LAYER_DIRS, |f| f == LAYER_FILE)
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

pub fn is_debian_like() -> bool {
    Path::new("/etc/debian_version").exists() && Path::new("/usr/bin/apt-get").exists()
}

/// The clang that generated the committed shaders: clang-19 from Debian (other versions emit
/// different text, so they are not used).
pub fn clang() -> Option<PathBuf> {
    ["clang-19"].into_iter().find_map(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| PathBuf::from(c))
    })
}
