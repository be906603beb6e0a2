//! The uniformity analysis on small kernels, judged by the PTX meaning of the registers involved
//! (`%tid` differs between the threads of a block; `%ntid`, `%ctaid` and kernel parameters do
//! not), and the emulation's use of it.

use super::uniform::{Uniformity, analyze};
use super::{U, to_labelled};
use crate::ir::{AtomicOp, Function, Op};
use crate::structurize::Node;
use crate::{DeviceProfile, Program, SourceFile, ir, lower, structurize};

/// The kernel `k` of `body` (a kernel with parameters `out: u64, n: u32`) lowered for lavapipe,
/// with synchronizing functions inlined and structurized, as the emulation sees it.
fn kernel(body: &str) -> (Function, Vec<Node>) {
    kernel_on("sm_70", body)
}

/// [`kernel`] for the target `target`.
fn kernel_on(target: &str, body: &str) -> (Function, Vec<Node>) {
    let text = format!(
        ".version 7.0\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u32 n)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n{body}\n}}\n"
    );
    let program = match Program::parse(SourceFile::new("t.ptx", text)) {
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
    let entry = m.entry.0 as usize;
    let mut f = m.functions.swap_remove(entry);
    let tree = structurize::structurize(&mut f).expect("shallow");
    (f, tree)
}

/// The analysis, and in tree order the uniformity of each `if` condition and of each loop.
fn analyzed(body: &str) -> (Vec<bool>, Vec<bool>) {
    let (f, tree) = kernel(body);
    let labelled = to_labelled(tree, &mut Vec::new(), &mut 0);
    let uni = analyze(&f, &labelled);
    let (mut ifs, mut loops) = (Vec::new(), Vec::new());
    collect(&labelled, &uni, &mut ifs, &mut loops);
    (ifs, loops)
}

fn collect(nodes: &[U], uni: &Uniformity, ifs: &mut Vec<bool>, loops: &mut Vec<bool>) {
    for n in nodes {
        match n {
            U::If { cond, then, else_ } => {
                ifs.push(uni.value(*cond));
                collect(then, uni, ifs, loops);
                collect(else_, uni, ifs, loops);
            }
            U::Loop(id, body) => {
                loops.push(uni.uniform_construct(*id));
                collect(body, uni, ifs, loops);
            }
            U::Block(_, body) => collect(body, uni, ifs, loops),
            U::Switch { cases, default, .. } => {
                for c in cases {
                    collect(c, uni, ifs, loops);
                }
                collect(default, uni, ifs, loops);
            }
            _ => {}
        }
    }
}

/// A loop around `bar.sync` whose exit test compares the counter with `bound` (a register
/// prepared by `setup`).
fn counted_loop(setup: &str) -> String {
    format!(
        "mov.u32 %r3, %tid.x;\nld.param.u32 %r1, [n];\n{setup}\nmov.u32 %r2, 0;\n\
         LOOP:\nbar.sync 0;\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, %r5;\n@%p1 bra LOOP;\nret;"
    )
}

#[test]
fn loops_bounded_by_block_constants_are_uniform() {
    for setup in [
        "mov.u32 %r5, %r1;",                             // a kernel parameter
        "mov.u32 %r5, %ntid.x;",                         // the block size
        "mov.u32 %r5, %ctaid.x;\nadd.u32 %r5, %r5, 3;",  // the block's index, computed on
        "mov.u32 %r5, %nctaid.y;\nshl.b32 %r5, %r5, 1;", // the grid size
        "mov.u32 %r5, 7;",                               // a constant
    ] {
        let (ifs, loops) = analyzed(&counted_loop(setup));
        assert_eq!(loops, [true], "{setup}");
        assert!(ifs.iter().all(|&u| u), "{setup}: {ifs:?}");
    }
}

#[test]
fn loops_bounded_by_thread_values_are_divergent() {
    for setup in [
        "mov.u32 %r5, %r3;",                                     // %tid.x
        "mov.u32 %r5, %laneid;",                                 // the lane
        "mov.u32 %r5, %clock;",                                  // a per-subgroup cycle counter
        "add.u32 %r5, %r1, %r3;",                                // parameter + %tid
        "ld.param.u64 %rd1, [out];\nld.global.u32 %r5, [%rd1];", // memory others may write
        // A texel at a coordinate that differs between threads (the results are written by
        // the texture operation, not stored).
        "ld.param.u64 %rd1, [out];\ntex.1d.v4.u32.s32 {%r5, %r6, %r7, %r8}, [%rd1, {%r3}];",
        // Written under a condition on %tid: differs between threads afterwards.
        "mov.u32 %r5, 4;\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra SKIP;\nmov.u32 %r5, 9;\nSKIP:",
    ] {
        let (_, loops) = analyzed(&counted_loop(setup));
        assert_eq!(loops, [false], "{setup}");
    }
}

#[test]
fn results_of_helper_functions_are_as_uniform_as_their_arguments() {
    // Lavapipe does not fuse: `fma.rn.f32` is a call of a helper function (lower/helper.rs),
    // whose result depends on its arguments alone, unlike a PTX function's.
    let uniform = counted_loop("fma.rn.f32 %r5, %r1, %r1, %r1;");
    let (f, _) = kernel(&uniform);
    let pure_calls = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(i.op, Op::Call(c) if f.side.call(c).pure))
        .count();
    assert_eq!(pure_calls, 1);
    assert_eq!(analyzed(&uniform).1, [true]);
    let per_thread = counted_loop("fma.rn.f32 %r5, %r1, %r3, %r1;");
    assert_eq!(analyzed(&per_thread).1, [false]);
}

#[test]
fn a_divergent_break_makes_the_loop_and_its_counter_divergent() {
    // The back edge is uniform, but threads with %tid == 0 leave early: afterwards the counter
    // differs between threads, so the second loop (bounded by it) is divergent too.
    let body = "mov.u32 %r3, %tid.x;\nmov.u32 %r2, 0;\n\
                A:\nbar.sync 0;\nadd.u32 %r2, %r2, 1;\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra OUT;\n\
                setp.lt.u32 %p1, %r2, 8;\n@%p1 bra A;\n\
                OUT:\nmov.u32 %r4, 0;\n\
                B:\nbar.sync 0;\nadd.u32 %r4, %r4, 1;\nsetp.lt.u32 %p3, %r4, %r2;\n@%p3 bra B;\nret;";
    let (_, loops) = analyzed(body);
    assert_eq!(loops, [false, false]);
    // Without the early exit both are uniform.
    let body = body.replace("@%p2 bra OUT;", "");
    let (_, loops) = analyzed(&body);
    assert_eq!(loops, [true, true]);
}

#[test]
fn a_uniform_loop_may_hold_divergent_ifs() {
    // The reduction tree's shape: `if (tid < stride)` inside a loop over the stride.
    let body = "mov.u32 %r3, %tid.x;\nmov.u32 %r2, %ntid.x;\n\
                L:\nshr.u32 %r2, %r2, 1;\nsetp.ge.u32 %p2, %r3, %r2;\n@%p2 bra SKIP;\n\
                add.u32 %r6, %r6, 1;\nSKIP:\nbar.sync 0;\nsetp.gt.u32 %p1, %r2, 1;\n@%p1 bra L;\nret;";
    let (ifs, loops) = analyzed(body);
    assert_eq!(loops, [true]);
    assert!(ifs.contains(&false), "the test on %tid: {ifs:?}");
    assert!(ifs.contains(&true), "the loop's exit test: {ifs:?}");
}

#[test]
fn a_divergent_loop_makes_everything_in_it_divergent() {
    // The inner loop's bound is uniform, but it runs inside a loop that threads leave at
    // different times, so it is divergent as well.
    let body = "mov.u32 %r3, %tid.x;\nmov.u32 %r2, 0;\n\
                O:\nmov.u32 %r4, 0;\n\
                I:\nbar.sync 0;\nadd.u32 %r4, %r4, 1;\nsetp.lt.u32 %p1, %r4, 4;\n@%p1 bra I;\n\
                add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, %r3;\n@%p2 bra O;\nret;";
    let (_, loops) = analyzed(body);
    assert_eq!(loops, [false, false]);
}

/// The blocks a tree runs.
fn tree_blocks(nodes: &[Node], out: &mut Vec<ir::BlockId>) {
    for n in nodes {
        match n {
            Node::Code(b) => out.push(*b),
            Node::If { then, else_, .. } => {
                tree_blocks(then, out);
                tree_blocks(else_, out);
            }
            Node::Block(body) | Node::Loop(body) => tree_blocks(body, out),
            Node::Switch { cases, default, .. } => {
                for c in cases {
                    tree_blocks(c, out);
                }
                tree_blocks(default, out);
            }
            _ => {}
        }
    }
}

/// How many block-wide votes (the emulation's loop test) the emulated kernel runs.
fn votes(body: &str) -> usize {
    let (mut f, mut tree) = kernel(body);
    super::emulate(&mut f, &mut tree).expect("the kernel synchronizes");
    let mut blocks = Vec::new();
    tree_blocks(&tree, &mut blocks);
    blocks
        .iter()
        .flat_map(|b| &f.block(*b).insts)
        .filter(|i| {
            matches!(
                i.op,
                Op::Atomic {
                    op: AtomicOp::Or,
                    ..
                }
            )
        })
        .count()
}

#[test]
fn the_emulation_votes_only_on_divergent_loops() {
    assert_eq!(votes(&counted_loop("mov.u32 %r5, %ntid.x;")), 0);
    assert_eq!(votes(&counted_loop("mov.u32 %r5, %r3;")), 1);
}

#[test]
fn a_uniform_early_exit_keeps_later_loops_native() {
    // Blocks past the end of the data leave at once: every thread of such a block does.
    let loop_ = counted_loop("mov.u32 %r5, %ntid.x;");
    for exit in ["@%p6 bra END;", "@%p6 ret;"] {
        let body = format!(
            "ld.param.u32 %r12, [n];\nmov.u32 %r13, %ctaid.x;\nsetp.ge.u32 %p6, %r13, %r12;\n{exit}\n\
             {}\nEND:\nret;",
            loop_.replace("ret;", "")
        );
        assert_eq!(votes(&body), 0, "{exit}");
        // The same exit decided per thread must keep the vote.
        let body = body.replace("%ctaid.x", "%tid.y");
        assert_eq!(votes(&body), 1, "{exit} on %tid.y");
    }
}

#[test]
fn the_scratch_layout_is_computed_once_per_kernel() {
    // Three exchanges: their frames' thread id and scratch areas come from the kernel's first
    // block (one read of the scratch base), not from each operation.
    let body = "mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n\
                shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;\nshfl.sync.bfly.b32 %r4, %r3, 4, 31, -1;\n\
                ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r4;\nret;";
    let (mut f, mut tree) = kernel(body);
    super::emulate(&mut f, &mut tree).expect("the kernel synchronizes");
    let reads = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(i.op, Op::Builtin(ir::Builtin::ScratchBase)))
        .count();
    assert_eq!(reads, 1);
}

/// The barriers of the emulated kernel and the scratch words per thread it asks for.
fn barriers(body: &str) -> (usize, u32) {
    barriers_on("sm_70", body)
}

/// [`barriers`] for the target `target`.
fn barriers_on(target: &str, body: &str) -> (usize, u32) {
    let (mut f, mut tree) = kernel_on(target, body);
    let words = super::emulate(&mut f, &mut tree).expect("the kernel synchronizes");
    let mut blocks = Vec::new();
    tree_blocks(&tree, &mut blocks);
    let n = blocks
        .iter()
        .flat_map(|b| &f.block(*b).insts)
        .filter(|i| matches!(i.op, Op::Barrier))
        .count();
    (n, words)
}

#[test]
fn a_one_word_shuffle_waits_at_one_barrier() {
    // Two shuffles, a ballot (three barriers: its own first one, then the atomic's two), a
    // third shuffle: one barrier per shuffle, in the second pair of scratch areas.
    let body = "mov.u32 %r1, %tid.x;\nshfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n\
                shfl.sync.down.b32 %r3, %r2, 2, 31, -1;\nsetp.ne.u32 %p1, %r3, 0;\n\
                vote.sync.ballot.b32 %r4, %p1, -1;\nshfl.sync.idx.b32 %r5, %r4, 3, 31, -1;\n\
                ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r5;\nret;";
    assert_eq!(barriers(body), (6, 5));
    // Without a shuffle the second pair is not laid out.
    let body = "mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 0;\n\
                vote.sync.ballot.b32 %r4, %p1, -1;\n\
                ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r4;\nret;";
    assert_eq!(barriers(body), (3, 3));
}

#[test]
fn an_mma_waits_at_one_barrier() {
    // An m16n8k16 f16 `mma` gathers 32 registers from other lanes (the ISA's fragment tables:
    // the 16 words of A's rows groupID and groupID + 8, the 16 of B's columns
    // 2 * threadID_in_group and the next). They are one exchange: one barrier per `mma`, and
    // per thread the three words of the single exchanges plus two batch sets of a flag and 32
    // values.
    let mma = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r8, %r9, %r10, %r11}, \
               {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r8, %r9, %r10, %r11};";
    let body = format!(
        "mov.u32 %r0, %tid.x;\nadd.u32 %r1, %r0, 1;\nadd.u32 %r2, %r0, 2;\n\
         add.u32 %r3, %r0, 3;\nadd.u32 %r4, %r0, 4;\nadd.u32 %r5, %r0, 5;\n\
         mov.u32 %r8, 0;\nmov.u32 %r9, 0;\nmov.u32 %r10, 0;\nmov.u32 %r11, 0;\n\
         {mma}\n{mma}\nld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r8;\nret;"
    );
    assert_eq!(barriers_on("sm_80", &body), (2, 3 + 2 * (1 + 32)));
}
