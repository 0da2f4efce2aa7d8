//! The bundle of a mini-batch operator and its count trigger, with Java's iteration order.
//!
//! Models Flink 2.3.0's `AbstractMapBundleOperator` (`flink-table-runtime/.../operators/bundle/`):
//! `processElement` looks the record's key up in `bundle` (a `java.util.HashMap` made once in
//! `open()`), folds the record in (`MapBundleFunction.addInput`), puts the result back and calls
//! `CountBundleTrigger.onElement`, which finishes the bundle once `count >= maxCount`
//! (`table.exec.mini-batch.size`). `finishBundle()` hands the whole map to the function (it
//! walks `buffer.entrySet()`), then `bundle.clear()` and `bundleTrigger.reset()`; it also runs on
//! every watermark (`processWatermark`: the mini-batch marker of `ProcTimeMiniBatchAssignerOperator`),
//! before a checkpoint barrier and at the end of input.
//!
//! **Iteration order.** The function sees the keys in `HashMap` order
//! ([`super::java_hash_map`]), which is what orders a flush's output.

use super::java_hash_map::{bucket, capacity_after_put, spread};
use crate::engine::state::{KeyId, KeyRegistry};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone)]
struct Entry<V> {
    key: KeyId,
    /// `HashMap.hash(key)`: `hashCode ^ (hashCode >>> 16)`.
    hash: u32,
    /// Records folded into the value since the bundle began.
    elements: u32,
    value: V,
}

/// A bundle: each key's folded value, in insertion order, with the shape of the Java table.
#[derive(Debug, Clone)]
pub struct MapBundle<V> {
    entries: Vec<Entry<V>>,
    index: FxHashMap<KeyId, usize>,
    /// `table.length`: 0 before the first put.
    capacity: usize,
    /// `numOfElements`: records added since the bundle began.
    elements: u64,
}

impl<V> Default for MapBundle<V> {
    fn default() -> Self {
        MapBundle { entries: Vec::new(), index: FxHashMap::default(), capacity: 0, elements: 0 }
    }
}

impl<V> MapBundle<V> {
    /// Whether the bundle holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Keys in the bundle.
    pub fn keys(&self) -> usize {
        self.entries.len()
    }
    /// Records added since the bundle began (`numOfElements`).
    pub fn elements(&self) -> u64 {
        self.elements
    }
    /// The key's value and how many records it folds, if the key is in the bundle.
    pub fn get(&self, key: KeyId) -> Option<(&V, u32)> {
        self.index.get(&key).map(|&i| (&self.entries[i].value, self.entries[i].elements))
    }

    /// `bundle.get(key)`, `addInput`, `bundle.put(key, value)`: folds one record into the key's
    /// value with `fold`, starting from `create()` when the key is new. A new key is held in
    /// `keys` while it is in the bundle; `hash_code` (its `BinaryRowData.hashCode()`) is only
    /// computed for a new key.
    ///
    /// # Errors
    /// `fold`'s.
    pub fn add<E>(
        &mut self,
        keys: &mut KeyRegistry,
        key: KeyId,
        hash_code: impl FnOnce() -> i32,
        create: impl FnOnce() -> V,
        fold: impl FnOnce(&mut V) -> Result<(), E>,
    ) -> Result<(), E> {
        self.elements += 1;
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let hash = spread(hash_code());
                self.capacity = capacity_after_put(self.capacity, hash, self.entries.iter().map(|e| e.hash));
                self.index.insert(key, self.entries.len());
                self.entries.push(Entry { key, hash, elements: 0, value: create() });
                keys.hold(key);
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[i];
        entry.elements += 1;
        fold(&mut entry.value)
    }

    /// `finishBundle` + `bundle.clear()`: each key with the number of records folded and its
    /// value, in `HashMap` iteration order; the bundle is left empty (keeping its table size).
    /// The keys are still held in `keys`: the caller releases each ([`KeyRegistry::unhold`])
    /// once it has handled it.
    pub fn drain(&mut self) -> Vec<(KeyId, u32, V)> {
        let capacity = self.capacity;
        // Stable: within a bucket, insertion order.
        self.entries.sort_by_key(|e| bucket(e.hash, capacity));
        self.index.clear();
        self.elements = 0;
        self.entries.drain(..).map(|e| (e.key, e.elements, e.value)).collect()
    }
}

/// `CountBundleTrigger`: fires once `count >= maxCount` elements arrived since the last reset.
#[derive(Debug, Clone, Copy)]
pub struct CountBundleTrigger {
    pub max_count: u64,
    count: u64,
}

impl CountBundleTrigger {
    /// `new CountBundleTrigger(maxCount)` (`maxCount > 0`, checked by the planner).
    pub fn new(max_count: u64) -> Self {
        CountBundleTrigger { max_count, count: 0 }
    }
    /// `onElement`: whether the bundle must be finished now.
    pub fn on_element(&mut self) -> bool {
        self.count += 1;
        self.count >= self.max_count
    }
    /// `reset()`.
    pub fn reset(&mut self) {
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::operators::binary_row::binary_row_hash_code;
    use crate::engine::row::{DataType, Row, Value};

    /// Puts `keys` (each `key -> i`) into `bundle` and returns the values in iteration order.
    fn order(bundle: &mut MapBundle<usize>, keys: &[Value], ty: DataType) -> Vec<usize> {
        let mut reg = KeyRegistry::new(0);
        for (i, v) in keys.iter().enumerate() {
            let row = Row::from(vec![*v]);
            let id = reg.intern(&row);
            bundle.add::<()>(&mut reg, id, || binary_row_hash_code(&row, &[ty]), || i, |_| Ok(())).unwrap();
        }
        bundle.drain().into_iter().map(|(_, _, i)| i).collect()
    }

    /// What `java.util.HashMap<BinaryRowData, Integer>.values()` printed (Flink 2.3.0 rows, JDK 17).
    #[test]
    fn iteration_order_matches_java_hash_map() {
        let users: Vec<Value> = (0..40).map(|i| Value::str(&format!("user-{i}"))).collect();
        let mut bundle = MapBundle::default();
        assert_eq!(
            order(&mut bundle, &users, DataType::String),
            [
                30, 1, 33, 7, 4, 27, 24, 28, 16, 31, 37, 32, 17, 39, 19, 6, 38, 25, 34, 36, 10, 11, 0, 5, 22, 13, 9,
                23, 14, 26, 21, 3, 18, 29, 15, 12, 2, 35, 8, 20
            ]
        );
        let ints: Vec<Value> = (0..5).map(Value::Int).collect();
        assert_eq!(order(&mut bundle, &ints, DataType::Int), [3, 1, 4, 2, 0], "clear() keeps the 64-bucket table");
        assert_eq!(order(&mut MapBundle::default(), &ints, DataType::Int), [3, 2, 1, 0, 4], "a fresh 16-bucket table");
        let longs: Vec<Value> = (0..=100).rev().map(Value::Int).collect();
        let got: Vec<usize> =
            order(&mut MapBundle::default(), &longs, DataType::BigInt).iter().map(|i| 100 - i).collect();
        assert_eq!(
            got,
            [
                8, 14, 70, 2, 38, 63, 93, 10, 52, 18, 31, 54, 61, 66, 78, 53, 7, 21, 45, 74, 91, 3, 64, 96, 26, 88, 89,
                9, 49, 79, 62, 43, 100, 57, 12, 83, 98, 73, 5, 24, 55, 25, 30, 50, 22, 94, 76, 4, 95, 92, 29, 17, 82,
                41, 60, 37, 59, 42, 19, 32, 68, 58, 65, 33, 69, 56, 47, 16, 80, 23, 48, 0, 67, 1, 97, 87, 40, 51, 99,
                81, 84, 77, 6, 85, 35, 20, 46, 90, 72, 27, 13, 34, 36, 44, 86, 11, 28, 75, 15, 39, 71
            ]
        );
    }

    /// Nine keys in bucket 5 of 16 (11 keys in all, under the threshold of 12): Java resizes to 32
    /// instead of making a tree bin (`treeifyBin` on a table smaller than 64).
    #[test]
    fn a_ninth_key_in_one_bucket_of_a_small_table_doubles_it() {
        let keys: Vec<Value> = [9, 17, 67, 117, 136, 12, 140, 169, 259, 277, 297].into_iter().map(Value::Int).collect();
        let got: Vec<i64> = order(&mut MapBundle::default(), &keys, DataType::Int)
            .into_iter()
            .map(|i| match keys[i] {
                Value::Int(v) => v,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, [67, 117, 140, 259, 9, 12, 17, 136, 169, 277, 297]);
    }

    #[test]
    fn count_trigger_fires_at_max_count() {
        let mut t = CountBundleTrigger::new(2);
        assert!(!t.on_element());
        assert!(t.on_element());
        t.reset();
        assert!(!t.on_element());
    }
}
