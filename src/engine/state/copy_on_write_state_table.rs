//! The heap backend's layout of one keyed state: which bucket of which table holds each key, in
//! which order, so that the incremental TTL cleanup ([`super::ttl_incremental_cleanup`]) meets
//! entries exactly when Flink's does.
//!
//! Models Flink 2.3.0's `flink-runtime/.../state/heap/CopyOnWriteStateTable.java` (one
//! `CopyOnWriteStateMap` per key group of the backend's range, `StateTable.StateEntryIterator`)
//! and `CopyOnWriteStateMap.java` (read at 2.0-SNAPSHOT `cb5fc57` of the `reswqa/flink` fork;
//! constants and branches checked against the 2.3.0 bytecode, `docs/flink-source-notes.md`,
//! "Background TTL cleanup"):
//! - a map starts with `DEFAULT_CAPACITY` 128 buckets and `threshold` 96 (3/4); a new key goes
//!   to the **head** of its bucket's chain, in the table chosen before the size check; when
//!   `size() > threshold` a table of twice the length is allocated (`doubleCapacity`) and every
//!   later operation on the map (`get`, `put`, `remove`, ...) first moves whole buckets from
//!   `rehashIndex` on until at least 4 entries moved (`incrementalRehash`), each entry pushed to
//!   the head of its new bucket; tables never shrink;
//! - the incremental visitor (`StateIncrementalVisitorImpl` over `StateEntryChainIterator`)
//!   captures the primary table when made, returns one whole chain per call and gives up after
//!   `cleanupSize` null positions (an empty batch); at the end of the primary table it switches
//!   to the rehash table (`EMPTY_TABLE`, two nulls, when not rehashing).
//!
//! Only the layout is kept (4 bytes per bucket, 9 per key): values stay in the state. Copy-on-
//! write snapshot versions are not modelled: they copy entries but keep chain order.

use super::KeyId;

/// `CopyOnWriteStateMap.DEFAULT_CAPACITY`.
const DEFAULT_CAPACITY: usize = 128;
/// `CopyOnWriteStateMap.MIN_TRANSFERRED_PER_INCREMENTAL_REHASH`.
const MIN_TRANSFERRED_PER_INCREMENTAL_REHASH: u32 = 4;
/// `EMPTY_TABLE.length` (`MINIMUM_CAPACITY >>> 1`).
const EMPTY_TABLE_LEN: usize = 2;
/// `CopyOnWriteStateMap.MAXIMUM_CAPACITY`.
const MAXIMUM_CAPACITY: usize = 1 << 30;
/// The number of key groups (`KeyGroupRange.of(0, 127)` at parallelism 1).
const KEY_GROUPS: usize = super::key_groups::MAX_PARALLELISM as usize;
/// A null link.
const NIL: u32 = u32::MAX;
/// The identity of `EMPTY_TABLE`.
const EMPTY_TABLE: u32 = 0;

/// One bucket array, with an identity (the visitor compares tables by reference).
#[derive(Debug, Clone, Default)]
struct Table {
    id: u32,
    heads: Vec<u32>,
}

/// `CopyOnWriteStateMap`: the map of one key group.
#[derive(Debug, Clone, Default)]
struct StateMap {
    /// `primaryTable` (not yet allocated while nothing was ever put: 128 nulls).
    primary: Table,
    /// `incrementalRehashTable` (`id == EMPTY_TABLE`: not rehashing).
    rehash: Table,
    primary_size: u32,
    rehash_size: u32,
    threshold: u32,
    rehash_index: usize,
}

impl StateMap {
    fn size(&self) -> u32 {
        self.primary_size + self.rehash_size
    }

    fn is_rehashing(&self) -> bool {
        self.rehash.id != EMPTY_TABLE
    }

    fn primary_len(&self) -> usize {
        if self.primary.heads.is_empty() {
            DEFAULT_CAPACITY
        } else {
            self.primary.heads.len()
        }
    }

    /// `selectActiveTable(hash)`: whether the key's bucket is in the rehash table.
    fn in_rehash_table(&self, hash: i32) -> bool {
        (hash as u32 as usize & (self.primary_len() - 1)) < self.rehash_index
    }

    fn table_len(&self, id: u32) -> usize {
        if id == EMPTY_TABLE {
            EMPTY_TABLE_LEN
        } else if id == self.primary.id {
            self.primary_len()
        } else if id == self.rehash.id {
            self.rehash.heads.len()
        } else {
            // A table the map dropped when a rehash ended: its slots were nulled as they moved.
            0
        }
    }
}

/// The layout of one keyed state on the heap backend: a [`StateMap`] per key group, and per key
/// its chain link, its key group and its composite hash.
#[derive(Debug, Clone)]
pub struct CopyOnWriteStateTable {
    maps: Vec<StateMap>,
    next: Vec<u32>,
    key_group: Vec<u8>,
    hash: Vec<i32>,
    /// The last table identity handed out.
    last_table_id: u32,
}

impl Default for CopyOnWriteStateTable {
    fn default() -> Self {
        CopyOnWriteStateTable {
            maps: vec![StateMap::default(); KEY_GROUPS],
            next: Vec::new(),
            key_group: Vec::new(),
            hash: Vec::new(),
            last_table_id: EMPTY_TABLE,
        }
    }
}

impl CopyOnWriteStateTable {
    fn make_table(&mut self, len: usize) -> Table {
        self.last_table_id += 1;
        Table { id: self.last_table_id, heads: vec![NIL; len] }
    }

    /// Entries stored (`StateTable.size()`).
    pub fn size(&self) -> u64 {
        self.maps.iter().map(|m| u64::from(m.size())).sum()
    }

    /// `computeHashForOperationAndDoIncrementalRehash`: what every `get`, `containsKey`, `put`,
    /// `remove` and `transform` on key group `kg`'s map does first.
    pub fn map_operation(&mut self, kg: u32) {
        let (maps, next, hash) = (&mut self.maps, &mut self.next, &self.hash);
        let map = &mut maps[kg as usize];
        if map.is_rehashing() {
            incremental_rehash(map, next, hash);
        }
    }

    /// `put(key, ..)` of a key the map does not hold (`putEntry` then `addNewStateMapEntry`).
    pub fn put_new(&mut self, key: KeyId, kg: u32, hash: i32) {
        self.map_operation(kg);
        let i = key.index();
        if i >= self.next.len() {
            self.next.resize(i + 1, NIL);
            self.key_group.resize(i + 1, 0);
            self.hash.resize(i + 1, 0);
        }
        self.key_group[i] = kg as u8;
        self.hash[i] = hash;
        if self.maps[kg as usize].primary.heads.is_empty() {
            let table = self.make_table(DEFAULT_CAPACITY);
            let map = &mut self.maps[kg as usize];
            map.primary = table;
            map.threshold = threshold_of(DEFAULT_CAPACITY);
        }
        let in_rehash = self.maps[kg as usize].in_rehash_table(hash);
        let map = &self.maps[kg as usize];
        if map.size() > map.threshold && !map.is_rehashing() && map.primary.heads.len() < MAXIMUM_CAPACITY {
            let table = self.make_table(map.primary.heads.len() * 2);
            let map = &mut self.maps[kg as usize];
            map.threshold = threshold_of(table.heads.len());
            map.rehash = table;
        }
        let map = &mut self.maps[kg as usize];
        let tab = if in_rehash { &mut map.rehash } else { &mut map.primary };
        let pos = hash as u32 as usize & (tab.heads.len() - 1);
        self.next[i] = tab.heads[pos];
        tab.heads[pos] = key.0;
        if in_rehash {
            map.rehash_size += 1;
        } else {
            map.primary_size += 1;
        }
    }

    /// `remove(key, ..)` of a key the map holds (`removeEntry`).
    pub fn remove(&mut self, key: KeyId) {
        let i = key.index();
        let (Some(&kg), Some(&hash)) = (self.key_group.get(i), self.hash.get(i)) else {
            debug_assert!(false, "a removed key was put");
            return;
        };
        let kg = u32::from(kg);
        self.map_operation(kg);
        let map = &mut self.maps[kg as usize];
        let in_rehash = map.in_rehash_table(hash);
        let tab = if in_rehash { &mut map.rehash } else { &mut map.primary };
        let pos = hash as u32 as usize & (tab.heads.len() - 1);
        let mut cur = tab.heads[pos];
        let mut prev = NIL;
        while cur != NIL && cur != key.0 {
            prev = cur;
            cur = self.next[cur as usize];
        }
        debug_assert!(cur == key.0, "a removed key is in its bucket");
        if cur == NIL {
            return;
        }
        if prev == NIL {
            tab.heads[pos] = self.next[i];
        } else {
            self.next[prev as usize] = self.next[i];
        }
        self.next[i] = NIL;
        if in_rehash {
            map.rehash_size -= 1;
        } else {
            map.primary_size -= 1;
        }
    }

    /// The key group of a key the table holds.
    pub fn key_group_of(&self, key: KeyId) -> u32 {
        self.key_group.get(key.index()).map_or(0, |&kg| u32::from(kg))
    }
}

/// `makeTable`'s threshold: 3/4 of the capacity.
fn threshold_of(capacity: usize) -> u32 {
    ((capacity >> 1) + (capacity >> 2)) as u32
}

/// `CopyOnWriteStateMap.incrementalRehash()`: moves whole buckets from `rehashIndex` on, each
/// chain walked from its head and each entry pushed to the head of its new bucket, until at least
/// four entries moved or the old table is done (then the new table becomes the primary one).
fn incremental_rehash(map: &mut StateMap, next: &mut [u32], hash: &[i32]) {
    let old_capacity = map.primary.heads.len();
    let new_mask = map.rehash.heads.len() - 1;
    let mut rh_idx = map.rehash_index;
    let mut transferred = 0;
    while transferred < MIN_TRANSFERRED_PER_INCREMENTAL_REHASH {
        let mut e = map.primary.heads[rh_idx];
        while e != NIL {
            let n = next[e as usize];
            let pos = hash[e as usize] as u32 as usize & new_mask;
            next[e as usize] = map.rehash.heads[pos];
            map.rehash.heads[pos] = e;
            e = n;
            transferred += 1;
        }
        map.primary.heads[rh_idx] = NIL;
        rh_idx += 1;
        if rh_idx == old_capacity {
            map.primary = std::mem::take(&mut map.rehash);
            map.primary_size += map.rehash_size;
            map.rehash_size = 0;
            map.rehash_index = 0;
            return;
        }
    }
    map.primary_size -= transferred;
    map.rehash_size += transferred;
    map.rehash_index = rh_idx;
}

/// `StateEntryChainIterator` of one key group's map, as `StateIncrementalVisitorImpl` uses it.
#[derive(Debug, Clone, Copy)]
struct ChainIterator {
    kg: usize,
    /// The identity and length of `activeTable`.
    active: u32,
    active_len: usize,
    next_map_position: usize,
}

impl ChainIterator {
    fn new(table: &CopyOnWriteStateTable, kg: usize) -> Self {
        let map = &table.maps[kg];
        ChainIterator { kg, active: map.primary.id, active_len: map.primary_len(), next_map_position: 0 }
    }

    fn has_next(&self, table: &CopyOnWriteStateTable) -> bool {
        let map = &table.maps[self.kg];
        map.size() > 0 && (self.next_map_position < self.active_len || self.active == map.primary.id)
    }

    /// `next()`: the head of the next chain, or null after `max_traversed` null positions or at
    /// the end of the iteration.
    fn next(&mut self, table: &CopyOnWriteStateTable, max_traversed: usize) -> u32 {
        let map = &table.maps[self.kg];
        loop {
            let next = self.next_active_map_position(map, max_traversed);
            if next != NIL
                || self.next_map_position < self.active_len
                || self.active == map.rehash.id
                || self.active != map.primary.id
            {
                return next;
            }
            self.active = map.rehash.id;
            self.active_len = map.table_len(map.rehash.id);
            self.next_map_position = 0;
        }
    }

    fn next_active_map_position(&mut self, map: &StateMap, max_traversed: usize) -> u32 {
        // The captured table's slots; a table the map has dropped (or `EMPTY_TABLE`) reads as
        // nulls up to the length it had when captured.
        let heads: &[u32] = if self.active == EMPTY_TABLE {
            &[]
        } else if self.active == map.primary.id {
            &map.primary.heads
        } else if self.active == map.rehash.id {
            &map.rehash.heads
        } else {
            &[]
        };
        let len = self.active_len;
        let mut traversed = 0;
        while self.next_map_position < len && traversed < max_traversed {
            let next = heads.get(self.next_map_position).copied().unwrap_or(NIL);
            self.next_map_position += 1;
            if next != NIL {
                return next;
            }
            traversed += 1;
        }
        NIL
    }
}

/// `StateTable.StateEntryIterator`: the incremental visitor over every key group's map, in key
/// group order, made by `getStateIncrementalVisitor(recommendedMaxNumberOfReturnedRecords)`.
#[derive(Debug, Clone)]
pub struct StateEntryIterator {
    recommended: usize,
    key_group_index: usize,
    current: Option<ChainIterator>,
}

impl StateEntryIterator {
    pub fn new(table: &CopyOnWriteStateTable, recommended: usize) -> Self {
        let mut it = StateEntryIterator { recommended, key_group_index: 0, current: None };
        while it.key_group_index < KEY_GROUPS {
            let visitor = ChainIterator::new(table, it.key_group_index);
            it.key_group_index += 1;
            if visitor.has_next(table) {
                it.current = Some(visitor);
                break;
            }
        }
        it
    }

    pub fn has_next(&mut self, table: &CopyOnWriteStateTable) -> bool {
        while !self.current.is_some_and(|c| c.has_next(table)) {
            if self.key_group_index == KEY_GROUPS {
                return false;
            }
            let visitor = ChainIterator::new(table, self.key_group_index);
            self.key_group_index += 1;
            if visitor.has_next(table) {
                self.current = Some(visitor);
                break;
            }
        }
        true
    }

    /// `nextEntries()`: the keys of the next chain, head first, into `batch` (cleared first);
    /// empty when the visitor gave up on null positions or reached a table's end. (The cleanup
    /// asks [`Self::has_next`] first and then [`Self::next_entries_after_has_next`].)
    #[cfg(test)]
    pub fn next_entries(&mut self, table: &CopyOnWriteStateTable, batch: &mut Vec<KeyId>) {
        batch.clear();
        if self.has_next(table) {
            self.next_entries_after_has_next(table, batch);
        }
    }

    /// [`Self::next_entries`] right after [`Self::has_next`] returned true (which Flink's
    /// `nextEntries()` asks again, with the same answer: nothing changed in between).
    pub fn next_entries_after_has_next(&mut self, table: &CopyOnWriteStateTable, batch: &mut Vec<KeyId>) {
        batch.clear();
        let recommended = self.recommended;
        if let Some(c) = &mut self.current {
            let mut e = c.next(table, recommended);
            while e != NIL {
                batch.push(KeyId(e));
                e = table.next[e as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 98 keys of one key group in one bucket: the 98th starts the doubling, the next
    /// operations move buckets, and the entries end in the doubled table, reversed.
    #[test]
    fn the_98th_key_starts_an_incremental_rehash() {
        let mut t = CopyOnWriteStateTable::default();
        for k in 0..97 {
            t.put_new(KeyId(k), 3, 5);
        }
        assert!(!t.maps[3].is_rehashing());
        t.put_new(KeyId(97), 3, 5);
        assert!(t.maps[3].is_rehashing(), "size 97 > threshold 96");
        assert_eq!(t.maps[3].threshold, 192);
        // Bucket 5 holds all 98 keys: one step moves buckets 0..=5, so all of them.
        t.map_operation(3);
        assert_eq!(t.maps[3].rehash_index, 6);
        assert_eq!((t.maps[3].primary_size, t.maps[3].rehash_size), (0, 98));
        assert_eq!(t.size(), 98);
        let mut it = StateEntryIterator::new(&t, 5);
        let mut batch = Vec::new();
        let mut seen = Vec::new();
        for _ in 0..200 {
            it.next_entries(&t, &mut batch);
            seen.extend(batch.iter().map(|k| k.0));
        }
        // The visitor captured the old primary table (moved: nulls), then switched to the
        // rehash table, where the chain reads in insertion order (reversed twice).
        assert_eq!(seen, (0..98).collect::<Vec<_>>());
        t.remove(KeyId(50));
        assert_eq!(t.size(), 97);
    }

    /// Five null positions end a batch; the end of a table costs one empty batch.
    #[test]
    fn the_visitor_gives_up_after_five_null_positions() {
        let mut t = CopyOnWriteStateTable::default();
        t.put_new(KeyId(0), 0, 7);
        t.put_new(KeyId(1), 0, 8);
        let mut it = StateEntryIterator::new(&t, 5);
        let mut batch = Vec::new();
        it.next_entries(&t, &mut batch);
        assert!(batch.is_empty(), "positions 0..5 are null");
        it.next_entries(&t, &mut batch);
        assert_eq!(batch, vec![KeyId(0)], "position 7 after nulls 5, 6");
        it.next_entries(&t, &mut batch);
        assert_eq!(batch, vec![KeyId(1)]);
        let mut empties = 0;
        while it.has_next(&t) {
            it.next_entries(&t, &mut batch);
            assert!(batch.is_empty());
            empties += 1;
        }
        // 119 null positions left (9..128): 23 batches of 5 and one of 4 that reaches the
        // end, switches to EMPTY_TABLE and returns null.
        assert_eq!(empties, 24);
    }
}
