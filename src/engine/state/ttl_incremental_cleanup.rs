//! State TTL's background cleanup on the heap backend: when an expired entry nobody reads is
//! physically removed.
//!
//! Models Flink 2.3.0's `flink-runtime/.../state/ttl/TtlIncrementalCleanup.java` with
//! `StateTtlConfig.IncrementalCleanupStrategy.DEFAULT_INCREMENTAL_CLEANUP_STRATEGY`
//! (`cleanupSize` 5, `runCleanupForEveryRecord` false), which is what every SQL operator's state
//! gets: `StateConfigUtil.createTtlConfig` names no cleanup strategy, so `isCleanupInBackground`
//! stays true, and `TtlStateFactory` gives each TTL state its own cleanup with its own visitor
//! over its own [`CopyOnWriteStateTable`] (read in the 2.3.0 bytecode; `docs/flink-source-notes.md`,
//! "Background TTL cleanup"). On RocksDB (`getStateIncrementalVisitor` throws there) the callback
//! is a no-op; see [`super::ttl`] for what RocksDB does instead.
//!
//! `stateAccessed()` runs where the TTL decorators call `accessCallback.run()`: before
//! `value()`/`update()` of a `TtlValueState` and after its `clear()`; before every `TtlMapState`
//! operation but `clear()` (see each state's doc):
//!
//! ```text
//! if stateIterator == null || !stateIterator.hasNext():
//!     stateIterator = original.getStateIncrementalVisitor(cleanupSize)   // a new sweep
//! entryNum = 0
//! while entryNum < cleanupSize && stateIterator.hasNext()
//!         && !(batch = stateIterator.nextEntries()).isEmpty():             // one bucket chain
//!     for e in batch:
//!         clean = ttlState.getUnexpiredOrNull(e.state)
//!         if clean == null: stateIterator.remove(e)
//!         elif clean != e.state: stateIterator.update(e, clean)
//!     entryNum += batch.size()
//! ```

use super::copy_on_write_state_table::{CopyOnWriteStateTable, StateEntryIterator};
use super::{KeyId, KeyRegistry};

/// `IncrementalCleanupStrategy.DEFAULT_INCREMENTAL_CLEANUP_STRATEGY.getCleanupSize()`.
pub const CLEANUP_SIZE: usize = 5;

/// What `getUnexpiredOrNull` made of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unexpired {
    /// The same object: nothing to write.
    Same,
    /// A new object (a map or list with expired elements dropped, or any non-empty map):
    /// `stateIterator.update(e, clean)`, a `put` on the map.
    Replaced,
    /// `null`: the whole entry expired, `stateIterator.remove(e)`.
    Removed,
}

/// One TTL state's layout on the heap backend and its `TtlIncrementalCleanup`.
#[derive(Debug, Clone, Default)]
pub struct TtlIncrementalCleanup {
    pub table: CopyOnWriteStateTable,
    state_iterator: Option<StateEntryIterator>,
    batch: Vec<KeyId>,
}

impl TtlIncrementalCleanup {
    /// A TTL state's cleanup on the heap backend: made at the state's first access once its
    /// registry is on the heap backend ([`KeyRegistry::use_heap_backend`]); none otherwise.
    pub fn on_heap<'a>(cleanup: &'a mut Option<Box<Self>>, ttl: bool, keys: &KeyRegistry) -> Option<&'a mut Self> {
        if cleanup.is_none() && ttl && keys.heap_slot_enabled() {
            *cleanup = Some(Box::default());
        }
        cleanup.as_deref_mut()
    }

    /// One operation on the key group's map of `key` that finds or leaves its entry in place
    /// (`get`, or `put` of a key the map holds): a step of an incremental rehash.
    pub fn map_operation(cleanup: &mut Option<Box<Self>>, keys: &KeyRegistry, key: KeyId) {
        if let (Some(c), Some((kg, _))) = (cleanup, keys.heap_slot(key)) {
            c.table.map_operation(kg);
        }
    }

    /// `stateAccessed()`. `get_unexpired_or_null(key)` decides one entry and, when it is not
    /// [`Unexpired::Same`], has already changed the state's own copy; the visitor's `remove` or
    /// `update` on the table follows here. Returns how many entries were removed.
    pub fn state_accessed(&mut self, mut get_unexpired_or_null: impl FnMut(KeyId) -> Unexpired) -> u32 {
        let TtlIncrementalCleanup { table, state_iterator, batch } = self;
        // initIteratorIfNot()
        if !state_iterator.as_mut().is_some_and(|it| it.has_next(table)) {
            *state_iterator = None;
        }
        let it = state_iterator.get_or_insert_with(|| StateEntryIterator::new(table, CLEANUP_SIZE));
        let mut entry_num = 0;
        let mut removed = 0;
        while entry_num < CLEANUP_SIZE && it.has_next(table) {
            it.next_entries_after_has_next(table, batch);
            if batch.is_empty() {
                break;
            }
            for &key in batch.iter() {
                match get_unexpired_or_null(key) {
                    Unexpired::Same => {}
                    Unexpired::Replaced => table.map_operation(table.key_group_of(key)),
                    Unexpired::Removed => {
                        table.remove(key);
                        removed += 1;
                    }
                }
            }
            entry_num += batch.len();
        }
        removed
    }
}
