//! The scenario as written (serde forms), before validation.

use super::FlinkMode;
use super::SourceChangelog;
use crate::engine::row::DataType;
use crate::engine::time::{
    check_duration, check_time, parse_date_time, parse_duration, Millis, TimeFormat, MAX_TIME_MS,
};
use serde::{Deserialize, Deserializer};

/// A time as written: a number of ms, or an ISO-8601 date-time string.
#[derive(Debug, Clone, Copy)]
pub(super) struct TimeValue {
    pub(super) ms: Millis,
    pub(super) date_time: bool,
}

impl<'de> Deserialize<'de> for TimeValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => whole_millis(&n)
                .and_then(check_time)
                .map(|ms| TimeValue { ms, date_time: false })
                .map_err(serde::de::Error::custom),
            serde_json::Value::String(s) => parse_date_time(&s)
                .and_then(check_time)
                .map(|ms| TimeValue { ms, date_time: true })
                .map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!(
                "expected processing time as milliseconds or an ISO-8601 date-time string, found {other}"
            ))),
        }
    }
}

/// A JSON number as whole milliseconds.
fn whole_millis(n: &serde_json::Number) -> Result<Millis, String> {
    if let Some(ms) = n.as_i64() {
        return Ok(ms);
    }
    match n.as_f64() {
        Some(f) if n.is_u64() || f.fract() == 0.0 => Err(format!("{n} ms is outside 0 ..= {MAX_TIME_MS} ms")),
        _ => Err(format!("{n} is not a whole number of milliseconds")),
    }
}

/// A duration as written: a number of ms, or Flink's syntax (`"5 min"`).
#[derive(Debug, Clone, Copy)]
pub(super) struct DurationValue(pub(super) Millis);

impl<'de> Deserialize<'de> for DurationValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => {
                whole_millis(&n).and_then(check_duration).map(DurationValue).map_err(serde::de::Error::custom)
            }
            serde_json::Value::String(s) => {
                parse_duration(&s).and_then(check_duration).map(DurationValue).map_err(serde::de::Error::custom)
            }
            other => Err(serde::de::Error::custom(format!(
                "expected a duration in Flink's syntax (\"5 min\", \"1 d\") or milliseconds, found {other}"
            ))),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a scenario object")]
pub(super) struct RawScenario {
    pub(super) name: String,
    #[serde(default)]
    pub(super) title: Option<String>,
    #[serde(default)]
    pub(super) description: Option<String>,
    pub(super) flink: FlinkMode,
    #[serde(default)]
    pub(super) time_format: Option<TimeFormat>,
    #[serde(default)]
    pub(super) start: Option<TimeValue>,
    #[serde(default)]
    pub(super) idle_state_retention: Option<RawIdleStateRetention>,
    #[serde(default)]
    pub(super) state_ttl: Option<DurationValue>,
    pub(super) source: RawSource,
    pub(super) pipeline: Vec<RawOperator>,
    pub(super) steps: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object {\"min\": duration, \"max\": duration, \"test_harness\": bool}")]
pub(super) struct RawIdleStateRetention {
    pub(super) min: DurationValue,
    pub(super) max: DurationValue,
    #[serde(default)]
    pub(super) test_harness: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a source object {\"name\", \"schema\", \"changelog\"}")]
pub(super) struct RawSource {
    pub(super) name: String,
    pub(super) schema: Vec<(String, DataType)>,
    #[serde(default)]
    pub(super) changelog: SourceChangelog,
}

/// The operator types. One struct holds every operator's fields (rather than a tagged enum)
/// so that errors name the exact field, e.g. `pipeline[0].aggregates[1].as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(super) enum OperatorType {
    GroupAggregate,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an operator object {\"operator\", \"id\", ...}")]
pub(super) struct RawOperator {
    pub(super) operator: OperatorType,
    pub(super) id: String,
    #[serde(default)]
    pub(super) group_by: Vec<String>,
    #[serde(default)]
    pub(super) aggregates: Vec<RawAggregate>,
    #[serde(default = "yes", alias = "generate_retraction")]
    pub(super) generate_update_before: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an aggregate object {\"function\", \"args\", \"as\"}")]
pub(super) struct RawAggregate {
    pub(super) function: String,
    #[serde(default)]
    pub(super) args: Vec<String>,
    #[serde(rename = "as")]
    pub(super) alias: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a step object")]
pub(super) struct RawStep {
    #[serde(default)]
    pub(super) at: Option<TimeValue>,
    #[serde(default)]
    pub(super) row: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) advance_to: Option<TimeValue>,
    #[serde(default)]
    pub(super) advance_by: Option<DurationValue>,
}
