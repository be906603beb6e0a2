//! What the machine needs: the Vulkan loader, a driver (lavapipe when there is no GPU), the
//! validation layer for tests. On Debian/Ubuntu as root they are installed; elsewhere the exact
//! command is printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};

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

fn has_loader() -> bool {
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

fn has_driver() -> bool {
    std::env::var_os("VK_ICD_FILENAMES").is_some()
        || std::env::var_os("VK_DRIVER_FILES").is_some()
        || dir_has(&ICD_DIRS, |f| f.ends_with(".json"))
}

fn has_validation_layer() -> bool {
    dir_has(&LAYER_DIRS, |f| f == LAYER_FILE)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn is_debian_like() -> bool {
    Path::new("/etc/debian_version").exists() && Path::new("/usr/bin/apt-get").exists()
}

/// Makes sure kernels can run here; `validation` also asks for the Khronos validation layer.
pub fn ensure_vulkan(validation: bool) -> Result<()> {
    if !cfg!(target_os = "linux") {
        // macOS and Windows: the loader comes with MoltenVK / the GPU driver; nothing to install
        // automatically. A missing loader is reported by the runtime with the exact steps.
        return Ok(());
    }
    let mut missing = Vec::new();
    if !has_loader() {
        missing.push("libvulkan1");
    }
    if !has_driver() {
        missing.push("mesa-vulkan-drivers");
    }
    if validation && !has_validation_layer() {
        missing.push("vulkan-validationlayers");
    }
    if missing.is_empty() {
        return Ok(());
    }
    let cmd = format!("apt-get install -y {}", missing.join(" "));
    if is_debian_like() && is_root() {
        println!("== installing {}", missing.join(", "));
        crate::run(Command::new("apt-get").arg("update").arg("-qq"))?;
        crate::run(
            Command::new("apt-get")
                .args(["install", "-y", "-qq"])
                .args(&missing)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
        return Ok(());
    }
    if is_debian_like() {
        bail!(
            "missing {}; install them with:\n  sudo {cmd}",
            missing.join(", ")
        );
    }
    bail!(
        "missing the Vulkan loader, a Vulkan driver or the validation layer ({}).\n  Debian/Ubuntu: sudo {cmd}\n  Fedora: sudo dnf install vulkan-loader mesa-vulkan-drivers vulkan-validation-layers\n  Arch: sudo pacman -S vulkan-icd-loader vulkan-swrast vulkan-validation-layers",
        missing.join(", ")
    );
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
