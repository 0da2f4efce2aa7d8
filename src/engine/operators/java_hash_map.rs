//! The shape of a `java.util.HashMap` (JDK 8–25), which orders what Flink iterates on the heap:
//! a mini-batch bundle ([`super::map_bundle`]) and a heap `MapState`'s user map (`HeapMapState`
//! keeps one `HashMap` per key: a join's records, [`super::join`]).
//!
//! `hash = h ^ (h >>> 16)` of the key's `hashCode()` ([`super::binary_row`]); the table is
//! allocated at 16 buckets on the first put and doubles when the size passes 3/4 of it
//! (`++size > threshold`), or when a bucket that already chains 8 keys gets a 9th while the
//! table is smaller than 64 (`treeifyBin`); a resize splits each chain keeping its order, new
//! keys append to their chain, removals and `clear()` keep the table's size. So iteration is by
//! bucket `hash & (n - 1)`, then by insertion, `n` being the largest table the map grew to.
//! Not modelled: a chain of 9+ keys in a table of 64+ buckets becomes a red-black tree, whose
//! order depends on `System.identityHashCode` (not reproducible; such a bucket keeps insertion
//! order here).

/// `HashMap.DEFAULT_INITIAL_CAPACITY`.
const INITIAL_CAPACITY: usize = 16;
/// `HashMap.TREEIFY_THRESHOLD`.
const TREEIFY_THRESHOLD: usize = 8;
/// `HashMap.MIN_TREEIFY_CAPACITY`.
const MIN_TREEIFY_CAPACITY: usize = 64;
/// `HashMap.MAXIMUM_CAPACITY`.
const MAXIMUM_CAPACITY: usize = 1 << 30;

/// `HashMap.hash(key)` for a key whose `hashCode()` is `hash_code`.
pub fn spread(hash_code: i32) -> u32 {
    let h = hash_code as u32;
    h ^ (h >> 16)
}

/// The bucket of `hash` in a table of `capacity` buckets (0: not allocated yet).
pub fn bucket(hash: u32, capacity: usize) -> usize {
    hash as usize & capacity.saturating_sub(1)
}

/// `resize()`: 16 buckets, or twice as many.
fn grown(capacity: usize) -> usize {
    if capacity == 0 {
        INITIAL_CAPACITY
    } else {
        (capacity * 2).min(MAXIMUM_CAPACITY)
    }
}

/// The table's size after `putVal` links a new key of hash `hash` into a map of `capacity`
/// buckets: `hashes` are the keys stored before it (the new one not included).
pub fn capacity_after_put(capacity: usize, hash: u32, hashes: impl Iterator<Item = u32>) -> usize {
    let mut capacity = capacity;
    let size = if capacity == 0 {
        capacity = grown(0);
        hashes.count() + 1
    } else {
        let bin = bucket(hash, capacity);
        let (mut size, mut chained) = (1, 0);
        for h in hashes {
            size += 1;
            chained += usize::from(bucket(h, capacity) == bin);
        }
        if chained >= TREEIFY_THRESHOLD && capacity < MIN_TREEIFY_CAPACITY {
            // `treeifyBin` on a small table resizes instead of making a tree.
            capacity = grown(capacity);
        }
        size
    };
    // `if (++size > threshold) resize()`, the threshold being 3/4 of the table.
    if size > capacity / 4 * 3 {
        capacity = grown(capacity);
    }
    capacity
}
