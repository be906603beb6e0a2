//! ISA 9.7.13.15 `mbarrier`, with `cp.async.bulk` completing transactions on one and
//! `cp.async.mbarrier.arrive`: kernels whose threads arrive and wait across phases, and a thread
//! that walks one object through arrivals, drops and transactions, checked against a model of
//! the object written from the ISA's "Contents of the mbarrier object" and phase-completion
//! rules. Only what the ISA says every execution observes is checked: after a wait for a phase
//! returns, that phase is complete and the writes released before the arrivals are visible;
//! the next phase is not complete before this thread's own arrival in it.

use super::kernel_case::{Arg, KernelCase};
use crate::Case;

const FAMILY: &str = "9.7.13.15 mbarrier";
const HEADER: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An mbarrier object as the ISA describes it: a phase, a pending arrival count, an expected
/// arrival count and a tx-count.
#[derive(Clone, Copy, Debug, Default)]
struct Object {
    phase: u32,
    pending: i64,
    expected: i64,
    tx: i64,
}

/// What `mbarrier.arrive` returns: the phase it arrived in and the pending count it found.
#[derive(Clone, Copy, Debug)]
struct State {
    phase: u32,
    pending: i64,
}

impl Object {
    /// `mbarrier.init`: "current phase to 0, expected and pending arrival counts to count,
    /// tx-count to 0".
    fn init(count: i64) -> Object {
        Object {
            phase: 0,
            pending: count,
            expected: count,
            tx: 0,
        }
    }

    /// "When the pending arrival count and the tx-count both reach zero, the current phase
    /// completes": the next phase starts with the expected count pending and no transaction.
    fn check_complete(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
    }

    /// expect-tx: the tx-count grows by `bytes`.
    fn expect_tx(&mut self, bytes: i64) {
        self.tx += bytes;
    }

    /// complete-tx: the tx-count shrinks by `bytes`, which may complete the phase.
    fn complete_tx(&mut self, bytes: i64) {
        self.tx -= bytes;
        self.check_complete();
    }

    /// arrive-on (`count` arrivals); `drop` also lowers the expected count "for the current and
    /// all subsequent phases".
    fn arrive(&mut self, count: i64, drop: bool) -> State {
        let s = State {
            phase: self.phase,
            pending: self.pending,
        };
        if drop {
            self.expected -= count;
        }
        self.pending -= count;
        self.check_complete();
        s
    }

    /// `test_wait.parity`: whether the phase of parity `p`, the current one or the one before,
    /// has completed (the current phase never has).
    fn done_parity(&self, p: u32) -> bool {
        self.phase & 1 != p & 1
    }

    /// `test_wait` with a state: whether the phase the state was taken in has completed.
    fn done(&self, s: State) -> bool {
        self.phase != s.phase
    }
}

/// 64 threads, three phases: each thread writes a word for the phase, arrives, waits for the
/// phase with `try_wait.parity` in a loop, then reads its neighbour's word and records three
/// tests: the phase it waited for is complete (by parity and by its state), the next one is not.
fn phases() -> Case {
    let threads = 64u32;
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 8 .b64 bar;\n\t.shared .align 4 .b32 data[192];\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
         \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra READY;\n\
         \tmbarrier.init.shared::cta.b64 [bar], {threads};\n\
         READY:\n\tbar.sync 0;\n\
         \tmul.wide.u32 %rd2, %r1, 48;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tmov.u32 %r5, data;\n\tmov.u32 %r2, 0;\n\
         PHASE:\n\
         \tmad.lo.u32 %r3, %r2, 64, %r1;\n\tshl.b32 %r4, %r3, 2;\n\tadd.u32 %r4, %r4, %r5;\n\
         \tmad.lo.u32 %r6, %r2, 100, %r1;\n\tst.shared.u32 [%r4], %r6;\n\
         \tmbarrier.arrive.release.cta.shared::cta.b64 %rd4, [bar];\n\
         \tand.b32 %r7, %r2, 1;\n\
         WAIT:\n\
         \tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p2, [bar], %r7;\n\
         \t@!%p2 bra WAIT;\n\
         \tadd.u32 %r8, %r1, 1;\n\tand.b32 %r8, %r8, 63;\n\tmad.lo.u32 %r8, %r2, 64, %r8;\n\
         \tshl.b32 %r8, %r8, 2;\n\tadd.u32 %r8, %r8, %r5;\n\tld.shared.u32 %r9, [%r8];\n\
         \tmbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], %r7;\n\
         \tselp.u32 %r10, 1, 0, %p3;\n\txor.b32 %r11, %r7, 1;\n\
         \tmbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %p3, [bar], %r11;\n\
         \tselp.u32 %r12, 1, 0, %p3;\n\
         \tmbarrier.test_wait.shared.b64 %p3, [bar], %rd4;\n\tselp.u32 %r13, 1, 0, %p3;\n\
         \tmul.wide.u32 %rd5, %r2, 16;\n\tadd.s64 %rd6, %rd3, %rd5;\n\
         \tst.global.v4.u32 [%rd6], {{%r9, %r10, %r12, %r13}};\n\
         \tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 3;\n\t@%p1 bra PHASE;\n\
         \tret;\n}}\n"
    );
    let mut want = Vec::new();
    for t in 0..threads {
        for k in 0..3u32 {
            // Every thread arrives once per phase; the phase completes with the last arrival.
            let mut o = Object::init(i64::from(threads));
            for _ in 0..k {
                for _ in 0..threads {
                    o.arrive(1, false);
                }
            }
            let mut mine = None;
            for u in 0..threads {
                let s = o.arrive(1, false);
                if u == t {
                    mine = Some(s);
                }
            }
            let mine = mine.unwrap_or(State {
                phase: u32::MAX,
                pending: 0,
            });
            let neighbour = k * 100 + (t + 1) % threads;
            want.extend([
                neighbour,
                u32::from(o.done_parity(k)),
                u32::from(o.done_parity(k + 1)),
                u32::from(o.done(mine)),
            ]);
        }
    }
    KernelCase {
        family: FAMILY,
        name: "mbarrier/three-phases".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: threads,
        buffers: vec![vec![0xA5; want.len() * 4]],
        args: vec![Arg::Buf(0)],
        expect: vec![(0, words(&want))],
        elem: 4,
    }
    .case()
}

/// A bulk copy of 256 bytes from global memory completes the transaction of a phase that
/// thread 0 announced with `arrive.expect_tx`; every thread waits for it and reads the tile;
/// thread 0 also walks a second object through expect-tx, `arrive.noComplete`,
/// `pending_count`, complete-tx, `arrive_drop` and plain arrivals, a third (by its generic
/// address) through `cp.async` and `cp.async.mbarrier.arrive.noinc`, and stores the tile back
/// with a bulk copy to global memory in a bulk async-group.
fn transaction() -> Case {
    let threads = 64u32;
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 src)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<16>;\n\
         \t.shared .align 16 .b8 tile[256];\n\t.shared .align 16 .b8 word[16];\n\
         \t.shared .align 8 .b64 bar;\n\t.shared .align 8 .b64 bar2;\n\
         \t.shared .align 8 .b64 bar3;\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [src];\n\tmov.u32 %r1, %tid.x;\n\
         \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra WAIT;\n\
         \tmbarrier.init.shared::cta.b64 [bar], 1;\n\
         \tmbarrier.init.shared.b64 [bar2], 2;\n\
         \tcvta.shared.u64 %rd9, bar3;\n\tmbarrier.init.b64 [%rd9], 1;\n\
         \tfence.mbarrier_init.release.cluster;\n\
         \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], 256;\n\
         \tmbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\tselp.u32 %r10, 1, 0, %p2;\n\
         \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 256, [bar];\n\
         \tmbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar2], 64;\n\
         \tmbarrier.arrive.noComplete.shared::cta.b64 %rd4, [bar2], 1;\n\
         \tmbarrier.pending_count.b64 %r11, %rd4;\n\
         \tmbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar2], 32;\n\
         \tmbarrier.arrive_drop.shared::cta.b64 %rd5, [bar2];\n\
         \tmbarrier.test_wait.parity.shared::cta.b64 %p2, [bar2], 0;\n\tselp.u32 %r12, 1, 0, %p2;\n\
         \tmbarrier.complete_tx.shared::cluster.b64 [bar2], 32;\n\
         \tmbarrier.test_wait.shared::cta.b64 %p2, [bar2], %rd5;\n\tselp.u32 %r13, 1, 0, %p2;\n\
         \tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar2];\n\
         \tmbarrier.test_wait.parity.shared::cta.b64 %p2, [bar2], 1;\n\tselp.u32 %r14, 1, 0, %p2;\n\
         \tmbarrier.test_wait.parity.shared::cta.b64 %p2, [bar2], 0;\n\tselp.u32 %r15, 1, 0, %p2;\n\
         \tcp.async.ca.shared.global [word], [%rd2], 4;\n\
         \tcp.async.mbarrier.arrive.noinc.shared.b64 [bar3];\n\
         \tmbarrier.test_wait.parity.b64 %p2, [%rd9], 0;\n\tselp.u32 %r16, 1, 0, %p2;\n\
         \tcp.async.mbarrier.arrive.shared::cta.b64 [bar3];\n\
         \tmbarrier.test_wait.parity.b64 %p2, [%rd9], 1;\n\tselp.u32 %r17, 1, 0, %p2;\n\
         \tmbarrier.inval.shared::cta.b64 [bar3];\n\
         \tst.global.v4.u32 [%rd1+256], {{%r10, %r11, %r12, %r13}};\n\
         \tst.global.v4.u32 [%rd1+272], {{%r14, %r15, %r16, %r17}};\n\
         WAIT:\n\
         \tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0, 1000;\n\
         \t@!%p3 bra WAIT;\n\
         \tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, tile;\n\tadd.u32 %r3, %r3, %r2;\n\
         \tld.shared.u32 %r4, [%r3];\n\tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd7, %rd1, %rd6;\n\
         \tst.global.u32 [%rd7], %r4;\n\
         \t@%p1 bra DONE;\n\
         \tadd.s64 %rd8, %rd1, 288;\n\
         \tcp.async.bulk.global.shared::cta.bulk_group [%rd8], [tile], 256;\n\
         \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\n\
         \tcp.async.bulk.wait_group 0;\n\
         DONE:\n\tret;\n}}\n"
    );
    let src: Vec<u32> = (0..threads)
        .map(|i| 0x9e37_79b9u32.wrapping_mul(i + 1))
        .collect();
    // Thread 0's walk, step by step as the ISA defines each operation.
    let mut bar = Object::init(1);
    bar.expect_tx(256);
    bar.arrive(1, false);
    let tile_pending = u32::from(bar.done_parity(0));
    let mut bar2 = Object::init(2);
    bar2.expect_tx(64);
    let s = bar2.arrive(1, false);
    // "count ... the pending arrival count at the time of that arrive", read as the count the
    // arrive found.
    let pending = s.pending as u32;
    bar2.complete_tx(32);
    let dropped = bar2.arrive(1, true);
    let before_last_tx = u32::from(bar2.done_parity(0));
    bar2.complete_tx(32);
    let after_last_tx = u32::from(bar2.done(dropped));
    // The drop left one expected arrival: one arrive completes the next phase.
    bar2.arrive(1, false);
    let second = u32::from(bar2.done_parity(1));
    let third = u32::from(bar2.done_parity(0));
    let mut bar3 = Object::init(1);
    // The copies before `cp.async.mbarrier.arrive.noinc` are done: its arrive-on happens.
    bar3.arrive(1, false);
    let noinc = u32::from(bar3.done_parity(0));
    // Without `.noinc` the pending count is raised by one first, then the arrive-on: no change.
    bar3.pending += 1;
    bar3.arrive(1, false);
    let inc = u32::from(bar3.done_parity(1));
    let mut want = src.clone();
    want.extend([
        tile_pending,
        pending,
        before_last_tx,
        after_last_tx,
        second,
        third,
        noinc,
        inc,
    ]);
    want.extend(&src);
    KernelCase {
        family: FAMILY,
        name: "mbarrier/bulk-copy-transaction".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: threads,
        buffers: vec![vec![0xA5; want.len() * 4], words(&src)],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(0, words(&want))],
        elem: 4,
    }
    .case()
}

/// One step of [`walk`]: the PTX, and what it does to the model.
type Step = (&'static str, fn(&mut Object));

/// One thread walks an object through every qualifier and operand form, reading both parities
/// with `test_wait`/`try_wait` after each step; with a prefetch and a bulk copy that carries a
/// cache policy, whose bytes are checked.
fn walk() -> Case {
    let steps: [Step; 8] = [
        (
            "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [bar], 16;",
            |o| o.expect_tx(16),
        ),
        (
            "mbarrier.expect_tx.relaxed.cta.shared.b64 [bar], 16;",
            |o| o.expect_tx(16),
        ),
        (
            "mbarrier.complete_tx.relaxed.cluster.shared.b64 [bar], 24;",
            |o| o.complete_tx(24),
        ),
        (
            "mbarrier.arrive.relaxed.cluster.shared.b64 %rd2, [bar];",
            |o| {
                o.arrive(1, false);
            },
        ),
        (
            "mbarrier.arrive_drop.noComplete.release.cta.shared.b64 %rd2, [bar], 1;",
            |o| {
                o.arrive(1, true);
            },
        ),
        (
            "mbarrier.arrive_drop.expect_tx.relaxed.cluster.shared::cluster.b64 _, [bar], 8;",
            |o| {
                o.expect_tx(8);
                o.arrive(1, true);
            },
        ),
        ("mbarrier.complete_tx.cta.shared::cta.b64 [bar], 16;", |o| {
            o.complete_tx(16)
        }),
        (
            "mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [bar];",
            |o| {
                o.arrive(1, true);
            },
        ),
    ];
    let mut body = String::new();
    for (i, (line, _)) in steps.iter().enumerate() {
        body += &format!(
            "\t{line}\n\
             \tmbarrier.test_wait.parity.relaxed.cluster.shared.b64 %p1, [bar], 0;\n\
             \tmbarrier.try_wait.parity.relaxed.cta.shared.b64 %p2, [bar], 1;\n\
             \tselp.u32 %r1, 1, 0, %p1;\n\tselp.u32 %r2, 2, 0, %p2;\n\tor.b32 %r1, %r1, %r2;\n\
             \tst.global.u32 [%rd1+{}], %r1;\n",
            4 * i
        );
    }
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 out, .param .u64 src)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 8 .b64 bar;\n\t.shared .align 8 .b64 bar2;\n\
         \t.shared .align 16 .b8 tile[64];\n\
         \tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd4, [src];\n\
         \tmbarrier.init.shared.b64 [bar], 3;\n{body}\
         \tmbarrier.inval.shared.b64 [bar];\n\
         \tmbarrier.init.shared::cta.b64 [bar2], 1;\n\
         \tmbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 %rd2, [bar2], 64;\n\
         \tcreatepolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n\
         \tcp.async.bulk.prefetch.L2.global [%rd4], 64;\n\
         \tcp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [%rd4], 64, [bar2], %rd5;\n\
         WAIT:\n\
         \tmbarrier.try_wait.relaxed.cluster.shared::cta.b64 %p3, [bar2], %rd2;\n\
         \t@!%p3 bra WAIT;\n\
         \tmbarrier.test_wait.acquire.cluster.shared.b64 %p3, [bar2], %rd2;\n\
         \tselp.u32 %r3, 1, 0, %p3;\n\tst.global.u32 [%rd1+{}], %r3;\n\
         \tadd.s64 %rd6, %rd1, {};\n\
         \tcp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd6], [tile], 64, %rd5;\n\
         \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\n\
         \tret;\n}}\n",
        4 * steps.len(),
        4 * steps.len() + 16
    );
    let mut o = Object::init(3);
    let mut want = Vec::new();
    for (_, step) in &steps {
        step(&mut o);
        want.push(u32::from(o.done_parity(0)) | u32::from(o.done_parity(1)) << 1);
    }
    let src: Vec<u32> = (0..16u32).map(|i| 0x0101_0101 * (i + 7)).collect();
    // The bulk copy's phase is complete once its bytes are in.
    let mut bar2 = Object::init(1);
    bar2.expect_tx(64);
    let s = bar2.arrive(1, false);
    bar2.complete_tx(64);
    want.push(u32::from(bar2.done(s)));
    want.extend([0xA5A5_A5A5; 3]);
    want.extend(&src);
    KernelCase {
        family: FAMILY,
        name: "mbarrier/every-qualifier".into(),
        ptx,
        kernel: "k".into(),
        grid: 1,
        block: 1,
        buffers: vec![vec![0xA5; want.len() * 4], words(&src)],
        args: vec![Arg::Buf(0), Arg::Buf(1)],
        expect: vec![(0, words(&want))],
        elem: 4,
    }
    .case()
}

pub fn cases() -> Vec<Case> {
    vec![phases(), transaction(), walk()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISA's example of a phase with a transaction: the phase completes only when both the
    /// arrivals and the bytes are in, whichever comes last.
    #[test]
    fn a_phase_needs_its_arrivals_and_its_bytes() {
        let mut o = Object::init(2);
        o.expect_tx(16);
        o.arrive(1, false);
        o.arrive(1, false);
        assert!(!o.done_parity(0));
        o.complete_tx(16);
        assert!(o.done_parity(0) && !o.done_parity(1));
        assert_eq!(o.pending, 2);
        let mut o = Object::init(1);
        o.complete_tx(8);
        o.arrive(1, false);
        assert!(
            !o.done_parity(0),
            "a negative tx-count keeps the phase open"
        );
        o.expect_tx(8);
        assert!(!o.done_parity(0), "expect-tx alone completes nothing");
    }
}
