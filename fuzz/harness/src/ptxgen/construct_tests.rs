//! The constructs added for partial member masks, global memory and narrow types: that the
//! generator draws each of them (and those `structure_tests.rs` checks), and that the
//! interpreter gives what the ISA says on small programs written out by hand, the expected
//! values worked out here from the ISA's text.

use arbitrary::Unstructured;

use super::print::{GLOBAL_SEED, LOCAL_SEED};
use super::*;

/// Two blocks of [`DIFF_BLOCK`] threads.
pub(super) const BLOCKS: u32 = 2;

/// A program of `body` whose `%r{i}` start as `tid_global * mul[i] + add[i]`.
pub(super) fn program(
    mul: [u32; NR as usize],
    add: [u32; NR as usize],
    body: Vec<Stmt>,
) -> Program {
    Program {
        funcs: Vec::new(),
        mul,
        add,
        body,
        features: Features::DIFF,
    }
}

/// `%r{r}` of global thread `t` after the program.
pub(super) fn reg(out: &[u32], t: u32, r: u8) -> u32 {
    out[(t * OUT_WORDS + u32::from(r)) as usize]
}

/// Runs `p` in the interpreter, after checking that ptxvk takes its PTX.
pub(super) fn eval(p: &Program) -> Vec<u32> {
    let text = p.to_ptx();
    let checked =
        ptxvk_translator::Program::parse(ptxvk_translator::SourceFile::new("g.ptx", text.clone()))
            .unwrap_or_else(|d| panic!("{}\n{text}", d.short()));
    checked
        .translate_kernel("k", &ptxvk_translator::DeviceProfile::lavapipe())
        .unwrap_or_else(|d| panic!("{}\n{text}", d.short()));
    p.eval(BLOCKS, DIFF_BLOCK).expect("a DIFF program")
}

fn masked(mask: u32, op: Stmt) -> Stmt {
    Stmt::Masked {
        mask,
        pre: Vec::new(),
        op: Box::new(op),
    }
}

/// `redux.sync` combines the members' values only; lanes outside the mask keep their register.
#[test]
fn partial_redux_reduces_over_members() {
    let mask = 0x0f0f_00ff;
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 7, 0, 0, 0, 0, 0],
        vec![masked(
            mask,
            Stmt::Redux {
                op: Redux::Add,
                d: 2,
                a: 0,
            },
        )],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let warp_base = t / 32 * 32;
        let sum: u32 = (0..32)
            .filter(|l| mask >> l & 1 == 1)
            .map(|l| warp_base + l)
            .sum();
        let want = if mask >> (t % 32) & 1 == 1 { sum } else { 7 };
        assert_eq!(reg(&out, t, 2), want, "thread {t}");
    }
}

/// `vote.sync.ballot` sets the bits of the members whose predicate is true; `all` and `uni`
/// look at the members only.
#[test]
fn partial_votes_see_members_only() {
    // %p0 = %r0 < %r3 = tid_global < 10.
    let (mul, add) = ([1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 10, 0, 0, 0, 0]);
    let mask = 0x0f0f_00ff;
    let ballot = program(
        mul,
        add,
        vec![masked(
            mask,
            Stmt::Vote {
                op: Vote::Ballot,
                d: 5,
                p: 0,
            },
        )],
    );
    let out = eval(&ballot);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let member = mask >> (t % 32) & 1 == 1;
        // Lanes 0-9 of the first warp vote true; of them, 0-7 are members.
        let want = match (member, t < 32) {
            (false, _) => 0,
            (true, true) => 0xff,
            (true, false) => 0,
        };
        assert_eq!(reg(&out, t, 5), want, "thread {t}");
    }
    // Every member of 0xff in the first warp votes true, so `all` holds there although lanes
    // 10-31 vote false; `%p1` is stored as nothing, so it is moved to a register.
    let all = program(
        mul,
        add,
        vec![
            masked(
                0xff,
                Stmt::Vote {
                    op: Vote::All,
                    d: 1,
                    p: 0,
                },
            ),
            Stmt::Selp {
                d: 6,
                a: 0,
                b: Src::Imm(0xdead),
                p: 1,
            },
        ],
    );
    let out = eval(&all);
    // Before the vote %p1 = %r1 < %r4 = 0 < 0, false.
    assert_eq!(reg(&out, 3, 6), 3);
    assert_eq!(reg(&out, 12, 6), 0xdead);
    assert_eq!(reg(&out, 35, 6), 0xdead);
}

/// A shuffle in 8-lane segments, two of which are members: each member reads its butterfly
/// partner, which is a member too.
#[test]
fn partial_shuffle_reads_within_member_segments() {
    let mask = 0x00ff_00ff;
    let p = program(
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0x55],
        vec![masked(
            mask,
            Stmt::Shfl {
                mode: ShflMode::Bfly,
                d: 7,
                a: 0,
                lane: Src::Imm(3),
                c: 0x1807,
            },
        )],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let want = if mask >> (t % 32) & 1 == 1 {
            t ^ 3
        } else {
            0x55
        };
        assert_eq!(reg(&out, t, 7), want, "thread {t}");
    }
}

/// `match.all` gives the member mask when every member holds the same value, `match.any` the
/// members holding the thread's value.
#[test]
fn partial_match_compares_members() {
    let mask = 0x8000_0001;
    let p = program(
        [0, 1, 0, 0, 0, 0, 0, 0],
        [9, 0, 0, 0, 0, 0, 0, 0],
        vec![
            masked(
                mask,
                Stmt::Match {
                    all: true,
                    d: 2,
                    a: 0,
                },
            ),
            masked(
                mask,
                Stmt::Match {
                    all: false,
                    d: 3,
                    a: 1,
                },
            ),
        ],
    );
    let out = eval(&p);
    assert_eq!(reg(&out, 0, 2), mask);
    assert_eq!(reg(&out, 31, 2), mask);
    assert_eq!(reg(&out, 0, 3), 1);
    assert_eq!(reg(&out, 63, 3), 0x8000_0000);
    // Not members: untouched (%r2 started as 0, %r3 as 0).
    assert_eq!(reg(&out, 5, 2), 0);
    assert_eq!(reg(&out, 5, 3), 0);
}

/// `atom.global.or` of the lane's own bit returns the word as it was, so its own bit is the
/// starting word's; a later `red.global.add` by every thread of a block on one word gives the
/// word plus the sum over the block, whatever the order.
#[test]
fn global_atomics_are_order_independent() {
    let p = program(
        [0, 1, 0, 0, 0, 0, 0, 0],
        [0xffff_ffff, 0, 5, 0, 0, 0, 0, 0],
        vec![
            Stmt::GAtomBit {
                op: Redux::Or,
                d: 3,
                v: 0,
            },
            Stmt::GRedAny {
                op: Redux::Add,
                d: 4,
                i: 2,
                v: 1,
            },
        ],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let (blk, tid) = (t / DIFF_BLOCK, t % DIFF_BLOCK);
        let word = (blk * GLOBAL_WORDS + SHARED_WORDS + tid / 32).wrapping_mul(GLOBAL_SEED);
        assert_eq!(reg(&out, t, 3), word & 1 << (t % 32), "thread {t}");
        let base = (blk * GLOBAL_WORDS + 5).wrapping_mul(GLOBAL_SEED);
        let sum: u32 = (blk * DIFF_BLOCK..(blk + 1) * DIFF_BLOCK).sum();
        assert_eq!(reg(&out, t, 4), base.wrapping_add(sum), "thread {t}");
    }
}

/// A byte stored with `st.shared.s8` and loaded with `ld.shared.s8` into a 32-bit register is
/// sign-extended, with `.u8` zero-extended; a half-word stored to `gm` comes back whole.
#[test]
fn narrow_loads_extend_as_their_type_says() {
    // %rs0 = %r4 = 0x1280 for every thread; %r5 = 0 picks byte 0 of the thread's own bytes;
    // %r6 = tid_global * 16 is that byte's offset in the block's words.
    let round = |global, ty, load, to32, d| Stmt::NarrowRound {
        global,
        ty,
        load,
        to32,
        v: 0,
        sel: 5,
        d,
        i: 6,
    };
    let p = program(
        [0, 0, 0, 0, 0, 0, 16, 0],
        [0, 0, 0, 0, 0x1280, 0, 0, 0],
        vec![
            round(false, NarrowTy::S8, NarrowTy::S8, true, 1),
            round(false, NarrowTy::U8, NarrowTy::U8, true, 2),
            round(true, NarrowTy::B16, NarrowTy::S16, true, 3),
        ],
    );
    let out = eval(&p);
    for t in [0, 17, 64, 127] {
        assert_eq!(reg(&out, t, 1), 0xffff_ff80, "thread {t}");
        assert_eq!(reg(&out, t, 2), 0x80, "thread {t}");
    }
    // The 16-bit round reads half-word `%r6 % 512`, byte offset 32 * tid_global: thread 0's
    // own half-word, the other threads' words of another thread, whose half-word 0 holds
    // 0x1280 too, or `gm`'s starting bytes.
    assert_eq!(reg(&out, 0, 3), 0x1280);
}

/// `.local` accesses (ISA, `ld`/`st`: a vector moves consecutive elements; `ld.s8` sign-extends
/// to the register's width): with `%r5` = 5, `st.v2` writes words 4 and 5 (the index rounded
/// down to the vector), `ld.v4` reads words 4-7 back, two stored and two as the thread's `lm`
/// started; through generic addresses, `st.u8` writes byte 5 (byte 1 of word 1), `ld.s8`
/// reads it back extended, and `ld` reads word 1 around it.
#[test]
fn local_accesses_move_whole_elements() {
    let local = |op, r, i, generic| Stmt::Local { op, r, i, generic };
    let p = program(
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0x1ff, 5, 0x11, 0x22],
        vec![
            local(LocalOp::St2, 6, 5, false),
            local(LocalOp::Ld4, 0, 5, false),
            local(LocalOp::StU8, 4, 5, true),
            local(LocalOp::LdS8, 4, 5, true),
            Stmt::Mov {
                d: 6,
                s: Src::Imm(1),
            },
            local(LocalOp::Ld, 6, 6, true),
        ],
    );
    let out = eval(&p);
    for t in 0..BLOCKS * DIFF_BLOCK {
        let start = |k: u32| (t * LOCAL_WORDS + k).wrapping_mul(LOCAL_SEED);
        assert_eq!(reg(&out, t, 0), 0x11, "thread {t}");
        assert_eq!(reg(&out, t, 1), 0x22, "thread {t}");
        assert_eq!(reg(&out, t, 2), start(6), "thread {t}");
        assert_eq!(reg(&out, t, 3), start(7), "thread {t}");
        assert_eq!(reg(&out, t, 4), 0xffff_ffff, "thread {t}");
        assert_eq!(reg(&out, t, 6), start(1) & !0xff00 | 0xff00, "thread {t}");
    }
}

/// Every lane a generated partial-mask shuffle may read, for any lane operand, is a member
/// (ISA, `shfl.sync`: the source lane `j` is used where `pval` holds, and a read from a lane
/// outside the mask is undefined).
#[test]
fn partial_shuffles_read_only_members() {
    /// The masked warp operations of `body`, nested ones included.
    fn masked<'s>(body: &'s [Stmt], out: &mut Vec<&'s Stmt>) {
        for st in body {
            match st {
                Stmt::Masked { .. } => out.push(st),
                Stmt::If { then, els, .. }
                | Stmt::BlockIf { then, els, .. }
                | Stmt::WarpIf { then, els, .. } => {
                    masked(then, out);
                    masked(els, out);
                }
                Stmt::Loop { body, .. }
                | Stmt::WarpLoop { body, .. }
                | Stmt::VoteLoop { body, .. } => masked(body, out),
                _ => {}
            }
        }
    }
    let mut seen = 0;
    for seed in 0..400 {
        let data = seeded_bytes(seed, 2048);
        let p = Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap();
        let mut found = Vec::new();
        masked(&p.body, &mut found);
        for st in found {
            let Stmt::Masked { mask, op, .. } = st else {
                continue;
            };
            let Stmt::Shfl { mode, c, .. } = **op else {
                continue;
            };
            seen += 1;
            let (cval, segmask) = ((c & 31) as i32, ((c >> 8) & 31) as i32);
            for l in (0..32).filter(|l| mask >> l & 1 == 1) {
                let max_lane = (l & segmask) | (cval & !segmask);
                for b in 0..32 {
                    let (j, pval) = match mode {
                        ShflMode::Up => (l - b, l - b >= max_lane),
                        ShflMode::Down => (l + b, l + b <= max_lane),
                        ShflMode::Bfly => (l ^ b, (l ^ b) <= max_lane),
                        ShflMode::Idx => {
                            let j = (l & segmask) | (b & !segmask);
                            (j, j <= max_lane)
                        }
                    };
                    let j = if pval { j } else { l };
                    assert!(
                        mask >> j & 1 == 1,
                        "seed {seed}: {st:?}, lane {l} reads {j}"
                    );
                }
            }
        }
    }
    assert!(seen > 10, "{seen}");
}

/// Over a few hundred programs, each new construct is drawn, and member masks other than all
/// lanes appear in the PTX.
#[test]
fn generator_draws_each_new_construct() {
    #[derive(Default, Debug)]
    struct Seen {
        masked: [u32; 4],
        partial: u32,
        pre: u32,
        gatom_own: u32,
        gred: u32,
        gbit: u32,
        narrow_shared: u32,
        narrow_global: u32,
        half: u32,
        cvt: u32,
        cross: u32,
        in_uniform_loop: u32,
        in_block_if: u32,
        in_warp_if: u32,
        in_warp_loop: u32,
        in_vote_loop: u32,
        handoff: u32,
        local: u32,
        cp_async: u32,
        in_warp_func: u32,
        in_block_func: u32,
        /// The functions the program just walked calls.
        called: Vec<u8>,
        calls_together: u32,
        bar_red: u32,
    }
    fn walk(body: &[Stmt], s: &mut Seen) {
        for st in body {
            match st {
                Stmt::Masked { mask, pre, op } => {
                    let k = match **op {
                        Stmt::Shfl { .. } => 0,
                        Stmt::Vote { .. } => 1,
                        Stmt::Redux { .. } => 2,
                        _ => 3,
                    };
                    s.masked[k] += 1;
                    s.partial += u32::from(*mask != u32::MAX);
                    s.pre += u32::from(!pre.is_empty());
                    walk(pre, s);
                }
                Stmt::GAtomOwn { .. } => s.gatom_own += 1,
                Stmt::GRedAny { .. } => s.gred += 1,
                Stmt::GAtomBit { .. } => s.gbit += 1,
                Stmt::NarrowRound { global, .. } => {
                    if *global {
                        s.narrow_global += 1;
                    } else {
                        s.narrow_shared += 1;
                    }
                }
                Stmt::Half { .. } => s.half += 1,
                Stmt::CvtN { .. } => s.cvt += 1,
                Stmt::CrossRed { .. } => s.cross += 1,
                Stmt::BarRed { .. } => s.bar_red += 1,
                Stmt::Handoff { .. } => s.handoff += 1,
                Stmt::Local { .. } => s.local += 1,
                Stmt::CpAsync { .. } => s.cp_async += 1,
                Stmt::Call { f, .. } => s.called.push(*f),
                Stmt::If { then, els, .. } => {
                    walk(then, s);
                    walk(els, s);
                }
                Stmt::Loop {
                    body,
                    uniform: true,
                    ..
                } => {
                    s.in_uniform_loop += body.iter().filter(|b| collective(b)).count() as u32;
                    walk(body, s);
                }
                Stmt::Loop { body, .. } => walk(body, s),
                Stmt::WarpIf { then, els, .. } => {
                    s.in_warp_if += then.iter().chain(els).filter(|b| collective(b)).count() as u32;
                    walk(then, s);
                    walk(els, s);
                }
                Stmt::VoteLoop { body, .. } => {
                    s.in_vote_loop += body.iter().filter(|b| collective(b)).count() as u32;
                    walk(body, s);
                }
                Stmt::WarpLoop { body, .. } => {
                    s.in_warp_loop += body.iter().filter(|b| collective(b)).count() as u32;
                    walk(body, s);
                }
                Stmt::BlockIf { then, els, .. } => {
                    s.in_block_if +=
                        then.iter().chain(els).filter(|b| collective(b)).count() as u32;
                    walk(then, s);
                    walk(els, s);
                }
                _ => {}
            }
        }
    }
    fn collective(s: &Stmt) -> bool {
        !matches!(
            s,
            Stmt::Bin { .. }
                | Stmt::Un { .. }
                | Stmt::Tern { .. }
                | Stmt::Wide { .. }
                | Stmt::Mov { .. }
                | Stmt::Selp { .. }
                | Stmt::Setp { .. }
                | Stmt::Pred { .. }
                | Stmt::Float { .. }
                | Stmt::If { .. }
                | Stmt::BlockIf { .. }
                | Stmt::WarpIf { .. }
                | Stmt::WarpLoop { .. }
                | Stmt::VoteLoop { .. }
                | Stmt::Loop { .. }
                | Stmt::Break { .. }
                | Stmt::Call { .. }
                | Stmt::MovF { .. }
                | Stmt::SetpF { .. }
                | Stmt::Dbl { .. }
                | Stmt::Special { .. }
                | Stmt::CrossRed { .. }
                | Stmt::Half { .. }
                | Stmt::CvtN { .. }
                | Stmt::Local { .. }
        )
    }
    let mut s = Seen::default();
    let mut text = String::new();
    for seed in 0..300 {
        let data = seeded_bytes(seed, 2048);
        let p = Program::generate(&mut Unstructured::new(&data), Features::DIFF).unwrap();
        walk(&p.body, &mut s);
        for f in &p.funcs {
            let n = f.body.iter().filter(|b| collective(b)).count() as u32;
            match f.level {
                FuncLevel::Thread => assert_eq!(n, 0, "seed {seed}"),
                FuncLevel::Warp => s.in_warp_func += n,
                FuncLevel::Block => s.in_block_func += n,
            }
            walk(&f.body, &mut s);
        }
        for f in std::mem::take(&mut s.called) {
            s.calls_together += u32::from(p.funcs[f as usize].level != FuncLevel::Thread);
        }
        text.push_str(&p.to_ptx());
    }
    let all = [
        s.masked[0],
        s.masked[1],
        s.masked[2],
        s.masked[3],
        s.partial,
        s.pre,
        s.gatom_own,
        s.gred,
        s.gbit,
        s.narrow_shared,
        s.narrow_global,
        s.half,
        s.cvt,
        s.cross,
        s.in_uniform_loop,
        s.in_block_if,
        s.in_warp_if,
        s.in_warp_loop,
        s.in_vote_loop,
        s.handoff,
        s.local,
        s.cp_async,
        s.in_warp_func,
        s.in_block_func,
        s.calls_together,
        s.bar_red,
    ];
    assert!(all.iter().all(|&n| n >= 5), "{s:?}");
    for needle in [
        "ld.global.s8",
        "ld.shared.u16",
        "st.global.u8",
        "st.shared.b16",
        "atom.global.",
        "red.global.",
        "cvt.sat.",
        "mul.wide.s16",
        ".s16 %rs",
        "st.local.v2.u32",
        "ld.local.v4.u32",
        "cvta.local.u64",
        "ld.s8",
        "cp.async.wait_group 0",
        "cp.async.wait_all",
    ] {
        assert!(text.contains(needle), "no `{needle}` in 300 programs");
    }
}
