//! Keyed `ValueState`: one value per key of the operator's current key.
//!
//! Models the heap backend's `ValueState<T>` (`HeapValueState`): `value()` reads the current
//! key's value (or nothing), `update(v)` replaces it, `clear()` removes it. Keys iterate in
//! their order (a `BTreeMap`), so what the page lists is the same natively and in wasm.

use std::collections::BTreeMap;

/// A keyed value state named as in Flink (`name` is the state descriptor's name, e.g.
/// `"GroupAggregateState"`).
#[derive(Debug, Clone)]
pub struct ValueState<K: Ord, T> {
    pub name: &'static str,
    entries: BTreeMap<K, T>,
}

impl<K: Ord + Clone, T> ValueState<K, T> {
    pub fn new(name: &'static str) -> Self {
        ValueState { name, entries: BTreeMap::new() }
    }
    /// `value()`: the key's value, if any.
    pub fn value(&self, key: &K) -> Option<&T> {
        self.entries.get(key)
    }
    /// `update(value)`.
    pub fn update(&mut self, key: &K, value: T) {
        self.entries.insert(key.clone(), value);
    }
    /// `clear()`: removes the key's value; returns whether there was one.
    pub fn clear(&mut self, key: &K) -> bool {
        self.entries.remove(key).is_some()
    }
    /// Every stored (key, value), in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &T)> {
        self.entries.iter()
    }
}
