//! Memory checking's launch-time proofs (`ptxvk_translator::memfacts`): a site's check is
//! skipped only where every address the site reaches in that launch lies in one allocation.
//! Each kernel here is also simulated thread by thread in Rust (what the PTX computes, wrapping
//! as it wraps), and every proof is held against the addresses the simulation touches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::memfacts::{Launch, MemFacts};
use ptxvk_translator::{DeviceProfile, Program, SourceFile};

const PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.visible .entry neighbors(.param .u64 out, .param .u64 in, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.eq.s32 %p1, %r5, 0;
	@%p1 bra END;
	add.s32 %r6, %r1, -1;
	setp.ge.u32 %p2, %r5, %r6;
	@%p2 bra END;
	add.s32 %r7, %r5, -1;
	mul.wide.u32 %rd3, %r7, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	mul.wide.u32 %rd5, %r5, 4;
	add.s64 %rd6, %rd2, %rd5;
	ld.global.f32 %f2, [%rd6+4];
	add.f32 %f3, %f1, %f2;
	add.s64 %rd7, %rd1, %rd5;
	st.global.f32 [%rd7], %f3;
END:
	ret;
}

.visible .entry walk(.param .u64 a, .param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r4, [%rd4];
	add.u32 %r3, %r3, %r4;
	add.u32 %r2, %r2, 1;
	bra LOOP;
DONE:
	st.global.u32 [%rd2], %r3;
	ret;
}

.visible .entry rows(.param .u64 in, .param .u64 out, .param .u32 n, .param .u32 m)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r6, [m];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	mov.f32 %f1, 0f00000000;
	mov.u64 %rd5, %rd4;
	mov.u32 %r3, %r2;
FIRST:
	ld.global.f32 %f2, [%rd5];
	add.f32 %f1, %f1, %f2;
	add.s32 %r3, %r3, 32;
	add.s64 %rd5, %rd5, 128;
	setp.lt.u32 %p1, %r3, %r1;
	@%p1 bra FIRST;
	mov.u32 %r4, %r2;
SECOND:
	ld.global.f32 %f3, [%rd4];
	mul.f32 %f3, %f3, %f1;
	mul.wide.u32 %rd6, %r4, 4;
	add.s64 %rd7, %rd2, %rd6;
	st.global.f32 [%rd7], %f3;
	add.s32 %r5, %r4, 32;
	add.s64 %rd4, %rd4, 128;
	setp.lt.u32 %p2, %r4, %r6;
	mov.u32 %r4, %r5;
	@%p2 bra SECOND;
	ret;
}
"#;

fn facts(kernel: &str) -> MemFacts {
    let program = Program::parse(SourceFile::new("facts.ptx", PTX)).unwrap();
    let mut profile = DeviceProfile::lavapipe();
    profile.memcheck = true;
    let k = program
        .translate_kernel(kernel, &profile)
        .unwrap_or_else(|d| panic!("{d}"));
    if let Err(e) = ptxvk_translator::validate(&k.spirv) {
        panic!("{e}\n{}", ptxvk_translator::disassemble(&k.spirv));
    }
    k.abi.mem_facts
}

fn params(words: &[u64], last: u32) -> Vec<u8> {
    let mut p: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    p.extend_from_slice(&last.to_le_bytes());
    p
}

/// `[start, end)` of each allocation.
fn inside(allocs: &[(u64, u64)]) -> impl Fn(u64, u64) -> bool + '_ {
    |s, e| allocs.iter().any(|&(a, b)| a <= s && e <= b)
}

#[test]
fn a_guarded_neighbourhood_is_proven_exactly_when_it_stays_in_its_buffers() {
    let f = facts("neighbors");
    // Sites in order: in[i - 1], in[i + 1], out[i].
    assert_eq!(f.facts.len(), 3, "{f:?}");
    let (out, inp) = (0x10_0000u64, 0x20_0000u64);
    let mut proven_launches = 0;
    for n in [0u32, 1, 2, 3, 7, 64, 100, 1000, u32::MAX] {
        for (block, grid) in [(1u32, 1u32), (32, 1), (64, 2), (100, 3), (128, 8)] {
            for in_len in [0u64, 4, 64, 100, 128, 400, 1024] {
                let allocs = [(out, out + 4 * 1024), (inp, inp + 4 * in_len)];
                let launch = Launch {
                    params: &params(&[out, inp], n),
                    block: [block, 1, 1],
                    grid: [grid, 1, 1],
                    dynamic_shared: 0,
                };
                let mask = f.proven(&launch, inside(&allocs));
                // What the kernel touches, site by site, computed as the PTX computes it.
                let mut wild = [false; 3];
                let mut touched = [false; 3];
                for i in 0..block * grid {
                    if i == 0 || i >= n.wrapping_sub(1) {
                        continue;
                    }
                    let sites = [
                        inp + 4 * u64::from(i.wrapping_sub(1)),
                        inp + 4 * u64::from(i) + 4,
                        out + 4 * u64::from(i),
                    ];
                    for (s, a) in sites.into_iter().enumerate() {
                        touched[s] = true;
                        wild[s] |= !inside(&allocs)(a, a + 4);
                    }
                }
                for s in 0..3 {
                    let proven = mask >> s & 1 == 1;
                    assert!(
                        !(proven && wild[s]),
                        "site {s} proven but wild: n {n}, block {block}, grid {grid}, in {in_len}"
                    );
                    // The analysis is exact for this kernel: a site that runs and stays inside
                    // is proven.
                    if touched[s] && !wild[s] {
                        assert!(
                            proven,
                            "site {s} not proven: n {n}, block {block}, grid {grid}, in {in_len}"
                        );
                    }
                }
                proven_launches += usize::from(mask == 0b111);
            }
        }
    }
    assert!(proven_launches > 10);
}

#[test]
fn a_loop_counter_is_bounded_by_the_test_that_keeps_the_loop_going() {
    let f = facts("walk");
    // a[i] in the loop (i < n on the only edge into its block) and out[0], in either order.
    assert_eq!(f.facts.len(), 2, "{f:?}");
    let (a, out) = (0x1000u64, 0x8000u64);
    let probe = Launch {
        params: &params(&[a, out], 1),
        block: [1, 1, 1],
        grid: [1, 1, 1],
        dynamic_shared: 0,
    };
    let v = f.evaluate(&probe);
    let store = f
        .facts
        .iter()
        .position(|x| v[x.lo as usize] == Some(i128::from(out)))
        .unwrap();
    let load = 1 - store;
    for n in [0u32, 1, 5, 16, 17, u32::MAX] {
        for a_len in [0u64, 1, 5, 16] {
            let allocs = [(a, a + 4 * a_len), (out, out + 4)];
            let launch = Launch {
                params: &params(&[a, out], n),
                block: [1, 1, 1],
                grid: [1, 1, 1],
                dynamic_shared: 0,
            };
            let mask = f.proven(&launch, inside(&allocs));
            let wild = (0..n.min(1 << 20)).any(|i| {
                let at = a + 4 * u64::from(i);
                !inside(&allocs)(at, at + 4)
            });
            let proven = mask >> load & 1 == 1;
            assert!(!(proven && wild), "n {n}, a {a_len}: proven but wild");
            assert_eq!(proven, n > 0 && !wild, "n {n}, a {a_len}");
            assert_eq!(mask >> store & 1, 1, "the store through `out`");
        }
    }
}

/// The indices `rows` reads in its first loop, and reads and writes in its second, for thread
/// `t`: each loop runs its body once before its first test (the second tests its counter
/// before stepping it), as the PTX does, wrapping as it wraps. A loop cut short here (it would
/// go round for most of the 32-bit range) ends with the index `u32::MAX`, outside any buffer.
fn rows_indices(t: u32, n: u32, m: u32) -> (Vec<u32>, Vec<u32>) {
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let mut i = t;
    loop {
        first.push(i);
        i = i.wrapping_add(32);
        if i >= n {
            break;
        }
        if first.len() > 1 << 12 {
            first.push(u32::MAX);
            break;
        }
    }
    let mut j = t;
    loop {
        second.push(j);
        let go = j < m;
        j = j.wrapping_add(32);
        if !go {
            break;
        }
        if second.len() > 1 << 12 {
            second.push(u32::MAX);
            break;
        }
    }
    (first, second)
}

#[test]
fn a_row_pointer_copied_before_a_loop_that_steps_it_and_a_counter_tested_before_its_step() {
    // The first loop walks a copy of the row pointer that the second loop steps, and the
    // second tests its counter before the step (clang's shape for a row's last pass).
    let f = facts("rows");
    assert_eq!(f.facts.len(), 3, "{f:?}");
    let (inp, out) = (0x10_0000u64, 0x20_0000u64);
    let probe = |n: u32, m: u32| params(&[inp, out], n).into_iter().chain(m.to_le_bytes());
    // Sites told apart by a launch where only the first loop goes round: the store starts in
    // `out`, the first loop's load reaches furthest.
    let (store, first_load, second_load) = {
        let p: Vec<u8> = probe(1024, 0).collect();
        let launch = Launch {
            params: &p,
            block: [1, 1, 1],
            grid: [1, 1, 1],
            dynamic_shared: 0,
        };
        let v = f.evaluate(&launch);
        let lo = |k: usize| v[f.facts[k].lo as usize].unwrap();
        let hi = |k: usize| v[f.facts[k].hi as usize].unwrap();
        let store = (0..3).find(|&k| lo(k) == i128::from(out)).unwrap();
        let mut loads: Vec<usize> = (0..3).filter(|&k| k != store).collect();
        loads.sort_by_key(|&k| std::cmp::Reverse(hi(k)));
        (store, loads[0], loads[1])
    };
    let mut tight = 0;
    for (n, m) in [
        (256u32, 224u32),
        (64, 32),
        (250, 200),
        (0, 0),
        (32, u32::MAX),
        (u32::MAX, 5),
    ] {
        for block in [1u32, 8, 32, 64, 100] {
            for len in [0u64, 31, 255, 256, 257, 320, 1 << 20] {
                let allocs = [(inp, inp + 4 * len), (out, out + 4 * len)];
                let p: Vec<u8> = probe(n, m).collect();
                let launch = Launch {
                    params: &p,
                    block: [block, 1, 1],
                    grid: [1, 1, 1],
                    dynamic_shared: 0,
                };
                let mask = f.proven(&launch, inside(&allocs));
                let mut wild = [false; 3];
                for t in 0..block {
                    let (first, second) = rows_indices(t, n, m);
                    let sites = [(first_load, inp, &first), (second_load, inp, &second)];
                    for (k, base, at) in sites.into_iter().chain([(store, out, &second)]) {
                        for i in at {
                            let a = base + 4 * u64::from(*i);
                            wild[k] |= !inside(&allocs)(a, a + 4);
                        }
                    }
                }
                let proven = |k: usize| mask >> k & 1 == 1;
                let what = format!("n {n}, m {m}, block {block}, len {len}");
                for (k, wild) in wild.into_iter().enumerate() {
                    assert!(!(proven(k) && wild), "site {k} proven but wild: {what}");
                }
                // The softmax shape: one warp-sized block over exactly its row.
                if (n, m, block) == (256, 224, 32) && len == 256 {
                    assert_eq!(mask, 0b111, "{what}");
                    tight += 1;
                }
                if (n, m, block) == (256, 224, 32) && len == 255 {
                    assert_eq!(mask, 0, "{what}");
                }
            }
        }
    }
    assert_eq!(tight, 1);
}

/// Two shared-memory sites indexed by `bfe` fields of a loaded word: an 8-bit field indexes
/// the 256 words of `hist`, a 9-bit one may reach 511. `bfe` clamps its position and length
/// in IR the optimiser folds only after the proofs are made.
const BFE_PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.visible .entry bins(.param .u64 in)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 hist[1024];
	ld.param.u64 %rd1, [in];
	cvta.to.global.u64 %rd1, %rd1;
	ld.global.u32 %r1, [%rd1];
	mov.u64 %rd2, hist;
	bfe.u32 %r2, %r1, 8, 8;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	atom.shared.add.u32 %r3, [%rd4], 1;
	bfe.u32 %r4, %r1, 16, 9;
	mul.wide.u32 %rd5, %r4, 4;
	add.s64 %rd6, %rd2, %rd5;
	atom.shared.add.u32 %r5, [%rd6], 1;
	ret;
}
"#;

#[test]
fn a_bfe_field_bounds_the_index_it_makes() {
    let program = Program::parse(SourceFile::new("bfe.ptx", BFE_PTX)).unwrap();
    let mut profile = DeviceProfile::lavapipe();
    profile.memcheck = true;
    let k = program.translate_kernel("bins", &profile).unwrap();
    ptxvk_translator::validate(&k.spirv).unwrap();
    let f = k.abi.mem_facts;
    let launch = Launch {
        params: &params(&[0x1000], 0),
        block: [1, 1, 1],
        grid: [1, 1, 1],
        dynamic_shared: 0,
    };
    let mask = f.proven(&launch, inside(&[(0x1000, 0x1004)]));
    let values = f.evaluate(&launch);
    // The ranges of the proven shared-memory facts, as byte spans.
    let spans: Vec<i128> = f
        .facts
        .iter()
        .enumerate()
        .filter(|(k, fact)| fact.limit.is_some() && mask >> k & 1 == 1)
        .map(|(_, fact)| {
            let (lo, hi) = (values[fact.lo as usize], values[fact.hi as usize]);
            hi.unwrap() + i128::from(fact.bytes) - lo.unwrap()
        })
        .collect();
    // A field of len bits is below 2^len (the ISA's `bfe`): 256 words for the 8-bit field;
    // the 9-bit field's 512 words pass the end of `hist`, so it stays checked.
    assert_eq!(spans, [1024], "{f:?}");
}
