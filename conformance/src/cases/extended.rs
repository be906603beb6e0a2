//! ISA 8.7.2, extended-precision arithmetic: `add.cc addc sub.cc subc mad.cc madc` one by one
//! (with the carry flag set before and read back after), and multi-word chains checked against
//! `u128` arithmetic.

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig};
use ptxvk_translator::ScalarType::{self, *};

use super::int::{case, mask, product};
use crate::values::{Rng, rows};
use crate::{Case, Outcome, outcome_of};

const FAMILY: &str = "8.7.2 extended precision";

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Add,
    Sub,
    Mad { hi: bool },
}

/// The expected `d` and CC.CF after the instruction, from the ISA's semantics: `d = a + b +
/// CC.CF`, `d = a - (b + borrow)`, `d = t<..> + c + CC.CF` with the carry (borrow) out of the
/// addition (subtraction) of the type's width; without `.cc`, CC.CF is left as it was. For
/// subtraction CC.CF is the inverted borrow (borrow = 1 - CC.CF), as NVIDIA hardware keeps it:
/// the ISA writes `a - (b + CC.CF)`, which an H200 contradicts (`sub.cc 0, 0` sets CC.CF = 1;
/// `subc 0, 0` with CC.CF = 0 gives -1; the record in cuda-records/, docs/nvidia.md).
fn reference(
    kind: Kind,
    carry_in: bool,
    carry_out: bool,
    ty: ScalarType,
    r: &[u64],
    cf: u64,
) -> Vec<u64> {
    let n = ty.bits();
    let m = u128::from(mask(ty));
    let cin = if carry_in { u128::from(cf) } else { 0 };
    let (a, b, c) = (
        u128::from(r[0]) & m,
        u128::from(r[1]) & m,
        u128::from(r[2]) & m,
    );
    let (d, out) = match kind {
        Kind::Add => {
            let s = a + b + cin;
            (s & m, s >> n)
        }
        Kind::Sub => {
            let borrow_in = if carry_in { 1 - cin } else { 0 };
            let s = a as i128 - b as i128 - borrow_in as i128;
            ((s as u128) & m, u128::from(s >= 0))
        }
        Kind::Mad { hi } => {
            let t = product(ty, r[0], r[1]);
            let part = if hi { (t >> n) & m } else { t & m };
            let s = part + c + cin;
            (s & m, s >> n)
        }
    };
    let cf_after = if carry_out { out as u64 } else { cf };
    vec![d as u64, cf_after]
}

fn single(v: &mut Vec<Case>, name: &str, kind: Kind, carry_in: bool, carry_out: bool) {
    for ty in [U32, S32, U64, S64] {
        let n = ty.bits();
        let operands = if matches!(kind, Kind::Mad { .. }) {
            "%d, %a, %b, %c"
        } else {
            "%d, %a, %b"
        };
        // CC.CF is set from bit 5 of c before the instruction and read back after it.
        let body = format!(
            ".reg .b{n} %cft;\n.reg .pred %cfp;\n.reg .b32 %cfw;\n\
             and.b{n} %cft, %c, 32;\nsetp.ne.b{n} %cfp, %cft, 0;\nselp.u32 %cfw, 1, 0, %cfp;\n\
             add.cc.u32 %cfw, %cfw, 0xffffffff;\n\
             {name}{ty} {operands};\n\
             addc.u32 %e, 0, 0;"
        );
        v.push(case(
            FAMILY,
            format!("ext/{name}{ty}"),
            body,
            &[ty, ty, ty],
            &[ty, U32],
            rows(&[ty, ty, ty], 600, 400, 31),
            move |r| reference(kind, carry_in, carry_out, ty, r, (r[2] >> 5) & 1),
        ));
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    single(&mut v, "add.cc", Kind::Add, false, true);
    single(&mut v, "addc", Kind::Add, true, false);
    single(&mut v, "addc.cc", Kind::Add, true, true);
    single(&mut v, "sub.cc", Kind::Sub, false, true);
    single(&mut v, "subc", Kind::Sub, true, false);
    single(&mut v, "subc.cc", Kind::Sub, true, true);
    for hi in [false, true] {
        let h = if hi { "hi" } else { "lo" };
        let kind = Kind::Mad { hi };
        single(&mut v, &format!("mad.{h}.cc"), kind, false, true);
        single(&mut v, &format!("madc.{h}"), kind, true, false);
        single(&mut v, &format!("madc.{h}.cc"), kind, true, true);
    }
    v.push(multiword());
    v
}

const MULTIWORD: &str = r#"
.version 8.0
.target sm_90
.address_size 64

// Multi-word arithmetic through CC.CF: x and y are 128-bit values (4 words each, least
// significant first); each thread writes 32 words of results.
.visible .entry multiword(.param .u64 xs, .param .u64 ys, .param .u64 out, .param .u32 n)
{
    .reg .pred %p, %odd;
    .reg .b32 %i, %t, %n;
    .reg .b32 %x<4>, %y<4>, %r<4>;
    .reg .b64 %px, %py, %po, %off, %xl, %xh, %yl, %yh, %ql, %qh;

    mov.u32 %i, %ctaid.x;
    mov.u32 %t, %ntid.x;
    mul.lo.u32 %i, %i, %t;
    mov.u32 %t, %tid.x;
    add.u32 %i, %i, %t;
    ld.param.u32 %n, [n];
    setp.ge.u32 %p, %i, %n;
    @%p bra DONE;
    ld.param.u64 %px, [xs];
    ld.param.u64 %py, [ys];
    ld.param.u64 %po, [out];
    mul.wide.u32 %off, %i, 16;
    add.s64 %px, %px, %off;
    add.s64 %py, %py, %off;
    mul.wide.u32 %off, %i, 128;
    add.s64 %po, %po, %off;
    ld.global.u32 %x0, [%px];
    ld.global.u32 %x1, [%px+4];
    ld.global.u32 %x2, [%px+8];
    ld.global.u32 %x3, [%px+12];
    ld.global.u32 %y0, [%py];
    ld.global.u32 %y1, [%py+4];
    ld.global.u32 %y2, [%py+8];
    ld.global.u32 %y3, [%py+12];
    and.b32 %t, %i, 1;
    setp.ne.u32 %odd, %t, 0;

    // x + y, 128 bits; the chain crosses a branch, so CC.CF must live across blocks.
    add.cc.u32 %r0, %x0, %y0;
    addc.cc.u32 %r1, %x1, %y1;
    @%odd bra ADD_ODD;
    addc.cc.u32 %r2, %x2, %y2;
    bra ADD_JOIN;
ADD_ODD:
    addc.cc.u32 %r2, %y2, %x2;
ADD_JOIN:
    addc.u32 %r3, %x3, %y3;
    st.global.u32 [%po], %r0;
    st.global.u32 [%po+4], %r1;
    st.global.u32 [%po+8], %r2;
    st.global.u32 [%po+12], %r3;

    // x - y, 128 bits.
    sub.cc.u32 %r0, %x0, %y0;
    subc.cc.u32 %r1, %x1, %y1;
    subc.cc.u32 %r2, %x2, %y2;
    subc.u32 %r3, %x3, %y3;
    st.global.u32 [%po+16], %r0;
    st.global.u32 [%po+20], %r1;
    st.global.u32 [%po+24], %r2;
    st.global.u32 [%po+28], %r3;

    // The low 96 bits of x + y, and the carry out.
    add.cc.u32 %r0, %x0, %y0;
    addc.cc.u32 %r1, %x1, %y1;
    addc.cc.u32 %r2, %x2, %y2;
    addc.u32 %r3, 0, 0;
    st.global.u32 [%po+32], %r0;
    st.global.u32 [%po+36], %r1;
    st.global.u32 [%po+40], %r2;
    st.global.u32 [%po+44], %r3;

    // The low 96 bits of x - y, and the borrow out as 0 or -1.
    sub.cc.u32 %r0, %x0, %y0;
    subc.cc.u32 %r1, %x1, %y1;
    subc.cc.u32 %r2, %x2, %y2;
    subc.u32 %r3, 0, 0;
    st.global.u32 [%po+48], %r0;
    st.global.u32 [%po+52], %r1;
    st.global.u32 [%po+56], %r2;
    st.global.u32 [%po+60], %r3;

    // [r3,r2,r1,r0] = [x1,x0] * [y1,y0], as in the ISA's madc example.
    mul.lo.u32 %r0, %x0, %y0;
    mul.hi.u32 %r1, %x0, %y0;
    mad.lo.cc.u32 %r1, %x1, %y0, %r1;
    madc.hi.u32 %r2, %x1, %y0, 0;
    mad.lo.cc.u32 %r1, %x0, %y1, %r1;
    madc.hi.cc.u32 %r2, %x0, %y1, %r2;
    addc.u32 %r3, 0, 0;
    mad.lo.cc.u32 %r2, %x1, %y1, %r2;
    madc.hi.u32 %r3, %x1, %y1, %r3;
    st.global.u32 [%po+64], %r0;
    st.global.u32 [%po+68], %r1;
    st.global.u32 [%po+72], %r2;
    st.global.u32 [%po+76], %r3;

    // x + y and x - y again with 64-bit words.
    ld.global.u64 %xl, [%px];
    ld.global.u64 %xh, [%px+8];
    ld.global.u64 %yl, [%py];
    ld.global.u64 %yh, [%py+8];
    add.cc.u64 %ql, %xl, %yl;
    addc.u64 %qh, %xh, %yh;
    st.global.u64 [%po+80], %ql;
    st.global.u64 [%po+88], %qh;
    sub.cc.s64 %ql, %xl, %yl;
    subc.s64 %qh, %xh, %yh;
    st.global.u64 [%po+96], %ql;
    st.global.u64 [%po+104], %qh;
DONE:
    ret;
}
"#;

/// 128-bit test values: carry and borrow chains through every word, and random values.
fn wide_values() -> Vec<u128> {
    let mut v = vec![0, 1, 2, u128::MAX, u128::MAX - 1, 1 << 127, (1 << 127) - 1];
    for k in [32, 64, 96] {
        v.extend([
            (1u128 << k) - 1,
            1u128 << k,
            (1u128 << k) + 1,
            !((1u128 << k) - 1),
        ]);
    }
    v.push(0x0000_0000_ffff_ffff_0000_0000_ffff_ffff);
    v.push(0xffff_ffff_0000_0000_ffff_ffff_0000_0000);
    let mut rng = Rng::new(37);
    for _ in 0..8 {
        v.push(u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()));
    }
    v
}

/// What each thread of [`MULTIWORD`] writes, from `u128` arithmetic.
fn multiword_expected(x: u128, y: u128) -> Vec<u32> {
    let words = |v: u128, n: usize| (0..n).map(move |k| (v >> (32 * k)) as u32);
    let m96 = (1u128 << 96) - 1;
    let (x96, y96) = (x & m96, y & m96);
    let mut out: Vec<u32> = Vec::new();
    out.extend(words(x.wrapping_add(y), 4));
    out.extend(words(x.wrapping_sub(y), 4));
    out.extend(words(x96 + y96, 4)); // the carry lands in word 3
    out.extend(words(x96.wrapping_sub(y96) & m96, 3));
    out.push(if x96 < y96 { u32::MAX } else { 0 });
    out.extend(words(
        (x & u128::from(u64::MAX)) * (y & u128::from(u64::MAX)),
        4,
    ));
    out.extend(words(x.wrapping_add(y), 4));
    out.extend(words(x.wrapping_sub(y), 4));
    out
}

fn multiword() -> Case {
    Case {
        name: "ext/multiword-chains".into(),
        family: FAMILY,
        ptx: MULTIWORD.into(),
        run: Box::new(|ctx: &Context| {
            let run = || -> Result<Outcome, Error> {
                let module = ctx.load_ptx("multiword.ptx", MULTIWORD)?;
                let k = module.kernel("multiword")?;
                let values = wide_values();
                let mut pairs: Vec<(u128, u128)> = Vec::new();
                for &x in &values {
                    for &y in &values {
                        pairs.push((x, y));
                    }
                }
                let mut rng = Rng::new(41);
                for _ in 0..1000 {
                    let r = |rng: &mut Rng| {
                        u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())
                    };
                    pairs.push((r(&mut rng), r(&mut rng)));
                }
                let split = |v: u128| (0..4).map(move |k| (v >> (32 * k)) as u32);
                let xs: Vec<u32> = pairs.iter().flat_map(|p| split(p.0)).collect();
                let ys: Vec<u32> = pairs.iter().flat_map(|p| split(p.1)).collect();
                let n = pairs.len() as u32;
                let dx = DeviceBuffer::from_slice(ctx, &xs)?;
                let dy = DeviceBuffer::from_slice(ctx, &ys)?;
                let out = DeviceBuffer::from_slice(ctx, &vec![0xA5A5_A5A5u32; pairs.len() * 32])?;
                k.launch(
                    &LaunchConfig::for_num_elems(n, 128),
                    &[(&dx).into(), (&dy).into(), (&out).into(), n.into()],
                )?;
                let got = out.to_vec()?;
                const WHAT: [&str; 7] = [
                    "x + y (u32 words)",
                    "x - y (u32 words)",
                    "96-bit x + y with carry",
                    "96-bit x - y with borrow",
                    "64 x 64 multiply",
                    "x + y (u64 words)",
                    "x - y (u64 words)",
                ];
                for (i, &(x, y)) in pairs.iter().enumerate() {
                    let want = multiword_expected(x, y);
                    let g = &got[i * 32..i * 32 + want.len()];
                    if let Some(w) = (0..want.len()).find(|&w| g[w] != want[w]) {
                        return Ok(Outcome::Fail(format!(
                            "thread {i}: x = {x:#034x}, y = {y:#034x}: {}, word {}: expected \
                             {:#010x}, got {:#010x}",
                            WHAT[w / 4],
                            w % 4,
                            want[w],
                            g[w]
                        )));
                    }
                }
                Ok(Outcome::Pass)
            };
            run().unwrap_or_else(outcome_of)
        }),
    }
}
