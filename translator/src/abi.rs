//! The kernel ABI: what the runtime must provide to launch a translated kernel.
//!
//! - Push constants (64 bytes): the parameter block's device address at 0 (u64), the first block
//!   of this dispatch at 8 (3 x u32, for grids split over several dispatches), the whole grid's
//!   size in blocks at 20 (3 x u32), the module's globals buffer address at 32 (u64), the
//!   launch's status word's address at 40 (u64; 16 bytes later, 32 bytes of scratch), and with
//!   memory checking the table of live allocations at 48 (u64 address, u32 length at 56).
//! - The status area holds, at `STATUS_SPILL_BASE`, the address of the buffer that kernels with
//!   their shared arena in device memory use.
//! - Kernel parameters live in a device buffer laid out as CUDA lays out `kernelParams`: in order,
//!   each at the next multiple of its alignment.
//! - Specialization constants: block size x/y/z (ids 0-2) and dynamic shared memory bytes (id 3).

use serde::{Deserialize, Serialize};

use crate::types::{ScalarType, StateSpace};

pub const PUSH_PARAM_BASE: u32 = 0;
pub const PUSH_CTA_BASE: u32 = 8;
pub const PUSH_GRID_DIM: u32 = 20;
pub const PUSH_GLOBALS_BASE: u32 = 32;
/// Address of the launch's status word (`u32`, zero before the launch; see
/// `KernelAbi::status_codes`).
pub const PUSH_STATUS_ADDRESS: u32 = 40;
/// With memory checking: the address (u64) and length (u32) of the launch's table of live
/// allocations, `[start, end)` pairs of u64 sorted by start, padded to a power of two.
pub const PUSH_MEM_TABLE: u32 = 48;
pub const PUSH_MEM_COUNT: u32 = 56;
/// With memory checking: `MEM_HINTS` ranges `[start, end)` (u64 pairs) that every access tries
/// before searching the table: the allocations the launch's parameters point into (empty
/// ranges `[u64::MAX, u64::MAX)` where unused). In push constants, so that the test is a few
/// comparisons of uniform values, without memory loads.
pub const PUSH_MEM_HINTS: u32 = 64;
pub const MEM_HINTS: u32 = 4;
/// Within the 128 bytes every Vulkan device offers.
pub const PUSH_CONSTANT_SIZE: u32 = PUSH_MEM_HINTS + 16 * MEM_HINTS;

/// Byte offset, in the launch's status area, of the address (u64) of the buffer a kernel with
/// its shared arena in device memory ([`KernelAbi::shared_spilled`]) uses.
pub const STATUS_SPILL_BASE: u64 = 8;
/// The most shared memory (static and dynamic) a block may use where the arena can be in device
/// memory: CUDA's opt-in limit on compute capability 9.0 (227 KiB).
pub const MAX_SHARED_BYTES: u32 = 227 * 1024;
/// What CUDA gives a block without opting in (48 KiB).
pub const DEFAULT_SHARED_BYTES: u32 = 48 * 1024;

pub const SPEC_BLOCK_X: u32 = 0;
pub const SPEC_BLOCK_Y: u32 = 1;
pub const SPEC_BLOCK_Z: u32 = 2;
pub const SPEC_DYNAMIC_SHARED_BYTES: u32 = 3;
/// With memory checking: `SPEC_MEM_PROVEN + k` (a bool) is true when the launch proved the
/// range of `KernelAbi::mem_facts`' fact `k` in bounds, and the site skips its check.
pub const SPEC_MEM_PROVEN: u32 = 16;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelAbi {
    pub name: String,
    pub params: Vec<ParamAbi>,
    /// Size of the parameter block in bytes.
    pub param_block_size: u32,
    pub push_constant_size: u32,
    /// Shared memory the kernel declares statically, in bytes.
    pub static_shared_bytes: u32,
    /// The kernel declares `extern .shared` memory, sized by each launch.
    pub dynamic_shared: bool,
    /// The shared arena is in device memory: the launch provides one slice of
    /// [`KernelAbi::arena_bytes`] per workgroup of each dispatch, at the address it writes at
    /// [`STATUS_SPILL_BASE`] of the status area.
    #[serde(default)]
    pub shared_spilled: bool,
    /// The translation serves some lane reads inside one device subgroup
    /// ([`crate::DeviceProfile::lane_shaped_blocks`]): it is right only for blocks that are
    /// one-dimensional or whose x size is a multiple of 32 ([`KernelAbi::lane_shaped`]).
    #[serde(default)]
    pub lane_shaped_blocks: bool,
    /// Shared memory the warp emulation uses per thread of the block (bytes), on top of the rest.
    pub warp_scratch_bytes_per_thread: u32,
    /// Shared memory ptxvk adds after everything else, whatever the block size (lock and
    /// barrier words).
    #[serde(default)]
    pub shared_tail_bytes: u32,
    /// The pipeline must run with this subgroup size (native warps).
    pub required_subgroup_size: Option<u32>,
    /// `.reqntid`: the block size the kernel requires.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid`: the largest block size the kernel allows.
    pub maxntid: Option<[u32; 3]>,
    /// What a non-zero status word after a launch means: `status_codes[status - 1]` (the first
    /// thread to fail writes it; the others leave it).
    pub status_codes: Vec<String>,
    /// The textures the kernel reads: slots (with their records after the parameters) and
    /// descriptor bindings (`crate::texture`).
    #[serde(default)]
    pub textures: crate::texture::TextureAbi,
    /// With memory checking: the ranges of accesses a launch may prove in bounds.
    #[serde(default)]
    pub mem_facts: crate::memfacts::MemFacts,
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamAbi {
    pub name: String,
    pub ty: ScalarType,
    /// Number of elements for arrays (`.param .b8 p[16]`), 1 for scalars.
    pub count: u64,
    /// `.v2`/`.v4` parameters.
    pub vector: u32,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    /// `.ptr .global` and friends: what the parameter points to, when declared.
    pub ptr_space: Option<StateSpace>,
}

impl ParamAbi {
    /// A plain scalar (as opposed to a byte array holding a struct).
    pub fn is_scalar(&self) -> bool {
        self.count == 1 && self.vector == 1
    }
}

/// Generic addresses (ISA 6.4.1.1) of the shared and local windows carry a tag in their top byte;
/// every other generic address is a device address (global, const or parameter data). No device
/// gives buffers addresses with these top bytes (they are kernel-space or non-canonical on every
/// CPU and GPU we know).
pub const SHARED_WINDOW: u64 = 0xFE00_0000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0xFD00_0000_0000_0000;
pub const WINDOW_MASK: u64 = 0xFF00_0000_0000_0000;

/// The module's `.global` and `.const` variables, in one device buffer per loaded module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobalsLayout {
    pub size: u64,
    /// Where the module's device-services slot is ([`SERVICES_BYTES`] at this offset), when
    /// it declares `vprintf`, `malloc` or `free`: the runtime writes its FIFO's and heap's
    /// addresses there before the module's first launch.
    #[serde(default)]
    pub services: Option<u64>,
    pub vars: Vec<GlobalVarAbi>,
    /// Initial contents (initializers; zeros elsewhere), `size` bytes.
    pub init: Vec<u8>,
    /// Places in `init` that hold addresses, to be fixed up once the buffer's address is known.
    pub relocations: Vec<Relocation>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlobalVarAbi {
    pub name: String,
    pub space: StateSpace,
    pub offset: u64,
    pub size: u64,
    pub align: u32,
}

/// At byte `at` of the globals buffer, store (as `width` bytes) the address of the globals buffer
/// plus `target`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Relocation {
    pub at: u64,
    pub width: u32,
    pub target: u64,
}

impl KernelAbi {
    /// Bytes of shared memory a launch of `threads` threads per block with `dynamic` bytes of
    /// dynamic shared memory uses in all (what the device's limit applies to).
    pub fn shared_bytes(&self, threads: u64, dynamic: u32) -> u64 {
        u64::from(self.static_shared_bytes)
            + u64::from(dynamic).next_multiple_of(4)
            + threads * u64::from(self.warp_scratch_bytes_per_thread)
            + u64::from(self.shared_tail_bytes)
    }

    /// The bytes of the arena the kernel lays out for such a launch: [`KernelAbi::shared_bytes`]
    /// with the static part rounded up to words, as the arena holds it. A spilled kernel's
    /// workgroups each take this much of the buffer.
    pub fn arena_bytes(&self, threads: u64, dynamic: u32) -> u64 {
        let rounding = self.static_shared_bytes.next_multiple_of(4) - self.static_shared_bytes;
        self.shared_bytes(threads, dynamic) + u64::from(rounding)
    }

    /// Whether a launch with blocks of `block` threads may run this translation: always, unless
    /// it relied on lanes being `%tid.x % 32` ([`KernelAbi::lane_shaped_blocks`]), which holds
    /// for one-dimensional blocks and blocks whose x size is a multiple of 32.
    pub fn lane_shaped(&self, block: [u32; 3]) -> bool {
        !self.lane_shaped_blocks || (block[1] == 1 && block[2] == 1) || block[0] % 32 == 0
    }
}

/// Longest SPIR-V entry-point name Vulkan takes (the validation layer reads `pName` as a string
/// of at most 256 bytes with its NUL).
pub const MAX_ENTRY_POINT_NAME: usize = 255;

/// The SPIR-V entry point of kernel `name`: the name itself when Vulkan takes it, else its first
/// bytes and a hash of the whole (each SPIR-V module holds one kernel, so only the runtime and
/// the emitter need to agree). Users and errors see the PTX name.
pub fn entry_point_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.len() <= MAX_ENTRY_POINT_NAME {
        return name.into();
    }
    // FNV-1a: stable across builds and platforms, as the pipeline cache needs.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut keep = MAX_ENTRY_POINT_NAME - 17;
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}_{hash:016x}", &name[..keep]).into()
}

/// Functions CUDA's device runtime provides, which PTX declares `.extern .func` and calls
/// (`docs/decisions/0179-device-printf-and-heap.md`). Recognised by name and signature:
/// `(.param .b32 r) vprintf(.param .b64 fmt, .param .b64 args)`,
/// `(.param .b64 r) malloc(.param .b64 size)`, `free(.param .b64 ptr)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceCall {
    Vprintf,
    Malloc,
    Free,
}

impl DeviceCall {
    /// The call a declaration named `name` with `params` parameters and `returns` return values
    /// stands for, if any.
    pub fn of(name: &str, params: usize, returns: usize) -> Option<DeviceCall> {
        match (name, params, returns) {
            ("vprintf", 2, 1) => Some(DeviceCall::Vprintf),
            ("malloc", 1, 1) => Some(DeviceCall::Malloc),
            ("free", 1, 0) => Some(DeviceCall::Free),
            _ => None,
        }
    }

    /// Whether `name` is one of these functions' names, whatever its signature: no module
    /// defines them, so the linker lets declarations of them stand.
    pub fn is_name(name: &str) -> bool {
        matches!(name, "vprintf" | "malloc" | "free")
    }
}

/// What a kernel calling [`DeviceCall`]s needs from its launches: the module's services slot
/// written ([`GlobalsLayout::services`]) and, for formatting printf records on the host, the
/// module's byte-string constants the kernel can reach (formats and `%s` literals), as
/// (offset in the globals buffer, initial bytes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelServices {
    pub strings: Vec<(u64, Vec<u8>)>,
}

/// The device-services slot in the globals buffer: the printf FIFO's address (u64) at
/// [`SERVICES_FIFO`], the heap's (u64) at [`SERVICES_HEAP`].
pub const SERVICES_BYTES: u64 = 16;
pub const SERVICES_FIFO: u64 = 0;
pub const SERVICES_HEAP: u64 = 8;

/// The printf FIFO: a header of [`FIFO_HEADER`] bytes, the cursor (u32, bytes of records
/// claimed, advanced atomically; it may pass the capacity, and the records that would end past
/// it are dropped) at 0 and the records' capacity in bytes (u32, set by the runtime) at 4;
/// then the records. A record is its length in bytes (u32, a multiple of 8) at 0, the argument
/// bytes it holds (u32) at 4, the format string's device address (u64) at 8, and the
/// argument buffer's bytes from [`FIFO_RECORD_HEADER`].
pub const FIFO_HEADER: u64 = 16;
pub const FIFO_CURSOR: u64 = 0;
pub const FIFO_CAPACITY: u64 = 4;
pub const FIFO_RECORD_HEADER: u64 = 16;
/// Most argument bytes one `printf` passes (CUDA takes at most 32 arguments of 8 bytes).
pub const PRINTF_MAX_ARG_BYTES: u32 = 256;

/// The device heap: a header of [`HEAP_HEADER`] bytes, the cursor (u32, granules handed out)
/// at 0, the capacity in granules (u32, set by the runtime) at 4, and from [`HEAP_HEADS`] a
/// free list per size class (u64 each: a version in the high half, the first free block's
/// granule index plus one in the low half, 0 when empty); then the granules, of
/// [`HEAP_GRANULE`] bytes each (CUDA's `malloc` alignment). Where the device has 64-bit
/// atomics, a block is a granule of header (its size class, u32 at 0; the next free block's
/// index plus one, u32 at 4, while it is free) and `2^class` granules of data; blocks of
/// [`HEAP_CLASSES`] or more are never reused. Elsewhere `malloc` only takes granules from the
/// cursor, headerless, and `free` returns nothing.
pub const HEAP_HEADER: u64 = 192;
pub const HEAP_CURSOR: u64 = 0;
pub const HEAP_CAPACITY: u64 = 4;
pub const HEAP_HEADS: u64 = 16;
pub const HEAP_CLASSES: u32 = 20;
pub const HEAP_GRANULE: u64 = 16;
pub const HEAP_MAX_GRANULES: u64 = 1 << 28;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_kernel_names_get_short_distinct_entry_points() {
        assert_eq!(entry_point_name("saxpy"), "saxpy");
        let a = format!("{}a", "x".repeat(400));
        let b = format!("{}b", "x".repeat(400));
        let (ea, eb) = (entry_point_name(&a), entry_point_name(&b));
        assert!(ea.len() <= MAX_ENTRY_POINT_NAME && eb.len() <= MAX_ENTRY_POINT_NAME);
        assert_ne!(ea, eb);
        assert!(ea.starts_with("xxxx"));
        let at_limit = "y".repeat(MAX_ENTRY_POINT_NAME);
        assert_eq!(entry_point_name(&at_limit), at_limit);
    }
}
