//! The processing-time half of Flink's keyed timer service.
//!
//! Models `InternalTimerServiceImpl` with its `HeapPriorityQueueSet` of `TimerHeapInternalTimer`s
//! (`flink-streaming-java/.../api/operators/InternalTimerServiceImpl.java`, Flink 1.10;
//! `flink-runtime/.../streaming/api/operators/InternalTimerServiceImpl.java`, Flink 2.x — the
//! rules below are the same in both):
//! - a timer is identified by (key, timestamp) (the namespace is always `VoidNamespace` for the
//!   operators modelled here): registering the same timer twice is a no-op;
//! - deleting a timer that does not exist is a no-op;
//! - advancing processing time to `t` fires every timer with `timestamp <= t`, in timestamp order,
//!   and each timer is removed (`poll`) **before** its callback runs.
//!
//! Flink orders timers by timestamp only (`TIMER_COMPARATOR`) on a binary heap, so timers with
//! equal timestamps fire in no defined order. This model picks one deterministic order and
//! documents it: **equal timestamps fire in the order they were first registered**.

use super::shared_vec::SharedVec;
use super::state::KeyId;
use super::time::Millis;
use smallvec::SmallVec;

/// The processing-time timers of one operator, by key.
#[derive(Debug, Clone, Default)]
pub struct TimerService {
    /// (timestamp ms, registration sequence number) → key: the firing order.
    /// A persistent B-tree (imbl's `OrdMap` over `Rc`): a time-travel checkpoint shares it.
    queue: imbl::GenericOrdMap<(Millis, u64), KeyId, imbl::shared_ptr::RcK>,
    /// Per key id: its timers as (timestamp ms, sequence number), the dedup set
    /// (`HeapPriorityQueueSet.dedupMap`). An operator holds one or two timers per key.
    per_key: SharedVec<SmallVec<[(Millis, u64); 1]>>,
    next_seq: u64,
    /// Timers registered, deleted and fired so far (no-op registrations and deletions not counted).
    pub registered: u64,
    pub deleted: u64,
    pub fired: u64,
}

impl TimerService {
    fn of_key(&mut self, key: KeyId) -> &mut SmallVec<[(Millis, u64); 1]> {
        let i = key.index();
        if i >= self.per_key.len() {
            self.per_key.resize_with(i + 1, SmallVec::new);
        }
        &mut self.per_key[i]
    }

    /// `registerProcessingTimeTimer(timestamp)` for `key`. Returns `false` (and changes nothing)
    /// when that (key, timestamp) timer is already registered.
    pub fn register(&mut self, key: KeyId, timestamp: Millis) -> bool {
        let seq = self.next_seq;
        let timers = self.of_key(key);
        if timers.iter().any(|(ts, _)| *ts == timestamp) {
            return false;
        }
        timers.push((timestamp, seq));
        self.next_seq += 1;
        self.queue.insert((timestamp, seq), key);
        self.registered += 1;
        true
    }

    /// `deleteProcessingTimeTimer(timestamp)` for `key`. Returns `false` (and changes nothing)
    /// when no such timer exists.
    pub fn delete(&mut self, key: KeyId, timestamp: Millis) -> bool {
        let timers = self.of_key(key);
        let Some(i) = timers.iter().position(|(ts, _)| *ts == timestamp) else { return false };
        let (_, seq) = timers.swap_remove(i);
        self.queue.remove(&(timestamp, seq));
        self.deleted += 1;
        true
    }

    /// The next timer to fire, as (timestamp ms, registration sequence number, key).
    pub fn peek(&self) -> Option<(Millis, u64, KeyId)> {
        self.queue.get_min().map(|&((ts, seq), key)| (ts, seq, key))
    }

    /// Removes and returns the head timer if its timestamp is `<= time` (one iteration of
    /// `onProcessingTime(time)`'s `while (timer.getTimestamp() <= time) { queue.poll(); ... }`).
    pub fn poll_due(&mut self, time: Millis) -> Option<(Millis, KeyId)> {
        let &((ts, seq), _) = self.queue.get_min()?;
        if ts > time {
            return None;
        }
        let key = self.queue.remove(&(ts, seq))?;
        let timers = self.of_key(key);
        if let Some(i) = timers.iter().position(|t| *t == (ts, seq)) {
            timers.swap_remove(i);
        }
        self.fired += 1;
        Some((ts, key))
    }

    /// The registered timers of `key`, in timestamp order.
    pub fn timers_of(&self, key: KeyId) -> Vec<Millis> {
        let mut ts: Vec<Millis> =
            self.per_key.get(key.index()).map(|t| t.iter().map(|(ts, _)| *ts).collect()).unwrap_or_default();
        ts.sort_unstable();
        ts
    }

    /// How many timers are registered.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: KeyId = KeyId(0);
    const B: KeyId = KeyId(1);
    const C: KeyId = KeyId(2);
    const D: KeyId = KeyId(3);

    #[test]
    fn registering_twice_is_a_no_op_and_deleting_a_missing_timer_too() {
        let mut ts = TimerService::default();
        assert!(ts.register(A, 11));
        assert!(!ts.register(A, 11));
        assert_eq!(ts.len(), 1);
        assert!(!ts.delete(A, 12));
        assert!(!ts.delete(B, 11));
        assert!(ts.delete(A, 11));
        assert!(ts.is_empty());
    }

    #[test]
    fn fires_due_timers_in_timestamp_order_then_registration_order() {
        let mut ts = TimerService::default();
        ts.register(C, 15);
        ts.register(B, 11);
        ts.register(A, 11);
        ts.register(D, 20);
        let mut fired = vec![];
        while let Some(t) = ts.poll_due(15) {
            fired.push(t);
        }
        assert_eq!(fired, vec![(11, B), (11, A), (15, C)]);
        assert_eq!(ts.peek().map(|(t, _, k)| (t, k)), Some((20, D)));
        assert_eq!(ts.timers_of(D), vec![20]);
    }

    #[test]
    fn a_polled_timer_can_be_registered_again() {
        let mut ts = TimerService::default();
        ts.register(A, 5);
        assert_eq!(ts.poll_due(5), Some((5, A)));
        assert!(ts.register(A, 5));
    }
}
