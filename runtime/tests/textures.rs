//! Textures through the runtime: creation, uploads, texture objects as arguments, `.texref`
//! bindings, lifetimes, errors. Expectations come from CUDA's texture-fetch rules (Programming
//! Guide, "Texture Fetching") at points where they are exact; the full matrix of geometries,
//! types and modes with reference models is in the conformance suite (`conformance/src/cases/texture/`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{
    AddressMode, ChannelFormat, ChannelKind, DeviceBuffer, Error, FilterMode, KernelArg,
    LaunchConfig, ReadMode, Texture, TextureDesc, TextureShape,
};

const F32X1: ChannelFormat = ChannelFormat::new(ChannelKind::Float, 32, 1);

/// A kernel sampling a 2D texture object at (x + dx, y + dy) for the thread's (x, y) in a
/// `w`-wide grid and writing all four components.
fn sample_2d(ty: &str, regs: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 tex, .param .u64 out, .param .u32 w, .param .f32 dx, .param .f32 dy)\n{{\n\
         \t.reg .b32 %r<12>;\n\t.reg .f32 %f<12>;\n\t.reg .b64 %rd<6>;\n{regs}\n\
         \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [out];\n\tld.param.u32 %r1, [w];\n\
         \tld.param.f32 %f1, [dx];\n\tld.param.f32 %f2, [dy];\n\
         \tmov.u32 %r2, %tid.x;\n\trem.u32 %r3, %r2, %r1;\n\tdiv.u32 %r4, %r2, %r1;\n\
         \tcvt.rn.f32.u32 %f3, %r3;\n\tcvt.rn.f32.u32 %f4, %r4;\n\
         \tadd.f32 %f3, %f3, %f1;\n\tadd.f32 %f4, %f4, %f2;\n\
         \tmul.wide.u32 %rd3, %r2, 16;\n\tadd.s64 %rd2, %rd2, %rd3;\n\
         {body}\n\
         \tst.global.v4.{ty} [%rd2], {{%r8, %r9, %r10, %r11}};\n\tret;\n}}\n"
    )
}

fn tex_kernel(dtype: &str) -> String {
    sample_2d(
        "b32",
        "",
        &format!("\ttex.2d.v4.{dtype}.f32 {{%r8, %r9, %r10, %r11}}, [%rd1, {{%f3, %f4}}];"),
    )
}

fn run_2d(
    ctx: &ptxvk_runtime::Context,
    ptx: &str,
    tex: &Texture,
    w: u32,
    n: u32,
    d: (f32, f32),
) -> Vec<[u32; 4]> {
    let m = ctx.load_ptx("tex.ptx", ptx).unwrap();
    let k = m.kernel("k").unwrap();
    let out = DeviceBuffer::<[u32; 4]>::zeroed(ctx, n as usize).unwrap();
    k.launch(
        &LaunchConfig::new([1, 1, 1], [n, 1, 1]),
        &[tex.into(), (&out).into(), w.into(), d.0.into(), d.1.into()],
    )
    .unwrap();
    out.to_vec().unwrap()
}

#[test]
fn point_sampling_a_texture_object() {
    let ctx = common::context();
    let desc = TextureDesc::new(
        TextureShape::D2 {
            width: 5,
            height: 3,
        },
        F32X1,
    );
    let tex = Texture::new(&ctx, &desc).unwrap();
    let texels: Vec<f32> = (0..15).map(|i| i as f32 * 1.5 - 4.0).collect();
    tex.copy_from_host(0, &texels).unwrap();
    // Texel centres, and the lower corner of each texel (both select that texel).
    for d in [(0.5, 0.5), (0.0, 0.0), (0.99, 0.25)] {
        let got = run_2d(&ctx, &tex_kernel("f32"), &tex, 5, 15, d);
        for (i, g) in got.iter().enumerate() {
            assert_eq!(f32::from_bits(g[0]), texels[i], "texel {i} at offset {d:?}");
            // One channel: CUDA and Vulkan fill the rest with (0, 0, 1).
            assert_eq!([g[1], g[2], g[3]], [0, 0, 1f32.to_bits()], "texel {i}");
        }
    }
}

#[test]
fn clamp_and_border_addressing_unnormalized() {
    let ctx = common::context();
    let texels: Vec<f32> = (1..=4).map(|i| i as f32).collect();
    for (mode, outside) in [
        (AddressMode::ClampToEdge, None),
        (AddressMode::ClampToBorder, Some(0.0f32)),
    ] {
        let desc = TextureDesc::new(
            TextureShape::D2 {
                width: 2,
                height: 2,
            },
            F32X1,
        )
        .address(mode);
        let tex = Texture::new(&ctx, &desc).unwrap();
        tex.copy_from_host(0, &texels).unwrap();
        // A 2x2 grid of threads shifted by (-2, +3): every sample is outside.
        let got = run_2d(&ctx, &tex_kernel("f32"), &tex, 2, 4, (-2.0 + 0.5, 3.5));
        for (i, g) in got.iter().enumerate() {
            // Clamped: x to column 0, y to row 1.
            let want = outside.unwrap_or(texels[2]);
            assert_eq!(f32::from_bits(g[0]), want, "{mode:?} thread {i}");
        }
    }
}

#[test]
fn linear_filtering_between_texels() {
    let ctx = common::context();
    let desc = TextureDesc::new(
        TextureShape::D2 {
            width: 2,
            height: 2,
        },
        F32X1,
    )
    .filter(FilterMode::Linear);
    let tex = Texture::new(&ctx, &desc).unwrap();
    tex.copy_from_host(0, &[0.0f32, 8.0, 16.0, 24.0]).unwrap();
    // At (1, 1) (between the four texel centres) the result is their average; weights are
    // exact at 1/2 in every implementation (8 fractional bits are enough).
    let got = run_2d(&ctx, &tex_kernel("f32"), &tex, 1, 1, (1.0, 1.0));
    assert_eq!(f32::from_bits(got[0][0]), 12.0);
    // At (1, 0.5): halfway along the top row.
    let got = run_2d(&ctx, &tex_kernel("f32"), &tex, 1, 1, (1.0, 0.5));
    assert_eq!(f32::from_bits(got[0][0]), 4.0);
}

#[test]
fn integer_and_normalized_reads() {
    let ctx = common::context();
    let data: Vec<[u8; 4]> = (0..4u8).map(|i| [i, 100 + i, 200 + i, 255]).collect();
    let u8x4 = ChannelFormat::new(ChannelKind::Unsigned, 8, 4);
    let shape = TextureShape::D2 {
        width: 2,
        height: 2,
    };
    let tex = Texture::new(&ctx, &TextureDesc::new(shape, u8x4)).unwrap();
    tex.copy_from_host(0, &data).unwrap();
    let got = run_2d(&ctx, &tex_kernel("u32"), &tex, 2, 4, (0.5, 0.5));
    for (i, g) in got.iter().enumerate() {
        let want = data[i].map(u32::from);
        assert_eq!(*g, want, "texel {i}");
    }
    // Read as normalized floats: v / 255.
    let norm = Texture::new(
        &ctx,
        &TextureDesc::new(shape, u8x4).read_mode(ReadMode::NormalizedFloat),
    )
    .unwrap();
    norm.copy_from_host(0, &data).unwrap();
    let got = run_2d(&ctx, &tex_kernel("f32"), &norm, 2, 4, (0.5, 0.5));
    for (i, g) in got.iter().enumerate() {
        for c in 0..4 {
            let want = f32::from(data[i][c]) / 255.0;
            let g = f32::from_bits(g[c]);
            assert!((g - want).abs() <= 1e-6, "texel {i}.{c}: {g} vs {want}");
        }
    }
    // A signed texture read with a .u32 result is refused at launch.
    let m = ctx.load_ptx("tex.ptx", &tex_kernel("s32")).unwrap();
    let out = DeviceBuffer::<[u32; 4]>::zeroed(&ctx, 4).unwrap();
    let e = m
        .kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [4, 1, 1]),
            &[
                (&tex).into(),
                (&out).into(),
                2u32.into(),
                0.5f32.into(),
                0.5f32.into(),
            ],
        )
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidLaunch { reason, .. } if reason.contains("signed integers")),
        "{e}"
    );
}

#[test]
fn texrefs_fetches_and_queries() {
    let ctx = common::context();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .global .texref t;\n\
               .visible .entry k(.param .u64 out)\n{\n\
               \t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\
               \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
               \tmul.wide.u32 %rd2, %r1, 32;\n\tadd.s64 %rd1, %rd1, %rd2;\n\
               \tadd.u32 %r2, %r1, -1;\n\
               \ttex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [t, {%r2}];\n\
               \tst.global.v4.b32 [%rd1], {%r3, %r4, %r5, %r6};\n\
               \ttxq.width.b32 %r7, [t];\n\ttxq.height.b32 %r8, [t];\n\
               \ttxq.channel_data_type.b32 %r9, [t];\n\ttxq.normalized_coords.b32 %r10, [t];\n\
               \tst.global.v4.b32 [%rd1+16], {%r7, %r8, %r9, %r10};\n\tret;\n}\n";
    let m = ctx.load_ptx("texref.ptx", ptx).unwrap();
    let k = m.kernel("k").unwrap();
    let out = DeviceBuffer::<[u32; 8]>::zeroed(&ctx, 6).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [6, 1, 1]);
    // Unbound: refused with the texref's name.
    let e = k.launch(&cfg, &[(&out).into()]).unwrap_err();
    assert!(e.to_string().contains("`t` is not bound"), "{e}");
    let fmt = ChannelFormat::new(ChannelKind::Signed, 16, 2);
    let tex = Texture::new(&ctx, &TextureDesc::new(TextureShape::D1 { width: 4 }, fmt)).unwrap();
    let data: [[i16; 2]; 4] = [[-1, 2], [-300, 400], [5, -6], [i16::MIN, i16::MAX]];
    tex.copy_from_host(0, &data).unwrap();
    m.bind_texref("t", &tex).unwrap();
    assert!(m.bind_texref("nope", &tex).is_err());
    k.launch(&cfg, &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for (i, g) in got.iter().enumerate() {
        // Integer coordinates fetch texel i - 1; outside the texture the result is zero.
        let x = i as i32 - 1;
        let want: [u32; 4] = if (0..4).contains(&x) {
            let t = data[x as usize];
            [t[0] as i32 as u32, t[1] as i32 as u32, 0, 1]
        } else {
            [0; 4]
        };
        assert_eq!(g[..4], want, "thread {i}");
        // OpenCL's CL_SIGNED_INT16; a 1D texture has no height; unnormalized coordinates.
        assert_eq!(g[4..], [4, 0, 0x10D8, 0], "thread {i}");
    }
    // The texture stays alive through the binding.
    drop(tex);
    k.launch(&cfg, &[(&out).into()]).unwrap();
    assert_eq!(out.to_vec().unwrap()[1][0], (-1i32) as u32);
}

#[test]
fn descriptions_refused() {
    let ctx = common::context();
    let shape = TextureShape::D2 {
        width: 4,
        height: 4,
    };
    let bad = |d: TextureDesc| match Texture::new(&ctx, &d) {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("{d:?}: {other:?}"),
    };
    let u32x1 = ChannelFormat::new(ChannelKind::Unsigned, 32, 1);
    assert!(bad(TextureDesc::new(shape, u32x1).filter(FilterMode::Linear)).contains("linear"));
    assert!(bad(TextureDesc::new(shape, F32X1).address(AddressMode::Wrap)).contains("normalized"));
    assert!(
        bad(TextureDesc::new(shape, u32x1).read_mode(ReadMode::NormalizedFloat))
            .contains("8- and 16-bit")
    );
    assert!(
        bad(TextureDesc::new(
            shape,
            ChannelFormat::new(ChannelKind::Float, 32, 3)
        ))
        .contains("channels")
    );
    assert!(bad(TextureDesc::new(shape, F32X1).mip_levels(4)).contains("mip levels"));
    assert!(bad(TextureDesc::new(TextureShape::D1 { width: 0 }, F32X1)).contains("empty"));
    let tex = Texture::new(&ctx, &TextureDesc::new(shape, F32X1)).unwrap();
    assert!(matches!(
        tex.upload(0, &[0u8; 3]),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(tex.upload(1, &[0u8; 64]).is_err());
    // A handle that names no texture.
    let m = ctx.load_ptx("tex.ptx", &tex_kernel("f32")).unwrap();
    let out = DeviceBuffer::<[u32; 4]>::zeroed(&ctx, 1).unwrap();
    let e = m
        .kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
            &[
                KernelArg::U64(0xdead),
                (&out).into(),
                1u32.into(),
                0f32.into(),
                0f32.into(),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("no live texture"), "{e}");
    // The raw handle of a live texture works.
    m.kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
            &[
                KernelArg::U64(tex.handle()),
                (&out).into(),
                1u32.into(),
                0f32.into(),
                0f32.into(),
            ],
        )
        .unwrap();
}

/// A texel read at a per-thread coordinate decides which threads take part in a warp ballot
/// (the odd lanes, named in its member mask), after a ballot of the whole warp. The texture's
/// results differ between threads, so where warps are emulated (lavapipe) the branch is run
/// for every thread with the even lanes waiting (the analysis is checked in
/// `translator/src/simt/tests.rs`; lavapipe happened to give the same bits when it took the
/// branch natively, with half the threads at the ballot's barriers).
#[test]
fn a_texel_read_per_thread_can_steer_a_warp_ballot() {
    let ctx = common::context();
    let u32x1 = ChannelFormat::new(ChannelKind::Unsigned, 32, 1);
    let tex = Texture::new(
        &ctx,
        &TextureDesc::new(TextureShape::D1 { width: 32 }, u32x1),
    )
    .unwrap();
    let texels: Vec<u32> = (0..32).map(|i| i % 2).collect();
    tex.copy_from_host(0, &texels).unwrap();
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry k(.param .u64 tex, .param .u64 out)\n{\n\
        \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [out];\n\
        \tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p2, %r1, 32;\n\
        \tvote.sync.ballot.b32 %r5, %p2, 0xffffffff;\n\
        \ttex.1d.v4.u32.s32 {%r2, %r3, %r4, %r6}, [%rd1, {%r1}];\n\
        \tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra DONE;\n\
        \tvote.sync.ballot.b32 %r5, %p2, 0xaaaaaaaa;\n\
        DONE:\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd2, %rd2, %rd3;\n\
        \tst.global.u32 [%rd2], %r5;\n\tret;\n}\n";
    let m = ctx.load_ptx("steer.ptx", ptx).unwrap();
    let k = m.kernel("k").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 32).unwrap();
    k.launch(
        &LaunchConfig::new([1, 1, 1], [32, 1, 1]),
        &[(&tex).into(), (&out).into()],
    )
    .unwrap();
    // ISA 9.7.12.6 (vote.sync.ballot): bit i of the result is lane i's predicate, for the lanes
    // of the member mask. Every predicate is true: the first ballot gives all 32 bits, the
    // second (odd lanes only) the odd ones.
    let want: Vec<u32> = (0..32)
        .map(|i| if i % 2 == 1 { 0xAAAA_AAAA } else { 0xFFFF_FFFF })
        .collect();
    assert_eq!(out.to_vec().unwrap(), want);
}
