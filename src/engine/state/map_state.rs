//! Keyed `MapState`: a map per key, optionally behind the TTL decorator with **per-entry** TTL.
//!
//! Models `HeapMapState` and `TtlMapState` (`flink-runtime/.../state/ttl/TtlMapState.java`, 1.10
//! to 2.x V1 state): every map entry carries its own stamp; `get`/`contains` check one entry and
//! remove it when expired; `put` stamps `now`; iteration skips expired entries and removes them.
//! The map of a key is never treated as one unit. Flink's heap map iterates in hash order; this
//! model iterates in user-key order (a `BTreeMap`), so what the page lists is stable.

use super::ttl::{StateTtlConfig, StateVisibility, TtlRead, TtlValue, UpdateType};
use super::{ExpiryIndex, KeyId, KeyRegistry, StateSize};
use crate::engine::time::Millis;
use std::collections::BTreeMap;

/// A keyed map state, named as its Flink state descriptor.
#[derive(Debug, Clone)]
pub struct MapState<UK: Ord, UV> {
    pub name: &'static str,
    pub config: StateTtlConfig,
    maps: Vec<Option<BTreeMap<UK, TtlValue<UV>>>>,
    stored: u64,
    expiry: Option<ExpiryIndex>,
}

impl<UK: Ord + Clone, UV: Clone> MapState<UK, UV> {
    pub fn new(name: &'static str, config: StateTtlConfig) -> Self {
        let ttl = config.enabled_ttl_ms();
        MapState { name, config, maps: Vec::new(), stored: 0, expiry: (ttl > 0).then(|| ExpiryIndex::new(ttl)) }
    }

    fn map_mut(&mut self, key: KeyId) -> Option<&mut BTreeMap<UK, TtlValue<UV>>> {
        self.maps.get_mut(key.index()).and_then(Option::as_mut)
    }

    /// Removes one entry; the key is released when its map becomes empty.
    fn remove_entry(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &UK) -> Option<TtlValue<UV>> {
        let map = self.map_mut(key)?;
        let old = map.remove(uk)?;
        let empty = map.is_empty();
        self.stored -= 1;
        if let Some(ix) = &mut self.expiry {
            ix.remove(old.last_access_ms);
        }
        if empty {
            self.maps[key.index()] = None;
            keys.unhold(key);
        }
        Some(old)
    }

    fn put_stamped(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: UK, uv: UV, now: Millis) {
        let i = key.index();
        if i >= self.maps.len() {
            self.maps.resize_with(i + 1, || None);
        }
        if self.maps[i].is_none() {
            self.maps[i] = Some(BTreeMap::new());
            keys.hold(key);
        }
        let old = self.maps[i].as_mut().and_then(|m| m.insert(uk, TtlValue { user_value: uv, last_access_ms: now }));
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
        let Some(entry) = self.maps.get(key.index()).and_then(Option::as_ref).and_then(|m| m.get(uk)) else {
            return TtlRead::Absent;
        };
        if self.config.expired(entry.last_access_ms, now) {
            let (last_access_ms, expired_at_ms) =
                (entry.last_access_ms, self.config.expiration_timestamp(entry.last_access_ms));
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
        self.put_stamped(keys, key, uk, uv, now);
    }

    /// `remove(uk)`; returns whether an entry was stored.
    pub fn remove(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &UK) -> bool {
        self.remove_entry(keys, key, uk).is_some()
    }

    /// `entries()` iterated to the end at `now`: the visible entries in user-key order; expired
    /// ones are removed on the way (`TtlMapState`'s iterator), or returned as well with
    /// `ReturnExpiredIfNotCleanedUp`.
    pub fn entries(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> Vec<(UK, UV)> {
        let Some(map) = self.maps.get(key.index()).and_then(Option::as_ref) else { return Vec::new() };
        let (mut visible, mut expired) = (Vec::new(), Vec::new());
        for (uk, e) in map {
            if self.config.expired(e.last_access_ms, now) {
                expired.push(uk.clone());
                if self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp {
                    visible.push((uk.clone(), e.user_value.clone()));
                }
            } else {
                visible.push((uk.clone(), e.user_value.clone()));
            }
        }
        for uk in &expired {
            self.remove_entry(keys, key, uk);
        }
        if self.config.update_type == UpdateType::OnReadAndWrite {
            for (uk, uv) in &visible {
                self.put_stamped(keys, key, uk.clone(), uv.clone(), now);
            }
        }
        visible
    }

    /// `clear()` of the key's whole map.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) -> bool {
        let Some(map) = self.maps.get_mut(key.index()).and_then(Option::take) else { return false };
        self.stored -= map.len() as u64;
        if let Some(ix) = &mut self.expiry {
            for e in map.values() {
                ix.remove(e.last_access_ms);
            }
        }
        keys.unhold(key);
        true
    }

    /// The key's stored entries (expired or not), without the side effects of a read.
    pub fn peek(&self, key: KeyId) -> impl Iterator<Item = (&UK, &TtlValue<UV>)> {
        self.maps.get(key.index()).and_then(Option::as_ref).into_iter().flatten()
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
