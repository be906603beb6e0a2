//! `struct cudaDeviceProp` of CUDA 13 (`cudaGetDeviceProperties`) and of CUDA 12
//! (`cudaGetDeviceProperties_v2`, the name CUDA 12's header gives that call), written field by
//! field at the offsets C gives the declarations below (driver_types.h of each version).
//! Most fields are a device attribute whose number is the field's `cudaDeviceAttr`.

use crate::driver::Driver;
use crate::error::Result;

#[derive(Clone, Copy)]
enum Field {
    /// `char[n]`; the name, the UUID (16 bytes) and the LUID are written specially.
    Bytes(&'static str, usize),
    /// `int` or `unsigned int` from the attributes listed (several: an `int[n]`); 0 means
    /// the field holds 0.
    Ints(&'static str, &'static [i32]),
    /// `size_t` from one attribute; 0: written specially (total memory) or 0.
    Size(&'static str, i32),
}

use Field::{Bytes, Ints, Size};

/// The declaration of CUDA 13, with the fields CUDA 12 had and 13 removed marked by
/// `only12` below.
const FIELDS: &[Field] = &[
    Bytes("name", 256),
    Bytes("uuid", 16),
    Bytes("luid", 8),
    Ints("luidDeviceNodeMask", &[0]),
    Size("totalGlobalMem", 0),
    Size("sharedMemPerBlock", 8),
    Ints("regsPerBlock", &[12]),
    Ints("warpSize", &[10]),
    Size("memPitch", 11),
    Ints("maxThreadsPerBlock", &[1]),
    Ints("maxThreadsDim", &[2, 3, 4]),
    Ints("maxGridSize", &[5, 6, 7]),
    Ints("clockRate", &[13]),
    Size("totalConstMem", 9),
    Ints("major", &[75]),
    Ints("minor", &[76]),
    Size("textureAlignment", 14),
    Size("texturePitchAlignment", 51),
    Ints("deviceOverlap", &[15]),
    Ints("multiProcessorCount", &[16]),
    Ints("kernelExecTimeoutEnabled", &[17]),
    Ints("integrated", &[18]),
    Ints("canMapHostMemory", &[19]),
    Ints("computeMode", &[20]),
    Ints("maxTexture1D", &[21]),
    Ints("maxTexture1DMipmap", &[77]),
    Ints("maxTexture1DLinear", &[69]),
    Ints("maxTexture2D", &[22, 23]),
    Ints("maxTexture2DMipmap", &[73, 74]),
    Ints("maxTexture2DLinear", &[70, 71, 72]),
    Ints("maxTexture2DGather", &[45, 46]),
    Ints("maxTexture3D", &[24, 25, 26]),
    Ints("maxTexture3DAlt", &[47, 48, 49]),
    Ints("maxTextureCubemap", &[52]),
    Ints("maxTexture1DLayered", &[42, 43]),
    Ints("maxTexture2DLayered", &[27, 28, 29]),
    Ints("maxTextureCubemapLayered", &[53, 54]),
    Ints("maxSurface1D", &[55]),
    Ints("maxSurface2D", &[56, 57]),
    Ints("maxSurface3D", &[58, 59, 60]),
    Ints("maxSurface1DLayered", &[61, 62]),
    Ints("maxSurface2DLayered", &[63, 64, 65]),
    Ints("maxSurfaceCubemap", &[66]),
    Ints("maxSurfaceCubemapLayered", &[67, 68]),
    Size("surfaceAlignment", 30),
    Ints("concurrentKernels", &[31]),
    Ints("ECCEnabled", &[32]),
    Ints("pciBusID", &[33]),
    Ints("pciDeviceID", &[34]),
    Ints("pciDomainID", &[50]),
    Ints("tccDriver", &[35]),
    Ints("asyncEngineCount", &[40]),
    Ints("unifiedAddressing", &[41]),
    Ints("memoryClockRate", &[36]),
    Ints("memoryBusWidth", &[37]),
    Ints("l2CacheSize", &[38]),
    Ints("persistingL2CacheMaxSize", &[108]),
    Ints("maxThreadsPerMultiProcessor", &[39]),
    Ints("streamPrioritiesSupported", &[78]),
    Ints("globalL1CacheSupported", &[79]),
    Ints("localL1CacheSupported", &[80]),
    Size("sharedMemPerMultiprocessor", 81),
    Ints("regsPerMultiprocessor", &[82]),
    Ints("managedMemory", &[83]),
    Ints("isMultiGpuBoard", &[84]),
    Ints("multiGpuBoardGroupID", &[85]),
    Ints("hostNativeAtomicSupported", &[86]),
    Ints("singleToDoublePrecisionPerfRatio", &[87]),
    Ints("pageableMemoryAccess", &[88]),
    Ints("concurrentManagedAccess", &[89]),
    Ints("computePreemptionSupported", &[90]),
    Ints("canUseHostPointerForRegisteredMem", &[91]),
    Ints("cooperativeLaunch", &[95]),
    Ints("cooperativeMultiDeviceLaunch", &[96]),
    Size("sharedMemPerBlockOptin", 97),
    Ints("pageableMemoryAccessUsesHostPageTables", &[100]),
    Ints("directManagedMemAccessFromHost", &[101]),
    Ints("maxBlocksPerMultiProcessor", &[106]),
    Ints("accessPolicyMaxWindowSize", &[109]),
    Size("reservedSharedMemPerBlock", 111),
    Ints("hostRegisterSupported", &[99]),
    Ints("sparseCudaArraySupported", &[112]),
    Ints("hostRegisterReadOnlySupported", &[113]),
    Ints("timelineSemaphoreInteropSupported", &[114]),
    Ints("memoryPoolsSupported", &[115]),
    Ints("gpuDirectRDMASupported", &[116]),
    Ints("gpuDirectRDMAFlushWritesOptions", &[117]),
    Ints("gpuDirectRDMAWritesOrdering", &[118]),
    Ints("memoryPoolSupportedHandleTypes", &[119]),
    Ints("deferredMappingCudaArraySupported", &[121]),
    Ints("ipcEventSupported", &[125]),
    Ints("clusterLaunch", &[120]),
    Ints("unifiedFunctionPointers", &[0]),
    Ints("deviceNumaConfig", &[130]),
    Ints("deviceNumaId", &[131]),
    Ints("mpsEnabled", &[133]),
    Ints("hostNumaId", &[134]),
    Ints("gpuPciDeviceID", &[139]),
    Ints("gpuPciSubsystemID", &[140]),
    Ints("hostNumaMultinodeIpcSupported", &[143]),
];

/// Fields of CUDA 12's struct that CUDA 13 removed.
const ONLY12: &[&str] = &[
    "clockRate",
    "deviceOverlap",
    "kernelExecTimeoutEnabled",
    "computeMode",
    "maxTexture1DLinear",
    "memoryClockRate",
    "singleToDoublePrecisionPerfRatio",
    "cooperativeMultiDeviceLaunch",
];

/// Fields CUDA 13 added after CUDA 12's last (`unifiedFunctionPointers`).
const ONLY13: &[&str] = &[
    "deviceNumaConfig",
    "deviceNumaId",
    "mpsEnabled",
    "hostNumaId",
    "gpuPciDeviceID",
    "gpuPciSubsystemID",
    "hostNumaMultinodeIpcSupported",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Version {
    Cuda12,
    Cuda13,
}

impl Version {
    fn has(self, name: &str) -> bool {
        match self {
            Version::Cuda12 => !ONLY13.contains(&name),
            Version::Cuda13 => !ONLY12.contains(&name),
        }
    }

    /// `int reserved[n]` ends each struct.
    fn reserved(self) -> usize {
        match self {
            Version::Cuda12 => 63,
            Version::Cuda13 => 56,
        }
    }
}

/// (offset, field) of each field of `version`'s struct, and the struct's size, by C's rules
/// (every field aligned to its size; `char` arrays to 1; the struct to its widest, 8).
fn layout(version: Version) -> (Vec<(usize, Field)>, usize) {
    let mut at = 0usize;
    let mut out = Vec::new();
    for &f in FIELDS {
        let (name, size, align) = match f {
            Bytes(n, len) => (n, len, 1),
            Ints(n, attrs) => (n, 4 * attrs.len(), 4),
            Size(n, _) => (n, 8, 8),
        };
        if !version.has(name) {
            continue;
        }
        at = at.next_multiple_of(align);
        out.push((at, f));
        at += size;
    }
    at = at.next_multiple_of(4) + 4 * version.reserved();
    (out, at.next_multiple_of(8))
}

/// Writes the struct of `version` for device `dev` into `out`, which holds its size in bytes.
pub fn fill(d: &Driver, dev: i32, version: Version, out: &mut [u8]) -> Result<()> {
    let (fields, size) = layout(version);
    let out = out
        .get_mut(..size)
        .ok_or(crate::error::Error(crate::error::UNKNOWN))?;
    out.fill(0);
    let attr = |a: i32| -> Result<i32> {
        if a == 0 {
            return Ok(0);
        }
        let mut v = 0;
        // SAFETY: an out-pointer to a local.
        let r = unsafe { (d.cuDeviceGetAttribute)(&mut v, a, dev) };
        // An attribute the driver does not know reads as 0, as a newer field does on an
        // older driver.
        Ok(if r == 0 { v } else { 0 })
    };
    for (at, f) in fields {
        match f {
            Bytes("name", len) => {
                let buf = &mut out[at..at + len];
                // SAFETY: the buffer holds `len` bytes.
                crate::driver::check(unsafe {
                    (d.cuDeviceGetName)(buf.as_mut_ptr().cast(), len as i32 - 1, dev)
                })?;
            }
            Bytes("uuid", _) => {
                // SAFETY: the field holds the 16 bytes written.
                unsafe { (d.cuDeviceGetUuid)(out[at..at + 16].as_mut_ptr(), dev) };
            }
            Bytes(..) => {}
            Ints(_, attrs) => {
                for (i, &a) in attrs.iter().enumerate() {
                    let p = at + 4 * i;
                    out[p..p + 4].copy_from_slice(&attr(a)?.to_ne_bytes());
                }
            }
            Size("totalGlobalMem", _) => {
                let mut total = 0usize;
                // SAFETY: an out-pointer to a local.
                crate::driver::check(unsafe { (d.cuDeviceTotalMem_v2)(&mut total, dev) })?;
                out[at..at + 8].copy_from_slice(&(total as u64).to_ne_bytes());
            }
            Size(_, a) => {
                let v = u64::try_from(attr(a)?).unwrap_or(0);
                out[at..at + 8].copy_from_slice(&v.to_ne_bytes());
            }
        }
    }
    Ok(())
}

/// The struct's size in bytes.
pub fn size(version: Version) -> usize {
    layout(version).1
}
