//! Idle state retention time: `TableConfig.setIdleStateRetentionTime(minTime, maxTime)` and the
//! `stateCleaningEnabled` rule of `KeyedProcessFunctionWithCleanupState`.
//!
//! Follows `flink-table/flink-table-api-java/.../table/api/TableConfig.java` (and the identical
//! `StreamQueryConfig.withIdleStateRetentionTime`) as of Flink 1.10, where the 5-minute rule of
//! FLINK-9681 holds, and the legacy planner's
//! `flink-table-planner/.../runtime/aggregate/KeyedProcessFunctionWithCleanupState.scala`
//! (Flink 1.8 to 1.13).

use super::time::{format_duration, Millis};

/// The smallest accepted `maxTime - minTime`, in ms (5 minutes), unless both are 0.
pub const MIN_GAP_MS: Millis = 300_000;

/// A validated idle state retention: `min`/`max` in ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleStateRetention {
    /// `minIdleStateRetentionTime` (ms): how long an idle key's state is kept at least.
    pub min_ms: Millis,
    /// `maxIdleStateRetentionTime` (ms): how long it is kept at most.
    pub max_ms: Millis,
    /// Built as Flink's harness tests build operators (`new GroupAggProcessFunction(.., queryConfig)`
    /// with e.g. min 5 ms / max 10 ms), bypassing the 5-minute check.
    pub test_harness: bool,
}

impl IdleStateRetention {
    /// Never clean up (`0`/`0`, Flink's default).
    pub const NEVER: IdleStateRetention = IdleStateRetention { min_ms: 0, max_ms: 0, test_harness: false };

    /// `TableConfig.setIdleStateRetentionTime(minTime, maxTime)` (Flink 1.10).
    ///
    /// # Errors
    /// Flink's `IllegalArgumentException` message, verbatim (including its typo and missing space):
    /// `Difference between minTime: 0 ms and maxTime: 60000 msshoud be at least 5 minutes.`
    /// when `max - min < 5 min` and not both are 0. With `test_harness`, that check is skipped
    /// (as in Flink's own harness tests), but negative times and `max < min` are still rejected,
    /// because Flink's cleanup rule assumes `min <= max` (with `max < min` a re-registration in
    /// the same millisecond would delete the key's only timer).
    pub fn set_idle_state_retention_time(
        min_ms: Millis,
        max_ms: Millis,
        test_harness: bool,
    ) -> Result<IdleStateRetention, String> {
        check(min_ms, max_ms, test_harness, "shoud be")?;
        Ok(IdleStateRetention { min_ms, max_ms, test_harness })
    }

    /// `TableConfig.setIdleStateRetentionTime(minTime, maxTime)` of Flink 1.12 – 1.19
    /// (deprecated): the same 5-minute check, with the message's typo fixed, then
    /// `setIdleStateRetention(minTime)`: `table.exec.state.ttl = min`, `maxTime` ignored
    /// (operators still on cleanup timers derive `max = min * 3 / 2`). Returns the TTL in ms.
    ///
    /// # Errors
    /// Flink's message, e.g. `Difference between minTime: 600000 ms and maxTime: 899999 ms should
    /// be at least 5 minutes.`
    pub fn set_idle_state_retention_time_1_12(
        min_ms: Millis,
        max_ms: Millis,
        test_harness: bool,
    ) -> Result<Millis, String> {
        check(min_ms, max_ms, test_harness, " should be")?;
        Ok(min_ms)
    }

    /// `stateCleaningEnabled = minRetentionTime > 1` (`KeyedProcessFunctionWithCleanupState`).
    /// Note `> 1`, not `> 0`: a minimum of 1 ms does not enable cleanup, and neither does
    /// `min = 0` with any `max`.
    pub fn state_cleaning_enabled(&self) -> bool {
        self.min_ms > 1
    }
}

/// `min` and `max` as the scenario writes durations and the rule they break, then Flink's message
/// from [`IdleStateRetention::set_idle_state_retention_time`] quoted (its wording, typo and raw
/// milliseconds included), when Flink's message gives them in ms (trial 20: raw ms and Flink's
/// typo led the message).
pub fn message_with_durations(message: String, min_ms: Millis, max_ms: Millis) -> String {
    if !message.starts_with("Difference between minTime:") {
        return message;
    }
    let gap = if max_ms >= min_ms {
        format!("{} apart", format_duration(max_ms.saturating_sub(min_ms)))
    } else {
        format!("max is {} less than min", format_duration(min_ms.saturating_sub(max_ms)))
    };
    format!(
        "min = {}, max = {}: {gap}; max must be at least 5 minutes more than min (or both 0) — Flink: \"{message}\"",
        format_duration(min_ms),
        format_duration(max_ms)
    )
}

/// The checks of `setIdleStateRetentionTime`; `wording` is how Flink's message goes on after
/// `maxTime: X ms` (`"shoud be"`, typo and missing space included, before 1.12; `" should be"` after).
fn check(min_ms: Millis, max_ms: Millis, test_harness: bool, wording: &str) -> Result<(), String> {
    if min_ms < 0 || max_ms < 0 {
        return Err(format!(
            "min ({}) and max ({}) must not be negative",
            format_duration(min_ms),
            format_duration(max_ms)
        ));
    }
    if test_harness {
        if max_ms < min_ms {
            // The check of StreamQueryConfig before FLINK-9681 (Flink 1.3 to 1.5).
            return Err("maxTime may not be smaller than minTime.".into());
        }
    } else if max_ms - min_ms < MIN_GAP_MS && !(max_ms == 0 && min_ms == 0) {
        return Err(format!(
            "Difference between minTime: {min_ms} ms and maxTime: {max_ms} ms{wording} at least 5 minutes."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Case C01 of `shared/cases/flink-bug-cases.json` (steps 1 to 5).
    #[test]
    fn validates_like_table_config() {
        let err = IdleStateRetention::set_idle_state_retention_time(43_200_000, 43_200_000, false).unwrap_err();
        assert_eq!(err, "Difference between minTime: 43200000 ms and maxTime: 43200000 msshoud be at least 5 minutes.");
        let never = IdleStateRetention::set_idle_state_retention_time(0, 0, false).unwrap();
        assert!(!never.state_cleaning_enabled());
        assert!(IdleStateRetention::set_idle_state_retention_time(600_000, 900_000, false).is_ok());
        assert!(IdleStateRetention::set_idle_state_retention_time(600_000, 899_999, false).is_err());
        let min0 = IdleStateRetention::set_idle_state_retention_time(0, 300_000, false).unwrap();
        assert!(!min0.state_cleaning_enabled(), "min = 0 passes validation but never cleans");
    }

    /// C01 step 6: from 1.12 only `min` matters, and the message's typo is fixed.
    #[test]
    fn from_1_12_min_becomes_the_ttl() {
        assert_eq!(IdleStateRetention::set_idle_state_retention_time_1_12(3_600_000, 7_200_000, false), Ok(3_600_000));
        assert_eq!(
            IdleStateRetention::set_idle_state_retention_time_1_12(600_000, 899_999, false),
            Err("Difference between minTime: 600000 ms and maxTime: 899999 ms should be at least 5 minutes.".into())
        );
    }

    #[test]
    fn harness_mode_skips_the_gap_rule_only() {
        let r = IdleStateRetention::set_idle_state_retention_time(5, 10, true).unwrap();
        assert!(r.state_cleaning_enabled());
        assert!(IdleStateRetention::set_idle_state_retention_time(5, 10, false).is_err());
        assert_eq!(
            IdleStateRetention::set_idle_state_retention_time(10, 5, true),
            Err("maxTime may not be smaller than minTime.".into())
        );
        let one = IdleStateRetention::set_idle_state_retention_time(1, 10, true).unwrap();
        assert!(!one.state_cleaning_enabled(), "min = 1 ms does not enable cleanup");
    }
}
