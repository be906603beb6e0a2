//! Kernel names as long as C++ templates make them: the PTX name is the user's everywhere
//! (lookup, errors), while the SPIR-V entry point takes a short form Vulkan accepts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

fn long_name() -> String {
    // Mangled names of nested templates run to hundreds of bytes.
    let mut n = String::from("_Z6kernelI");
    while n.len() < 300 {
        n.push_str("N4long9namespace5inner");
    }
    n.push_str("EEvPj");
    n
}

fn ptx(name: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\n\
         .visible .entry {name}(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
         \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tadd.u32 %r1, %r1, 7;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}}\n"
    )
}

#[test]
fn a_kernel_with_a_300_byte_name_runs_under_its_own_name() {
    let name = long_name();
    assert!(name.len() > 300);
    let ctx = common::context();
    let module = ctx.load_ptx("long.ptx", &ptx(&name)).unwrap();
    let k = module.kernel(&name).unwrap();
    assert_eq!(k.name(), name);
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 32).unwrap();
    k.launch(&LaunchConfig::new([1, 1, 1], [32, 1, 1]), &[(&out).into()])
        .unwrap();
    let want: Vec<u32> = (7..39).collect();
    assert_eq!(out.to_vec().unwrap(), want);
    ctx.check_validation().unwrap();
    // Errors name the kernel as the PTX does.
    match k.launch(&LaunchConfig::new([1, 1, 1], [32, 1, 1]), &[]) {
        Err(e) => assert!(e.to_string().contains(&name), "{e}"),
        Ok(()) => panic!("a launch without its argument ran"),
    }
}
