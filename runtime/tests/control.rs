//! Control flow (tests/ptx/control.ptx) against Rust models of the same programs: loops left
//! through several levels at once, a loop with two entries, early `ret` and `exit` (also inside
//! a device function) in divergent code, barriers inside a loop, and warp shuffles and barriers
//! inside device functions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/control.ptx"
    ))
    .unwrap();
    ctx.load_ptx("control.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

/// Runs `kernel(out, n)` over n threads (blocks of 64) and returns out (`words` u32 per thread).
fn run_n(ctx: &Context, m: &Module, kernel: &str, n: u32, words: usize) -> Vec<u32> {
    let out = DeviceBuffer::<u32>::from_slice(ctx, &vec![0xDEAD_BEEF; n as usize * words]).unwrap();
    m.kernel(kernel)
        .unwrap()
        .launch(&cfg(n.div_ceil(64), 64), &[(&out).into(), n.into()])
        .unwrap();
    out.to_vec().unwrap()
}

fn nested_breaks_model(i: u32) -> u32 {
    let mut acc = 0u32;
    'a: for a in 0..8u32 {
        for b in 0..8u32 {
            for c in 0..8u32 {
                let t = (i.wrapping_mul(7) + a * 5 + b * 3 + c) % 23;
                if t == 0 {
                    continue 'a;
                }
                if t == 1 && a > 4 {
                    break 'a;
                }
                if t % 5 == 2 {
                    continue;
                }
                acc += t;
            }
        }
    }
    acc
}

fn irreducible_model(i: u32) -> [u32; 2] {
    let (mut x, mut steps) = (i, 0u32);
    let mut at_a = i & 1 == 0;
    loop {
        if at_a {
            x = x.wrapping_add(3);
            steps += 1;
            if x > 1000 {
                return [x, steps];
            }
        }
        x = (x << 1) ^ i;
        steps += 1;
        if steps >= 40 {
            return [x, steps];
        }
        at_a = x & 4 != 0;
    }
}

fn ret_and_exit_model(i: u32) -> u32 {
    if i % 3 == 0 {
        return i + 10;
    }
    for k in 0..i % 5 + 1 {
        if k == 2 && i % 3 == 1 {
            return 1;
        }
        if (i + k) % 7 == 3 {
            return 1;
        }
    }
    i + 100
}

#[test]
fn control_flow_cases() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = module(&ctx);
    for n in [1u32, 100, 1000] {
        let got = run_n(&ctx, &m, "nested_breaks", n, 1);
        for i in 0..n {
            assert_eq!(
                got[i as usize],
                nested_breaks_model(i),
                "nested_breaks thread {i}"
            );
        }
        let got = run_n(&ctx, &m, "irreducible", n, 2);
        for i in 0..n {
            let w = &got[i as usize * 2..i as usize * 2 + 2];
            assert_eq!(w, irreducible_model(i), "irreducible thread {i}");
        }
        let got = run_n(&ctx, &m, "ret_and_exit", n, 1);
        for i in 0..n {
            assert_eq!(
                got[i as usize],
                ret_and_exit_model(i),
                "ret_and_exit thread {i}"
            );
        }
    }
    barrier_in_loop(&ctx, &m);
    sync_in_functions(&ctx, &m);
}

fn barrier_in_loop(ctx: &Context, m: &Module) {
    for (grid, block, rounds) in [(1u32, 32u32, 0u32), (2, 96, 5), (3, 256, 17)] {
        let out = DeviceBuffer::<u32>::zeroed(ctx, (grid * block) as usize).unwrap();
        m.kernel("barrier_in_loop")
            .unwrap()
            .launch(&cfg(grid, block), &[(&out).into(), rounds.into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        for b in 0..grid {
            let mut v: Vec<u32> = (0..block).map(|t| b * 1000 + t * 3 + 1).collect();
            for r in 0..rounds {
                v = (0..block)
                    .map(|t| v[((t + 1) % block) as usize] + r)
                    .collect();
            }
            let start = (b * block) as usize;
            assert_eq!(
                &got[start..start + block as usize],
                &v[..],
                "grid {grid} block {block} rounds {rounds}, block {b}"
            );
        }
    }
}

fn sync_in_functions(ctx: &Context, m: &Module) {
    for (grid, block) in [(1u32, 32u32), (3, 64), (2, 256)] {
        let n = (grid * block) as usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(ctx, grid as usize).unwrap();
        let warps = DeviceBuffer::<u32>::zeroed(ctx, n).unwrap();
        m.kernel("sync_in_functions")
            .unwrap()
            .launch(
                &cfg(grid, block),
                &[(&din).into(), (&out).into(), (&warps).into()],
            )
            .unwrap();
        let sums: Vec<u32> = input
            .chunks(block as usize)
            .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(*x)))
            .collect();
        assert_eq!(
            out.to_vec().unwrap(),
            sums,
            "block sums, grid {grid} block {block}"
        );
        let got = warps.to_vec().unwrap();
        for (w, chunk) in input.chunks(32).enumerate() {
            let s = chunk.iter().fold(0u32, |a, x| a.wrapping_add(*x));
            assert!(
                got[w * 32..w * 32 + 32].iter().all(|g| *g == s),
                "warp {w} sums, grid {grid} block {block}"
            );
        }
    }
}

#[test]
fn control_at_every_subgroup_size() {
    common::at_every_subgroup_size("control_flow_cases");
}

/// Registers written in some paths and read after them: an `if` arm, a loop body, a loop left
/// by a branch, nested `if`s. The emitter reuses a register's value in the blocks after its
/// store instead of reloading it (translator/src/emit/carry.rs) only where no path in between
/// may store it again; these are the cases where reusing it anyway would be wrong.
const CARRIED: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry carried(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<8>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.lo.u32 %r6, %r5, 3;
    and.b32 %r7, %r5, 1;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 bra EVEN;
    add.u32 %r6, %r6, 100;
EVEN:
    add.u32 %r8, %r6, %r5;
    mov.u32 %r9, 0;
    add.u32 %r10, %r5, 7;
    rem.u32 %r11, %r5, 5;
    mov.u32 %r12, 0;
LOOP:
    setp.ge.u32 %p3, %r12, %r11;
    @%p3 bra LOOPEND;
    add.u32 %r13, %r10, %r12;
    add.u32 %r9, %r9, %r13;
    add.u32 %r12, %r12, 1;
    bra LOOP;
LOOPEND:
    add.u32 %r14, %r9, %r10;
    mov.u32 %r15, %r5;
GROW:
    setp.gt.u32 %p4, %r15, 50;
    @%p4 bra GROWN;
    shl.b32 %r15, %r15, 1;
    add.u32 %r15, %r15, 1;
    bra GROW;
GROWN:
    mov.u32 %r16, 5;
    rem.u32 %r17, %r5, 3;
    setp.ne.u32 %p5, %r17, 0;
    @%p5 bra SKIP;
    and.b32 %r18, %r5, 2;
    setp.ne.u32 %p6, %r18, 0;
    @%p6 bra SKIP;
    mov.u32 %r16, 9;
SKIP:
    add.u32 %r19, %r16, %r6;
    mul.wide.u32 %rd2, %r5, 16;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r8;
    st.global.u32 [%rd3+4], %r14;
    st.global.u32 [%rd3+8], %r15;
    st.global.u32 [%rd3+12], %r19;
DONE:
    ret;
}
"#;

fn carried_model(i: u32) -> [u32; 4] {
    let a = 3 * i + if i % 2 == 1 { 100 } else { 0 };
    let d = i + 7;
    let c: u32 = (0..i % 5).map(|k| d + k).sum();
    let mut e = i;
    while e <= 50 {
        e = 2 * e + 1;
    }
    let f = if i % 3 == 0 && i & 2 == 0 { 9 } else { 5 };
    [a + i, c + d, e, f + a]
}

#[test]
fn registers_carried_across_blocks() {
    let ctx = common::context();
    let m = ctx
        .load_ptx("carried.ptx", CARRIED)
        .unwrap_or_else(|e| panic!("{e}"));
    let n = 300;
    let got = run_n(&ctx, &m, "carried", n, 4);
    for i in 0..n {
        let w = &got[i as usize * 4..i as usize * 4 + 4];
        assert_eq!(w, carried_model(i), "carried thread {i}");
    }
}

/// `exits(out, n)`: thread `t` with `x = t * 37 % (len + 40)` runs `acc = acc * 3 + i` and
/// stores `acc` for `i` below `len` until `i == x`, where it branches to the end (`@%p bra`);
/// `rets` returns there instead (`@%p ret`). One exit per step, and a store after each: Mesa
/// nests the code after an exit into the exit's `if`, and lavapipe ignores the conditions of
/// `if`s nested more than 80 deep (docs/decisions/0024-early-exit-chains.md).
fn exit_chain_ptx(len: u32) -> String {
    let mut exits = String::new();
    let mut rets = String::new();
    for i in 0..len {
        let step = format!("    mad.lo.u32 %r5, %r5, 3, {i};\n    st.global.u32 [%rd3], %r5;\n");
        exits += &format!("    setp.eq.u32 %p2, %r4, {i};\n    @%p2 bra END;\n{step}");
        rets += &format!("    setp.eq.u32 %p2, %r4, {i};\n    @%p2 ret;\n{step}");
    }
    let head = |name: &str| {
        format!(
            ".visible .entry {name}(.param .u64 out, .param .u32 n)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r2, %r2, %ntid.x, %r3;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 ret;
    mul.lo.u32 %r4, %r2, 37;
    rem.u32 %r4, %r4, {};
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd3, %rd1, %rd2;
    mov.u32 %r5, 0;
",
            len + 40
        )
    };
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\n{}{exits}END:\n    ret;\n}}\n\n{}{rets}    ret;\n}}\n",
        head("exits"),
        head("rets")
    )
}

/// The value both kernels leave for thread `t` (`out` starts as 0xDEADBEEF).
fn exit_chain_model(len: u32, t: u32) -> u32 {
    let x = t * 37 % (len + 40);
    if x == 0 {
        return 0xDEAD_BEEF;
    }
    (0..len.min(x)).fold(0u32, |acc, i| acc.wrapping_mul(3).wrapping_add(i))
}

/// Kernels with long chains of early exits (as generated code has): 50 exits nest one `if` in
/// the next, 300 become guarded steps. Memory checking is off: it adds a search loop to each
/// store, which lavapipe takes minutes to compile 300 of.
#[test]
fn long_chains_of_early_exits() {
    let mut opts = common::options();
    opts.memcheck = Some(false);
    let ctx = Context::new(&opts).unwrap_or_else(|e| panic!("{e}"));
    for len in [50u32, 300] {
        let m = ctx
            .load_ptx("exits.ptx", &exit_chain_ptx(len))
            .unwrap_or_else(|e| panic!("{e}"));
        let n = len + 40;
        let exits = run_n(&ctx, &m, "exits", n, 1);
        let rets = run_n(&ctx, &m, "rets", n, 1);
        for t in 0..n {
            let want = exit_chain_model(len, t);
            assert_eq!(exits[t as usize], want, "exits, len {len}, thread {t}");
            assert_eq!(rets[t as usize], want, "rets, len {len}, thread {t}");
        }
    }
    // Past 1,023 exits the nested form was past SPIR-V's nesting limit: every profile's SPIR-V
    // for 2,000 passes SPIRV-Tools.
    let program = ptxvk_translator::Program::parse(ptxvk_translator::SourceFile::new(
        "exits.ptx",
        exit_chain_ptx(2000),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    for name in ptxvk_translator::DeviceProfile::names() {
        let profile = ptxvk_translator::DeviceProfile::named(name).unwrap();
        for k in program.translate_all(&profile).unwrap() {
            ptxvk_translator::validate(&k.spirv).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
