//! The index from a key's values to its [`KeyId`], shared by time-travel checkpoints.
//!
//! The keys themselves live in [`super::KeyRegistry`]'s `rows` (a [`SharedVec`]); the index
//! holds only ids, in hash tables (hashbrown's `HashTable`) split into shards by hash, each
//! behind an `Rc`. A checkpoint's clone copies one pointer per shard, and a key interned or
//! freed after it copies only its shard (`Rc::make_mut`), at most about [`SHARD_KEYS`] ids.
//! A lookup hashes the key once and compares it with the candidates' rows.
//!
//! (A persistent hash map, imbl's HAMT, did the same sharing but took 18 % of the engine's time
//! on benchmark (a), measured 2026-12-03.)

use super::KeyId;
use crate::engine::row::Row;
use crate::engine::shared_vec::SharedVec;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;
use std::rc::Rc;

/// Keys per shard above which the shards double.
const SHARD_KEYS: usize = 1024;

/// Key ids by the hash of their key (see the module's doc).
#[derive(Debug, Clone)]
pub struct KeyIndex {
    /// A power of two of shards; a key's shard is picked by bits of its hash the tables do not
    /// use for their buckets and tags.
    shards: Vec<Rc<HashTable<u32>>>,
    len: usize,
}

impl Default for KeyIndex {
    fn default() -> Self {
        KeyIndex { shards: vec![Rc::default()], len: 0 }
    }
}

fn hash_of(row: &Row) -> u64 {
    FxBuildHasher.hash_one(row)
}

fn row_of(rows: &SharedVec<Option<Row>>, id: u32) -> Option<&Row> {
    rows.get(id as usize).and_then(Option::as_ref)
}

impl KeyIndex {
    fn shard(&self, hash: u64) -> usize {
        (hash >> 40) as usize & (self.shards.len() - 1)
    }

    /// The id of `row`, whose key `rows` holds at the index of its id.
    pub fn get(&self, row: &Row, rows: &SharedVec<Option<Row>>) -> Option<KeyId> {
        let hash = hash_of(row);
        self.shards[self.shard(hash)].find(hash, |&id| row_of(rows, id) == Some(row)).map(|&id| KeyId(id))
    }

    /// Adds `id`, whose key is `rows[id]` (not in the index yet).
    pub fn insert(&mut self, id: KeyId, rows: &SharedVec<Option<Row>>) {
        let Some(row) = row_of(rows, id.0) else { return };
        if self.len >= self.shards.len() * SHARD_KEYS {
            self.split(rows);
        }
        let hash = hash_of(row);
        let s = self.shard(hash);
        let rehash = |&i: &u32| row_of(rows, i).map_or(0, hash_of);
        Rc::make_mut(&mut self.shards[s]).insert_unique(hash, id.0, rehash);
        self.len += 1;
    }

    /// Removes `id`, whose key was `row`.
    pub fn remove(&mut self, id: KeyId, row: &Row) {
        let hash = hash_of(row);
        let s = self.shard(hash);
        if let Ok(entry) = Rc::make_mut(&mut self.shards[s]).find_entry(hash, |&i| i == id.0) {
            entry.remove();
            self.len -= 1;
        }
    }

    /// Doubles the shards, placing every id anew.
    fn split(&mut self, rows: &SharedVec<Option<Row>>) {
        let old = std::mem::replace(&mut self.shards, Vec::new());
        self.shards = (0..old.len() * 2).map(|_| Rc::default()).collect();
        for shard in &old {
            for &id in shard.iter() {
                let Some(row) = row_of(rows, id) else { continue };
                let hash = hash_of(row);
                let s = self.shard(hash);
                let rehash = |&i: &u32| row_of(rows, i).map_or(0, hash_of);
                Rc::make_mut(&mut self.shards[s]).insert_unique(hash, id, rehash);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::Value;

    fn key(i: i64) -> Row {
        Row(smallvec::smallvec![Value::Int(i)])
    }

    #[test]
    fn finds_keys_across_splits_and_a_clone_keeps_its_own() {
        let mut rows: SharedVec<Option<Row>> = SharedVec::new();
        let mut ix = KeyIndex::default();
        for i in 0..5000 {
            rows.push(Some(key(i)));
            ix.insert(KeyId(i as u32), &rows);
        }
        assert_eq!((ix.len, ix.shards.len()), (5000, 8));
        let before = ix.clone();
        let gone = rows[17].take().expect("a key");
        ix.remove(KeyId(17), &gone);
        assert_eq!(ix.get(&key(17), &rows), None);
        assert_eq!(ix.get(&key(4999), &rows), Some(KeyId(4999)));
        assert_eq!(ix.get(&key(5000), &rows), None);
        rows[17] = Some(key(17));
        assert_eq!(before.get(&key(17), &rows), Some(KeyId(17)));
        assert_eq!((before.len, ix.len), (5000, 4999));
        let shared = before.shards.iter().zip(&ix.shards).filter(|(a, b)| Rc::ptr_eq(a, b)).count();
        assert_eq!(shared, 7);
    }
}
