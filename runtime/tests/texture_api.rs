//! The texture API around launches: queued launches keep their textures alive and see uploads
//! in order, several textures per kernel, descriptor sets reused across launches, textures of
//! another context refused, and the upload layout of layered, 3D and cubemap textures (ISA
//! 8.7.7.3: integer coordinates fetch one texel; the array index comes first; a cubemap's major
//! axis selects the face).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{
    ChannelFormat, ChannelKind, Context, DeviceBuffer, Error, KernelArg, LaunchConfig, Texture,
    TextureDesc, TextureShape,
};

const F32X1: ChannelFormat = ChannelFormat::new(ChannelKind::Float, 32, 1);

/// Thread `t` reads four coordinate words at `in + 16t`, samples `geom` with `ctype`
/// coordinates (`coords` names which of `%r1..%r4` form the vector) and stores the red
/// channel at `out + 4t`.
fn sample_kernel(geom: &str, ctype: &str, coords: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 tex, .param .u64 in, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd3, [out];\n\
         \tmov.u32 %r0, %tid.x;\n\
         \tmul.wide.u32 %rd4, %r0, 16;\n\tadd.s64 %rd2, %rd2, %rd4;\n\
         \tmul.wide.u32 %rd5, %r0, 4;\n\tadd.s64 %rd3, %rd3, %rd5;\n\
         \tld.global.v4.b32 {{%r1, %r2, %r3, %r4}}, [%rd2];\n\
         \ttex.{geom}.v4.f32.{ctype} {{%r5, %r6, %r7, %r8}}, [%rd1, {coords}];\n\
         \tst.global.b32 [%rd3], %r5;\n\tret;\n}}\n"
    )
}

/// Runs `ptx` (from [`sample_kernel`]) over `coords` and returns the red channels.
fn sample(ctx: &Context, ptx: &str, tex: &Texture, coords: &[[u32; 4]]) -> Vec<f32> {
    let m = ctx.load_ptx("sample.ptx", ptx).unwrap();
    let input = DeviceBuffer::from_slice(ctx, coords).unwrap();
    let out = DeviceBuffer::<f32>::zeroed(ctx, coords.len()).unwrap();
    m.kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [coords.len() as u32, 1, 1]),
            &[tex.into(), (&input).into(), (&out).into()],
        )
        .unwrap();
    out.to_vec().unwrap()
}

/// Thread `t` fetches texel `t` of a 1D texture and stores its red channel at `out + 4t`.
const FETCH_1D: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
    .visible .entry k(.param .u64 tex, .param .u64 out)\n{\n\
    \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
    \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [out];\n\tmov.u32 %r1, %tid.x;\n\
    \ttex.1d.v4.f32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];\n\
    \tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd2, %rd2, %rd3;\n\
    \tst.global.b32 [%rd2], %r2;\n\tret;\n}\n";

fn texture_1d(ctx: &Context, values: &[f32]) -> Texture {
    let desc = TextureDesc::new(
        TextureShape::D1 {
            width: values.len() as u32,
        },
        F32X1,
    );
    let t = Texture::new(ctx, &desc).unwrap();
    t.copy_from_host(0, values).unwrap();
    t
}

#[test]
fn queued_launches_keep_their_textures_and_see_uploads_in_order() {
    let ctx = common::context();
    let m = ctx.load_ptx("fetch.ptx", FETCH_1D).unwrap();
    let k = m.kernel("k").unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [4, 1, 1]);
    let stream = ctx.new_stream().unwrap();
    // More textures than a kernel keeps descriptor sets for: only the launches hold the
    // early ones when the stream runs (the validation layer reports any destroyed image).
    let values = |t: usize| -> Vec<f32> { (0..4).map(|i| (10 * t + i) as f32).collect() };
    let textures: Vec<Texture> = (0..12).map(|t| texture_1d(&ctx, &values(t))).collect();
    let outs: Vec<DeviceBuffer<f32>> = (0..12)
        .map(|_| DeviceBuffer::zeroed(&ctx, 4).unwrap())
        .collect();
    for (t, o) in textures.iter().zip(&outs) {
        stream.launch(&k, &cfg, &[t.into(), o.into()]).unwrap();
    }
    drop(textures);
    stream.synchronize().unwrap();
    for (t, o) in outs.iter().enumerate() {
        assert_eq!(o.to_vec().unwrap(), values(t), "launch {t}");
    }
    // An upload waits for queued launches that read the texture (CUDA's legacy default
    // stream), and later launches see the new texels.
    let tex = texture_1d(&ctx, &[1.0, 2.0, 3.0, 4.0]);
    stream
        .launch(&k, &cfg, &[(&tex).into(), (&outs[0]).into()])
        .unwrap();
    tex.copy_from_host(0, &[-1.0f32, -2.0, -3.0, -4.0]).unwrap();
    stream
        .launch(&k, &cfg, &[(&tex).into(), (&outs[1]).into()])
        .unwrap();
    drop(tex);
    stream.synchronize().unwrap();
    assert_eq!(outs[0].to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(outs[1].to_vec().unwrap(), [-1.0, -2.0, -3.0, -4.0]);
}

#[test]
fn several_textures_in_one_kernel() {
    let ctx = common::context();
    // out[t] = a[t] (float texels) + b[t] (unsigned 8-bit texels read as integers).
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out)\n{\n\
               \t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<6>;\n\
               \tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [b];\n\tld.param.u64 %rd3, [out];\n\
               \tmov.u32 %r1, %tid.x;\n\
               \ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\n\
               \ttex.1d.v4.u32.s32 {%r2, %r3, %r4, %r5}, [%rd2, {%r1}];\n\
               \tcvt.rn.f32.u32 %f5, %r2;\n\tadd.f32 %f6, %f1, %f5;\n\
               \tmul.wide.u32 %rd4, %r1, 4;\n\tadd.s64 %rd3, %rd3, %rd4;\n\
               \tst.global.f32 [%rd3], %f6;\n\tret;\n}\n";
    let m = ctx.load_ptx("two.ptx", ptx).unwrap();
    let k = m.kernel("k").unwrap();
    let u8x1 = ChannelFormat::new(ChannelKind::Unsigned, 8, 1);
    let bytes = |v: [u8; 4]| {
        let t = Texture::new(&ctx, &TextureDesc::new(TextureShape::D1 { width: 4 }, u8x1)).unwrap();
        t.copy_from_host(0, &v).unwrap();
        t
    };
    let a1 = texture_1d(&ctx, &[0.5, 1.5, 2.5, 3.5]);
    let a2 = texture_1d(&ctx, &[100.0, 200.0, 300.0, 400.0]);
    let b = bytes([1, 2, 3, 250]);
    let cfg = LaunchConfig::new([1, 1, 1], [4, 1, 1]);
    let stream = ctx.new_stream().unwrap();
    let outs: Vec<DeviceBuffer<f32>> = (0..3)
        .map(|_| DeviceBuffer::zeroed(&ctx, 4).unwrap())
        .collect();
    // Alternating pairs in one batch: each launch reads its own descriptor set.
    for (a, o) in [&a1, &a2, &a1].iter().zip(&outs) {
        stream
            .launch(&k, &cfg, &[(*a).into(), (&b).into(), o.into()])
            .unwrap();
    }
    stream.synchronize().unwrap();
    assert_eq!(outs[0].to_vec().unwrap(), [1.5, 3.5, 5.5, 253.5]);
    assert_eq!(outs[1].to_vec().unwrap(), [101.0, 202.0, 303.0, 650.0]);
    assert_eq!(outs[2].to_vec().unwrap(), [1.5, 3.5, 5.5, 253.5]);
    // The float texture where the kernel reads integers: refused, naming the parameter.
    let e = k
        .launch(&cfg, &[(&a1).into(), (&a2).into(), (&outs[0]).into()])
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidLaunch { reason, .. } if reason.contains("`b`")),
        "{e}"
    );
    // A texture where the kernel expects a texture object but gets a number.
    let e = k
        .launch(&cfg, &[(&a1).into(), 1.5f32.into(), (&outs[0]).into()])
        .unwrap_err();
    assert!(e.to_string().contains('b'), "{e}");
}

#[test]
fn textures_are_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Texture>();
    let ctx = common::context();
    let tex = texture_1d(&ctx, &[1.0, 2.0, 3.0, 4.0]);
    let m = ctx.load_ptx("fetch.ptx", FETCH_1D).unwrap();
    let k = m.kernel("k").unwrap();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let out = DeviceBuffer::<f32>::zeroed(&ctx, 4).unwrap();
                k.launch(
                    &LaunchConfig::new([1, 1, 1], [4, 1, 1]),
                    &[(&tex).into(), (&out).into()],
                )
                .unwrap();
                assert_eq!(out.to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
            });
        }
    });
}

#[test]
fn textures_of_another_context_are_refused() {
    let ctx = common::context();
    let other = common::context();
    let foreign = texture_1d(&other, &[1.0; 4]);
    let m = ctx.load_ptx("fetch.ptx", FETCH_1D).unwrap();
    let out = DeviceBuffer::<f32>::zeroed(&ctx, 4).unwrap();
    let cfg = LaunchConfig::new([1, 1, 1], [4, 1, 1]);
    let k = m.kernel("k").unwrap();
    let e = k
        .launch(&cfg, &[(&foreign).into(), (&out).into()])
        .unwrap_err();
    assert!(e.to_string().contains("another context"), "{e}");
    // Its raw handle names no texture of this context.
    let e = k
        .launch(&cfg, &[KernelArg::U64(foreign.handle()), (&out).into()])
        .unwrap_err();
    assert!(e.to_string().contains("no live texture"), "{e}");
    let texref = ".version 7.0\n.target sm_70\n.address_size 64\n.global .texref t;\n\
                  .visible .entry k()\n{\n\tret;\n}\n";
    let m = ctx.load_ptx("texref.ptx", texref).unwrap();
    let e = m.bind_texref("t", &foreign).unwrap_err();
    assert!(e.to_string().contains("another context"), "{e}");
}

/// Uploads are laid out x fastest, then y, then z or the layer (`Texture::level_bytes`); the
/// kernel fetches with integer coordinates, so each texel's value is its linear index.
#[test]
fn layered_and_3d_upload_layout() {
    let ctx = common::context();
    let index_texture = |shape: TextureShape| {
        let t = Texture::new(&ctx, &TextureDesc::new(shape, F32X1)).unwrap();
        let n = t.level_bytes(0) / 4;
        let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
        t.copy_from_host(0, &values).unwrap();
        t
    };
    let (w, h, d) = (3u32, 2u32, 2u32);
    // a2d: {layer, x, y, unused}.
    let tex = index_texture(TextureShape::Layered2D {
        width: w,
        height: h,
        layers: d,
    });
    let mut coords = Vec::new();
    let mut want = Vec::new();
    for l in 0..d {
        for y in 0..h {
            for x in 0..w {
                coords.push([l, x, y, 0]);
                want.push(((l * h + y) * w + x) as f32);
            }
        }
    }
    let got = sample(
        &ctx,
        &sample_kernel("a2d", "s32", "{%r1, %r2, %r3, %r4}"),
        &tex,
        &coords,
    );
    assert_eq!(got, want, "a2d");
    // 3d: {x, y, z, unused}, the same order.
    let tex = index_texture(TextureShape::D3 {
        width: w,
        height: h,
        depth: d,
    });
    let coords3: Vec<[u32; 4]> = coords.iter().map(|c| [c[1], c[2], c[0], 0]).collect();
    let got = sample(
        &ctx,
        &sample_kernel("3d", "s32", "{%r1, %r2, %r3, %r4}"),
        &tex,
        &coords3,
    );
    assert_eq!(got, want, "3d");
    // a1d: {layer, x}.
    let tex = index_texture(TextureShape::Layered1D {
        width: w,
        layers: d,
    });
    let coords1: Vec<[u32; 4]> = (0..d)
        .flat_map(|l| (0..w).map(move |x| [l, x, 0, 0]))
        .collect();
    let want1: Vec<f32> = (0..w * d).map(|i| i as f32).collect();
    let got = sample(
        &ctx,
        &sample_kernel("a1d", "s32", "{%r1, %r2}"),
        &tex,
        &coords1,
    );
    assert_eq!(got, want1, "a1d");
}

/// Cubemap faces are uploaded in the order +x, -x, +y, -y, +z, -z; a direction along an axis
/// selects that axis's face (ISA 8.7.7.3, `tex.cube`).
#[test]
fn cubemap_face_order() {
    let ctx = common::context();
    let size = 2u32;
    let desc = TextureDesc::new(TextureShape::Cube { size }, F32X1).normalized(true);
    let tex = Texture::new(&ctx, &desc).unwrap();
    let per_face = (size * size) as usize;
    let values: Vec<f32> = (0..6 * per_face)
        .map(|i| (i / per_face) as f32 + 1.0)
        .collect();
    tex.copy_from_host(0, &values).unwrap();
    let f = |v: f32| v.to_bits();
    let dirs: Vec<[u32; 4]> = [
        [1.0, 0.2, 0.3],
        [-1.0, -0.2, 0.3],
        [0.3, 1.0, -0.2],
        [-0.3, -1.0, 0.2],
        [0.2, -0.3, 1.0],
        [-0.2, 0.3, -1.0],
    ]
    .iter()
    .map(|d| [f(d[0]), f(d[1]), f(d[2]), 0])
    .collect();
    let got = sample(
        &ctx,
        &sample_kernel("cube", "f32", "{%r1, %r2, %r3, %r4}"),
        &tex,
        &dirs,
    );
    assert_eq!(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

/// CUDA's linear filtering (Programming Guide, "Texture Fetching"): at texel coordinate x the
/// result is `(1 - a) T[i] + a T[i + 1]` with `i = floor(x - 0.5)`, `a = frac(x - 0.5)`, per
/// dimension, indices clamped to the edge. Returns the value and the largest difference of
/// the blended texels (what 8-bit fixed-point weights can move the result by, / 256).
fn bilinear(texels: &[f32], w: usize, h: usize, x: f64, y: f64) -> (f64, f64) {
    let at = |i: i64, j: i64| {
        let i = i.clamp(0, w as i64 - 1) as usize;
        let j = j.clamp(0, h as i64 - 1) as usize;
        f64::from(texels[j * w + i])
    };
    let (xb, yb) = (x - 0.5, y - 0.5);
    let (i, j) = (xb.floor() as i64, yb.floor() as i64);
    let (a, b) = (xb - xb.floor(), yb - yb.floor());
    let t = [at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)];
    let v =
        (1.0 - a) * (1.0 - b) * t[0] + a * (1.0 - b) * t[1] + (1.0 - a) * b * t[2] + a * b * t[3];
    let spread = t.iter().fold(f64::NEG_INFINITY, |m, x| m.max(*x))
        - t.iter().fold(f64::INFINITY, |m, x| m.min(*x));
    (v, spread)
}

/// The kernels of `shaders/textures.cu` as clang-19 compiles them: texture objects passed as
/// `cudaTextureObject_t` parameters.
#[test]
fn clang_compiled_resize_and_gather() {
    let ctx = common::context();
    let m = ctx
        .load_ptx(
            "textures_clang.ptx",
            include_str!("../../shaders/textures_clang.ptx"),
        )
        .unwrap();
    let (w, h) = (5usize, 4usize);
    let texels: Vec<f32> = (0..w * h).map(|i| ((i * 7) % 11) as f32 * 0.5).collect();
    let desc = TextureDesc::new(
        TextureShape::D2 {
            width: w as u32,
            height: h as u32,
        },
        F32X1,
    )
    .filter(ptxvk_runtime::FilterMode::Linear)
    .normalized(true);
    let tex = Texture::new(&ctx, &desc).unwrap();
    tex.copy_from_host(0, &texels).unwrap();
    // Resize to 8 x 6: output pixel (x, y) samples at ((x + 0.5) / 8, (y + 0.5) / 6).
    let (ow, oh) = (8usize, 6usize);
    let out = DeviceBuffer::<f32>::zeroed(&ctx, ow * oh).unwrap();
    m.kernel("resize")
        .unwrap()
        .launch(
            &LaunchConfig::new([2, 2, 1], [4, 3, 1]),
            &[
                (&tex).into(),
                (&out).into(),
                (ow as u32).into(),
                (oh as u32).into(),
            ],
        )
        .unwrap();
    let got = out.to_vec().unwrap();
    for y in 0..oh {
        for x in 0..ow {
            let u = (x as f32 + 0.5) / ow as f32;
            let v = (y as f32 + 0.5) / oh as f32;
            let (want, spread) = bilinear(
                &texels,
                w,
                h,
                f64::from(u * w as f32),
                f64::from(v * h as f32),
            );
            let g = f64::from(got[y * ow + x]);
            assert!(
                (g - want).abs() <= spread * 2.0 / 256.0 + 1e-6,
                "pixel ({x}, {y}): {g} vs {want}"
            );
        }
    }
    // Gathers: the footprint of (x, y) is texels i = floor(x * w - 0.5), j likewise, returned
    // as (i, j+1), (i+1, j+1), (i+1, j), (i, j) (ISA 8.7.7.4: counter-clockwise from the lower
    // left), clamped to the edge.
    let points = [(0.33f32, 0.4f32), (0.55, 0.9), (0.05, 0.05), (0.99, 0.6)];
    let xs: Vec<f32> = points.iter().map(|p| p.0).collect();
    let ys: Vec<f32> = points.iter().map(|p| p.1).collect();
    let dxs = DeviceBuffer::from_slice(&ctx, &xs).unwrap();
    let dys = DeviceBuffer::from_slice(&ctx, &ys).unwrap();
    let out = DeviceBuffer::<f32>::zeroed(&ctx, 4 * points.len()).unwrap();
    m.kernel("gather")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [points.len() as u32, 1, 1]),
            &[
                (&tex).into(),
                (&dxs).into(),
                (&dys).into(),
                (&out).into(),
                (points.len() as u32).into(),
            ],
        )
        .unwrap();
    let got = out.to_vec().unwrap();
    let at = |i: i64, j: i64| {
        texels[j.clamp(0, h as i64 - 1) as usize * w + i.clamp(0, w as i64 - 1) as usize]
    };
    for (k, (x, y)) in points.iter().enumerate() {
        let i = (f64::from(x * w as f32) - 0.5).floor() as i64;
        let j = (f64::from(y * h as f32) - 0.5).floor() as i64;
        let want = [at(i, j + 1), at(i + 1, j + 1), at(i + 1, j), at(i, j)];
        assert_eq!(got[4 * k..4 * k + 4], want, "gather at ({x}, {y})");
    }
}
