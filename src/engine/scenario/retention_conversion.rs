//! Converting a scenario's legacy idle state retention to the setting a Flink without it reads.
//!
//! Flink 1.12 deprecated `TableConfig.setIdleStateRetentionTime(Time minTime, Time maxTime)`: it
//! runs the 5-minute check, then calls `setIdleStateRetention(Duration.ofMillis(minTime
//! .toMilliseconds()))`, which sets `ExecutionConfigOptions.IDLE_STATE_RETENTION`
//! (`table.exec.state.ttl`); `maxTime` is discarded (`TableConfig` of Flink 1.12 to 1.19;
//! `shared/reference/flink-semantics.md` §1.1). Flink 2.0 removed the method, so a scenario
//! written for the legacy planner runs on 2.3 only once `idle_state_retention` is replaced by the
//! `state_ttl` Flink 1.12 derives from it. This is that mapping, nothing more: the cleanup itself
//! differs (state TTL expires each state `ttl` after its last write, cleanup timers clean a key
//! between `min` and `max` after its last access).

use super::{parse_raw, FlinkMode};
use crate::engine::error::ScenarioError;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::time::format_duration;

/// A scenario converted by [`idle_state_retention_as_state_ttl`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionConversion {
    /// The converted scenario text (pretty-printed, field order kept).
    pub text: String,
    /// What changed, for people:
    /// `idle_state_retention {min 1 d, max 2 d} → state_ttl 1 d (table.exec.state.ttl = min; max is ignored)`.
    pub summary: String,
}

/// The scenario `text` on Flink `mode` with `idle_state_retention {min, max}` replaced by
/// `state_ttl = min`, as Flink 1.12's deprecated `TableConfig.setIdleStateRetentionTime(minTime,
/// maxTime)` maps it. `state_ttl` takes `min` as it was written (`"1 d"` stays `"1 d"`) and the
/// place `idle_state_retention` had.
///
/// `Ok(None)` when there is nothing to convert: `mode` cleans state with cleanup timers (it reads
/// `idle_state_retention` itself), or the scenario has no `idle_state_retention`, or it also sets
/// `state_ttl` (Flink's two setters would overwrite each other: the scenario is refused for that).
///
/// # Errors
/// As [`Scenario::from_json`](super::Scenario::from_json) for the text's JSON and fields, and
/// Flink 1.12's own message when `min`/`max` fail its 5-minute check (then Flink 1.12 sets no TTL
/// either).
pub fn idle_state_retention_as_state_ttl(
    text: &str,
    mode: FlinkMode,
) -> Result<Option<RetentionConversion>, ScenarioError> {
    let raw = parse_raw(text)?;
    let Some(idle) = raw.idle_state_retention.as_ref() else { return Ok(None) };
    if mode.uses_cleanup_timers() || raw.state_ttl.is_some() {
        return Ok(None);
    }
    let ttl_ms = IdleStateRetention::set_idle_state_retention_time_1_12(idle.min.0, idle.max.0, idle.test_harness)
        .map_err(|m| {
            let m = crate::engine::idle_state_retention::message_with_durations(m, idle.min.0, idle.max.0);
            ScenarioError::new("idle_state_retention", m)
        })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError::new("scenario", format!("invalid JSON: {e}")))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(ScenarioError::new("scenario", "expected a JSON object"));
    };
    let mut converted = serde_json::Map::new();
    for (name, field) in fields {
        match name.as_str() {
            "idle_state_retention" => {
                let min = field.get("min").cloned().unwrap_or(serde_json::Value::from(ttl_ms));
                converted.insert("state_ttl".into(), min);
            }
            "flink" => {
                converted.insert(name, serde_json::Value::String(mode.id().into()));
            }
            _ => {
                converted.insert(name, field);
            }
        }
    }
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(converted))
        .map_err(|e| ScenarioError::new("scenario", e.to_string()))?;
    let summary = format!(
        "idle_state_retention {{min {}, max {}}} → state_ttl {} (as Flink 1.12 maps it: table.exec.state.ttl = min; max is ignored)",
        format_duration(idle.min.0),
        format_duration(idle.max.0),
        format_duration(ttl_ms)
    );
    Ok(Some(RetentionConversion { text, summary }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::presets::preset_json;
    use crate::engine::scenario::{Retention, Scenario};

    /// Seed 001 (min 1 d, max 2 d) on Flink 2.3: `state_ttl = "1 d"`, as `setIdleStateRetentionTime`
    /// of Flink 1.12 sets `table.exec.state.ttl`; the result loads on 2.3.
    #[test]
    fn seed_001_gets_min_as_its_state_ttl() {
        let json = preset_json("seed-001-one-day-two-days").unwrap();
        assert!(Scenario::from_json(&crate::engine::scenario::with_flink(json, FlinkMode::Flink2_3).unwrap()).is_err());
        let c = idle_state_retention_as_state_ttl(json, FlinkMode::Flink2_3).unwrap().unwrap();
        assert_eq!(
            c.summary,
            "idle_state_retention {min 1 d, max 2 d} → state_ttl 1 d (as Flink 1.12 maps it: table.exec.state.ttl = min; max is ignored)"
        );
        let value: serde_json::Value = serde_json::from_str(&c.text).unwrap();
        assert_eq!(value["state_ttl"], "1 d");
        assert_eq!(value["flink"], "2.3");
        assert!(value.get("idle_state_retention").is_none());
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        let original: serde_json::Value = serde_json::from_str(json).unwrap();
        let original_keys: Vec<String> = original
            .as_object()
            .unwrap()
            .keys()
            .map(|k| if k == "idle_state_retention" { "state_ttl".to_string() } else { k.clone() })
            .collect();
        assert_eq!(keys, original_keys.iter().collect::<Vec<_>>(), "state_ttl takes the old field's place");
        let scenario = Scenario::from_json(&c.text).unwrap();
        assert_eq!(scenario.retention, Retention::StateTtl(86_400_000));
        assert_eq!(scenario.flink, FlinkMode::Flink2_3);
    }

    #[test]
    fn nothing_to_convert() {
        let json = preset_json("seed-001-one-day-two-days").unwrap();
        assert_eq!(idle_state_retention_as_state_ttl(json, FlinkMode::Legacy1_10), Ok(None), "legacy reads it itself");
        let ttl = preset_json("seed-004-device-status-flink-2.3").unwrap();
        assert_eq!(idle_state_retention_as_state_ttl(ttl, FlinkMode::Flink2_3), Ok(None));
    }

    /// Flink 1.12 refuses min/max less than 5 minutes apart, so there is no TTL to derive.
    #[test]
    fn flink_1_12_check_applies() {
        let json = r#"{"name": "x", "flink": "1.10-legacy", "idle_state_retention": {"min": "10 min", "max": 899999},
            "source": {"name": "s", "schema": [["k", "STRING"]]}, "pipeline": []}"#;
        assert_eq!(
            idle_state_retention_as_state_ttl(json, FlinkMode::Flink2_3).unwrap_err().to_string(),
            "idle_state_retention: min = 10 min, max = 899999 ms: 299999 ms apart; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 600000 ms and maxTime: 899999 ms should be at least 5 minutes.\""
        );
    }
}
