//! The whole translation pipeline on real kernels; every module is validated by SPIRV-Tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn shader(name: &str) -> String {
    let path = format!("{}/../shaders/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn saxpy_translates_and_validates() {
    for file in ["saxpy.ptx", "saxpy_clang.ptx"] {
        let program =
            Program::parse(SourceFile::new(file, shader(file))).unwrap_or_else(|d| panic!("{d}"));
        let k = program
            .translate_kernel("saxpy", &DeviceProfile::lavapipe())
            .unwrap_or_else(|d| panic!("{d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{file}: {e}\n{}", ptxvk_translator::disassemble(&k.spirv));
        }
        let offsets: Vec<u32> = k.abi.params.iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0, 4, 8, 16], "{file}: CUDA parameter layout");
        assert_eq!(k.abi.param_block_size, 24);
    }
}
