//! The rows of the catalog. Sections of the ISA 4.1 text (`/work/shared/ptx-isa`) are given to
//! the subsection; later instructions by NVIDIA's current numbering, to the subsection where
//! the conformance crate's coverage lists name it and to the chapter otherwise.

use super::sets;
use super::types::Family::{self, *};
use super::types::{Decode, Edition, Entry, Form, NO_IR, Section, Since, When};
use crate::check::inst::{
    arith, async_copy, atom, cmp, control, convert, data, extended, fence, float, int, ldst, logic,
    matrix, mbarrier, misc, narrow, permute, sync, texture, video, warp, wgmma,
};
use crate::check::op::{MbarrierInst, Op};

const INT: &str = "Integer Arithmetic Instructions";
const EXT: &str = "Extended-Precision Arithmetic Instructions";
const FLOAT: &str = "Floating Point Instructions";
const CMP: &str = "Comparison and Selection Instructions";
const LOGIC: &str = "Logic and Shift Instructions";
const DATA: &str = "Data Movement and Conversion Instructions";
const TEX: &str = "Texture Instructions";
const CONTROL: &str = "Control Flow Instructions";
const PARALLEL: &str = "Parallel Synchronization and Communication Instructions";
const WARP_MMA: &str = "Warp Level Matrix Multiply-Accumulate Instructions";
const WARPGROUP_MMA: &str = "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions";
const SCALAR_VIDEO: &str = "Scalar Video Instructions";
const SIMD_VIDEO: &str = "SIMD Video Instructions";
const MISC: &str = "Miscellaneous Instructions";

/// A section of the ISA 4.1 text.
const fn isa41(number: &'static str, chapter: &'static str, name: &'static str) -> Section {
    Section {
        edition: Edition::Isa41,
        number,
        chapter,
        name,
    }
}

/// A section of the current ISA.
const fn later(number: &'static str, chapter: &'static str, name: &'static str) -> Section {
    Section {
        edition: Edition::Current,
        number,
        chapter,
        name,
    }
}

/// A form that takes what the forms before it did not.
const fn f(family: Family, section: Section, decode: Decode) -> Form {
    Form {
        family,
        section,
        when: None,
        decode,
        lower: &[],
        modifiers: None,
    }
}

/// A form for the instructions `when` holds for.
const fn fw(family: Family, section: Section, when: When, decode: Decode) -> Form {
    Form {
        family,
        section,
        when: Some(when),
        decode,
        lower: &[],
        modifiers: None,
    }
}

const fn e(mnemonic: &'static str, since: Option<Since>, forms: &'static [Form]) -> Entry {
    Entry {
        mnemonic,
        since,
        forms,
    }
}

const fn since(ptx: (u32, u32), sm: u32) -> Option<Since> {
    Some(Since { ptx, sm })
}

/// Every target, from PTX ISA 1.0.
const ALWAYS: Option<Since> = None;

/// `add.cc`, `sub.cc`, `mad.cc`: extended precision.
fn carry_in_or_out(i: &crate::ast::Instruction<'_>) -> bool {
    int::has_modifier(i, "cc")
}

/// `cvt.pack`.
fn packs(i: &crate::ast::Instruction<'_>) -> bool {
    i.modifiers.iter().any(|m| m.node == "pack")
}

/// `bar.warp.sync`, which is warp-level, not a CTA barrier.
fn warp_barrier(i: &crate::ast::Instruction<'_>) -> bool {
    i.modifiers.first().is_some_and(|m| m.node == "warp")
}

fn video_op(
    cx: &mut crate::check::FnCx<'_, '_>,
    i: &crate::ast::Instruction<'_>,
    m: &mut crate::check::mods::Mods<'_, '_>,
) -> Option<Op> {
    match video::video_op(i.opcode.node)? {
        (op, 1) => video::scalar(cx, i, m, op).map(|s| Op::VideoScalar(Box::new(s))),
        (op, lanes) => video::simd(cx, i, m, op, lanes).map(|s| Op::VideoSimd(Box::new(s))),
    }
}

/// The float form of a mnemonic that also has integer forms: taken when a type modifier is a
/// float type.
const fn float_when(number: &'static str, name: &'static str) -> Form {
    fw(
        Float,
        isa41(number, FLOAT, name),
        float::has_float_type,
        float::decode,
    )
    .lowered_by(&["float::lower"])
}

const fn float_41(number: &'static str, name: &'static str) -> Form {
    f(Float, isa41(number, FLOAT, name), float::decode).lowered_by(&["float::lower"])
}

/// The packed 16-bit integer forms of `add`, `sub`, `min`, `max` (later ISA).
const fn simd(name: &'static str) -> Form {
    fw(Int, later("9.7.1", INT, name), int::is_simd, |cx, i, m| {
        int::simd(cx, i, m).map(Op::Simd)
    })
    .lowered_by(&["int::simd"])
}

/// Sorted by mnemonic, so that a lookup is a binary search.
pub const CATALOG: &[Entry] = &[
    e(
        "abs",
        ALWAYS,
        &[
            float_when("8.7.3.9", "abs").takes(sets::F_ABS_NEG),
            f(Arith, isa41("8.7.1.10", INT, "abs"), |cx, i, m| {
                arith::abs_neg(cx, i, m, false).map(Op::Abs)
            })
            .takes(sets::INT_SIGNED),
        ],
    ),
    e(
        "activemask",
        since((6, 2), 30),
        &[
            f(Warp, later("9.7.13", PARALLEL, "activemask"), |cx, i, m| {
                warp::activemask(cx, i, m).map(Op::ActiveMask)
            })
            .takes(sets::ACTIVEMASK),
        ],
    ),
    e(
        "add",
        ALWAYS,
        &[
            float_when("8.7.3.3", "add").takes(sets::F_ADD),
            fw(
                Extended,
                isa41("8.7.2.1", EXT, "add.cc"),
                carry_in_or_out,
                |cx, i, m| extended::carry(cx, i, m).map(Op::Carry),
            )
            .lowered_by(&["extended::carry"])
            .takes(sets::ADD_CC),
            simd("add").takes(sets::SIMD_ADD),
            f(Arith, isa41("8.7.1.1", INT, "add"), |cx, i, m| {
                arith::add(cx, i, m).map(Op::Add)
            })
            .takes(sets::INT_ADD),
        ],
    ),
    e(
        "addc",
        since((1, 2), 0),
        &[f(Extended, isa41("8.7.2.2", EXT, "addc"), |cx, i, m| {
            extended::carry(cx, i, m).map(Op::Carry)
        })
        .lowered_by(&["extended::carry"])
        .takes(sets::ADD_CC)],
    ),
    e(
        "and",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.1", LOGIC, "and"), |cx, i, m| {
            logic::bitwise(cx, i, m, 3).map(Op::And)
        })
        .lowered_by(&["logic::bitwise"])
        .takes(sets::BITWISE)],
    ),
    e(
        "atom",
        since((1, 1), 11),
        &[f(Atom, later("9.7.13", PARALLEL, "atom"), |cx, i, m| {
            atom::atom(cx, i, m, false).map(Op::Atom)
        })
        .takes(sets::ATOM)],
    ),
    e(
        "bar",
        ALWAYS,
        &[
            fw(
                Warp,
                later("9.7.13", PARALLEL, "bar.warp.sync"),
                warp_barrier,
                |cx, i, m| {
                    m.flag("warp");
                    m.flag("sync");
                    warp::warp_sync(cx, i).map(Op::WarpSync)
                },
            )
            .lowered_by(&["warp::warp_sync"])
            .takes(sets::BAR_WARP),
            f(
                Sync,
                later("9.7.13", PARALLEL, "bar, barrier"),
                |cx, i, m| sync::bar(cx, i, m).map(Op::Bar),
            )
            .takes(sets::BAR),
        ],
    ),
    e(
        "barrier",
        since((6, 0), 30),
        &[f(
            Sync,
            later("9.7.13", PARALLEL, "bar, barrier"),
            |cx, i, m| sync::bar(cx, i, m).map(Op::Bar),
        )
        .lowered_by(&["sync::bar"])
        .takes(sets::BAR)],
    ),
    e(
        "bfe",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.18", INT, "bfe"), |cx, i, m| {
            int::bfe(cx, i, m).map(Op::Bfe)
        })
        .takes(sets::BFE)],
    ),
    e(
        "bfi",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.19", INT, "bfi"), |cx, i, m| {
            int::bfi(cx, i, m).map(Op::Bfi)
        })
        .takes(sets::BITS)],
    ),
    e(
        "bfind",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.16", INT, "bfind"), |cx, i, m| {
            int::bfind(cx, i, m).map(Op::Bfind)
        })
        .takes(sets::BFIND)],
    ),
    e(
        "bmsk",
        since((7, 6), 70),
        &[f(Int, later("9.7.1", INT, "bmsk"), |cx, i, m| {
            int::bmsk(cx, i, m).map(Op::Bmsk)
        })
        .takes(sets::BMSK)],
    ),
    e(
        "bra",
        ALWAYS,
        &[f(Control, later("9.7.12", CONTROL, "bra"), |cx, i, m| {
            control::bra(cx, i, m).map(Op::Bra)
        })
        .takes(sets::UNI_ONLY)],
    ),
    e(
        "brev",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.17", INT, "brev"), |cx, i, m| {
            int::brev(cx, i, m).map(Op::Brev)
        })
        .takes(sets::BITS)],
    ),
    e(
        "brkpt",
        since((1, 0), 11),
        &[f(Control, later("9.7.19", MISC, "brkpt"), |cx, i, m| {
            control::no_operands(cx, i, m, &[]).map(|_| Op::Trap { breakpoint: true })
        })
        .lowered_by(&["control::trap"])
        .takes(sets::NOTHING)],
    ),
    e(
        "brx",
        ALWAYS,
        &[f(Control, later("9.7.12", CONTROL, "brx.idx"), |cx, i, m| {
            control::brx_idx(cx, i, m).map(Op::BrxIdx)
        })
        .lowered_by(&["control::brx_idx"])
        .takes(sets::BRX)],
    ),
    // Whether the callee is a function or a pointer needs the symbol table, not the syntax:
    // one form decides inside.
    e(
        "call",
        ALWAYS,
        &[f(Control, later("9.7.12", CONTROL, "call"), |cx, i, m| {
            if control::is_direct_call(cx, i) {
                control::call(cx, i, m).map(Op::Call)
            } else {
                control::call_indirect(cx, i, m).map(|c| Op::CallIndirect(Box::new(c)))
            }
        })
        .lowered_by(&["call::call", "call::call_indirect"])
        .takes(sets::UNI_ONLY)],
    ),
    e(
        "clz",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.15", INT, "clz"), |cx, i, m| {
            int::count_bits(cx, i, m).map(Op::Clz)
        })
        .takes(sets::BITS)],
    ),
    e(
        "cnot",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.5", LOGIC, "cnot"), |cx, i, m| {
            logic::cnot(cx, i, m).map(Op::Cnot)
        })
        .takes(sets::CNOT)],
    ),
    e(
        "copysign",
        since((2, 0), 20),
        &[float_41("8.7.3.2", "copysign").takes(sets::F_COPYSIGN)],
    ),
    e(
        "cos",
        ALWAYS,
        &[float_41("8.7.3.19", "cos").takes(sets::F_SIN_COS_LG2)],
    ),
    e(
        "cp",
        ALWAYS,
        &[f(
            AsyncCopy,
            later("9.7.9.25", DATA, "cp.async"),
            |cx, i, m| async_copy::cp(cx, i, m).map(Op::AsyncCopy),
        )
        .lowered_by(&["async_copy::async_copy"])
        .takes(sets::CP)],
    ),
    e(
        "createpolicy",
        since((7, 4), 80),
        &[f(Misc, later("9.7.9", DATA, "createpolicy"), |cx, i, m| {
            misc::createpolicy(cx, i, m).map(Op::CreatePolicy)
        })
        .lowered_by(&["misc::create_policy"])
        .takes(sets::CREATEPOLICY)],
    ),
    e(
        "cvt",
        ALWAYS,
        &[
            fw(
                Convert,
                later("9.7.9", DATA, "cvt.pack"),
                packs,
                |cx, i, m| convert::cvt_pack(cx, i, m).map(Op::CvtPack),
            )
            .lowered_by(&["convert::cvt_pack"])
            .takes(sets::CVT_PACK),
            fw(
                Narrow,
                later("9.7.9.21", DATA, "cvt"),
                narrow::is_narrow,
                |cx, i, m| narrow::cvt_narrow(cx, i, m).map(|c| Op::CvtNarrow(Box::new(c))),
            )
            .lowered_by(&["convert::cvt_narrow"])
            .takes(sets::CVT_NARROW),
            f(Convert, isa41("8.7.6.13", DATA, "cvt"), |cx, i, m| {
                convert::cvt(cx, i, m).map(Op::Cvt)
            })
            .takes(sets::CVT),
        ],
    ),
    e(
        "cvta",
        since((2, 0), 20),
        &[f(Data, isa41("8.7.6.12", DATA, "cvta"), |cx, i, m| {
            data::cvta(cx, i, m).map(Op::Cvta)
        })
        .takes(sets::CVTA)],
    ),
    e(
        "div",
        ALWAYS,
        &[
            float_when("8.7.3.8", "div").takes(sets::F_DIV),
            f(Arith, isa41("8.7.1.8", INT, "div"), |cx, i, m| {
                arith::div(cx, i, m).map(Op::Div)
            })
            .takes(sets::INT_PLAIN),
        ],
    ),
    e(
        "dp2a",
        since((5, 0), 61),
        &[f(Int, later("9.7.1", INT, "dp2a"), |cx, i, m| {
            int::dot(cx, i, m, true).map(Op::Dp2a)
        })
        .lowered_by(&["int::dot"])
        .takes(sets::DOT)],
    ),
    e(
        "dp4a",
        since((5, 0), 61),
        &[f(Int, later("9.7.1", INT, "dp4a"), |cx, i, m| {
            int::dot(cx, i, m, false).map(Op::Dp4a)
        })
        .lowered_by(&["int::dot"])
        .takes(sets::DP4A)],
    ),
    e(
        "elect",
        since((8, 0), 90),
        &[
            f(Warp, later("9.7.13", PARALLEL, "elect.sync"), |cx, i, m| {
                warp::elect(cx, i, m).map(Op::Elect)
            })
            .takes(sets::ELECT),
        ],
    ),
    e(
        "ex2",
        ALWAYS,
        &[float_41("8.7.3.21", "ex2").takes(sets::F_EX2)],
    ),
    e(
        "exit",
        ALWAYS,
        &[f(Control, later("9.7.12", CONTROL, "exit"), |cx, i, m| {
            control::no_operands(cx, i, m, &[]).map(|_| Op::Exit)
        })
        .takes(sets::NOTHING)],
    ),
    e(
        "fence",
        since((6, 0), 70),
        &[f(
            Fence,
            later("9.7.13", PARALLEL, "membar, fence"),
            fence::fence,
        )
        .lowered_by(&["sync::membar", "misc::no_effect"])
        .takes(sets::FENCE)],
    ),
    e(
        "fma",
        ALWAYS,
        &[float_41("8.7.3.6", "fma").takes(sets::F_FMA)],
    ),
    e(
        "getctarank",
        since((7, 8), 90),
        &[f(Misc, later("9.7.9", DATA, "getctarank"), |cx, i, m| {
            misc::cluster_query(cx, i, m, false).map(Op::ClusterQuery)
        })
        .lowered_by(&["misc::cluster_query"])
        .takes(sets::CLUSTER_QUERY)],
    ),
    e(
        "griddepcontrol",
        since((7, 8), 90),
        &[f(
            Misc,
            later("9.7.13", PARALLEL, "griddepcontrol"),
            |cx, i, m| misc::griddepcontrol(cx, i, m).map(Op::NoEffect),
        )
        .lowered_by(&["misc::no_effect"])
        .takes(sets::GRIDDEPCONTROL)],
    ),
    e(
        "isspacep",
        since((2, 0), 20),
        &[f(Data, isa41("8.7.6.11", DATA, "isspacep"), |cx, i, m| {
            data::isspacep(cx, i, m).map(Op::Isspacep)
        })
        .takes(sets::ISSPACEP)],
    ),
    e(
        "ld",
        ALWAYS,
        &[f(Ldst, isa41("8.7.6.6", DATA, "ld"), |cx, i, m| {
            ldst::ld(cx, i, m).map(Op::Ld)
        })
        .takes(sets::LD)],
    ),
    e(
        "ldmatrix",
        since((6, 5), 75),
        &[f(
            Matrix,
            later("9.7.14.5.15", WARP_MMA, "ldmatrix"),
            |cx, i, m| matrix::ldmatrix(cx, i, m).map(|l| Op::Ldmatrix(Box::new(l))),
        )
        .takes(sets::LDMATRIX)],
    ),
    e(
        "ldu",
        since((2, 0), 0),
        &[f(Ldst, isa41("8.7.6.8", DATA, "ldu"), |cx, i, m| {
            ldst::ldu(cx, i, m).map(Op::Ld)
        })
        .lowered_by(&["data::ld"])
        .takes(sets::LDU)],
    ),
    e(
        "lg2",
        ALWAYS,
        &[float_41("8.7.3.20", "lg2").takes(sets::F_SIN_COS_LG2)],
    ),
    e(
        "lop3",
        since((4, 3), 50),
        &[f(Logic, later("9.7.8", LOGIC, "lop3"), |cx, i, m| {
            logic::lop3(cx, i, m).map(|l| Op::Lop3(Box::new(l)))
        })
        .takes(sets::LOP3)],
    ),
    e(
        "mad",
        ALWAYS,
        &[
            float_when("8.7.3.7", "mad").takes(sets::F_MAD),
            fw(
                Extended,
                isa41("8.7.2.5", EXT, "mad.cc"),
                carry_in_or_out,
                |cx, i, m| extended::carry(cx, i, m).map(Op::Carry),
            )
            .lowered_by(&["extended::carry"])
            .takes(sets::MAD_CC),
            f(Arith, isa41("8.7.1.4", INT, "mad"), |cx, i, m| {
                arith::mad(cx, i, m).map(Op::Mad)
            })
            .takes(sets::INT_MAD),
        ],
    ),
    e(
        "mad24",
        ALWAYS,
        &[f(Int, isa41("8.7.1.6", INT, "mad24"), |cx, i, m| {
            int::mul24(cx, i, m, true).map(Op::Mad24)
        })
        .lowered_by(&["int::mul24"])
        .takes(sets::MAD24)],
    ),
    e(
        "madc",
        since((3, 0), 20),
        &[f(Extended, isa41("8.7.2.6", EXT, "madc"), |cx, i, m| {
            extended::carry(cx, i, m).map(Op::Carry)
        })
        .lowered_by(&["extended::carry"])
        .takes(sets::MAD_CC)],
    ),
    e(
        "mapa",
        since((7, 8), 90),
        &[f(Misc, later("9.7.9", DATA, "mapa"), |cx, i, m| {
            misc::cluster_query(cx, i, m, true).map(Op::ClusterQuery)
        })
        .lowered_by(&["misc::cluster_query"])
        .takes(sets::CLUSTER_QUERY)],
    ),
    e(
        "match",
        since((6, 0), 70),
        &[
            f(Warp, later("9.7.13", PARALLEL, "match.sync"), |cx, i, m| {
                warp::match_sync(cx, i, m).map(Op::Match)
            })
            .lowered_by(&["warp::match_sync"])
            .takes(sets::MATCH),
        ],
    ),
    e(
        "max",
        ALWAYS,
        &[
            float_when("8.7.3.12", "max").takes(sets::F_MIN_MAX),
            simd("max").takes(sets::SIMD_MIN_MAX),
            f(Arith, isa41("8.7.1.13", INT, "max"), |cx, i, m| {
                arith::min_max(cx, i, m).map(Op::Max)
            })
            .lowered_by(&["arith::min_max"])
            .takes(sets::INT_PLAIN),
        ],
    ),
    e(
        "mbarrier",
        since((7, 0), 80),
        &[f(
            Mbarrier,
            later("9.7.13.15", PARALLEL, "mbarrier"),
            |cx, i, m| {
                mbarrier::mbarrier(cx, i, m).map(|b| match b {
                    MbarrierInst::Object(o) => Op::Mbarrier(o),
                    MbarrierInst::PendingCount(p) => Op::MbarrierPending(p),
                })
            },
        )
        .lowered_by(&["mbarrier::mbarrier", "mbarrier::pending_count"])
        .takes(sets::MBARRIER)],
    ),
    e(
        "membar",
        ALWAYS,
        &[f(
            Fence,
            later("9.7.13", PARALLEL, "membar, fence"),
            fence::fence,
        )
        .takes(sets::MEMBAR)],
    ),
    e(
        "min",
        ALWAYS,
        &[
            float_when("8.7.3.11", "min").takes(sets::F_MIN_MAX),
            simd("min").takes(sets::SIMD_MIN_MAX),
            f(Arith, isa41("8.7.1.12", INT, "min"), |cx, i, m| {
                arith::min_max(cx, i, m).map(Op::Min)
            })
            .lowered_by(&["arith::min_max"])
            .takes(sets::INT_PLAIN),
        ],
    ),
    e(
        "mma",
        since((6, 4), 70),
        &[
            f(Matrix, later("9.7.14.5.14", WARP_MMA, "mma"), |cx, i, m| {
                matrix::mma(cx, i, m).map(|x| Op::Mma(Box::new(x)))
            })
            .takes(sets::MMA),
        ],
    ),
    e(
        "mov",
        ALWAYS,
        &[f(Data, isa41("8.7.6.2", DATA, "mov"), |cx, i, m| {
            data::mov(cx, i, m).map(Op::Mov)
        })
        .takes(sets::MOV)],
    ),
    e(
        "movmatrix",
        since((7, 8), 75),
        &[f(
            Matrix,
            later("9.7.14.5.17", WARP_MMA, "movmatrix"),
            |cx, i, m| matrix::movmatrix(cx, i, m).map(|v| Op::Movmatrix(Box::new(v))),
        )
        .takes(sets::MOVMATRIX)],
    ),
    e(
        "mul",
        ALWAYS,
        &[
            float_when("8.7.3.5", "mul").takes(sets::F_ADD),
            f(Arith, isa41("8.7.1.3", INT, "mul"), |cx, i, m| {
                arith::mul(cx, i, m).map(Op::Mul)
            })
            .takes(sets::INT_MUL),
        ],
    ),
    e(
        "mul24",
        ALWAYS,
        &[f(Int, isa41("8.7.1.5", INT, "mul24"), |cx, i, m| {
            int::mul24(cx, i, m, false).map(Op::Mul24)
        })
        .takes(sets::MUL24)],
    ),
    e(
        "nanosleep",
        since((6, 3), 70),
        &[f(Misc, later("9.7.19", MISC, "nanosleep"), |cx, i, m| {
            misc::nanosleep(cx, i, m).map(Op::Nanosleep)
        })
        .takes(sets::NANOSLEEP)],
    ),
    e(
        "neg",
        ALWAYS,
        &[
            float_when("8.7.3.10", "neg").takes(sets::F_ABS_NEG),
            f(Arith, isa41("8.7.1.11", INT, "neg"), |cx, i, m| {
                arith::abs_neg(cx, i, m, true).map(Op::Neg)
            })
            .takes(sets::INT_SIGNED),
        ],
    ),
    e(
        "not",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.4", LOGIC, "not"), |cx, i, m| {
            logic::bitwise(cx, i, m, 2).map(Op::Not)
        })
        .takes(sets::BITWISE)],
    ),
    e(
        "or",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.2", LOGIC, "or"), |cx, i, m| {
            logic::bitwise(cx, i, m, 3).map(Op::Or)
        })
        .lowered_by(&["logic::bitwise"])
        .takes(sets::BITWISE)],
    ),
    e(
        "popc",
        since((2, 0), 20),
        &[f(Int, isa41("8.7.1.14", INT, "popc"), |cx, i, m| {
            int::count_bits(cx, i, m).map(Op::Popc)
        })
        .takes(sets::BITS)],
    ),
    e(
        "prefetch",
        since((2, 0), 20),
        &[f(
            Data,
            isa41("8.7.6.10", DATA, "prefetch, prefetchu"),
            |cx, i, m| data::prefetch(cx, i, m, false).map(|_| Op::Prefetch),
        )
        .lowered_by(&[NO_IR])
        .takes(sets::PREFETCH)],
    ),
    e(
        "prefetchu",
        since((2, 0), 20),
        &[f(
            Data,
            isa41("8.7.6.10", DATA, "prefetch, prefetchu"),
            |cx, i, m| data::prefetch(cx, i, m, true).map(|_| Op::Prefetch),
        )
        .lowered_by(&[NO_IR])
        .takes(sets::PREFETCHU)],
    ),
    e(
        "prmt",
        since((2, 0), 20),
        &[f(Permute, isa41("8.7.6.5", DATA, "prmt"), |cx, i, m| {
            permute::prmt(cx, i, m).map(Op::Prmt)
        })
        .takes(sets::PRMT)],
    ),
    e(
        "rcp",
        ALWAYS,
        &[float_41("8.7.3.13", "rcp").takes(sets::F_RCP_SQRT)],
    ),
    e(
        "red",
        since((1, 1), 11),
        &[f(Atom, later("9.7.13", PARALLEL, "red"), |cx, i, m| {
            atom::atom(cx, i, m, true).map(Op::Atom)
        })
        .lowered_by(&["atomic::atom"])
        .takes(sets::RED)],
    ),
    e(
        "redux",
        since((7, 0), 80),
        &[
            f(Warp, later("9.7.13", PARALLEL, "redux.sync"), |cx, i, m| {
                warp::redux(cx, i, m).map(Op::Redux)
            })
            .takes(sets::REDUX),
        ],
    ),
    e(
        "rem",
        ALWAYS,
        &[f(Arith, isa41("8.7.1.9", INT, "rem"), |cx, i, m| {
            arith::rem(cx, i, m).map(Op::Rem)
        })
        .takes(sets::INT_PLAIN)],
    ),
    e(
        "ret",
        ALWAYS,
        &[f(Control, later("9.7.12", CONTROL, "ret"), |cx, i, m| {
            control::no_operands(cx, i, m, &["uni"]).map(|_| Op::Ret)
        })
        .takes(sets::UNI_ONLY)],
    ),
    e(
        "rsqrt",
        ALWAYS,
        &[float_41("8.7.3.16", "rsqrt").takes(sets::F_RSQRT)],
    ),
    e(
        "sad",
        ALWAYS,
        &[f(Int, isa41("8.7.1.7", INT, "sad"), |cx, i, m| {
            int::sad(cx, i, m).map(Op::Sad)
        })
        .takes(sets::INT_PLAIN)],
    ),
    e(
        "selp",
        ALWAYS,
        &[f(Cmp, isa41("8.7.4.3", CMP, "selp"), |cx, i, m| {
            cmp::selp(cx, i, m).map(Op::Selp)
        })
        .takes(sets::SELP)],
    ),
    e(
        "set",
        ALWAYS,
        &[f(Cmp, isa41("8.7.4.1", CMP, "set"), |cx, i, m| {
            cmp::set(cx, i, m).map(Op::Set)
        })
        .takes(sets::SET)],
    ),
    e(
        "setmaxnreg",
        since((8, 0), 90),
        &[f(Misc, later("9.7.19", MISC, "setmaxnreg"), |cx, i, m| {
            misc::setmaxnreg(cx, i, m).map(Op::NoEffect)
        })
        .lowered_by(&["misc::no_effect"])
        .takes(sets::SETMAXNREG)],
    ),
    e(
        "setp",
        ALWAYS,
        &[f(Cmp, isa41("8.7.4.2", CMP, "setp"), |cx, i, m| {
            cmp::setp(cx, i, m).map(Op::Setp)
        })
        .takes(sets::SETP)],
    ),
    e(
        "shf",
        since((3, 1), 32),
        &[f(Logic, isa41("8.7.5.6", LOGIC, "shf"), |cx, i, m| {
            logic::shf(cx, i, m).map(Op::Shf)
        })
        .takes(sets::SHF)],
    ),
    e(
        "shfl",
        ALWAYS,
        &[f(Warp, isa41("8.7.6.4", DATA, "shfl"), |cx, i, m| {
            warp::shfl(cx, i, m).map(|s| Op::Shfl(Box::new(s)))
        })
        .takes(sets::SHFL)],
    ),
    e(
        "shl",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.7", LOGIC, "shl"), |cx, i, m| {
            logic::shift(cx, i, m, false).map(Op::Shl)
        })
        .takes(sets::SHL)],
    ),
    e(
        "shr",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.8", LOGIC, "shr"), |cx, i, m| {
            logic::shift(cx, i, m, true).map(Op::Shr)
        })
        .takes(sets::SHR)],
    ),
    e(
        "sin",
        ALWAYS,
        &[float_41("8.7.3.18", "sin").takes(sets::F_SIN_COS_LG2)],
    ),
    e(
        "slct",
        ALWAYS,
        &[f(Cmp, isa41("8.7.4.4", CMP, "slct"), |cx, i, m| {
            cmp::slct(cx, i, m).map(Op::Slct)
        })
        .takes(sets::SLCT)],
    ),
    e(
        "sqrt",
        ALWAYS,
        &[float_41("8.7.3.15", "sqrt").takes(sets::F_RCP_SQRT)],
    ),
    e(
        "st",
        ALWAYS,
        &[f(Ldst, isa41("8.7.6.9", DATA, "st"), |cx, i, m| {
            ldst::st(cx, i, m).map(Op::St)
        })
        .takes(sets::ST)],
    ),
    e(
        "stmatrix",
        since((7, 8), 90),
        &[f(
            Matrix,
            later("9.7.14.5.16", WARP_MMA, "stmatrix"),
            |cx, i, m| matrix::stmatrix(cx, i, m).map(|s| Op::Stmatrix(Box::new(s))),
        )
        .takes(sets::LDMATRIX)],
    ),
    e(
        "sub",
        ALWAYS,
        &[
            float_when("8.7.3.4", "sub").takes(sets::F_ADD),
            fw(
                Extended,
                isa41("8.7.2.3", EXT, "sub.cc"),
                carry_in_or_out,
                |cx, i, m| extended::carry(cx, i, m).map(Op::Carry),
            )
            .lowered_by(&["extended::carry"])
            .takes(sets::ADD_CC),
            simd("sub").takes(sets::NOTHING),
            f(Arith, isa41("8.7.1.2", INT, "sub"), |cx, i, m| {
                arith::add(cx, i, m).map(Op::Sub)
            })
            .takes(sets::INT_ADD),
        ],
    ),
    e(
        "subc",
        since((1, 3), 0),
        &[f(Extended, isa41("8.7.2.4", EXT, "subc"), |cx, i, m| {
            extended::carry(cx, i, m).map(Op::Carry)
        })
        .lowered_by(&["extended::carry"])
        .takes(sets::ADD_CC)],
    ),
    e(
        "szext",
        since((7, 6), 70),
        &[f(Int, later("9.7.1", INT, "szext"), |cx, i, m| {
            int::szext(cx, i, m).map(Op::Szext)
        })
        .takes(sets::SZEXT)],
    ),
    e(
        "tanh",
        since((7, 0), 75),
        &[f(Float, later("9.7.3", FLOAT, "tanh"), float::decode)
            .lowered_by(&["float::lower"])
            .takes(sets::F_TANH)],
    ),
    e(
        "tensormap",
        since((8, 3), 90),
        &[f(
            AsyncCopy,
            later("9.7.9", DATA, "tensormap.replace, tensormap.cp_fenceproxy"),
            |cx, i, m| async_copy::tensormap(cx, i, m).map(Op::AsyncCopy),
        )
        .lowered_by(&["async_copy::async_copy"])
        .takes(sets::TENSORMAP)],
    ),
    e(
        "testp",
        since((2, 0), 20),
        &[float_41("8.7.3.1", "testp").takes(sets::F_TESTP)],
    ),
    e(
        "tex",
        ALWAYS,
        &[f(Texture, isa41("8.7.7.3", TEX, "tex"), |cx, i, m| {
            texture::tex(cx, i, m).map(|t| Op::Tex(Box::new(t)))
        })
        .takes(sets::TEX)],
    ),
    e(
        "tld4",
        since((2, 2), 20),
        &[f(Texture, isa41("8.7.7.4", TEX, "tld4"), |cx, i, m| {
            texture::tld4(cx, i, m).map(|t| Op::Tld4(Box::new(t)))
        })
        .takes(sets::TLD4)],
    ),
    e(
        "trap",
        ALWAYS,
        &[f(Control, later("9.7.19", MISC, "trap"), |cx, i, m| {
            control::no_operands(cx, i, m, &[]).map(|_| Op::Trap { breakpoint: false })
        })
        .takes(sets::NOTHING)],
    ),
    e(
        "txq",
        ALWAYS,
        &[f(Texture, isa41("8.7.7.5", TEX, "txq"), |cx, i, m| {
            texture::txq(cx, i, m).map(Op::Txq)
        })
        .takes(sets::TXQ)],
    ),
    e("vabsdiff", VIDEO_SCALAR, VIDEO_1_1),
    e("vabsdiff2", VIDEO_SIMD, VIDEO_2_1),
    e("vabsdiff4", VIDEO_SIMD, VIDEO_2_3),
    e("vadd", VIDEO_SCALAR, VIDEO_1_1),
    e("vadd2", VIDEO_SIMD, VIDEO_2_1),
    e("vadd4", VIDEO_SIMD, VIDEO_2_3),
    e("vavrg2", VIDEO_SIMD, VIDEO_2_1),
    e("vavrg4", VIDEO_SIMD, VIDEO_2_3),
    e(
        "vmad",
        VIDEO_SCALAR,
        &[f(
            Video,
            later("9.7.18.1.3", SCALAR_VIDEO, "vmad"),
            |cx, i, m| video::mad(cx, i, m).map(|v| Op::VideoMad(Box::new(v))),
        )
        .lowered_by(&["video::mad"])
        .takes(sets::VIDEO_MAD)],
    ),
    e("vmax", VIDEO_SCALAR, VIDEO_1_1),
    e("vmax2", VIDEO_SIMD, VIDEO_2_1),
    e("vmax4", VIDEO_SIMD, VIDEO_2_3),
    e("vmin", VIDEO_SCALAR, VIDEO_1_1),
    e("vmin2", VIDEO_SIMD, VIDEO_2_1),
    e("vmin4", VIDEO_SIMD, VIDEO_2_3),
    e(
        "vote",
        ALWAYS,
        &[f(Warp, later("9.7.13", PARALLEL, "vote"), |cx, i, m| {
            warp::vote(cx, i, m).map(Op::Vote)
        })
        .takes(sets::VOTE)],
    ),
    e(
        "vset",
        VIDEO_SCALAR,
        &[video_form("9.7.18.1.4", SCALAR_VIDEO, "vset").takes(sets::VIDEO_SET)],
    ),
    e(
        "vset2",
        VIDEO_SIMD,
        &[video_form("9.7.18.2.2", SIMD_VIDEO, "vset2").takes(sets::VIDEO_SIMD_SET)],
    ),
    e(
        "vset4",
        VIDEO_SIMD,
        &[video_form("9.7.18.2.4", SIMD_VIDEO, "vset4").takes(sets::VIDEO_SIMD_SET)],
    ),
    e("vshl", VIDEO_SCALAR, VIDEO_1_2),
    e("vshr", VIDEO_SCALAR, VIDEO_1_2),
    e("vsub", VIDEO_SCALAR, VIDEO_1_1),
    e("vsub2", VIDEO_SIMD, VIDEO_2_1),
    e("vsub4", VIDEO_SIMD, VIDEO_2_3),
    e(
        "wgmma",
        since((8, 0), 90),
        &[f(
            Wgmma,
            later("9.7.15", WARPGROUP_MMA, "wgmma"),
            |cx, i, m| wgmma::wgmma(cx, i, m).map(Op::Wgmma),
        )
        .takes(sets::WGMMA)],
    ),
    e(
        "wmma",
        since((6, 0), 70),
        &[f(Matrix, later("9.7.14.4", WARP_MMA, "wmma"), |cx, i, m| {
            matrix::wmma(cx, i, m).map(|w| Op::Wmma(Box::new(w)))
        })
        .takes(sets::WMMA)],
    ),
    e(
        "xor",
        ALWAYS,
        &[f(Logic, isa41("8.7.5.3", LOGIC, "xor"), |cx, i, m| {
            logic::bitwise(cx, i, m, 3).map(Op::Xor)
        })
        .lowered_by(&["logic::bitwise"])
        .takes(sets::BITWISE)],
    ),
];

/// The scalar video instructions: "vadd, vsub, vabsdiff, vmin, vmax require sm_20 or higher".
const VIDEO_SCALAR: Option<Since> = since((2, 0), 20);
/// The SIMD video instructions: PTX ISA 3.0, sm_30.
const VIDEO_SIMD: Option<Since> = since((3, 0), 30);

const fn video_form(number: &'static str, chapter: &'static str, name: &'static str) -> Form {
    f(Video, later(number, chapter, name), video_op).lowered_by(&["video::scalar", "video::simd"])
}

const VIDEO_1_1: &[Form] = &[video_form(
    "9.7.18.1.1",
    SCALAR_VIDEO,
    "vadd, vsub, vabsdiff, vmin, vmax",
)
.takes(sets::VIDEO_SCALAR)];
const VIDEO_1_2: &[Form] =
    &[video_form("9.7.18.1.2", SCALAR_VIDEO, "vshl, vshr").takes(sets::VIDEO_SHIFT)];
const VIDEO_2_1: &[Form] = &[video_form(
    "9.7.18.2.1",
    SIMD_VIDEO,
    "vadd2, vsub2, vavrg2, vabsdiff2, vmin2, vmax2",
)
.takes(sets::VIDEO_SIMD)];
const VIDEO_2_3: &[Form] = &[video_form(
    "9.7.18.2.3",
    SIMD_VIDEO,
    "vadd4, vsub4, vavrg4, vabsdiff4, vmin4, vmax4",
)
.takes(sets::VIDEO_SIMD)];

/// Instructions of the ISA that ptxvk knows by name and does not translate: the gating table
/// has rows for them, and the decoder refuses them as unsupported.
pub const REFUSED: &[Entry] = &[
    e("alloca", since((7, 3), 52), &[]),
    e("pmevent", since((1, 4), 0), &[]),
    e("stackrestore", since((7, 3), 52), &[]),
    e("stacksave", since((7, 3), 52), &[]),
];
