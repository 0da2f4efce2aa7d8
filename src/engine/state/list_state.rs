//! Keyed `ListState`: a list per key, optionally behind the TTL decorator with **per-element** TTL.
//!
//! Models `HeapListState` and `TtlListState` (`flink-runtime/.../state/ttl/TtlListState.java`,
//! 1.10 to 2.x V1 state): `add`/`update` stamp each element with `now`; `get()` yields only the
//! unexpired elements (all of them with `ReturnExpiredIfNotCleanedUp`); when a full iteration
//! finds none unexpired it clears the list (`original.clear()`); with `OnReadAndWrite` it rewrites
//! the list with the unexpired elements, re-stamped. Expired elements otherwise stay stored until
//! cleaned up.

use super::ttl::{StateTtlConfig, StateVisibility, TtlValue, UpdateType};
use super::{ExpiryIndex, KeyId, KeyRegistry, StateSize};
use crate::engine::time::Millis;

/// A keyed list state, named as its Flink state descriptor.
#[derive(Debug, Clone)]
pub struct ListState<T> {
    pub name: &'static str,
    pub config: StateTtlConfig,
    lists: Vec<Option<Vec<TtlValue<T>>>>,
    stored: u64,
    expiry: Option<ExpiryIndex>,
}

impl<T: Clone> ListState<T> {
    pub fn new(name: &'static str, config: StateTtlConfig) -> Self {
        let ttl = config.enabled_ttl_ms();
        ListState { name, config, lists: Vec::new(), stored: 0, expiry: (ttl > 0).then(|| ExpiryIndex::new(ttl)) }
    }

    /// `add(value)` at `now`.
    pub fn add(&mut self, keys: &mut KeyRegistry, key: KeyId, value: T, now: Millis) {
        let i = key.index();
        if i >= self.lists.len() {
            self.lists.resize_with(i + 1, || None);
        }
        let list = self.lists[i].get_or_insert_with(|| {
            keys.hold(key);
            Vec::new()
        });
        list.push(TtlValue { user_value: value, last_access_ms: now });
        self.stored += 1;
        if let Some(ix) = &mut self.expiry {
            ix.add(now);
            keys.touch(key, now);
        }
    }

    /// `update(values)` at `now`: replaces the list (an empty one clears it).
    pub fn update(&mut self, keys: &mut KeyRegistry, key: KeyId, values: Vec<T>, now: Millis) {
        self.clear(keys, key);
        for v in values {
            self.add(keys, key, v, now);
        }
    }

    /// `get()` iterated to the end at `now`.
    pub fn get(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> Vec<T> {
        let Some(list) = self.lists.get(key.index()).and_then(Option::as_ref) else { return Vec::new() };
        let unexpired: Vec<T> =
            list.iter().filter(|e| !self.config.expired(e.last_access_ms, now)).map(|e| e.user_value.clone()).collect();
        let all: Vec<T> = if self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp {
            list.iter().map(|e| e.user_value.clone()).collect()
        } else {
            unexpired.clone()
        };
        if unexpired.is_empty() {
            self.clear(keys, key);
        } else if self.config.update_type == UpdateType::OnReadAndWrite {
            self.update(keys, key, unexpired, now);
        }
        all
    }

    /// `clear()`; returns whether something was stored.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) -> bool {
        let Some(list) = self.lists.get_mut(key.index()).and_then(Option::take) else { return false };
        self.stored -= list.len() as u64;
        if let Some(ix) = &mut self.expiry {
            for e in &list {
                ix.remove(e.last_access_ms);
            }
        }
        keys.unhold(key);
        true
    }

    /// The key's stored elements (expired or not), without the side effects of a read.
    pub fn peek(&self, key: KeyId) -> &[TtlValue<T>] {
        self.lists.get(key.index()).and_then(Option::as_deref).unwrap_or(&[])
    }

    /// Elements stored, and how many of them are expired at `now`.
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
    fn elements_expire_one_by_one_and_an_all_expired_read_clears() {
        let mut keys = KeyRegistry::new(10);
        let mut l: ListState<i64> = ListState::new("list", StateTtlConfig::create_ttl_config(10));
        let k = keys.intern(&Row::from(vec![Value::Int(1)]));
        l.add(&mut keys, k, 1, 0);
        l.add(&mut keys, k, 2, 5);
        assert_eq!(l.get(&mut keys, k, 10), vec![2]);
        assert_eq!(l.size(10), StateSize { stored: 2, expired: 1 }, "an expired element stays stored");
        assert!(l.get(&mut keys, k, 15).is_empty());
        assert_eq!(l.size(15), StateSize { stored: 0, expired: 0 }, "no element unexpired: the list is cleared");
        assert_eq!(keys.live(), 0);
    }
}
