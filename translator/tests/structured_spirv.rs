//! Random control-flow graphs, structurized and emitted, must be valid structured SPIR-V that
//! does what the CFG does.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod structured_spirv_support;

use ptxvk_translator::abi::KernelAbi;
use ptxvk_translator::interp::{self, Event, Inputs};
use ptxvk_translator::ir::{self, BlockId, Function, Op, Terminator, Ty};
use ptxvk_translator::structurize::{Node, structurize};

struct Lcg(u64);

impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn random_function(rng: &mut Lcg) -> Function {
    let n = 2 + rng.pick(14);
    let mut f = Function::new("k");
    while f.blocks.len() < n {
        f.new_block();
    }
    let counter = f.new_var(Ty::I32, "counter");
    // Stored in some blocks only: the emitter carries its value into the blocks after a store
    // (emit/carry.rs), which is valid only where the store's block dominates them.
    let seen = f.new_var(Ty::I32, "seen");
    for i in 0..n {
        let b = BlockId(i as u32);
        // Some work in every block, so values and vars cross the structure.
        let c = f.push(b, Ty::I32, Op::LoadVar(counter));
        let s = f.push(b, Ty::I32, Op::LoadVar(seen));
        let next = f.push(
            b,
            Ty::I32,
            Op::Bin(ir::BinOp::IAdd, c, s, Default::default()),
        );
        f.push_void(b, Op::StoreVar(counter, next));
        if rng.pick(3) == 0 {
            f.push_void(b, Op::StoreVar(seen, next));
        }
        let k = if i == n - 1 { 0 } else { rng.pick(4) };
        f.block_mut(b).term = match k {
            0 if i != n - 1 => Terminator::Jump(BlockId(i as u32 + 1)),
            0 => Terminator::Return(Vec::new()),
            1 => Terminator::Jump(BlockId(rng.pick(n) as u32)),
            2 => {
                let lim = f.push(b, Ty::I32, Op::Const(rng.pick(7) as u64));
                let cond = f.push(
                    b,
                    Ty::Bool,
                    Op::Bin(ir::BinOp::ULt, next, lim, Default::default()),
                );
                Terminator::Branch {
                    cond,
                    then: BlockId(rng.pick(n) as u32),
                    else_: BlockId(rng.pick(n) as u32),
                }
            }
            _ => {
                let m = f.push(b, Ty::I32, Op::Const(3));
                let sel = f.push(
                    b,
                    Ty::I32,
                    Op::Bin(ir::BinOp::UMod, next, m, Default::default()),
                );
                Terminator::Switch {
                    value: sel,
                    targets: vec![BlockId(rng.pick(n) as u32), BlockId(rng.pick(n) as u32)],
                    default: BlockId(rng.pick(n) as u32),
                }
            }
        };
    }
    f
}

/// The values the CFG `f` stores to `counter` and `seen`, in order, when they start as `start`:
/// the IR's interpreter's run, to the first `limit` stores.
fn cfg_trace(f: &Function, start: (u32, u32), limit: usize) -> structured_spirv_support::Trace {
    let names = ["counter", "seen"];
    let mut inputs = Inputs::new(Vec::new(), 0);
    inputs.var_starts = vec![
        (names[0].into(), start.0.into()),
        (names[1].into(), start.1.into()),
    ];
    inputs.traced_vars = names.map(String::from).to_vec();
    inputs.max_events = limit;
    let outcome = interp::run_function(f, &inputs).unwrap_or_else(|e| panic!("{e:?}\n{f}"));
    outcome
        .events
        .into_iter()
        .map(|e| match e {
            Event::VarStore { name, bits } => (name, bits as u32),
            other => panic!("{other:?} from\n{f}"),
        })
        .collect()
}

/// Whether `nodes` hold a `Block` that begins with a `Loop` and is branched to from a construct
/// nested inside that loop: the emitter writes the two as one loop construct and forwards such
/// a branch to it through the nested constructs' merges (`emit/func.rs`).
fn block_left_from_nested_loop_construct(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| match n {
        Node::Block(body) => {
            matches!(body.first(), Some(Node::Loop(inner)) if branches_to(inner, 1, 2))
                || block_left_from_nested_loop_construct(body)
        }
        Node::Loop(body) => block_left_from_nested_loop_construct(body),
        Node::If { then, else_, .. } => {
            block_left_from_nested_loop_construct(then)
                || block_left_from_nested_loop_construct(else_)
        }
        Node::Switch { cases, default, .. } => {
            cases
                .iter()
                .any(|c| block_left_from_nested_loop_construct(c))
                || block_left_from_nested_loop_construct(default)
        }
        _ => false,
    })
}

/// Whether a branch in `nodes`, `depth` constructs inside a construct, targets it from `min` or
/// more constructs inside it.
fn branches_to(nodes: &[Node], depth: u32, min: u32) -> bool {
    nodes.iter().any(|n| match n {
        Node::Branch(d) => *d == depth && depth >= min,
        Node::Block(body) | Node::Loop(body) => branches_to(body, depth + 1, min),
        Node::If { then, else_, .. } => {
            branches_to(then, depth, min) || branches_to(else_, depth, min)
        }
        Node::Switch { cases, default, .. } => {
            cases.iter().any(|c| branches_to(c, depth, min)) || branches_to(default, depth, min)
        }
        _ => false,
    })
}

#[test]
fn random_cfgs_emit_valid_spirv() {
    let mut rng = Lcg(99);
    let abi = KernelAbi {
        name: "k".into(),
        params: Vec::new(),
        param_block_size: 0,
        push_constant_size: 32,
        static_shared_bytes: 0,
        dynamic_shared: false,
        shared_spilled: false,
        lane_shaped_blocks: false,
        warp_scratch_bytes_per_thread: 0,
        shared_tail_bytes: 0,
        required_subgroup_size: None,
        reqntid: None,
        maxntid: None,
        status_codes: Vec::new(),
        textures: Default::default(),
        mem_facts: Default::default(),
    };
    let mut nested_exits = 0;
    for round in 0..300 {
        let mut f = random_function(&mut rng);
        let cfg = f.clone();
        let tree = structurize(&mut f).expect("shallow");
        nested_exits += usize::from(block_left_from_nested_loop_construct(&tree));
        let module = ir::Module {
            functions: vec![f],
            entry: ir::FuncId(0),
            ..Default::default()
        };
        // The verifier agrees with SPIR-V's validator on what the structurizer made.
        let trees = [tree];
        if let Err(e) = ptxvk_translator::verify::structured(&module, &trees) {
            panic!("round {round}: {e}\n{}", module.functions[0]);
        }
        let words = ptxvk_translator::emit::emit_kernel(
            &module,
            &trees,
            &abi,
            &Default::default(),
            &mut Default::default(),
            None,
        )
        .expect("emit");
        if let Err(e) = ptxvk_translator::validate(&words) {
            panic!(
                "round {round}: {e}\n{}\n{}",
                module.functions[0],
                ptxvk_translator::disassemble(&words)
            );
        }
        // The same stores in the same order as the CFG, from a few starting values.
        for start in [(0, 1), (1, 1), (3, 2), (6, 0), (2, 5)] {
            let want = cfg_trace(&cfg, start, 200);
            let got = structured_spirv_support::run_spirv(&words, start, 200);
            if got.as_ref() != Ok(&want) {
                panic!(
                    "round {round}, start {start:?}: CFG stores {want:?}\nSPIR-V: {got:?}\n{}\n{}",
                    cfg,
                    ptxvk_translator::disassemble(&words)
                );
            }
        }
    }
    eprintln!("{nested_exits} of 300 leave a block from a construct nested in its loop");
    assert!(nested_exits >= 30, "only {nested_exits} CFGs take the path");
}
