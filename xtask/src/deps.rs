//! Everything outside Rust that the demo and the tests use, checked before anything is built:
//! the Vulkan loader, a driver, the validation layer, clang-19, the Rust components, and
//! NVIDIA's host-only libraries and headers from PyPI in a virtual environment of ptxvk's own,
//! and numba-cuda in a second one.
//!
//! On Debian/Ubuntu as root what is missing is installed and named; elsewhere the exact command
//! is printed and the task stops before building, so that a missing tool is never a panic in the
//! middle of a test.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// What a task needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Running kernels: loader and driver.
    Run,
    /// The benchmarks: also glslang, which compiles the GLSL twins of the benchmark kernels.
    Bench,
    /// The test suite: also the validation layer, clang-19, rustfmt/clippy and the two venvs.
    Test,
}

/// Mesa's first release whose lavapipe runs loops to their end: 22.3 stops every loop of a SIMD
/// batch after 65,535 iterations in total (the runtime detects that and refuses such results).
const MESA_WANTED: (u32, u32) = (25, 0);

/// Debian's source that has the newer Mesa for Debian 12.
const BACKPORTS_FILE: &str = "/etc/apt/sources.list.d/ptxvk-bookworm-backports.sources";
const BACKPORTS: &str = "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\n\
                         Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n";

/// The Python packages the tests load, one virtual environment for all of them. Each is a
/// host-only library or header set: no GPU is needed to install or use them.
const VENV_PACKAGES: &[&str] = &[
    // NVIDIA's compiler on the corpus (translator/tests/nvrtc.rs).
    "nvidia-cuda-nvrtc-cu12",
    // cuda.h of CUDA 12.x: the driver API's symbols and declarations.
    "nvidia-cuda-runtime-cu12",
    // cuda.h of CUDA 13.x (pinned: cuda/src/symbols.txt is checked against its headers).
    "nvidia-cuda-runtime==13.5.37",
    // NVIDIA's Python driver bindings, run unmodified against libcuda (cuda/tests/python.rs).
    "cuda-bindings==12.9.10",
    // What the cuda-python programs check their results against.
    "numpy==2.4.6",
    // NVIDIA's fatbinary writer: the tests make fatbinaries with it rather than ship any.
    "nvidia-nvfatbin-cu12==12.9.82",
    // nvcc of CUDA 13 with what it runs (cicc in nvvm, cudafe++, fatbinary, nvlink), its
    // device headers and CCCL (thrust, cub): CUDA C++ programs compiled at test time. CUDA 12's
    // wheel ships ptxas alone. Pinned with nvidia-cuda-runtime above: nvcc requires its version.
    "nvidia-cuda-nvcc==13.5.37",
    "nvidia-nvvm==13.5.37",
    "nvidia-cuda-crt==13.5.37",
    "nvidia-cuda-cccl==13.3.5.0.6",
    // Triton compiles our kernels in shaders/triton to PTX at test time (no GPU needed; it has
    // no dependencies of its own, so it shares this venv).
    "triton==3.9.0",
];

/// numba-cuda installed the way its users install it, `pip install "numba-cuda[cu12]"`, in a
/// virtual environment of its own so that its packages never change what the other tests
/// load. The extra brings cuda-bindings, libNVVM, the runtime, NVRTC and nvJitLink; they are
/// also listed by name (pinned) so that a venv made before one of them was wanted gets it.
/// With nvJitLink installed numba would link SASS itself; ptxvk's libcuda answers for
/// nvJitLink and numba hands it PTX (docs/decisions/0173-libcuda-answers-for-nvjitlink.md).
const NUMBA_PACKAGES: &[&str] = &[
    "numba-cuda[cu12]==0.30.4",
    "numba==0.68.1",
    "cuda-core==1.2.2",
    "cuda-bindings==12.9.10",
    "nvidia-cuda-nvcc-cu12==12.9.86",
    "nvidia-cuda-runtime-cu12==12.9.79",
    "nvidia-cuda-nvrtc-cu12==12.9.86",
    "nvidia-nvjitlink-cu12==12.9.86",
];

/// The CUDA 13 flavour, `pip install "numba-cuda[cu13]"` (cuda-bindings 13, libNVVM,
/// runtime, NVRTC and nvJitLink of CUDA 13), in a third venv.
const NUMBA13_PACKAGES: &[&str] = &[
    "numba-cuda[cu13]==0.30.4",
    "numba==0.68.1",
    "cuda-core==1.2.2",
    "cuda-bindings==13.5.0",
    "nvidia-nvvm==13.5.37",
    "nvidia-cuda-runtime==13.5.37",
    "nvidia-cuda-nvrtc==13.5.37",
    "nvidia-nvjitlink==13.5.37",
];

/// What numba-cuda's test suite imports (`numba.cuda.testing`, which imports pytest even
/// under numba's own runner), for `cargo xtask compat numba`
/// only: the tests of this repository do not need it.
/// cffi: `test_device_func` and `test_cuda_driver` import it.
const NUMBA_TEST_PACKAGES: &[&str] = &["pytest==8.4.2", "filecheck==1.0.6", "cffi==2.0.0"];

/// Where the tests find what the venv holds: (variable, path under site-packages).
const VENV_EXPORTS: &[(&str, &str)] = &[
    ("PTXVK_NVRTC", "nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
    ("PTXVK_CUDA_INCLUDE", "nvidia/cuda_runtime/include"),
    ("PTXVK_CUDA13_INCLUDE", "nvidia/cu13/include"),
    ("PTXVK_NVCC", "nvidia/cu13/bin/nvcc"),
];

/// What the tests are given: environment variables naming the installed tools.
pub struct TestEnv {
    pub vars: Vec<(String, String)>,
}

/// Makes sure everything `need` uses is here, installing it where that is possible.
pub fn ensure(need: Need) -> Result<TestEnv> {
    let mut installed = Vec::new();
    if cfg!(target_os = "linux") {
        system_packages(need, &mut installed)?;
    }
    let mut vars = Vec::new();
    if need == Need::Test {
        rust_components(&mut installed)?;
        vars = venv(&mut installed)?;
        let numba = numba_venv(&mut installed)?;
        vars.push((
            "PTXVK_NUMBA_PYTHON".to_string(),
            numba.display().to_string(),
        ));
        let numba13 = venv_with(&numba13_venv_dir(), NUMBA13_PACKAGES, &mut installed)?;
        vars.push((
            "PTXVK_NUMBA13_PYTHON".to_string(),
            numba13.display().to_string(),
        ));
        vars.push((
            "PTXVK_OLD_LAVAPIPE_ICD".to_string(),
            old_lavapipe(&mut installed)?,
        ));
    }
    if installed.is_empty() {
        println!("== everything needed is installed");
    } else {
        println!("== installed: {}", installed.join(", "));
    }
    Ok(TestEnv { vars })
}

/// ptxvk's folder for what it installs without root: `$XDG_CACHE_HOME/ptxvk`, else
/// `~/.cache/ptxvk`.
fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("ptxvk")
}

/// The virtual environment's folder: `$PTXVK_VENV`, else `$XDG_CACHE_HOME/ptxvk/venv`, else
/// `~/.cache/ptxvk/venv`. The same rule is in the tests that look for it without xtask.
pub fn venv_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PTXVK_VENV") {
        return PathBuf::from(v);
    }
    cache_dir().join("venv")
}

/// Creates (or completes) numba's virtual environment and returns its Python.
pub fn numba_venv(installed: &mut Vec<String>) -> Result<PathBuf> {
    venv_with(&numba_venv_dir(), NUMBA_PACKAGES, installed)
}

/// numba's virtual environment with what numba-cuda's own test suite imports besides numba.
pub fn numba_compat_venv(installed: &mut Vec<String>) -> Result<PathBuf> {
    let numba = numba_venv(installed)?;
    venv_with(&numba_venv_dir(), NUMBA_TEST_PACKAGES, installed)?;
    Ok(numba)
}

/// numba's virtual environment: `$PTXVK_NUMBA_VENV`, else `venv-numba` beside the main one
/// in ptxvk's cache folder.
pub fn numba_venv_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PTXVK_NUMBA_VENV") {
        return PathBuf::from(v);
    }
    cache_dir().join("venv-numba")
}

/// The CUDA 13 flavour's virtual environment: `$PTXVK_NUMBA13_VENV`, else `venv-numba-cu13`
/// beside the main one.
pub fn numba13_venv_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PTXVK_NUMBA13_VENV") {
        return PathBuf::from(v);
    }
    cache_dir().join("venv-numba-cu13")
}

fn system_packages(need: Need, installed: &mut Vec<String>) -> Result<()> {
    let mut missing: Vec<&str> = Vec::new();
    if !crate::env::has_loader() {
        missing.push("libvulkan1");
    }
    let old_mesa = debian_mesa_too_old();
    if !crate::env::has_driver() || old_mesa {
        missing.push("mesa-vulkan-drivers");
    }
    if need != Need::Run && !has_command("glslangValidator") {
        missing.push("glslang-tools");
    }
    if need == Need::Test {
        if !crate::env::has_validation_layer() {
            missing.push("vulkan-validationlayers");
        }
        if crate::env::clang().is_none() {
            missing.push("clang-19");
        }
        if !python_has_venv() {
            missing.push("python3-venv");
        }
        // nvcc's host compiler, for the CUDA C++ programs compiled at test time.
        if !has_command("g++") {
            missing.push("g++");
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let backports = is_bookworm();
    if !(crate::env::is_debian_like() && crate::env::is_root()) {
        let mut cmd = String::new();
        if backports && missing.contains(&"mesa-vulkan-drivers") {
            cmd.push_str(&format!(
                "printf '{}' | sudo tee {BACKPORTS_FILE} && sudo apt-get update && \
                 sudo apt-get install -y -t bookworm-backports mesa-vulkan-drivers && ",
                BACKPORTS.replace('\n', "\\n")
            ));
        }
        cmd.push_str(&format!("sudo apt-get install -y {}", missing.join(" ")));
        if crate::env::is_debian_like() {
            bail!(
                "missing {}; install them with:\n  {cmd}",
                missing.join(", ")
            );
        }
        bail!(
            "missing {} (or their equivalents).\n  Debian/Ubuntu: {cmd}\n  Fedora: sudo dnf install \
             vulkan-loader mesa-vulkan-drivers vulkan-validation-layers clang python3 glslang\n  Arch: \
             sudo pacman -S vulkan-icd-loader vulkan-swrast vulkan-validation-layers clang python \
             glslang",
            missing.join(", ")
        );
    }
    println!("== installing {} with apt-get", missing.join(", "));
    if backports && missing.contains(&"mesa-vulkan-drivers") {
        std::fs::write(BACKPORTS_FILE, BACKPORTS)
            .with_context(|| format!("cannot write {BACKPORTS_FILE}"))?;
        installed.push(format!("the bookworm-backports source ({BACKPORTS_FILE})"));
    }
    crate::run(Command::new("apt-get").args(["update", "-qq"]))?;
    let apt = |args: &[&str]| {
        crate::run(
            Command::new("apt-get")
                .args(["install", "-y", "-qq", "--no-install-recommends"])
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    let rest: Vec<&str> = if backports {
        missing
            .iter()
            .copied()
            .filter(|p| *p != "mesa-vulkan-drivers")
            .collect()
    } else {
        missing.clone()
    };
    if rest.len() != missing.len() {
        apt(&["-t", "bookworm-backports", "mesa-vulkan-drivers"])?;
    }
    if !rest.is_empty() {
        apt(&rest)?;
    }
    for p in missing {
        installed.push(match package_version(p) {
            Some(v) => format!("{p} {v}"),
            None => p.to_string(),
        });
    }
    Ok(())
}

/// Libraries Mesa 22.3's lavapipe links that the newer Mesa may not have brought.
const OLD_LAVAPIPE_DEPS: &[&str] = &[
    "libllvm15",
    "libelf1",
    "libexpat1",
    "libzstd1",
    "libdrm-amdgpu1",
    "libwayland-client0",
    "libx11-xcb1",
    "libxcb-dri3-0",
    "libxcb-present0",
    "libxcb-randr0",
    "libxcb-shm0",
    "libxcb-sync1",
    "libxcb-xfixes0",
    "libxshmfence1",
];

/// Debian 12's own lavapipe (Mesa 22.3, which ends loops early), unpacked into the cache beside
/// the installed driver, for the test that shows ptxvk catches its loop limit. Returns its ICD
/// file, or `skip` where it cannot be had (not Debian 12 on x86-64, or not root).
pub(crate) fn old_lavapipe(installed: &mut Vec<String>) -> Result<String> {
    let skip = |why: &str| {
        println!("== the old-lavapipe test is skipped: {why}");
        Ok("skip".to_string())
    };
    if !is_bookworm() || !cfg!(target_arch = "x86_64") {
        return skip("Mesa 22.3 is unpacked from Debian 12's x86-64 packages only");
    }
    let dir = cache_dir().join("mesa-22.3");
    let lib = dir.join("root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so");
    let icd = dir.join("lvp_icd.json");
    if !lib.exists() {
        println!(
            "== unpacking Debian 12's lavapipe (Mesa 22.3) into {}",
            dir.display()
        );
        std::fs::create_dir_all(&dir)?;
        let download = || {
            crate::run(
                Command::new("apt-get")
                    .args(["download", "-qq", "mesa-vulkan-drivers/bookworm"])
                    .current_dir(&dir),
            )
        };
        // The package lists may be absent on a machine where everything else is installed.
        if download().is_err() {
            crate::run(Command::new("apt-get").args(["update", "-qq"]))?;
            download()?;
        }
        let deb = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "deb"))
            .context("apt-get download left no .deb")?;
        crate::run(
            Command::new("dpkg")
                .arg("-x")
                .arg(&deb)
                .arg(dir.join("root")),
        )?;
        std::fs::remove_file(&deb)?;
        installed.push(format!("Mesa 22.3's lavapipe in {}", dir.display()));
    }
    let ldd = Command::new("ldd").arg(&lib).output()?;
    if String::from_utf8_lossy(&ldd.stdout).contains("not found") {
        if !crate::env::is_root() {
            return skip(&format!(
                "its libraries are missing: sudo apt-get install {}",
                OLD_LAVAPIPE_DEPS.join(" ")
            ));
        }
        crate::run(
            Command::new("apt-get")
                .args(["install", "-y", "-qq", "--no-install-recommends"])
                .args(OLD_LAVAPIPE_DEPS)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
        installed.push("the libraries of Mesa 22.3's lavapipe".to_string());
    }
    std::fs::write(
        &icd,
        format!(
            "{{\"file_format_version\": \"1.0.0\", \"ICD\": {{\"library_path\": \"{}\", \
             \"api_version\": \"1.3.230\"}}}}\n",
            lib.display()
        ),
    )?;
    Ok(icd.display().to_string())
}

fn is_bookworm() -> bool {
    std::fs::read_to_string("/etc/os-release")
        .is_ok_and(|s| s.lines().any(|l| l.trim() == "VERSION_CODENAME=bookworm"))
}

/// The installed version of a Debian package.
fn package_version(p: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status} ${Version}", p])
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.strip_prefix("install ok installed ")
        .map(|v| v.trim().to_string())
}

/// Debian 12's own Mesa (22.3) is installed where bookworm-backports has a newer one.
fn debian_mesa_too_old() -> bool {
    if !is_bookworm() {
        return false;
    }
    let Some(v) = package_version("mesa-vulkan-drivers") else {
        return false;
    };
    mesa_version(&v).is_some_and(|got| got < MESA_WANTED)
}

/// `major.minor` of a Debian version such as `25.0.7-2~bpo12+1` or `1:22.3.6-1+deb12u2`.
fn mesa_version(v: &str) -> Option<(u32, u32)> {
    let v = v.rsplit_once(':').map_or(v, |(_, r)| r);
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

fn has_command(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn python_has_venv() -> bool {
    Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn rust_components(installed: &mut Vec<String>) -> Result<()> {
    let have = Command::new("rustup")
        .args(["component", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let Ok(have) = have else {
        // No rustup: the toolchain came another way and brings its own rustfmt and clippy.
        return Ok(());
    };
    for c in ["rustfmt", "clippy"] {
        if !have.lines().any(|l| l.starts_with(c)) {
            println!("== installing the {c} component");
            crate::run(Command::new("rustup").args(["component", "add", c]))?;
            installed.push(format!("rustup component {c}"));
        }
    }
    Ok(())
}

/// Creates (or completes) the virtual environment and returns the variables that point the
/// tests at its contents.
fn venv(installed: &mut Vec<String>) -> Result<Vec<(String, String)>> {
    let python = venv_with(&venv_dir(), VENV_PACKAGES, installed)?;
    let site = site_packages(&python)?;
    let mut vars = Vec::new();
    for (var, rel) in VENV_EXPORTS {
        let path = site.join(rel);
        if !path.exists() {
            bail!(
                "{} is missing after installing {}: the package's layout changed",
                path.display(),
                VENV_PACKAGES.join(" ")
            );
        }
        vars.push((var.to_string(), path.display().to_string()));
    }
    Ok(vars)
}

/// Creates (or completes) the virtual environment `dir` with `packages` and returns its
/// Python.
fn venv_with(dir: &Path, packages: &[&str], installed: &mut Vec<String>) -> Result<PathBuf> {
    let python = dir.join("bin").join("python3");
    if !python.exists() {
        println!("== creating the Python environment {}", dir.display());
        crate::run(Command::new("python3").arg("-m").arg("venv").arg(dir))?;
        installed.push(format!("a Python venv at {}", dir.display()));
    }
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| !has_package(&python, p))
        .collect();
    if !missing.is_empty() {
        println!(
            "== pip install {} (into {})",
            missing.join(" "),
            dir.display()
        );
        crate::run(
            Command::new(&python)
                .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
                .args(&missing),
        )?;
        installed.extend(missing.iter().map(|p| format!("pip {p}")));
    }
    Ok(python)
}

fn site_packages(python: &Path) -> Result<PathBuf> {
    let out = Command::new(python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .with_context(|| format!("cannot run {}", python.display()))?;
    if !out.status.success() {
        bail!("{} cannot report its site-packages", python.display());
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn has_package(python: &Path, p: &str) -> bool {
    // `pip show` takes the distribution's name: no version, no extras.
    let name = p.split(['=', '[']).next().unwrap_or(p);
    Command::new(python)
        .args(["-m", "pip", "show", "-q", name])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[cfg(test)]
mod tests {
    use super::mesa_version;

    #[test]
    fn debian_version_strings_give_mesa_releases() {
        assert_eq!(mesa_version("25.0.7-2~bpo12+1"), Some((25, 0)));
        assert_eq!(mesa_version("1:22.3.6-1+deb12u2"), Some((22, 3)));
        assert_eq!(mesa_version("22.3.6-1+deb12u2"), Some((22, 3)));
        assert_eq!(mesa_version("garbage"), None);
    }
}
