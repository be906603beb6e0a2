//! Measuring what Vulkan leaves to the driver (`shaders/probe.ptx`).

use crate::context::Context;
use crate::error::Result;
use crate::launch::LaunchConfig;
use crate::memory::Buffer;

const PROBES: &str = include_str!("../../shaders/probe.ptx");

/// What the probes found.
pub(crate) struct Probed {
    pub fused_fma32: bool,
    pub fused_fma64: bool,
    /// The iterations after which the driver ends loops, where it does.
    pub loop_limit: Option<u32>,
}

/// How far `probe_loop` counts: past Mesa 22.3's 65,535, cheap everywhere else.
const LOOP_PROBE_TRIPS: u32 = 70_000;

/// Runs the probes on `ctx`, whose profile must claim every probed feature (so that the native
/// instruction is what runs).
pub(crate) fn run(ctx: &Context) -> Result<Probed> {
    let module = ctx.load_ptx("probe.ptx", PROBES)?;
    let one_cfg = LaunchConfig::for_num_elems(1, 1);

    let buf = Buffer::new(ctx, 32)?;
    let a = 1.0f32 + (-12f32).exp2();
    let c = -(1.0f32 + (-11f32).exp2());
    let mut bytes = Vec::new();
    for v in [a, a, c, 0.0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    buf.write_bytes(0, &bytes)?;
    module
        .kernel("probe_fma32")?
        .launch(&one_cfg, &[(&buf).into()])?;
    let mut out = [0u8; 4];
    buf.read_bytes(12, &mut out)?;
    let fused_fma32 = f32::from_le_bytes(out) == (-24f32).exp2();

    let fused_fma64 = if ctx.profile().float64 {
        let a = 1.0f64 + (-27f64).exp2();
        let c = -(1.0f64 + (-26f64).exp2());
        let mut bytes = Vec::new();
        for v in [a, a, c, 0.0] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        buf.write_bytes(0, &bytes)?;
        module
            .kernel("probe_fma64")?
            .launch(&one_cfg, &[(&buf).into()])?;
        let mut out = [0u8; 8];
        buf.read_bytes(24, &mut out)?;
        f64::from_le_bytes(out) == (-54f64).exp2()
    } else {
        false
    };
    buf.write_bytes(0, &LOOP_PROBE_TRIPS.to_le_bytes())?;
    module
        .kernel("probe_loop")?
        .launch(&one_cfg, &[(&buf).into()])?;
    let mut out = [0u8; 4];
    buf.read_bytes(4, &mut out)?;
    let counted = u32::from_le_bytes(out);
    let loop_limit = (counted < LOOP_PROBE_TRIPS).then_some(counted);
    Ok(Probed {
        fused_fma32,
        fused_fma64,
        loop_limit,
    })
}
