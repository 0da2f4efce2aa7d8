//! Keyed `MapState`: a map per key, optionally behind the TTL decorator with **per-entry** TTL.
//!
//! Models `HeapMapState` and `TtlMapState` (`flink-runtime/.../state/ttl/TtlMapState.java`, 1.10
//! to 2.x V1 state): every map entry carries its own stamp; `get`/`contains` check one entry and
//! remove it when expired; `put` stamps `now`; iteration skips expired entries and removes them.
//! The map of a key is never treated as one unit. Flink's heap map iterates in hash order; this
//! model iterates in user-key order (a `BTreeMap`), so what the page lists is stable.
//!
//! On the heap backend each access also runs the state's [`TtlIncrementalCleanup`] first, as
//! `TtlMapState` calls `accessCallback.run()` (Flink 2.3.0 bytecode): in `get`, `contains`, `put`,
//! `remove` and `entries()`, never in `clear()`. `getUnexpiredOrNull` keeps an empty map, drops a
//! map whose entries all expired, and otherwise writes back a copy of the unexpired entries (a
//! `put` on the key group's map, even when nothing expired). Each `HeapMapState` call starts with
//! a `get` on that map (`put` adds a `put` for a new key's first entry, `remove(uk)` a `remove`
//! when the user map became empty, `clear()` is one `remove`). A user map whose entries all
//! expired during an `entries()` walk is kept, empty, on the heap: `TtlMapState`'s iterator drops
//! them with the `HashMap` iterator's `remove`, which never clears the key (RocksDB stores no
//! empty maps, so there the key goes).

use super::ttl::{StateTtlConfig, StateVisibility, TtlRead, TtlValue, UpdateType};
use super::{ExpiryIndex, KeyId, KeyRegistry, StateSize, TtlIncrementalCleanup, Unexpired};
use crate::engine::shared_vec::SharedVec;
use crate::engine::time::Millis;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A keyed map state, named as its Flink state descriptor.
#[derive(Debug, Clone)]
pub struct MapState<UK: Ord + 'static, UV: 'static> {
    pub name: &'static str,
    pub config: StateTtlConfig,
    /// Per key its user map ([`KeyMap`]).
    maps: SharedVec<Option<KeyMap<UK, UV>>>,
    stored: u64,
    expiry: Option<ExpiryIndex>,
    /// On the heap backend with TTL: the layout and the background cleanup.
    cleanup: Option<Box<TtlIncrementalCleanup>>,
}

/// A key's user map, behind an `Rc` so that a clone of the state (a time-travel checkpoint)
/// shares it until either side writes ([`SharedVec`]), with a lower bound of its entries' TTL
/// stamps: the background cleanup looks into the map only when that bound has expired (the
/// entries it removes are the same; it no longer reads every unexpired map to find nothing).
#[derive(Debug, Clone)]
struct KeyMap<UK, UV> {
    /// At most the oldest `last_access_ms` of the entries (stamps only grow).
    oldest_ms: Millis,
    map: Rc<BTreeMap<UK, TtlValue<UV>>>,
}

impl<UK, UV> std::ops::Deref for KeyMap<UK, UV> {
    type Target = BTreeMap<UK, TtlValue<UV>>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl<UK: Ord + Clone + 'static, UV: Clone + 'static> MapState<UK, UV> {
    pub fn new(name: &'static str, config: StateTtlConfig) -> Self {
        let ttl = config.enabled_ttl_ms();
        MapState {
            name,
            config,
            maps: SharedVec::new(),
            stored: 0,
            expiry: (ttl > 0).then(|| ExpiryIndex::new(ttl)),
            cleanup: None,
        }
    }

    /// `accessCallback.run()` at `now`: the background cleanup, on the heap backend.
    fn state_accessed(&mut self, keys: &mut KeyRegistry, now: Millis) {
        keys.set_ttl_time(now);
        TtlIncrementalCleanup::on_heap(&mut self.cleanup, self.expiry.is_some(), keys);
        let MapState { name, config, maps, stored, expiry, cleanup } = self;
        let Some(cleanup) = cleanup else { return };
        cleanup.state_accessed(|k| {
            // `TtlMapState.getUnexpiredOrNull`.
            let Some(Some(km)) = maps.get(k.index()) else { return Unexpired::Same };
            if km.is_empty() || !config.expired(km.oldest_ms, now) {
                return Unexpired::Same;
            }
            let oldest = km.values().map(|e| e.last_access_ms).min().unwrap_or(Millis::MAX);
            let Some(Some(km)) = maps.get_mut(k.index()) else { return Unexpired::Same };
            km.oldest_ms = oldest;
            if !config.expired(oldest, now) {
                return Unexpired::Same;
            }
            let map = Rc::make_mut(&mut km.map);
            let before = map.len();
            let mut newest_expired = None;
            let mut oldest_kept = Millis::MAX;
            map.retain(|_, e| {
                let keep = !config.expired(e.last_access_ms, now);
                if keep {
                    oldest_kept = oldest_kept.min(e.last_access_ms);
                } else {
                    if let Some(ix) = expiry.as_mut() {
                        ix.remove(e.last_access_ms);
                    }
                    newest_expired = newest_expired.max(Some(e.last_access_ms));
                }
                keep
            });
            km.oldest_ms = oldest_kept;
            *stored -= (before - map.len()) as u64;
            if !map.is_empty() {
                return Unexpired::Replaced;
            }
            maps[k.index()] = None;
            if let Some(last) = newest_expired {
                keys.cleaned_up(k, name, last, config.expiration_timestamp(last));
            }
            keys.unhold(k);
            Unexpired::Removed
        });
    }

    fn map_operation(&mut self, keys: &KeyRegistry, key: KeyId) {
        TtlIncrementalCleanup::map_operation(&mut self.cleanup, keys, key);
    }

    fn map_mut(&mut self, key: KeyId) -> Option<&mut BTreeMap<UK, TtlValue<UV>>> {
        self.maps.get_mut(key.index()).and_then(Option::as_mut).map(|km| Rc::make_mut(&mut km.map))
    }

    /// `HeapMapState.remove(uk)` after its `get`: removes one entry; when the user map is (or
    /// becomes) empty, `clear()` removes the key's map and releases the key.
    fn remove_entry(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &UK) -> Option<TtlValue<UV>> {
        let map = self.map_mut(key)?;
        let old = map.remove(uk);
        let empty = map.is_empty();
        if let Some(old) = &old {
            keys.wrote();
            self.stored -= 1;
            if let Some(ix) = &mut self.expiry {
                ix.remove(old.last_access_ms);
            }
        }
        if empty {
            self.drop_map(keys, key);
        }
        old
    }

    /// `stateTable.remove(namespace)` of a key whose map is stored (empty by now).
    fn drop_map(&mut self, keys: &mut KeyRegistry, key: KeyId) {
        self.maps[key.index()] = None;
        if let Some(c) = &mut self.cleanup {
            c.table.remove(key);
        }
        keys.unhold(key);
    }

    fn put_stamped(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: UK, uv: UV, now: Millis) {
        keys.wrote();
        let i = key.index();
        if i >= self.maps.len() {
            self.maps.resize_with(i + 1, || None);
        }
        if self.maps[i].is_none() {
            self.maps[i] = Some(KeyMap { oldest_ms: now, map: Rc::default() });
            keys.hold(key);
            if let (Some(c), Some((kg, hash))) = (&mut self.cleanup, keys.heap_slot(key)) {
                c.table.put_new(key, kg, hash);
            }
        }
        let old = self.maps[i].as_mut().and_then(|km| {
            km.oldest_ms = km.oldest_ms.min(now);
            Rc::make_mut(&mut km.map).insert(uk, TtlValue { user_value: uv, last_access_ms: now })
        });
        match old {
            Some(o) => {
                if let Some(ix) = &mut self.expiry {
                    ix.remove(o.last_access_ms);
                }
            }
            None => self.stored += 1,
        }
        if let Some(ix) = &mut self.expiry {
            ix.add(now);
            keys.touch(key, now);
        }
    }

    /// `get(uk)` at `now`.
    pub fn get(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &UK, now: Millis) -> TtlRead<UV> {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
        let Some(entry) = self.maps.get(key.index()).and_then(Option::as_ref).and_then(|m| m.get(uk)) else {
            return TtlRead::Absent;
        };
        if self.config.expired(entry.last_access_ms, now) {
            let (last_access_ms, expired_at_ms) =
                (entry.last_access_ms, self.config.expiration_timestamp(entry.last_access_ms));
            self.map_operation(keys, key);
            let old = self.remove_entry(keys, key, uk);
            let returned = (self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp)
                .then(|| old.map(|o| o.user_value))
                .flatten();
            return TtlRead::Expired { last_access_ms, expired_at_ms, returned };
        }
        let value = entry.user_value.clone();
        if self.config.update_type == UpdateType::OnReadAndWrite {
            self.put_stamped(keys, key, uk.clone(), value.clone(), now);
        }
        TtlRead::Fresh(value)
    }

    /// `put(uk, uv)` at `now`.
    pub fn put(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: UK, uv: UV, now: Millis) {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
        self.put_stamped(keys, key, uk, uv, now);
    }

    /// `remove(uk)` at the TTL clock's time; returns whether an entry was stored.
    pub fn remove(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &UK) -> bool {
        self.state_accessed(keys, keys.ttl_time());
        self.map_operation(keys, key);
        self.remove_entry(keys, key, uk).is_some()
    }

    /// `entries()` iterated to the end at `now`: the visible entries in user-key order; expired
    /// ones are removed on the way (`TtlMapState`'s iterator), or returned as well with
    /// `ReturnExpiredIfNotCleanedUp`.
    pub fn entries(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> Vec<(UK, UV)> {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
        let Some(map) = self.maps.get(key.index()).and_then(Option::as_ref) else { return Vec::new() };
        let (mut visible, mut expired) = (Vec::new(), Vec::new());
        for (uk, e) in map.iter() {
            if self.config.expired(e.last_access_ms, now) {
                expired.push(uk.clone());
                if self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp {
                    visible.push((uk.clone(), e.user_value.clone()));
                }
            } else {
                visible.push((uk.clone(), e.user_value.clone()));
            }
        }
        // The iterator's own removals: no map operation, and an emptied map stays on the heap.
        let heap = self.cleanup.is_some();
        for uk in &expired {
            if let Some(old) = self.map_mut(key).and_then(|m| m.remove(uk)) {
                self.stored -= 1;
                if let Some(ix) = &mut self.expiry {
                    ix.remove(old.last_access_ms);
                }
            }
        }
        if !heap && self.maps[key.index()].as_ref().is_some_and(|m| m.is_empty()) {
            self.maps[key.index()] = None;
            keys.unhold(key);
        }
        if self.config.update_type == UpdateType::OnReadAndWrite {
            for (uk, uv) in &visible {
                self.put_stamped(keys, key, uk.clone(), uv.clone(), now);
            }
        }
        visible
    }

    /// `isEmpty()` at `now`: Flink 2.3's `TtlMapState.isEmpty()` runs the cleanup callback and
    /// asks the stored map, **without a TTL check**: a map holding only expired entries the sweep
    /// has not reached yet is not empty.
    pub fn is_empty(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> bool {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
        self.maps.get(key.index()).and_then(Option::as_ref).is_none_or(|m| m.is_empty())
    }

    /// Keys with a stored map, empty ones included (`StateTable.size()`).
    pub fn keys_stored(&self) -> u64 {
        self.maps.iter().filter(|m| m.is_some()).count() as u64
    }

    /// `clear()` of the key's whole map.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) -> bool {
        let Some(map) = self.maps.get_mut(key.index()).and_then(Option::take) else {
            self.map_operation(keys, key);
            return false;
        };
        if let Some(c) = &mut self.cleanup {
            c.table.remove(key);
        }
        keys.wrote();
        self.stored -= map.len() as u64;
        if let Some(ix) = &mut self.expiry {
            for e in map.values() {
                ix.remove(e.last_access_ms);
            }
        }
        keys.unhold(key);
        true
    }

    /// Whether the key has a user map stored (possibly empty), without the side effects of a read.
    pub fn has_map(&self, key: KeyId) -> bool {
        self.maps.get(key.index()).is_some_and(Option::is_some)
    }

    /// The key's stored entries (expired or not), without the side effects of a read.
    pub fn peek(&self, key: KeyId) -> impl Iterator<Item = (&UK, &TtlValue<UV>)> {
        self.maps.get(key.index()).and_then(Option::as_ref).into_iter().flat_map(|m| m.iter())
    }

    /// Entries stored, and how many of them are expired at `now`.
    /// Entries stored (expired or not).
    pub fn stored(&self) -> u64 {
        self.stored
    }

    pub fn size(&self, now: Millis) -> StateSize {
        StateSize { stored: self.stored, expired: self.expiry.as_ref().map_or(0, |ix| ix.expired_at(now)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Row, Value};

    #[test]
    fn entries_expire_one_by_one() {
        let mut keys = KeyRegistry::new(10);
        let mut m: MapState<i64, i64> = MapState::new("map", StateTtlConfig::create_ttl_config(10));
        let k = keys.intern(&Row::from(vec![Value::Int(1)]));
        m.put(&mut keys, k, 1, 100, 0);
        m.put(&mut keys, k, 2, 200, 5);
        assert_eq!(m.size(10), StateSize { stored: 2, expired: 1 });
        assert_eq!(m.get(&mut keys, k, &2, 10), TtlRead::Fresh(200));
        assert_eq!(m.entries(&mut keys, k, 10), vec![(2, 200)], "the expired entry is skipped and removed");
        assert_eq!(m.size(10), StateSize { stored: 1, expired: 0 });
        assert_eq!(
            m.get(&mut keys, k, &2, 15),
            TtlRead::Expired { last_access_ms: 5, expired_at_ms: 15, returned: None }
        );
        assert_eq!(keys.live(), 0, "the key's map is empty: nothing holds the key");
    }
}
