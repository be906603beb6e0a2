//! The kernel ABI: what the runtime must provide to launch a translated kernel.
//!
//! - Push constants (32 bytes): the parameter block's device address at 0 (u64), the first block
//!   of this dispatch at 8 (3 x u32, for grids split over several dispatches), the whole grid's
//!   size in blocks at 20 (3 x u32).
//! - Kernel parameters live in a device buffer laid out as CUDA lays out `kernelParams`: in order,
//!   each at the next multiple of its alignment.
//! - Specialization constants: block size x/y/z (ids 0-2) and dynamic shared memory bytes (id 3).

use serde::{Deserialize, Serialize};

use crate::types::{ScalarType, StateSpace};

pub const PUSH_PARAM_BASE: u32 = 0;
pub const PUSH_CTA_BASE: u32 = 8;
pub const PUSH_GRID_DIM: u32 = 20;
pub const PUSH_CONSTANT_SIZE: u32 = 32;

pub const SPEC_BLOCK_X: u32 = 0;
pub const SPEC_BLOCK_Y: u32 = 1;
pub const SPEC_BLOCK_Z: u32 = 2;
pub const SPEC_DYNAMIC_SHARED_BYTES: u32 = 3;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelAbi {
    pub name: String,
    pub params: Vec<ParamAbi>,
    /// Size of the parameter block in bytes.
    pub param_block_size: u32,
    pub push_constant_size: u32,
    /// Shared memory the kernel declares statically, in bytes.
    pub static_shared_bytes: u32,
    /// `.reqntid`: the block size the kernel requires.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid`: the largest block size the kernel allows.
    pub maxntid: Option<[u32; 3]>,
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
