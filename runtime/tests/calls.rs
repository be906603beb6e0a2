//! Device functions: clang's call sequences (struct arguments and results by value, a local
//! depot reached through generic addresses) and hand-written `.reg` parameters.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

#[test]
fn clang_call_with_structs_by_value() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("calls_clang.ptx", &common::shader("calls_clang.ptx"))
        .unwrap();
    let k = m.kernel("calls").unwrap();
    let table = [1.5f32, -2.25, 3.75, 100.0];
    let n = 1000u32;
    let t = DeviceBuffer::from_slice(&ctx, &table).unwrap();
    let oi = DeviceBuffer::<i32>::zeroed(&ctx, n as usize).unwrap();
    let of = DeviceBuffer::<f32>::zeroed(&ctx, n as usize).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(n, 128),
        &[(&t).into(), (&oi).into(), (&of).into(), n.into()],
    )
    .unwrap();
    let (gi, gf) = (oi.to_vec().unwrap(), of.to_vec().unwrap());
    for i in 0..n as i32 {
        // mix(i, {i + 1, i}, table) as written in shaders/calls.cu.
        let a = i
            .wrapping_mul(i + 1)
            .wrapping_add(table[(i & 3) as usize] as i32);
        let b = (i as f32).mul_add(0.5, table[((i + 1) & 3) as usize]);
        assert_eq!(gi[i as usize], a, "a at {i}");
        assert_eq!(gf[i as usize].to_bits(), b.to_bits(), "b at {i}");
    }
}

const REG_PARAMS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.func (.reg .u32 r) twice_plus(.reg .u32 a, .reg .u32 b)
{
    .reg .u32 t;
    add.u32 t, a, a;
    add.u32 r, t, b;
    ret;
}
.func (.param .b64 out) pack(.param .b32 lo, .param .b8 hi)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.b32 %r1, [lo];
    ld.param.u8 %r2, [hi];
    mov.b64 %rd1, {%r1, %r2};
    st.param.b64 [out], %rd1;
    ret;
}
.visible .entry k(.param .u64 p)
{
    .reg .u32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    call (%r2), twice_plus, (%r1, 7);
    {
        .param .b32 a0;
        .param .b8 a1;
        .param .b64 rv;
        st.param.b32 [a0], %r2;
        st.param.b8 [a1], %r1;
        call.uni (rv), pack, (a0, a1);
        ld.param.b64 %rd2, [rv];
    }
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd3, %rd1, %rd3;
    st.global.u64 [%rd3], %rd2;
    ret;
}
"#;

#[test]
fn reg_params_and_byte_params() {
    let ctx = common::context();
    let m = ctx.load_ptx("regs.ptx", REG_PARAMS).unwrap();
    let k = m.kernel("k").unwrap();
    let out = DeviceBuffer::<u64>::zeroed(&ctx, 64).unwrap();
    k.launch(&LaunchConfig::for_num_elems(64, 64), &[(&out).into()])
        .unwrap();
    for (t, v) in out.to_vec().unwrap().into_iter().enumerate() {
        let t = t as u64;
        assert_eq!(v, (2 * t + 7) | (t << 32), "thread {t}");
    }
}
