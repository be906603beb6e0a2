//! `ldmatrix`, `stmatrix` and `movmatrix` cases, checked against the ISA's fragment figures.

use super::{HEADER, bytes_case, one_warp};
use crate::Case;
use crate::values::Rng;

/// Byte offsets (16-byte aligned, distinct) of the 32 rows lanes give, within a 1 KiB array.
fn row_offsets(rng: &mut Rng) -> Vec<u32> {
    let mut slots: Vec<u32> = (0..64).collect();
    for i in (1..slots.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        slots.swap(i, j);
    }
    slots[..32].iter().map(|s| s * 16).collect()
}

/// Halfword `col` of row `row` of matrix `mi`, whose rows start at `offs[8 * mi + row]`.
fn half_at(mem: &[u8], offs: &[u32], mi: u32, row: u32, col: u32) -> u16 {
    let at = (offs[(8 * mi + row) as usize] + 2 * col) as usize;
    u16::from_le_bytes([mem[at], mem[at + 1]])
}

/// The fragment word of lane `lane` for matrix `mi`: elements (lane / 4, 2 * (lane % 4) + j)
/// of the matrix, of its transpose with `.trans`.
fn frag_word(mem: &[u8], offs: &[u32], mi: u32, lane: u32, trans: bool) -> u32 {
    let (r, c0) = (lane / 4, 2 * (lane % 4));
    let h = |j: u32| {
        if trans {
            half_at(mem, offs, mi, c0 + j, r)
        } else {
            half_at(mem, offs, mi, r, c0 + j)
        }
    };
    u32::from(h(0)) | u32::from(h(1)) << 16
}

pub(super) fn ld_st_case(store: bool, num: u32, trans: bool, generic: bool, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let offs = row_offsets(&mut rng);
    let mem: Vec<u8> = (0..1024).map(|_| rng.next_u64() as u8).collect();
    let frags: Vec<u32> = (0..32 * 4).map(|_| rng.next_u64() as u32).collect();
    let regs: Vec<String> = (0..num).map(|i| format!("%r{}", 10 + i)).collect();
    let list = format!("{{{}}}", regs.join(", "));
    let shape = format!(
        "m8n8.x{num}{}{}.b16",
        if trans { ".trans" } else { "" },
        if generic { "" } else { ".shared" }
    );
    let op = if store { "stmatrix" } else { "ldmatrix" };
    let addr = if generic { "%rd8" } else { "%r5" };
    let mut body = String::new();
    if store {
        for (i, r) in regs.iter().enumerate() {
            body.push_str(&format!("\tld.global.b32 {r}, [%rd6+{}];\n", 4 * i));
        }
        body.push_str(&format!(
            "\tstmatrix.sync.aligned.{shape} [{addr}], {list};\n"
        ));
        body.push_str("\tbar.sync 0;\n");
        // Lane l copies bytes 32l..32l+32 of the array out.
        for w in 0..8 {
            body.push_str(&format!(
                "\tld.shared.b32 %r20, [%r6+{}];\n\tst.global.b32 [%rd9+{}], %r20;\n",
                4 * w,
                4 * w
            ));
        }
    } else {
        body.push_str(&format!(
            "\tldmatrix.sync.aligned.{shape} {list}, [{addr}];\n"
        ));
        for (i, r) in regs.iter().enumerate() {
            body.push_str(&format!("\tst.global.b32 [%rd7+{}], {r};\n", 4 * i));
        }
    }
    // Lane l: fills bytes 32l.. of the array from `mem`, reads its row offset.
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 mem, .param .u64 offs, .param .u64 frag, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<24>;\n\t.reg .b64 %rd<12>;\n\
         \t.shared .align 16 .b8 arr[1024];\n\
         \tld.param.u64 %rd1, [mem];\n\tld.param.u64 %rd2, [offs];\n\
         \tld.param.u64 %rd3, [frag];\n\tld.param.u64 %rd4, [out];\n\
         \tmov.u32 %r1, %laneid;\n\
         \tmov.u32 %r2, arr;\n\tshl.b32 %r3, %r1, 5;\n\tadd.u32 %r6, %r2, %r3;\n\
         \tcvt.u64.u32 %rd5, %r3;\n\tadd.s64 %rd5, %rd1, %rd5;\n\
         \tld.global.v4.b32 {{%r12, %r13, %r14, %r15}}, [%rd5];\n\
         \tst.shared.v4.b32 [%r6], {{%r12, %r13, %r14, %r15}};\n\
         \tld.global.v4.b32 {{%r12, %r13, %r14, %r15}}, [%rd5+16];\n\
         \tst.shared.v4.b32 [%r6+16], {{%r12, %r13, %r14, %r15}};\n\
         \tbar.sync 0;\n\
         \tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd5, %rd2, %rd5;\n\tld.global.u32 %r4, [%rd5];\n\
         \tadd.u32 %r5, %r2, %r4;\n\
         \tcvta.shared.u64 %rd8, arr;\n\tcvt.u64.u32 %rd10, %r4;\n\
         \tadd.s64 %rd8, %rd8, %rd10;\n\
         \tmul.wide.u32 %rd5, %r1, 16;\n\tadd.s64 %rd6, %rd3, %rd5;\n\tadd.s64 %rd7, %rd4, %rd5;\n\
         \tmul.wide.u32 %rd5, %r1, 32;\n\tadd.s64 %rd9, %rd4, %rd5;\n\
         {body}\tret;\n}}\n"
    );
    // The expected output buffer.
    let want: Vec<u8> = if store {
        let mut m = mem.clone();
        for lane in 0..32u32 {
            for mi in 0..num {
                let w = frags[(lane * 4 + mi) as usize];
                let (r, c0) = (lane / 4, 2 * (lane % 4));
                for j in 0..2u32 {
                    let (row, col) = if trans { (c0 + j, r) } else { (r, c0 + j) };
                    let at = (offs[(8 * mi + row) as usize] + 2 * col) as usize;
                    let h = (w >> (16 * j)) as u16;
                    m[at..at + 2].copy_from_slice(&h.to_le_bytes());
                }
            }
        }
        m
    } else {
        let mut out = vec![0xA5u8; 32 * 16];
        for lane in 0..32u32 {
            for mi in 0..num {
                let w = frag_word(&mem, &offs, mi, lane, trans);
                let at = (lane * 16 + mi * 4) as usize;
                out[at..at + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        out
    };
    let out_len = if store { 1024 } else { 32 * 16 };
    let name = format!("matrix/{op}.{shape}/{seed}");
    let words = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let launch = one_warp(
        &name,
        &ptx,
        vec![mem, words(&offs), words(&frags), vec![0xA5; out_len]],
    );
    bytes_case(name, ptx, launch, 3, want)
}

/// `movmatrix`: lane l's word holds elements (l / 4, 2 * (l % 4) + j); afterwards, of the
/// transpose.
pub(super) fn movmatrix_case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let a: Vec<u32> = (0..32).map(|_| rng.next_u64() as u32).collect();
    let elem = |r: u32, c: u32| (a[(4 * r + c / 2) as usize] >> (16 * (c % 2))) as u16;
    let want: Vec<u8> = (0..32u32)
        .flat_map(|l| {
            let (r, c0) = (l / 4, 2 * (l % 4));
            let w = u32::from(elem(c0, r)) | u32::from(elem(c0 + 1, r)) << 16;
            w.to_le_bytes()
        })
        .collect();
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 inp, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<6>;\n\
         \tld.param.u64 %rd1, [inp];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r1, %laneid;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd5, %rd2, %rd3;\n\
         \tld.global.b32 %r2, [%rd4];\n\
         \tmovmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n\
         \tst.global.b32 [%rd5], %r3;\n\tret;\n}}\n"
    );
    let name = format!("matrix/movmatrix.sync.aligned.m8n8.trans.b16/{seed}");
    let launch = one_warp(
        &name,
        &ptx,
        vec![
            a.iter().flat_map(|x| x.to_le_bytes()).collect(),
            vec![0xA5; 128],
        ],
    );
    bytes_case(name, ptx, launch, 1, want)
}
