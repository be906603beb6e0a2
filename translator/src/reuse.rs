//! Vectors kept from one kernel's translation for the next (see `lower/kept.rs` for why): the one
//! rule every pass's kept buffers follow, in a file of its own so that the passes need not
//! import the holder of all their buffers.

/// `v` emptied if it has room for `n`, else a new vector with that room. A kept vector is never
/// grown: growing reallocates, and the allocator copies the old vector's whole capacity (it
/// cannot know the vector is empty).
pub(crate) fn reuse<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
    if v.capacity() < n {
        return Vec::with_capacity(n);
    }
    v.clear();
    v
}
