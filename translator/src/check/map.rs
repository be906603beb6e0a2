//! The checker's hash map.

use std::collections::HashMap;

/// A hash map with FxHash, as in rustc: the checker's maps are keyed by short names, where
/// SipHash's resistance to chosen keys buys nothing and its cost showed up in the parse
/// benchmark; the later passes' maps are keyed by ids. (A copy of FxHash 1.x used here gave names
/// of exactly 8 bytes nearly the same low bits: 100,000 labels such as `LBL00000` took 14x as
/// long to check as 7- or 9-byte ones.)
pub type Map<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    /// Names of one length that differ only in their last bytes spread over a table's buckets
    /// (the low bits of the hash) as well as names of other lengths do.
    #[test]
    fn names_of_every_length_spread_over_buckets() {
        let h = rustc_hash::FxBuildHasher;
        for width in [5, 6, 7, 8, 9, 16] {
            let mut buckets = std::collections::HashSet::new();
            for i in 0..20_000u32 {
                let name = format!("L{i:0w$}", w = width - 1);
                buckets.insert(h.hash_one(name.as_str()) & 0xffff);
            }
            assert!(
                buckets.len() > 15_000,
                "{width}-byte names: {} buckets",
                buckets.len()
            );
        }
    }
}
