//! The front end's instructions and special registers through translation: each form the ISA
//! defines checks with the types the ISA gives it, translates for lavapipe, and the SPIR-V passes
//! SPIRV-Tools; what a Vulkan device cannot provide is a missing-feature error naming it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\
         \t.shared .align 16 .b8 sh[256];\n\
         {body}\n\tret;\n}}\n"
    )
}

/// Checks, translates for `profile` and validates; the translation error's text otherwise.
fn translate(body: &str, profile: &DeviceProfile) -> Result<(), String> {
    let src = kernel(body);
    let program = Program::parse(SourceFile::new("k.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
    let k = program
        .translate_kernel("k", profile)
        .map_err(|d| d.to_string())?;
    if let Err(e) = ptxvk_translator::validate(&k.spirv) {
        panic!("{body}: invalid SPIR-V: {e}");
    }
    Ok(())
}

fn translates(body: &str) {
    if let Err(e) = translate(body, &DeviceProfile::lavapipe()) {
        panic!("{body}: {e}");
    }
}

fn check_error(body: &str) -> String {
    match Program::parse(SourceFile::new("bad.ptx", kernel(body))) {
        Ok(_) => panic!("`{body}` was accepted"),
        Err(d) => d.to_string(),
    }
}

/// ISA 10 (Special Registers): each register's type as the ISA declares it (`.u32` unless said
/// otherwise; `%clock64`, `%gridid`, `%globaltimer`, `%pm*_64` are `.u64`; `%envreg<n>` is
/// `.b32`). Read with a `mov` of that width, each one translates.
#[test]
fn special_registers_read_with_their_isa_types() {
    let u32_regs = [
        "%warpid",
        "%nwarpid",
        "%smid",
        "%nsmid",
        "%lanemask_eq",
        "%lanemask_le",
        "%lanemask_lt",
        "%lanemask_ge",
        "%lanemask_gt",
        "%clock",
        "%clock_hi",
        "%dynamic_smem_size",
        "%total_smem_size",
        "%pm0",
        "%pm7",
    ];
    for r in u32_regs {
        translates(&format!("\tmov.u32 %r1, {r};"));
    }
    for r in ["%envreg0", "%envreg31"] {
        translates(&format!("\tmov.b32 %r1, {r};"));
    }
    for r in ["%clock64", "%gridid", "%pm0_64"] {
        translates(&format!("\tmov.u64 %rd1, {r};"));
    }
}

#[test]
fn special_registers_of_the_wrong_width_or_name_are_refused() {
    // A 64-bit register into a 32-bit mov, and the other way round.
    let e = check_error("\tmov.u32 %r1, %clock64;");
    assert!(e.contains("bad.ptx:"), "{e}");
    let e = check_error("\tmov.u64 %rd1, %lanemask_lt;");
    assert!(e.contains("bad.ptx:"), "{e}");
    // %envreg0..31 and %pm0..7 only (ISA 10.22, 10.25).
    for bad in ["%envreg32", "%pm8"] {
        let e = check_error(&format!("\tmov.u32 %r1, {bad};"));
        assert!(e.contains(bad), "{bad}: {e}");
    }
}

/// Whether SPIR-V `words` contain an instruction with opcode `op`.
fn has_op(words: &[u32], op: u32) -> bool {
    let mut i = 5;
    while i < words.len() {
        let w = words[i];
        if w & 0xffff == op {
            return true;
        }
        i += ((w >> 16) as usize).max(1);
    }
    false
}

const OP_READ_CLOCK_KHR: u32 = 5056;

/// The clock registers: the subgroup clock of VK_KHR_shader_clock where the device has it; the
/// documented per-invocation counter where it has not, and for `%globaltimer*` always (no
/// Vulkan feature counts nanoseconds). What the counter reads is run in runtime/tests/clock.rs.
#[test]
fn clocks_read_the_shader_clock_or_the_substitute_counter() {
    let spirv = |body: &str, profile: &DeviceProfile| {
        let program = Program::parse(SourceFile::new("k.ptx", kernel(body)))
            .unwrap_or_else(|d| panic!("{d}"));
        let k = program
            .translate_kernel("k", profile)
            .unwrap_or_else(|d| panic!("{body}: {d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{body}: invalid SPIR-V: {e}");
        }
        k.spirv
    };
    let clocks = "\tmov.u64 %rd1, %clock64;\n\tmov.u32 %r1, %clock;\n\tmov.u32 %r2, %clock_hi;";
    let timers = "\tmov.u64 %rd1, %globaltimer;\n\tmov.u32 %r1, %globaltimer_lo;\n\
                  \tmov.u32 %r2, %globaltimer_hi;";
    let with = DeviceProfile::lavapipe();
    assert!(with.shader_clock);
    assert!(has_op(&spirv(clocks, &with), OP_READ_CLOCK_KHR));
    let mut without = DeviceProfile::lavapipe();
    without.shader_clock = false;
    assert!(!has_op(&spirv(clocks, &without), OP_READ_CLOCK_KHR));
    for p in [&with, &without] {
        assert!(!has_op(&spirv(timers, p), OP_READ_CLOCK_KHR));
    }
}

/// ISA 9.7.13.4 (brx.idx): a jump to the index-th label of a `.branchtargets` list.
#[test]
fn brx_idx_translates_to_a_switch() {
    translates(
        "\tmov.u32 %r1, %tid.x;\n\tand.b32 %r1, %r1, 3;\n\
         \tts: .branchtargets L0, L1, L2, L3;\n\tbrx.idx %r1, ts;\n\
         L0:\n\tmov.u32 %r2, 10;\n\tbra END;\n\
         L1:\n\tmov.u32 %r2, 11;\n\tbra END;\n\
         L2:\n\tmov.u32 %r2, 12;\n\tbra END;\n\
         L3:\n\tmov.u32 %r2, 13;\n\
         END:\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r2;",
    );
}

/// ISA 9.7.9.25 (cp.async): every cp-size, the `.cg` form (16 bytes only), a src-size, and the
/// group operations.
#[test]
fn cp_async_forms_translate() {
    translates(
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, sh;\n\
         \tcp.async.ca.shared.global [%r1], [%rd1], 4;\n\
         \tcp.async.ca.shared.global [%r1+16], [%rd1+16], 8;\n\
         \tcp.async.ca.shared.global [%r1+32], [%rd1+32], 16;\n\
         \tcp.async.cg.shared.global [%r1+48], [%rd1+48], 16;\n\
         \tcp.async.ca.shared.global [%r1+64], [%rd1+64], 16, 8;\n\
         \tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tcp.async.wait_all;\n\
         \tbar.sync 0;",
    );
    // .cg copies 16 bytes only.
    let e = check_error(
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, sh;\n\tcp.async.cg.shared.global [%r1], [%rd1], 4;",
    );
    assert!(e.contains("16"), "{e}");
}

/// ISA 9.7.13.8 (nanosleep): `.u32` duration, a register or an immediate.
#[test]
fn nanosleep_translates() {
    translates("\tnanosleep.u32 100;\n\tmov.u32 %r1, 7;\n\tnanosleep.u32 %r1;");
    let e = check_error("\tnanosleep.u64 %rd1;");
    assert!(e.contains("nanosleep"), "{e}");
}

/// ISA 9.7.13.6 (call): an indirect call through a `.callprototype` to a function whose
/// address was taken with `mov`.
#[test]
fn indirect_call_through_a_prototype_translates() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
         .func (.param .u32 r) twice(.param .u32 a)\n{\n\t.reg .b32 %x;\n\
         \tld.param.u32 %x, [a];\n\tadd.u32 %x, %x, %x;\n\tst.param.u32 [r], %x;\n\tret;\n}\n\
         .visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \tmov.u64 %rd2, twice;\n\tmov.u32 %r1, 21;\n\
         \t{\n\t.param .u32 pa;\n\t.param .u32 pr;\n\tst.param.u32 [pa], %r1;\n\
         \tproto: .callprototype (.param .u32 _) _ (.param .u32 _);\n\
         \tcall (pr), %rd2, (pa), proto;\n\tld.param.u32 %r2, [pr];\n\t}\n\
         \tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";
    let program =
        Program::parse(SourceFile::new("call.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
    let k = program
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_or_else(|d| panic!("{d}"));
    ptxvk_translator::validate(&k.spirv).unwrap_or_else(|e| panic!("{e}"));
}
