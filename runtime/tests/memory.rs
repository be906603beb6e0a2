//! Every state space, on the device: shared (static, dynamic, bytes), module globals with
//! initializers and relocations, local memory, generic addresses and `isspacep`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, Error, LaunchConfig, Module};

fn module(ctx: &ptxvk_runtime::Context) -> Module {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/memory.ptx"))
            .unwrap();
    ctx.load_ptx("memory.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn blocks(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

#[test]
fn static_shared_memory_and_barrier() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("reverse").unwrap();
    assert_eq!(k.abi().static_shared_bytes, 1024);
    let data: Vec<f32> = (0..512).map(|i| i as f32).collect();
    let d = DeviceBuffer::from_slice(&ctx, &data).unwrap();
    k.launch(&blocks(2, 256), &[(&d).into()]).unwrap();
    let got = d.to_vec().unwrap();
    for b in 0..2 {
        for t in 0..256 {
            assert_eq!(
                got[b * 256 + t],
                (b * 256 + 255 - t) as f32,
                "block {b} thread {t}"
            );
        }
    }
}

#[test]
fn dynamic_shared_memory() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("reverse_dynamic").unwrap();
    assert!(k.abi().dynamic_shared);
    for n in [32u32, 100, 256] {
        let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let d = DeviceBuffer::from_slice(&ctx, &data).unwrap();
        let cfg = LaunchConfig {
            shared_bytes: n * 4,
            ..blocks(1, n)
        };
        k.launch(&cfg, &[(&d).into()]).unwrap();
        let got = d.to_vec().unwrap();
        for t in 0..n as usize {
            assert_eq!(got[t], data[n as usize - 1 - t], "n={n} t={t}");
        }
    }
    // More dynamic shared memory than the device has runs from device memory
    // (tests/shared_spill.rs); more than CUDA's opt-in limit is refused, not run.
    let n = 256usize;
    let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let d = DeviceBuffer::from_slice(&ctx, &data).unwrap();
    let cfg = LaunchConfig {
        shared_bytes: ctx.info().max_shared_memory_bytes + 4,
        ..blocks(1, n as u32)
    };
    k.launch(&cfg, &[(&d).into()]).unwrap();
    let want: Vec<f32> = data.iter().rev().copied().collect();
    assert_eq!(d.to_vec().unwrap(), want);
    let cfg = LaunchConfig {
        shared_bytes: ptxvk_translator::abi::MAX_SHARED_BYTES + 4,
        ..blocks(1, 1)
    };
    let err = k.launch(&cfg, &[(&d).into()]).unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
}

/// CUDA reserves dynamic shared memory for a kernel that declares none and runs it as usual,
/// within the device's limit and beyond it (where ptxvk takes it from device memory); only
/// CUDA's own limit refuses the launch.
#[test]
fn dynamic_shared_memory_for_a_kernel_without_an_extern_array() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("reverse").unwrap();
    assert!(!k.abi().dynamic_shared);
    let data: Vec<f32> = (0..512).map(|i| i as f32).collect();
    for extra in [16, ctx.info().max_shared_memory_bytes] {
        let d = DeviceBuffer::from_slice(&ctx, &data).unwrap();
        let cfg = LaunchConfig {
            shared_bytes: extra,
            ..blocks(2, 256)
        };
        k.launch(&cfg, &[(&d).into()])
            .unwrap_or_else(|e| panic!("{extra}: {e}"));
        let want: Vec<f32> = data
            .chunks(256)
            .flat_map(|c| c.iter().rev().copied())
            .collect();
        assert_eq!(d.to_vec().unwrap(), want, "{extra} bytes");
    }
    let cfg = LaunchConfig {
        shared_bytes: ptxvk_translator::abi::MAX_SHARED_BYTES,
        ..blocks(1, 256)
    };
    let d = DeviceBuffer::from_slice(&ctx, &data).unwrap();
    let err = k.launch(&cfg, &[(&d).into()]).unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
}

#[test]
fn shared_bytes_from_many_threads() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("shared_bytes").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    k.launch(&blocks(1, 64), &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..64u32 {
        // Thread t reads the byte thread t^1 wrote: (t^1)*3 truncated to 8 bits.
        assert_eq!(got[t as usize], ((t ^ 1) * 3) & 0xff, "thread {t}");
    }
}

#[test]
fn module_globals_initializers_and_relocations() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("globals").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 2).unwrap();
    k.launch(&blocks(1, 1), &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(f32::from_bits(got[0]), 60.0, "table[2] * scale");
    assert_eq!(got[1], 10, "*table_ptr");
    // The host sees and changes module variables between launches.
    assert_eq!(m.read_global("hits").unwrap(), 1u32.to_le_bytes());
    m.write_global("table", 8, &5u32.to_le_bytes()).unwrap();
    k.launch(&blocks(1, 1), &[(&out).into()]).unwrap();
    assert_eq!(f32::from_bits(out.to_vec().unwrap()[0]), 10.0);
    assert_eq!(m.read_global("hits").unwrap(), 2u32.to_le_bytes());
    let (addr, size) = m.global("table").unwrap();
    assert_eq!(size, 16);
    assert_ne!(addr, 0);
    assert!(matches!(
        m.read_global("nope"),
        Err(Error::GlobalNotFound { .. })
    ));
}

#[test]
fn local_memory_and_generic_local_addresses() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("local").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 40).unwrap();
    k.launch(&blocks(1, 40), &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..40u32 {
        let want = (t + 100) + (7 | (t & 0xff) << 8) + t;
        assert_eq!(got[t as usize], want, "thread {t}");
    }
}

#[test]
fn generic_shared_addresses_and_isspacep() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("generic_shared").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 32).unwrap();
    k.launch(&blocks(1, 32), &[(&out).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..32u32 {
        // shared: +1; the parameter is global: +2; a shared address is not global: +0.
        assert_eq!(got[t as usize], t * t + 1 + 2, "thread {t}");
    }
}
