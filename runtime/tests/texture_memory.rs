//! Textures over device memory: integer-coordinate 1D fetches of linear memory (CUDA's
//! `tex1Dfetch`: one element, zeros outside, integers as they are or normalized, halves
//! widened, absent channels (0, 0, 0, 1)), and pitched 2D memory sampled exactly as an array
//! texture with the same texels and sampler state, refreshed from the memory at each launch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{
    AddressMode, Buffer, ChannelFormat, ChannelKind, Context, DeviceBuffer, FilterMode,
    LaunchConfig, ReadMode, Texture, TextureDesc, TextureShape,
};

/// Thread `t` fetches element `idx[t]` (`tex.1d.v4.{dtype}.s32`) and stores its four
/// channels at `out + 16t`.
fn fetch_kernel(dtype: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 tex, .param .u64 idx, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [idx];\n\tld.param.u64 %rd3, [out];\n\
         \tmov.u32 %r0, %tid.x;\n\
         \tmul.wide.u32 %rd4, %r0, 4;\n\tadd.s64 %rd2, %rd2, %rd4;\n\tld.global.u32 %r1, [%rd2];\n\
         \ttex.1d.v4.{dtype}.s32 {{%r2, %r3, %r4, %r5}}, [%rd1, {{%r1}}];\n\
         \tmul.wide.u32 %rd5, %r0, 16;\n\tadd.s64 %rd3, %rd3, %rd5;\n\
         \tst.global.v4.b32 [%rd3], {{%r2, %r3, %r4, %r5}};\n\tret;\n}}\n"
    )
}

/// Fetches `idx` from `tex` with `dtype` results: four words per index.
fn fetch(ctx: &Context, dtype: &str, tex: &Texture, idx: &[i32]) -> Vec<[u32; 4]> {
    let m = ctx.load_ptx("fetch.ptx", &fetch_kernel(dtype)).unwrap();
    let i = DeviceBuffer::from_slice(ctx, idx).unwrap();
    let out = DeviceBuffer::<[u32; 4]>::zeroed(ctx, idx.len()).unwrap();
    m.kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [idx.len() as u32, 1, 1]),
            &[tex.into(), (&i).into(), (&out).into()],
        )
        .unwrap();
    out.to_vec().unwrap()
}

fn buffer_with(ctx: &Context, bytes: &[u8]) -> Buffer {
    let b = Buffer::new(ctx, bytes.len() as u64).unwrap();
    b.write_bytes(0, bytes).unwrap();
    b
}

fn d1(width: u32, format: ChannelFormat) -> TextureDesc {
    TextureDesc::new(TextureShape::D1 { width }, format)
}

/// Indices inside, at both ends, and outside on both sides.
const INDICES: [i32; 8] = [0, 1, 2, 5, 6, 7, 8, -1];

#[test]
fn linear_float4_and_int_fetches() {
    let ctx = common::context();
    let n = 8usize;
    let f4: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            [
                i as f32,
                -(i as f32) * 0.5,
                1e30 * i as f32,
                f32::MIN_POSITIVE,
            ]
        })
        .collect();
    let buf = buffer_with(&ctx, bytemuck::cast_slice(&f4));
    let desc = d1(n as u32, ChannelFormat::new(ChannelKind::Float, 32, 4));
    let tex = Texture::over_linear(&buf, 0, &desc).unwrap();
    let got = fetch(&ctx, "f32", &tex, &INDICES);
    for (k, &i) in INDICES.iter().enumerate() {
        let want = usize::try_from(i)
            .ok()
            .and_then(|i| f4.get(i))
            .map_or([0; 4], |v| v.map(f32::to_bits));
        assert_eq!(got[k], want, "float4 element {i}");
    }
    // Signed 32-bit, one channel, at an offset into the buffer: (v, 0, 0, 1).
    let ints: Vec<i32> = (0..n as i32 + 4).map(|i| i * -7919 + 3).collect();
    let buf = buffer_with(&ctx, bytemuck::cast_slice(&ints));
    let s32 = ChannelFormat::new(ChannelKind::Signed, 32, 1);
    let tex = Texture::over_linear(&buf, 16, &d1(n as u32, s32)).unwrap();
    let got = fetch(&ctx, "s32", &tex, &INDICES);
    for (k, &i) in INDICES.iter().enumerate() {
        let want = match usize::try_from(i).ok().filter(|&i| i < n) {
            Some(i) => [ints[i + 4] as u32, 0, 0, 1],
            None => [0; 4],
        };
        assert_eq!(got[k], want, "int element {i}");
    }
}

#[test]
fn linear_narrow_channels_convert_as_textures_do() {
    let ctx = common::context();
    // Signed 8-bit pairs at an odd element count: integers sign-extended, or normalized to
    // [-1, 1] with -128 clamped to -1.
    let s8: Vec<i8> = vec![-128, -127, -1, 0, 1, 64, 127, 5, 9, -9];
    let bytes: Vec<u8> = s8.iter().map(|&v| v as u8).collect();
    let buf = buffer_with(&ctx, &bytes);
    let fmt = ChannelFormat::new(ChannelKind::Signed, 8, 2);
    let idx: Vec<i32> = (0..6).collect();
    let tex = Texture::over_linear(&buf, 0, &d1(5, fmt)).unwrap();
    let got = fetch(&ctx, "s32", &tex, &idx);
    for e in 0..5 {
        let want = [s8[2 * e] as i32 as u32, s8[2 * e + 1] as i32 as u32, 0, 1];
        assert_eq!(got[e], want, "s8x2 element {e}");
    }
    assert_eq!(got[5], [0; 4]);
    let desc = d1(5, fmt).read_mode(ReadMode::NormalizedFloat);
    let tex = Texture::over_linear(&buf, 0, &desc).unwrap();
    let got = fetch(&ctx, "f32", &tex, &idx);
    for e in 0..5 {
        let norm = |v: i8| (f32::from(v) / 127.0).max(-1.0);
        let want = [norm(s8[2 * e]), norm(s8[2 * e + 1]), 0.0, 1.0];
        let have = got[e].map(f32::from_bits);
        for c in 0..4 {
            assert!(
                (have[c] - want[c]).abs() <= 1e-6,
                "snorm8 element {e} channel {c}: {have:?}, want {want:?}"
            );
        }
    }
    // Unsigned 16-bit, normalized: v / 65535.
    let u16s: Vec<u16> = vec![0, 1, 32768, 65535, 12345];
    let buf = buffer_with(&ctx, bytemuck::cast_slice(&u16s));
    let fmt = ChannelFormat::new(ChannelKind::Unsigned, 16, 1);
    let desc = d1(5, fmt).read_mode(ReadMode::NormalizedFloat);
    let tex = Texture::over_linear(&buf, 0, &desc).unwrap();
    let got = fetch(&ctx, "f32", &tex, &idx[..5]);
    for (e, &v) in u16s.iter().enumerate() {
        let have = f32::from_bits(got[e][0]);
        let want = f32::from(v) / 65535.0;
        assert!(
            (have - want).abs() <= 1e-6,
            "unorm16 {v}: {have}, want {want}"
        );
    }
    // Halves, four channels: widened exactly.
    let halves: Vec<half::f16> = [1.5f32, -0.25, 65504.0, 6.0e-8, 0.0, -2.0, 3.0, 1.0e-3]
        .iter()
        .map(|&v| half::f16::from_f32(v))
        .collect();
    let bits: Vec<u16> = halves.iter().map(|h| h.to_bits()).collect();
    let buf = buffer_with(&ctx, bytemuck::cast_slice(&bits));
    let fmt = ChannelFormat::new(ChannelKind::Float, 16, 4);
    let tex = Texture::over_linear(&buf, 0, &d1(2, fmt)).unwrap();
    let got = fetch(&ctx, "f32", &tex, &[0, 1]);
    for e in 0..2 {
        let want: Vec<u32> = halves[4 * e..4 * e + 4]
            .iter()
            .map(|h| h.to_f32().to_bits())
            .collect();
        assert_eq!(got[e].to_vec(), want, "half4 element {e}");
    }
}

#[test]
fn linear_fetch_sees_memory_written_after_creation() {
    let ctx = common::context();
    let buf = Buffer::new(&ctx, 64).unwrap();
    let fmt = ChannelFormat::new(ChannelKind::Unsigned, 32, 1);
    let tex = Texture::over_linear(&buf, 0, &d1(16, fmt)).unwrap();
    buf.write_bytes(0, bytemuck::cast_slice(&[7u32, 8, 9]))
        .unwrap();
    let got = fetch(&ctx, "u32", &tex, &[0, 1, 2]);
    assert_eq!(got, [[7, 0, 0, 1], [8, 0, 0, 1], [9, 0, 0, 1]]);
}

#[test]
fn linear_memory_is_checked_at_creation() {
    let ctx = common::context();
    let buf = Buffer::new(&ctx, 64).unwrap();
    let f32x1 = ChannelFormat::new(ChannelKind::Float, 32, 1);
    // 17 floats do not fit, nor do 16 at offset 4, nor a 2D shape, nor a misaligned channel.
    let d = |w| TextureDesc::new(TextureShape::D1 { width: w }, f32x1);
    assert!(Texture::over_linear(&buf, 0, &d(17)).is_err());
    assert!(Texture::over_linear(&buf, 4, &d(16)).is_err());
    assert!(Texture::over_linear(&buf, 2, &d(4)).is_err());
    let d2 = TextureDesc::new(
        TextureShape::D2 {
            width: 4,
            height: 4,
        },
        f32x1,
    );
    assert!(Texture::over_linear(&buf, 0, &d2).is_err());
    assert!(Texture::over_linear(&buf, 4, &d(15)).is_ok());
    // A pitch shorter than a row, or not a multiple of the texel.
    let d2 = |w, h| {
        TextureDesc::new(
            TextureShape::D2 {
                width: w,
                height: h,
            },
            f32x1,
        )
    };
    assert!(Texture::over_pitched(&buf, 0, 8, &d2(4, 2)).is_err());
    assert!(Texture::over_pitched(&buf, 0, 18, &d2(4, 2)).is_err());
    assert!(Texture::over_pitched(&buf, 0, 32, &d2(4, 3)).is_err());
    assert!(Texture::over_pitched(&buf, 0, 32, &d2(4, 2)).is_ok());
}

/// Thread `t` samples `tex.2d.v4.f32.f32` at the two floats at `in + 8t` and stores the red
/// channel at `out + 4t`.
const SAMPLE_2D: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
    .visible .entry k(.param .u64 tex, .param .u64 in, .param .u64 out)\n{\n\
    \t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n\
    \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd3, [out];\n\
    \tmov.u32 %r0, %tid.x;\n\
    \tmul.wide.u32 %rd4, %r0, 8;\n\tadd.s64 %rd2, %rd2, %rd4;\n\
    \tld.global.v2.f32 {%f1, %f2}, [%rd2];\n\
    \ttex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n\
    \tmul.wide.u32 %rd5, %r0, 4;\n\tadd.s64 %rd3, %rd3, %rd5;\n\
    \tst.global.f32 [%rd3], %f3;\n\tret;\n}\n";

fn sample_2d(ctx: &Context, tex: &Texture, at: &[[f32; 2]]) -> Vec<f32> {
    let m = ctx.load_ptx("sample2d.ptx", SAMPLE_2D).unwrap();
    let i = DeviceBuffer::from_slice(ctx, at).unwrap();
    let out = DeviceBuffer::<f32>::zeroed(ctx, at.len()).unwrap();
    m.kernel("k")
        .unwrap()
        .launch(
            &LaunchConfig::new([1, 1, 1], [at.len() as u32, 1, 1]),
            &[tex.into(), (&i).into(), (&out).into()],
        )
        .unwrap();
    out.to_vec().unwrap()
}

#[test]
fn pitched_memory_samples_as_an_array_does_and_follows_writes() {
    let ctx = common::context();
    let (w, h, pitch) = (5u32, 3u32, 32u64);
    let texels: Vec<f32> = (0..w * h).map(|i| (i * 7 % 11) as f32 - 4.0).collect();
    // Rows `pitch` bytes apart after a 64-byte offset, the gaps filled with NaN so that a
    // copy that ignored the pitch would show.
    let mut bytes = vec![0u8; 64 + pitch as usize * h as usize];
    for c in bytes.chunks_exact_mut(4) {
        c.copy_from_slice(&f32::NAN.to_le_bytes());
    }
    let put = |bytes: &mut Vec<u8>, texels: &[f32]| {
        for y in 0..h as usize {
            for x in 0..w as usize {
                let at = 64 + y * pitch as usize + 4 * x;
                bytes[at..at + 4].copy_from_slice(&texels[y * w as usize + x].to_le_bytes());
            }
        }
    };
    put(&mut bytes, &texels);
    let buf = buffer_with(&ctx, &bytes);
    let f32x1 = ChannelFormat::new(ChannelKind::Float, 32, 1);
    let at: Vec<[f32; 2]> = vec![
        [0.5, 0.5],
        [4.5, 2.5],
        [1.0, 0.5],
        [2.3, 1.7],
        [-3.0, 1.5],
        [9.0, 9.0],
        [0.25, 0.75],
        [3.9, 0.1],
    ];
    for (filter, address, normalized) in [
        (FilterMode::Nearest, AddressMode::ClampToEdge, false),
        (FilterMode::Linear, AddressMode::ClampToEdge, false),
        (FilterMode::Linear, AddressMode::ClampToBorder, false),
        (FilterMode::Linear, AddressMode::Wrap, true),
    ] {
        let desc = TextureDesc::new(
            TextureShape::D2 {
                width: w,
                height: h,
            },
            f32x1,
        )
        .filter(filter)
        .address(address)
        .normalized(normalized);
        let coords: Vec<[f32; 2]> = if normalized {
            at.iter()
                .map(|[x, y]| [x / w as f32, y / h as f32])
                .collect()
        } else {
            at.clone()
        };
        let array = Texture::new(&ctx, &desc).unwrap();
        array.copy_from_host(0, &texels).unwrap();
        let want = sample_2d(&ctx, &array, &coords);
        let tex = Texture::over_pitched(&buf, 64, pitch, &desc).unwrap();
        let got = sample_2d(&ctx, &tex, &coords);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&got),
            bits(&want),
            "{filter:?} {address:?}: {got:?}, want {want:?}"
        );
        if filter == FilterMode::Nearest {
            // Texel centres read their texel: an independent check of the row layout.
            assert_eq!(got[0], texels[0]);
            assert_eq!(got[1], texels[(2 * w + 4) as usize]);
        }
    }
    // The next launch sees memory written since the last one.
    let desc = TextureDesc::new(
        TextureShape::D2 {
            width: w,
            height: h,
        },
        f32x1,
    );
    let tex = Texture::over_pitched(&buf, 64, pitch, &desc).unwrap();
    let centres: Vec<[f32; 2]> = (0..w * h)
        .map(|i| [(i % w) as f32 + 0.5, (i / w) as f32 + 0.5])
        .collect();
    assert_eq!(sample_2d(&ctx, &tex, &centres), texels);
    let doubled: Vec<f32> = texels.iter().map(|v| 2.0 * v).collect();
    put(&mut bytes, &doubled);
    buf.write_bytes(0, &bytes).unwrap();
    assert_eq!(sample_2d(&ctx, &tex, &centres), doubled);
}
