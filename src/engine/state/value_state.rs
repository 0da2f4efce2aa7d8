//! Keyed `ValueState`: one value per key, optionally behind the TTL decorator.
//!
//! Models the heap backend's `HeapValueState` and, with an enabled [`StateTtlConfig`],
//! `TtlValueState` (`flink-runtime/.../state/ttl/TtlValueState.java`, 1.10 to 2.x V1 state):
//! - `value()` (`getWithTtlCheckAndUpdate(.., original::clear)`): an expired value is removed and
//!   returned only with `ReturnExpiredIfNotCleanedUp`; with `OnReadAndWrite` a read re-stamps;
//! - `update(v)` stores `(v, now)`: every write refreshes the TTL, even of an unchanged value;
//! - `clear()` removes the value.
//!
//! On the heap backend each access also runs the state's [`TtlIncrementalCleanup`] where
//! `TtlValueState` calls `accessCallback.run()` (Flink 2.3.0 bytecode): first in `value()` and
//! `update()`, last in `clear()`; and each `HeapValueState` call is one operation on the key
//! group's `CopyOnWriteStateMap` (`value()` a `get`, plus a `remove` when the read finds the value
//! expired; `update()` a `put`; `clear()` a `remove`).

use super::ttl::{StateTtlConfig, StateVisibility, TtlRead, TtlValue, UpdateType};
use super::{ExpiryIndex, KeyId, KeyRegistry, StateSize, TtlIncrementalCleanup, Unexpired};
use crate::engine::shared_vec::SharedVec;
use crate::engine::time::Millis;
use crate::engine::view::TtlView;

/// A keyed value state, named as its Flink state descriptor (`"accState"`, `"CleanupTime"`).
#[derive(Debug, Clone)]
pub struct ValueState<T: 'static> {
    pub name: &'static str,
    pub config: StateTtlConfig,
    entries: SharedVec<Option<TtlValue<T>>>,
    stored: u64,
    expiry: Option<ExpiryIndex>,
    /// For a value that holds rows (`ValueState<List<RowData>>`): how many rows a value holds,
    /// and the running total over every stored value ([`Self::elements`]).
    weigh: Option<fn(&T) -> u64>,
    elements: u64,
    /// On the heap backend with TTL: the layout and the background cleanup (made at the first
    /// access once the registry is on the heap backend).
    cleanup: Option<Box<TtlIncrementalCleanup>>,
}

impl<T: Clone + 'static> ValueState<T> {
    /// A state without TTL.
    pub fn new(name: &'static str) -> Self {
        ValueState::with_ttl(name, StateTtlConfig::DISABLED)
    }

    /// A state behind the TTL decorator when `config` is enabled.
    pub fn with_ttl(name: &'static str, config: StateTtlConfig) -> Self {
        let ttl = config.enabled_ttl_ms();
        ValueState {
            name,
            config,
            entries: SharedVec::new(),
            stored: 0,
            expiry: (ttl > 0).then(|| ExpiryIndex::new(ttl)),
            weigh: None,
            elements: 0,
            cleanup: None,
        }
    }

    /// The same state, counting the elements its values hold (`weigh`: a list's length) as they
    /// are stored, replaced, taken out, cleared and expired — a running total, O(1) per access,
    /// never a scan of the keys.
    pub fn counting_elements(mut self, weigh: fn(&T) -> u64) -> Self {
        self.weigh = Some(weigh);
        self
    }

    fn weight(weigh: Option<fn(&T) -> u64>, value: &T) -> u64 {
        weigh.map_or(0, |w| w(value))
    }

    fn slot(&mut self, key: KeyId) -> &mut Option<TtlValue<T>> {
        let i = key.index();
        if i >= self.entries.len() {
            self.entries.resize_with(i + 1, || None);
        }
        &mut self.entries[i]
    }

    /// `accessCallback.run()`: the background cleanup, on the heap backend.
    fn state_accessed(&mut self, keys: &mut KeyRegistry) {
        TtlIncrementalCleanup::on_heap(&mut self.cleanup, self.expiry.is_some(), keys);
        let ValueState { name, config, entries, stored, expiry, weigh, elements, cleanup } = self;
        let Some(cleanup) = cleanup else { return };
        let now = keys.ttl_time();
        cleanup.state_accessed(|k| {
            let Some(Some(e)) = entries.get(k.index()) else { return Unexpired::Same };
            if !config.expired(e.last_access_ms, now) {
                return Unexpired::Same;
            }
            let last = e.last_access_ms;
            keys.cleaned_up(k, name, last, config.expiration_timestamp(last));
            *elements -= Self::weight(*weigh, &e.user_value);
            entries[k.index()] = None;
            *stored -= 1;
            if let Some(ix) = expiry {
                ix.remove(last);
            }
            keys.unhold(k);
            Unexpired::Removed
        });
    }

    /// One operation on the key group's map that finds or leaves the entry as it is (`get`, or
    fn map_operation(&mut self, keys: &KeyRegistry, key: KeyId) {
        TtlIncrementalCleanup::map_operation(&mut self.cleanup, keys, key);
    }

    fn remove(&mut self, keys: &mut KeyRegistry, key: KeyId) -> Option<TtlValue<T>> {
        let Some(old) = self.entries.get_mut(key.index()).and_then(Option::take) else {
            self.map_operation(keys, key);
            return None;
        };
        if let Some(c) = &mut self.cleanup {
            c.table.remove(key);
        }
        self.stored -= 1;
        self.elements -= Self::weight(self.weigh, &old.user_value);
        if let Some(ix) = &mut self.expiry {
            ix.remove(old.last_access_ms);
        }
        keys.wrote();
        keys.unhold(key);
        Some(old)
    }

    fn store(&mut self, keys: &mut KeyRegistry, key: KeyId, value: TtlValue<T>) {
        keys.wrote();
        let stamp = value.last_access_ms;
        let ttl = self.expiry.is_some();
        self.elements += Self::weight(self.weigh, &value.user_value);
        let old = self.slot(key).replace(value);
        if let Some(o) = &old {
            self.elements -= Self::weight(self.weigh, &o.user_value);
        }
        match &old {
            Some(o) => {
                if let Some(ix) = &mut self.expiry {
                    ix.remove(o.last_access_ms);
                }
            }
            None => {
                self.stored += 1;
                keys.hold(key);
            }
        }
        if let (Some(c), Some((kg, hash))) = (&mut self.cleanup, keys.heap_slot(key)) {
            match old {
                Some(_) => c.table.map_operation(kg),
                None => c.table.put_new(key, kg, hash),
            }
        }
        if let Some(ix) = &mut self.expiry {
            ix.add(stamp);
        }
        if ttl {
            keys.touch(key, stamp);
        }
    }

    /// `value()` at processing time `now`.
    pub fn value(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> TtlRead<T> {
        keys.set_ttl_time(now);
        self.state_accessed(keys);
        self.read(keys, key, now)
    }

    /// `getWithTtlCheckAndUpdate(original::value, original::update, original::clear)`: a `get`,
    /// then a `remove` of an expired value (or a `put` re-stamping it with `OnReadAndWrite`).
    fn read(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> TtlRead<T> {
        self.map_operation(keys, key);
        let Some(stored) = self.entries.get(key.index()).and_then(Option::as_ref) else {
            return TtlRead::Absent;
        };
        if self.config.expired(stored.last_access_ms, now) {
            let (last_access_ms, expired_at_ms) =
                (stored.last_access_ms, self.config.expiration_timestamp(stored.last_access_ms));
            let old = self.remove(keys, key);
            let returned = (self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp)
                .then(|| old.map(|o| o.user_value))
                .flatten();
            return TtlRead::Expired { last_access_ms, expired_at_ms, returned };
        }
        let value = stored.user_value.clone();
        if self.config.update_type == UpdateType::OnReadAndWrite {
            self.store(keys, key, TtlValue { user_value: value.clone(), last_access_ms: now });
        }
        TtlRead::Fresh(value)
    }

    /// `value()` as the heap backend reads it: the stored object itself, not a copy
    /// (`HeapValueState.value()` returns the reference it holds, and `TtlValueState` the user value
    /// inside its `TtlValue`), so that a caller that changes a large value and writes it back
    /// (`RetractableTopNFunction`'s sorted map) does not copy it per record. The value is moved
    /// out, leaving `T::default()`, until [`Self::update`] writes it back or [`Self::put_back`]
    /// restores it.
    pub fn take_value(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> TtlRead<T>
    where
        T: Default,
    {
        keys.set_ttl_time(now);
        self.state_accessed(keys);
        let expired = match self.peek(key) {
            None => {
                self.map_operation(keys, key);
                return TtlRead::Absent;
            }
            Some(stored) => self.config.expired(stored.last_access_ms, now),
        };
        if expired {
            return self.read(keys, key, now);
        }
        self.map_operation(keys, key);
        let Some(Some(stored)) = self.entries.get_mut(key.index()) else {
            return TtlRead::Absent;
        };
        let value = std::mem::take(&mut stored.user_value);
        // Out of the state until written or put back: it weighs nothing meanwhile.
        self.elements -= Self::weight(self.weigh, &value);
        if self.config.update_type == UpdateType::OnReadAndWrite {
            self.store(keys, key, TtlValue { user_value: T::default(), last_access_ms: now });
        }
        TtlRead::Fresh(value)
    }

    /// Restores a value [`Self::take_value`] moved out, without a write (no TTL refresh): what the
    /// state holds when the caller fails before its `update`.
    pub fn put_back(&mut self, key: KeyId, value: T) {
        if let Some(Some(stored)) = self.entries.get_mut(key.index()) {
            self.elements += Self::weight(self.weigh, &value);
            self.elements -= Self::weight(self.weigh, &stored.user_value);
            stored.user_value = value;
        }
    }

    /// `update(value)` at `now`.
    pub fn update(&mut self, keys: &mut KeyRegistry, key: KeyId, value: T, now: Millis) {
        keys.set_ttl_time(now);
        self.state_accessed(keys);
        self.store(keys, key, TtlValue { user_value: value, last_access_ms: now });
    }

    /// `clear()` (`AbstractTtlState.clear`: `original.clear()`, then `accessCallback.run()` at the
    /// TTL clock's time); returns whether something was stored.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) -> bool {
        let removed = self.remove(keys, key).is_some();
        self.state_accessed(keys);
        removed
    }

    /// What is stored for `key` (expired or not), without the side effects of a read.
    pub fn peek(&self, key: KeyId) -> Option<&TtlValue<T>> {
        self.entries.get(key.index()).and_then(Option::as_ref)
    }

    /// The TTL of what is stored for `key`, for the page: last access, `lastAccess + ttl`, and
    /// whether it is expired at `now` (`None` without TTL or without an entry).
    pub fn ttl_view(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let stored = self.peek(key)?;
        self.config.is_enabled().then(|| TtlView {
            last_access_ms: stored.last_access_ms,
            expires_at_ms: self.config.expiration_timestamp(stored.last_access_ms),
            expired: self.config.expired(stored.last_access_ms, now),
        })
    }

    /// Entries stored, and how many of them are expired at `now`.
    /// Entries stored (expired or not).
    pub fn stored(&self) -> u64 {
        self.stored
    }

    /// The elements all stored values hold together (expired or not), when the state counts
    /// them ([`Self::counting_elements`]); 0 otherwise.
    pub fn elements(&self) -> u64 {
        self.elements
    }

    pub fn size(&self, now: Millis) -> StateSize {
        StateSize { stored: self.stored, expired: self.expiry.as_ref().map_or(0, |ix| ix.expired_at(now)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Row, Value};
    use crate::engine::state::ttl::Visibility;

    fn key(keys: &mut KeyRegistry, k: &str) -> KeyId {
        keys.intern(&Row::from(vec![Value::str(k)]))
    }

    #[test]
    fn writes_refresh_reads_do_not_with_on_create_and_write() {
        let mut keys = KeyRegistry::new(10);
        let mut s = ValueState::with_ttl("acc", StateTtlConfig::create_ttl_config(10));
        let k = key(&mut keys, "k");
        s.update(&mut keys, k, 1, 0);
        assert_eq!(s.value(&mut keys, k, 9), TtlRead::Fresh(1));
        assert_eq!(s.config.visibility(s.peek(k).unwrap().last_access_ms, 10), Visibility::ExpiredStillStored);
        assert_eq!(s.size(10), StateSize { stored: 1, expired: 1 });
        assert_eq!(keys.visible(10), 0);
        assert_eq!(
            s.value(&mut keys, k, 10),
            TtlRead::Expired { last_access_ms: 0, expired_at_ms: 10, returned: None }
        );
        assert!(s.peek(k).is_none(), "an expired value is removed when read");
        assert_eq!(s.size(10), StateSize { stored: 0, expired: 0 });
        assert_eq!(keys.live(), 0);
        s.update(&mut keys, k, 2, 20);
        s.update(&mut keys, k, 2, 25);
        assert_eq!(s.value(&mut keys, k, 34), TtlRead::Fresh(2));
        assert_eq!((keys.live(), keys.visible(34), keys.visible(35)), (1, 1, 0));
    }

    #[test]
    fn on_read_and_write_and_return_expired() {
        let mut cfg = StateTtlConfig::new_builder(10).unwrap();
        cfg.update_type = UpdateType::OnReadAndWrite;
        cfg.state_visibility = StateVisibility::ReturnExpiredIfNotCleanedUp;
        let mut keys = KeyRegistry::new(10);
        let mut s = ValueState::with_ttl("v", cfg);
        let k = key(&mut keys, "k");
        s.update(&mut keys, k, 7, 0);
        assert_eq!(s.value(&mut keys, k, 8), TtlRead::Fresh(7));
        assert_eq!(s.peek(k).unwrap().last_access_ms, 8);
        assert_eq!(
            s.value(&mut keys, k, 18),
            TtlRead::Expired { last_access_ms: 8, expired_at_ms: 18, returned: Some(7) }
        );
    }

    /// The running count of a list-valued state follows every write, move, removal and expiry.
    #[test]
    fn the_elements_of_stored_lists_are_counted_as_they_change() {
        let mut keys = KeyRegistry::new(10);
        let mut s = ValueState::with_ttl("values", StateTtlConfig::create_ttl_config(10))
            .counting_elements(|v: &Vec<u8>| v.len() as u64);
        // A key is interned just before its first write (an id nothing holds is reused).
        let a = key(&mut keys, "a");
        s.update(&mut keys, a, vec![1, 2, 3], 0);
        let b = key(&mut keys, "b");
        s.update(&mut keys, b, vec![1], 5);
        assert_eq!(s.elements(), 4);
        let TtlRead::Fresh(mut taken) = s.take_value(&mut keys, a, 6) else { panic!("a is fresh") };
        assert_eq!(s.elements(), 1, "a's list is out of the state until written back");
        taken.push(4);
        s.update(&mut keys, a, taken, 6);
        assert_eq!(s.elements(), 5);
        let TtlRead::Fresh(taken) = s.take_value(&mut keys, a, 7) else { panic!("a is fresh") };
        s.put_back(a, taken);
        assert_eq!(s.elements(), 5, "put back unchanged");
        s.update(&mut keys, a, vec![9], 8);
        assert_eq!(s.elements(), 2, "a replaced by one element");
        // b expired at 15: the read that finds it so removes it, its element with it.
        assert!(matches!(s.value(&mut keys, b, 15), TtlRead::Expired { .. }));
        assert_eq!(s.elements(), 1);
        s.clear(&mut keys, a);
        assert_eq!((s.elements(), s.stored()), (0, 0));
    }

    /// On the heap backend each access cleans up a few expired entries in the background: their
    /// elements leave the count with them.
    #[test]
    fn the_background_cleanup_takes_the_elements_of_what_it_removes() {
        let mut keys = KeyRegistry::new(10);
        keys.use_heap_backend(vec![crate::engine::row::DataType::String]);
        let mut s = ValueState::with_ttl("values", StateTtlConfig::create_ttl_config(10))
            .counting_elements(|v: &Vec<u8>| v.len() as u64);
        let mut ids = Vec::new();
        for i in 0..20 {
            let k = key(&mut keys, &format!("k{i}"));
            s.update(&mut keys, k, vec![0; i % 3 + 1], 0);
            ids.push(k);
        }
        let counted = |s: &ValueState<Vec<u8>>| {
            ids.iter().filter_map(|&k| s.peek(k)).map(|v| v.user_value.len() as u64).sum::<u64>()
        };
        assert_eq!(s.elements(), 39);
        for t in 20..320 {
            s.update(&mut keys, ids[0], vec![1, 2], t);
            assert_eq!(s.elements(), counted(&s), "at {t}: {} entries stored", s.stored());
        }
        assert!(s.stored() < 20, "the background cleanup removed some: {} stored", s.stored());
    }

    #[test]
    fn a_key_nothing_holds_is_freed_and_its_id_reused() {
        let mut keys = KeyRegistry::new(0);
        let mut s = ValueState::new("v");
        let a = key(&mut keys, "a");
        s.update(&mut keys, a, 1, 0);
        let b = key(&mut keys, "b");
        assert_ne!(a, b);
        keys.finish();
        let c = key(&mut keys, "c");
        assert_eq!(c, b, "b held nothing and was freed when the call ended");
        s.clear(&mut keys, a);
        assert_eq!(keys.live(), 0, "a is freed as soon as its state went");
        keys.finish();
        assert!([a, b].contains(&key(&mut keys, "d")), "ids are reused");
    }
}
