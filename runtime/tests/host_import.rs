//! Host memory imported as device memory (`Buffer::import_host`, VK_EXT_external_memory_host):
//! a kernel writes the host's own bytes in place. On lavapipe the extension is there, so the
//! import must work; elsewhere a device without it gives the typed error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::alloc::Layout;

use ptxvk_runtime::{Buffer, DeviceKind, Error, KernelArg, LaunchConfig};

const FILL: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry fill(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p;
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r1, %r2, %r3, %r1;
    ld.param.u32 %r2, [n]; setp.ge.u32 %p, %r1, %r2; @%p ret;
    mad.lo.u32 %r3, %r1, 3, 1;
    ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4; add.u64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r3;
    ret;
}
";

#[test]
fn a_kernel_writes_imported_host_memory_in_place() {
    let ctx = common::context();
    let Some(align) = ctx.info().host_import_alignment else {
        assert_ne!(
            ctx.info().kind,
            DeviceKind::Cpu,
            "lavapipe imports host memory"
        );
        let mut word = 0u32;
        // SAFETY: refused before anything is imported.
        let r = unsafe { Buffer::import_host(&ctx, (&raw mut word).cast(), 4) };
        assert!(
            matches!(r, Err(Error::HostImportUnsupported(_))),
            "{:?}",
            r.err()
        );
        return;
    };
    let bytes = (2 * align).max(8192) as usize;
    let layout = Layout::from_size_align(bytes, align as usize).unwrap();
    // SAFETY: a non-zero size.
    let host = unsafe { std::alloc::alloc_zeroed(layout) };
    assert!(!host.is_null());
    // Not aligned to what the device imports: refused, nothing imported.
    // SAFETY: refused before anything is imported.
    let r = unsafe { Buffer::import_host(&ctx, host.add(4), bytes as u64 - 4) };
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{:?}", r.err());
    // SAFETY: aligned; `host` outlives the buffer, which is dropped before it is freed.
    let buf = unsafe { Buffer::import_host(&ctx, host, bytes as u64) }.unwrap();
    let n = (bytes / 4) as u32;
    let m = ctx.load_ptx("fill.ptx", FILL).unwrap();
    let k = m.kernel("fill").unwrap();
    let cfg = LaunchConfig::new([n.div_ceil(128), 1, 1], [128, 1, 1]);
    k.launch(&cfg, &[KernelArg::U64(buf.address()), KernelArg::U32(n)])
        .unwrap();
    // SAFETY: the kernel is complete; the memory is the host's allocation of `bytes` bytes.
    let words = unsafe { std::slice::from_raw_parts(host.cast::<u32>(), n as usize) };
    for (i, &w) in words.iter().enumerate() {
        assert_eq!(w, 3 * i as u32 + 1, "word {i}");
    }
    // Reads through the buffer see the same bytes.
    let mut out = [0u8; 8];
    buf.read_bytes(40, &mut out).unwrap();
    assert_eq!(out[..4], (3 * 10 + 1u32).to_le_bytes());
    drop(buf);
    // SAFETY: allocated above with this layout; the buffer is gone.
    unsafe { std::alloc::dealloc(host, layout) };
}
