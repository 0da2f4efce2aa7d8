//! The legacy planner's `StateCleaningCountTrigger`: the trigger of a count window
//! (`Tumble over n.rows` / `Slide over n.rows every m.rows` on a processing-time attribute) that
//! also enforces idle state retention.
//!
//! Models `flink-table/flink-table-planner/src/main/scala/org/apache/flink/table/runtime/triggers/StateCleaningCountTrigger.scala`
//! (Flink 1.8 – 1.13; read from the source of 1.10), a `Trigger[Any, GlobalWindow]` with two
//! partitioned states, `"count"` (a `ReducingState[JLong]` summing 1 per element) and
//! `"countCleanup"` (a `ValueState[JLong]`, the cleanup time `C`):
//!
//! ```text
//! onElement:
//!   if stateCleaningEnabled (min > 1):
//!     curCleanupTime = countCleanup.value()
//!     if curCleanupTime == null || now + min > curCleanupTime:
//!       registerProcessingTimeTimer(now + max)
//!       if curCleanupTime != null: deleteProcessingTimeTimer(curCleanupTime)
//!       countCleanup.update(now + max)
//!   count.add(1)
//!   if count.get >= maxCount: count.clear(); FIRE else CONTINUE
//! onProcessingTime(time):
//!   if stateCleaningEnabled: clear(window, ctx); FIRE_AND_PURGE     // "we have already deleted expired timer"
//!   else CONTINUE
//! clear: count.clear(); countCleanup.clear()
//! ```
//!
//! The register-and-delete part is the rule of [`CleanupState`], with `countCleanup` as its state.
//! Flink ≤ 1.7 (`flink-libraries/flink-table/.../triggers/StateCleaningCountTrigger.scala`) deleted
//! no old timer (FLINK-10543), and `onProcessingTime` fired only for the stored cleanup time
//! (`null != cleanupTime && time == cleanupTime`), returning `CONTINUE` for a stale timer.
//!
//! A tumbling count window wraps it in `PurgingTrigger` (`FIRE` becomes `FIRE_AND_PURGE`); a
//! sliding one does not. The trigger's clear does not touch the window's contents: what the
//! window operator does with `FIRE_AND_PURGE` on the cleanup timer — emit whatever the window
//! holds, then purge it — is in [`super::count_window_operator`].

use crate::engine::cleanup_state::{CleanupDecision, CleanupState};
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;

/// `TriggerResult`, without the event-time variants a processing-time count trigger never returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerResult {
    Continue,
    Fire,
    FireAndPurge,
}

impl TriggerResult {
    pub fn is_fire(self) -> bool {
        self != TriggerResult::Continue
    }
    pub fn is_purge(self) -> bool {
        self == TriggerResult::FireAndPurge
    }
}

/// What `onProcessingTime` decided for a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnTimer {
    /// The trigger cleared `count` and `countCleanup` and returned `FIRE_AND_PURGE`.
    Cleaned,
    /// Flink ≤ 1.7: the timer is not the stored cleanup time `cleanup_ms`: `CONTINUE`.
    Stale { cleanup_ms: Option<Millis> },
    /// Cleaning is disabled: `CONTINUE` (no timer is registered then, so this is not reached).
    Disabled,
}

/// `StateCleaningCountTrigger` (optionally inside `PurgingTrigger`) with its two states.
#[derive(Debug, Clone)]
pub struct StateCleaningCountTrigger {
    /// `maxCount`: the window size of a tumbling window, the slide of a sliding one.
    pub max_count: u64,
    /// Wrapped in `PurgingTrigger`: `FIRE` becomes `FIRE_AND_PURGE`.
    pub purging: bool,
    /// `"count"`: elements since the last fire.
    pub count: ValueState<u64>,
    /// The cleanup rule with its `"countCleanup"` state.
    pub cleanup: CleanupState,
}

impl StateCleaningCountTrigger {
    /// `StateCleaningCountTrigger.of(config, maxCount)`; `deletes_old_timers` is Flink 1.8+'s
    /// FLINK-10543.
    pub fn of(retention: IdleStateRetention, max_count: u64, purging: bool, deletes_old_timers: bool) -> Self {
        StateCleaningCountTrigger {
            max_count,
            purging,
            count: ValueState::new("count"),
            cleanup: CleanupState::with_deletion(retention, deletes_old_timers).named("countCleanup"),
        }
    }

    /// `onElement` at processing time `now`: the cleanup rule, then the count.
    pub fn on_element(
        &mut self,
        backend: &mut KeyedStateBackend,
        key: KeyId,
        now: Millis,
    ) -> (CleanupDecision, TriggerResult) {
        let decision = self.cleanup.process_cleanup_timer(backend, key, now);
        let count = self.count.peek(key).map_or(0, |c| c.user_value) + 1;
        let result = if count >= self.max_count {
            self.count.clear(&mut backend.keys, key);
            self.fire()
        } else {
            self.count.update(&mut backend.keys, key, count, now);
            TriggerResult::Continue
        };
        (decision, result)
    }

    /// `onProcessingTime(time)` for a timer of `key`.
    pub fn on_processing_time(&mut self, backend: &mut KeyedStateBackend, key: KeyId, time: Millis) -> OnTimer {
        if !self.cleanup.state_cleaning_enabled() {
            return OnTimer::Disabled;
        }
        if !self.cleanup.deletes_old_timers && !self.cleanup.need_to_cleanup_state(key, time) {
            return OnTimer::Stale { cleanup_ms: self.cleanup.cleanup_time(key) };
        }
        self.clear(backend, key);
        OnTimer::Cleaned
    }

    /// `FIRE`, or `FIRE_AND_PURGE` inside `PurgingTrigger`.
    fn fire(&self) -> TriggerResult {
        if self.purging {
            TriggerResult::FireAndPurge
        } else {
            TriggerResult::Fire
        }
    }

    /// `clear(window, ctx)`: both states of the key (its timers are left alone).
    pub fn clear(&mut self, backend: &mut KeyedStateBackend, key: KeyId) {
        self.count.clear(&mut backend.keys, key);
        self.cleanup.clear(backend, key);
    }

    /// The elements counted since the last fire.
    pub fn count_of(&self, key: KeyId) -> Option<u64> {
        self.count.peek(key).map(|c| c.user_value)
    }

    /// Entries stored in both states.
    pub fn stored(&self) -> u64 {
        self.count.stored() + self.cleanup.cleanup_time_state.stored()
    }

    pub fn sizes(&self, now: Millis) -> [(&'static str, StateSize); 2] {
        [
            (self.count.name, self.count.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Row, Value};

    /// Flink 1.10's `StateCleaningCountTriggerHarnessTest.testFiringAndFiringWithPurging`
    /// (min 2 s, max 3 s, maxCount 10), step by step.
    #[test]
    fn flink_harness_test() {
        let retention = IdleStateRetention::set_idle_state_retention_time(2_000, 3_000, true).unwrap();
        let mut t = StateCleaningCountTrigger::of(retention, 10, false, true);
        let mut b = KeyedStateBackend::default();
        let k = b.keys.intern(&Row::from(vec![Value::Int(1)]));
        let entries = |t: &StateCleaningCountTrigger| t.stored();
        // register cleanup timer with 3001
        let (d, r) = t.on_element(&mut b, k, 1);
        assert_eq!((d.registered(), r), (Some(3_001), TriggerResult::Continue));
        // 1000 + 2000 <= 3001: reuse timer 3001
        let (d, r) = t.on_element(&mut b, k, 1_000);
        assert_eq!((d.registered(), r), (None, TriggerResult::Continue));
        assert_eq!(entries(&t), 2, "the timer (3001) and the counter (2)");
        assert_eq!(b.poll_due(3_001), Some((3_001, k)));
        assert_eq!(t.on_processing_time(&mut b, k, 3_001), OnTimer::Cleaned);
        assert_eq!(entries(&t), 0);
        // 3001 + 2000 >= 3001: register 6001
        assert_eq!(t.on_element(&mut b, k, 3_001).0.registered(), Some(6_001));
        assert_eq!(b.poll_due(4_002), None);
        // 4002 + 2000 >= 6001: register 7002 (and delete 6001)
        let (d, _) = t.on_element(&mut b, k, 4_002);
        assert_eq!((d.registered(), d.deleted()), (Some(7_002), Some(6_001)));
        // 4002 + 2000 <= 7002: reuse 7002
        assert_eq!(t.on_element(&mut b, k, 4_002).0.registered(), None);
        assert_eq!(b.timers.timers_of(k), vec![7_002], "one timer, 7002");
        assert_eq!(entries(&t), 2);
        let results: Vec<TriggerResult> = (0..7).map(|_| t.on_element(&mut b, k, 4_002).1).collect();
        assert_eq!(results[..6], [TriggerResult::Continue; 6]);
        assert_eq!(results[6], TriggerResult::Fire, "the 10th element since the cleanup");
        assert_eq!(entries(&t), 1, "the counter is cleared, countCleanup stays");
        assert_eq!(b.poll_due(7_002), Some((7_002, k)));
        assert_eq!(t.on_processing_time(&mut b, k, 7_002), OnTimer::Cleaned);
        assert_eq!(entries(&t), 0);
    }

    /// Flink ≤ 1.7: the old timer stays registered and, when it fires, is ignored.
    #[test]
    fn before_flink_1_8_a_stale_timer_continues() {
        let retention = IdleStateRetention::set_idle_state_retention_time(2_000, 3_000, true).unwrap();
        let mut t = StateCleaningCountTrigger::of(retention, 3, true, false);
        let mut b = KeyedStateBackend::default();
        let k = b.keys.intern(&Row::from(vec![Value::Int(1)]));
        t.on_element(&mut b, k, 0);
        let (d, _) = t.on_element(&mut b, k, 1_500);
        assert_eq!((d.registered(), d.deleted()), (Some(4_500), None));
        assert_eq!(b.timers.timers_of(k), vec![3_000, 4_500]);
        assert_eq!(t.on_element(&mut b, k, 1_600).1, TriggerResult::FireAndPurge, "PurgingTrigger");
        b.poll_due(3_000);
        assert_eq!(t.on_processing_time(&mut b, k, 3_000), OnTimer::Stale { cleanup_ms: Some(4_500) });
        b.poll_due(4_500);
        assert_eq!(t.on_processing_time(&mut b, k, 4_500), OnTimer::Cleaned);
        assert_eq!(t.stored(), 0);
    }
}
