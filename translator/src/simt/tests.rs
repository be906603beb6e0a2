//! The uniformity analysis on small kernels, judged by the PTX meaning of the registers involved
//! (`%tid` differs between the threads of a block; `%ntid`, `%ctaid` and kernel parameters do
//! not), and the emulation's use of it.

use super::uniform::{Uniformity, analyze};
use super::{Labelled, to_labelled};
use crate::ir;
use crate::ir::{AtomicOp, Function, Op};
use crate::structurize::Node;

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
    kernel_of(text)
}

/// The first kernel of the module `text`, as [`kernel`] makes it.
fn kernel_of(text: String) -> (Function, Vec<Node>) {
    let (mut m, mut trees) = super::interp_tests::lowered(&text);
    let entry = m.entry.0 as usize;
    (m.functions.swap_remove(entry), trees.swap_remove(entry))
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

fn collect(nodes: &[Labelled], uni: &Uniformity, ifs: &mut Vec<bool>, loops: &mut Vec<bool>) {
    for n in nodes {
        match n {
            Labelled::If { cond, then, else_ } => {
                ifs.push(uni.value(*cond));
                collect(then, uni, ifs, loops);
                collect(else_, uni, ifs, loops);
            }
            Labelled::Loop(id, body) => {
                loops.push(uni.uniform_construct(*id));
                collect(body, uni, ifs, loops);
            }
            Labelled::Block(_, body) => collect(body, uni, ifs, loops),
            Labelled::Switch { cases, default, .. } => {
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
    super::emulate(&mut f, &mut tree)
        .expect("the emulation keeps the kernel")
        .expect("the kernel synchronizes");
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
    super::emulate(&mut f, &mut tree)
        .expect("the emulation keeps the kernel")
        .expect("the kernel synchronizes");
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
    let words = super::emulate(&mut f, &mut tree)
        .expect("the emulation keeps the kernel")
        .expect("the kernel synchronizes");
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

/// The emulated kernel `k` of module `text` with lane reads inside groups of `group` lanes
/// served by the subgroup (`None`: none): its barriers, its subgroup reads.
fn served(text: &str, group: Option<u32>) -> (usize, usize) {
    let (mut f, mut tree) = kernel_of(text.to_string());
    if let Some(g) = group {
        super::serve_in_subgroups(&mut f, &tree, g, &[]);
    }
    super::emulate(&mut f, &mut tree).expect("the emulation keeps the kernel");
    let mut blocks = Vec::new();
    tree_blocks(&tree, &mut blocks);
    let count = |p: &dyn Fn(&Op) -> bool| {
        blocks
            .iter()
            .flat_map(|b| &f.block(*b).insts)
            .filter(|i| p(&i.op))
            .count()
    };
    (
        count(&|op| matches!(op, Op::Barrier)),
        count(&|op| matches!(op, Op::Warp(ir::WarpOp::SubgroupRead, _))),
    )
}

/// A module with one kernel `k(in, out)` around `body` (registers `%r`, `%f`, `%p`, `%rd`).
fn module(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<40>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n\
         .shared .align 4 .b8 warps[32];\n{body}\n}}\n"
    )
}

/// `shaders/bench/bench.cu`'s `warp_reduce` as clang compiles it: a warp sum whose lane 0
/// stores, a barrier, and warp 0's sum of 8 values read by thread 0.
pub(super) const WARP_REDUCE: &str = "ld.param.u64 %rd5, [in];\ncvta.to.global.u64 %rd7, %rd5;\n\
    mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\nshl.b32 %r7, %r2, 8;\n\
    add.s32 %r8, %r7, %r1;\nmul.wide.u32 %rd8, %r8, 4;\nadd.s64 %rd9, %rd7, %rd8;\n\
    ld.global.u32 %r9, [%rd9];\n\
    shfl.sync.down.b32 %r10, %r9, 16, 31, -1;\nadd.s32 %r11, %r10, %r9;\n\
    shfl.sync.down.b32 %r12, %r11, 8, 31, -1;\nadd.s32 %r13, %r12, %r11;\n\
    shfl.sync.down.b32 %r14, %r13, 4, 31, -1;\nadd.s32 %r15, %r14, %r13;\n\
    shfl.sync.down.b32 %r16, %r15, 2, 31, -1;\nadd.s32 %r17, %r16, %r15;\n\
    shfl.sync.down.b32 %r18, %r17, 1, 31, -1;\n\
    and.b32 %r19, %r1, 31;\nsetp.ne.s32 %p1, %r19, 0;\nmov.u64 %rd11, warps;\n\
    @%p1 bra L2;\nadd.s32 %r3, %r18, %r17;\nshr.u32 %r20, %r1, 5;\n\
    mul.wide.u32 %rd10, %r20, 4;\nadd.s64 %rd2, %rd11, %rd10;\nst.shared.u32 [%rd2], %r3;\n\
    L2:\nbar.sync 0;\nsetp.gt.u32 %p2, %r1, 31;\n@%p2 bra L7;\n\
    setp.gt.u32 %p3, %r1, 7;\nmov.b32 %r27, 0;\n@%p3 bra L5;\n\
    mul.wide.u32 %rd12, %r1, 4;\nadd.s64 %rd3, %rd11, %rd12;\nld.shared.u32 %r27, [%rd3];\n\
    L5:\nshfl.sync.down.b32 %r22, %r27, 4, 31, -1;\nadd.s32 %r23, %r22, %r27;\n\
    shfl.sync.down.b32 %r24, %r23, 2, 31, -1;\nadd.s32 %r25, %r24, %r23;\n\
    shfl.sync.down.b32 %r26, %r25, 1, 31, -1;\nsetp.ne.s32 %p4, %r1, 0;\n@%p4 bra L7;\n\
    ld.param.u64 %rd6, [out];\ncvta.to.global.u64 %rd1, %rd6;\nadd.s32 %r6, %r26, %r25;\n\
    mul.wide.u32 %rd14, %r2, 4;\nadd.s64 %rd4, %rd1, %rd14;\nst.global.u32 [%rd4], %r6;\n\
    L7:\nret;";

#[test]
fn a_reduction_read_by_lane_0_exchanges_only_across_subgroups() {
    // Lane 0 of each warp stores the first sum: it reads lane 1 (down 1), which read lanes
    // 2..3 (down 2), which read 4..7 (down 4): within the first 8 lanes. Down 8 and down 16
    // are needed in lanes 0..7 and 0..15 and read lanes 8..15 and 16..31: exchanges. Thread 0
    // alone reads the second sum, all of it within lanes 0..7. Of 8 exchanges and the
    // `bar.sync`, 2 and the `bar.sync` remain.
    let text = module(WARP_REDUCE);
    let (before, none) = served(&text, None);
    assert_eq!(none, 0);
    let (after, reads) = served(&text, Some(8));
    assert_eq!(reads, 6);
    assert_eq!(before - after, 6, "{before} barriers before, {after} after");
    // Subgroups of 4: down 4 crosses them too.
    let (after4, reads4) = served(&text, Some(4));
    assert_eq!((before - after4, reads4), (4, 4));
    // Of 16: down 8 stays inside.
    let (after16, reads16) = served(&text, Some(16));
    assert_eq!((before - after16, reads16), (7, 7));
}

#[test]
fn a_reduction_every_lane_stores_stays_an_exchange() {
    // Every lane stores its sum: each lane's read is observed, and lane 7 reads lane 8.
    let body = "mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n\
                add.s32 %r3, %r2, %r1;\nshfl.sync.bfly.b32 %r4, %r3, 2, 31, -1;\n\
                add.s32 %r5, %r4, %r3;\nshfl.sync.down.b32 %r6, %r5, 1, 31, -1;\n\
                ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\n\
                add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r6;\nret;";
    // bfly 1 and 2 stay inside groups of 8 whoever needs them; down 1 does not (lane 7).
    let (_, reads) = served(&module(body), Some(8));
    assert_eq!(reads, 2);
    // The same stored only by lanes below 7 (`%laneid < 7`): down 1 reads lanes 1..7.
    let guarded = body.replace(
        "ld.param.u64 %rd1, [out];",
        "mov.u32 %r9, %laneid;\nsetp.ge.u32 %p1, %r9, 7;\n@%p1 bra END;\nld.param.u64 %rd1, [out];",
    ).replace("ret;", "END:\nret;");
    let (_, reads) = served(&module(&guarded), Some(8));
    assert_eq!(reads, 3);
}

#[test]
fn a_guard_that_is_no_lane_predicate_keeps_the_exchanges() {
    // `tid.x == n` (a parameter) may hold in any lane; `tid.x / 32 == 0` too.
    for guard in [
        "ld.param.u32 %r20, [in];\nsetp.ne.u32 %p1, %r1, %r20;",
        "shr.u32 %r20, %r1, 5;\nsetp.ne.u32 %p1, %r20, 0;",
    ] {
        let body = format!(
            "mov.u32 %r1, %tid.x;\nshfl.sync.down.b32 %r2, %r1, 16, 31, -1;\n\
             shfl.sync.down.b32 %r3, %r2, 8, 31, -1;\n{guard}\n@%p1 bra END;\n\
             ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r3;\nEND:\nret;"
        );
        assert_eq!(served(&module(&body), Some(8)).1, 0, "{guard}");
    }
    // With `(tid.x & 31) == 0` lane 0 stores: down 8 reads lane 8, down 16 (needed in lanes
    // 0 and 8) reads 16 and 24: still exchanges. Down 2 then down 1 go native.
    let body = "mov.u32 %r1, %tid.x;\nshfl.sync.down.b32 %r2, %r1, 2, 31, -1;\n\
                shfl.sync.down.b32 %r3, %r2, 1, 31, -1;\nand.b32 %r4, %r1, 31;\n\
                setp.ne.u32 %p1, %r4, 0;\n@%p1 bra END;\n\
                ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r3;\nEND:\nret;";
    assert_eq!(served(&module(body), Some(8)).1, 2);
}

#[test]
fn a_float_chain_in_a_loop_is_served_where_its_reads_stay_inside() {
    // A loop keeps re-reading a register written in it: the variable's every store feeds
    // every load. Bfly 1 inside the loop, lane 0 stores after it.
    let body = "mov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\nmov.u32 %r5, 0;\n\
                LOOP:\nshfl.sync.bfly.b32 %f2, %f1, 1, 31, -1;\nadd.f32 %f1, %f1, %f2;\n\
                add.u32 %r5, %r5, 1;\nsetp.lt.u32 %p2, %r5, 3;\n@%p2 bra LOOP;\n\
                mov.u32 %r6, %laneid;\nsetp.ne.u32 %p1, %r6, 0;\n@%p1 bra END;\n\
                ld.param.u64 %rd1, [out];\nst.global.f32 [%rd1], %f1;\nEND:\nret;";
    assert_eq!(served(&module(body), Some(8)).1, 1);
    // Bfly 8 in the loop: lane 0 reads lane 8.
    let far = body.replace("%f1, 1, 31", "%f1, 8, 31");
    assert_eq!(served(&module(&far), Some(8)).1, 0);
}

#[test]
fn a_read_between_shared_accesses_keeps_its_barrier() {
    // Lane l writes a shared word, the exchange's barrier, then reads its neighbour's word:
    // without the barrier the write could be unseen.
    let body = "mov.u32 %r1, %tid.x;\nmov.u64 %rd1, warps;\nand.b32 %r2, %r1, 7;\n\
                mul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
                st.shared.u32 [%rd3], %r1;\nshfl.sync.down.b32 %r3, %r1, 1, 31, -1;\n\
                ld.shared.u32 %r4, [%rd1];\nadd.s32 %r5, %r3, %r4;\n\
                and.b32 %r6, %r1, 31;\nsetp.ne.u32 %p1, %r6, 0;\n@%p1 bra END;\n\
                ld.param.u64 %rd5, [out];\nst.global.u32 [%rd5], %r5;\nEND:\nret;";
    assert_eq!(served(&module(body), Some(8)).1, 0);
    // A global store after it orders nothing the shared write needs; nor does one after a
    // global read (the load-reduce-store of most kernels).
    let body = body.replace("ld.shared.u32 %r4, [%rd1];", "mov.u32 %r4, 0;");
    assert_eq!(served(&module(&body), Some(8)).1, 1);
    let load = body
        .replace(
            "st.shared.u32 [%rd3], %r1;",
            "ld.param.u64 %rd6, [in];\nld.global.u32 %r7, [%rd6];",
        )
        .replace("add.s32 %r5, %r3, %r4;", "add.s32 %r5, %r3, %r7;");
    assert_eq!(served(&module(&load), Some(8)).1, 1);
    // A global store before it and a global load after it keep it.
    let store = body
        .replace(
            "st.shared.u32 [%rd3], %r1;",
            "ld.param.u64 %rd6, [in];\nst.global.u32 [%rd6], %r1;",
        )
        .replace("mov.u32 %r4, 0;", "ld.global.u32 %r4, [%rd6];");
    assert_eq!(served(&module(&store), Some(8)).1, 0);
}
