//! `Program::translate_all` walks the module's kernels itself (by id, not by name): it must give
//! what `translate_kernel` gives for each name of `kernel_names`, in that order, under every
//! profile (the SIMT emulation, recursion elimination and inlining included). It also hands each
//! kernel the buffers and the emitter of the one before (`pipeline::Buffers`): nothing of a
//! kernel may leak into the next one's SPIR-V, which the modules below would show (textures,
//! shared-memory locks and barrier words, warp scratch, calls, in different orders).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn ptx(dir: &str, name: &str) -> String {
    let path = format!("{}/../{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn translate_all_gives_each_kernel_as_translate_kernel_does() {
    // Several kernels per module; recursion, device functions that synchronize, warp votes.
    let modules = [
        ("runtime/tests/ptx", "recursion.ptx"),
        ("runtime/tests/ptx", "control.ptx"),
        ("runtime/tests/ptx", "warps.ptx"),
        ("shaders", "calls_clang.ptx"),
        ("shaders", "textures_clang.ptx"),
        ("shaders", "warps_clang.ptx"),
        ("shaders", "probe.ptx"),
        ("runtime/tests/ptx", "atomics.ptx"),
        ("runtime/tests/ptx", "barriers.ptx"),
        ("runtime/tests/ptx", "memory.ptx"),
        ("runtime/tests/ptx", "uniform.ptx"),
    ];
    for (dir, file) in modules {
        let program =
            Program::parse(SourceFile::new(file, ptx(dir, file))).unwrap_or_else(|d| panic!("{d}"));
        let names = program.kernel_names();
        assert!(!names.is_empty(), "{file}: no kernels");
        for profile in ["lavapipe", "nvidia", "amd-rdna"] {
            let profile = DeviceProfile::named(profile).unwrap();
            let all = program
                .translate_all(&profile)
                .unwrap_or_else(|d| panic!("{file}: {d}"));
            assert_eq!(all.len(), names.len(), "{file}");
            for (k, name) in all.iter().zip(&names) {
                let one = program
                    .translate_kernel(name, &profile)
                    .unwrap_or_else(|d| panic!("{file}: {d}"));
                assert_eq!(k.abi.name, *name, "{file}: kernel order");
                assert!(k.spirv == one.spirv, "{file}: `{name}` differs");
                if let Err(e) = ptxvk_translator::validate(&k.spirv) {
                    panic!("{file}: `{name}`: {e}");
                }
            }
        }
    }
}
