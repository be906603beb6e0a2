//! ISA 9.7.9.25.5 `cp.async.bulk.tensor` in the `.tile` mode: boxes of every rank loaded into
//! shared memory (completing an mbarrier's transaction) and stored back, over the tensor's
//! edges, with zero and NaN fill, element strides and each swizzle mode; and
//! `cp.reduce.async.bulk.tensor` with each operator on each element type the ISA lists for it;
//! checked against the model in `tensor_model.rs`. The tensor maps are made by the encoder libcuda's
//! `cuTensorMapEncodeTiled` uses (the input a CUDA program would pass), which also checks that
//! each case's map is one CUDA accepts; the expected boxes come from the model alone.

use ptxvk_runtime::translator::tensor_map::{Tiled, encode_tiled};
use ptxvk_runtime::{Buffer, Context, KernelArg, LaunchConfig};

use super::kernel_case::rejected_line;
use super::tensor_model::{
    BF16, F16, F32, F64, Loaded, Red, S32, Spec, U8, U16, U32, U64, pattern, reduce_inputs,
};
use crate::{Case, Outcome, outcome_of};

const FAMILY: &str = "9.7.9.25.5 cp.async.bulk.tensor";
const HEADER: &str = ".version 8.6\n.target sm_90a\n.address_size 64\n";
const THREADS: u32 = 64;

/// How a case's instruction is written beyond its rank and direction.
#[derive(Clone, Copy, Debug, Default)]
struct Form {
    /// The map in a global buffer (a pointer parameter) instead of a `.param` kernel parameter.
    map_in_global: bool,
    /// `.shared::cta` destination instead of `.shared::cluster` (loads).
    cta_dst: bool,
    /// `.L2::cache_hint` with a `createpolicy` policy.
    hint: bool,
    /// Leave out the optional `.tile`.
    no_tile: bool,
    /// Also issue `cp.async.bulk.prefetch.tensor` for the box first (a hint).
    prefetch: bool,
    /// A store written as `cp.reduce.async.bulk.tensor` with this operator.
    reduce: Option<Red>,
    /// The map (in global memory) names another tensor until the kernel writes the tensor's
    /// address into it with `tensormap.replace`: in place (`Some(false)`), or in a copy in
    /// shared memory that `tensormap.cp_fenceproxy` copies back (`Some(true)`).
    replace: Option<bool>,
    /// With `replace`: the host's map describes another tensor shape (a 1-d u16 one) and the
    /// kernel writes every field of the case's shape into it with `tensormap.replace`.
    edit_fields: bool,
    /// `.multicast::cluster` to the one-block cluster's CTA (mask 1), the mask in a register
    /// (`Some(true)`) or a constant.
    multicast: Option<bool>,
}

/// Shared memory the box needs, rounded up for the 1024-byte alignment of the swizzles.
fn tile_bytes(s: &Spec) -> usize {
    s.box_bytes().div_ceil(1024) * 1024
}

/// The kernel: `load` copies the box into `tile` and then into `io` (with whether the
/// mbarrier's phase completed after the box's bytes); a store fills `tile` from `io` and copies
/// the box into the tensor.
fn kernel(s: &Spec, load: bool, form: Form) -> String {
    let rank = s.rank();
    let tile = tile_bytes(s);
    let map_param = if form.map_in_global || form.replace.is_some() {
        ".param .u64 tmap"
    } else {
        ".param .align 64 .b8 tmap[128]"
    };
    let map_addr = if form.map_in_global || form.replace.is_some() {
        "ld.param.u64 %rd3, [tmap];"
    } else {
        "mov.b64 %rd3, tmap;"
    };
    let coords: String = s
        .coords
        .iter()
        .enumerate()
        .map(|(i, c)| format!("\tmov.b32 %r{}, {c};\n", 20 + i))
        .collect();
    let vec = (0..rank)
        .map(|i| format!("%r{}", 20 + i))
        .collect::<Vec<_>>()
        .join(", ");
    let tile_mod = if form.no_tile { "" } else { ".tile" };
    let (hint_mod, hint_op, policy) = if form.hint {
        (
            ".L2::cache_hint",
            ", %rd6",
            "\tcreatepolicy.fractional.L2::evict_first.b64 %rd6, 1.0;\n",
        )
    } else {
        ("", "", "")
    };
    let prefetch = if form.prefetch {
        format!(
            "\tcp.async.bulk.prefetch.tensor.{rank}d.L2.global{tile_mod}{hint_mod} [%rd3, {{{vec}}}]{hint_op};\n"
        )
    } else {
        String::new()
    };
    let (taddr_param, smap) = match form.replace {
        Some(_) => (
            ", .param .u64 taddr",
            "\t.shared .align 128 .b8 smap[128];\n",
        ),
        None => ("", ""),
    };
    let mut k = format!(
        "{HEADER}.visible .entry k({map_param}, .param .u64 io, .param .u32 bytes{taddr_param})\n{{\n{smap}\
         \t.reg .pred %p<4>;\n\t.reg .b16 %rs<2>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 1024 .b8 tile[{tile}];\n\t.shared .align 8 .b64 bar;\n\
         \tmov.u32 %r1, %tid.x;\n\tld.param.u64 %rd1, [io];\n\
         \tld.param.u32 %r2, [bytes];\n\tshr.u32 %r5, %r2, 2;\n\t{map_addr}\n{coords}{policy}\
         \tsetp.ne.u32 %p1, %r1, 0;\n"
    );
    k += &replace(form.replace, form.edit_fields.then_some(s));
    // Words tid, tid + THREADS, ... below `%r5`, between `tile` and `io`.
    let words = |name: &str, to_io: bool| {
        let (ld, st) = if to_io {
            ("ld.shared.u32 %r9, [%r8];", "st.global.u32 [%rd5], %r9;")
        } else {
            ("ld.global.u32 %r9, [%rd5];", "st.shared.u32 [%r8], %r9;")
        };
        format!(
            "\tmov.u32 %r6, %r1;\n{name}:\n\tsetp.ge.u32 %p3, %r6, %r5;\n\t@%p3 bra {name}_END;\n\
             \tshl.b32 %r7, %r6, 2;\n\tmov.u32 %r8, tile;\n\tadd.u32 %r8, %r8, %r7;\n\
             \tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
             \t{ld}\n\t{st}\n\tadd.u32 %r6, %r6, {THREADS};\n\tbra {name};\n{name}_END:\n"
        )
    };
    if load {
        let dst = if form.cta_dst {
            "shared::cta"
        } else {
            "shared::cluster"
        };
        let (mc_mod, mc_op) = match form.multicast {
            Some(true) => (".multicast::cluster", ", %rs1"),
            Some(false) => (".multicast::cluster", ", 1"),
            None => ("", ""),
        };
        k += &format!(
            "\t@%p1 bra SYNC;\n\tmbarrier.init.shared::cta.b64 [bar], 1;\n\
             \tfence.mbarrier_init.release.cluster;\nSYNC:\n\tbar.sync 0;\n\t@%p1 bra WAIT;\n{prefetch}\
             \tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], %r2;\n\
             \tmov.b16 %rs1, 1;\n\
             \tcp.async.bulk.tensor.{rank}d.{dst}.global{tile_mod}.mbarrier::complete_tx::bytes{mc_mod}{hint_mod} \
             [tile], [%rd3, {{{vec}}}], [bar]{mc_op}{hint_op};\n\
             WAIT:\n\tmov.u32 %r3, 0;\n\
             TRY:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@%p2 bra DONE;\n\
             \tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p3, %r3, 1000;\n\t@%p3 bra TRY;\n\
             DONE:\n\tselp.u32 %r4, 1, 0, %p2;\n{}\
             \t@%p1 bra END;\n\tadd.s64 %rd5, %rd1, {};\n\tst.global.u32 [%rd5], %r4;\nEND:\n\tret;\n}}\n",
            words("COPY", true),
            s.box_bytes()
        );
    } else {
        let (opcode, red, read) = match form.reduce {
            Some(op) => ("cp.reduce.async.bulk.tensor", format!(".{}", op.name()), ""),
            None => ("cp.async.bulk.tensor", String::new(), ".read"),
        };
        k += &format!(
            "{}\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n\t@%p1 bra END;\n{prefetch}\
             \t{opcode}.{rank}d.global.shared::cta{red}{tile_mod}.bulk_group{hint_mod} \
             [%rd3, {{{vec}}}], [tile]{hint_op};\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group{read} 0;\nEND:\n\tret;\n}}\n",
            words("FILL", false)
        );
    }
    k
}

/// `tensormap.replace` of every field of `s` into the map at `at` (in `space`), the values
/// encoded as the ISA says: the rank minus one, dimensions and strides as they are, the
/// element type's number (0-7 as `CUtensorMapDataType`'s), no interleave, the swizzle as
/// its span (`.swizzle_mode`: 0 none, 1 32B, 2 64B, 3 128B) and its atom
/// (`.swizzle_atomicity`: 0 16B, 1 32B, 3 64B).
fn field_edits(s: &Spec, space: &str, at: &str) -> String {
    let line = |field: &str, ty: &str, operands: String| {
        format!("\ttensormap.replace.tile.{field}.{space}.b1024.{ty} [{at}], {operands};\n")
    };
    let mut k = line("rank", "b32", format!("{}", s.rank() - 1));
    for i in 0..s.rank() {
        k += &line("box_dim", "b32", format!("{i}, {}", s.box_dims[i]));
        k += &line("global_dim", "b32", format!("{i}, {}", s.dims[i]));
        k += &line(
            "element_stride",
            "b32",
            format!("{i}, {}", s.element_strides[i]),
        );
    }
    for (i, stride) in s.strides.iter().enumerate() {
        k += &format!("\tmov.b64 %rd6, {stride};\n");
        k += &line("global_stride", "b64", format!("{i}, %rd6"));
    }
    k += &line("elemtype", "b32", format!("{}", s.data_type));
    k += &line("interleave_layout", "b32", "0".into());
    let (mode, atomicity) = match s.swizzle {
        4 => (3, 1),
        6 => (3, 3),
        n => (n, 0),
    };
    k += &line("swizzle_mode", "b32", format!("{mode}"));
    k += &line("swizzle_atomicity", "b32", format!("{atomicity}"));
    k + &line("fill_mode", "b32", format!("{}", u32::from(s.nan_fill)))
}

/// The host's map for an `edit_fields` case: a shape unlike every case's.
fn decoy_shape() -> Spec {
    spec(U16, &[40], &[], &[16], &[0])
}

/// The kernel's edit of its map (in global memory at `%rd3`) to name the tensor at `taddr`
/// (and to describe `fields`' shape, if given).
fn replace(how: Option<bool>, fields: Option<&Spec>) -> String {
    let Some(staged) = how else {
        return String::new();
    };
    let mut k = String::from("\tld.param.u64 %rd7, [taddr];\n\t@%p1 bra EDITED;\n");
    if staged {
        for w in 0..16 {
            k += &format!(
                "\tld.global.u64 %rd6, [%rd3+{o}];\n\tst.shared.u64 [smap+{o}], %rd6;\n",
                o = 8 * w
            );
        }
        k += "\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [smap], %rd7;\n";
        if let Some(f) = fields {
            k += &field_edits(f, "shared::cta", "smap");
        }
        k += "EDITED:\n\tbar.sync 0;\n\tsetp.ge.u32 %p2, %r1, 32;\n\t@%p2 bra COPIED;\n\
              \ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
              [%rd3], [smap], 128;\nCOPIED:\n";
    } else {
        k += "\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd3], %rd7;\n";
        if let Some(f) = fields {
            k += &field_edits(f, "global", "%rd3");
        }
        k += "\tfence.proxy.tensormap::generic.release.gpu;\nEDITED:\n";
    }
    k + "\tbar.sync 0;\n\tfence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;\n"
}

fn map(s: &Spec, address: u64) -> Result<Vec<u8>, String> {
    encode_tiled(&Tiled {
        data_type: s.data_type,
        address,
        dims: &s.dims,
        strides: &s.strides,
        box_dims: &s.box_dims,
        element_strides: &s.element_strides,
        interleave: 0,
        swizzle: s.swizzle,
        l2_promotion: 0,
        oob_fill: u32::from(s.nan_fill),
    })
    .map(|m| m.to_vec())
    .map_err(|e| format!("the case's tensor map: {e}"))
}

/// The first byte where `got` differs from `want`, the NaN slots of a load compared as NaNs.
pub(super) fn compare(s: &Spec, got: &[u8], want: &Loaded, what: &str) -> Outcome {
    let e = s.esize();
    for &at in &want.nans {
        if !s.is_nan(&got[at..at + e]) {
            return Outcome::Fail(format!(
                "{what}: bytes {at}..{}: expected a NaN fill, got {:02x?}",
                at + e,
                &got[at..at + e]
            ));
        }
    }
    let nan_byte = |i: usize| want.nans.iter().any(|&a| (a..a + e).contains(&i));
    match (0..want.bytes.len()).find(|&i| got[i] != want.bytes[i] && !nan_byte(i)) {
        None => Outcome::Pass,
        Some(i) => {
            let at = i / e * e;
            Outcome::Fail(format!(
                "{what}: bytes {at}..{}: expected {:02x?}, got {:02x?}",
                at + e,
                &want.bytes[at..at + e],
                &got[at..at + e]
            ))
        }
    }
}

fn run(
    ctx: &Context,
    name: &str,
    ptx: &str,
    s: &Spec,
    load: bool,
    form: Form,
) -> Result<Outcome, ptxvk_runtime::Error> {
    let module = ctx.load_ptx(&format!("{}.ptx", name.replace('/', "_")), ptx)?;
    let kernel = module.kernel("k")?;
    let before = pattern(s.tensor_bytes(), 0x51);
    let tensor = Buffer::new(ctx, before.len().max(4) as u64)?;
    tensor.write_bytes(0, &before)?;
    // A tensor the map names before the kernel's `tensormap.replace`, if it has one.
    let decoy = Buffer::new(ctx, before.len().max(4) as u64)?;
    decoy.write_bytes(0, &pattern(before.len(), 0x3d))?;
    let named = if form.replace.is_some() {
        decoy.address()
    } else {
        tensor.address()
    };
    let encoded = if form.edit_fields { &decoy_shape() } else { s };
    let map = match map(encoded, named) {
        Ok(m) => m,
        Err(e) => return Ok(Outcome::Fail(e)),
    };
    let n = s.box_bytes();
    let (before, tile) = match form.reduce {
        Some(op) => (
            reduce_inputs(s.data_type, op, before.len(), 0x51),
            reduce_inputs(s.data_type, op, n, 0x2c7),
        ),
        None => (before, pattern(n, 0x2c7)),
    };
    tensor.write_bytes(0, &before)?;
    let io = Buffer::new(ctx, (n + 4) as u64)?;
    io.write_bytes(
        0,
        &if load {
            vec![0xa5; n + 4]
        } else {
            tile.clone()
        },
    )?;
    let map_buf = Buffer::new(ctx, 128)?;
    let map_arg = if form.map_in_global || form.replace.is_some() {
        map_buf.write_bytes(0, &map)?;
        KernelArg::Ptr(map_buf.address())
    } else {
        KernelArg::Bytes(map)
    };
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
    };
    let mut args = vec![map_arg, (&io).into(), KernelArg::U32(n as u32)];
    if form.replace.is_some() {
        args.push(KernelArg::U64(tensor.address()));
    }
    kernel.launch(&cfg, &args)?;
    if load {
        return loaded(&io, n, s, &s.load(&before), "shared box");
    }
    let want = match form.reduce {
        Some(op) => s.reduce(&before, &tile, op),
        None => s.store(&before, &tile),
    };
    stored(&tensor, s, want)
}

/// The `n` bytes a load left in `io`, against `want`, once the mbarrier word the kernel wrote
/// after them says its phase completed.
pub(super) fn loaded(
    io: &Buffer,
    n: usize,
    s: &Spec,
    want: &Loaded,
    what: &str,
) -> Result<Outcome, ptxvk_runtime::Error> {
    let mut got = vec![0u8; n + 4];
    io.read_bytes(0, &mut got)?;
    if got[n..] != [1, 0, 0, 0] {
        return Ok(Outcome::Fail(format!(
            "the mbarrier's phase did not complete after {n} transaction bytes"
        )));
    }
    Ok(compare(s, &got[..n], want, what))
}

/// The tensor a store or reduction wrote, against `want`, all of it.
pub(super) fn stored(
    tensor: &Buffer,
    s: &Spec,
    want: Vec<u8>,
) -> Result<Outcome, ptxvk_runtime::Error> {
    let mut got = vec![0u8; want.len()];
    tensor.read_bytes(0, &mut got)?;
    let want = Loaded {
        bytes: want,
        nans: Vec::new(),
    };
    Ok(compare(s, &got, &want, "tensor"))
}

fn case(name: &str, s: &Spec, load: bool, form: Form) -> Case {
    let dir = match (load, form.reduce) {
        (true, _) => "load".to_string(),
        (false, Some(op)) => format!("reduce.{}", op.name()),
        (false, None) => "store".to_string(),
    };
    let name = format!("tensor/{dir}/{}d/{name}", s.rank());
    let ptx = kernel(s, load, form);
    let (n, p, s) = (name.clone(), ptx.clone(), s.clone());
    Case {
        name,
        family: FAMILY,
        ptx,
        run: Box::new(move |ctx| run(ctx, &n, &p, &s, load, form).unwrap_or_else(outcome_of)),
    }
}

fn spec(data_type: u32, dims: &[u64], strides: &[u64], boxes: &[u32], coords: &[i32]) -> Spec {
    Spec {
        data_type,
        dims: dims.to_vec(),
        strides: strides.to_vec(),
        box_dims: boxes.to_vec(),
        element_strides: vec![1; dims.len()],
        swizzle: 0,
        nan_fill: false,
        coords: coords.to_vec(),
    }
}

/// The boxes each run as a load and as a store.
fn specs() -> Vec<(&'static str, Spec)> {
    let mut v = vec![
        // Over the end of a row of f32.
        ("f32-past-end", spec(F32, &[10], &[], &[8], &[6])),
        // u8 from before the start: no word of the box is aligned in global memory.
        ("u8-before-start", spec(U8, &[40], &[], &[16], &[-5])),
        ("u64-inside", spec(U64, &[9], &[], &[4], &[3])),
        // Over the left and bottom edges, rows padded to 64 bytes.
        ("f32-corner", spec(F32, &[13, 10], &[64], &[8, 4], &[-3, 8])),
        // Wholly outside.
        ("s32-outside", spec(S32, &[4, 4], &[16], &[4, 2], &[0, 9])),
        (
            "u16-past-depth",
            spec(U16, &[8, 5, 3], &[32, 160], &[8, 4, 2], &[4, 3, 2]),
        ),
        (
            "u32-four-edges",
            spec(
                U32,
                &[6, 3, 5, 2],
                &[32, 96, 480],
                &[4, 2, 2, 2],
                &[4, -1, 4, 1],
            ),
        ),
        (
            "u16-five",
            spec(
                U16,
                &[8, 3, 2, 2, 3],
                &[16, 48, 96, 192],
                &[8, 2, 2, 2, 2],
                &[0, 1, 0, 1, 2],
            ),
        ),
    ];
    // Element strides (the first is ignored): every second and third element.
    let mut strided = spec(F16, &[20, 9, 7], &[48, 48 * 9], &[8, 5, 3], &[4, 1, 2]);
    strided.element_strides = vec![4, 2, 3];
    v.push(("f16-element-strides", strided));
    let mut strided5 = spec(
        F32,
        &[8, 5, 4, 3, 3],
        &[32, 160, 640, 1920],
        &[4, 3, 2, 3, 2],
        &[6, 0, -1, 1, 1],
    );
    strided5.element_strides = vec![1, 2, 3, 2, 2];
    v.push(("f32-element-strides", strided5));
    // NaN fill of each float size.
    for (name, dt, dims, strides, boxes) in [
        ("f32-nan-fill", F32, [6u64, 5], [32u64], [8u32, 4]),
        ("bf16-nan-fill", BF16, [12, 5], [32], [16, 2]),
        ("f16-nan-fill", F16, [5, 5], [16], [8, 3]),
        ("f64-nan-fill", F64, [3, 5], [32], [2, 3]),
    ] {
        let mut n = spec(dt, &dims, &strides, &boxes, &[-1, 3]);
        n.nan_fill = true;
        v.push((name, n));
    }
    // Each swizzle span with rows as wide as it, over 16 rows (two repeats of the 128B one),
    // the box over the tensor's right edge.
    for (name, swizzle, width) in [
        ("swizzle-32b", 1u32, 8u32),
        ("swizzle-64b", 2, 16),
        ("swizzle-128b", 3, 32),
        ("swizzle-128b-atom-32b", 4, 32),
        ("swizzle-128b-atom-64b", 6, 32),
    ] {
        let mut s = spec(
            F32,
            &[40, 20],
            &[160],
            &[width, 16],
            &[40 - width as i32 + 3, 3],
        );
        s.swizzle = swizzle;
        v.push((name, s));
    }
    v
}

/// Each operator on each element type the ISA lists for it, the rank cycling through 1-5 and
/// the box over the tensor's edges; one with the 128-byte swizzle.
fn reductions() -> Vec<Case> {
    let mut v = Vec::new();
    let mut k = 0usize;
    for op in Red::ALL {
        for &dt in op.types() {
            let e: u64 = match dt {
                F16 | BF16 => 2,
                U64 | super::tensor_model::S64 => 8,
                _ => 4,
            };
            let row = 16 / e as u32;
            let mut s = match k % 5 {
                0 => spec(
                    dt,
                    &[3 * u64::from(row)],
                    &[],
                    &[2 * row],
                    &[u64::from(row) as i32 * 2],
                ),
                1 => spec(dt, &[u64::from(row) + 3, 5], &[64], &[row, 3], &[-2, 3]),
                2 => spec(
                    dt,
                    &[u64::from(row), 3, 4],
                    &[32, 96],
                    &[row, 2, 2],
                    &[1, -1, 3],
                ),
                3 => spec(
                    dt,
                    &[u64::from(row), 2, 2, 3],
                    &[32, 64, 128],
                    &[row, 2, 2, 2],
                    &[0, 1, 0, 2],
                ),
                _ => spec(
                    dt,
                    &[u64::from(row), 2, 2, 2, 2],
                    &[16, 32, 64, 128],
                    &[row, 2, 1, 2, 2],
                    &[-1, 0, 1, 1, 1],
                ),
            };
            if op == Red::Add && dt == F32 {
                s = spec(F32, &[40, 20], &[160], &[32, 16], &[11, 7]);
                s.swizzle = 3;
            }
            let name = [
                "u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16",
            ][dt as usize];
            let form = Form {
                reduce: Some(op),
                ..Form::default()
            };
            v.push(case(name, &s, false, form));
            k += 1;
        }
    }
    v
}

/// A kernel around one tensor instruction, for the rejected forms.
fn module(line: &str) -> String {
    rejection_module(HEADER, line)
}

/// A module of `header` whose kernel has a map parameter, registers, a shared tile and an
/// mbarrier around `line`: what a rejected tensor instruction needs to be otherwise valid.
pub(super) fn rejection_module(header: &str, line: &str) -> String {
    format!(
        "{header}.visible .entry k(.param .align 64 .b8 m[128])\n{{\n\t.reg .b32 %r<4>;\n\
         \t.reg .b64 %rd<4>;\n\t.shared .align 1024 .b8 t[1024];\n\t.shared .align 8 .b64 b;\n\
         \tmov.b64 %rd1, m;\n{line}\n\tret;\n}}\n"
    )
}

fn rejections() -> Vec<Case> {
    [
        // ".dim = { .1d, .2d, .3d, .4d, .5d }", with as many coordinates.
        (
            "three-coordinates-for-2d",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1}], [b];",
            "[%rd1, {%r1, %r1, %r1}]",
        ),
        // Loads complete on an mbarrier, stores in bulk async-groups.
        (
            "store-with-mbarrier",
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.mbarrier::complete_tx::bytes \
             [%rd1, {%r1}], [t];",
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.mbarrier::complete_tx::bytes",
        ),
        // "Each bit position in the 16-bit ctaMask operand corresponds to the %cluster_ctarank
        // of the destination CTA": ptxvk's clusters have only rank 0.
        (
            "multicast-to-other-ctas",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
             [t], [%rd1, {%r1}], [b], 3;",
            "3",
        ),
        // ".completion_mechanism = { .mbarrier::complete_tx::bytes }" for loads: not optional.
        (
            "load-without-completion",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile [t], [%rd1, {%r1}], [b];",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "tensor/rejected", module, form))
    .collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (k, (name, s)) in specs().into_iter().enumerate() {
        // Loads and stores alternate in pairs so that the quick subset (every fourth case)
        // holds both.
        let first_load = k / 2 % 2 == 0;
        v.push(case(name, &s, first_load, Form::default()));
        v.push(case(name, &s, !first_load, Form::default()));
    }
    // The other ways to write the instruction, on one box each.
    let edge = spec(F32, &[13, 10], &[64], &[8, 4], &[-3, 8]);
    let forms = [
        (
            "map-in-global",
            Form {
                map_in_global: true,
                ..Form::default()
            },
        ),
        (
            "hint-prefetch-no-tile",
            Form {
                hint: true,
                prefetch: true,
                no_tile: true,
                ..Form::default()
            },
        ),
    ];
    for (name, form) in forms {
        v.push(case(name, &edge, true, form));
        v.push(case(name, &edge, false, form));
    }
    let cta = Form {
        cta_dst: true,
        ..Form::default()
    };
    v.push(case("shared-cta", &edge, true, cta));
    // Multicast to the one-block cluster: its CTA, rank 0, is the destination.
    for (name, in_register) in [("multicast", false), ("multicast-mask-register", true)] {
        let form = Form {
            multicast: Some(in_register),
            hint: in_register,
            ..Form::default()
        };
        v.push(case(name, &edge, true, form));
    }
    let hinted = Form {
        hint: true,
        prefetch: true,
        ..Form::default()
    };
    let five = spec(
        U8,
        &[40, 3, 2, 3, 2],
        &[48, 144, 288, 864],
        &[32, 2, 2, 2, 2],
        &[20, 2, 1, 1, 1],
    );
    v.push(case("u8-prefetch-hint", &five, true, hinted));
    for (name, staged) in [
        ("tensormap-replace", false),
        ("tensormap-replace-shared", true),
    ] {
        let form = Form {
            replace: Some(staged),
            ..Form::default()
        };
        v.push(case(name, &edge, true, form));
    }
    // Every field rewritten, in global memory and in shared memory: a strided 3-d f16 box
    // with NaN fill loaded, and a swizzled 2-d f32 box stored.
    let mut strided = spec(F16, &[20, 9, 7], &[48, 48 * 9], &[8, 5, 3], &[4, 1, 2]);
    strided.element_strides = vec![4, 2, 3];
    strided.nan_fill = true;
    let mut swizzled = spec(F32, &[40, 20], &[160], &[32, 16], &[11, 3]);
    swizzled.swizzle = 3;
    // The swizzle's span and atom written as two fields.
    let mut atoms = swizzled.clone();
    atoms.swizzle = 4;
    v.push(case(
        "tensormap-replace-fields-atom-32b",
        &atoms,
        true,
        Form {
            replace: Some(false),
            edit_fields: true,
            ..Form::default()
        },
    ));
    for (name, staged) in [
        ("tensormap-replace-fields", false),
        ("tensormap-replace-fields-shared", true),
    ] {
        let form = Form {
            replace: Some(staged),
            edit_fields: true,
            ..Form::default()
        };
        v.push(case(name, &strided, true, form));
        v.push(case(name, &swizzled, false, form));
    }
    v.extend(reductions());
    v.extend(rejections());
    v
}
