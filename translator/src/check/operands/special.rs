//! The special registers, by name.

use crate::check::typed::*;
use crate::types::ScalarType;

/// Special registers: name, whether it has `.x/.y/.z` components, and its type.
pub fn special_register(name: &str) -> Option<(SpecialReg, bool, ScalarType)> {
    use ScalarType::*;
    use SpecialReg::*;
    Some(match name {
        "%tid" => (Tid, true, U32),
        "%ntid" => (Ntid, true, U32),
        "%ctaid" => (Ctaid, true, U32),
        "%nctaid" => (Nctaid, true, U32),
        "%laneid" => (LaneId, false, U32),
        "%warpid" => (WarpId, false, U32),
        "%nwarpid" => (NWarpId, false, U32),
        "%smid" => (SmId, false, U32),
        "%nsmid" => (NSmId, false, U32),
        "%gridid" => (GridId, false, U64),
        "%lanemask_eq" => (LanemaskEq, false, U32),
        "%lanemask_le" => (LanemaskLe, false, U32),
        "%lanemask_lt" => (LanemaskLt, false, U32),
        "%lanemask_ge" => (LanemaskGe, false, U32),
        "%lanemask_gt" => (LanemaskGt, false, U32),
        "%clock" => (Clock, false, U32),
        "%clock_hi" => (ClockHi, false, U32),
        "%clock64" => (Clock64, false, U64),
        "%globaltimer" => (GlobalTimer, false, U64),
        "%globaltimer_lo" => (GlobalTimerLo, false, U32),
        "%globaltimer_hi" => (GlobalTimerHi, false, U32),
        "%dynamic_smem_size" => (DynamicSmemSize, false, U32),
        "%total_smem_size" => (TotalSmemSize, false, U32),
        "WARP_SZ" | "%WARP_SZ" => (WarpSize, false, U32),
        "%clusterid" => (ClusterId, true, U32),
        "%nclusterid" => (NClusterId, true, U32),
        "%cluster_ctaid" => (ClusterCtaId, true, U32),
        "%cluster_nctaid" => (ClusterNCtaId, true, U32),
        "%cluster_ctarank" => (ClusterCtaRank, false, U32),
        "%cluster_nctarank" => (ClusterNCtaRank, false, U32),
        "%is_explicit_cluster" => (IsExplicitCluster, false, Pred),
        _ => {
            if let Some(n) = name.strip_prefix("%envreg") {
                let n: u8 = n.parse().ok().filter(|n| *n < 32)?;
                (EnvReg(n), false, B32)
            } else if let Some(n) = name.strip_prefix("%pm").and_then(|n| n.strip_suffix("_64")) {
                let n: u8 = n.parse().ok().filter(|n| *n < 8)?;
                (Pm64(n), false, U64)
            } else if let Some(n) = name.strip_prefix("%pm") {
                let n: u8 = n.parse().ok().filter(|n| *n < 8)?;
                (Pm(n), false, U32)
            } else {
                return None;
            }
        }
    })
}
