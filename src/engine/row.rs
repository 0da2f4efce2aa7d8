//! Rows, values and changelog messages, printed the way Flink prints them.
//!
//! Two message forms exist, one per planner generation:
//! - [`RowKind`] (`org.apache.flink.types.RowKind`, Flink 1.11+): `+I[1, 1]`, `-U[..]`, `+U[..]`, `-D[..]`,
//!   as `Row.toString()` prints them in Flink 2.3 (fields joined by `", "`, `null` for NULL).
//! - the legacy planner's `CRow(change, row)` (Flink ≤ 1.13), seen by users through
//!   `toRetractStream` as `Tuple2<Boolean, Row>`: `(true,1,1)` / `(false,1,1)` (Flink 1.9
//!   `Row.toString()` joins fields with `","`).

use super::symbol::Sym;
use serde::Serialize;
use smallvec::SmallVec;
use std::fmt;

/// One SQL value. Integer types (`INT`, `BIGINT`) share `Int`. Strings are interned ([`Sym`]):
/// a value is 16 bytes and copying it into a key, a message or a checkpoint copies no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(untagged)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Str(Sym),
    /// A `TIMESTAMP_LTZ(3)` value in ms since the epoch: the processing-time attribute
    /// (`PROCTIME()`, [`DataType::ProcTime`]). Printed as Flink 2.3's print connector prints it
    /// (`Row.toString()` of the external row, where `LocalZonedTimestampType`'s default class is
    /// `java.time.Instant`): `2019-11-21T10:00:00Z`, `.123Z` when the ms are not zero.
    Ts(i64),
}

impl Value {
    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Sym::new(s))
    }

    /// The value as the legacy planner's `Row.toString()` prints it (Flink ≤ 1.13,
    /// `toRetractStream`): a processing time materialized as `java.sql.Timestamp`
    /// (`TimeMaterializationSqlFunction`), whose `toString()` is `2019-11-21 10:00:00.0` (UTC
    /// here, the JVM's zone in Flink); anything else as [`Display`](fmt::Display).
    pub fn legacy_text(&self) -> String {
        match self {
            Value::Ts(ms) => match chrono::DateTime::from_timestamp_millis(*ms) {
                Some(t) => {
                    // Nanoseconds with the trailing zeros dropped, at least one digit.
                    let nanos = format!("{:09}", ms.rem_euclid(1000) * 1_000_000);
                    let fraction = nanos.trim_end_matches('0');
                    format!("{}.{}", t.format("%Y-%m-%d %H:%M:%S"), if fraction.is_empty() { "0" } else { fraction })
                }
                None => ms.to_string(),
            },
            v => v.to_string(),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write!(f, "{s}"),
            Value::Ts(ms) => write!(f, "{}", instant_text(*ms)),
        }
    }
}

/// `java.time.Instant.toString()` (ISO-8601 in UTC, seconds always, the fraction in groups of
/// three digits only when not zero) of `ms` since the epoch: `2019-11-21T10:00:00Z`.
pub fn instant_text(ms: i64) -> String {
    match chrono::DateTime::from_timestamp_millis(ms) {
        Some(t) if ms.rem_euclid(1000) == 0 => t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Some(t) => t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        None => ms.to_string(),
    }
}

/// A row: the values of one record, in schema order. Up to four values live inline, so keys,
/// messages and rows of narrow tables are built without a heap allocation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(transparent)]
pub struct Row(pub SmallVec<[Value; 4]>);

/// A row hashes and compares as its values, so maps keyed by rows can be searched with a slice
/// of values (a prefix of another row) without building a row.
impl std::borrow::Borrow<[Value]> for Row {
    fn borrow(&self) -> &[Value] {
        &self.0
    }
}

impl From<Vec<Value>> for Row {
    fn from(values: Vec<Value>) -> Row {
        Row(SmallVec::from_vec(values))
    }
}

impl FromIterator<Value> for Row {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> Row {
        Row(iter.into_iter().collect())
    }
}

impl Row {
    /// The values joined with `sep` (Flink 2.x uses `", "`, the legacy planner `","`).
    pub fn join(&self, sep: &str) -> String {
        self.0.iter().map(ToString::to_string).collect::<Vec<_>>().join(sep)
    }
    /// A grouping key for people: its values joined by `", "`, or `(global)` for the empty key
    /// of a global aggregation (no `GROUP BY`).
    pub fn key_label(&self) -> String {
        if self.0.is_empty() {
            "(global)".into()
        } else {
            self.join(", ")
        }
    }
    /// Picks the values at `indices`, in that order (a grouping key, a projection).
    pub fn project(&self, indices: &[usize]) -> Row {
        let mut out = SmallVec::with_capacity(indices.len());
        for &i in indices {
            out.push(self.0.get(i).cloned().unwrap_or(Value::Null));
        }
        Row(out)
    }
    /// This row followed by `other`'s values.
    pub fn concat(&self, other: &Row) -> Row {
        Row(self.0.iter().chain(other.0.iter()).cloned().collect())
    }
}

/// `org.apache.flink.types.RowKind`, the change a row carries (Flink 1.11+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKind {
    Insert,
    UpdateBefore,
    UpdateAfter,
    Delete,
}

impl RowKind {
    /// Flink's `RowKind.shortString()`: `+I`, `-U`, `+U`, `-D`.
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }
    /// What [`RowKind::parse`] reads: each kind's short string and Flink's enum name.
    const WRITTEN: [(&'static str, &'static str, RowKind); 4] = [
        ("+I", "INSERT", RowKind::Insert),
        ("-U", "UPDATE_BEFORE", RowKind::UpdateBefore),
        ("+U", "UPDATE_AFTER", RowKind::UpdateAfter),
        ("-D", "DELETE", RowKind::Delete),
    ];

    /// Parses `+I`, `-U`, `+U`, `-D` (also Flink's enum names `INSERT`, `UPDATE_BEFORE`, ...).
    pub fn parse(text: &str) -> Option<RowKind> {
        Self::WRITTEN.iter().find(|(short, name, _)| text == *short || text == *name).map(|(_, _, kind)| *kind)
    }

    /// The JSON Schema of an optional row kind as [`RowKind::parse`] reads it (the scenario
    /// format's schema, `flink-state-sim schema`).
    pub(crate) fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let shorts = Self::WRITTEN.iter().map(|(short, _, _)| *short);
        let names = Self::WRITTEN.iter().map(|(_, name, _)| *name);
        let forms: Vec<serde_json::Value> =
            shorts.chain(names).map(Into::into).chain([serde_json::Value::Null]).collect();
        schemars::json_schema!({ "type": ["string", "null"], "enum": forms })
    }
    /// `INSERT` and `UPDATE_AFTER` are accumulate messages; `UPDATE_BEFORE` and `DELETE` are
    /// retract messages (`RowDataUtil.isAccumulateMsg` / `isRetractMsg`).
    pub fn is_accumulate(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }
}

/// The change flag of a message: a [`RowKind`] (Flink 1.11+), or the legacy planner's
/// `CRow.change` boolean (`true` = accumulate, `false` = retract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    Kind(RowKind),
    Legacy(bool),
}

impl Change {
    /// Whether the message adds its row (accumulate) rather than retracting it.
    pub fn is_accumulate(self) -> bool {
        match self {
            Change::Kind(kind) => kind.is_accumulate(),
            Change::Legacy(change) => change,
        }
    }
    /// A message of `kind` as a version prints it: the kind itself where messages carry a
    /// `RowKind` (`row_kind`, Flink 1.11+), else `toRetractStream`'s flag (the Blink planner of
    /// 1.9/1.10 also keeps the kind in the row's header, but a retract stream shows the flag).
    pub fn of(kind: RowKind, row_kind: bool) -> Change {
        if row_kind {
            Change::Kind(kind)
        } else {
            Change::Legacy(kind.is_accumulate())
        }
    }
    /// `+I`/`-U`/`+U`/`-D`, or `true`/`false` for the legacy planner.
    pub fn label(self) -> &'static str {
        match self {
            Change::Kind(kind) => kind.short_string(),
            Change::Legacy(true) => "true",
            Change::Legacy(false) => "false",
        }
    }
}

/// A changelog message: a change flag and a row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Message {
    pub change: Change,
    pub row: Row,
}

impl Message {
    pub fn new(change: Change, row: Row) -> Self {
        Message { change, row }
    }
}

impl Message {
    /// The message as an error echoes it: [`Display`](fmt::Display)'s form, each value escaped
    /// and shortened ([`name`](super::error::name)), so a long or hostile value keeps the error
    /// one short line.
    pub fn echo(&self) -> String {
        let values = |sep: &str, text: fn(&Value) -> String| {
            self.row.0.iter().map(|v| super::error::name(&text(v))).collect::<Vec<_>>().join(sep)
        };
        match self.change {
            Change::Kind(kind) => format!("{}[{}]", kind.short_string(), values(", ", Value::to_string)),
            Change::Legacy(change) if self.row.0.is_empty() => format!("({change})"),
            Change::Legacy(change) => format!("({change},{})", values(",", Value::legacy_text)),
        }
    }
}

impl fmt::Display for Message {
    /// Flink's print format: `+I[dev1, 1]`, or `(true,dev1,1)` for the legacy planner.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.change {
            Change::Kind(kind) => write!(f, "{}[{}]", kind.short_string(), self.row.join(", ")),
            Change::Legacy(change) if self.row.0.is_empty() => write!(f, "({change})"),
            Change::Legacy(change) => {
                let values: Vec<String> = self.row.0.iter().map(Value::legacy_text).collect();
                write!(f, "({change},{})", values.join(","))
            }
        }
    }
}

/// A column's SQL type. Only what the operators need to check input rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum DataType {
    #[serde(rename = "INT")]
    Int,
    #[serde(rename = "BIGINT")]
    BigInt,
    #[serde(rename = "STRING")]
    String,
    #[serde(rename = "BOOLEAN")]
    Boolean,
    /// A processing-time attribute (`PROCTIME()`), declared by a source's `proctime`, never in
    /// a schema. Its value is the processing time in ms.
    #[serde(rename = "TIMESTAMP_LTZ(3) *PROCTIME*")]
    ProcTime,
}

crate::string_enum!(
    DataType,
    [
        ("INT", DataType::Int),
        ("BIGINT", DataType::BigInt),
        ("STRING", DataType::String),
        ("BOOLEAN", DataType::Boolean)
    ]
);

impl DataType {
    pub fn name(self) -> &'static str {
        match self {
            DataType::Int => "INT",
            DataType::BigInt => "BIGINT",
            DataType::String => "STRING",
            DataType::Boolean => "BOOLEAN",
            DataType::ProcTime => "TIMESTAMP_LTZ(3) *PROCTIME*",
        }
    }
    /// Converts a JSON value into a SQL value of this type (JSON `null` is SQL NULL).
    ///
    /// # Errors
    /// A message naming the expected type and the value found (e.g. an INT out of range).
    pub fn value_from_json(self, v: &serde_json::Value) -> Result<Value, String> {
        let bad = || format!("expected {} or null, found {}", self.name(), super::error::json_value(v));
        match (self, v) {
            (_, serde_json::Value::Null) => Ok(Value::Null),
            (DataType::Int, serde_json::Value::Number(n)) => {
                let i = n.as_i64().ok_or_else(bad)?;
                i32::try_from(i).map_err(|_| format!("{i} is out of range for INT (32-bit)"))?;
                Ok(Value::Int(i))
            }
            (DataType::BigInt, serde_json::Value::Number(n)) => n.as_i64().map(Value::Int).ok_or_else(bad),
            (DataType::String, serde_json::Value::String(s)) => Ok(Value::str(s)),
            (DataType::Boolean, serde_json::Value::Bool(b)) => Ok(Value::Bool(*b)),
            _ => Err(bad()),
        }
    }
}

/// A named, typed column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Column {
    pub name: String,
    pub data_type: DataType,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real Flink 2.3's print connector on a `PROCTIME()` column (tests/fixtures/flink/
    /// print-proctime.txt): `+I[a, 1, 2026-12-03T06:45:49.584Z]`.
    #[test]
    fn a_proctime_value_prints_as_flinks_print_connector_prints_it() {
        let recorded = include_str!("../../tests/fixtures/flink/print-proctime.txt");
        let line = recorded.lines().find(|l| l.starts_with("+I[a, 1, ")).unwrap();
        // 2026-12-03T06:45:49.584Z in ms since the epoch.
        let ms = chrono::DateTime::parse_from_rfc3339("2026-12-03T06:45:49.584Z").unwrap().timestamp_millis();
        let row = Row::from(vec![Value::str("a"), Value::Int(1), Value::Ts(ms)]);
        assert_eq!(Message::new(Change::Kind(RowKind::Insert), row).to_string(), line);
        // Whole seconds without a fraction, as `Instant.toString()`.
        assert_eq!(instant_text(1_574_330_400_000), "2019-11-21T10:00:00Z");
        assert_eq!(instant_text(1_500), "1970-01-01T00:00:01.500Z");
        // The legacy planner's java.sql.Timestamp.
        let legacy = Message::new(Change::Legacy(true), Row::from(vec![Value::str("a"), Value::Ts(1_574_330_400_050)]));
        assert_eq!(legacy.to_string(), "(true,a,2019-11-21 10:00:00.05)");
        assert_eq!(Value::Ts(1_574_330_400_000).legacy_text(), "2019-11-21 10:00:00.0");
    }

    fn row(vals: &[Value]) -> Row {
        Row::from(vals.to_vec())
    }

    #[test]
    fn prints_like_flink() {
        let r = row(&[Value::str("dev1"), Value::Int(1)]);
        assert_eq!(Message::new(Change::Kind(RowKind::Insert), r.clone()).to_string(), "+I[dev1, 1]");
        assert_eq!(Message::new(Change::Kind(RowKind::UpdateBefore), r.clone()).to_string(), "-U[dev1, 1]");
        assert_eq!(Message::new(Change::Legacy(true), r.clone()).to_string(), "(true,dev1,1)");
        assert_eq!(Message::new(Change::Legacy(false), r).to_string(), "(false,dev1,1)");
        assert_eq!(Message::new(Change::Kind(RowKind::Delete), row(&[Value::Null])).to_string(), "-D[null]");
    }

    #[test]
    fn converts_json_by_type() {
        assert_eq!(DataType::Int.value_from_json(&serde_json::json!(5)), Ok(Value::Int(5)));
        assert!(DataType::Int.value_from_json(&serde_json::json!(5_000_000_000i64)).is_err());
        assert_eq!(
            DataType::BigInt.value_from_json(&serde_json::json!(5_000_000_000i64)),
            Ok(Value::Int(5_000_000_000))
        );
        assert_eq!(DataType::String.value_from_json(&serde_json::json!(null)), Ok(Value::Null));
        assert_eq!(
            DataType::String.value_from_json(&serde_json::json!(1)),
            Err("expected STRING or null, found 1".into())
        );
    }
}
