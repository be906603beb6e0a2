//! Kernel parameters are read once, in the kernel's first block, wherever the PTX reads them.
//! They are read-only (PTX ISA, "Kernel Function Parameters") and the whole parameter block is
//! always readable, so a read inside a branch may move there; drivers that run lanes together
//! (lavapipe) read a uniform address once only outside every branch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use ptxvk_translator::ir::{BinOp, BlockId, Builtin, Function, Op, Ptr, Terminator, ValueId};
use ptxvk_translator::{DeviceProfile, Program, SourceFile};

/// Every parameter is read only after the thread's bounds test, as clang emits a stencil.
const PTX: &str = r#".version 7.0
.target sm_70
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 n, .param .u32 v)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra END;
	ld.param.u32 %r2, [n];
	ld.param.u32 %r3, [v];
	add.s32 %r2, %r2, %r3;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], %r2;
END:
	ret;
}
"#;

/// The blocks every thread runs before its first branch: the entry and the blocks it jumps to
/// unconditionally.
fn straight_line(f: &Function) -> HashSet<BlockId> {
    let mut seen = HashSet::new();
    let mut b = f.entry;
    while seen.insert(b) {
        match f.blocks[b.0 as usize].term {
            Terminator::Jump(next) => b = next,
            _ => break,
        }
    }
    seen
}

/// The blocks of the loads whose address is the parameter block's plus a constant.
fn param_load_blocks(f: &Function) -> Vec<BlockId> {
    let mut def = vec![None; f.values.len()];
    for b in &f.blocks {
        for i in &b.insts {
            if let Some(r) = i.result {
                def[r.0 as usize] = Some(i.op);
            }
        }
    }
    let op = |v: ValueId| def[v.0 as usize];
    let is_param = |a: ValueId| match op(a) {
        Some(Op::Builtin(Builtin::ParamBase)) => true,
        Some(Op::Bin(BinOp::IAdd, x, y, _)) => {
            matches!(op(x), Some(Op::Builtin(Builtin::ParamBase)))
                && matches!(op(y), Some(Op::Const(_)))
        }
        _ => false,
    };
    let mut found = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in &b.insts {
            if let Op::Load {
                ptr: Ptr::Global(a),
                ..
            } = i.op
                && is_param(a)
            {
                found.push(BlockId(bi as u32));
            }
        }
    }
    found
}

fn check(profile: &str, memcheck: bool) {
    let program = Program::parse(SourceFile::new("k.ptx", PTX.to_string())).unwrap();
    let mut profile = DeviceProfile::named(profile).unwrap();
    profile.memcheck = memcheck;
    let (k, ir) = program.translate_kernel_with_ir("k", &profile).unwrap();
    ptxvk_translator::validate(&k.spirv).unwrap();
    let f = &ir.functions[ir.entry.0 as usize];
    let first = straight_line(f);
    let loads = param_load_blocks(f);
    // n, v and out: one read each.
    assert_eq!(
        loads.len(),
        3,
        "{}: parameter reads {loads:?}",
        profile.name
    );
    for b in loads {
        assert!(
            first.contains(&b),
            "{}: a parameter is read in b{} after a branch",
            profile.name,
            b.0
        );
    }
}

#[test]
fn parameters_are_read_before_the_first_branch() {
    for profile in ["lavapipe", "nvidia"] {
        check(profile, false);
        check(profile, true);
    }
}
