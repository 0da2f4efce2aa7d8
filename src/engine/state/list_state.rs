//! Keyed `ListState`: a list per key, optionally behind the TTL decorator with **per-element** TTL.
//!
//! Models `HeapListState` and `TtlListState` (`flink-runtime/.../state/ttl/TtlListState.java`,
//! 1.10 to 2.x V1 state): `add`/`update` stamp each element with `now`; `get()` yields only the
//! unexpired elements (all of them with `ReturnExpiredIfNotCleanedUp`); when a full iteration
//! finds none unexpired it clears the list (`original.clear()`); with `OnReadAndWrite` it rewrites
//! the list with the unexpired elements, re-stamped. Expired elements otherwise stay stored until
//! cleaned up.
//!
//! On the heap backend `get()`, `add()` and `update()` first run the state's
//! [`TtlIncrementalCleanup`] (`TtlListState` calls `accessCallback.run()` there, not in `clear()`;
//! Flink 2.3.0 bytecode); `getUnexpiredOrNull` keeps an empty list and a list with nothing
//! expired, drops a list whose elements all expired, and writes back the unexpired elements
//! otherwise. `HeapListState`: `get()` is a `get` on the key group's map (plus a `remove` when the
//! read clears an all-expired list), `add()` a `get` (plus a `put` for a new list), `update()` a
//! `put` (a `remove` for an empty list), `clear()` a `remove`.

use super::ttl::{StateTtlConfig, StateVisibility, TtlValue, UpdateType};
use super::{ExpiryIndex, KeyId, KeyRegistry, StateSize, TtlIncrementalCleanup, Unexpired};
use crate::engine::shared_vec::SharedVec;
use crate::engine::time::Millis;
use std::rc::Rc;

/// A keyed list state, named as its Flink state descriptor.
#[derive(Debug, Clone)]
pub struct ListState<T: 'static> {
    pub name: &'static str,
    pub config: StateTtlConfig,
    /// Per key its list, behind an `Rc` so that a clone of the state (a time-travel checkpoint)
    /// shares it until either side writes ([`SharedVec`]).
    lists: SharedVec<Option<Rc<Vec<TtlValue<T>>>>>,
    stored: u64,
    expiry: Option<ExpiryIndex>,
    /// On the heap backend with TTL: the layout and the background cleanup.
    cleanup: Option<Box<TtlIncrementalCleanup>>,
}

impl<T: Clone + 'static> ListState<T> {
    pub fn new(name: &'static str, config: StateTtlConfig) -> Self {
        let ttl = config.enabled_ttl_ms();
        ListState {
            name,
            config,
            lists: SharedVec::new(),
            stored: 0,
            expiry: (ttl > 0).then(|| ExpiryIndex::new(ttl)),
            cleanup: None,
        }
    }

    /// `accessCallback.run()` at `now`: the background cleanup, on the heap backend.
    fn state_accessed(&mut self, keys: &mut KeyRegistry, now: Millis) {
        keys.set_ttl_time(now);
        TtlIncrementalCleanup::on_heap(&mut self.cleanup, self.expiry.is_some(), keys);
        let ListState { name, config, lists, stored, expiry, cleanup } = self;
        let Some(cleanup) = cleanup else { return };
        cleanup.state_accessed(|k| {
            // `TtlListState.getUnexpiredOrNull`.
            let Some(Some(list)) = lists.get(k.index()) else { return Unexpired::Same };
            if !list.iter().any(|e| config.expired(e.last_access_ms, now)) {
                return Unexpired::Same;
            }
            let Some(Some(list)) = lists.get_mut(k.index()) else { return Unexpired::Same };
            let list = Rc::make_mut(list);
            let before = list.len();
            let mut newest_expired = None;
            list.retain(|e| {
                let keep = !config.expired(e.last_access_ms, now);
                if !keep {
                    if let Some(ix) = expiry.as_mut() {
                        ix.remove(e.last_access_ms);
                    }
                    newest_expired = newest_expired.max(Some(e.last_access_ms));
                }
                keep
            });
            if list.len() == before {
                return Unexpired::Same;
            }
            *stored -= (before - list.len()) as u64;
            if !list.is_empty() {
                return Unexpired::Replaced;
            }
            lists[k.index()] = None;
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

    /// `add(value)` at `now`.
    pub fn add(&mut self, keys: &mut KeyRegistry, key: KeyId, value: T, now: Millis) {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
        self.push(keys, key, value, now);
    }

    /// Appends a stamped element (a new list is a `put` on the map).
    fn push(&mut self, keys: &mut KeyRegistry, key: KeyId, value: T, now: Millis) {
        keys.wrote();
        let i = key.index();
        if i >= self.lists.len() {
            self.lists.resize_with(i + 1, || None);
        }
        if self.lists[i].is_none() {
            keys.hold(key);
            if let (Some(c), Some((kg, hash))) = (&mut self.cleanup, keys.heap_slot(key)) {
                c.table.put_new(key, kg, hash);
            }
        }
        let list = Rc::make_mut(self.lists[i].get_or_insert_with(Rc::default));
        list.push(TtlValue { user_value: value, last_access_ms: now });
        self.stored += 1;
        if let Some(ix) = &mut self.expiry {
            ix.add(now);
            keys.touch(key, now);
        }
    }

    /// `update(values)` at `now`: replaces the list (an empty one clears it).
    pub fn update(&mut self, keys: &mut KeyRegistry, key: KeyId, values: Vec<T>, now: Millis) {
        self.state_accessed(keys, now);
        self.replace(keys, key, values, now);
    }

    /// `HeapListState.update`: an empty list is a `clear()`, any other a `put` of a new list.
    fn replace(&mut self, keys: &mut KeyRegistry, key: KeyId, values: Vec<T>, now: Millis) {
        if values.is_empty() {
            self.clear(keys, key);
            return;
        }
        if self.drop_list(keys, key, false) {
            // `put` of the key's new list where its old one was: the key stays held.
            self.map_operation(keys, key);
            self.lists[key.index()] = Some(Rc::default());
        }
        for v in values {
            self.push(keys, key, v, now);
        }
    }

    /// `get()` iterated to the end at `now`.
    pub fn get(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> Vec<T> {
        self.state_accessed(keys, now);
        self.map_operation(keys, key);
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
            self.replace(keys, key, unexpired, now);
        }
        all
    }

    /// Keys with a stored list (`StateTable.size()`).
    pub fn keys_stored(&self) -> u64 {
        self.lists.iter().filter(|l| l.is_some()).count() as u64
    }

    /// `clear()` (no cleanup callback); returns whether something was stored.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) -> bool {
        let existed = self.drop_list(keys, key, true);
        self.remove_from_table(keys, key, existed);
        existed
    }

    /// Forgets the key's list (releasing the key when `release`).
    fn drop_list(&mut self, keys: &mut KeyRegistry, key: KeyId, release: bool) -> bool {
        let Some(list) = self.lists.get_mut(key.index()).and_then(Option::take) else { return false };
        keys.wrote();
        self.stored -= list.len() as u64;
        if let Some(ix) = &mut self.expiry {
            for e in list.iter() {
                ix.remove(e.last_access_ms);
            }
        }
        if release {
            keys.unhold(key);
        }
        true
    }

    /// `stateTable.remove(namespace)`: unlinks the key's entry if it had one.
    fn remove_from_table(&mut self, keys: &mut KeyRegistry, key: KeyId, existed: bool) {
        match &mut self.cleanup {
            Some(c) if existed => c.table.remove(key),
            _ => self.map_operation(keys, key),
        }
    }

    /// The key's stored elements (expired or not), without the side effects of a read.
    pub fn peek(&self, key: KeyId) -> &[TtlValue<T>] {
        self.lists.get(key.index()).and_then(Option::as_ref).map_or(&[], |l| l.as_slice())
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
