//! Registered handles. Every CUDA object a caller holds is an id in a table; a call looks the id
//! up, so a stale (destroyed) or forged handle is reported as `CUDA_ERROR_INVALID_HANDLE`
//! instead of being dereferenced. Ids are never reused, and one counter serves every table, so
//! a module handle passed where a stream is expected is not found either.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::error::{CuError, CuResult};

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// Counts removals from every table, each counted after its entry is gone: a lookup cached
/// with the count read before it is still valid while the count is unchanged (a handle's
/// object is only ever removed, never replaced).
static REMOVALS: AtomicU64 = AtomicU64::new(0);

/// The removal count, to read before a lookup whose result is cached.
pub fn removals() -> u64 {
    REMOVALS.load(Ordering::Acquire)
}

fn removed() {
    REMOVALS.fetch_add(1, Ordering::AcqRel);
    // The calling thread's cached lookups go now rather than at its next launch, so that an
    // object it destroyed (a context and its device) is released promptly.
    crate::launch_cache::forget();
}

/// Handles of one kind.
pub struct Table<T> {
    what: &'static str,
    map: RwLock<BTreeMap<usize, Arc<T>>>,
}

impl<T> Table<T> {
    /// `what` names the kind in error messages ("module", "stream", ...).
    pub const fn new(what: &'static str) -> Table<T> {
        Table {
            what,
            map: RwLock::new(BTreeMap::new()),
        }
    }

    /// Registers `value` under a new id, which looks like an aligned pointer (a multiple of
    /// 256) and is never zero, so callers that test handles for NULL keep working.
    pub fn insert(&self, value: T) -> (usize, Arc<T>) {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed) << 8;
        let value = Arc::new(value);
        self.write().insert(id, value.clone());
        (id, value)
    }

    pub fn get(&self, id: usize) -> CuResult<Arc<T>> {
        self.read()
            .get(&id)
            .cloned()
            .ok_or(CuError::InvalidHandle(self.what))
    }

    pub fn remove(&self, id: usize) -> CuResult<Arc<T>> {
        let value = self.write().remove(&id);
        let value = value.ok_or(CuError::InvalidHandle(self.what))?;
        removed();
        Ok(value)
    }

    /// Every entry, with its id.
    pub fn all(&self) -> Vec<(usize, Arc<T>)> {
        self.read().iter().map(|(&id, v)| (id, v.clone())).collect()
    }

    /// Removes every entry `drop_it` selects (the functions of an unloaded module, ...).
    pub fn remove_where(&self, mut drop_it: impl FnMut(&T) -> bool) {
        let gone = {
            let mut map = self.write();
            let before = map.len();
            map.retain(|_, v| !drop_it(v));
            before != map.len()
        };
        if gone {
            removed();
        }
    }

    // A panic while a table was locked leaves it usable: entries are inserted and removed
    // whole, so the map is never half-updated.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<usize, Arc<T>>> {
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<usize, Arc<T>>> {
        self.map.write().unwrap_or_else(|p| p.into_inner())
    }
}
