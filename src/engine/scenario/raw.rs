//! The scenario as written (serde forms), before validation.

use super::FlinkMode;
use super::SourceChangelog;
use super::StateBackend;
use crate::engine::row::DataType;
use crate::engine::row::Value;
use crate::engine::symbol::Sym;
use crate::engine::time::{
    check_duration, check_time, parse_date_time, parse_duration, Millis, TimeFormat, MAX_TIME_MS,
};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use smallvec::SmallVec;
use std::fmt;

/// A time as written: a number of ms, or an ISO-8601 date-time string.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeValue {
    pub(crate) ms: Millis,
    pub(crate) date_time: bool,
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
/// A JSON number as whole milliseconds: an integer, or a number written with a fraction that is
/// exactly whole (`1.0` is 1 ms).
fn whole_millis(n: &serde_json::Number) -> Result<Millis, String> {
    if let Some(ms) = n.as_i64() {
        return Ok(ms);
    }
    match n.as_f64() {
        // Exactly representable whole numbers below 2^53 convert without loss.
        Some(f) if !n.is_u64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => Ok(f as i64),
        Some(f) if n.is_u64() || f.fract() == 0.0 => Err(format!("{n} ms is outside 0 ..= {MAX_TIME_MS} ms")),
        _ => Err(format!("{n} is not a whole number of milliseconds")),
    }
}

/// A duration as written: a number of ms, or Flink's syntax (`"5 min"`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DurationValue(pub(crate) Millis);

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
    /// What to watch while stepping: shown on the page beside the description.
    #[serde(default)]
    pub(super) watch: Option<String>,
    pub(super) flink: FlinkMode,
    #[serde(default)]
    pub(super) time_format: Option<TimeFormat>,
    #[serde(default)]
    pub(super) start: Option<TimeValue>,
    #[serde(default)]
    pub(super) idle_state_retention: Option<RawIdleStateRetention>,
    #[serde(default)]
    pub(super) state_ttl: Option<DurationValue>,
    #[serde(default)]
    pub(super) state_backend: StateBackend,
    /// `table.exec.mini-batch.*`.
    #[serde(default)]
    pub(super) mini_batch: Option<RawMiniBatch>,
    /// `table.optimizer.agg-phase-strategy`.
    #[serde(default)]
    pub(super) agg_phase_strategy: Option<String>,
    pub(super) source: RawSource,
    /// Each operator as JSON text, read by its kind's compiler.
    pub(super) pipeline: Vec<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    pub(super) steps: Vec<RawStep>,
    #[serde(default)]
    pub(super) workload: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    pub(super) expect: Option<Box<serde_json::value::RawValue>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an object {\"min\": duration, \"max\": duration, \"test_harness\": bool}")]
pub(super) struct RawIdleStateRetention {
    pub(super) min: DurationValue,
    pub(super) max: DurationValue,
    #[serde(default)]
    pub(super) test_harness: bool,
}

/// `"mini_batch": {"enabled": true, "allow_latency": "1 s", "size": 1000}`: Flink's
/// `table.exec.mini-batch.enabled` (default `true` here: writing the object turns it on),
/// `allow-latency` and `size`, absent ones taking Flink's defaults (0 ms, -1).
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object {\"enabled\": bool, \"allow_latency\": duration, \"size\": number}"
)]
pub(super) struct RawMiniBatch {
    #[serde(default = "yes")]
    pub(super) enabled: bool,
    #[serde(default)]
    pub(super) allow_latency: Option<DurationValue>,
    #[serde(default)]
    pub(super) size: Option<i64>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a source object {\"name\", \"schema\", \"changelog\", \"proctime\"}")]
pub(super) struct RawSource {
    pub(super) name: String,
    pub(super) schema: Vec<(String, DataType)>,
    #[serde(default)]
    pub(super) changelog: SourceChangelog,
    /// The name of a processing-time attribute (`pt AS PROCTIME()`), appended to the schema.
    #[serde(default)]
    pub(super) proctime: Option<String>,
}

/// The fields every operator object has; the rest are its kind's (see
/// [`OPERATOR_KINDS`](crate::engine::operators::OPERATOR_KINDS)).
#[derive(Deserialize)]
#[serde(expecting = "an operator object {\"operator\", \"id\", ...}")]
pub(super) struct RawOperatorHeader {
    pub(super) operator: String,
    pub(super) id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a step object")]
pub(super) struct RawStep {
    #[serde(default)]
    pub(super) at: Option<TimeValue>,
    #[serde(default)]
    pub(super) row: Option<SmallVec<[RawCell; 4]>>,
    #[serde(default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) advance_to: Option<TimeValue>,
    #[serde(default)]
    pub(super) advance_by: Option<DurationValue>,
}

/// One value of an input row as written. Scalars are read straight from the text (a string is
/// interned without being copied first: a million-step scenario reads fast); anything else is
/// kept as JSON for the error message.
#[derive(Debug, Clone)]
pub(super) enum RawCell {
    Null,
    Bool(bool),
    Int(i64),
    Str(Sym),
    Other(Box<serde_json::Value>),
}

impl RawCell {
    /// The value for a column of type `t`, with [`DataType::value_from_json`]'s rules and messages.
    pub(super) fn value(&self, t: DataType) -> Result<Value, String> {
        match (t, self) {
            (_, RawCell::Null) => Ok(Value::Null),
            (DataType::Int, RawCell::Int(i)) if i32::try_from(*i).is_ok() => Ok(Value::Int(*i)),
            (DataType::BigInt, RawCell::Int(i)) => Ok(Value::Int(*i)),
            (DataType::String, RawCell::Str(s)) => Ok(Value::Str(*s)),
            (DataType::Boolean, RawCell::Bool(b)) => Ok(Value::Bool(*b)),
            _ => t.value_from_json(&self.to_json()),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            RawCell::Null => serde_json::Value::Null,
            RawCell::Bool(b) => serde_json::Value::Bool(*b),
            RawCell::Int(i) => serde_json::Value::from(*i),
            RawCell::Str(s) => serde_json::Value::String(s.text().to_string()),
            RawCell::Other(v) => (**v).clone(),
        }
    }
}

impl<'de> Deserialize<'de> for RawCell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CellVisitor;
        impl<'de> Visitor<'de> for CellVisitor {
            type Value = RawCell;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<RawCell, E> {
                Ok(RawCell::Null)
            }
            fn visit_none<E>(self) -> Result<RawCell, E> {
                Ok(RawCell::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<RawCell, E> {
                Ok(RawCell::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<RawCell, E> {
                Ok(RawCell::Int(i))
            }
            fn visit_u64<E>(self, u: u64) -> Result<RawCell, E> {
                Ok(i64::try_from(u).map_or_else(|_| RawCell::Other(Box::new(serde_json::Value::from(u))), RawCell::Int))
            }
            fn visit_f64<E>(self, f: f64) -> Result<RawCell, E> {
                Ok(RawCell::Other(Box::new(serde_json::Value::from(f))))
            }
            fn visit_str<E>(self, s: &str) -> Result<RawCell, E> {
                Ok(RawCell::Str(Sym::new(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawCell, A::Error> {
                let v = serde_json::Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(RawCell::Other(Box::new(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawCell, A::Error> {
                let v = serde_json::Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(RawCell::Other(Box::new(v)))
            }
        }
        d.deserialize_any(CellVisitor)
    }
}
