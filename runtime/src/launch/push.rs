//! What a launch tells the kernel besides its parameters: the memory facts it proves, the
//! memory checker's table of live allocations, and the push-constant block.

use ptxvk_translator::abi;

use super::config::LaunchConfig;
use crate::error::{Error, Result};

/// The kernel's memory facts this launch proves: those whose ranges of addresses each lie in
/// one live allocation (`ptxvk_translator::memfacts`).
pub(super) fn proven_facts(
    vk: &crate::context::Vk,
    facts: &ptxvk_translator::memfacts::MemFacts,
    params: &[u8],
    cfg: &LaunchConfig,
) -> Result<u64> {
    if facts.facts.is_empty() {
        return Ok(0);
    }
    let live = vk.allocations.lock().map_err(|_| Error::DeviceLost)?;
    let launch = ptxvk_translator::memfacts::Launch {
        params,
        block: cfg.block,
        grid: cfg.grid,
        dynamic_shared: cfg.shared_bytes,
    };
    Ok(facts.proven(&launch, |start, end| {
        live.range(..=start)
            .next_back()
            .is_some_and(|(_, &e)| end <= e)
    }))
}

/// The memory checker's view of the live allocations: the `abi::PUSH_MEM_HINTS` ranges (the
/// allocations the parameter block's 8-byte words and the module's globals point into) and the
/// table `abi::PUSH_MEM_TABLE` (every live allocation as `[start, end)` pairs of u64 in address
/// order, padded to a power of two with empty ranges at the top of the address space).
pub(super) fn allocation_table(
    vk: &crate::context::Vk,
    params: &[u8],
    globals: u64,
) -> Result<MemTable> {
    let live = vk.allocations.lock().map_err(|_| Error::DeviceLost)?;
    let mut hints = [(u64::MAX, u64::MAX); abi::MEM_HINTS as usize];
    let mut used = 0;
    let words = params
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
    for v in std::iter::once(globals).chain(words) {
        if used == hints.len() {
            break;
        }
        if let Some((&start, &end)) = live.range(..=v).next_back()
            && v < end
            && !hints[..used].contains(&(start, end))
        {
            hints[used] = (start, end);
            used += 1;
        }
    }
    let n = live.len().max(1).next_power_of_two();
    let mut table = Vec::with_capacity(n * 16);
    let padding = std::iter::repeat_n((&u64::MAX, &u64::MAX), n - live.len());
    for (start, end) in live.iter().chain(padding) {
        table.extend_from_slice(&start.to_le_bytes());
        table.extend_from_slice(&end.to_le_bytes());
    }
    Ok(MemTable {
        table,
        len: n as u32,
        hints,
    })
}

/// What [`allocation_table`] gives a launch.
pub(super) struct MemTable {
    pub(super) table: Vec<u8>,
    len: u32,
    hints: [(u64, u64); abi::MEM_HINTS as usize],
}

/// The push-constant block of `ptxvk_translator::abi`.
pub(super) fn push_constants(
    param_addr: u64,
    base: [u32; 3],
    grid: [u32; 3],
    globals_addr: u64,
    status_addr: u64,
    mem: Option<&(u64, MemTable)>,
) -> [u8; abi::PUSH_CONSTANT_SIZE as usize] {
    let mut p = [0u8; abi::PUSH_CONSTANT_SIZE as usize];
    let at = |o: u32| o as usize;
    p[at(abi::PUSH_PARAM_BASE)..at(abi::PUSH_PARAM_BASE) + 8]
        .copy_from_slice(&param_addr.to_le_bytes());
    let g = at(abi::PUSH_GLOBALS_BASE);
    p[g..g + 8].copy_from_slice(&globals_addr.to_le_bytes());
    let s = at(abi::PUSH_STATUS_ADDRESS);
    p[s..s + 8].copy_from_slice(&status_addr.to_le_bytes());
    if let Some((table_addr, m)) = mem {
        let t = at(abi::PUSH_MEM_TABLE);
        p[t..t + 8].copy_from_slice(&table_addr.to_le_bytes());
        let c = at(abi::PUSH_MEM_COUNT);
        p[c..c + 4].copy_from_slice(&m.len.to_le_bytes());
        for (i, (start, end)) in m.hints.iter().enumerate() {
            let h = at(abi::PUSH_MEM_HINTS) + 16 * i;
            p[h..h + 8].copy_from_slice(&start.to_le_bytes());
            p[h + 8..h + 16].copy_from_slice(&end.to_le_bytes());
        }
    }
    for i in 0..3 {
        let b = at(abi::PUSH_CTA_BASE) + 4 * i;
        p[b..b + 4].copy_from_slice(&base[i].to_le_bytes());
        let g = at(abi::PUSH_GRID_DIM) + 4 * i;
        p[g..g + 4].copy_from_slice(&grid[i].to_le_bytes());
    }
    p
}
