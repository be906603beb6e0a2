//! Every PTX file of the repository translated under every named device profile (and under
//! variants that force the fallbacks a profile chooses): each kernel either gives SPIR-V that
//! passes SPIRV-Tools validation or is refused with only missing-feature errors that name the
//! feature; none is refused for any other reason than the ones it already has on lavapipe.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn ptx_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["shaders", "shaders/corpus", "runtime/tests/ptx"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 8, "found only {files:?}");
    files
}

fn profiles() -> Vec<DeviceProfile> {
    let mut all: Vec<DeviceProfile> = DeviceProfile::names()
        .iter()
        .map(|n| DeviceProfile::named(n).unwrap())
        .collect();
    // Partitioned warps without clustered reductions; a device with everything but fused fma.
    all.push(DeviceProfile {
        name: "amd-gcn-unclustered".into(),
        subgroup_clustered: false,
        ..DeviceProfile::named("amd-gcn").unwrap()
    });
    all.push(DeviceProfile {
        name: "nvidia-unfused".into(),
        fused_fma32: false,
        fused_fma64: false,
        ..DeviceProfile::named("nvidia").unwrap()
    });
    all
}

/// Translates `kernel` of `program`; Ok(None) when refused for missing features only.
fn translate(program: &Program, kernel: &str, p: &DeviceProfile) -> Result<Option<()>, String> {
    match program.translate_kernel(kernel, p) {
        Ok(k) => {
            ptxvk_translator::validate(&k.spirv).map_err(|e| format!("invalid SPIR-V: {e}"))?;
            Ok(Some(()))
        }
        Err(d) => {
            let text = d.to_string();
            let lacks = format!("which device `{}` lacks", p.name);
            if d.items.iter().all(|x| x.message.contains(&lacks)) {
                Ok(None)
            } else {
                Err(text)
            }
        }
    }
}

#[test]
fn every_file_under_every_profile() {
    let lavapipe = DeviceProfile::lavapipe();
    let mut translated = 0;
    for path in ptx_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        // Files that do not check yet (corpus files with instructions still missing) are
        // translator/tests/corpus.rs's business, like kernels lavapipe cannot translate.
        let Ok(program) = Program::parse(SourceFile::new(&name, text)) else {
            continue;
        };
        for kernel in program.kernel_names() {
            // Kernels lavapipe cannot translate yet are another test's business.
            if translate(&program, &kernel, &lavapipe) != Ok(Some(())) {
                continue;
            }
            for p in profiles() {
                match translate(&program, &kernel, &p) {
                    Ok(Some(())) => translated += 1,
                    Ok(None) => {}
                    Err(e) => panic!("{name}: {kernel} under `{}`:\n{e}", p.name),
                }
            }
        }
    }
    assert!(translated > 50, "only {translated} translations");
}

fn program(text: &str) -> Program {
    Program::parse(SourceFile::new("t.ptx", text.to_string())).unwrap_or_else(|d| panic!("{d}"))
}

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

#[test]
fn float64_refused_where_missing_with_the_instruction_named() {
    let text = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .f64 %fd<3>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [p];\n\tld.global.f64 %fd1, [%rd1];\n\tadd.rn.f64 %fd2, %fd1, %fd1;\n\
         \tst.global.f64 [%rd1], %fd2;\n\tret;\n}}\n"
    );
    let p = program(&text);
    for name in ["intel", "apple"] {
        let d = p
            .translate_kernel("k", &DeviceProfile::named(name).unwrap())
            .err()
            .unwrap_or_else(|| panic!("{name} has no float64: must refuse"));
        let text = d.to_string();
        assert!(text.contains("float64 (shaderFloat64)"), "{text}");
        assert!(text.contains(&format!("device `{name}` lacks")), "{text}");
        // The first refusal points at the first instruction that holds an f64: the load.
        assert!(text.contains("t.ptx:9:"), "{text}");
        assert!(text.contains("ld.global.f64"), "{text}");
    }
    for name in ["nvidia", "amd-rdna", "amd-gcn", "lavapipe"] {
        let k = p.translate_kernel("k", &DeviceProfile::named(name).unwrap());
        assert!(k.is_ok(), "{name}: {}", k.err().unwrap());
    }
}

#[test]
fn int64_atomics_refused_on_apple() {
    let text = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .b64 %rd<3>;\n\
         \tld.param.u64 %rd1, [p];\n\tatom.global.add.u64 %rd2, [%rd1], 1;\n\tret;\n}}\n"
    );
    let p = program(&text);
    let d = p
        .translate_kernel("k", &DeviceProfile::named("apple").unwrap())
        .err()
        .unwrap_or_else(|| panic!("apple has no 64-bit atomics: must refuse"));
    let text = d.to_string();
    assert!(text.contains("64-bit atomics"), "{text}");
    assert!(text.contains("t.ptx:8:"), "{text}");
}

/// PTX keeps subnormals unless an instruction says `.ftz`: each float width the kernel uses is
/// declared `DenormPreserve` where the profile says the device can keep it (SPIR-V 1.4
/// `OpExecutionMode %k DenormPreserve <width>`), and not declared where it cannot (the
/// validation layer would reject it).
#[test]
fn subnormals_kept_where_the_device_can() {
    let text = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %f<3>;\n\t.reg .f64 %fd<3>;\n\
         \t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n\
         \tadd.rn.f32 %f2, %f1, %f1;\n\tst.global.f32 [%rd1], %f2;\n\tld.global.f64 %fd1, [%rd1];\n\
         \tadd.rn.f64 %fd2, %fd1, %fd1;\n\tst.global.f64 [%rd1], %fd2;\n\tret;\n}}\n"
    );
    let p = program(&text);
    // (OpExecutionMode = 16, DenormPreserve = 4459, OpCapability DenormPreserve = 4464.)
    let widths = |profile: &DeviceProfile| -> (Vec<u32>, bool) {
        let k = p.translate_kernel("k", profile).unwrap();
        ptxvk_translator::validate(&k.spirv).unwrap();
        let w = &k.spirv;
        let mut at = 5;
        let (mut modes, mut cap) = (Vec::new(), false);
        while at < w.len() {
            let (len, op) = ((w[at] >> 16) as usize, w[at] & 0xffff);
            if op == 16 && w[at + 2] == 4459 {
                modes.push(w[at + 3]);
            }
            cap |= op == 17 && w[at + 1] == 4464;
            at += len.max(1);
        }
        (modes, cap)
    };
    let all = DeviceProfile {
        denorm_preserve: ptxvk_translator::FloatWidths::ALL,
        ..DeviceProfile::named("amd-rdna").unwrap()
    };
    assert_eq!(widths(&all), (vec![32, 64], true));
    // NVIDIA keeps float16 subnormals only (an H200, docs/nvidia.md); this kernel has none.
    assert_eq!(
        widths(&DeviceProfile::named("nvidia").unwrap()),
        (vec![], false)
    );
    assert_eq!(
        widths(&DeviceProfile::named("lavapipe").unwrap()),
        (vec![], false)
    );
}

/// PTX's float arithmetic keeps the signs of zeros, infinities and NaNs: each float width the
/// kernel uses is declared `SignedZeroInfNanPreserve` where the profile offers it (without it
/// Mesa takes `x * -0.0` for `+0.0`), and not declared where it does not.
#[test]
fn signed_zeros_kept_where_the_device_can() {
    let text = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %f<3>;\n\t.reg .f64 %fd<3>;\n\
         \t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n\
         \tmul.rn.f32 %f2, %f1, 0f80000000;\n\tst.global.f32 [%rd1], %f2;\n\
         \tld.global.f64 %fd1, [%rd1];\n\tmul.rn.f64 %fd2, %fd1, %fd1;\n\
         \tst.global.f64 [%rd1], %fd2;\n\tret;\n}}\n"
    );
    let p = program(&text);
    // (OpExecutionMode = 16, SignedZeroInfNanPreserve = 4461, OpCapability 4466.)
    let widths = |profile: &DeviceProfile| -> (Vec<u32>, bool) {
        let k = p.translate_kernel("k", profile).unwrap();
        ptxvk_translator::validate(&k.spirv).unwrap();
        let w = &k.spirv;
        let mut at = 5;
        let (mut modes, mut cap) = (Vec::new(), false);
        while at < w.len() {
            let (len, op) = ((w[at] >> 16) as usize, w[at] & 0xffff);
            if op == 16 && w[at + 2] == 4461 {
                modes.push(w[at + 3]);
            }
            cap |= op == 17 && w[at + 1] == 4466;
            at += len.max(1);
        }
        (modes, cap)
    };
    for name in ["lavapipe", "nvidia", "amd-rdna", "amd-gcn"] {
        let profile = DeviceProfile::named(name).unwrap();
        assert_eq!(widths(&profile), (vec![32, 64], true), "{name}");
    }
    // MoltenVK reports no float controls (given float64 here, which Metal lacks, so that
    // this kernel translates).
    let apple = DeviceProfile {
        float64: true,
        ..DeviceProfile::named("apple").unwrap()
    };
    assert_eq!(widths(&apple), (vec![], false));
    let f32_only = DeviceProfile {
        signed_zero_inf_nan_preserve: ptxvk_translator::FloatWidths {
            f16: false,
            f32: true,
            f64: false,
        },
        ..DeviceProfile::lavapipe()
    };
    assert_eq!(widths(&f32_only), (vec![32], true));
}

/// Warps handing shared words to each other in one direction (one arm stores and `bar.arrive`s,
/// the other `bar.sync`s and loads) run under the warp emulation; warps that signal each other
/// back and forth cannot, since the emulation runs the arms one after the other: it is refused
/// on lavapipe by name, and translates where warps are native.
#[test]
fn two_way_handshakes_between_warps_refused_under_the_emulation() {
    let kernel = |consumer: &str| {
        format!(
            "{HEADER}.visible .entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\
             \t.shared .align 4 .b32 buf[64];\n\tmov.u32 %r1, %tid.x;\n\
             \tand.b32 %r2, %r1, 31;\n\tshl.b32 %r2, %r2, 2;\n\tmov.u32 %r3, buf;\n\
             \tadd.u32 %r3, %r3, %r2;\n\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra WAIT;\n\
             \tst.shared.u32 [%r3], %r1;\n\tbar.arrive 1, 64;\n\tbra DONE;\n\
             WAIT:\n\tbar.sync 1, 64;\n\tld.shared.u32 %r4, [%r3];\n{consumer}\
             DONE:\n\tret;\n}}\n"
        )
    };
    let one_way = program(&kernel(""));
    // The consumer answers with `bar.arrive 2`, which the producer waits for.
    let two_way = program(
        &kernel("\tst.shared.u32 [%r3], %r4;\n\tbar.arrive 2, 64;\n").replace(
            "bar.arrive 1, 64;\n",
            "bar.arrive 1, 64;\n\tbar.sync 2, 64;\n",
        ),
    );
    let lavapipe = DeviceProfile::named("lavapipe").unwrap();
    assert!(one_way.translate_kernel("k", &lavapipe).is_ok());
    let Err(d) = two_way.translate_kernel("k", &lavapipe) else {
        panic!("a two-way handshake under the emulation must be refused");
    };
    let text = d.to_string();
    assert!(text.contains("`bar.arrive` in both arms"), "{text}");
    assert!(text.contains("device `lavapipe` lacks"), "{text}");
    let nvidia = DeviceProfile::named("nvidia").unwrap();
    let k = two_way.translate_kernel("k", &nvidia);
    assert!(k.is_ok(), "{}", k.err().unwrap());
}
