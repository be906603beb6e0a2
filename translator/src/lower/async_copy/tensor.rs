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
//! The `.im2col::w` modes are that walk with a box one pixel high and deep, plus halo rows
//! ([`Wide`]); `.im2col_no_offs` stores write the rows back along the same walk, without
//! offsets, skipping what lies outside the tensor as `.tile` stores do.
//!
//! `cp.reduce.async.bulk.tensor` walks the box an element at a time instead (elements are
//! aligned to their size in both memories) and combines each element inside the tensor with
//! the global one by the atomic of `red` ([`crate::lower::atomic::reduce_at`]) in the map's
//! element type, which is only known when the copy runs: the types the ISA lists for the
//! operator each get a branch, and other types leave the tensor unchanged.

use crate::check::inst::{AtomOp, CpBulkTensor, Im2colInfo, ReduceInto, TensorDir, reduce_types};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Terminator, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::tensor_map as tm;
use crate::types::{ScalarType, StateSpace};

/// The map's fields the walk needs, each in a variable (IR values live in one block).
struct Box5 {
    base: VarId,
    /// log2 of the element size.
    shift: VarId,
    /// The map's `CUtensorMapDataType`.
    data_type: VarId,
    swizzle_mask: VarId,
    nan: VarId,
    /// Per dimension: extent (I64), elements the box holds (I32), element stride (I32),
    /// the box's first coordinate (I64), byte stride (I64; dimension 0: unused).
    dims: Vec<(VarId, VarId, VarId, VarId, VarId)>,
    row_bytes: VarId,
    total: VarId,
}

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
    if let Some(info) = &t.im2col {
        let load = matches!(t.dir, TensorDir::Load { .. });
        let total = im2col(cx, map, shared, &t.coords, info, load);
        if let TensorDir::Load { mbar, .. } = &t.dir
            && let Some(idx) = crate::lower::mbarrier::object_word(cx, mbar)
        {
            let n = cx.b.emit(Ty::I32, Op::LoadVar(total));
            crate::lower::mbarrier::complete_tx(cx, idx, n);
        }
        return;
    }
    let b = read_map(cx, map, &t.coords);
    if let TensorDir::Reduce { op, .. } = t.dir {
        reduce_walk(cx, &b, shared, op);
        return;
    }
    let load = matches!(t.dir, TensorDir::Load { .. });
    walk(cx, &b, shared, load);
    if let TensorDir::Load { mbar, .. } = &t.dir
        && let Some(idx) = crate::lower::mbarrier::object_word(cx, mbar)
    {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(b.total));
        crate::lower::mbarrier::complete_tx(cx, idx, n);
    }
}

fn field(cx: &mut Cx<'_>, map: ValueId, off: u32, ty: Ty) -> ValueId {
    let at = cx.offset_where(Where::Global(map), off);
    cx.load(at, ty, MemOrder::Plain)
}

fn byte_of(cx: &mut Cx<'_>, word: ValueId, k: u64) -> ValueId {
    let sh = cx.b.konst(Ty::I32, 8 * k);
    let v = cx.b.bin(BinOp::LShr, word, sh);
    let ff = cx.b.konst(Ty::I32, 0xff);
    cx.b.bin(BinOp::And, v, ff)
}

/// The fields every kind of map has in the same place: the tensor's address, log2 of the
/// element size, the data type, the swizzle's mask and whether the fill is NaN.
struct Head {
    base: ValueId,
    shift: ValueId,
    data_type: ValueId,
    mask: ValueId,
    nan: ValueId,
}

fn read_head(cx: &mut Cx<'_>, map: ValueId) -> Head {
    let base = field(cx, map, tm::ADDRESS, Ty::I64);
    let shape = field(cx, map, tm::SHAPE_WORD, Ty::I32);
    let esize = byte_of(cx, shape, 1);
    // 1, 2, 4, 8 -> 0, 1, 2, 3.
    let one = cx.b.konst(Ty::I32, 1);
    let three = cx.b.konst(Ty::I32, 3);
    let half = cx.b.bin(BinOp::LShr, esize, one);
    let eighth = cx.b.bin(BinOp::LShr, esize, three);
    let shift = cx.b.bin(BinOp::ISub, half, eighth);
    let data_type = byte_of(cx, shape, 2);
    let mode = field(cx, map, tm::MODE_WORD, Ty::I32);
    let swizzle = byte_of(cx, mode, 0);
    let mask = cx.b.bin(BinOp::Shl, one, swizzle);
    let mask = cx.b.bin(BinOp::ISub, mask, one);
    let fill = byte_of(cx, mode, 1);
    let zero = cx.b.konst(Ty::I32, 0);
    let nan = cx.b.bin(BinOp::INe, fill, zero);
    Head {
        base,
        shift,
        data_type,
        mask,
        nan,
    }
}

fn read_map(cx: &mut Cx<'_>, map: ValueId, coords: &[crate::check::Src]) -> Box5 {
    let Head {
        base,
        shift,
        data_type,
        mask,
        nan,
    } = read_head(cx, map);
    let one = cx.b.konst(Ty::I32, 1);
    let mut dims = Vec::new();
    let mut total = cx.b.bin(BinOp::Shl, one, shift);
    let mut row_bytes = total;
    for (i, c) in coords.iter().enumerate() {
        let i32_ = i as u32;
        let extent = field(cx, map, tm::DIMS + 8 * i32_, Ty::I64);
        let boxn = field(cx, map, tm::BOX + 4 * i32_, Ty::I32);
        // Dimension 0's element stride is ignored without interleave (CUDA's documentation),
        // whatever a `tensormap.replace` wrote there.
        let es = if i == 0 {
            cx.b.konst(Ty::I32, 1)
        } else {
            field(cx, map, tm::ELEMENT_STRIDES + 4 * i32_, Ty::I32)
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
    Box5 {
        base: spill(cx, base, Ty::I64, "tensor.base"),
        shift: spill(cx, shift, Ty::I32, "tensor.shift"),
        data_type: spill(cx, data_type, Ty::I32, "tensor.type"),
        swizzle_mask: spill(cx, mask, Ty::I32, "tensor.swizzle"),
        nan: spill(cx, nan, Ty::Bool, "tensor.nan"),
        dims,
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

/// A loop over the dense box's bytes from 0 to its total: `body` emits one step for the byte
/// offset held in the variable it is given and returns how far the offset then moves.
fn over_box(cx: &mut Cx<'_>, total: VarId, body: impl FnOnce(&mut Cx<'_>, VarId) -> ValueId) {
    let zero = cx.b.konst(Ty::I32, 0);
    let w_var = spill(cx, zero, Ty::I32, "tensor.w");
    let (head, entry, exit) = (cx.b.f.new_block(), cx.b.f.new_block(), cx.b.f.new_block());
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(head);
    cx.b.cur = head;
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let n = cx.b.emit(Ty::I32, Op::LoadVar(total));
    let more = cx.b.bin(BinOp::ULt, w, n);
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
        cond: more,
        then: entry,
        else_: exit,
    };
    cx.b.cur = entry;
    let step = body(cx, w_var);
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let next = cx.b.bin(BinOp::IAdd, w, step);
    cx.b.emit_void(Op::StoreVar(w_var, next));
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(head);
    cx.b.cur = exit;
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
    for &(extent, n, es, start, stride) in &b.dims[1..] {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(n));
        let k = cx.b.bin(BinOp::UMod, r, n);
        r = cx.b.bin(BinOp::UDiv, r, n);
        let es = cx.b.emit(Ty::I32, Op::LoadVar(es));
        let k = cx.b.bin(BinOp::IMul, k, es);
        let k = cx.b.conv(ConvOp::ZExt, k, Ty::I64);
        let start = cx.b.emit(Ty::I64, Op::LoadVar(start));
        let c = cx.b.bin(BinOp::IAdd, start, k);
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

/// The shared address of dense box byte `w`, swizzled.
fn shared_at(cx: &mut Cx<'_>, b: &Box5, shared: VarId, w: ValueId) -> ValueId {
    let mask = cx.b.emit(Ty::I32, Op::LoadVar(b.swizzle_mask));
    let seven = cx.b.konst(Ty::I32, 7);
    let four = cx.b.konst(Ty::I32, 4);
    let hi = cx.b.bin(BinOp::LShr, w, seven);
    let hi = cx.b.bin(BinOp::And, hi, mask);
    let hi = cx.b.bin(BinOp::Shl, hi, four);
    let s = cx.b.bin(BinOp::Xor, w, hi);
    let sh = cx.b.emit(Ty::I32, Op::LoadVar(shared));
    cx.b.bin(BinOp::IAdd, sh, s)
}

/// One word: where its row is, then its four bytes.
fn word(cx: &mut Cx<'_>, b: &Box5, shared: VarId, w_var: VarId, load: bool) {
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let (inside, row, col) = locate(cx, b, w);
    word_of_row(cx, b, shared, w, (inside, row, col), load);
}

/// The four bytes of dense box word `w`, at byte `col` of a row at global address `row`
/// (whose dimensions other than 0 are inside the tensor if `inside`): dimension 0's
/// coordinate of each byte decides the rest.
fn word_of_row(
    cx: &mut Cx<'_>,
    b: &Box5,
    shared: VarId,
    w: ValueId,
    (inside, row, col): (ValueId, ValueId, ValueId),
    load: bool,
) {
    let base = cx.b.emit(Ty::I64, Op::LoadVar(b.base));
    let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
    let (extent0, _, _, start0, _) = b.dims[0];
    let extent0 = cx.b.emit(Ty::I64, Op::LoadVar(extent0));
    let start0 = cx.b.emit(Ty::I64, Op::LoadVar(start0));
    let one = cx.b.konst(Ty::I32, 1);
    let esize = cx.b.bin(BinOp::Shl, one, shift);
    let last = cx.b.bin(BinOp::ISub, esize, one);
    let shift64 = cx.b.conv(ConvOp::ZExt, shift, Ty::I64);
    // Per byte: inside or not, and its global address.
    let mut bytes = Vec::new();
    for j in 0..4u64 {
        let jj = cx.b.konst(Ty::I32, j);
        let at = cx.b.bin(BinOp::IAdd, col, jj);
        let e = cx.b.bin(BinOp::LShr, at, shift);
        let in_elem = cx.b.bin(BinOp::And, at, last);
        let e = cx.b.conv(ConvOp::ZExt, e, Ty::I64);
        let c = cx.b.bin(BinOp::IAdd, start0, e);
        let ok = cx.b.bin(BinOp::ULt, c, extent0);
        let ok = cx.b.bin(BinOp::And, inside, ok);
        let off = cx.b.bin(BinOp::Shl, c, shift64);
        let a = cx.b.bin(BinOp::IAdd, row, off);
        let in_elem64 = cx.b.conv(ConvOp::ZExt, in_elem, Ty::I64);
        let a = cx.b.bin(BinOp::IAdd, a, in_elem64);
        bytes.push((ok, a, in_elem));
    }
    let s = shared_at(cx, b, shared, w);
    if load {
        let nan = cx.b.emit(Ty::Bool, Op::LoadVar(b.nan));
        let mut word = cx.b.konst(Ty::I32, 0);
        for (j, (ok, a, in_elem)) in bytes.into_iter().enumerate() {
            let a = cx.b.select(ok, a, base);
            let v = cx.load(Where::Global(a), Ty::I8, MemOrder::Plain);
            let v = cx.b.conv(ConvOp::ZExt, v, Ty::I32);
            // The canonical NaN of every size: 0x7f in the top byte, 0xff below.
            let top = cx.b.bin(BinOp::IEq, in_elem, last);
            let (k7f, kff, k0) = (
                cx.b.konst(Ty::I32, 0x7f),
                cx.b.konst(Ty::I32, 0xff),
                cx.b.konst(Ty::I32, 0),
            );
            let nan_byte = cx.b.select(top, k7f, kff);
            let fill = cx.b.select(nan, nan_byte, k0);
            let v = cx.b.select(ok, v, fill);
            let sh = cx.b.konst(Ty::I32, 8 * j as u64);
            let v = cx.b.bin(BinOp::Shl, v, sh);
            word = cx.b.bin(BinOp::Or, word, v);
        }
        cx.store(Where::Shared(s), word, MemOrder::Plain);
        return;
    }
    let word = cx.load(Where::Shared(s), Ty::I32, MemOrder::Plain);
    let word_var = spill(cx, word, Ty::I32, "tensor.word");
    // Stores skip the bytes outside the tensor, so each is a branch; the addresses travel in
    // variables across the blocks.
    let saved: Vec<(VarId, VarId)> = bytes
        .into_iter()
        .map(|(ok, a, _)| {
            (
                spill(cx, ok, Ty::Bool, "tensor.ok"),
                spill(cx, a, Ty::I64, "tensor.at"),
            )
        })
        .collect();
    for (j, (ok, a)) in saved.into_iter().enumerate() {
        let ok = cx.b.emit(Ty::Bool, Op::LoadVar(ok));
        let (then, next) = (cx.b.f.new_block(), cx.b.f.new_block());
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: ok,
            then,
            else_: next,
        };
        cx.b.cur = then;
        let word = cx.b.emit(Ty::I32, Op::LoadVar(word_var));
        let v = byte_of(cx, word, j as u64);
        let v = cx.b.conv(ConvOp::Trunc, v, Ty::I8);
        let a = cx.b.emit(Ty::I64, Op::LoadVar(a));
        cx.store(Where::Global(a), v, MemOrder::Plain);
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
        cx.b.cur = next;
    }
}

/// The signed 16-bit field at byte `at` of the map, widened.
fn half_field(cx: &mut Cx<'_>, map: ValueId, at: u32) -> ValueId {
    let word = field(cx, map, at & !3, Ty::I32);
    let up = cx.b.konst(Ty::I32, u64::from(16 - 8 * (at & 3)));
    let v = cx.b.bin(BinOp::Shl, word, up);
    let down = cx.b.konst(Ty::I32, 16);
    let v = cx.b.bin(BinOp::AShr, v, down);
    cx.b.conv(ConvOp::SExt, v, Ty::I64)
}

/// One dimension of an im2col traversal: the pixel's position (a variable), and for the
/// dimensions between the innermost and the outermost the bounding box's first and last
/// coordinate, the traversal stride and the im2col offset.
struct Pixel {
    extent: VarId,
    stride: VarId,
    pos: VarId,
    bounds: Option<(VarId, VarId, VarId, VarId)>,
}

/// How the wide modes lay out their rows: groups of `group` pixels of the walk, each followed
/// by the `halo` pixels the walk reaches next (ISA "wHalo": `.im2col::w` loads
/// `pixelsPerColumn` pixels and then the halo, `.im2col::w::128` 128 pixels with the halo after
/// every 32). The next group goes on from where its halo began.
struct Wide {
    /// Rows of a group: `group` + `halo`.
    rows: VarId,
    group: VarId,
    halo: VarId,
    /// The position of each dimension where the current halo began.
    saved: Vec<VarId>,
}

/// `.im2col` (ISA "Im2col mode"): the tensor is a batch of images, dimension 0 the channels,
/// the last the image, the ones between W, H and D. The bounding box spans, in each of those,
/// `pixelBoxLowerCorner` to the dimension's last coordinate plus `pixelBoxUpperCorner`; the
/// coordinates name the first pixel, and the next ones follow in W (by the traversal stride,
/// the dimension's element stride), wrapping to the box's first W and the next H, then D, then
/// the next image. Each pixel is read `im2colOffsets` further on in W, H, D, and yields its
/// `channelsPerPixel` channels from coordinate 0's: one dense row of the box. What lies outside
/// the tensor is filled as in `.tile` mode.
///
/// The wide modes (ISA "im2col::w and im2col::w::128 modes") walk only W: the box is one pixel
/// in H and D, where the coordinates put it, so the walk wraps from W's end into the next
/// image. `wOffset` moves the box's W corners and the first pixel alike, which is reading
/// each pixel `wOffset` further in W; the rows are laid out as [`Wide`] says. Returns the
/// variable holding the box's bytes.
fn im2col(
    cx: &mut Cx<'_>,
    map: ValueId,
    shared: VarId,
    coords: &[crate::check::Src],
    info: &Im2colInfo,
    load: bool,
) -> VarId {
    let Head {
        base,
        shift,
        data_type,
        mask,
        nan,
    } = read_head(cx, map);
    let rank = coords.len();
    let cpp = field(cx, map, tm::CHANNELS_PER_PIXEL, Ty::I32);
    let ppc = match info {
        Im2colInfo::Wide { w128: true, .. } => cx.b.konst(Ty::I32, 128),
        _ => field(cx, map, tm::PIXELS_PER_COLUMN, Ty::I32),
    };
    let row_bytes = cx.b.bin(BinOp::Shl, cpp, shift);
    let mut wide = None;
    let rows = match info {
        Im2colInfo::Offsets(_) | Im2colInfo::NoOffsets => ppc,
        Im2colInfo::Wide { halo, w128, .. } => {
            let halo = cx.read(halo, ScalarType::B16);
            let halo = cx.b.conv(ConvOp::ZExt, halo, Ty::I32);
            let (group, groups) = match w128 {
                true => (cx.b.konst(Ty::I32, 32), cx.b.konst(Ty::I32, 4)),
                false => (ppc, cx.b.konst(Ty::I32, 1)),
            };
            let rows = cx.b.bin(BinOp::IAdd, group, halo);
            let total_rows = cx.b.bin(BinOp::IMul, rows, groups);
            wide = Some(Wide {
                rows: spill(cx, rows, Ty::I32, "im2col.rows"),
                group: spill(cx, group, Ty::I32, "im2col.group"),
                halo: spill(cx, halo, Ty::I32, "im2col.halo"),
                saved: Vec::new(),
            });
            total_rows
        }
    };
    let total = cx.b.bin(BinOp::IMul, rows, row_bytes);
    let extent0 = field(cx, map, tm::DIMS, Ty::I64);
    let c0 = cx.read(&coords[0], ScalarType::S32);
    let c0 = cx.b.conv(ConvOp::SExt, c0, Ty::I64);
    let zero64 = cx.b.konst(Ty::I64, 0);
    let one32 = cx.b.konst(Ty::I32, 1);
    let mut pixel = Vec::new();
    for k in 1..rank {
        let kk = k as u32;
        let extent = field(cx, map, tm::DIMS + 8 * kk, Ty::I64);
        let stride = field(cx, map, tm::STRIDES + 8 * (kk - 1), Ty::I64);
        let pos = cx.read(&coords[k], ScalarType::S32);
        let pos = cx.b.conv(ConvOp::SExt, pos, Ty::I64);
        let bounds = (k + 1 < rank).then(|| {
            let (lo, hi, es, off) = match info {
                // H and D of a wide mode: a box of the coordinate's one pixel.
                Im2colInfo::Wide { .. } if k > 1 => {
                    let zero = cx.b.konst(Ty::I64, 0);
                    (pos, pos, cx.b.konst(Ty::I64, 1), zero)
                }
                _ => {
                    let lo = half_field(cx, map, tm::CORNERS + 2 * (kk - 1));
                    let up = half_field(cx, map, tm::CORNERS + 6 + 2 * (kk - 1));
                    let one = cx.b.konst(Ty::I64, 1);
                    let last = cx.b.bin(BinOp::ISub, extent, one);
                    let hi = cx.b.bin(BinOp::IAdd, last, up);
                    let es = field(cx, map, tm::ELEMENT_STRIDES + 4 * kk, Ty::I32);
                    let es = cx.b.conv(ConvOp::ZExt, es, Ty::I64);
                    // The offsets are unsigned (CUTLASS and `cuda::ptx` pass `uint16_t`).
                    let off = match info {
                        Im2colInfo::Offsets(offsets) => Some(&offsets[k - 1]),
                        Im2colInfo::Wide { offset, .. } => Some(offset),
                        Im2colInfo::NoOffsets => None,
                    };
                    let off = match off {
                        Some(off) => {
                            let off = cx.read(off, ScalarType::B16);
                            cx.b.conv(ConvOp::ZExt, off, Ty::I64)
                        }
                        None => cx.b.konst(Ty::I64, 0),
                    };
                    (lo, hi, es, off)
                }
            };
            (
                spill(cx, lo, Ty::I64, "im2col.lo"),
                spill(cx, hi, Ty::I64, "im2col.hi"),
                spill(cx, es, Ty::I64, "im2col.es"),
                spill(cx, off, Ty::I64, "im2col.off"),
            )
        });
        if let Some(wd) = &mut wide {
            wd.saved.push(spill(cx, pos, Ty::I64, "im2col.saved"));
        }
        pixel.push(Pixel {
            extent: spill(cx, extent, Ty::I64, "im2col.extent"),
            stride: spill(cx, stride, Ty::I64, "im2col.stride"),
            pos: spill(cx, pos, Ty::I64, "im2col.pos"),
            bounds,
        });
    }
    let b = Box5 {
        base: spill(cx, base, Ty::I64, "tensor.base"),
        shift: spill(cx, shift, Ty::I32, "tensor.shift"),
        data_type: spill(cx, data_type, Ty::I32, "tensor.type"),
        swizzle_mask: spill(cx, mask, Ty::I32, "tensor.swizzle"),
        nan: spill(cx, nan, Ty::Bool, "tensor.nan"),
        dims: vec![(
            spill(cx, extent0, Ty::I64, "tensor.extent"),
            spill(cx, cpp, Ty::I32, "tensor.n"),
            spill(cx, one32, Ty::I32, "tensor.es"),
            spill(cx, c0, Ty::I64, "tensor.start"),
            spill(cx, zero64, Ty::I64, "tensor.stride"),
        )],
        row_bytes: spill(cx, row_bytes, Ty::I32, "tensor.row"),
        total: spill(cx, total, Ty::I32, "tensor.total"),
    };
    over_box(cx, b.total, |cx, w_var| {
        let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
        let row_bytes = cx.b.emit(Ty::I32, Op::LoadVar(b.row_bytes));
        let r = cx.b.bin(BinOp::UDiv, w, row_bytes);
        let row_start = cx.b.bin(BinOp::IMul, r, row_bytes);
        let col = cx.b.bin(BinOp::ISub, w, row_start);
        // A row's first word moves to the next pixel (the first row is the coordinates').
        let zero = cx.b.konst(Ty::I32, 0);
        let at_start = cx.b.bin(BinOp::IEq, col, zero);
        let not_first = cx.b.bin(BinOp::INe, w, zero);
        let mut carry = cx.b.bin(BinOp::And, at_start, not_first);
        // A wide mode's group after a halo starts where the halo did; its first halo row is
        // where the next group will.
        let (mut restart, mut save) = (None, None);
        if let Some(wd) = &wide {
            let rows = cx.b.emit(Ty::I32, Op::LoadVar(wd.rows));
            let i = cx.b.bin(BinOp::UMod, r, rows);
            let first = cx.b.bin(BinOp::IEq, i, zero);
            let halo = cx.b.emit(Ty::I32, Op::LoadVar(wd.halo));
            let has_halo = cx.b.bin(BinOp::INe, halo, zero);
            let again = cx.b.bin(BinOp::And, carry, first);
            restart = Some(cx.b.bin(BinOp::And, again, has_halo));
            let group = cx.b.emit(Ty::I32, Op::LoadVar(wd.group));
            let at_halo = cx.b.bin(BinOp::IEq, i, group);
            save = Some(cx.b.bin(BinOp::And, carry, at_halo));
        }
        for (d, p) in pixel.iter().enumerate() {
            let pos = cx.b.emit(Ty::I64, Op::LoadVar(p.pos));
            let new = match p.bounds {
                Some((lo, hi, es, _)) => {
                    let es = cx.b.emit(Ty::I64, Op::LoadVar(es));
                    let next = cx.b.bin(BinOp::IAdd, pos, es);
                    let hi = cx.b.emit(Ty::I64, Op::LoadVar(hi));
                    let past = cx.b.bin(BinOp::SGt, next, hi);
                    let wrap = cx.b.bin(BinOp::And, carry, past);
                    let moved = cx.b.select(carry, next, pos);
                    let lo = cx.b.emit(Ty::I64, Op::LoadVar(lo));
                    let new = cx.b.select(wrap, lo, moved);
                    carry = wrap;
                    new
                }
                None => {
                    let one = cx.b.konst(Ty::I64, 1);
                    let next = cx.b.bin(BinOp::IAdd, pos, one);
                    cx.b.select(carry, next, pos)
                }
            };
            let new = match (&wide, restart, save) {
                (Some(wd), Some(restart), Some(save)) => {
                    let saved = cx.b.emit(Ty::I64, Op::LoadVar(wd.saved[d]));
                    let new = cx.b.select(restart, saved, new);
                    let keep = cx.b.select(save, new, saved);
                    cx.b.emit_void(Op::StoreVar(wd.saved[d], keep));
                    new
                }
                _ => new,
            };
            cx.b.emit_void(Op::StoreVar(p.pos, new));
        }
        let mut inside = cx.b.konst(Ty::Bool, 1);
        let mut row = cx.b.emit(Ty::I64, Op::LoadVar(b.base));
        for p in &pixel {
            let mut c = cx.b.emit(Ty::I64, Op::LoadVar(p.pos));
            if let Some((_, _, _, off)) = p.bounds {
                let off = cx.b.emit(Ty::I64, Op::LoadVar(off));
                c = cx.b.bin(BinOp::IAdd, c, off);
            }
            // A negative coordinate is a huge unsigned one: outside as well.
            let extent = cx.b.emit(Ty::I64, Op::LoadVar(p.extent));
            let ok = cx.b.bin(BinOp::ULt, c, extent);
            inside = cx.b.bin(BinOp::And, inside, ok);
            let stride = cx.b.emit(Ty::I64, Op::LoadVar(p.stride));
            let off = cx.b.bin(BinOp::IMul, c, stride);
            row = cx.b.bin(BinOp::IAdd, row, off);
        }
        word_of_row(cx, &b, shared, w, (inside, row, col), load);
        cx.b.konst(Ty::I32, 4)
    });
    b.total
}

fn spill(cx: &mut Cx<'_>, v: ValueId, ty: Ty, name: &'static str) -> VarId {
    let var = cx.b.f.new_var(ty, name);
    cx.b.emit_void(Op::StoreVar(var, v));
    var
}

/// The `CUtensorMapDataType` of each element type a tensor reduction takes
/// ([`crate::check::inst::reduce_types`]).
fn data_type(ty: ScalarType) -> Option<u64> {
    Some(match ty {
        ScalarType::U32 => 2,
        ScalarType::S32 => 3,
        ScalarType::U64 => 4,
        ScalarType::S64 => 5,
        ScalarType::F16 => 6,
        ScalarType::F32 => 7,
        ScalarType::F64 => 8,
        ScalarType::Bf16 => 9,
        _ => return None,
    })
}

/// The loop over the box's elements for a reduction: `w` is the element's dense byte offset.
fn reduce_walk(cx: &mut Cx<'_>, b: &Box5, shared: VarId, op: AtomOp) {
    over_box(cx, b.total, |cx, w_var| {
        let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
        let (inside, row, col) = locate(cx, b, w);
        let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
        let (extent0, _, _, start0, _) = b.dims[0];
        let extent0 = cx.b.emit(Ty::I64, Op::LoadVar(extent0));
        let start0 = cx.b.emit(Ty::I64, Op::LoadVar(start0));
        let e = cx.b.bin(BinOp::LShr, col, shift);
        let e = cx.b.conv(ConvOp::ZExt, e, Ty::I64);
        let c = cx.b.bin(BinOp::IAdd, start0, e);
        let ok = cx.b.bin(BinOp::ULt, c, extent0);
        let ok = cx.b.bin(BinOp::And, inside, ok);
        let shift64 = cx.b.conv(ConvOp::ZExt, shift, Ty::I64);
        let off = cx.b.bin(BinOp::Shl, c, shift64);
        let at = cx.b.bin(BinOp::IAdd, row, off);
        let at = spill(cx, at, Ty::I64, "tensor.at");
        let s = shared_at(cx, b, shared, w);
        let s = spill(cx, s, Ty::I32, "tensor.src");
        let (then, next) = (cx.b.f.new_block(), cx.b.f.new_block());
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: ok,
            then,
            else_: next,
        };
        cx.b.cur = then;
        for (ty, code) in reduce_types(op, ReduceInto::Tensor)
            .iter()
            .filter_map(|&t| Some((t, data_type(t)?)))
        {
            let dt = cx.b.emit(Ty::I32, Op::LoadVar(b.data_type));
            let k = cx.b.konst(Ty::I32, code);
            let is = cx.b.bin(BinOp::IEq, dt, k);
            let (this, other) = (cx.b.f.new_block(), cx.b.f.new_block());
            cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
                cond: is,
                then: this,
                else_: other,
            };
            cx.b.cur = this;
            let from = cx.b.emit(Ty::I32, Op::LoadVar(s));
            let v = cx.load(Where::Shared(from), Ty::of(ty), MemOrder::Plain);
            let to = cx.b.emit(Ty::I64, Op::LoadVar(at));
            crate::lower::atomic::reduce_at(cx, op, ty, Where::Global(to), v);
            cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
            cx.b.cur = other;
        }
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
        cx.b.cur = next;
        let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
        let one = cx.b.konst(Ty::I32, 1);
        cx.b.bin(BinOp::Shl, one, shift)
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
