//! The tensor forms of the bulk copies, in the `.tile` load mode:
//! `cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile}.mbarrier::complete_tx::bytes
//! [dst], [tensorMap, {coords}], [mbar]{, cache-policy}`,
//! `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensorMap, {coords}], [src]
//! {, cache-policy}`, `cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile} [tensorMap,
//! {coords}]{, cache-policy}` and `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp
//! {.tile}.bulk_group [tensorMap, {coords}], [src]{, cache-policy}`; and the `.im2col` loads
//! and prefetches (3d to 5d), whose operand after the mbarrier (after the tensor, for a
//! prefetch) is the vector of N - 2 16-bit im2col offsets; and the `.im2col::w` and
//! `.im2col::w::128` loads and prefetches, whose operand there is `{wHalo, wOffset}`; and the
//! `.im2col_no_offs` stores and reductions (`.global.shared::cta`), which take no im2col
//! operand. Loads may multicast (`.multicast::cluster`, a 16-bit `ctaMask` after the offsets)
//! within ptxvk's one-block clusters. The `.tile::gather4` loads and prefetches and the
//! `.tile::scatter4` stores take a 2-d map and `{col, row0, row1, row2, row3}`.

use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{AsyncCopy, AtomOp, CpBulkTensor, Im2colInfo, TensorDir, TensorWalk};
use crate::check::operand::Address;
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

const DIMS: [(&str, usize); 5] = [("1d", 1), ("2d", 2), ("3d", 3), ("4d", 4), ("5d", 5)];

/// A copy's load mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Tile,
    Im2col,
    /// `.im2col::w` (false) or `.im2col::w::128` (true).
    Wide(bool),
    /// `.im2col_no_offs`, the im2col mode of copies into the tensor.
    NoOffsets,
    /// `.tile::gather4` (loads) and `.tile::scatter4` (stores): four rows of a 2-d tensor at
    /// one column, `{col, row0, row1, row2, row3}`.
    Gather4,
    Scatter4,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Tile => "tile",
            Mode::Im2col => "im2col",
            Mode::Wide(false) => "im2col::w",
            Mode::Wide(true) => "im2col::w::128",
            Mode::NoOffsets => "im2col_no_offs",
            Mode::Gather4 => "tile::gather4",
            Mode::Scatter4 => "tile::scatter4",
        }
    }

    fn is_im2col(self) -> bool {
        matches!(self, Mode::Im2col | Mode::Wide(_) | Mode::NoOffsets)
    }

    /// The walk of a mode that takes no `im2colInfo` operand (`.im2col_no_offs` walks the
    /// `.im2col` way with no offsets).
    fn walk_without_operand(self) -> TensorWalk {
        match self {
            Mode::NoOffsets => TensorWalk::Im2col(Im2colInfo::NoOffsets),
            m if m.four_rows() => TensorWalk::FourRows,
            _ => TensorWalk::Tile,
        }
    }

    fn four_rows(self) -> bool {
        matches!(self, Mode::Gather4 | Mode::Scatter4)
    }

    /// The coordinates a copy of rank `n` in this mode takes.
    fn coords(self, n: usize) -> usize {
        if self.four_rows() { 5 } else { n }
    }
}

const MODES: [(&str, Mode); 6] = [
    ("im2col", Mode::Im2col),
    ("im2col::w", Mode::Wide(false)),
    ("im2col::w::128", Mode::Wide(true)),
    ("im2col_no_offs", Mode::NoOffsets),
    ("tile::gather4", Mode::Gather4),
    ("tile::scatter4", Mode::Scatter4),
];

fn refuse(m: &mut Mods<'_, '_>, what: &str) -> Option<AsyncCopy> {
    m.error_on_opcode(
        format!("`{}` ({what}) is not supported by ptxvk yet", m.full_name()),
        "not supported yet",
    );
    None
}

/// The decoded forms share the dimension and mode modifiers: the rank and the load mode (the
/// im2col ones the ISA defines for 3d to 5d tensors).
fn dims_and_mode(m: &mut Mods<'_, '_>) -> Option<(usize, Mode)> {
    let Some(n) = m.pick(&DIMS) else {
        m.error(
            "`cp.async.bulk.tensor` needs its dimension (`.1d` to `.5d`)",
            "add .1d, .2d, .3d, .4d or .5d",
        );
        return None;
    };
    for (name, what) in [("cta_group::1", "CTA pairs"), ("cta_group::2", "CTA pairs")] {
        if m.flag(name) {
            refuse(m, what);
            return None;
        }
    }
    let tile = m.flag("tile");
    let mode = m.pick(&MODES).unwrap_or(Mode::Tile);
    if mode != Mode::Tile && tile {
        m.error_on(
            mode.name(),
            format!("`.tile` and `.{}` cannot both be given", mode.name()),
            "one load mode",
        );
        return None;
    }
    // "These modes work only on 2D tensor data."
    if mode.four_rows() && n != 2 {
        m.error_on(
            mode.name(),
            format!(
                "the `.{}` mode is for 2d tensors; this copy is {n}d",
                mode.name()
            ),
            "needs .2d",
        );
        return None;
    }
    if mode.is_im2col() && n < 3 {
        m.error_on(
            mode.name(),
            format!(
                "the `.{}` mode is for 3d to 5d tensors; this copy is {n}d",
                mode.name()
            ),
            "needs .3d, .4d or .5d",
        );
        return None;
    }
    Some((n, mode))
}

/// The im2col offsets: `{o0, ...}`, one 16-bit value per dimension between the innermost
/// and the outermost.
fn offsets(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>, n: usize) -> Option<Vec<Src>> {
    let OperandKind::Vector(items) = &op.kind else {
        cx.error(
            Diagnostic::error(
                op.span,
                format!(
                    "expected the im2col offsets `{{o0, ...}}`: {} 16-bit values",
                    n - 2
                ),
            )
            .with_label("the im2col offsets"),
        );
        return None;
    };
    if items.len() != n - 2 {
        cx.error(
            Diagnostic::error(
                op.span,
                format!(
                    "a {n}d `.im2col` copy takes {} im2col offsets, found {}",
                    n - 2,
                    items.len()
                ),
            )
            .with_label("the im2col offsets"),
        );
        return None;
    }
    items
        .iter()
        .map(|o| cx.src(o, ScalarType::B16, TypeRule::Strict))
        .collect()
}

/// The operand of an im2col mode: the offsets of `.im2col`, `{wHalo, wOffset}` of the wide
/// modes.
fn im2col_info(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    n: usize,
    mode: Mode,
) -> Option<Im2colInfo> {
    let w128 = match mode {
        Mode::Tile | Mode::NoOffsets | Mode::Gather4 | Mode::Scatter4 => return None,
        Mode::Im2col => return offsets(cx, op, n).map(Im2colInfo::Offsets),
        Mode::Wide(w128) => w128,
    };
    let items = match &op.kind {
        OperandKind::Vector(items) if items.len() == 2 => items,
        _ => {
            cx.error(
                Diagnostic::error(
                    op.span,
                    format!(
                        "the `.{}` mode takes `{{wHalo, wOffset}}`: two 16-bit values",
                        mode.name()
                    ),
                )
                .with_label("expected {wHalo, wOffset}"),
            );
            return None;
        }
    };
    let halo = cx.src(&items[0], ScalarType::B16, TypeRule::Strict)?;
    let offset = cx.src(&items[1], ScalarType::B16, TypeRule::Strict)?;
    // ISA: wHalo lies in [0, 512) (`.im2col::w`) or [0, 32) (`.im2col::w::128`), wOffset in
    // [0, 32).
    let halo_limit = if w128 { 32 } else { 512 };
    for (v, item, limit, what) in [
        (&halo, &items[0], halo_limit, "wHalo"),
        (&offset, &items[1], 32, "wOffset"),
    ] {
        if let Src::Imm(k) = v
            && (*k & 0xffff) >= limit
        {
            cx.error(
                Diagnostic::error(
                    item.span,
                    format!(
                        "{what} {} is out of range for `.{}`: it lies in [0, {limit})",
                        k & 0xffff,
                        mode.name()
                    ),
                )
                .with_label(format!("{what} below {limit}")),
            );
            return None;
        }
    }
    Some(Im2colInfo::Wide { halo, offset, w128 })
}

/// `[tensorMap, {c0, ...}]` with `n` coordinates.
fn map_and_coords(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    n: usize,
) -> Option<(Address, Vec<Src>)> {
    let bad = |cx: &mut FnCx<'_, '_>| {
        cx.error(
            Diagnostic::error(
                op.span,
                format!("expected `[tensorMap, {{coordinates}}]` with {n} coordinates"),
            )
            .with_label("the tensor operand"),
        );
        None
    };
    let OperandKind::Tuple(items) = &op.kind else {
        return bad(cx);
    };
    let [map, coords] = items.as_slice() else {
        return bad(cx);
    };
    let (OperandKind::Imm(e), OperandKind::Vector(cs)) = (&map.kind, &coords.kind) else {
        return bad(cx);
    };
    if cs.len() != n {
        return bad(cx);
    }
    let map = cx.address_expr(e)?;
    let coords = cs
        .iter()
        // The coordinates are `.s32` (ISA): 32-bit registers only, as Table 26 has it.
        .map(|c| cx.src(c, ScalarType::S32, TypeRule::Strict))
        .collect::<Option<Vec<_>>>()?;
    Some((map, coords))
}

/// Reads the trailing cache policy of `.L2::cache_hint`.
fn policy(cx: &mut FnCx<'_, '_>, ops: &[ast::Operand<'_>], hint: bool) -> Option<()> {
    if hint {
        cx.src(ops.last()?, ScalarType::B64, TypeRule::Strict)?;
    }
    Some(())
}

fn operand_count(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, n: usize) -> Option<()> {
    if i.operands.len() != n {
        cx.error(
            Diagnostic::error(
                i.span,
                format!(
                    "`cp.async.bulk.tensor` takes {n} operands here, found {}",
                    i.operands.len()
                ),
            )
            .with_label("wrong operand count"),
        );
        return None;
    }
    Some(())
}

pub fn copy(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    let (n, mode) = dims_and_mode(m)?;
    let im2col = mode.is_im2col();
    let spaces: Vec<StateSpace> = i
        .modifiers
        .iter()
        .filter_map(|x| match x.node {
            "global" => Some(StateSpace::Global),
            "shared::cta" | "shared::cluster" => Some(StateSpace::Shared),
            _ => None,
        })
        .collect();
    for name in ["global", "shared::cta", "shared::cluster"] {
        m.flag(name);
    }
    let with_mbar = m.flag("mbarrier::complete_tx::bytes");
    let group = m.flag("bulk_group");
    let hint = m.flag("L2::cache_hint");
    let multicast = m.flag("multicast::cluster");
    let load = match spaces.as_slice() {
        [StateSpace::Shared, StateSpace::Global] if with_mbar && !group => true,
        [StateSpace::Global, StateSpace::Shared] if group && !with_mbar => false,
        _ => {
            m.error(
                "`cp.async.bulk.tensor` copies `.shared::cluster.global` (or `.shared::cta.global`) \
                 with `.mbarrier::complete_tx::bytes`, or `.global.shared::cta` with `.bulk_group`",
                "ISA: cp.async.bulk.tensor",
            );
            return None;
        }
    };
    if mode == Mode::NoOffsets && load {
        m.error_on(
            mode.name(),
            "`.im2col_no_offs` is the im2col mode of copies into the tensor: a load is `.im2col`, \
             `.im2col::w` or `.im2col::w::128`",
            "stores only",
        );
        return None;
    }
    if mode == Mode::Scatter4 && load {
        m.error_on(
            mode.name(),
            "`.tile::scatter4` is the mode of copies into the tensor: a load's four rows are \
             `.tile::gather4`",
            "stores only",
        );
        return None;
    }
    if (im2col || mode == Mode::Gather4) && !load && mode != Mode::NoOffsets {
        m.error_on(
            mode.name(),
            format!(
                "`.{}` is a load mode: a copy into the tensor is `.tile`, `.tile::scatter4` or \
                 `.im2col_no_offs`",
                mode.name()
            ),
            "loads only",
        );
        return None;
    }
    // "The source data is multicast to the same CTA-relative offset as dstMem in the shared
    // memory of each destination CTA": a copy into `.shared::cluster`.
    let cta_dst = i.modifiers.iter().any(|x| x.node == "shared::cta");
    if multicast && (!load || cta_dst) {
        m.error_on(
            "multicast::cluster",
            "`.multicast::cluster` is for loads into `.shared::cluster`",
            "loads into .shared::cluster only",
        );
        return None;
    }
    // `.im2col_no_offs` takes no im2colInfo.
    let info_op = im2col && mode != Mode::NoOffsets;
    operand_count(
        cx,
        i,
        2 + usize::from(load) + usize::from(info_op) + usize::from(multicast) + usize::from(hint),
    )?;
    let ops = &i.operands;
    let (map_op, mem_op) = if load {
        (&ops[1], &ops[0])
    } else {
        (&ops[0], &ops[1])
    };
    let (map, coords) = map_and_coords(cx, map_op, mode.coords(n))?;
    let mem = cx.address(mem_op)?;
    let walk = match info_op {
        true => TensorWalk::Im2col(im2col_info(cx, &ops[3], n, mode)?),
        false => mode.walk_without_operand(),
    };
    let dir = if load {
        let mbar = cx.address(&ops[2])?;
        let multicast = match multicast {
            true => Some(super::multicast::cta_mask(
                cx,
                &ops[3 + usize::from(im2col)],
            )?),
            false => None,
        };
        TensorDir::Load {
            dst: mem,
            mbar,
            multicast,
        }
    } else {
        TensorDir::Store { src: mem }
    };
    policy(cx, ops, hint)?;
    Some(AsyncCopy::Tensor(Box::new(CpBulkTensor {
        map,
        coords,
        walk,
        dir,
    })))
}

/// `cp.async.bulk.prefetch.tensor`: a hint, checked and dropped.
pub fn prefetch(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    let (n, mode) = dims_and_mode(m)?;
    let im2col = mode.is_im2col();
    if matches!(mode, Mode::NoOffsets | Mode::Scatter4) {
        m.error_on(
            mode.name(),
            format!(
                "`.{}` is a mode of copies into the tensor; a prefetch is `.tile`, \
                 `.tile::gather4`, `.im2col`, `.im2col::w` or `.im2col::w::128`",
                mode.name()
            ),
            "not a prefetch mode",
        );
        return None;
    }
    if !m.flag("L2") || !m.flag("global") {
        m.error(
            "`cp.async.bulk.prefetch.tensor` prefetches `.L2.global`",
            "write cp.async.bulk.prefetch.tensor.2d.L2.global",
        );
        return None;
    }
    let hint = m.flag("L2::cache_hint");
    operand_count(cx, i, 1 + usize::from(im2col) + usize::from(hint))?;
    map_and_coords(cx, &i.operands[0], mode.coords(n))?;
    if im2col {
        im2col_info(cx, &i.operands[1], n, mode)?;
    }
    policy(cx, &i.operands, hint)?;
    Some(AsyncCopy::Prefetch)
}

/// The reduction operators; which element types each takes is the tensor map's business, read
/// when the copy runs.
const RED_OPS: [(&str, AtomOp); 8] = [
    ("add", AtomOp::Add),
    ("min", AtomOp::Min),
    ("max", AtomOp::Max),
    ("inc", AtomOp::Inc),
    ("dec", AtomOp::Dec),
    ("and", AtomOp::And),
    ("or", AtomOp::Or),
    ("xor", AtomOp::Xor),
];

/// `cp.reduce.async.bulk.tensor`: the box in shared memory reduced into the tensor.
pub fn reduce(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    let (n, mode) = dims_and_mode(m)?;
    if !matches!(mode, Mode::Tile | Mode::NoOffsets) {
        m.error_on(
            mode.name(),
            format!(
                "`.{}` is not a reduction's mode: a reduction into the tensor is `.tile` or \
                 `.im2col_no_offs`",
                mode.name()
            ),
            "loads only",
        );
        return None;
    }
    let Some(op) = m.pick(&RED_OPS) else {
        m.error(
            "`cp.reduce.async.bulk.tensor` needs its operator (`.add`, `.min`, `.max`, `.inc`, \
             `.dec`, `.and`, `.or` or `.xor`)",
            "add the reduction operator",
        );
        return None;
    };
    let global_first = i
        .modifiers
        .iter()
        .position(|x| x.node == "global")
        .zip(i.modifiers.iter().position(|x| x.node == "shared::cta"))
        .is_some_and(|(g, s)| g < s);
    let (global, shared, group) = (
        m.flag("global"),
        m.flag("shared::cta"),
        m.flag("bulk_group"),
    );
    if !(global && shared && group && global_first) {
        m.error(
            "`cp.reduce.async.bulk.tensor` reduces `.global.shared::cta` with `.bulk_group`",
            "ISA: cp.reduce.async.bulk.tensor",
        );
        return None;
    }
    let hint = m.flag("L2::cache_hint");
    operand_count(cx, i, 2 + usize::from(hint))?;
    let ops = &i.operands;
    let (map, coords) = map_and_coords(cx, &ops[0], n)?;
    let src = cx.address(&ops[1])?;
    policy(cx, ops, hint)?;
    Some(AsyncCopy::Tensor(Box::new(CpBulkTensor {
        map,
        coords,
        // `.im2col_no_offs` reduces the column along the walk its stores write.
        walk: mode.walk_without_operand(),
        dir: TensorDir::Reduce { src, op },
    })))
}
