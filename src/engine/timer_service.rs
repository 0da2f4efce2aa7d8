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

use super::time::Millis;
use std::collections::BTreeMap;

/// The processing-time timers of one operator. `K` is the key type (a grouping key).
#[derive(Debug, Clone)]
pub struct TimerService<K: Ord + Clone> {
    /// (timestamp ms, registration sequence number) → key: the firing order.
    queue: BTreeMap<(Millis, u64), K>,
    /// (key, timestamp ms) → sequence number: the dedup set (`HeapPriorityQueueSet.dedupMap`).
    index: BTreeMap<(K, Millis), u64>,
    next_seq: u64,
}

impl<K: Ord + Clone> Default for TimerService<K> {
    fn default() -> Self {
        TimerService { queue: BTreeMap::new(), index: BTreeMap::new(), next_seq: 0 }
    }
}

impl<K: Ord + Clone> TimerService<K> {
    /// `registerProcessingTimeTimer(timestamp)` for `key`. Returns `false` (and changes nothing)
    /// when that (key, timestamp) timer is already registered.
    pub fn register_processing_time_timer(&mut self, key: &K, timestamp: Millis) -> bool {
        if self.index.contains_key(&(key.clone(), timestamp)) {
            return false;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.index.insert((key.clone(), timestamp), seq);
        self.queue.insert((timestamp, seq), key.clone());
        true
    }

    /// `deleteProcessingTimeTimer(timestamp)` for `key`. Returns `false` (and changes nothing)
    /// when no such timer exists.
    pub fn delete_processing_time_timer(&mut self, key: &K, timestamp: Millis) -> bool {
        match self.index.remove(&(key.clone(), timestamp)) {
            Some(seq) => {
                self.queue.remove(&(timestamp, seq));
                true
            }
            None => false,
        }
    }

    /// The next timer to fire, as (timestamp ms, registration sequence number, key).
    pub fn peek(&self) -> Option<(Millis, u64, &K)> {
        self.queue.iter().next().map(|(&(ts, seq), key)| (ts, seq, key))
    }

    /// Removes and returns the head timer if its timestamp is `<= time` (one iteration of
    /// `onProcessingTime(time)`'s `while (timer.getTimestamp() <= time) { queue.poll(); ... }`).
    pub fn poll_due(&mut self, time: Millis) -> Option<(Millis, K)> {
        let (&(ts, seq), _) = self.queue.iter().next()?;
        if ts > time {
            return None;
        }
        let key = self.queue.remove(&(ts, seq))?;
        self.index.remove(&(key.clone(), ts));
        Some((ts, key))
    }

    /// The registered timers of `key`, in timestamp order.
    pub fn timers_of(&self, key: &K) -> Vec<Millis> {
        self.index.range((key.clone(), Millis::MIN)..=(key.clone(), Millis::MAX)).map(|((_, ts), _)| *ts).collect()
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

    #[test]
    fn registering_twice_is_a_no_op_and_deleting_a_missing_timer_too() {
        let mut ts = TimerService::<&str>::default();
        assert!(ts.register_processing_time_timer(&"a", 11));
        assert!(!ts.register_processing_time_timer(&"a", 11));
        assert_eq!(ts.len(), 1);
        assert!(!ts.delete_processing_time_timer(&"a", 12));
        assert!(!ts.delete_processing_time_timer(&"b", 11));
        assert!(ts.delete_processing_time_timer(&"a", 11));
        assert!(ts.is_empty());
    }

    #[test]
    fn fires_due_timers_in_timestamp_order_then_registration_order() {
        let mut ts = TimerService::<&str>::default();
        ts.register_processing_time_timer(&"c", 15);
        ts.register_processing_time_timer(&"b", 11);
        ts.register_processing_time_timer(&"a", 11);
        ts.register_processing_time_timer(&"d", 20);
        let mut fired = vec![];
        while let Some(t) = ts.poll_due(15) {
            fired.push(t);
        }
        assert_eq!(fired, vec![(11, "b"), (11, "a"), (15, "c")]);
        assert_eq!(ts.peek().map(|(t, _, k)| (t, *k)), Some((20, "d")));
        assert_eq!(ts.timers_of(&"d"), vec![20]);
    }

    #[test]
    fn a_polled_timer_can_be_registered_again() {
        let mut ts = TimerService::<&str>::default();
        ts.register_processing_time_timer(&"a", 5);
        assert_eq!(ts.poll_due(5), Some((5, "a")));
        assert!(ts.register_processing_time_timer(&"a", 5));
    }
}
