//! Typed kernel arguments (`KernelArg`, with the buffers and textures they hold) and their
//! packing into a kernel's parameter block.

use std::sync::Arc;

use bytemuck::Pod;
use ptxvk_translator::texture::TextureSource;
use ptxvk_translator::{ParamAbi, ScalarType};

use crate::error::{Error, Result};
use crate::memory::raw::RawBuffer;
use crate::memory::{Buffer, DeviceBuffer, DeviceSlice};
use crate::module::Kernel;

/// One kernel argument, checked against the kernel's PTX signature at launch.
///
/// Scalars convert with `.into()`; so do buffers and slices (`(&buf).into()`), which pass
/// their device address and keep the buffer alive until the launch has completed.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// For `.u8`/`.s8`/`.b8` parameters.
    U8(u8),
    /// For 16-bit integer parameters.
    U16(u16),
    /// For 32-bit integer parameters.
    U32(u32),
    /// For 64-bit integer parameters.
    U64(u64),
    /// For 8-bit integer parameters.
    I8(i8),
    /// For 16-bit integer parameters.
    I16(i16),
    /// For 32-bit integer parameters.
    I32(i32),
    /// For 64-bit integer parameters.
    I64(i64),
    /// For `.f16`/`.b16` parameters.
    F16(half::f16),
    /// For `.f32`/`.b32` parameters.
    F32(f32),
    /// For `.f64`/`.b64` parameters.
    F64(f64),
    /// A raw device address: the caller keeps the memory alive until the launch completes.
    Ptr(u64),
    /// A buffer (or part of one), passed by address and kept alive by the launch.
    Buffer(BufferRef),
    /// Raw bytes for aggregate (`.b8 p[N]`) parameters.
    Bytes(Vec<u8>),
    /// A texture object for a `.u64` (or `.param .texref`) parameter: its handle, with the
    /// texture kept alive by the launch.
    Texture(TextureRef),
}

/// A texture passed as a kernel argument (see [`KernelArg::Texture`]).
#[derive(Clone)]
pub struct TextureRef(crate::Texture);

impl TextureRef {
    /// The handle the kernel receives.
    pub fn handle(&self) -> u64 {
        self.0.handle()
    }

    /// The texture, if it belongs to `ctx`.
    pub(crate) fn texture(&self, ctx: &crate::Context) -> Result<crate::Texture> {
        if Arc::ptr_eq(self.0.context().vk(), ctx.vk()) {
            Ok(self.0.clone())
        } else {
            Err(Error::InvalidArgument(
                "a texture of another context was passed to a kernel".into(),
            ))
        }
    }
}

impl std::fmt::Debug for TextureRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TextureRef({})", self.handle())
    }
}

impl PartialEq for TextureRef {
    fn eq(&self, other: &Self) -> bool {
        self.handle() == other.handle()
    }
}

impl From<&crate::Texture> for KernelArg {
    fn from(t: &crate::Texture) -> Self {
        KernelArg::Texture(TextureRef(t.clone()))
    }
}

/// A device address inside a buffer, holding the buffer (see [`KernelArg::Buffer`]).
#[derive(Clone)]
pub struct BufferRef {
    pub(super) raw: Arc<RawBuffer>,
    offset: u64,
}

impl BufferRef {
    /// The device address passed to the kernel.
    pub fn address(&self) -> u64 {
        self.raw.address() + self.offset
    }
}

impl std::fmt::Debug for BufferRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BufferRef(0x{:x})", self.address())
    }
}

impl PartialEq for BufferRef {
    fn eq(&self, other: &Self) -> bool {
        self.address() == other.address()
    }
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for KernelArg {
            fn from(x: $t) -> Self {
                KernelArg::$v(x)
            }
        }
    )*};
}
arg_from!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32,
    i64 => I64, half::f16 => F16, f32 => F32, f64 => F64);

impl<T: Pod> From<&DeviceBuffer<T>> for KernelArg {
    fn from(b: &DeviceBuffer<T>) -> Self {
        b.raw().into()
    }
}

impl<T: Pod> From<&DeviceSlice<'_, T>> for KernelArg {
    fn from(s: &DeviceSlice<'_, T>) -> Self {
        KernelArg::Buffer(BufferRef {
            raw: s.raw().clone(),
            offset: s.byte_offset(),
        })
    }
}

impl<T: Pod> From<DeviceSlice<'_, T>> for KernelArg {
    fn from(s: DeviceSlice<'_, T>) -> Self {
        (&s).into()
    }
}

impl From<&Buffer> for KernelArg {
    fn from(b: &Buffer) -> Self {
        KernelArg::Buffer(BufferRef {
            raw: b.raw.clone(),
            offset: 0,
        })
    }
}

impl KernelArg {
    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            KernelArg::U8(v) => format!("u8 {v}"),
            KernelArg::U16(v) => format!("u16 {v}"),
            KernelArg::U32(v) => format!("u32 {v}"),
            KernelArg::U64(v) => format!("u64 {v}"),
            KernelArg::I8(v) => format!("s8 {v}"),
            KernelArg::I16(v) => format!("s16 {v}"),
            KernelArg::I32(v) => format!("s32 {v}"),
            KernelArg::I64(v) => format!("s64 {v}"),
            KernelArg::F16(v) => format!("f16 {v}"),
            KernelArg::F32(v) => format!("f32 {v}"),
            KernelArg::F64(v) => format!("f64 {v}"),
            KernelArg::Ptr(a) => format!("a pointer (0x{a:x})"),
            KernelArg::Buffer(b) => format!("a pointer (0x{:x})", b.address()),
            KernelArg::Bytes(b) => format!("{} bytes", b.len()),
            KernelArg::Texture(t) => format!("texture {}", t.handle()),
        }
    }

    /// The bytes to store for parameter `p`, or `None` if the types do not agree. Integers of the
    /// parameter's size agree with `.b`, `.u` and `.s` parameters, floats with `.f` and `.b` of
    /// their size (ISA Table 26), pointers with 64-bit integer parameters.
    pub fn bytes_for(&self, p: &ParamAbi) -> Option<Vec<u8>> {
        use ScalarType::*;
        if let KernelArg::Bytes(b) = self {
            return (b.len() as u32 == p.size).then(|| b.clone());
        }
        if !p.is_scalar() {
            return None;
        }
        let t = p.ty;
        let int_ok = |bits: u32| {
            t.bits() == bits
                && matches!(
                    t.kind(),
                    crate::TypeKind::Bits | crate::TypeKind::Signed | crate::TypeKind::Unsigned
                )
        };
        let float_ok =
            |ft: ScalarType| t == ft || t == ScalarType::bits_of(ft.bits()).unwrap_or(Pred);
        match self {
            KernelArg::U8(v) if int_ok(8) => Some(vec![*v]),
            KernelArg::I8(v) if int_ok(8) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U16(v) if int_ok(16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::I16(v) if int_ok(16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U32(v) if int_ok(32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::I32(v) if int_ok(32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::U64(v) | KernelArg::Ptr(v) if int_ok(64) => Some(v.to_le_bytes().to_vec()),
            KernelArg::Buffer(b) if int_ok(64) => Some(b.address().to_le_bytes().to_vec()),
            KernelArg::I64(v) if int_ok(64) => Some(v.to_le_bytes().to_vec()),
            KernelArg::Texture(t) if int_ok(64) => Some(t.handle().to_le_bytes().to_vec()),
            KernelArg::F16(v) if float_ok(F16) => Some(v.to_le_bytes().to_vec()),
            KernelArg::F32(v) if float_ok(F32) => Some(v.to_le_bytes().to_vec()),
            KernelArg::F64(v) if float_ok(F64) => Some(v.to_le_bytes().to_vec()),
            _ => None,
        }
    }
}

/// Describes a parameter's type for messages: `.u64`, `.align 8 .b8[16]`.
pub fn describe_param(p: &ParamAbi) -> String {
    if p.is_scalar() {
        p.ty.to_string()
    } else if p.vector > 1 {
        format!(".v{} {}", p.vector, p.ty)
    } else {
        format!("{}[{}] ({} bytes)", p.ty, p.count, p.size)
    }
}

impl Kernel {
    /// Whether a parameter holds a texture object the kernel samples (which
    /// [`Stream::launch_packed`](crate::Stream::launch_packed) cannot launch).
    pub fn reads_texture_params(&self) -> bool {
        self.abi()
            .textures
            .slots
            .iter()
            .any(|s| matches!(s.source, TextureSource::Param { .. }))
    }

    /// Packs `args` into the parameter block, checking them against the kernel's signature.
    #[inline]
    pub fn pack_args(&self, args: &[KernelArg]) -> Result<Vec<u8>> {
        let abi = self.abi();
        if args.len() != abi.params.len() {
            return Err(Error::ArgCount {
                kernel: abi.name.clone(),
                expected: abi.params.len(),
                got: args.len(),
            });
        }
        let mut block = vec![0u8; abi.param_block_size as usize];
        for (i, (a, p)) in args.iter().zip(&abi.params).enumerate() {
            let Some(bytes) = a.bytes_for(p) else {
                return Err(Error::ArgType {
                    kernel: abi.name.clone(),
                    index: i,
                    param: p.name.clone(),
                    expected: describe_param(p),
                    got: a.describe(),
                });
            };
            let at = p.offset as usize;
            match block.get_mut(at..at + bytes.len()) {
                Some(dst) => dst.copy_from_slice(&bytes),
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "parameter `{}` lies outside the parameter block",
                        p.name
                    )));
                }
            }
        }
        Ok(block)
    }
}
