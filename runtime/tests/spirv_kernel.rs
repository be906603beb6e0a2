//! Compute shaders given as SPIR-V (`Context::load_spirv`, `Stream::dispatch_spirv`): the
//! benchmark's GLSL twin of saxpy, compiled by glslang, runs beside translated kernels, and
//! misuse is refused with `InvalidArgument`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Buffer, Error};

fn saxpy_twin() -> Vec<u32> {
    let dir = common::temp_dir("spirv-kernel");
    let out = dir.join("saxpy.spv");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/bench/saxpy.comp");
    let o = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&out)
        .arg(src)
        .output()
        .expect("glslangValidator (cargo xtask test installs glslang-tools)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let bytes = std::fs::read(&out).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    ptxvk_runtime::translator::validate(&words).unwrap();
    words
}

#[test]
fn a_glsl_shader_runs_on_a_stream_and_misuse_is_refused() {
    let ctx = common::context();
    let k = ctx.load_spirv(&saxpy_twin(), "main", 24).unwrap();
    let n = 1000u32;
    let x = Buffer::new(&ctx, 4 * u64::from(n)).unwrap();
    let y = Buffer::new(&ctx, 4 * u64::from(n)).unwrap();
    let xs: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    x.write_bytes(0, &xs).unwrap();
    y.write_bytes(0, &vec![0u8; 4 * n as usize]).unwrap();
    // The twin's push constants: x, y, n, a (std430, 24 bytes).
    let mut push = Vec::new();
    push.extend_from_slice(&x.address().to_le_bytes());
    push.extend_from_slice(&y.address().to_le_bytes());
    push.extend_from_slice(&n.to_le_bytes());
    push.extend_from_slice(&3.0f32.to_le_bytes());
    let s = ctx.new_stream().unwrap();
    s.dispatch_spirv(&k, [4, 1, 1], &push).unwrap();
    s.synchronize().unwrap();
    let mut out = vec![0u8; 4 * n as usize];
    y.read_bytes(0, &mut out).unwrap();
    for (i, c) in out.chunks_exact(4).enumerate() {
        assert_eq!(f32::from_le_bytes([c[0], c[1], c[2], c[3]]), 3.0 * i as f32);
    }

    let bad = |r: Result<(), Error>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(bad(s.dispatch_spirv(&k, [4, 1, 1], &push[..16])));
    assert!(bad(s.dispatch_spirv(&k, [0, 1, 1], &push)));
    assert!(bad(s.dispatch_spirv(&k, [u32::MAX, 1, 1], &push)));
    assert!(matches!(
        ctx.load_spirv(&saxpy_twin(), "main", 6),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ctx.load_spirv(&saxpy_twin(), "main", 1 << 20),
        Err(Error::InvalidArgument(_))
    ));
}
