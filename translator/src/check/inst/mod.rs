//! Instruction decoding: opcode + modifiers + operands -> a typed [`Op`].
//!
//! One file per instruction family; each decoder applies the ISA's syntax and type rules for its
//! instructions. The forms they produce are in `check/op/`, a file per family of the same name;
//! what an instruction *does* is in `lower/`.

mod arith;
mod async_copy;
mod atom;
mod cmp;
mod control;
mod convert;
mod data;
mod extended;
mod fence;
mod float;
mod float_rules;
mod int;
mod ldst;
mod logic;
mod matrix;
mod mbarrier;
mod misc;
mod narrow;
mod permute;
mod shared;
mod sync;
mod texture;
mod video;
mod warp;
mod wgmma;

// The decoded forms, by the paths the lowering names them.
pub use super::op::*;
pub use cmp::SETP_TYPES;
pub(crate) use control::resolve_prototype_calls;

use super::FnCx;
use super::mods::Mods;
use super::typed::*;
use crate::ast;
use crate::diag::Diagnostic;

/// Decodes one instruction statement. Errors are reported on `cx`; `None` means it was invalid.
pub(crate) fn decode(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) -> Option<Inst> {
    let guard = match &i.guard {
        Some(g) => Some(cx.guard(g)?),
        None => None,
    };
    let mut m = Mods::new(i);
    // The catalog lists what is decoded: a mnemonic without a row is refused here, whatever
    // the dispatch below would make of it.
    if super::catalog::lookup(i.opcode.node).is_none() {
        unknown(cx, i);
        return None;
    }
    let op = match i.opcode.node {
        "add" | "sub" | "mul" | "mad" | "div" | "abs" | "neg" | "min" | "max"
            if float::has_float_type(i) =>
        {
            float::decode(cx, i, &mut m)
        }
        "fma" | "testp" | "copysign" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2"
        | "tanh" => float::decode(cx, i, &mut m),
        "set" => cmp::set(cx, i, &mut m).map(Op::Set),
        "slct" => cmp::slct(cx, i, &mut m).map(Op::Slct),
        "add" | "sub" | "mad" if int::has_modifier(i, "cc") => {
            extended::carry(cx, i, &mut m).map(Op::Carry)
        }
        "addc" | "subc" | "madc" => extended::carry(cx, i, &mut m).map(Op::Carry),
        "add" | "sub" | "min" | "max" if int::is_simd(i) => int::simd(cx, i, &mut m).map(Op::Simd),
        "mul24" => int::mul24(cx, i, &mut m, false).map(Op::Mul24),
        "mad24" => int::mul24(cx, i, &mut m, true).map(Op::Mad24),
        "sad" => int::sad(cx, i, &mut m).map(Op::Sad),
        "popc" => int::count_bits(cx, i, &mut m).map(Op::Popc),
        "clz" => int::count_bits(cx, i, &mut m).map(Op::Clz),
        "bfind" => int::bfind(cx, i, &mut m).map(Op::Bfind),
        "brev" => int::brev(cx, i, &mut m).map(Op::Brev),
        "bfe" => int::bfe(cx, i, &mut m).map(Op::Bfe),
        "bfi" => int::bfi(cx, i, &mut m).map(Op::Bfi),
        "bmsk" => int::bmsk(cx, i, &mut m).map(Op::Bmsk),
        "szext" => int::szext(cx, i, &mut m).map(Op::Szext),
        "dp4a" => int::dot(cx, i, &mut m, false).map(Op::Dp4a),
        "dp2a" => int::dot(cx, i, &mut m, true).map(Op::Dp2a),
        "cnot" => logic::cnot(cx, i, &mut m).map(Op::Cnot),
        "lop3" => logic::lop3(cx, i, &mut m).map(|l| Op::Lop3(Box::new(l))),
        "shf" => logic::shf(cx, i, &mut m).map(Op::Shf),
        "prmt" => permute::prmt(cx, i, &mut m).map(Op::Prmt),
        "ldmatrix" => matrix::ldmatrix(cx, i, &mut m).map(|l| Op::Ldmatrix(Box::new(l))),
        "stmatrix" => matrix::stmatrix(cx, i, &mut m).map(|s| Op::Stmatrix(Box::new(s))),
        "movmatrix" => matrix::movmatrix(cx, i, &mut m).map(|v| Op::Movmatrix(Box::new(v))),
        "mma" => matrix::mma(cx, i, &mut m).map(|x| Op::Mma(Box::new(x))),
        "wmma" => matrix::wmma(cx, i, &mut m).map(|w| Op::Wmma(Box::new(w))),
        "wgmma" => wgmma::wgmma(cx, i, &mut m).map(Op::Wgmma),
        "tex" => texture::tex(cx, i, &mut m).map(|t| Op::Tex(Box::new(t))),
        "tld4" => texture::tld4(cx, i, &mut m).map(|t| Op::Tld4(Box::new(t))),
        "txq" => texture::txq(cx, i, &mut m).map(Op::Txq),
        "add" => arith::add(cx, i, &mut m).map(Op::Add),
        "sub" => arith::add(cx, i, &mut m).map(Op::Sub),
        "mul" => arith::mul(cx, i, &mut m).map(Op::Mul),
        "mad" => arith::mad(cx, i, &mut m).map(Op::Mad),
        "div" => arith::div(cx, i, &mut m).map(Op::Div),
        "rem" => arith::rem(cx, i, &mut m).map(Op::Rem),
        "abs" => arith::abs_neg(cx, i, &mut m, false).map(Op::Abs),
        "neg" => arith::abs_neg(cx, i, &mut m, true).map(Op::Neg),
        "min" => arith::min_max(cx, i, &mut m).map(Op::Min),
        "max" => arith::min_max(cx, i, &mut m).map(Op::Max),
        "setp" => cmp::setp(cx, i, &mut m).map(Op::Setp),
        "selp" => cmp::selp(cx, i, &mut m).map(Op::Selp),
        "and" => logic::bitwise(cx, i, &mut m, 3).map(Op::And),
        "or" => logic::bitwise(cx, i, &mut m, 3).map(Op::Or),
        "xor" => logic::bitwise(cx, i, &mut m, 3).map(Op::Xor),
        "not" => logic::bitwise(cx, i, &mut m, 2).map(Op::Not),
        "shl" => logic::shift(cx, i, &mut m, false).map(Op::Shl),
        "shr" => logic::shift(cx, i, &mut m, true).map(Op::Shr),
        "mov" => data::mov(cx, i, &mut m).map(Op::Mov),
        "ld" => ldst::ld(cx, i, &mut m).map(Op::Ld),
        "st" => ldst::st(cx, i, &mut m).map(Op::St),
        "cvta" => data::cvta(cx, i, &mut m).map(Op::Cvta),
        "cvt" if i.modifiers.iter().any(|m| m.node == "pack") => {
            convert::cvt_pack(cx, i, &mut m).map(Op::CvtPack)
        }
        "cvt" if narrow::is_narrow(i) => {
            narrow::cvt_narrow(cx, i, &mut m).map(|c| Op::CvtNarrow(Box::new(c)))
        }
        "cvt" => convert::cvt(cx, i, &mut m).map(Op::Cvt),
        "isspacep" => data::isspacep(cx, i, &mut m).map(Op::Isspacep),
        "call" if !control::is_direct_call(cx, i) => {
            control::call_indirect(cx, i, &mut m).map(|c| Op::CallIndirect(Box::new(c)))
        }
        "brx" => control::brx_idx(cx, i, &mut m).map(Op::BrxIdx),
        "cp" => async_copy::cp(cx, i, &mut m).map(Op::AsyncCopy),
        "nanosleep" => misc::nanosleep(cx, i, &mut m).map(Op::Nanosleep),
        "griddepcontrol" => misc::griddepcontrol(cx, i, &mut m).map(Op::NoEffect),
        "setmaxnreg" => misc::setmaxnreg(cx, i, &mut m).map(Op::NoEffect),
        "createpolicy" => misc::createpolicy(cx, i, &mut m).map(Op::CreatePolicy),
        "mapa" => misc::cluster_query(cx, i, &mut m, true).map(Op::ClusterQuery),
        "getctarank" => misc::cluster_query(cx, i, &mut m, false).map(Op::ClusterQuery),
        "elect" => warp::elect(cx, i, &mut m).map(Op::Elect),
        "mbarrier" => mbarrier::mbarrier(cx, i, &mut m).map(|b| match b {
            MbarrierInst::Object(o) => Op::Mbarrier(o),
            MbarrierInst::PendingCount(p) => Op::MbarrierPending(p),
        }),
        "vmad" => video::mad(cx, i, &mut m).map(|v| Op::VideoMad(Box::new(v))),
        v if v.starts_with('v') && video::video_op(v).is_some() => match video::video_op(v) {
            Some((op, 1)) => video::scalar(cx, i, &mut m, op).map(|s| Op::VideoScalar(Box::new(s))),
            Some((op, lanes)) => {
                video::simd(cx, i, &mut m, op, lanes).map(|s| Op::VideoSimd(Box::new(s)))
            }
            None => None,
        },
        "bra" => control::bra(cx, i, &mut m).map(Op::Bra),
        "call" => control::call(cx, i, &mut m).map(Op::Call),
        "bar" if i.modifiers.first().is_some_and(|m| m.node == "warp") => {
            m.flag("warp");
            m.flag("sync");
            warp::warp_sync(cx, i).map(Op::WarpSync)
        }
        "bar" | "barrier" => sync::bar(cx, i, &mut m).map(Op::Bar),
        "shfl" => warp::shfl(cx, i, &mut m).map(|s| Op::Shfl(Box::new(s))),
        "vote" => warp::vote(cx, i, &mut m).map(Op::Vote),
        "match" => warp::match_sync(cx, i, &mut m).map(Op::Match),
        "activemask" => warp::activemask(cx, i, &mut m).map(Op::ActiveMask),
        "redux" => warp::redux(cx, i, &mut m).map(Op::Redux),
        "atom" => atom::atom(cx, i, &mut m, false).map(Op::Atom),
        "red" => atom::atom(cx, i, &mut m, true).map(Op::Atom),
        "membar" | "fence" => fence::fence(cx, i, &mut m),
        "ldu" => ldst::ldu(cx, i, &mut m).map(Op::Ld),
        "prefetch" => data::prefetch(cx, i, &mut m, false).map(|_| Op::Prefetch),
        "prefetchu" => data::prefetch(cx, i, &mut m, true).map(|_| Op::Prefetch),
        "ret" => control::no_operands(cx, i, &mut m, &["uni"]).map(|_| Op::Ret),
        "exit" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Exit),
        "trap" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Trap { breakpoint: false }),
        "brkpt" => control::no_operands(cx, i, &mut m, &[]).map(|_| Op::Trap { breakpoint: true }),
        _ => {
            unknown(cx, i);
            return None;
        }
    };
    let errors = if op.is_some() {
        m.finish()
    } else {
        std::mem::take(&mut m.errors)
    };
    let failed = !errors.is_empty();
    for e in errors {
        cx.error(e);
    }
    if failed {
        return None;
    }
    Some(Inst {
        guard,
        op: op?,
        span: i.span,
    })
}

fn unknown(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) {
    cx.error(
        Diagnostic::error(
            i.opcode.span,
            format!("unknown or unsupported instruction `{}`", i.opcode.node),
        )
        .with_label("not an instruction ptxvk translates yet"),
    );
}
