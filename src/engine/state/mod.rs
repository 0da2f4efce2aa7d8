//! The keyed-state layer every operator uses: its keys, its keyed states, its timers.
//!
//! Models what a Flink operator gets from its `KeyedStateBackend` (heap backend) and its
//! `InternalTimerService`: per-key [`ValueState`], [`MapState`] and [`ListState`], each
//! optionally behind the state-TTL decorator ([`ttl`]), and processing-time timers.
//!
//! Keys are interned: an operator resolves a record's key once ([`KeyRegistry::intern`], like
//! Flink's `setCurrentKey`) and every state and timer then addresses it by [`KeyId`], an index
//! into dense per-state vectors. A key id is freed when no state holds an entry for the key and
//! no timer is registered for it, so memory follows the keys Flink keeps, not the keys ever seen.
//! Which id a key gets is not observable: views list keys in key order.

mod copy_on_write_state_table;
mod expiry_index;
pub mod key_groups;
mod key_index;
mod list_state;
mod map_state;
pub mod ttl;
mod ttl_incremental_cleanup;
mod value_state;

pub use expiry_index::ExpiryIndex;
use key_index::KeyIndex;
pub use list_state::ListState;
pub use map_state::MapState;
pub use ttl_incremental_cleanup::{TtlIncrementalCleanup, Unexpired};
pub use value_state::ValueState;

use super::operators::binary_row::binary_row_hash_code;
use super::row::{DataType, Row};
use super::shared_vec::SharedVec;
use super::time::Millis;
use super::timer_service::TimerService;
use std::collections::BTreeSet;
use ttl::StateTtlConfig;

/// An interned key of one operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub u32);

impl KeyId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The keys of one operator: interning, and how many states and timers hold each key.
#[derive(Debug, Clone, Default)]
pub struct KeyRegistry {
    /// Key ids by key (the keys are `rows`): a time-travel checkpoint shares it.
    ids: KeyIndex,
    rows: SharedVec<Option<Row>>,
    /// Per key: the states with an entry for it plus its registered timers.
    holders: SharedVec<u32>,
    free: Vec<u32>,
    /// The key of the running `processElement` / `onTimer` call (Flink's current key).
    current: Option<KeyId>,
    /// Per key: the latest TTL stamp written to any of its states.
    last_write: SharedVec<Millis>,
    /// Keys by their latest TTL stamp, when the operator's state has a TTL.
    key_expiry: Option<ExpiryIndex>,
    /// The TTL of the operator's states (disabled: no TTL).
    ttl: StateTtlConfig,
    /// When asked for ([`KeyRegistry::track_invisible`]): (latest TTL stamp, key) of every held
    /// key not yet reported, in stamp order, so the keys becoming invisible can be named as time
    /// passes. One entry per key: its size follows the keys held, not the writes.
    invisible_queue: Option<BTreeSet<(Millis, KeyId)>>,
    /// Keys with at least one holder.
    live: usize,
    /// With state TTL on the heap backend: the key columns' types and, per key, its key group
    /// and composite hash ([`key_groups`]), where [`TtlIncrementalCleanup`] finds it.
    heap: Option<HeapKeys>,
    /// The TTL clock (`TtlTimeProvider.currentTimestamp()`): the processing time of the running
    /// call, read by state calls that take no time (`clear()` runs the cleanup after it).
    ttl_time: Millis,
    /// Entries the background cleanup removed since [`KeyRegistry::take_cleaned_up`] last ran.
    cleaned_up: Vec<CleanedUp>,
    /// State writes so far ([`KeyRegistry::wrote`]): what tells a quiet action
    /// ([`crate::engine::quiet`]) from one that wrote state without any other trace.
    writes: u64,
}

#[derive(Debug, Clone, Default)]
struct HeapKeys {
    types: Vec<DataType>,
    /// Per key id: `(key group, compositeHash)`.
    slots: SharedVec<(u8, i32)>,
}

/// An expired entry the TTL background cleanup removed (no operator read it).
#[derive(Debug, Clone, PartialEq)]
pub struct CleanedUp {
    pub key: Row,
    pub state: &'static str,
    pub last_access_ms: Millis,
    pub expired_at_ms: Millis,
}

impl KeyRegistry {
    /// A registry for an operator whose states expire after `ttl_ms` (0: no TTL).
    pub fn new(ttl_ms: Millis) -> Self {
        KeyRegistry {
            key_expiry: (ttl_ms > 0).then(|| ExpiryIndex::new(ttl_ms)),
            ttl: StateTtlConfig::create_ttl_config(ttl_ms),
            ..KeyRegistry::default()
        }
    }

    /// Puts the operator's TTL states on the heap backend (`hashmap`, Flink's default), whose
    /// states run [`TtlIncrementalCleanup`]: keys are placed by the `BinaryRowData` hash of their
    /// `key_types` columns. Called before the first key is interned; a no-op without a TTL.
    pub fn use_heap_backend(&mut self, key_types: Vec<DataType>) {
        if self.key_expiry.is_some() {
            self.heap = Some(HeapKeys { types: key_types, slots: SharedVec::new() });
        }
    }

    /// The key's `(key group, compositeHash)` on the heap backend, when its TTL states have a
    /// background cleanup ([`KeyRegistry::use_heap_backend`]).
    pub fn heap_slot(&self, id: KeyId) -> Option<(u32, i32)> {
        let (kg, hash) = *self.heap.as_ref()?.slots.get(id.index())?;
        Some((u32::from(kg), hash))
    }

    /// Whether the TTL states of this operator are on the heap backend.
    pub fn heap_slot_enabled(&self) -> bool {
        self.heap.is_some()
    }

    /// The TTL clock: the time of the latest state call.
    pub fn ttl_time(&self) -> Millis {
        self.ttl_time
    }

    /// Sets the TTL clock (every state call that takes a time does).
    pub fn set_ttl_time(&mut self, now: Millis) {
        self.ttl_time = now;
    }

    /// Notes that the background cleanup removed `state`'s expired entry of `id` (before the state
    /// lets go of the key).
    pub fn cleaned_up(&mut self, id: KeyId, state: &'static str, last_access_ms: Millis, expired_at_ms: Millis) {
        if let Some(key) = &self.rows[id.index()] {
            self.cleaned_up.push(CleanedUp { key: key.clone(), state, last_access_ms, expired_at_ms });
        }
    }

    /// The entries the background cleanup removed since the last call.
    pub fn take_cleaned_up(&mut self) -> Vec<CleanedUp> {
        std::mem::take(&mut self.cleaned_up)
    }

    /// Keeps the order in which keys become invisible, for [`KeyRegistry::drain_invisible`]
    /// (the pipeline asks it of its last operator). A no-op without a TTL.
    pub fn track_invisible(&mut self) {
        if self.key_expiry.is_some() && self.invisible_queue.is_none() {
            self.invisible_queue = Some(BTreeSet::new());
        }
    }

    /// Calls `f(key, expired_at_ms)` for every held key whose whole state became invisible at or
    /// before `now`: its latest TTL stamp `s` has `s + ttl <= now` (`TtlUtils.expired`; with
    /// `NeverReturnExpired`, the visibility every SQL operator's state has, a read from then on
    /// finds nothing, whether or not the entries are still stored). Each key is reported once
    /// per stamp; nothing without [`KeyRegistry::track_invisible`].
    pub fn drain_invisible(&mut self, now: Millis, mut f: impl FnMut(&Row, Millis)) {
        let Some(queue) = &mut self.invisible_queue else { return };
        while let Some(&(stamp, id)) = queue.first() {
            let expired_at = self.ttl.expiration_timestamp(stamp);
            if expired_at > now {
                break;
            }
            queue.pop_first();
            let i = id.index();
            if self.last_write[i] == stamp && self.holders[i] > 0 {
                if let Some(row) = &self.rows[i] {
                    f(row, expired_at);
                }
            }
        }
    }

    /// `setCurrentKey(row)`: the key's id, interning it if it is new. The previous current key is
    /// freed if nothing holds it any more.
    pub fn intern(&mut self, row: &Row) -> KeyId {
        if let Some(id) = self.ids.get(row, &self.rows) {
            if self.current != Some(id) {
                self.finish();
                self.current = Some(id);
            }
            return id;
        }
        self.finish();
        let id = match self.free.pop() {
            Some(i) => {
                self.rows[i as usize] = Some(row.clone());
                KeyId(i)
            }
            None => {
                self.rows.push(Some(row.clone()));
                self.holders.push(0);
                self.last_write.push(Millis::MIN);
                KeyId((self.rows.len() - 1) as u32)
            }
        };
        if let Some(heap) = &mut self.heap {
            let h = binary_row_hash_code(row, &heap.types);
            let i = id.index();
            if i >= heap.slots.len() {
                heap.slots.resize(i + 1, (0, 0));
            }
            heap.slots[i] = (key_groups::assign_to_key_group(h) as u8, key_groups::composite_hash(h));
        }
        self.ids.insert(id, &self.rows);
        self.current = Some(id);
        id
    }

    /// The id of a key that is held, without interning it.
    pub fn lookup(&self, row: &Row) -> Option<KeyId> {
        self.ids.get(row, &self.rows).filter(|id| self.holders[id.index()] > 0)
    }

    /// Ends the current call: frees the current key if nothing holds it.
    pub fn finish(&mut self) {
        if let Some(id) = self.current.take() {
            if self.holders[id.index()] == 0 {
                self.free_key(id);
            }
        }
    }

    fn free_key(&mut self, id: KeyId) {
        if let Some(row) = self.rows[id.index()].take() {
            self.ids.remove(id, &row);
            self.free.push(id.0);
        }
    }

    /// The key's values.
    ///
    /// # Panics
    /// Never for an id handed out by [`KeyRegistry::intern`] that is still held or current.
    pub fn row(&self, id: KeyId) -> &Row {
        self.rows[id.index()].as_ref().expect("a live key id")
    }

    /// A state created an entry for the key, or a timer was registered.
    pub fn hold(&mut self, id: KeyId) {
        let h = &mut self.holders[id.index()];
        if *h == 0 {
            self.live += 1;
        }
        *h += 1;
    }

    /// A state's last entry for the key went, or a timer was deleted or fired.
    pub fn unhold(&mut self, id: KeyId) {
        let h = &mut self.holders[id.index()];
        *h = h.saturating_sub(1);
        if *h == 0 {
            self.live -= 1;
            if let Some(ix) = &mut self.key_expiry {
                let stamp = self.last_write[id.index()];
                if stamp != Millis::MIN {
                    ix.remove(stamp);
                }
            }
            if let Some(queue) = &mut self.invisible_queue {
                queue.remove(&(self.last_write[id.index()], id));
            }
            self.last_write[id.index()] = Millis::MIN;
            if self.current != Some(id) {
                self.free_key(id);
            }
        }
    }

    /// A TTL state wrote an entry of the key stamped `now`.
    pub fn touch(&mut self, id: KeyId, now: Millis) {
        let last = &mut self.last_write[id.index()];
        if *last == now {
            return;
        }
        if let Some(ix) = &mut self.key_expiry {
            if *last != Millis::MIN {
                ix.remove(*last);
            }
            ix.add(now);
        }
        if let Some(queue) = &mut self.invisible_queue {
            queue.remove(&(*last, id));
            queue.insert((now, id));
        }
        *last = now;
    }

    /// A state of the operator stored, re-stamped or removed an entry: `update`, `put`, `add`, a
    /// `clear` or `remove` that found something, a TTL re-stamp on read (`OnReadAndWrite`). An
    /// identical value written counts: Flink writes it too (and, with a TTL, re-stamps it).
    pub fn wrote(&mut self) {
        self.writes += 1;
    }

    /// State writes so far ([`KeyRegistry::wrote`]).
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Keys some state or timer holds.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Keys with state that reads would still see at `now`: with a TTL, those whose latest state
    /// write is less than `ttl` ago (for a key whose states are written together, as every
    /// operator modelled here writes them, exactly the keys with a visible entry).
    pub fn visible(&self, now: Millis) -> usize {
        match &self.key_expiry {
            None => self.live,
            Some(ix) => self.live.saturating_sub(ix.expired_at(now) as usize),
        }
    }

    /// Every held key, in no particular order.
    pub fn held(&self) -> impl Iterator<Item = KeyId> + '_ {
        self.rows.iter().enumerate().filter(|(i, r)| r.is_some() && self.holders[*i] > 0).map(|(i, _)| KeyId(i as u32))
    }

    /// The first `limit` held keys in key order (a partial sort: linear in the keys held).
    pub fn first_sorted(&self, limit: usize) -> Vec<KeyId> {
        if limit == 0 {
            return Vec::new();
        }
        let mut ids: Vec<KeyId> = self.held().collect();
        let by_row = |a: &KeyId, b: &KeyId| self.row(*a).cmp(self.row(*b));
        if limit < ids.len() {
            ids.select_nth_unstable_by(limit, by_row);
            ids.truncate(limit);
        }
        ids.sort_by(by_row);
        ids
    }
}

/// An operator's keys and timers (`KeyedStateBackend` + `InternalTimerService`). Its keyed
/// states are the operator's own fields; each call passes them `&mut backend.keys`.
#[derive(Debug, Clone, Default)]
pub struct KeyedStateBackend {
    pub keys: KeyRegistry,
    pub timers: TimerService,
}

impl KeyedStateBackend {
    /// A backend whose states expire after `ttl_ms` (0: never).
    pub fn new(ttl_ms: Millis) -> Self {
        KeyedStateBackend { keys: KeyRegistry::new(ttl_ms), timers: TimerService::default() }
    }

    /// `timerService.registerProcessingTimeTimer(timestamp)` for `key`. Returns `false` when
    /// that timer was already registered (a no-op in Flink).
    pub fn register_processing_time_timer(&mut self, key: KeyId, timestamp: Millis) -> bool {
        let added = self.timers.register(key, timestamp);
        if added {
            self.keys.hold(key);
        }
        added
    }

    /// `timerService.deleteProcessingTimeTimer(timestamp)` for `key`. Returns `false` when no such
    /// timer existed (a no-op in Flink).
    pub fn delete_processing_time_timer(&mut self, key: KeyId, timestamp: Millis) -> bool {
        let removed = self.timers.delete(key, timestamp);
        if removed {
            self.keys.unhold(key);
        }
        removed
    }

    /// Removes the head timer if it is due at `time`, making its key current for the callback.
    /// The key becomes current before the timer lets go of it, so a key held by nothing but
    /// its timers stays interned through the callback (`onTimer` reads its row).
    pub fn poll_due(&mut self, time: Millis) -> Option<(Millis, KeyId)> {
        let (ts, key) = self.timers.poll_due(time)?;
        self.keys.finish();
        self.keys.current = Some(key);
        self.keys.unhold(key);
        Some((ts, key))
    }
}

/// Sizes of one keyed state at a processing time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct StateSize {
    /// Entries physically stored (a value, a map entry, a list element).
    pub stored: u64,
    /// Of those, entries whose TTL expired: invisible to reads, not yet removed.
    pub expired: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::Value;

    /// A key whose only holder was a timer keeps its row through the timer's callback, and is
    /// freed when the next call begins.
    #[test]
    fn a_key_held_only_by_its_timer_survives_until_the_callback_ends() {
        let mut b = KeyedStateBackend::default();
        let row = Row::from(vec![Value::str("a")]);
        let a = b.keys.intern(&row);
        b.register_processing_time_timer(a, 5);
        let other = b.keys.intern(&Row::from(vec![Value::str("b")]));
        assert_ne!(a, other);
        assert_eq!(b.poll_due(5), Some((5, a)));
        assert_eq!(b.keys.row(a), &row);
        assert_eq!(b.keys.live(), 0);
        b.keys.finish();
        assert_eq!(b.keys.lookup(&row), None);
    }
}
