//! ISA 9.7.9.25.5 `cp.async.bulk.tensor` in the `.tile` mode: boxes of every rank loaded into
//! shared memory (completing an mbarrier's transaction) and stored back, over the tensor's
//! edges, with zero and NaN fill, element strides and each swizzle mode; and
//! `cp.reduce.async.bulk.tensor` with each operator on each element type the ISA lists for it;
//! checked against the model in `tensor_model.rs`. The tensor maps are made by the encoder libcuda's
//! `cuTensorMapEncodeTiled` uses (the input a CUDA program would pass), which also checks that
//! each case's map is one CUDA accepts; the expected boxes come from the model alone.

mod forms;

pub(super) use forms::cases;

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

/// A module of `header` whose kernel has a map parameter, registers, a shared tile and an
/// mbarrier around `line`: what a rejected tensor instruction needs to be otherwise valid.
pub(super) fn rejection_module(header: &str, line: &str) -> String {
    format!(
        "{header}.visible .entry k(.param .align 64 .b8 m[128])\n{{\n\t.reg .b32 %r<4>;\n\
         \t.reg .b64 %rd<4>;\n\t.shared .align 1024 .b8 t[1024];\n\t.shared .align 8 .b64 b;\n\
         \tmov.b64 %rd1, m;\n{line}\n\tret;\n}}\n"
    )
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
