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

fn shard_of(hash: u64) -> usize {
    (hash >> 48) as usize & (SHARDS - 1)
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
}
