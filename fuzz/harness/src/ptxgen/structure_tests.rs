//! The constructs that run collectives repeated or apart (uniform loops, per-warp loops, loops
//! left by a vote, per-block and per-warp branches, functions called together), handoffs
//! between warps, asynchronous copies, barrier reductions and reductions across blocks: the interpreter's values on
//! small programs written out by hand, worked out here from the ISA's text.

use super::construct_tests::{BLOCKS, eval, program, reg};
use super::print::GLOBAL_SEED;
use super::*;

/// Reductions across blocks, one in each arm of a branch the two blocks take apart: each word
/// of an operation's group holds that operation over the values of the threads that chose it,
/// whatever the order, and the other words keep the 0 they start with.
#[test]
fn reductions_across_blocks_fold_every_thread() {
    // %r0 = t (the word), %r1 = 3t + 5 (the value), %p0 from `derived_init`: %r0 < %r3.
    let p = program(
        [1, 3, 0, 0, 0, 0, 0, 0],
        [0, 5, 0, 64, 0, 0, 0, 0],
        vec![
            Stmt::CrossRed {
                op: Redux::Add,
                i: 0,
                v: 1,
            },
            Stmt::If {
                p: 0,
                neg: false,
                then: vec![Stmt::CrossRed {
                    op: Redux::MinS,
                    i: 0,
                    v: 1,
                }],
                els: vec![Stmt::CrossRed {
                    op: Redux::Xor,
                    i: 0,
                    v: 1,
                }],
            },
        ],
    );
    let out = eval(&p);
    let threads = BLOCKS * DIFF_BLOCK;
    let cross = &out[(threads * OUT_WORDS) as usize..];
    assert_eq!(cross.len(), CROSS_WORDS as usize);
    let group = |op: Redux| {
        let at = CROSS_OPS.iter().position(|&o| o == op).unwrap() * CROSS_PER_OP as usize;
        &cross[at..at + CROSS_PER_OP as usize]
    };
    let value = |t: u32| 3 * t + 5;
    for w in 0..CROSS_PER_OP {
        let mine = (0..threads).filter(|t| t % CROSS_PER_OP == w);
        let sum = mine.clone().map(value).fold(0u32, u32::wrapping_add);
        // Threads below 64 take the branch (`%r0 < %r3`): min over 0 and their values is 0.
        let xor = mine.filter(|&t| t >= 64).map(value).fold(0, |a, b| a ^ b);
        assert_eq!(group(Redux::Add)[w as usize], sum, "word {w}");
        assert_eq!(group(Redux::MinS)[w as usize], 0, "word {w}");
        assert_eq!(group(Redux::Xor)[w as usize], xor, "word {w}");
    }
    for op in [Redux::MaxU, Redux::MaxS, Redux::Or] {
        assert!(group(op).iter().all(|&w| w == 0), "{op:?}");
    }
}

/// A shuffle inside a loop every thread runs to the end reads, in each iteration, the values
/// the other lanes hold after the previous one.
#[test]
fn shuffles_in_uniform_loops_see_each_iteration() {
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0; NR as usize],
        vec![Stmt::Loop {
            trips: 3,
            uniform: true,
            body: vec![
                Stmt::Shfl {
                    mode: ShflMode::Down,
                    d: 1,
                    a: 0,
                    lane: Src::Imm(1),
                    c: 0x1f,
                },
                Stmt::Bar,
                Stmt::Bin {
                    op: Bin::Add,
                    signed: false,
                    d: 0,
                    a: 0,
                    b: Src::Reg(1),
                },
            ],
        }],
    );
    let out = eval(&p);
    for warp in 0..BLOCKS * DIFF_BLOCK / 32 {
        // `shfl.down` by 1: lane 31 has no source and reads its own value.
        let mut v: Vec<u32> = (0..32).map(|l| warp * 32 + l).collect();
        for _ in 0..3 {
            v = (0..32).map(|l| v[l] + v[(l + 1).min(31)]).collect();
        }
        for (l, want) in v.iter().enumerate() {
            assert_eq!(
                reg(&out, warp * 32 + l as u32, 0),
                *want,
                "lane {l} of warp {warp}"
            );
        }
    }
}

/// A branch each block takes whole: block 1 runs the `then` arm's reduction (inside a second
/// such branch, which block 1 takes too), block 0 the `else` arm's shuffle and barrier, each
/// over its own warps.
#[test]
fn block_branches_run_collectives_per_block() {
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 9, 0, 0, 0, 0, 0, 0],
        vec![Stmt::BlockIf {
            odd: true,
            then: vec![Stmt::BlockIf {
                odd: true,
                then: vec![Stmt::Redux {
                    op: Redux::Add,
                    d: 1,
                    a: 0,
                }],
                els: vec![Stmt::Mov {
                    d: 1,
                    s: Src::Imm(7),
                }],
            }],
            els: vec![
                Stmt::Bar,
                Stmt::Shfl {
                    mode: ShflMode::Idx,
                    d: 1,
                    a: 0,
                    lane: Src::Imm(0),
                    c: 0x1f,
                },
            ],
        }],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let base = t / 32 * 32;
        let want = if t / DIFF_BLOCK == 1 {
            (base..base + 32).sum()
        } else {
            base
        };
        assert_eq!(reg(&out, t, 1), want, "thread {t}");
    }
}

/// A branch each warp takes whole: the odd warp of each block runs the `then` arm's vote, the
/// even one the `else` arm's shuffle, each over its own lanes.
#[test]
fn warp_branches_run_warp_operations_per_warp() {
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 9, 0, 0, 0, 0, 0, 0],
        vec![Stmt::WarpIf {
            odd: true,
            then: vec![Stmt::Vote {
                op: Vote::Ballot,
                d: 1,
                p: 0,
            }],
            els: vec![Stmt::Shfl {
                mode: ShflMode::Idx,
                d: 1,
                a: 0,
                lane: Src::Imm(3),
                c: 0x1f,
            }],
        }],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let base = t / 32 * 32;
        // `%p0` is `%r0 < %r3`, with `%r3` = 0: false everywhere, so the ballot is 0.
        let want = if t / 32 % 2 == 1 { 0 } else { base + 3 };
        assert_eq!(reg(&out, t, 1), want, "thread {t}");
    }
}

/// A loop each warp runs for its own number of iterations: `redux.sync.add` of `%r0` into
/// `%r0` makes every lane hold its warp's sum `S`, and each further iteration multiplies it
/// by the warp's 32 lanes. The even warps run once, the odd ones three times.
#[test]
fn warp_loops_run_each_warps_own_iterations() {
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        vec![Stmt::WarpLoop {
            trips: 1,
            extra: 2,
            odd: true,
            body: vec![Stmt::Redux {
                op: Redux::Add,
                d: 0,
                a: 0,
            }],
        }],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let base = t / 32 * 32;
        let sum = 32 * base + 31 * 32 / 2;
        let want = if t / 32 % 2 == 1 { 32 * 32 * sum } else { sum };
        assert_eq!(reg(&out, t, 0), want, "thread {t}");
    }
}

/// A loop each warp leaves by a vote: lane `l` of warp `w` asks for `(l & w) + 1` iterations,
/// so warp 0 runs one and warp 1 two, its even lanes included. `redux.sync.add` of `%r1` (1
/// on entry) gives 32 after one iteration and 32 * 32 after two.
#[test]
fn vote_loops_run_the_warps_largest_count() {
    let p = program(
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 0, 0],
        vec![
            Stmt::Special {
                d: 0,
                reg: Special::Laneid,
            },
            Stmt::Special {
                d: 4,
                reg: Special::TidX,
            },
            Stmt::Bin {
                op: Bin::ShrU,
                signed: false,
                d: 4,
                a: 4,
                b: Src::Imm(5),
            },
            Stmt::Bin {
                op: Bin::And,
                signed: false,
                d: 0,
                a: 0,
                b: Src::Reg(4),
            },
            Stmt::VoteLoop {
                r: 0,
                body: vec![Stmt::Redux {
                    op: Redux::Add,
                    d: 1,
                    a: 1,
                }],
            },
        ],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let want = if t / 32 % 2 == 1 { 32 * 32 } else { 32 };
        assert_eq!(reg(&out, t, 1), want, "thread {t}");
    }
}

/// A handoff from the odd warp to the even one: producer thread `p` of each block stores
/// `t + 1000` (`t` its global index) to its word `4p`; consumer thread `c` loads word
/// `(4t + 128) % 256`, which is `4 (c + 32)`, its producer's: `t + 32 + 1000`. The producers
/// load nothing and keep their `%r3`.
#[test]
fn handoffs_pass_the_producers_words() {
    let p = program(
        [1, 4, 0, 0, 0, 0, 0, 0],
        [1000, 128, 0, 5, 0, 0, 0, 0],
        vec![Stmt::Handoff {
            odd: true,
            v: 0,
            sel: 2,
            d: 3,
            i: 1,
        }],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let want = if t / 32 % 2 == 1 { 5 } else { t + 32 + 1000 };
        assert_eq!(reg(&out, t, 3), want, "thread {t}");
    }
}

/// `cp.async` of a word of the block's region of `gm` into the thread's own shared word
/// (`%r2` = 0: word `4 tid`), then a load of that same word (`%r3` = `4t`, modulo 256): each
/// thread `t` of block `b` reads back `gm`'s starting value of word `(t + 3) % 256` of its
/// block's region, with and without a committed group.
#[test]
fn async_copies_land_before_the_barrier() {
    for group in [false, true] {
        let p = program(
            [0, 1, 0, 4, 0, 0, 0, 0],
            [0, 3, 0, 0, 0, 0, 0, 0],
            vec![Stmt::CpAsync {
                sel: 2,
                src: 1,
                d: 4,
                i: 3,
                group,
            }],
        );
        let out = eval(&p);
        for t in 0..BLOCKS * DIFF_BLOCK {
            let word = t / DIFF_BLOCK * GLOBAL_WORDS + (t + 3) % 256;
            let want = word.wrapping_mul(GLOBAL_SEED);
            assert_eq!(reg(&out, t, 4), want, "thread {t}");
        }
    }
}

/// Functions whose top level runs collectives: a warp function's `redux.sync.add` of its
/// argument gives each lane its warp's sum, called by the whole block and by the odd warps in
/// a per-warp branch; a block function's `bar.red.popc` of `%p0` (its `%r0 < %r3`, with the
/// argument `t` in `%r0` and 100 in `%r3`) counts the block's threads below 100.
#[test]
fn collective_functions_run_with_their_callers() {
    let mut init = [0u32; NR as usize];
    init[3] = 100;
    let mut p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 7, 0, 0, 0, 0],
        vec![
            Stmt::Call {
                f: 0,
                d: 1,
                a: 0,
                b: 0,
            },
            Stmt::Call {
                f: 1,
                d: 2,
                a: 0,
                b: 0,
            },
            Stmt::WarpIf {
                odd: true,
                then: vec![Stmt::Call {
                    f: 0,
                    d: 3,
                    a: 0,
                    b: 0,
                }],
                els: Vec::new(),
            },
        ],
    );
    p.funcs = vec![
        Func {
            init,
            body: vec![Stmt::Redux {
                op: Redux::Add,
                d: 0,
                a: 0,
            }],
            level: FuncLevel::Warp,
        },
        Func {
            init,
            body: vec![Stmt::BarRed {
                op: BarRed::Popc,
                d: 0,
                p: 0,
                neg: false,
            }],
            level: FuncLevel::Block,
        },
    ];
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let base = t / 32 * 32;
        let sum = 32 * base + 31 * 32 / 2;
        assert_eq!(reg(&out, t, 1), sum, "thread {t}");
        let below = if t < DIFF_BLOCK { 64 } else { 100 - 64 };
        assert_eq!(reg(&out, t, 2), below, "thread {t}");
        let odd_warp = if t / 32 % 2 == 1 { sum } else { 7 };
        assert_eq!(reg(&out, t, 3), odd_warp, "thread {t}");
    }
}

/// `bar.red` combines a predicate over each block: with `%p0` = `t < 100`, every thread of
/// block 0 and 36 of block 1 count; `and` holds in block 0 only, `or` in both, and `!%p0`
/// counts the rest.
#[test]
fn barrier_reductions_combine_each_block() {
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 100, 0, 0, 0, 0],
        vec![
            Stmt::BarRed {
                op: BarRed::Popc,
                d: 1,
                p: 0,
                neg: false,
            },
            Stmt::BarRed {
                op: BarRed::Popc,
                d: 2,
                p: 0,
                neg: true,
            },
            Stmt::BarRed {
                op: BarRed::And,
                d: 1,
                p: 0,
                neg: false,
            },
            Stmt::BarRed {
                op: BarRed::Or,
                d: 2,
                p: 0,
                neg: false,
            },
            // The predicates as registers: `%r4 = %p1 ? 1 : 0`, `%r5 = %p2 ? 1 : 0`.
            Stmt::Mov {
                d: 4,
                s: Src::Imm(0),
            },
            Stmt::Mov {
                d: 6,
                s: Src::Imm(1),
            },
            Stmt::Selp {
                d: 4,
                a: 6,
                b: Src::Reg(4),
                p: 1,
            },
            Stmt::Mov {
                d: 5,
                s: Src::Imm(0),
            },
            Stmt::Selp {
                d: 5,
                a: 6,
                b: Src::Reg(5),
                p: 2,
            },
        ],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let first = t < DIFF_BLOCK;
        let count = if first { 64 } else { 36 };
        assert_eq!(reg(&out, t, 1), count, "thread {t}");
        assert_eq!(reg(&out, t, 2), 64 - count, "thread {t}");
        assert_eq!(reg(&out, t, 4), u32::from(first), "thread {t}");
        assert_eq!(reg(&out, t, 5), 1, "thread {t}");
    }
}
