//! The index from a key's values to its [`KeyId`], shared by time-travel checkpoints.
//!
//! The keys themselves live in [`super::KeyRegistry`]'s `rows` (a [`SharedVec`]); the index
//! holds only ids, in a [`ShardedTable`]: a checkpoint's clone copies one pointer per shard, and
//! a key interned or freed after it copies only its shard. A lookup hashes the key once and
//! compares it with the candidates' rows.
//!
//! (A persistent hash map, imbl's HAMT, did the same sharing but took 18 % of the engine's time
//! on benchmark (a), measured 2026-12-03.)

use super::KeyId;
use crate::engine::row::Row;
use crate::engine::sharded_table::ShardedTable;
use crate::engine::shared_vec::SharedVec;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

/// Key ids by the hash of their key (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct KeyIndex {
    ids: ShardedTable<u32>,
}

fn hash_of(row: &Row) -> u64 {
    FxBuildHasher.hash_one(row)
}

fn row_of(rows: &SharedVec<Option<Row>>, id: u32) -> Option<&Row> {
    rows.get(id as usize).and_then(Option::as_ref)
}

impl KeyIndex {
    /// The id of `row`, whose key `rows` holds at the index of its id.
    pub fn get(&self, row: &Row, rows: &SharedVec<Option<Row>>) -> Option<KeyId> {
        let hash = hash_of(row);
        self.ids.shard(hash).find(hash, |&id| row_of(rows, id) == Some(row)).map(|&id| KeyId(id))
    }

    /// Adds `id`, whose key is `rows[id]` (not in the index yet).
    pub fn insert(&mut self, id: KeyId, rows: &SharedVec<Option<Row>>) {
        let Some(row) = row_of(rows, id.0) else { return };
        let hash = hash_of(row);
        let rehash = |&i: &u32| row_of(rows, i).map_or(0, hash_of);
        self.ids.shard_mut(hash).insert_unique(hash, id.0, rehash);
    }

    /// Removes `id`, whose key was `row`.
    pub fn remove(&mut self, id: KeyId, row: &Row) {
        let hash = hash_of(row);
        if let Ok(entry) = self.ids.shard_mut(hash).find_entry(hash, |&i| i == id.0) {
            entry.remove();
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
    fn finds_keys_and_a_clone_keeps_its_own() {
        let mut rows: SharedVec<Option<Row>> = SharedVec::new();
        let mut ix = KeyIndex::default();
        for i in 0..5000 {
            rows.push(Some(key(i)));
            ix.insert(KeyId(i as u32), &rows);
        }
        let before = ix.clone();
        let gone = rows[17].take().expect("a key");
        ix.remove(KeyId(17), &gone);
        assert_eq!(ix.get(&key(17), &rows), None);
        assert_eq!(ix.get(&key(4999), &rows), Some(KeyId(4999)));
        assert_eq!(ix.get(&key(5000), &rows), None);
        rows[17] = Some(key(17));
        assert_eq!(before.get(&key(17), &rows), Some(KeyId(17)));
        assert_eq!((before.ids.iter().count(), ix.ids.iter().count()), (5000, 4999));
    }
}
