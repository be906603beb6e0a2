//! A kernel's first launch is not declared hung while the driver compiles it. Lavapipe compiles
//! a pipeline at its first dispatch, inside the wait for the launch; with a hang timeout far
//! shorter than that compile, the launch still completes, within the compile allowance, also
//! when the wait is another stream's whose work queues behind the compile. An endless kernel
//! still ends in the timeout: at its first launch once the allowance has run out too, at a later
//! one after the hang timeout alone. Each scenario runs in a child process (this test binary,
//! running an ignored test), since Mesa's shader cache must be turned off before the driver is
//! loaded, and so that a spinning kernel ends with its scenario.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use ptxvk_runtime::{Buffer, Context, DeviceBuffer, Error, LaunchConfig};

/// The hang timeout of every context here: far below what the large kernel's compile takes.
const HANG: Duration = Duration::from_millis(500);

/// Words each thread of the large kernel reads, mixes and writes back.
const WORDS: usize = 64;

/// Operations in the large kernel: lavapipe's compile of it takes 2-5 s on a 2-core machine,
/// its run well under a millisecond.
const OPS: usize = 12_000;

/// One step of the large kernel: `r[dst] = r[a] OP r[b]`.
#[derive(Clone, Copy)]
struct Step {
    op: usize,
    dst: usize,
    a: usize,
    b: usize,
}

const OPCODES: [&str; 3] = ["add.u32", "xor.b32", "mul.lo.u32"];

/// The large kernel's steps, from a seed (xorshift64*'s high bits pick the registers).
fn make_steps(seed: u64) -> Vec<Step> {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as usize % WORDS
    };
    (0..OPS)
        .map(|k| Step {
            op: k % OPCODES.len(),
            dst: k % WORDS,
            a: next(),
            b: next(),
        })
        .collect()
}

/// `big`: each thread mixes its own `WORDS` words with `OPS` straight-line integer operations,
/// which nothing can fold (the words are loaded). `small`: `out[0] = 42`.
fn ptx(steps: &[Step]) -> String {
    let mut p = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\n\
         .visible .entry big(.param .u64 p)\n{{\n\
         \t.reg .b32 %r<{WORDS}>;\n\t.reg .b32 %t;\n\t.reg .b64 %rd<3>;\n\
         \tld.param.u64 %rd1, [p];\n\tmov.u32 %t, %tid.x;\n\
         \tmul.wide.u32 %rd2, %t, {};\n\tadd.u64 %rd1, %rd1, %rd2;\n",
        4 * WORDS
    );
    for i in 0..WORDS {
        p += &format!("\tld.global.u32 %r{i}, [%rd1+{}];\n", 4 * i);
    }
    for s in steps {
        p += &format!("\t{} %r{}, %r{}, %r{};\n", OPCODES[s.op], s.dst, s.a, s.b);
    }
    for i in 0..WORDS {
        p += &format!("\tst.global.u32 [%rd1+{}], %r{i};\n", 4 * i);
    }
    p += "\tret;\n}\n\n.visible .entry small(.param .u64 out)\n{\n\
          \t.reg .b32 %r1;\n\t.reg .b64 %rd1;\n\tld.param.u64 %rd1, [out];\n\
          \tmov.u32 %r1, 42;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
    p
}

/// What `big` leaves in one thread's words, by the PTX semantics of the three operations.
fn reference(words: &[u32], steps: &[Step]) -> Vec<u32> {
    let mut r = words.to_vec();
    for s in steps {
        let (a, b) = (r[s.a], r[s.b]);
        r[s.dst] = match s.op {
            0 => a.wrapping_add(b),
            1 => a ^ b,
            _ => a.wrapping_mul(b),
        };
    }
    r
}

fn inputs(threads: usize, seed: u32) -> Vec<u32> {
    (0..threads * WORDS)
        .map(|i| (i as u32 ^ seed).wrapping_mul(0x9E37_79B9) | 1)
        .collect()
}

fn expected(input: &[u32], steps: &[Step]) -> Vec<u32> {
    input
        .chunks(WORDS)
        .flat_map(|w| reference(w, steps))
        .collect()
}

#[test]
#[ignore = "run by `a_first_launch_completes_while_the_driver_compiles_it` in a child process"]
fn compile_child() {
    let mut opts = common::options();
    opts.timeout = HANG;
    // The bound, not the expectation: generous for a loaded machine.
    opts.compile_timeout = Duration::from_secs(300);
    let ctx = Context::new(&opts).unwrap();
    let steps = make_steps(12_345);
    let module = ctx.load_ptx("big.ptx", &ptx(&steps)).unwrap();
    let big = module.kernel("big").unwrap();
    let small = module.kernel("small").unwrap();
    let one = LaunchConfig::new([1, 1, 1], [1, 1, 1]);

    // The first launch, waited for at once.
    let input = inputs(1, 1);
    let words = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    let start = Instant::now();
    big.launch(&one, &[(&words).into()]).unwrap();
    let took = start.elapsed();
    assert_eq!(words.to_vec().unwrap(), expected(&input, &steps));
    println!("first launch: {took:?}");
    // Otherwise the hang timeout alone would have let it finish, and this shows nothing.
    assert!(
        took > HANG,
        "the first launch took {took:?}, within the {HANG:?} hang timeout: the driver compiled \
         it faster than this test assumes (raise OPS)"
    );

    // A wait on another stream whose work runs after a first dispatch: with one queue (as on
    // lavapipe) it queues behind the compile of another large kernel.
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    small.launch(&one, &[(&out).into()]).unwrap();
    let steps2 = make_steps(54_321);
    let module2 = ctx.load_ptx("big2.ptx", &ptx(&steps2)).unwrap();
    let big2 = module2.kernel("big").unwrap();
    let (a, b) = (ctx.new_stream().unwrap(), ctx.new_stream().unwrap());
    let input2 = inputs(2, 2);
    let words2 = DeviceBuffer::from_slice(&ctx, &input2).unwrap();
    // Made first: a synchronous copy waits for every stream.
    let out2 = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let two = LaunchConfig::new([1, 1, 1], [2, 1, 1]);
    a.launch(&big2, &two, &[(&words2).into()]).unwrap();
    a.flush().unwrap();
    b.launch(&small, &one, &[(&out2).into()]).unwrap();
    let start = Instant::now();
    b.synchronize().unwrap();
    let took = start.elapsed();
    println!("the other stream's wait: {took:?}");
    if ctx.info().compute_queues == 1 {
        assert!(
            took > HANG,
            "{took:?}: the wait did not queue behind the compile"
        );
    }
    a.synchronize().unwrap();
    assert_eq!(out2.to_vec().unwrap(), [42]);
    assert_eq!(words2.to_vec().unwrap(), expected(&input2, &steps2));
    assert!(!ctx.is_lost());
    println!("child done");
}

#[test]
#[ignore = "run by `an_endless_kernel_still_times_out_with_the_allowance` in a child process"]
fn endless_child() {
    let hang_ptx =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/hang.ptx"))
            .unwrap();
    let allowance = Duration::from_millis(1500);
    let mut opts = common::options();
    opts.timeout = HANG;
    opts.compile_timeout = allowance;
    // As in tests/timeout.rs: every thread spins until the flag is set (long enough, in this
    // grid, also where the driver ends loops early).
    let hang = LaunchConfig::new([65535, 4, 1], [256, 1, 1]);

    // Its first launch: the allowance is waited for, then the hang is reported.
    let ctx = Context::new(&opts).unwrap();
    let module = ctx.load_ptx("hang.ptx", &hang_ptx).unwrap();
    let spin = module.kernel("spin").unwrap();
    let flag = Buffer::new(&ctx, 4).unwrap();
    let start = Instant::now();
    let err = spin.launch(&hang, &[(&flag).into()]).unwrap_err();
    let waited = start.elapsed();
    let message = err.to_string();
    let (hang_ms, allowance_ms) = (HANG.as_millis() as u64, allowance.as_millis() as u64);
    assert!(
        matches!(
            err,
            Error::Timeout { millis, compile_allowance_ms, .. }
                if millis == hang_ms + allowance_ms && compile_allowance_ms == allowance_ms
        ),
        "{err}"
    );
    assert!(message.contains("kernel `spin`"), "{message}");
    assert!(
        message.contains("compiling kernels launched for the first time"),
        "{message}"
    );
    assert!(waited >= HANG + allowance, "{waited:?}");
    assert!(ctx.is_lost());
    if !ctx.uses_staging() {
        flag.write_bytes(0, &1u32.to_le_bytes()).unwrap();
    }

    // A new context works; once the kernel has run, a hang is reported after the timeout alone.
    let ctx2 = Context::new(&opts).unwrap();
    let spin2 = ctx2
        .load_ptx("hang.ptx", &hang_ptx)
        .unwrap()
        .kernel("spin")
        .unwrap();
    let flag2 = Buffer::new(&ctx2, 4).unwrap();
    flag2.write_bytes(0, &1u32.to_le_bytes()).unwrap();
    spin2
        .launch(
            &LaunchConfig::new([1, 1, 1], [256, 1, 1]),
            &[(&flag2).into()],
        )
        .unwrap();
    flag2.write_bytes(0, &0u32.to_le_bytes()).unwrap();
    let err = spin2.launch(&hang, &[(&flag2).into()]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Timeout { millis, compile_allowance_ms: 0, .. } if millis == hang_ms
        ),
        "{err}"
    );
    assert!(!err.to_string().contains("first time"), "{err}");
    assert!(ctx2.is_lost());
    if !ctx2.uses_staging() {
        flag2.write_bytes(0, &1u32.to_le_bytes()).unwrap();
    }
    println!("child done");
}

/// Runs the ignored test `name` alone in a child process with Mesa's shader cache off, so that
/// its first launches really compile.
fn in_child(name: &str) {
    common::run_child_test(
        name,
        &[("MESA_SHADER_CACHE_DISABLE", "true")],
        Duration::from_secs(600),
    );
}

#[test]
fn a_first_launch_completes_while_the_driver_compiles_it() {
    in_child("compile_child");
}

#[test]
fn an_endless_kernel_still_times_out_with_the_allowance() {
    in_child("endless_child");
}
