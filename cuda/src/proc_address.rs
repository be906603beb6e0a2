//! `cuGetProcAddress`: a name, the CUDA version the caller was built for, and the default-stream
//! flavour give one versioned entry point, as NVIDIA's driver resolves them (`proc_versions.txt`
//! holds every (name, version) pair of cuda 12.x/13.x's cudaTypedefs.h).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The driver version ptxvk reports: CUDA 13.5, the newest headers it lists, so that programs
/// built for any 12.x or 13.x toolkit accept it (a driver is never older than their runtime).
pub const DRIVER_VERSION: i32 = 13050;

/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const PER_THREAD_DEFAULT_STREAM: u64 = 0x2;

struct Version {
    version: u32,
    /// `ptds`/`ptsz`, or empty.
    suffix: &'static str,
    symbol: &'static str,
}

fn table() -> &'static BTreeMap<&'static str, Vec<Version>> {
    static TABLE: OnceLock<BTreeMap<&'static str, Vec<Version>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: BTreeMap<&str, Vec<Version>> = BTreeMap::new();
        for line in include_str!("proc_versions.txt").lines() {
            if line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let (name, version, suffix, symbol) = match f.as_slice() {
                [n, v, s] => (*n, *v, "", *s),
                [n, v, x, s] => (*n, *v, *x, *s),
                _ => continue,
            };
            if let Ok(version) = version.parse() {
                t.entry(name).or_default().push(Version {
                    version,
                    suffix,
                    symbol,
                });
            }
        }
        t
    })
}

/// Why a lookup failed, as `CUdriverProcAddressQueryResult` says it.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    /// CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND.
    NotFound,
    /// CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: the name exists only in newer versions.
    VersionNotSufficient,
}

/// The exported symbol for `name` at `cuda_version` with `flags`: the newest version not newer
/// than `cuda_version`; with the per-thread flag, its `_ptds`/`_ptsz` variant where there is
/// one. Names without versions (newer entry points) resolve to themselves.
pub fn resolve(name: &str, cuda_version: i32, flags: u64) -> Result<&'static str, Miss> {
    let Some(versions) = table().get(name) else {
        return crate::symbols_exported(name).ok_or(Miss::NotFound);
    };
    let wanted = u32::try_from(cuda_version).unwrap_or(0);
    let per_thread = flags & PER_THREAD_DEFAULT_STREAM != 0;
    let newest = |ptd: bool| {
        versions
            .iter()
            .filter(|v| v.version <= wanted && v.suffix.is_empty() != ptd)
            .max_by_key(|v| v.version)
    };
    let found = if per_thread {
        // A per-thread variant counts only where it is not older than the plain version the
        // caller would otherwise get (the plain entry changed since: no variant of it).
        match (newest(true), newest(false)) {
            (Some(p), Some(plain)) if p.version >= plain.version => Some(p),
            (Some(p), None) => Some(p),
            (_, plain) => plain,
        }
    } else {
        newest(false)
    };
    match found {
        Some(v) => Ok(v.symbol),
        None => Err(Miss::VersionNotSufficient),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_follow_the_callers_cuda_version() {
        assert_eq!(resolve("cuMemAlloc", 2000, 0), Ok("cuMemAlloc"));
        assert_eq!(resolve("cuMemAlloc", 3020, 0), Ok("cuMemAlloc_v2"));
        assert_eq!(resolve("cuMemAlloc", 12080, 0), Ok("cuMemAlloc_v2"));
        assert_eq!(resolve("cuCtxCreate", 11040, 0), Ok("cuCtxCreate_v3"));
        assert_eq!(
            resolve("cuGetProcAddress", 12000, 0),
            Ok("cuGetProcAddress_v2")
        );
        assert_eq!(
            resolve("cuGetProcAddress", 11030, 0),
            Ok("cuGetProcAddress")
        );
    }

    #[test]
    fn the_per_thread_flag_selects_ptds_and_ptsz() {
        assert_eq!(
            resolve("cuMemcpyHtoD", 12000, 2),
            Ok("cuMemcpyHtoD_v2_ptds")
        );
        assert_eq!(resolve("cuMemcpyHtoD", 12000, 1), Ok("cuMemcpyHtoD_v2"));
        assert_eq!(resolve("cuStreamQuery", 12000, 2), Ok("cuStreamQuery_ptsz"));
        assert_eq!(
            resolve("cuLaunchKernel", 12000, 2),
            Ok("cuLaunchKernel_ptsz")
        );
        // Before CUDA 7.0 there was no per-thread default stream.
        assert_eq!(resolve("cuStreamQuery", 6050, 2), Ok("cuStreamQuery"));
        // Names without a stream have no variant.
        assert_eq!(resolve("cuMemAlloc", 12000, 2), Ok("cuMemAlloc_v2"));
    }

    #[test]
    fn unknown_names_and_old_versions_are_told_apart() {
        assert_eq!(resolve("cuNoSuchThing", 12000, 0), Err(Miss::NotFound));
        assert_eq!(
            resolve("cuLaunchKernelEx", 11000, 0),
            Err(Miss::VersionNotSufficient)
        );
    }
}
