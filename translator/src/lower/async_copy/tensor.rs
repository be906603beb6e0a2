//! `cp.async.bulk.tensor` in the `.tile` mode: the box a tensor map (`crate::tensor_map`)
//! describes, copied between the tensor in global memory and a dense box in shared memory.
//!
//! Like the other bulk copies it is done when issued (decision records 0106, 0107). The issuing
//! thread walks the box a 32-bit shared word at a time; each word lies inside one row of
//! dimension 0 (rows are multiples of 16 bytes), so dimensions 1-4 decide once per word whether
//! the row is inside the tensor, and each of the word's four bytes checks its own dimension-0
//! coordinate. Bytes are read one at a time because a box may start at any element, so its
//! words need not be aligned in global memory. Loads fill bytes outside the tensor with zero
//! or with the bytes of the canonical NaN of the element's size, and read the tensor's first
//! byte instead of the outside address; stores skip them. The shared offset is swizzled as the
//! map says ([`crate::tensor_map::swizzled`]).
//!
//! `.im2col` loads walk the same dense box, `pixelsPerColumn` rows of `channelsPerPixel`
//! elements: each row is one pixel, and the walk carries the pixel's position (dimensions 1 to
//! N - 1) from row to row as the ISA's im2col mode traverses the bounding box ([`im2col`]).
//! The `.im2col::w` modes are that walk with a box one pixel high and deep, plus halo rows;
//! `.im2col_no_offs` stores write the rows back along the same walk, without offsets,
//! skipping what lies outside the tensor as `.tile` stores do, and `.im2col_no_offs`
//! reductions combine them into the tensor along it as `.tile` reductions do.
//!
//! `.tile::gather4` and `.tile::scatter4` are the `.tile` walk of a box four rows high whose
//! rows each take their own coordinate in dimension 1.
//!
//! `cp.reduce.async.bulk.tensor` walks the box an element at a time instead (elements are
//! aligned to their size in both memories) and combines each element inside the tensor with
//! the global one by the atomic of `red` ([`crate::lower::atomic::reduce_at`]) in the map's
//! element type, which is only known when the copy runs: the types the ISA lists for the
//! operator each get a branch, and other types leave the tensor unchanged.

use crate::check::inst::{AtomOp, CpBulkTensor, TensorDir, TensorWalk};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::tensor_map as tm;
use crate::types::{ScalarType, StateSpace};
use access::{Access, Box5, Head, field, over_box, read_head, reduce_element, spill, word_of_row};

mod access;
mod im2col;

pub fn tensor_copy(cx: &mut Cx<'_>, t: &CpBulkTensor) {
    if !(cx.profile.storage8 && cx.profile.int8) {
        cx.missing_feature("8-bit storage access for `cp.async.bulk.tensor`");
        return;
    }
    // The map is in `.param`, `.const` or `.global` memory (ISA), all device addresses here.
    let map = match cx.resolve(StateSpace::Generic, &t.map) {
        Some(Where::Global(a) | Where::Generic(a)) => a,
        Some(_) => {
            cx.unsupported("a tensor map outside the parameter, const and global spaces");
            return;
        }
        None => return,
    };
    let shared = match &t.dir {
        TensorDir::Load { dst, .. } => cx.resolve(StateSpace::Shared, dst),
        TensorDir::Store { src } | TensorDir::Reduce { src, .. } => {
            cx.resolve(StateSpace::Shared, src)
        }
    };
    let shared = match shared {
        Some(Where::Shared(o)) => o,
        // A generic address outside the shared window is undefined behaviour (ISA).
        Some(Where::Generic(a)) => cx.b.conv(ConvOp::Trunc, a, Ty::I32),
        Some(_) => {
            cx.unsupported("a `cp.async.bulk.tensor` box outside shared memory");
            return;
        }
        None => return,
    };
    let shared = spill(cx, shared, Ty::I32, "tensor.shared");
    let mask = match &t.dir {
        TensorDir::Load { multicast, .. } => multicast.as_ref(),
        _ => None,
    };
    super::multicast::multicast(cx, mask, |cx| copy_box(cx, t, map, shared));
}

/// The copy itself, once the map and the shared box are known.
fn copy_box(cx: &mut Cx<'_>, t: &CpBulkTensor, map: ValueId, shared: VarId) {
    let access = match t.dir {
        TensorDir::Load { .. } => Access::Load,
        TensorDir::Store { .. } => Access::Store,
        TensorDir::Reduce { op, .. } => Access::Reduce(op),
    };
    let total = match &t.walk {
        TensorWalk::Im2col(info) => im2col::im2col(cx, map, shared, &t.coords, info, access),
        rows => {
            let b = read_map(cx, map, &t.coords, matches!(rows, TensorWalk::FourRows));
            match access {
                Access::Reduce(op) => reduce_walk(cx, &b, shared, op),
                Access::Load => walk(cx, &b, shared, true),
                Access::Store => walk(cx, &b, shared, false),
            }
            b.total
        }
    };
    if let TensorDir::Load { mbar, .. } = &t.dir
        && let Some(idx) = crate::lower::mbarrier::object_word(cx, mbar)
    {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(total));
        crate::lower::mbarrier::complete_tx(cx, idx, n);
    }
}

/// The box at `coords`; with `four_rows` (`.tile::gather4`, `.tile::scatter4`: `coords` are
/// `{col, row0, row1, row2, row3}`) four one-row boxes of a 2-d map, one after another: the
/// box is four rows high, and each row's coordinate is its own (ISA "Bounding Box" of these
/// modes: "The size of the bounding box in the dimension 1 must be one").
fn read_map(cx: &mut Cx<'_>, map: ValueId, coords: &[crate::check::Src], four_rows: bool) -> Box5 {
    let Head {
        base,
        shift,
        data_type,
        mask,
        atom,
        nan,
    } = read_head(cx, map);
    let one = cx.b.konst(Ty::I32, 1);
    let mut dims = Vec::new();
    let mut total = cx.b.bin(BinOp::Shl, one, shift);
    let mut row_bytes = total;
    let box_coords = if four_rows { &coords[..2] } else { coords };
    for (i, c) in box_coords.iter().enumerate() {
        let i32_ = i as u32;
        let rows = four_rows && i == 1;
        let extent = field(cx, map, tm::DIMS + 8 * i32_, Ty::I64);
        let boxn = match rows {
            true => cx.b.konst(Ty::I32, 4),
            false => field(cx, map, tm::BOX + 4 * i32_, Ty::I32),
        };
        // Dimension 0's element stride is ignored without interleave (CUDA's documentation),
        // whatever a `tensormap.replace` wrote there.
        let es = if i == 0 || rows {
            cx.b.konst(Ty::I32, 1)
        } else {
            // A stride of 0 (a register `tensormap.replace` wrote; a map outside the ISA's
            // range) is read as 1 rather than divided by.
            let es = field(cx, map, tm::ELEMENT_STRIDES + 4 * i32_, Ty::I32);
            let zero = cx.b.konst(Ty::I32, 0);
            let none = cx.b.bin(BinOp::IEq, es, zero);
            cx.b.select(none, one, es)
        };
        // The box holds ceil(boxDim / elementStride) elements of the dimension.
        let up = cx.b.bin(BinOp::IAdd, boxn, es);
        let up = cx.b.bin(BinOp::ISub, up, one);
        let n = cx.b.bin(BinOp::UDiv, up, es);
        let start = cx.read(c, ScalarType::S32);
        let start = cx.b.conv(ConvOp::SExt, start, Ty::I64);
        let stride = if i == 0 {
            cx.b.konst(Ty::I64, 0)
        } else {
            field(cx, map, tm::STRIDES + 8 * (i32_ - 1), Ty::I64)
        };
        total = cx.b.bin(BinOp::IMul, total, n);
        if i == 0 {
            row_bytes = total;
        }
        dims.push((
            spill(cx, extent, Ty::I64, "tensor.extent"),
            spill(cx, n, Ty::I32, "tensor.n"),
            spill(cx, es, Ty::I32, "tensor.es"),
            spill(cx, start, Ty::I64, "tensor.start"),
            spill(cx, stride, Ty::I64, "tensor.stride"),
        ));
    }
    let rows = match four_rows {
        true => coords[1..]
            .iter()
            .map(|c| {
                let r = cx.read(c, ScalarType::S32);
                let r = cx.b.conv(ConvOp::SExt, r, Ty::I64);
                spill(cx, r, Ty::I64, "tensor.row_at")
            })
            .collect(),
        false => Vec::new(),
    };
    Box5 {
        base: spill(cx, base, Ty::I64, "tensor.base"),
        shift: spill(cx, shift, Ty::I32, "tensor.shift"),
        data_type: spill(cx, data_type, Ty::I32, "tensor.type"),
        swizzle_mask: spill(cx, mask, Ty::I32, "tensor.swizzle"),
        swizzle_atom: spill(cx, atom, Ty::I32, "tensor.atom"),
        nan: spill(cx, nan, Ty::Bool, "tensor.nan"),
        dims,
        rows,
        row_bytes: spill(cx, row_bytes, Ty::I32, "tensor.row"),
        total: spill(cx, total, Ty::I32, "tensor.total"),
    }
}

/// The loop over the box's words: `w` is the byte offset of the word in the dense box.
fn walk(cx: &mut Cx<'_>, b: &Box5, shared: VarId, load: bool) {
    over_box(cx, b.total, |cx, w_var| {
        word(cx, b, shared, w_var, load);
        cx.b.konst(Ty::I32, 4)
    });
}

/// Where the row of dense box byte `w` is: whether dimensions 1-4 are inside the tensor, the
/// row's global address, and `w`'s byte within the row.
fn locate(cx: &mut Cx<'_>, b: &Box5, w: ValueId) -> (ValueId, ValueId, ValueId) {
    let row_bytes = cx.b.emit(Ty::I32, Op::LoadVar(b.row_bytes));
    let mut r = cx.b.bin(BinOp::UDiv, w, row_bytes);
    let row_start = cx.b.bin(BinOp::IMul, r, row_bytes);
    let col = cx.b.bin(BinOp::ISub, w, row_start);
    let mut inside = cx.b.konst(Ty::Bool, 1);
    let mut row_off = cx.b.konst(Ty::I64, 0);
    for (d, &(extent, n, es, start, stride)) in b.dims[1..].iter().enumerate() {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(n));
        let k = cx.b.bin(BinOp::UMod, r, n);
        r = cx.b.bin(BinOp::UDiv, r, n);
        let c = if d == 0 && !b.rows.is_empty() {
            // The four-row modes: row k of the box is the k-th row coordinate's.
            let mut c = cx.b.emit(Ty::I64, Op::LoadVar(b.rows[0]));
            for (j, &row) in b.rows.iter().enumerate().skip(1) {
                let jj = cx.b.konst(Ty::I32, j as u64);
                let is = cx.b.bin(BinOp::IEq, k, jj);
                let v = cx.b.emit(Ty::I64, Op::LoadVar(row));
                c = cx.b.select(is, v, c);
            }
            c
        } else {
            let es = cx.b.emit(Ty::I32, Op::LoadVar(es));
            let k = cx.b.bin(BinOp::IMul, k, es);
            let k = cx.b.conv(ConvOp::ZExt, k, Ty::I64);
            let start = cx.b.emit(Ty::I64, Op::LoadVar(start));
            cx.b.bin(BinOp::IAdd, start, k)
        };
        // A negative coordinate is a huge unsigned one: outside as well.
        let extent = cx.b.emit(Ty::I64, Op::LoadVar(extent));
        let ok = cx.b.bin(BinOp::ULt, c, extent);
        inside = cx.b.bin(BinOp::And, inside, ok);
        let stride = cx.b.emit(Ty::I64, Op::LoadVar(stride));
        let off = cx.b.bin(BinOp::IMul, c, stride);
        row_off = cx.b.bin(BinOp::IAdd, row_off, off);
    }
    let base = cx.b.emit(Ty::I64, Op::LoadVar(b.base));
    let row = cx.b.bin(BinOp::IAdd, base, row_off);
    (inside, row, col)
}

/// One word: where its row is, then its four bytes.
fn word(cx: &mut Cx<'_>, b: &Box5, shared: VarId, w_var: VarId, load: bool) {
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let (inside, row, col) = locate(cx, b, w);
    word_of_row(cx, b, shared, w, (inside, row, col), load);
}

/// The loop over the box's elements for a reduction: `w` is the element's dense byte offset.
fn reduce_walk(cx: &mut Cx<'_>, b: &Box5, shared: VarId, op: AtomOp) {
    over_box(cx, b.total, |cx, w_var| {
        let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
        let row = locate(cx, b, w);
        reduce_element(cx, b, shared, w, row, op)
    });
}

/// `tensormap.cp_fenceproxy`: the 128 bytes of a map, a word at a time, from shared to global
/// memory. The fence it names orders nothing more here: copies read maps with plain loads.
pub fn copy_map(cx: &mut Cx<'_>, dst: &crate::check::Address, src: &crate::check::Address) {
    let (Some(d), Some(s)) = (
        cx.resolve(StateSpace::Global, dst),
        cx.resolve(StateSpace::Shared, src),
    ) else {
        return;
    };
    for k in 0..(tm::SIZE as u32 / 4) {
        let from = cx.offset_where(s, 4 * k);
        let v = cx.load(from, Ty::I32, MemOrder::Plain);
        let to = cx.offset_where(d, 4 * k);
        cx.store(to, v, MemOrder::Plain);
    }
}
