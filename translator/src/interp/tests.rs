//! The IR passes of `pipeline.rs` keep what random programs do: each program is run by the
//! interpreter before and after the pass on the same inputs, and the two outcomes (return
//! values, memory, observable events in order) must be equal bit for bit.

use super::random::{self, Rng, Shape};
use super::{Event, Inputs, Outcome, STATUS_ADDRESS, run, run_structured, text};
use crate::ir::{self, Module};

/// Programs per pass, and inputs per program.
const CASES: u64 = 150;
const INPUTS: usize = 4;

fn shape(rng: &mut Rng, callees: usize, recursive: bool) -> Shape {
    Shape {
        blocks: 1 + rng.pick(6),
        callees,
        recursive,
        exits: rng.pick(3) == 0,
    }
}

/// The outcomes of `m` on `INPUTS` random inputs, each activation with its own frame of the
/// local arena as PTX means it; each run must end (the generator makes programs that are
/// defined and finish).
/// The inputs it returns have no frames: after `ir::recursion` the stack is explicit.
fn outcomes(rng: &mut Rng, m: &Module, case: u64) -> Vec<(Inputs, Outcome)> {
    (0..INPUTS)
        .map(|_| {
            let mut inputs = random::inputs(rng);
            inputs.frames = random::frames(m);
            let run = run(m, &inputs);
            inputs.frames.clear();
            match run {
                Ok(o) => (inputs, o),
                Err(e) => panic!("case {case}: the program stopped: {e:?}\n{}", text(m)),
            }
        })
        .collect()
}

/// Fails with where `got` differs from `want`, and the programs (`what`).
fn same(want: &Outcome, got: &Outcome, what: impl FnOnce() -> String) {
    if let Some(d) = want.difference(got) {
        panic!("{d}\n{}", what());
    }
}

fn verified(m: &Module, what: &str, case: u64) {
    if let Err(e) = crate::verify::module(m) {
        panic!("case {case}: the IR {what} is broken: {e}\n{}", text(m));
    }
}

/// Runs `pass` on `CASES` random modules of `shape` and compares the runs; `keep` picks the
/// events that count (a pass may add its own checks).
fn check_pass(
    seed: u64,
    mut shape_of: impl FnMut(&mut Rng) -> Shape,
    mut pass: impl FnMut(&mut Module),
    keep: impl Fn(&Event) -> bool,
) {
    let mut rng = Rng(seed);
    for case in 0..CASES {
        let s = shape_of(&mut rng);
        let m = random::module(&mut rng, s);
        verified(&m, "generated", case);
        let before = outcomes(&mut rng, &m, case);
        let mut g = m.clone();
        pass(&mut g);
        verified(&g, "after the pass", case);
        for (inputs, want) in before {
            let got = run(&g, &inputs)
                .unwrap_or_else(|e| panic!("case {case}: {e:?} after the pass\n{}", text(&g)));
            let filtered = |o: &Outcome| Outcome {
                events: o.events.iter().filter(|e| keep(e)).cloned().collect(),
                ..o.clone()
            };
            same(&filtered(&want), &filtered(&got), || {
                format!(
                    "case {case}, {inputs:?}\nbefore:\n{}\nafter:\n{}",
                    text(&m),
                    text(&g)
                )
            });
        }
    }
}

fn all(_: &Event) -> bool {
    true
}

#[test]
fn forwarding_keeps_behaviour() {
    check_pass(
        11,
        |rng| {
            let callees = rng.pick(3);
            shape(rng, callees, false)
        },
        |m| ir::forward::module(m, &mut ir::forward::Buffers::default()),
        all,
    );
}

#[test]
fn inlining_keeps_behaviour() {
    check_pass(
        12,
        |rng| {
            let callees = 1 + rng.pick(3);
            shape(rng, callees, false)
        },
        |m| ir::inline::inline_where(m, |_| true),
        all,
    );
}

#[test]
fn inlining_what_exits_keeps_behaviour() {
    check_pass(
        13,
        |rng| {
            let callees = 1 + rng.pick(3);
            Shape {
                exits: true,
                ..shape(rng, callees, false)
            }
        },
        |m| ir::inline::inline_where(m, |g| g.must_inline(false)),
        all,
    );
}

#[test]
fn recursion_elimination_keeps_behaviour() {
    check_pass(
        14,
        |rng| {
            let callees = 1 + rng.pick(2);
            shape(rng, callees, true)
        },
        |m| {
            let arena = random::local_arena(m);
            assert!(ir::recursion::eliminate(m, &arena), "a cycle was merged");
            m.local_words += 1 + ir::recursion::STACK_WORDS;
        },
        all,
    );
}

/// The check reads the status word and, when no loop was cut, writes nothing.
#[test]
fn the_loop_limit_check_keeps_behaviour() {
    check_pass(
        15,
        |rng| {
            let callees = rng.pick(2);
            shape(rng, callees, false)
        },
        |m| ir::loop_limit::check_at_exits(m, 1),
        |e| *e != Event::VolatileLoad { at: STATUS_ADDRESS },
    );
}

/// Every function structured; the trees run the same as the CFGs.
#[test]
fn structurizing_keeps_behaviour() {
    let mut rng = Rng(16);
    for case in 0..CASES {
        let callees = rng.pick(3);
        let s = shape(&mut rng, callees, false);
        let m = random::module(&mut rng, s);
        let before = outcomes(&mut rng, &m, case);
        let mut g = m.clone();
        let trees: Vec<_> = g
            .functions
            .iter_mut()
            .map(|f| crate::structurize::structurize(f).expect("shallow"))
            .collect();
        if let Err(e) = crate::verify::structured(&g, &trees) {
            panic!("case {case}: {e}");
        }
        for (inputs, want) in before {
            let got = run_structured(&g, &trees, &inputs)
                .unwrap_or_else(|e| panic!("case {case}: {e:?}\n{trees:#?}"));
            same(&want, &got, || {
                format!("case {case}\n{}\n{trees:#?}", text(&m))
            });
        }
    }
}

/// The passes in the pipeline's order, recursion to structurization, on programs with every
/// kind of call.
#[test]
fn the_passes_in_order_keep_behaviour() {
    let mut rng = Rng(17);
    for case in 0..CASES {
        let callees = 1 + rng.pick(3);
        let recursive = rng.pick(2) == 0;
        let s = shape(&mut rng, callees, recursive);
        let m = random::module(&mut rng, s);
        let before = outcomes(&mut rng, &m, case);
        let mut g = m.clone();
        let arena = random::local_arena(&g);
        if ir::recursion::eliminate(&mut g, &arena) {
            g.local_words += 1 + ir::recursion::STACK_WORDS;
        }
        let stage = |g: &Module, pass: &str, before: &[(Inputs, Outcome)]| {
            for (inputs, want) in before {
                let got = run(g, inputs).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
                same(want, &got, || {
                    format!(
                        "case {case} after {pass}, {inputs:?}\n{}\n{}",
                        text(&m),
                        text(g)
                    )
                });
            }
        };
        stage(&g, "recursion", &before);
        ir::inline::inline_where(&mut g, |f| f.must_inline(true));
        stage(&g, "inline", &before);
        ir::forward::module(&mut g, &mut ir::forward::Buffers::default());
        stage(&g, "forward", &before);
        verified(&g, "before structurization", case);
        let trees: Vec<_> = g
            .functions
            .iter_mut()
            .map(|f| crate::structurize::structurize(f).expect("shallow"))
            .collect();
        for (inputs, want) in before {
            let got = run_structured(&g, &trees, &inputs)
                .unwrap_or_else(|e| panic!("case {case}: {e:?}"));
            same(&want, &got, || {
                format!("case {case}, {inputs:?}\n{}", text(&m))
            });
        }
    }
}

/// The interpreter itself, on facts that do not come from it: IEEE arithmetic of the host,
/// two's complement, and the undefined cases it must refuse.
#[test]
fn the_interpreter_follows_ieee_and_twos_complement() {
    use super::ops::{binary, convert, extended, unary};
    use crate::ir::{BinOp, ConvOp, ExtOp, Ty, UnOp};
    let f = |x: f32| u64::from(x.to_bits());
    assert_eq!(
        binary(BinOp::FAdd, f(0.1), f(0.2), Ty::F32),
        Ok(f(0.1 + 0.2))
    );
    assert_eq!(
        binary(BinOp::SDiv, (-7i32) as u32 as u64, 2, Ty::I32).map(|x| x as u32),
        Ok((-3i32) as u32)
    );
    assert_eq!(
        binary(BinOp::AShr, 0x8000_0000, 31, Ty::I32).map(|x| x as u32),
        Ok(u32::MAX)
    );
    assert!(binary(BinOp::Shl, 1, 32, Ty::I32).is_err());
    assert!(binary(BinOp::UDiv, 1, 0, Ty::I64).is_err());
    assert_eq!(binary(BinOp::SMulHi, u64::MAX, u64::MAX, Ty::I64), Ok(0));
    let nan = f(f32::NAN);
    assert_eq!(binary(BinOp::FOrdNe, nan, f(1.0), Ty::F32), Ok(0));
    assert_eq!(binary(BinOp::FUnordNe, nan, f(1.0), Ty::F32), Ok(1));
    assert_eq!(unary(UnOp::FNeg, f(2.0), Ty::F32), Ok(f(-2.0)));
    assert_eq!(unary(UnOp::BitReverse, 1, Ty::I32), Ok(0x8000_0000));
    // 2^24 + 1 rounds to even in f32.
    assert_eq!(
        convert(ConvOp::UToF, (1 << 24) + 1, Ty::I64, Ty::F32),
        Ok(f(16_777_216.0))
    );
    assert_eq!(
        convert(ConvOp::SExt, 0x80, Ty::I8, Ty::I32).map(|x| x as u32),
        Ok(0xFFFF_FF80)
    );
    assert!(convert(ConvOp::FToS, f(3e9), Ty::F32, Ty::I32).is_err());
    let fma = extended(ExtOp::Fma, &[f(0.1), f(10.0), f(-1.0)], Ty::F32);
    assert_eq!(fma, Ok(f(0.1f32.mul_add(10.0, -1.0))));
    assert_eq!(
        extended(ExtOp::FindSMsb, &[u64::MAX], Ty::I32),
        Ok(u64::MAX)
    );
}

/// Variables named in the inputs start from the given values, and their stores, masked to the
/// variable's type, are events in program order; the run is cut at `max_events`.
#[test]
fn named_variables_start_as_given_and_their_stores_are_events() {
    use super::{run_function, single};
    use crate::ir::{BinOp, Function, Op, Terminator, Ty};
    let mut f = Function::new("k");
    let b = f.entry;
    let n = f.new_var(Ty::I32, "n");
    let small = f.new_var(Ty::int(8), "small");
    let x = f.push(b, Ty::I32, Op::LoadVar(n));
    let one = f.push(b, Ty::I32, Op::Const(0x101));
    let y = f.push(b, Ty::I32, Op::Bin(BinOp::IAdd, x, one, Default::default()));
    f.push_void(b, Op::StoreVar(n, y));
    let z = f.push(b, Ty::int(8), Op::Conv(crate::ir::ConvOp::Trunc, y));
    f.push_void(b, Op::StoreVar(small, z));
    f.push_void(b, Op::StoreVar(n, x));
    f.block_mut(b).term = Terminator::Return(Vec::new());
    let store = |name: &str, bits: u64| Event::VarStore {
        name: name.into(),
        bits,
    };
    let mut inputs = Inputs::new(Vec::new(), 5);
    inputs.var_starts = vec![("n".into(), 0xFFFF_FFFF)];
    inputs.traced_vars = vec!["n".into(), "small".into()];
    let o = run_function(&f, &inputs).expect("runs");
    assert_eq!(
        o.events,
        [
            store("n", 0x100),
            store("small", 0),
            store("n", 0xFFFF_FFFF)
        ]
    );
    assert!(!o.cut);
    inputs.max_events = 2;
    let o = super::run(&single(&f), &inputs).expect("runs");
    assert_eq!(o.events, [store("n", 0x100), store("small", 0)]);
    assert!(o.cut);
    // Untraced, the stores are not events.
    inputs.traced_vars.clear();
    assert!(run_function(&f, &inputs).expect("runs").events.is_empty());
}
