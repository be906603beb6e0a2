//! Lowering reuses a register's value within a block (`Builder::load_var`) instead of loading the
//! register's variable again, and a constant made earlier in the block (`Builder::konst`); calls
//! and texture operations write variables, so a register is loaded anew after them, and
//! inlining splits the block at a call, so constants are made anew there too.

use std::collections::HashSet;
use std::path::Path;

use crate::ir::{Function, Op, Terminator, Ty, ValueId, VarId};
use crate::{DeviceProfile, Program, SourceFile};

/// The loads of register variables in `f` that repeat a load or store of the same register
/// earlier in their block with no call or texture operation in between.
fn repeated_loads(f: &Function) -> Vec<String> {
    // Register variables carry the register's name; the repository's PTX names them all `%...`.
    let register = |v: VarId| f.vars[v.0 as usize].name.to_string().starts_with('%');
    let mut found = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut seen = HashSet::new();
        for inst in &b.insts {
            match &inst.op {
                Op::LoadVar(v) if register(*v) && !seen.insert(*v) => {
                    found.push(format!(
                        "{}: b{bi} loads {}",
                        f.name, f.vars[v.0 as usize].name
                    ));
                }
                Op::StoreVar(v, _) => {
                    seen.insert(*v);
                }
                Op::Call(_) | Op::Texture(_) => seen.clear(),
                _ => {}
            }
        }
    }
    found
}

/// The uses of constants and register loads (the values lowering reuses) outside the block
/// that defines them, or before their definition. Not a rule of all lowered code:
/// `generic_dispatch` hands the value to store to the blocks of each space, which its block
/// dominates.
fn misplaced_uses(f: &Function) -> Vec<String> {
    // Per value: its block, and its position there.
    let mut def = vec![None; f.values.len()];
    let mut reused = vec![false; f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, inst) in b.insts.iter().enumerate() {
            if let Some(r) = inst.result {
                def[r.0 as usize] = Some((bi, k));
                reused[r.0 as usize] = matches!(inst.op, Op::Const(_) | Op::LoadVar(_));
            }
        }
    }
    let mut found = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut check = |v: ValueId, at: usize| {
            if reused[v.0 as usize]
                && !matches!(def[v.0 as usize], Some((db, dk)) if db == bi && dk < at)
            {
                found.push(format!("{}: b{bi}[{at}] uses v{}", f.name, v.0));
            }
        };
        for (k, inst) in b.insts.iter().enumerate() {
            crate::ir::inline::for_each_value(&inst.op, &f.side, |v| check(v, k));
        }
        let end = b.insts.len();
        match &b.term {
            Terminator::Branch { cond, .. } => check(*cond, end),
            Terminator::Switch { value, .. } => check(*value, end),
            Terminator::Return(vs) => vs.iter().for_each(|v| check(*v, end)),
            Terminator::Jump(_) | Terminator::Exit | Terminator::Unreachable => {}
        }
    }
    found
}

/// The lowered kernels of `text`; `None` where one does not lower under `profile` (the corpus
/// has kernels a profile refuses).
fn lowered(text: &str, profile: &str) -> Option<Vec<crate::ir::Module>> {
    let program = Program::parse(SourceFile::new("t.ptx", text.to_string()))
        .unwrap_or_else(|d| panic!("{d}"));
    let profile = DeviceProfile::named(profile).expect("profile");
    program
        .module
        .kernels()
        .map(|(id, _)| {
            super::lower_kernel(
                &program.module,
                id,
                &profile,
                &program.global_offsets,
                &mut super::Buffers::default(),
            )
            .ok()
            .map(|l| {
                let mut m = l.module;
                m.name_registers(&program.module);
                m
            })
        })
        .collect()
}

/// The kernel function of `text` (one kernel, with a call in its entry block) lowered for the
/// nvidia profile, and the position of that call.
fn kernel_with_call(text: &str) -> (Function, usize) {
    let mut m = lowered(text, "nvidia").expect("lowers").remove(0);
    let k = m.functions.swap_remove(m.entry.0 as usize);
    let call = k.blocks[k.entry.0 as usize]
        .insts
        .iter()
        .position(|i| matches!(i.op, Op::Call(_)))
        .expect("the call");
    (k, call)
}

const CALLS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %a;
    ld.param.b32 %a, [x];
    add.u32 %a, %a, %a;
    st.param.b32 [r], %a;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r1, %r1;
    mul.lo.u32 %r3, %r2, %r1;
    {
        .param .b32 a;
        .param .b32 b;
        st.param.b32 [a], %r3;
        call (b), twice, (a);
        ld.param.b32 %r3, [b];
    }
    add.u32 %r3, %r3, %r1;
    setp.eq.u32 %p, %r3, 0;
    @%p bra DONE;
    st.global.u32 [%rd1], %r3;
DONE:
    ret;
}
"#;

#[test]
fn registers_are_read_once_per_block_and_again_after_a_call() {
    let (k, call) = kernel_with_call(CALLS);
    let k = &k;
    assert_eq!(repeated_loads(k), Vec::<String>::new());
    let var = |name: &str| {
        let i = k.vars.iter().position(|v| v.name.to_string() == name);
        VarId(i.unwrap_or_else(|| panic!("no variable {name}")) as u32)
    };
    let (r1, r3, rd1) = (var("%r1"), var("%r3"), var("%rd1"));
    let entry = &k.blocks[k.entry.0 as usize].insts;
    let loads = |insts: &[crate::ir::Inst], v: VarId| {
        insts
            .iter()
            .filter(|i| matches!(i.op, Op::LoadVar(x) if x == v))
            .count()
    };
    // `%r1` is stored by the `mov` and read three times before the call: no load; read once
    // after it: loaded once (the callee cannot write it, but inlining splits the block there).
    assert_eq!(loads(&entry[..call], r1), 0);
    assert_eq!(loads(&entry[call..], r1), 1);
    // The block after the branch loads what it reads.
    let stored_in_other_block = k.blocks.iter().any(|b| {
        b.insts.iter().any(|i| matches!(i.op, Op::Store { .. }))
            && loads(&b.insts, r3) == 1
            && loads(&b.insts, rd1) == 1
    });
    assert!(
        stored_in_other_block,
        "the guarded store loads %r3 and %rd1"
    );
}

#[test]
fn no_register_is_loaded_twice_in_a_block_in_the_repository_ptx() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for dir in ["shaders", "shaders/corpus", "runtime/tests/ptx"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("file");
            for profile in ["nvidia", "lavapipe"] {
                let Some(modules) = lowered(&text, profile) else {
                    continue;
                };
                for m in modules {
                    for f in &m.functions {
                        let found = repeated_loads(f);
                        assert!(found.is_empty(), "{}: {found:?}", path.display());
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 400, "only {checked} functions");
}

const CONSTS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.func (.param .b32 r) same(.param .b32 x)
{
    .reg .b32 %a;
    ld.param.b32 %a, [x];
    st.param.b32 [r], %a;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<7>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    add.u32 %r2, %r1, 1000;
    xor.b32 %r3, %r2, 1000;
    {
        .param .b32 a;
        .param .b32 b;
        st.param.b32 [a], %r3;
        call (b), same, (a);
        ld.param.b32 %r4, [b];
    }
    add.u32 %r5, %r4, 1000;
    xor.b32 %r6, %r5, 1000;
    st.global.u32 [%rd1], %r6;
    ret;
}
"#;

#[test]
fn a_constant_is_made_once_per_block_and_again_after_a_call() {
    let (k, call) = kernel_with_call(CONSTS);
    let k = &k;
    assert_eq!(misplaced_uses(k), Vec::<String>::new());
    let entry = &k.blocks[k.entry.0 as usize].insts;
    let made = |insts: &[crate::ir::Inst]| {
        insts
            .iter()
            .filter(|i| i.op == Op::Const(1000) && i.result.is_some_and(|r| k.ty(r) == Ty::I32))
            .count()
    };
    // Two instructions read the immediate 1000 on each side of the call.
    assert_eq!(made(&entry[..call]), 1);
    assert_eq!(made(&entry[call..]), 1);
}
