//! The emulation keeps what kernels with warp operations do: each kernel runs in the interpreter
//! on whole workgroups before the emulation (its warp operations met by the lanes that reach
//! them) and after it (exchanges through shared scratch between workgroup barriers, and lane
//! reads served by 8-lane subgroups where `serve_in_subgroups` finds them), and the two
//! outcomes must be equal bit for bit: every byte of global memory, the kernel's own shared
//! words, and each invocation's events in its order. What the emulation adds is left out of
//! the comparison: the scratch words after `Builtin::ScratchBase`, and the barriers.

use crate::interp::{
    Event, GroupOutcome, Inputs, Space, Stop, Workgroup, random::Rng, run_workgroup, text,
};
use crate::ir::Module;
use crate::structurize::Node;
use crate::{DeviceProfile, Program, SourceFile, ir, lower, structurize};

/// Where the emulation's scratch starts: past any shared word a test kernel declares.
const SCRATCH: u64 = 1 << 16;

/// Block shapes every kernel runs on: whole warps, several, and a block whose last warp is
/// partial and whose lanes are not `%tid.x % 32`.
const SHAPES: [[u32; 3]; 3] = [[32, 1, 1], [64, 1, 1], [12, 4, 1]];
/// Shapes for the subgroup path, which relies on lanes being `%tid.x % 32`
/// (`DeviceProfile::lane_shaped_blocks`): one-dimensional blocks, one with a partial warp.
const LANE_SHAPED: [[u32; 3]; 3] = [[32, 1, 1], [64, 1, 1], [48, 1, 1]];

/// The invocations of a subgroup on the subgroup path (`DeviceProfile::min_subgroup_size` of an
/// llvmpipe device with `linear_subgroups`).
const SUBGROUP: u32 = 8;

/// Module `text` lowered for lavapipe (the emulated warp strategy), functions that synchronize
/// inlined, every function structured.
pub(crate) fn lowered(text: &str) -> (Module, Vec<Vec<Node>>) {
    let program = match Program::parse(SourceFile::new("t.ptx", text.to_string())) {
        Ok(p) => p,
        Err(d) => panic!("{d}"),
    };
    let profile = DeviceProfile::named("lavapipe").expect("the lavapipe profile");
    let (id, _) = program.module.kernels().next().expect("one kernel");
    let mut m = lower::lower_kernel(
        &program.module,
        id,
        &profile,
        &program.global_offsets,
        &mut lower::Buffers::default(),
    )
    .expect("the kernel lowers")
    .module;
    ir::inline::inline_where(&mut m, |g| g.must_inline(true));
    let trees = m
        .functions
        .iter_mut()
        .map(|f| structurize::structurize(f).expect("shallow"))
        .collect();
    (m, trees)
}

/// `m` after the emulation, with lane reads served by subgroups of `group` lanes first where
/// given.
pub(super) fn emulated(
    m: &Module,
    trees: &[Vec<Node>],
    group: Option<u32>,
) -> (Module, Vec<Vec<Node>>) {
    let (mut m, mut trees) = (m.clone(), trees.to_vec());
    let entry = m.entry.0 as usize;
    if let Some(g) = group
        && m.functions[entry].may_sync
    {
        let calls = super::call_effects(&m);
        super::serve_in_subgroups(&mut m.functions[entry], &trees[entry], g, &calls);
    }
    if let Err(e) = super::emulate(&mut m.functions[entry], &mut trees[entry]) {
        panic!("the emulation refused the kernel: {e:?}");
    }
    if let Err(e) = crate::verify::module(&m) {
        panic!("the emulated IR is broken: {e}\n{}", text(&m));
    }
    (m, trees)
}

/// `o` as the comparison sees it: without barriers, scratch words, and the difference between
/// `ret` and `exit` (the emulation ends every invocation at the kernel's end).
fn observed(mut o: GroupOutcome) -> GroupOutcome {
    let kernel_word = |at: u64| at < SCRATCH;
    for t in &mut o.threads {
        t.exited = false;
        t.events.retain(|e| match e {
            Event::Barrier => false,
            Event::Store {
                space: Space::Shared,
                at,
                ..
            }
            | Event::Atomic {
                space: Space::Shared,
                at,
                ..
            } => kernel_word(*at),
            _ => true,
        });
    }
    o.shared.retain(|at, _| kernel_word(*at));
    o
}

/// Runs `before` and `after` on every shape with a few seeds and compares them; returns how
/// many runs were defined (`before` may stop as undefined: then `after` is not judged).
pub(super) fn same_runs(
    what: &str,
    before: (&Module, &[Vec<Node>]),
    after: (&Module, &[Vec<Node>]),
    shapes: &[[u32; 3]],
    seeds: &mut Rng,
) -> usize {
    let mut defined = 0;
    for &dims in shapes {
        let group = Workgroup {
            dims,
            subgroup: SUBGROUP,
            scratch_base: SCRATCH,
        };
        for _ in 0..2 {
            let inputs = Inputs::new(vec![seeds.bits(), seeds.bits()], seeds.bits());
            let want = match run_workgroup(before.0, Some(before.1), &inputs, &group) {
                Ok(o) => observed(o),
                Err(Stop::Undefined(why)) => {
                    eprintln!("{what} on {dims:?}: undefined before the emulation: {why}");
                    continue;
                }
                Err(e) => panic!("{what} on {dims:?}: {e:?} before the emulation"),
            };
            let got = run_workgroup(after.0, Some(after.1), &inputs, &group).unwrap_or_else(|e| {
                panic!(
                    "{what} on {dims:?}: {e:?} after the emulation\n{}",
                    text(after.0)
                )
            });
            if let Some(d) = want.difference(&observed(got)) {
                panic!(
                    "{what} on {dims:?}, seed {:#x}: {d}\nbefore:\n{}\nafter:\n{}",
                    inputs.seed,
                    text(before.0),
                    text(after.0)
                );
            }
            defined += 1;
        }
    }
    defined
}

/// A module with one kernel `k(in, out)` around `body` (registers `%r`, `%f`, `%p`, `%rd`, a
/// shared array `warps`).
fn module(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n\
         .shared .align 4 .b8 warps[256];\n{body}\n}}\n"
    )
}

/// The head of every case: `%r1` = `%tid.x`, `%r2` = the linear index, `%r3` = the lane,
/// `%r4` = a value loaded per invocation, `%rd1` = where the invocation stores its results
/// (8 words of `out`).
const HEAD: &str = "mov.u32 %r1, %tid.x;\nmov.u32 %r5, %tid.y;\nmov.u32 %r6, %ntid.x;\n\
    mad.lo.u32 %r2, %r5, %r6, %r1;\nmov.u32 %r3, %laneid;\n\
    ld.param.u64 %rd5, [in];\nmul.wide.u32 %rd6, %r2, 4;\nadd.s64 %rd7, %rd5, %rd6;\n\
    ld.global.u32 %r4, [%rd7];\n\
    ld.param.u64 %rd8, [out];\nmul.wide.u32 %rd9, %r2, 32;\nadd.s64 %rd1, %rd8, %rd9;\n";

/// Hand-written kernels: each warp operation in uniform and divergent control flow.
const CASES: &[(&str, &str)] = &[
    (
        "shfl modes",
        "shfl.sync.down.b32 %r10, %r4, 1, 31, -1;\nshfl.sync.up.b32 %r11, %r4, 3, 0, -1;\n\
         shfl.sync.bfly.b32 %r12, %r4, 5, 31, -1;\nshfl.sync.idx.b32 %r13, %r4, 7, 31, -1;\n\
         st.global.u32 [%rd1], %r10;\nst.global.u32 [%rd1+4], %r11;\n\
         st.global.u32 [%rd1+8], %r12;\nst.global.u32 [%rd1+12], %r13;\nret;",
    ),
    (
        "shfl segments and predicates",
        "shfl.sync.down.b32 %r10|%p1, %r4, 2, 0x81f, -1;\n\
         shfl.sync.idx.b32 %r11|%p2, %r4, %r4, 0x1007, -1;\n\
         shfl.sync.up.b32 %r12|%p3, %r4, 1, 0x300, -1;\n\
         selp.u32 %r13, 1, 0, %p1;\nselp.u32 %r14, 2, 0, %p2;\nselp.u32 %r15, 4, 0, %p3;\n\
         or.b32 %r13, %r13, %r14;\nor.b32 %r13, %r13, %r15;\n\
         st.global.u32 [%rd1], %r10;\nst.global.u32 [%rd1+4], %r11;\n\
         st.global.u32 [%rd1+8], %r12;\nst.global.u32 [%rd1+12], %r13;\nret;",
    ),
    (
        "votes",
        "and.b32 %r10, %r4, 3;\nsetp.eq.u32 %p1, %r10, 0;\n\
         vote.sync.ballot.b32 %r11, %p1, -1;\nvote.sync.any.pred %p2, %p1, -1;\n\
         vote.sync.all.pred %p3, %p1, -1;\nvote.sync.uni.pred %p4, %p1, 0xffff;\n\
         selp.u32 %r12, 1, 0, %p2;\nselp.u32 %r13, 2, 0, %p3;\nselp.u32 %r14, 4, 0, %p4;\n\
         or.b32 %r12, %r12, %r13;\nor.b32 %r12, %r12, %r14;\n\
         activemask.b32 %r15;\n\
         st.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r12;\n\
         st.global.u32 [%rd1+8], %r15;\nret;",
    ),
    (
        "match and redux",
        "and.b32 %r10, %r4, 3;\nmatch.any.sync.b32 %r11, %r10, -1;\n\
         match.all.sync.b32 %r12|%p1, %r10, 0xf0f0f0f0;\n\
         redux.sync.add.u32 %r13, %r4, -1;\nredux.sync.min.s32 %r14, %r4, 0x7fffffff;\n\
         redux.sync.max.u32 %r15, %r4, -1;\nredux.sync.xor.b32 %r16, %r4, 0x55555555;\n\
         selp.u32 %r17, 1, 0, %p1;\n\
         st.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r12;\n\
         st.global.u32 [%rd1+8], %r13;\nst.global.u32 [%rd1+12], %r14;\n\
         st.global.u32 [%rd1+16], %r15;\nst.global.u32 [%rd1+20], %r16;\n\
         st.global.u32 [%rd1+24], %r17;\nret;",
    ),
    (
        "64-bit match",
        "cvt.u64.u32 %rd2, %r4;\nand.b64 %rd2, %rd2, 1;\nshl.b64 %rd2, %rd2, 40;\n\
         match.any.sync.b64 %r11, %rd2, -1;\nst.global.u32 [%rd1], %r11;\nret;",
    ),
    (
        "divergent arms",
        "and.b32 %r10, %r3, 8;\nsetp.eq.u32 %p1, %r10, 0;\n@%p1 bra A;\n\
         shfl.sync.bfly.b32 %r11, %r4, 1, 31, 0xff00ff00;\n\
         vote.sync.ballot.b32 %r12, %p1, 0xff00ff00;\nbra J;\n\
         A:\nshfl.sync.down.b32 %r11, %r4, 2, 7, 0x00ff00ff;\n\
         activemask.b32 %r12;\n\
         J:\nst.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r12;\nret;",
    ),
    (
        "early exit and a barrier",
        "setp.gt.u32 %p1, %r2, 40;\n@%p1 bra END;\n\
         shl.b32 %r10, %r2, 2;\ncvt.u64.u32 %rd2, %r10;\nmov.u64 %rd3, warps;\n\
         add.s64 %rd4, %rd3, %rd2;\nst.shared.u32 [%rd4], %r4;\nbar.sync 0;\n\
         xor.b32 %r12, %r10, 4;\ncvt.u64.u32 %rd2, %r12;\nadd.s64 %rd4, %rd3, %rd2;\n\
         ld.shared.u32 %r15, [%rd4];\n\
         activemask.b32 %r16;\nredux.sync.or.b32 %r17, %r15, -1;\n\
         st.global.u32 [%rd1], %r15;\nst.global.u32 [%rd1+4], %r16;\n\
         st.global.u32 [%rd1+8], %r17;\nEND:\nret;",
    ),
    (
        "divergent loop",
        "and.b32 %r10, %r4, 3;\nmov.u32 %r11, %r4;\nmov.u32 %r12, 0;\n\
         L:\nsetp.ge.u32 %p1, %r12, %r10;\n@%p1 bra OUT;\n\
         activemask.b32 %r13;\nshfl.sync.down.b32 %r14, %r11, 1, 31, %r13;\n\
         add.u32 %r11, %r11, %r14;\nadd.u32 %r12, %r12, 1;\nbra L;\n\
         OUT:\nvote.sync.ballot.b32 %r15, %p1, -1;\n\
         st.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r15;\nret;",
    ),
    (
        "uniform loop around a barrier",
        "mov.u32 %r10, 0;\nmov.u32 %r11, %r4;\n\
         L:\nshfl.sync.bfly.b32 %r12, %r11, %r10, 31, -1;\nadd.u32 %r11, %r11, %r12;\n\
         bar.sync 0;\nadd.u32 %r10, %r10, 1;\nsetp.lt.u32 %p1, %r10, 5;\n@%p1 bra L;\n\
         st.global.u32 [%rd1], %r11;\nret;",
    ),
    (
        "block count",
        "and.b32 %r10, %r4, 1;\nsetp.eq.u32 %p1, %r10, 0;\n\
         bar.red.popc.u32 %r11, 0, %p1;\nbar.red.or.pred %p2, 0, %p1;\n\
         selp.u32 %r12, 1, 0, %p2;\n\
         st.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r12;\nret;",
    ),
    (
        "elect",
        "and.b32 %r10, %r4, 1;\nsetp.eq.u32 %p1, %r10, 0;\n@%p1 bra SKIP;\n\
         elect.sync %r11|%p2, -1;\nselp.u32 %r12, 1, 0, %p2;\n\
         st.global.u32 [%rd1], %r11;\nst.global.u32 [%rd1+4], %r12;\nSKIP:\nret;",
    ),
];

/// The kernels of `simt/tests.rs` whose reads go through subgroups, plus a reduction every lane
/// stores.
fn subgroup_cases() -> Vec<(&'static str, String)> {
    vec![
        ("warp_reduce", super::tests::WARP_REDUCE.to_string()),
        (
            "lane 0 stores a butterfly",
            "mov.u32 %r1, %tid.x;\nshfl.sync.down.b32 %r2, %r1, 2, 31, -1;\n\
             shfl.sync.down.b32 %r3, %r2, 1, 31, -1;\nand.b32 %r4, %r1, 31;\n\
             setp.ne.u32 %p1, %r4, 0;\n@%p1 bra END;\n\
             ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             st.global.u32 [%rd3], %r3;\nEND:\nret;"
                .to_string(),
        ),
        (
            "every lane stores",
            "mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n\
             add.s32 %r3, %r2, %r1;\nshfl.sync.bfly.b32 %r4, %r3, 2, 31, -1;\n\
             add.s32 %r5, %r4, %r3;\nshfl.sync.down.b32 %r6, %r5, 1, 31, -1;\n\
             ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r6;\nret;"
                .to_string(),
        ),
        (
            "a float chain in a loop",
            "mov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\nmov.u32 %r5, 0;\n\
             LOOP:\nshfl.sync.bfly.b32 %f2, %f1, 1, 31, -1;\nadd.f32 %f1, %f1, %f2;\n\
             add.u32 %r5, %r5, 1;\nsetp.lt.u32 %p2, %r5, 3;\n@%p2 bra LOOP;\n\
             mov.u32 %r6, %laneid;\nsetp.ne.u32 %p1, %r6, 0;\n@%p1 bra END;\n\
             ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             st.global.f32 [%rd3], %f1;\nEND:\nret;"
                .to_string(),
        ),
    ]
}

#[test]
fn the_emulation_keeps_hand_written_warp_kernels() {
    let mut seeds = Rng(0x5171);
    for (name, body) in CASES {
        let (m, trees) = lowered(&module(&format!("{HEAD}{body}")));
        let (e, etrees) = emulated(&m, &trees, None);
        let n = same_runs(name, (&m, &trees), (&e, &etrees), &SHAPES, &mut seeds);
        assert_eq!(n, 2 * SHAPES.len(), "{name}: runs stopped as undefined");
    }
}

/// A handoff between the two warps of a block: the odd warp stores to shared memory and
/// signals with `bar.arrive`, the even one waits at `bar.sync` and loads the odd warp's words.
/// The waiting arm is the branch's target, so the `if` lists it first; the emulation must still
/// run the arriving arm first, or the loads see the words as they were.
#[test]
fn the_emulation_runs_an_arriving_arm_before_a_waiting_one() {
    let body = "shr.u32 %r10, %r2, 5;\nand.b32 %r10, %r10, 1;\nsetp.eq.u32 %p1, %r10, 0;\n\
        and.b32 %r11, %r2, 31;\nmul.wide.u32 %rd2, %r11, 4;\nmov.u64 %rd3, warps;\n\
        add.s64 %rd4, %rd3, %rd2;\n\
        @%p1 bra WAIT;\n\
        st.shared.u32 [%rd4], %r4;\nbar.arrive 1, 64;\nbra DONE;\n\
        WAIT:\nbar.sync 1, 64;\nld.shared.u32 %r12, [%rd4];\nst.global.u32 [%rd1], %r12;\n\
        DONE:\nret;";
    let (m, trees) = lowered(&module(&format!("{HEAD}{body}")));
    let (e, etrees) = emulated(&m, &trees, None);
    let n = same_runs(
        "handoff",
        (&m, &trees),
        (&e, &etrees),
        &[[64, 1, 1]],
        &mut Rng(0x5173),
    );
    assert_eq!(n, 2, "runs stopped as undefined");
}

#[test]
fn lane_reads_served_by_subgroups_keep_the_kernels() {
    let mut seeds = Rng(0x5172);
    let mut served = 0;
    for (name, body) in subgroup_cases() {
        let (m, trees) = lowered(&module(&body));
        let (e, etrees) = emulated(&m, &trees, Some(SUBGROUP));
        served += e
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| &b.insts))
            .filter(|i| matches!(i.op, ir::Op::Warp(ir::WarpOp::SubgroupRead, _)))
            .count();
        let n = same_runs(name, (&m, &trees), (&e, &etrees), &LANE_SHAPED, &mut seeds);
        assert_eq!(
            n,
            2 * LANE_SHAPED.len(),
            "{name}: runs stopped as undefined"
        );
    }
    assert!(served > 0, "no lane read went through a subgroup");
}

/// Random kernels with warp operations in uniform and divergent control flow
/// (`interp::random::warp_kernel`), before and after the emulation.
#[test]
fn the_emulation_keeps_random_warp_kernels() {
    let mut rng = Rng(0x51A7);
    let mut defined = 0;
    for case in 0..40 {
        let blocks = 1 + rng.pick(5);
        let mut m = crate::interp::random::warp_kernel(&mut rng, blocks);
        if let Err(e) = crate::verify::module(&m) {
            panic!("case {case}: the generated IR is broken: {e}\n{}", text(&m));
        }
        let trees: Vec<Vec<Node>> = m
            .functions
            .iter_mut()
            .map(|f| structurize::structurize(f).expect("shallow"))
            .collect();
        let what = format!("case {case}");
        let (e, etrees) = emulated(&m, &trees, None);
        defined += same_runs(&what, (&m, &trees), (&e, &etrees), &SHAPES, &mut rng);
        let (s, strees) = emulated(&m, &trees, Some(SUBGROUP));
        defined += same_runs(&what, (&m, &trees), (&s, &strees), &LANE_SHAPED, &mut rng);
    }
    // Each of the 40 kernels ran on 6 shapes twice; the barrier every invocation reaches keeps
    // them all defined.
    assert_eq!(defined, 40 * 6 * 2);
}
