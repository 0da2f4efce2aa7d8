//! A hash table in [`SHARDS`] shards behind `Rc`s: the engine's hash indexes, which time-travel
//! checkpoints share.
//!
//! Each shard is a hashbrown `HashTable`; a key's shard is picked by bits of its hash that the
//! shard's own table does not use (hashbrown takes a bucket from the low bits and a tag from the
//! top 7). A checkpoint's clone copies [`SHARDS`] pointers instead of the whole table, a write
//! after it copies only its shard (`Rc::make_mut`), and a table grows one shard at a time: a
//! single table of 300 k rows that doubled at once paused a run for 8–16 ms
//! (`examples/slow_steps.rs`, measured 2026-12-03).

use hashbrown::HashTable;
use std::rc::Rc;

/// Shards per table.
pub const SHARDS: usize = 256;

/// A hash table split by hash into [`SHARDS`] shards (see the module's doc). Callers use the
/// shard of a hash as the `HashTable` it is.
#[derive(Debug, Clone)]
pub struct ShardedTable<T: 'static> {
    shards: Vec<Rc<HashTable<T>>>,
}

/// Dropped by [`super::drop_later::drop_in_parts`], the shards it alone holds are buried for
/// [`super::drop_later::sweep`] to free later, a few per call.
impl<T: 'static> Drop for ShardedTable<T> {
    fn drop(&mut self) {
        if super::drop_later::burying() {
            self.shards.drain(..).for_each(super::drop_later::bury);
        }
    }
}

impl<T: 'static> Default for ShardedTable<T> {
    fn default() -> Self {
        // One empty table shared by every shard: a shard gets its own at its first write.
        #[allow(clippy::rc_clone_in_vec_init)]
        ShardedTable { shards: vec![Rc::new(HashTable::new()); SHARDS] }
    }
}

/// The shard of `hash`: the top bits of its two halves folded and mixed (murmur3's `fmix32`, a
/// bijection where every bit of the input moves every bit of the output), so the entries of a
/// shard still spread over the bits hashbrown takes (the low ones for a bucket, the top 7 of a
/// `usize` for a tag). The fold matters in wasm: `usize` is 32 bits there, so an FxHash is too
/// (its high half is 0); shards picked by the high bits (as until 2026-12-04) put every entry in
/// shard 0, and in the page a table grew and was copied after a checkpoint whole (trial 24's
/// 107 ms task in a slice of Compare on the Top-N pair, 334 676 keys a side).
fn shard_of(hash: u64) -> usize {
    let mut h = (hash as u32) ^ ((hash >> 32) as u32);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^= h >> 16;
    (h >> (32 - SHARDS.trailing_zeros())) as usize
}

impl<T: Clone + 'static> ShardedTable<T> {
    /// The shard holding `hash`'s entries.
    #[inline]
    pub fn shard(&self, hash: u64) -> &HashTable<T> {
        &self.shards[shard_of(hash)]
    }

    /// The shard holding `hash`'s entries, for writing: copied first if a clone shares it.
    #[inline]
    pub fn shard_mut(&mut self, hash: u64) -> &mut HashTable<T> {
        Rc::make_mut(&mut self.shards[shard_of(hash)])
    }

    /// Every entry, shard by shard.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.shards.iter().flat_map(|s| s.iter())
    }

    pub fn clear(&mut self) {
        *self = ShardedTable::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(i: u64) -> u64 {
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    #[test]
    fn entries_spread_over_the_shards_and_a_clone_shares_the_untouched_ones() {
        let mut t: ShardedTable<u64> = ShardedTable::default();
        for i in 0..100_000 {
            t.shard_mut(hash(i)).insert_unique(hash(i), i, |&v| hash(v));
        }
        let sizes: Vec<usize> = t.shards.iter().map(|s| s.len()).collect();
        assert!(sizes.iter().all(|&n| (250..=550).contains(&n)), "{sizes:?}");
        let before = t.clone();
        let found = t.shard_mut(hash(7)).find_entry(hash(7), |&v| v == 7).ok().map(|e| e.remove().0);
        assert_eq!(found, Some(7));
        assert_eq!(t.shard(hash(7)).find(hash(7), |&v| v == 7), None);
        assert_eq!(before.shard(hash(7)).find(hash(7), |&v| v == 7), Some(&7));
        let shared = before.shards.iter().zip(&t.shards).filter(|(a, b)| Rc::ptr_eq(a, b)).count();
        assert_eq!(shared, SHARDS - 1);
        assert_eq!(t.iter().count(), 99_999);
    }

    /// A hash of 32 bits (an FxHash in wasm, where `usize` is 32 bits) spreads as well: the high
    /// half is not what picks the shard (until 2026-12-04 every such entry went to shard 0).
    #[test]
    fn hashes_of_32_bits_spread_over_the_shards_too() {
        use std::hash::BuildHasher;
        let mut t: ShardedTable<u64> = ShardedTable::default();
        let fx32 = |i: u64| {
            // rustc-hash's FxHasher on a 32-bit target: one multiply-add per word, a rotate.
            let h = (i as u32 ^ (i >> 32) as u32).wrapping_mul(0x93d7_65dd);
            u64::from(h.rotate_left(15))
        };
        for i in 0..100_000u64 {
            t.shard_mut(fx32(i)).insert_unique(fx32(i), i, |&v| fx32(v));
        }
        let sizes: Vec<usize> = t.shards.iter().map(|s| s.len()).collect();
        assert!(sizes.iter().all(|&n| (250..=550).contains(&n)), "{sizes:?}");
        // And the 64-bit FxHash of short strings, natively.
        let mut t: ShardedTable<u64> = ShardedTable::default();
        let fx = |i: u64| rustc_hash::FxBuildHasher.hash_one(format!("order-{i}"));
        for i in 0..100_000u64 {
            t.shard_mut(fx(i)).insert_unique(fx(i), i, |&v| fx(v));
        }
        let sizes: Vec<usize> = t.shards.iter().map(|s| s.len()).collect();
        assert!(sizes.iter().all(|&n| (250..=550).contains(&n)), "{sizes:?}");
    }
}
