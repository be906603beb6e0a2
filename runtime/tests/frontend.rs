//! Front-end instructions run on the device: `brx.idx`, calls through
//! function pointers (`.callprototype`, `.calltargets`, call tables), `cp.async`, `ldu`, the
//! hints that do nothing (`prefetch`, `nanosleep`) and the special registers Vulkan lacks.
//! Expected values follow the ISA's semantics sections, computed here in Rust.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

fn run_u32(src: &str, kernel: &str, threads: u32, input: &[u32]) -> Vec<u32> {
    let ctx = common::context();
    let m = ctx
        .load_ptx("frontend.ptx", &format!("{HEADER}{src}"))
        .unwrap();
    let k = m.kernel(kernel).unwrap_or_else(|e| panic!("{e}"));
    let out = DeviceBuffer::<u32>::zeroed(&ctx, threads as usize).unwrap();
    let inp = DeviceBuffer::from_slice(&ctx, input).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(threads, 64),
        &[(&out).into(), (&inp).into()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    out.to_vec().unwrap()
}

/// `brx.idx` (ISA "Control Flow Instructions: brx.idx"): `pc = tlist[index]`.
#[test]
fn brx_idx_jumps_to_the_indexed_label() {
    let src = r#"
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .b64 %rd<4>; .reg .b32 %r<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, %ctaid.x;
    mad.lo.u32 %r1, %r5, 64, %r1;
    rem.u32 %r2, %r1, 5;
    ts: .branchtargets L<4>, Big;
    brx.idx %r2, ts;
L0: mov.u32 %r3, 100; bra.uni J;
L1: mov.u32 %r3, 101; bra.uni J;
L2: mov.u32 %r3, 102; bra.uni J;
L3: mov.u32 %r3, 103; bra.uni J;
Big: mov.u32 %r3, 999;
J:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r3;
    ret;
}
"#;
    let got = run_u32(src, "k", 256, &[0]);
    for (i, g) in got.iter().enumerate() {
        let want = match i % 5 {
            4 => 999,
            j => 100 + j as u32,
        };
        assert_eq!(*g, want, "thread {i}");
    }
}

const CALLEES: &str = r#"
.func (.reg .u32 r) twice(.reg .u32 a) { add.u32 r, a, a; ret; }
.func (.reg .u32 r) square(.reg .u32 a) { mul.lo.u32 r, a, a; ret; }
.func (.reg .u32 r) plus7(.reg .u32 a) { add.u32 r, a, 7; ret; }
"#;

fn callee(which: u32, a: u32) -> u32 {
    match which {
        0 => a.wrapping_add(a),
        1 => a.wrapping_mul(a),
        _ => a.wrapping_add(7),
    }
}

/// `call (r), fptr, (a), Fproto;` with pointers from `mov.u64 %rd, f;`.
#[test]
fn call_through_a_prototype() {
    let src = format!(
        r#"{CALLEES}
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
    .reg .b64 %rd<4>; .reg .b32 %r<6>; .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, %ctaid.x;
    mad.lo.u32 %r1, %r5, 64, %r1;
    rem.u32 %r2, %r1, 3;
    mov.u64 %rd2, twice;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 mov.u64 %rd2, square;
    setp.eq.u32 %p2, %r2, 2;
    @%p2 mov.u64 %rd2, plus7;
Fproto: .callprototype (.reg .u32 _) _ (.reg .u32 _);
    call (%r3), %rd2, (%r1), Fproto;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u32 [%rd3], %r3;
    ret;
}}
"#
    );
    let got = run_u32(&src, "k", 192, &[0]);
    for (i, g) in got.iter().enumerate() {
        let i = i as u32;
        assert_eq!(*g, callee(i % 3, i), "thread {i}");
    }
}

/// `call (r), fptr, (a), Ftgt;` with a `.calltargets` list and 32-bit pointers.
#[test]
fn call_through_calltargets() {
    let src = format!(
        r#"{CALLEES}
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
    .reg .b64 %rd<4>; .reg .b32 %r<6>; .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, plus7;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 mov.u32 %r4, square;
Ftgt: .calltargets square, plus7;
    call (%r3), %r4, (%r1), Ftgt;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u32 [%rd3], %r3;
    ret;
}}
"#
    );
    let got = run_u32(&src, "k", 64, &[0]);
    for (i, g) in got.iter().enumerate() {
        let i = i as u32;
        let which = if i & 1 == 1 { 1 } else { 2 };
        assert_eq!(*g, callee(which, i), "thread {i}");
    }
}

/// A call table (`.global .u64 tbl[3] = {f, g, h};`) read from memory at run time.
#[test]
fn call_through_a_call_table() {
    let src = format!(
        r#"{CALLEES}
.global .u64 tbl[3] = {{ twice, square, plus7 }};
.visible .entry k(.param .u64 out, .param .u64 inp)
{{
    .reg .b64 %rd<6>; .reg .b32 %r<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd4, [inp];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd4, %rd3;
    ld.global.u32 %r2, [%rd4];
    mul.wide.u32 %rd2, %r2, 8;
    mov.u64 %rd5, tbl;
    add.s64 %rd5, %rd5, %rd2;
    ld.global.u64 %rd2, [%rd5];
    call (%r3), %rd2, (%r1), tbl;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u32 [%rd3], %r3;
    ret;
}}
"#
    );
    let which: Vec<u32> = (0..64u32).map(|i| (i * 7 + 3) % 3).collect();
    let got = run_u32(&src, "k", 64, &which);
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, callee(which[i], i as u32), "thread {i}");
    }
}

/// `cp.async` (ISA "cp.async"): `cp-size` bytes reach `[dst]`; with `src-size` only that many
/// come from `[src]` and the rest are zeros; with `ignore-src` true all are zeros. Each thread
/// copies its own 16 bytes four ways and writes the shared bytes back out.
#[test]
fn cp_async_copies_and_zero_fills() {
    let src = r#"
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .b64 %rd<8>; .reg .b32 %r<12>; .reg .pred %p<2>;
    .shared .align 16 .b8 buf[4096];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    // Thread t reads input[4t .. 4t+4) (16 bytes) and owns buf[64t .. 64t+64).
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd3, %rd2, %rd3;
    mov.u32 %r2, buf;
    mad.lo.u32 %r2, %r1, 64, %r2;
    and.b32 %r3, %r1, 15;
    and.b32 %r4, %r1, 1;
    setp.eq.u32 %p1, %r4, 1;
    // Shared memory starts undefined: clear the 8 bytes no copy below writes.
    mov.u32 %r8, 0;
    st.shared.u32 [%r2+40], %r8;
    st.shared.u32 [%r2+44], %r8;
    cp.async.ca.shared.global [%r2], [%rd3], 16;
    cp.async.cg.shared.global [%r2+16], [%rd3], 16, %r3;
    cp.async.ca.shared.global [%r2+32], [%rd3], 8, 5;
    cp.async.ca.shared.global [%r2+48], [%rd3], 16, %p1;
    cp.async.commit_group;
    cp.async.wait_group 0;
    cp.async.wait_all;
    // Write the thread's 16 words out: out[16t .. 16t+16).
    mul.wide.u32 %rd4, %r1, 64;
    add.s64 %rd4, %rd1, %rd4;
    mov.u32 %r5, 0;
LOOP:
    add.u32 %r6, %r2, %r5;
    ld.shared.u32 %r7, [%r6];
    cvt.u64.u32 %rd5, %r5;
    add.s64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r7;
    add.u32 %r5, %r5, 4;
    setp.lt.u32 %p1, %r5, 64;
    @%p1 bra LOOP;
    ret;
}
"#;
    let threads = 64u32;
    let input: Vec<u32> = (0..threads * 4)
        .map(|i| 0x0101_0101u32.wrapping_mul(i + 1) ^ 0xA5C3_0F00)
        .collect();
    let ctx = common::context();
    let m = ctx
        .load_ptx("frontend.ptx", &format!("{HEADER}{src}"))
        .unwrap();
    let k = m.kernel("k").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, (threads * 16) as usize).unwrap();
    let inp = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(threads, threads),
        &[(&out).into(), (&inp).into()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = out.to_vec().unwrap();
    for t in 0..threads as usize {
        let bytes: Vec<u8> = input[4 * t..4 * t + 4]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let region = |n: usize, size: usize| -> Vec<u8> {
            (0..16)
                .map(|j| if j < n.min(size) { bytes[j] } else { 0 })
                .collect()
        };
        let mut want = Vec::new();
        want.extend(region(16, 16));
        want.extend(region(t & 15, 16));
        want.extend(region(5, 8));
        want.extend(region(if t & 1 == 1 { 0 } else { 16 }, 16));
        let got_bytes: Vec<u8> = got[16 * t..16 * t + 16]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(got_bytes, want, "thread {t}");
    }
}

/// `ldu` reads like `ld`; `prefetch`, `prefetchu` and `nanosleep` change nothing; the special
/// registers Vulkan lacks keep the ISA's invariants (`0 <= %smid < %nsmid`).
#[test]
fn ldu_hints_and_special_registers() {
    let src = r#"
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .b64 %rd<6>; .reg .b32 %r<12>; .reg .pred %p<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    prefetch.global.L2 [%rd2];
    prefetchu.L1 [%rd2];
    nanosleep.u32 1000;
    ldu.global.u32 %r2, [%rd2+4];
    mov.u32 %r3, %smid;
    mov.u32 %r4, %nsmid;
    setp.lt.u32 %p1, %r3, %r4;
    selp.u32 %r5, 0x100000, 0, %p1;
    add.u32 %r5, %r5, %r2;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u32 [%rd3], %r5;
    ret;
}
"#;
    let got = run_u32(src, "k", 64, &[7, 0xbeef]);
    for (t, g) in got.iter().enumerate() {
        // 0xbeef from `ldu`, plus 0x100000 when %smid < %nsmid.
        assert_eq!(*g, 0x10_beef, "thread {t}");
    }
}
