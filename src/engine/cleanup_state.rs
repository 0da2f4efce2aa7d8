//! The cleanup-timer rule of legacy idle state retention.
//!
//! Models `CleanupState.registerProcessingCleanupTimer` and `KeyedProcessFunctionWithCleanupState`
//! (`processCleanupTimer`, `cleanupState`) of Flink 1.8 to 1.13
//! (`flink-table/flink-table-planner/.../runtime/aggregate/CleanupState.scala`; the Java copy in
//! `flink-table-runtime-blink/.../runtime/functions/CleanupState.java` has the same logic):
//!
//! ```text
//! curCleanupTime = cleanupTimeState.value()
//! if (curCleanupTime == null || currentTime + minRetentionTime > curCleanupTime) {
//!     cleanupTime = currentTime + maxRetentionTime
//!     registerProcessingTimeTimer(cleanupTime)                        // register the new timer first,
//!     if (curCleanupTime != null) deleteProcessingTimeTimer(curCleanupTime)   // then delete the old one
//!     cleanupTimeState.update(cleanupTime)
//! }
//! ```
//!
//! `currentTime` is always the processing time, never a record's timestamp. Flink 1.8 added the
//! delete (FLINK-10543). Flink ≤ 1.7 (`ProcessFunctionWithCleanupState` in
//! `flink-libraries/flink-table`) left the old timer registered; it still fires, and the
//! operator's `onTimer` ignores it through `needToCleanupState(timestamp)`: the stored cleanup
//! time equals the timestamp ([`CleanupState::need_to_cleanup_state`]).

use super::idle_state_retention::IdleStateRetention;
use super::state::{KeyId, KeyedStateBackend, ValueState};
use super::time::{format_duration, Millis, TimeFormat};

/// The rule in one paragraph for people, with a scenario's `min` and `max`: the page states it
/// once, beside the timeline's legend. `deletes_old_timers` is FLINK-10543 (Flink 1.8+).
pub fn rule_text(retention: IdleStateRetention, deletes_old_timers: bool) -> String {
    let (min, max) = (format_duration(retention.min_ms), format_duration(retention.max_ms));
    let old = if deletes_old_timers {
        "the timer at C is deleted"
    } else {
        "the timer at C stays registered (Flink ≤ 1.7): when it fires it is ignored, C having moved"
    };
    format!(
        "Cleanup timers (idle state retention, min = {min}, max = {max}; Flink's \
         CleanupState.registerProcessingCleanupTimer): on each record of a key at processing time now, \
         if the key has no cleanup time C yet, or now + min > C, a timer is registered at now + max \
         and becomes C; {old}. Otherwise C is kept. When the timer at C fires, the key's state is \
         cleared. A key idle for more than max = {max} is always gone; one idle for less than \
         min = {min} never is."
    )
}

/// What the rule decided for one record, with the numbers it compared. The page shows it as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CleanupDecision {
    /// `stateCleaningEnabled` is false (`min <= 1`): no timer is registered.
    Disabled { min_ms: Millis },
    /// No cleanup time stored yet: register `now + max`.
    Register { now: Millis, max_ms: Millis, timer: Millis },
    /// `now + min > C`: register `now + max`, then delete `C`.
    Move { now: Millis, min_ms: Millis, max_ms: Millis, current: Millis, timer: Millis },
    /// Flink ≤ 1.7: `now + min > C`: register `now + max` and leave the timer at `C` registered.
    Reregister { now: Millis, min_ms: Millis, max_ms: Millis, current: Millis, timer: Millis },
    /// `now + min <= C`: keep `C`.
    Keep { now: Millis, min_ms: Millis, current: Millis },
}

impl CleanupDecision {
    /// The timer this decision registered, if any.
    pub fn registered(&self) -> Option<Millis> {
        match *self {
            CleanupDecision::Register { timer, .. }
            | CleanupDecision::Move { timer, .. }
            | CleanupDecision::Reregister { timer, .. } => Some(timer),
            _ => None,
        }
    }
    /// The timer this decision deleted, if any.
    pub fn deleted(&self) -> Option<Millis> {
        match *self {
            CleanupDecision::Move { current, .. } => Some(current),
            _ => None,
        }
    }

    /// The rule with the numbers plugged in, e.g.
    /// `now + min = 2019-11-22 16:00 > C = 2019-11-22 15:00 → register 2019-11-23 16:00, delete 2019-11-22 15:00`.
    pub fn describe(&self, tf: TimeFormat) -> String {
        let t = |ms| tf.format(ms);
        match *self {
            CleanupDecision::Disabled { min_ms } => {
                format!("state cleaning disabled (min = {} is not > 1 ms): no cleanup timer", format_duration(min_ms))
            }
            CleanupDecision::Register { now, max_ms, timer } => format!(
                "no cleanup time C yet → register now + max = {} + {} = {}",
                t(now),
                format_duration(max_ms),
                t(timer)
            ),
            CleanupDecision::Move { now, min_ms, current, timer, .. } => format!(
                "now + min = {} > C = {} → register {}, delete {}",
                t(now + min_ms),
                t(current),
                t(timer),
                t(current)
            ),
            CleanupDecision::Reregister { now, min_ms, current, timer, .. } => format!(
                "now + min = {} > C = {} → register {}; the timer at {} stays registered (Flink ≤ 1.7 deletes no timer)",
                t(now + min_ms),
                t(current),
                t(timer),
                t(current)
            ),
            CleanupDecision::Keep { now, min_ms, current } => {
                format!("now + min = {} <= C = {} → keep {}", t(now + min_ms), t(current), t(current))
            }
        }
    }
}

/// The per-key cleanup time (`cleanupTimeState`, a `ValueState<Long>` named `"CleanupTime"`)
/// with the retention it enforces.
#[derive(Debug, Clone)]
pub struct CleanupState {
    pub retention: IdleStateRetention,
    pub cleanup_time_state: ValueState<Millis>,
    /// FLINK-10543 (Flink 1.8+): the old timer is deleted when a new one is registered.
    pub deletes_old_timers: bool,
}

impl CleanupState {
    /// The rule of Flink 1.8+.
    pub fn new(retention: IdleStateRetention) -> Self {
        CleanupState::with_deletion(retention, true)
    }

    /// The rule of Flink 1.8+ (`deletes_old_timers`) or of Flink ≤ 1.7.
    pub fn with_deletion(retention: IdleStateRetention, deletes_old_timers: bool) -> Self {
        CleanupState { retention, cleanup_time_state: ValueState::new("CleanupTime"), deletes_old_timers }
    }

    /// The same rule with the cleanup-time state named as the operator names it
    /// (`initCleanupTimeState(name)`, e.g. `"GroupAggregateCleanupTime"`).
    pub fn named(mut self, name: &'static str) -> Self {
        self.cleanup_time_state = ValueState::new(name);
        self
    }

    /// `needToCleanupState(timestamp)` (Flink ≤ 1.7, and the Blink runtime's
    /// `KeyedProcessFunctionWithCleanupState`): cleaning is enabled and the firing timer is the
    /// key's stored cleanup time — a stale timer left by an older registration is not.
    pub fn need_to_cleanup_state(&self, key: KeyId, timestamp: Millis) -> bool {
        self.state_cleaning_enabled() && self.cleanup_time(key) == Some(timestamp)
    }

    /// `stateCleaningEnabled = minRetentionTime > 1`.
    pub fn state_cleaning_enabled(&self) -> bool {
        self.retention.state_cleaning_enabled()
    }

    /// `processCleanupTimer(ctx, currentTime)`: applies the rule for `key` at processing time
    /// `now` (ms), registering before deleting, and returns what it decided.
    pub fn process_cleanup_timer(
        &mut self,
        backend: &mut KeyedStateBackend,
        key: KeyId,
        now: Millis,
    ) -> CleanupDecision {
        let IdleStateRetention { min_ms, max_ms, .. } = self.retention;
        if !self.state_cleaning_enabled() {
            return CleanupDecision::Disabled { min_ms };
        }
        let current = self.cleanup_time(key);
        match current {
            Some(current) if now + min_ms <= current => CleanupDecision::Keep { now, min_ms, current },
            _ => {
                let timer = now + max_ms;
                backend.register_processing_time_timer(key, timer);
                if let (Some(current), true) = (current, self.deletes_old_timers) {
                    backend.delete_processing_time_timer(key, current);
                }
                self.cleanup_time_state.update(&mut backend.keys, key, timer, now);
                match current {
                    None => CleanupDecision::Register { now, max_ms, timer },
                    Some(current) if self.deletes_old_timers => {
                        CleanupDecision::Move { now, min_ms, max_ms, current, timer }
                    }
                    Some(current) => CleanupDecision::Reregister { now, min_ms, max_ms, current, timer },
                }
            }
        }
    }

    /// The key's `cleanupTimeState` as the state inspector shows it: the stored `Long`, marked as
    /// a processing time.
    pub fn state_cell(&self, key: KeyId) -> Option<crate::engine::view::StateCell> {
        self.cleanup_time(key).map(|ms| crate::engine::view::StateCell {
            value: ms.to_string(),
            entries: 1,
            visible: 1,
            ttl: None,
            time_ms: Some(ms),
        })
    }

    /// The cleanup time stored for `key` (`C`), if any.
    pub fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup_time_state.peek(key).map(|v| v.user_value)
    }

    /// The `cleanupTimeState.clear()` part of `cleanupState(states...)`.
    pub fn clear(&mut self, backend: &mut KeyedStateBackend, key: KeyId) {
        self.cleanup_time_state.clear(&mut backend.keys, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Row, Value};

    /// Interns a one-column key, as an operator does for a record.
    fn key(b: &mut KeyedStateBackend, k: &str) -> KeyId {
        b.keys.intern(&Row::from(vec![Value::str(k)]))
    }

    /// `KeyedProcessFunctionWithCleanupStateTest` (Flink 1.10), min 5 ms / max 10 ms.
    #[test]
    fn flink_harness_vector() {
        let retention = IdleStateRetention::set_idle_state_retention_time(5, 10, true).unwrap();
        let mut cs = CleanupState::new(retention);
        let mut b = KeyedStateBackend::default();
        let a = key(&mut b, "a");
        assert_eq!(cs.process_cleanup_timer(&mut b, a, 1), CleanupDecision::Register { now: 1, max_ms: 10, timer: 11 });
        let kb = key(&mut b, "b");
        cs.process_cleanup_timer(&mut b, kb, 1);
        let c = key(&mut b, "c");
        assert_eq!(cs.process_cleanup_timer(&mut b, c, 5).registered(), Some(15));
        let a = key(&mut b, "a");
        assert_eq!(cs.process_cleanup_timer(&mut b, a, 5), CleanupDecision::Keep { now: 5, min_ms: 5, current: 11 });
        let kb = key(&mut b, "b");
        let moved = cs.process_cleanup_timer(&mut b, kb, 8);
        assert_eq!(moved, CleanupDecision::Move { now: 8, min_ms: 5, max_ms: 10, current: 11, timer: 18 });
        assert_eq!(moved.describe(TimeFormat::Millis), "now + min = 13 ms > C = 11 ms → register 18 ms, delete 11 ms");
        assert_eq!(b.timers.timers_of(kb), vec![18]);
        b.keys.finish();
        let mut fired = vec![];
        while let Some((ts, k)) = b.poll_due(18) {
            fired.push((ts, b.keys.row(k).clone()));
            b.keys.finish();
        }
        let row = |k: &str| Row::from(vec![Value::str(k)]);
        assert_eq!(fired, vec![(11, row("a")), (15, row("c")), (18, row("b"))]);
    }

    /// Flink ≤ 1.7: the old timer stays and fires; only the stored cleanup time cleans.
    #[test]
    fn before_flink_1_8_old_timers_stay() {
        let retention = IdleStateRetention::set_idle_state_retention_time(5, 10, true).unwrap();
        let mut cs = CleanupState::with_deletion(retention, false);
        let mut b = KeyedStateBackend::default();
        let a = key(&mut b, "a");
        cs.process_cleanup_timer(&mut b, a, 1);
        let moved = cs.process_cleanup_timer(&mut b, a, 8);
        assert_eq!(moved, CleanupDecision::Reregister { now: 8, min_ms: 5, max_ms: 10, current: 11, timer: 18 });
        assert_eq!(moved.deleted(), None);
        assert_eq!(b.timers.timers_of(a), vec![11, 18]);
        assert!(!cs.need_to_cleanup_state(a, 11));
        assert!(cs.need_to_cleanup_state(a, 18));
    }

    #[test]
    fn equality_does_not_move_the_timer() {
        let retention = IdleStateRetention::set_idle_state_retention_time(5, 10, true).unwrap();
        let mut cs = CleanupState::new(retention);
        let mut b = KeyedStateBackend::default();
        let a = key(&mut b, "a");
        cs.process_cleanup_timer(&mut b, a, 0);
        // 5 + 5 = 10 is not > 10: the key may die exactly `min` after this access.
        assert_eq!(cs.process_cleanup_timer(&mut b, a, 5).registered(), None);
        assert_eq!(cs.process_cleanup_timer(&mut b, a, 6).registered(), Some(16));
    }

    #[test]
    fn one_millisecond_min_registers_nothing() {
        let retention = IdleStateRetention::set_idle_state_retention_time(1, 10, true).unwrap();
        let mut cs = CleanupState::new(retention);
        let mut b = KeyedStateBackend::default();
        let a = key(&mut b, "a");
        assert_eq!(cs.process_cleanup_timer(&mut b, a, 0), CleanupDecision::Disabled { min_ms: 1 });
        assert!(b.timers.is_empty());
    }

    #[test]
    fn the_rule_text_names_the_scenario_s_min_and_max_and_the_version_s_old_timer() {
        let r = IdleStateRetention { min_ms: 86_400_000, max_ms: 172_800_000, test_harness: false };
        let text = rule_text(r, true);
        assert!(text.contains("min = 1 d, max = 2 d"), "{text}");
        assert!(text.contains("the timer at C is deleted"), "{text}");
        assert!(rule_text(r, false).contains("stays registered"));
    }
}
