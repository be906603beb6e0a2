//! Where the shared arena is placed (docs/decisions/0078-shared-memory-in-device-memory.md): in
//! workgroup memory when it fits the device, in device memory otherwise or when asked. Every
//! form that touches the arena (plain and 64-bit atomic accesses, the warp emulation's scratch,
//! counted barriers) translates either way for every warp strategy, and the SPIR-V passes
//! SPIRV-Tools. What the placements compute is run in runtime/tests/shared_spill.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::abi::MAX_SHARED_BYTES;
use ptxvk_translator::{DeviceProfile, Program, SourceFile};

/// A kernel with `bytes` of static shared memory and dynamic shared memory that stores, adds
/// atomically (32- and 64-bit), shuffles and waits at a counted barrier.
fn kernel(bytes: u32) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \t.shared .align 8 .b8 big[{bytes}];\n\t.extern .shared .align 4 .b32 dyn[];\n\
         \tmov.u32 %r1, %tid.x;\n\tst.shared.u32 [big], %r1;\n\
         \tatom.shared.add.u32 %r2, [big+4], %r1;\n\
         \tcvt.u64.u32 %rd1, %r1;\n\tatom.shared.add.u64 %rd2, [big+8], %rd1;\n\
         \tshfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;\n\tst.shared.u32 [dyn], %r3;\n\
         \tbar.sync 1, 64;\n\tld.shared.u32 %r4, [big];\n\
         \tld.param.u64 %rd3, [out];\n\tst.global.u32 [%rd3], %r4;\n\tret;\n}}\n"
    )
}

fn profiles() -> Vec<DeviceProfile> {
    ["lavapipe", "nvidia", "amd-rdna"]
        .iter()
        .map(|n| DeviceProfile::named(n).expect("a named profile"))
        .collect()
}

/// Whether the module declares a `Workgroup` variable, from its disassembly.
fn has_workgroup_memory(spirv: &[u32]) -> bool {
    ptxvk_translator::disassemble(spirv)
        .lines()
        .any(|l| l.contains("OpVariable") && l.contains("Workgroup"))
}

#[test]
fn the_arena_is_workgroup_memory_where_it_fits_and_device_memory_otherwise() {
    for profile in profiles() {
        let device = profile.max_shared_memory_bytes;
        for (bytes, forced) in [(256, false), (256, true), (device + 8, false)] {
            let program = Program::parse(SourceFile::new("k.ptx", kernel(bytes))).unwrap();
            let asked = DeviceProfile {
                shared_in_device_memory: forced,
                ..profile.clone()
            };
            let k = program
                .translate_kernel("k", &asked)
                .unwrap_or_else(|d| panic!("{bytes} bytes for {}:\n{d}", profile.name));
            if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                panic!("{bytes} bytes for {}: invalid SPIR-V: {e}", profile.name);
            }
            let spilled = forced || bytes > device;
            assert_eq!(
                k.abi.shared_spilled, spilled,
                "{bytes} for {}",
                profile.name
            );
            let workgroup = has_workgroup_memory(&k.spirv);
            assert_eq!(workgroup, !spilled, "{bytes} for {}", profile.name);
        }
    }
}

#[test]
fn more_static_shared_memory_than_cuda_allows_is_refused() {
    let program = Program::parse(SourceFile::new("k.ptx", kernel(MAX_SHARED_BYTES + 8))).unwrap();
    let d = program
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_err();
    assert!(d.to_string().contains("ptxvk gives a block at most"), "{d}");
}
