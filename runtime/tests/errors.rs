//! Every misuse gives a typed error naming the cause, and the context stays usable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, Error, KernelArg, LaunchConfig};

#[test]
fn wrong_argument_count_and_types() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let k = m.kernel("saxpy").unwrap();
    let x = DeviceBuffer::<f32>::zeroed(&ctx, 4).unwrap();
    let cfg = LaunchConfig::for_num_elems(4, 4);
    let err = k.launch(&cfg, &[4u32.into()]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ArgCount {
                expected: 4,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
    // A float where the PTX says .u32, a pointer where it says .f32.
    let err = k
        .launch(
            &cfg,
            &[1.5f32.into(), 1.0f32.into(), (&x).into(), (&x).into()],
        )
        .unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 0, .. }), "{err}");
    let err = k
        .launch(&cfg, &[4u32.into(), (&x).into(), (&x).into(), (&x).into()])
        .unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 1, .. }), "{err}");
    // 64-bit integers are accepted for pointer parameters; 32-bit ones are not.
    let err = k
        .launch(
            &cfg,
            &[4u32.into(), 1.0f32.into(), 5u32.into(), (&x).into()],
        )
        .unwrap_err();
    assert!(matches!(err, Error::ArgType { index: 2, .. }), "{err}");
    let args: Vec<KernelArg> = vec![
        4u32.into(),
        1.0f32.into(),
        KernelArg::Ptr(x.address()),
        (&x).into(),
    ];
    k.launch(&cfg, &args).unwrap();
}

#[test]
fn copies_that_do_not_fit() {
    let ctx = common::context();
    let b = DeviceBuffer::<u32>::zeroed(&ctx, 4).unwrap();
    let err = b.copy_from_host(&[1, 2, 3, 4, 5]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BufferTooSmall {
                have: 16,
                need: 20,
                ..
            }
        ),
        "{err}"
    );
    let mut out = [0u32; 5];
    assert!(matches!(
        b.copy_to_host(&mut out),
        Err(Error::BufferTooSmall { .. })
    ));
    let big = DeviceBuffer::<u32>::zeroed(&ctx, 8).unwrap();
    assert!(matches!(
        b.copy_from_device(&big),
        Err(Error::BufferTooSmall { .. })
    ));
    let s = ctx.new_stream().unwrap();
    assert!(matches!(
        s.copy_to_device(&b, &[0u32; 6]),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(matches!(
        s.copy_device(&big, &b),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(matches!(b.slice(2..5), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        b.raw().write_bytes(14, &[0; 4]),
        Err(Error::BufferTooSmall { .. })
    ));
    // Overlapping device copies within one buffer are refused.
    assert!(matches!(
        big.slice(0..4)
            .unwrap()
            .copy_from_device(&big.slice(2..6).unwrap()),
        Err(Error::InvalidArgument(_))
    ));
    // Nothing was changed by the failed copies.
    assert_eq!(b.to_vec().unwrap(), [0; 4]);
}

#[test]
fn launches_beyond_device_limits() {
    let ctx = common::context();
    let m = ctx
        .load_ptx(
            "memory.ptx",
            &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/memory.ptx"))
                .unwrap(),
        )
        .unwrap();
    let k = m.kernel("reverse_dynamic").unwrap();
    let d = DeviceBuffer::<f32>::zeroed(&ctx, 1).unwrap();
    let info = ctx.info().clone();
    let too_wide = LaunchConfig::new([1, 1, 1], [info.max_workgroup_size[0] + 1, 1, 1]);
    let err = k.launch(&too_wide, &[(&d).into()]).unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
    assert!(err.to_string().contains("device limit"), "{err}");
    let side = (f64::from(info.max_workgroup_invocations).sqrt() as u32 + 1)
        .min(info.max_workgroup_size[0]);
    let too_many = LaunchConfig::new([1, 1, 1], [side, side, 1]);
    if u64::from(side) * u64::from(side) > u64::from(info.max_workgroup_invocations) {
        assert!(matches!(
            k.launch(&too_many, &[(&d).into()]),
            Err(Error::InvalidLaunch { .. })
        ));
    }
    let zero = LaunchConfig::new([0, 1, 1], [1, 1, 1]);
    assert!(matches!(
        k.launch(&zero, &[(&d).into()]),
        Err(Error::InvalidLaunch { .. })
    ));
    // More shared memory than the device has runs from device memory (tests/shared_spill.rs),
    // up to CUDA's opt-in limit.
    let limit = ptxvk_translator::abi::MAX_SHARED_BYTES;
    let shared = LaunchConfig::new([1, 1, 1], [1, 1, 1]).with_shared_bytes(limit + 4);
    let err = k.launch(&shared, &[(&d).into()]).unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
    assert!(err.to_string().contains("shared memory"), "{err}");
    // The context is still fine.
    k.launch(
        &LaunchConfig::new([1, 1, 1], [1, 1, 1]).with_shared_bytes(4),
        &[(&d).into()],
    )
    .unwrap();
}

#[test]
fn unknown_names_and_bad_ptx() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    assert!(matches!(
        m.kernel("nope"),
        Err(Error::KernelNotFound { .. })
    ));
    assert!(matches!(
        m.global("nope"),
        Err(Error::GlobalNotFound { .. })
    ));
    let err = ctx.load_ptx("bad.ptx", ".version 7.0\n").err().unwrap();
    assert!(matches!(err, Error::Translate(_)), "{err}");
}

#[test]
fn device_lacking_a_feature() {
    // Without float64 a kernel computing in double precision cannot run (fma.rn.f32, which once
    // needed float64 on unfused drivers, is now emulated in integers).
    let mut opts = common::options();
    opts.restrict.no_float64 = true;
    let ctx = Context::new(&opts).unwrap();
    assert!(!ctx.profile().float64);
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .visible .entry twice(.param .u64 p)\n{\n\
               .reg .f64 %d;\n.reg .b64 %a;\n\
               ld.param.u64 %a, [p];\nld.global.f64 %d, [%a];\n\
               add.rn.f64 %d, %d, %d;\nst.global.f64 [%a], %d;\nret;\n}\n";
    let m = ctx.load_ptx("twice.ptx", ptx).unwrap();
    match m.kernel("twice") {
        Err(Error::DeviceLacks {
            kernel, features, ..
        }) => {
            assert_eq!(kernel, "twice");
            assert!(features[0].contains("float64"), "{features:?}");
        }
        Ok(_) => panic!("an f64 kernel was accepted without float64"),
        Err(e) => panic!("{e}"),
    }
    // saxpy (fma.rn.f32) runs there all the same.
    let m = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    m.kernel("saxpy").unwrap();
}

#[test]
fn objects_of_two_contexts_do_not_mix() {
    let a = common::context();
    let b = common::context();
    let m = a
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let k = m.kernel("saxpy").unwrap();
    let sb = b.new_stream().unwrap();
    let x = DeviceBuffer::<f32>::zeroed(&a, 4).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&b, 4).unwrap();
    assert!(matches!(
        sb.launch(
            &k,
            &LaunchConfig::for_num_elems(4, 4),
            &[4u32.into(), 1.0f32.into(), (&x).into(), (&x).into()]
        ),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        sb.copy_to_device(&x, &[1.0]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        y.copy_from_device(&x),
        Err(Error::InvalidArgument(_))
    ));
    let e = a.new_stream().unwrap().record_event().unwrap();
    assert!(matches!(sb.wait_event(&e), Err(Error::InvalidArgument(_))));
}

/// The shared memory a launch needs counts what ptxvk adds: the warp emulation's scratch (12 bytes
/// per thread, only where warps are emulated) and its lock word. Static shared memory that fits
/// the device alone, but not with the scratch of a large block, runs from device memory.
#[test]
fn shared_memory_beyond_the_device_with_the_warp_emulation() {
    let ctx = common::context();
    let info = ctx.info().clone();
    // Static shared memory that fits alone, with a warp shuffle.
    let words = (info.max_shared_memory_bytes / 4 - 1024).max(1);
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\t.shared .align 4 .u32 big[{words}];\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p1;\n\tmov.u32 %r1, %tid.x;\n\
         \tshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n\tst.shared.u32 [big], %r2;\n\
         \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 ret;\n\
         \tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}}\n"
    );
    let m = ctx.load_ptx("big.ptx", &src).unwrap();
    let k = m.kernel("k").unwrap();
    let abi = k.abi().clone();
    assert!(!abi.shared_spilled, "the static part fits the device");
    let threads = 512u32.min(info.max_workgroup_invocations);
    let needed = abi.shared_bytes(u64::from(threads), 0);
    if needed > u64::from(info.max_shared_memory_bytes) {
        assert!(abi.warp_scratch_bytes_per_thread > 0);
    } else {
        // Native warps: no scratch.
        assert_eq!(abi.warp_scratch_bytes_per_thread, 0);
    }
    // Thread 0 receives thread 1's id from the shuffle either way.
    for block in [threads, 32] {
        let d = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
        k.launch(&LaunchConfig::new([1, 1, 1], [block, 1, 1]), &[(&d).into()])
            .unwrap_or_else(|e| panic!("{block} threads: {e}"));
        assert_eq!(d.to_vec().unwrap(), [1], "{block} threads");
    }
}
