//! The im2col modes' walk: `.im2col` and `.im2col::w` loads, and `.im2col_no_offs` stores
//! and reductions, each row one pixel of the bounding box the map describes.

use super::{Access, Box5, Head, field, over_box, read_head, reduce_element, spill, word_of_row};
use crate::check::inst::Im2colInfo;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::tensor_map as tm;
use crate::types::ScalarType;

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
pub(super) fn im2col(
    cx: &mut Cx<'_>,
    map: ValueId,
    shared: VarId,
    coords: &[crate::check::Src],
    info: &Im2colInfo,
    access: Access,
) -> VarId {
    let Head {
        base,
        shift,
        data_type,
        mask,
        atom,
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
        swizzle_atom: spill(cx, atom, Ty::I32, "tensor.atom"),
        nan: spill(cx, nan, Ty::Bool, "tensor.nan"),
        dims: vec![(
            spill(cx, extent0, Ty::I64, "tensor.extent"),
            spill(cx, cpp, Ty::I32, "tensor.n"),
            spill(cx, one32, Ty::I32, "tensor.es"),
            spill(cx, c0, Ty::I64, "tensor.start"),
            spill(cx, zero64, Ty::I64, "tensor.stride"),
        )],
        rows: Vec::new(),
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
        let row = (inside, row, col);
        match access {
            Access::Load => word_of_row(cx, &b, shared, w, row, true),
            Access::Store => word_of_row(cx, &b, shared, w, row, false),
            Access::Reduce(op) => return reduce_element(cx, &b, shared, w, row, op),
        }
        cx.b.konst(Ty::I32, 4)
    });
    b.total
}
