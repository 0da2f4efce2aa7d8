//! The JSON forms shared by the scenario format and the operators' compilers: reading one part
//! of a scenario ([`parse_part`]), times and durations as written ([`TimeValue`],
//! [`DurationValue`]), and the JSON Schema helpers their schemas use ([`any_ascii_case`],
//! [`alias`]).

use crate::engine::error::{serde_error_path, serde_message_without_position, ScenarioError};
use crate::engine::time::{
    check_duration, check_time, duration_pattern, parse_date_time, parse_duration, Millis, DATE_TIME_PATTERN,
    MAX_TIME_MS,
};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// Parses one part of a scenario (`raw`, its JSON text) as `T`, naming fields from `path`
/// (`pipeline[1]`, `workload`).
///
/// # Errors
/// A [`ScenarioError`] whose path is `path` followed by the field's.
pub fn parse_part<T: DeserializeOwned>(raw: &str, path: &str) -> Result<T, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(raw);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let full = match serde_error_path(e.path(), e.inner()) {
            None => path.to_string(),
            Some(inner) => format!("{path}.{inner}"),
        };
        ScenarioError::new(full, serde_message_without_position(e.inner()))
    })
}

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
                "expected processing time as milliseconds or an ISO-8601 date-time string, found {}",
                crate::engine::error::json_value(&other)
            ))),
        }
    }
}

/// The JSON Schema of what [`TimeValue`]'s `Deserialize` accepts.
impl JsonSchema for TimeValue {
    fn schema_name() -> Cow<'static, str> {
        "Time".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A processing time: milliseconds since the epoch, or an ISO-8601 date-time \
                            (UTC unless it gives an offset).",
            "anyOf": [
                { "type": "integer", "minimum": 0, "maximum": MAX_TIME_MS },
                { "type": "string", "pattern": DATE_TIME_PATTERN }
            ],
            "examples": ["2019-11-20T15:00", "2019-11-20T15:00:00.250", "2019-11-20T23:00:00+08:00", 4003]
        })
    }
}

/// A JSON number as whole milliseconds: an integer, or a number written with a fraction that is
/// exactly whole (`1.0` is 1 ms).
fn whole_millis(n: &serde_json::Number) -> Result<Millis, String> {
    if let Some(ms) = n.as_i64() {
        return Ok(ms);
    }
    match n.as_f64() {
        // Exactly representable whole numbers below 2^53 convert without loss.
        Some(f) if !n.is_u64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => Ok(f as i64),
        Some(f) if n.is_u64() || f.fract() == 0.0 => Err(if f < 0.0 {
            format!("{n} ms is before 1970-01-01T00:00:00Z, where a scenario's time starts (0 ms)")
        } else {
            format!("{n} ms is after {}, the latest time a scenario can reach", crate::engine::time::LATEST_TIME_TEXT)
        }),
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
                "expected a duration in Flink's syntax (\"5 min\", \"1 d\") or milliseconds, found {}",
                crate::engine::error::json_value(&other)
            ))),
        }
    }
}

/// The JSON Schema of what [`DurationValue`]'s `Deserialize` accepts.
impl JsonSchema for DurationValue {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A duration: milliseconds, or Flink's syntax, one number and one unit \
                            (ms, s, min, h, d, ...).",
            "anyOf": [
                { "type": "integer", "minimum": 0, "maximum": MAX_TIME_MS },
                { "type": "string", "pattern": duration_pattern() }
            ],
            "examples": ["5 min", "1 d", "300 ms", 10]
        })
    }
}

/// A regex (ECMA-262, as JSON Schema's `pattern` uses) matching `text` in any ASCII case, as
/// parsers that ignore ASCII case read it (`"5 MIN"`, `"one_phase"`).
pub(crate) fn any_ascii_case(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            c if c.is_ascii_alphabetic() => format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase()),
            c if "\\^$.|?*+()[]{}/".contains(c) => format!("\\{c}"),
            c => c.to_string(),
        })
        .collect()
}

/// Adds `alias`, serde's `#[serde(alias)]` of the property `name`, to an object's schema
/// (schemars leaves aliases out): the same schema, marked deprecated, and not both at once (serde
/// reads both as the same field: a duplicate).
pub(crate) fn alias(schema: &mut Schema, name: &str, alias: &str) {
    let Some(properties) = schema.get_mut("properties").and_then(serde_json::Value::as_object_mut) else {
        return;
    };
    let Some(mut aliased) = properties.get(name).cloned() else {
        return;
    };
    if let Some(obj) = aliased.as_object_mut() {
        obj.insert("description".into(), format!("The former name of `{name}`.").into());
        obj.insert("deprecated".into(), true.into());
    }
    properties.insert(alias.into(), aliased);
    let all_of = schema.ensure_object().entry("allOf").or_insert_with(|| serde_json::json!([]));
    if let Some(all_of) = all_of.as_array_mut() {
        all_of.push(serde_json::json!({ "not": { "required": [name, alias] } }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_ascii_case_escapes_and_ignores_case() {
        assert_eq!(any_ascii_case("µs"), "µ[sS]");
        assert_eq!(any_ascii_case("A_1.b"), "[aA]_1\\.[bB]");
    }
}
