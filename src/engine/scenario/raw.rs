//! The scenario as written (serde forms), before validation.

use super::SourceChangelog;
use crate::engine::format::{DurationValue, TimeValue};
use crate::engine::options::{FlinkMode, StateBackend};
use crate::engine::row::DataType;
use crate::engine::row::RowKind;
use crate::engine::row::Value;
use crate::engine::symbol::Sym;
use crate::engine::time::TimeFormat;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::fmt;

/// A scenario of flink-state-sim: which Flink to simulate, its retention settings, a source
/// table, a pipeline of operators and the steps that drive it (docs/scenario-format.md).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a scenario object")]
#[schemars(rename = "Scenario")]
// Exactly one of `source` and `sources` (the rule `validate::compile_sources` applies).
#[schemars(extend("oneOf" = [
    { "required": ["source"], "properties": { "sources": false } },
    { "required": ["sources"], "properties": { "source": false } }
]))]
pub(super) struct RawScenario {
    /// The JSON Schema this file follows, for editors (the output of `flink-state-sim schema`,
    /// saved next to the scenarios). Ignored by the simulator.
    #[serde(default, rename = "$schema")]
    #[allow(dead_code)]
    pub(super) json_schema: Option<String>,
    /// An identifier (presets are chosen by it).
    pub(super) name: String,
    /// A title, shown on the page.
    #[serde(default)]
    pub(super) title: Option<String>,
    /// What the scenario shows, shown on the page.
    #[serde(default)]
    pub(super) description: Option<String>,
    /// What to watch while stepping: shown on the page beside the description.
    #[serde(default)]
    pub(super) watch: Option<String>,
    /// The Flink to simulate: `1.6-legacy`, `1.7-legacy` and `1.10-legacy` (1.8–1.11) are the
    /// legacy planner with idle state retention and cleanup timers; `1.10-blink` the Blink
    /// planner of 1.9–1.10.0; `1.12` (1.12–1.18) and `2.3` (1.19–2.3) use `table.exec.state.ttl`.
    pub(super) flink: FlinkMode,
    /// How the page and the CLI write times. Default: date-times when the scenario writes its
    /// times as date-times, else milliseconds.
    #[serde(default)]
    pub(super) time_format: Option<TimeFormat>,
    /// The processing time before the first step (default: the first step's time).
    #[serde(default)]
    pub(super) start: Option<TimeValue>,
    /// `TableConfig.setIdleStateRetentionTime(min, max)` (legacy planner and Blink 1.10 only).
    /// Absent: 0/0, state is never cleaned.
    #[serde(default)]
    pub(super) idle_state_retention: Option<RawIdleStateRetention>,
    /// `table.exec.state.ttl` (Flink 1.12 and later; default 0: state never expires).
    #[serde(default)]
    pub(super) state_ttl: Option<DurationValue>,
    /// `state.backend.type`: `hashmap` (default; state holds the objects the operator wrote) or
    /// `rocksdb` (state holds the bytes serialized at `update()`).
    #[serde(default)]
    pub(super) state_backend: Option<StateBackend>,
    /// `table.exec.mini-batch.*` (Flink 2.3 only).
    #[serde(default)]
    pub(super) mini_batch: Option<RawMiniBatch>,
    /// `table.optimizer.agg-phase-strategy`: `AUTO` (default), `ONE_PHASE` or `TWO_PHASE`, in any
    /// case (Flink 2.3 only; matters with `mini_batch`).
    #[serde(default)]
    #[schemars(schema_with = "super::AggPhaseStrategy::json_schema")]
    pub(super) agg_phase_strategy: Option<String>,
    /// `pipeline.auto-watermark-interval` (default `200 ms`): how often a source's
    /// `WatermarkAssignerOperator` emits its watermark on a processing-time timer.
    #[serde(default)]
    pub(super) auto_watermark_interval: Option<DurationValue>,
    /// `table.exec.source.cdc-events-duplicate` (default `false`): the SQL planner puts a
    /// `ChangelogNormalize` over each `all` source with a primary key (a JSON pipeline writes its
    /// `ChangelogNormalize` itself).
    #[serde(default)]
    pub(super) cdc_events_duplicate: Option<bool>,
    /// The source table (a scenario of one source). Give either `source` or `sources`.
    #[serde(default)]
    pub(super) source: Option<RawSource>,
    /// The source tables, when there are several (a join's inputs): each input step names its
    /// source.
    #[serde(default)]
    pub(super) sources: Option<Vec<RawSource>>,
    /// The operators, each consuming the previous one's changelog unless it names its `input`
    /// (or, for a join, its `left` and `right` inputs); the last one feeds the result table.
    /// Give either `pipeline` or `sql`.
    // Each operator is kept as JSON text, read by its kind's compiler.
    #[serde(default)]
    #[schemars(with = "Option<Vec<crate::engine::operators::AnyOperator>>")]
    pub(super) pipeline: Option<Vec<Box<serde_json::value::RawValue>>>,
    /// Flink SQL instead of `pipeline`: `SET 'key' = 'value';` statements (the options the
    /// scenario's fields hold), `CREATE TEMPORARY VIEW name AS …;`, then one query (`SELECT …`,
    /// or `INSERT INTO` a table declared with `CREATE TABLE`) reading the source. Planned as
    /// Flink 2.3's planner plans it (`flink-state-sim explain`).
    #[serde(default)]
    pub(super) sql: Option<String>,
    /// What happens, in order: input rows and advances of processing time.
    #[serde(default)]
    pub(super) steps: Vec<RawStep>,
    /// Generated input events, after the steps: for what-if runs of millions of events.
    #[serde(default)]
    #[schemars(with = "Option<crate::engine::workload::RawWorkload>")]
    pub(super) workload: Option<Box<serde_json::value::RawValue>>,
    /// What a run must produce, checked by `flink-state-sim check`.
    #[serde(default)]
    #[schemars(with = "Option<crate::engine::expect::RawExpect>")]
    pub(super) expect: Option<Box<serde_json::value::RawValue>>,
}

/// `{"min": D, "max": D}`: `max - min` must be at least 5 minutes unless both are 0 (Flink's
/// rule). Cleaning is enabled only when `min` > 1 ms.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "an object {\"min\": duration, \"max\": duration, \"test_harness\": bool}")]
#[schemars(rename = "IdleStateRetention")]
pub(super) struct RawIdleStateRetention {
    /// The minimum time a key's state is kept after its last access.
    pub(super) min: DurationValue,
    /// The maximum time a key's state is kept after its last access.
    pub(super) max: DurationValue,
    /// Skip the 5-minute rule, as Flink's harness tests do (e.g. min 5 ms, max 10 ms).
    #[serde(default)]
    pub(super) test_harness: bool,
}

/// `"mini_batch": {"enabled": true, "allow_latency": "1 s", "size": 1000}`: Flink's
/// `table.exec.mini-batch.enabled` (default `true` here: writing the object turns it on),
/// `allow-latency` and `size`, absent ones taking Flink's defaults (0 ms, -1).
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an object {\"enabled\": bool, \"allow_latency\": duration, \"size\": number}"
)]
#[schemars(rename = "MiniBatch")]
pub(super) struct RawMiniBatch {
    /// `table.exec.mini-batch.enabled` (default `true`; `false` turns mini-batch off again).
    #[serde(default = "yes")]
    pub(super) enabled: bool,
    /// `table.exec.mini-batch.allow-latency`: when a bundle is finished at the latest (must be
    /// greater than 0).
    #[serde(default)]
    pub(super) allow_latency: Option<DurationValue>,
    /// `table.exec.mini-batch.size`: how many records finish a bundle (must be > 0 for a pipeline
    /// with a `GroupAggregate`).
    #[serde(default)]
    pub(super) size: Option<i64>,
}

fn yes() -> bool {
    true
}

/// The source table.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a source object {\"name\", \"schema\", \"changelog\", \"primary_key\", \"proctime\", \"watermark\"}"
)]
#[schemars(rename = "Source")]
pub(super) struct RawSource {
    /// The table's name.
    pub(super) name: String,
    /// Its columns, each `[name, type]`.
    pub(super) schema: Vec<(String, DataType)>,
    /// `insert-only` (default); `all`: steps may carry `-U`, `+U` and `-D` rows (Debezium);
    /// `upsert`: `+I` / `+U` rows replace the row of their primary key, `-D` rows delete it, no
    /// `-U` (`upsert-kafka`; needs `primary_key`).
    #[serde(default)]
    pub(super) changelog: SourceChangelog,
    /// `PRIMARY KEY (cols) NOT ENFORCED`: its columns (NOT NULL). Needed by an `upsert` source;
    /// on an `all` source, `table.exec.source.cdc-events-duplicate` plans a `ChangelogNormalize`
    /// on it.
    #[serde(default)]
    pub(super) primary_key: Option<Vec<String>>,
    /// The name of a processing-time attribute (`pt AS PROCTIME()`), appended after the schema's
    /// columns; its value is the time the row is processed at.
    #[serde(default)]
    pub(super) proctime: Option<String>,
    /// The table's connector, as far as the plan shows it: `values` (default; what
    /// `from_elements` and `VALUES` read: every field scanned) or `filesystem` (projection and
    /// filter push-down: the scan reads only the fields the query uses).
    #[serde(default)]
    pub(super) connector: Option<super::SourceConnector>,
    /// An event-time attribute with its watermark, `WATERMARK FOR ts AS ts - INTERVAL '5' SECOND`:
    /// `{"column": "ts", "delay": "5 s"}` (the column a BIGINT of epoch milliseconds).
    #[serde(default)]
    pub(super) watermark: Option<RawWatermark>,
}

/// `WATERMARK FOR column AS column - INTERVAL delay`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "an object {\"column\": name, \"delay\": duration}")]
#[schemars(rename = "Watermark")]
pub(super) struct RawWatermark {
    /// The row-time column (BIGINT, epoch milliseconds).
    pub(super) column: String,
    /// How far the watermark trails the largest row time seen (default 0: `WATERMARK FOR ts AS ts`).
    #[serde(default)]
    pub(super) delay: Option<DurationValue>,
}

/// The fields every operator object has; the rest are its kind's (see
/// [`OPERATOR_KINDS`](crate::engine::operators::OPERATOR_KINDS)).
#[derive(Deserialize)]
#[serde(expecting = "an operator object {\"operator\", \"id\", ...}")]
pub(super) struct RawOperatorHeader {
    pub(super) operator: String,
    pub(super) id: String,
    /// The operator or source whose changelog it consumes (default: the previous operator, or
    /// the only source for the first operator).
    #[serde(default)]
    pub(super) input: Option<String>,
    /// A two-input operator's left input.
    #[serde(default)]
    pub(super) left: Option<String>,
    /// A two-input operator's right input.
    #[serde(default)]
    pub(super) right: Option<String>,
}

/// One step: an input row `{"at": T, "row": [...], "kind": "+I"}`, `{"advance_to": T}` or
/// `{"advance_by": D}`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a step object")]
#[schemars(rename = "Step")]
// Exactly one of `row`, `advance_to`, `advance_by`; `at` and `kind` only with `row` (the rule
// `validate::compile_steps` applies).
#[schemars(extend("oneOf" = [
    { "required": ["row"], "properties": { "advance_to": false, "advance_by": false } },
    { "required": ["advance_to"], "properties": { "at": false, "kind": false, "row": false, "source": false, "advance_by": false } },
    { "required": ["advance_by"], "properties": { "at": false, "kind": false, "row": false, "source": false, "advance_to": false } }
]))]
pub(super) struct RawStep {
    /// The source the row comes from (by name): needed when the scenario has several sources.
    #[serde(default)]
    pub(super) source: Option<String>,
    /// When the row arrives (default: the current processing time). Timers due at or before it
    /// fire first.
    #[serde(default)]
    pub(super) at: Option<TimeValue>,
    /// A source row: one value per column of the source's schema.
    #[serde(default)]
    #[schemars(with = "Option<Vec<RawCell>>")]
    pub(super) row: Option<SmallVec<[RawCell; 4]>>,
    /// The row's kind: `+I` (default); `-U`, `+U`, `-D` need `source.changelog: "all"`, `+U`
    /// and `-D` `"upsert"`.
    #[serde(default)]
    #[schemars(schema_with = "RowKind::json_schema")]
    pub(super) kind: Option<String>,
    /// Advance processing time to this time, firing every timer due at or before it, in order.
    #[serde(default)]
    pub(super) advance_to: Option<TimeValue>,
    /// Advance processing time by this duration.
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

/// The JSON Schema of a value [`RawCell::value`] can accept for some column type.
impl JsonSchema for RawCell {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Cell".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A value of the column's type: a number (INT, BIGINT), a string (STRING), \
                            true or false (BOOLEAN), or null.",
            "type": ["integer", "string", "boolean", "null"]
        })
    }
}
