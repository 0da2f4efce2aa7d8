//! The scenario format (JSON): the Flink version, the retention settings, the source, the
//! pipeline of operators and the steps. Documented with examples in `docs/scenario-format.md`.
//!
//! [`Scenario::from_json`] parses and validates in one go; every error names the field
//! (`steps[3].at`) and the rule, in Flink's words where Flink has them.

pub(crate) mod raw;
mod retention_conversion;
pub mod schema;
pub mod source_changelog;
pub mod sql;
mod topology;
mod validate;
mod watermark;
pub mod what_if;

use super::error::{serde_error_path, serde_message, ScenarioError};
use super::operators::OperatorSpec;
use super::row::{Column, Row, RowKind};
use super::time::{format_duration, Millis, TimeFormat};
use super::workload::Workload;
use serde::Deserialize;
use std::rc::Rc;

pub use crate::engine::format::parse_part;
pub use crate::engine::options::{AggPhaseStrategy, FlinkMode, MiniBatch, Retention, StateBackend};
pub use retention_conversion::{idle_state_retention_as_state_ttl, RetentionConversion};

/// Whether the source emits only inserts, a full changelog, or upserts by its primary key
/// ([`source_changelog`] has the rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub enum SourceChangelog {
    #[default]
    InsertOnly,
    /// `+I`, `-U`, `+U` and `-D` rows (a Debezium-style changelog, `ChangelogMode.all()`).
    All,
    /// `+I` and `+U` rows that replace the key's row, `-D` rows that delete it, no `-U`
    /// (`ChangelogMode.upsert()`, an `upsert-kafka` table with `PRIMARY KEY (…) NOT ENFORCED`).
    Upsert,
}

crate::string_enum!(
    SourceChangelog,
    [("insert-only", SourceChangelog::InsertOnly), ("all", SourceChangelog::All), ("upsert", SourceChangelog::Upsert)]
);

/// What the planner may push into a source's scan (`SupportsProjectionPushDown`,
/// `SupportsFilterPushDown`): it changes the scan's plan text, not the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceConnector {
    /// `from_elements` / `VALUES`: no push-down, every field scanned.
    #[default]
    Values,
    /// The `filesystem` connector: projection and filter push-down
    /// (`PushProjectIntoTableSourceScanRule`, `PushFilterIntoTableSourceScanRule`).
    Filesystem,
}

/// The source table.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Its connector (push-down in the plan).
    pub connector: SourceConnector,
    pub name: String,
    /// The columns its rows carry (the schema).
    pub columns: Vec<Column>,
    pub changelog: SourceChangelog,
    /// `PRIMARY KEY (…) NOT ENFORCED`: the indexes of its columns in [`Source::columns`] (empty:
    /// none). An upsert source has one; an `all` source may.
    pub primary_key: Vec<usize>,
    /// A processing-time attribute `pt AS PROCTIME()`: a column after the schema's whose value
    /// is the processing time the row is processed at (Flink evaluates `PROCTIME()` in a `Calc`
    /// before the first exchange; it is materialized where an operator reads it).
    pub proctime: Option<Column>,
    /// An event-time attribute and its watermark (`WATERMARK FOR ts AS ts - INTERVAL …`).
    pub watermark: Option<SourceWatermark>,
}

/// A source's `WATERMARK FOR column AS column - delay`, run by a `WatermarkAssignerOperator` after
/// its scan ([`crate::engine::operators::WatermarkAssigner`]).
///
/// Flink wants the row-time column a `TIMESTAMP(3)` or `TIMESTAMP_LTZ(3)`; the simulator has no
/// timestamp type, so the column is a `BIGINT` of epoch milliseconds (what `TO_TIMESTAMP_LTZ(ts,
/// 3)` would read) and the watermark a number of milliseconds on the same clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceWatermark {
    /// The row-time column: its index in [`Source::columns`].
    pub column: usize,
    /// The interval subtracted from the row time.
    pub delay_ms: Millis,
    /// `pipeline.auto-watermark-interval` (the scenario's; default 200 ms).
    pub interval_ms: Millis,
}

impl Source {
    /// The columns the first operator sees: the schema, then the processing-time attribute.
    pub fn output_columns(&self) -> Vec<Column> {
        self.columns.iter().chain(&self.proctime).cloned().collect()
    }
}

/// Where an operator's input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeInput {
    /// The scenario's source `i` (a scan of it: several operators may read one source).
    Source(usize),
    /// The output of operator `i`, which feeds no other operator.
    Operator(usize),
}

/// One operator of the pipeline: its id, its validated spec and its inputs (one, or a join's
/// left and right). Operators are in topological order: inputs come first, the last operator
/// feeds the result.
#[derive(Debug, Clone)]
pub struct OperatorNode {
    pub id: String,
    pub spec: Rc<dyn OperatorSpec>,
    pub inputs: Vec<NodeInput>,
}

/// One driving step of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A row of source `source` (its index in [`Scenario::sources`]) arriving at processing
    /// time `at` (ms), or at the current time when `None`.
    Input { at: Option<Millis>, kind: RowKind, row: Row, source: usize },
    /// Advance processing time to this time (ms), firing due timers.
    AdvanceTo(Millis),
    /// Advance processing time by this duration (ms).
    AdvanceBy(Millis),
}

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub title: String,
    pub description: String,
    /// What to watch while stepping (empty when the scenario says nothing).
    pub watch: String,
    pub flink: FlinkMode,
    pub time_format: TimeFormat,
    /// Processing time (ms) before the first step.
    pub start_ms: Millis,
    pub retention: Retention,
    /// `state.backend.type`.
    pub state_backend: StateBackend,
    /// The Flink SQL the pipeline was planned from (a scenario with `"sql"`).
    pub sql: Option<String>,
    /// The query's output columns as the SQL names them (what a sink receives), when planned
    /// from SQL: the last operator's may differ (Flink drops a projection that only renames).
    pub output_names: Option<Vec<String>>,
    /// The pipeline the SQL was planned into, as the scenario format's JSON operators.
    pub planned_pipeline: Option<Vec<serde_json::Value>>,
    /// The table the SQL's `INSERT INTO` writes, and its columns.
    pub sink_table: Option<(String, Vec<String>)>,
    /// The `ON CONFLICT DO …` clause of the SQL's `INSERT INTO`, if any (the `Sink` node prints it).
    pub sink_conflict: Option<crate::engine::operators::ConflictBehavior>,
    /// `table.exec.mini-batch.*`, when mini-batch is enabled.
    pub mini_batch: Option<MiniBatch>,
    /// `table.optimizer.agg-phase-strategy`.
    pub agg_phase_strategy: AggPhaseStrategy,
    /// The source tables: one, or several (a join's inputs).
    pub sources: Vec<Source>,
    pub operators: Vec<OperatorNode>,
    /// The explicit steps, run first.
    pub steps: Vec<Step>,
    /// Generated input events, after the steps.
    pub workload: Option<Workload>,
    /// What a run must produce (`flink-state-sim check`).
    pub expect: super::expect::Expect,
}

impl Scenario {
    /// Parses and validates a scenario written as JSON.
    ///
    /// # Errors
    /// A [`ScenarioError`] naming the field and the rule: JSON syntax (with line and column),
    /// duplicate or unknown fields, bad times or durations, retention settings Flink rejects (with
    /// Flink's message), unknown columns, aggregates that cannot retract a retracting input, rows
    /// that do not match the schema, processing time going backwards.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        validate::compile(parse_raw(text)?)
    }

    /// The first source: the only one of a scenario of one source, the one a workload feeds.
    pub fn source(&self) -> &Source {
        &self.sources[0]
    }

    /// How many steps the scenario drives: the explicit ones, then the workload's events.
    pub fn step_count(&self) -> u64 {
        self.steps.len() as u64 + self.workload.as_ref().map_or(0, |w| w.events)
    }

    /// The retention operator `i` runs with: its own state TTL when it has one (a `STATE_TTL`
    /// hint or a compiled plan's), else the scenario's
    /// ([`effective_retention`](crate::engine::operators::state_ttl::effective_retention)).
    pub fn operator_retention(&self, i: usize) -> Retention {
        let own = self.operators.get(i).and_then(|n| n.spec.state_ttl());
        crate::engine::operators::state_ttl::effective_retention(self.retention, own)
    }

    /// Whether any operator's state expires by state TTL (the scenario's or its own).
    pub fn has_state_ttl(&self) -> bool {
        (0..self.operators.len()).any(|i| matches!(self.operator_retention(i), Retention::StateTtl(t) if t > 0))
    }

    /// The processing time the scenario's input reaches (its last step or workload event).
    pub fn end_ms(&self) -> Millis {
        match &self.workload {
            Some(w) => w.end_ms(),
            None => {
                let mut t = self.start_ms;
                for step in &self.steps {
                    t = match step {
                        Step::Input { at, .. } => at.unwrap_or(t),
                        Step::AdvanceTo(to) => *to,
                        Step::AdvanceBy(by) => t.saturating_add(*by),
                    };
                }
                t
            }
        }
    }
}

/// The same scenario text with its `flink` field set to `mode` (pretty-printed, field order
/// kept): how the page's Flink chooser and the CLI's `--flink` run a scenario on another version.
/// The text is checked for JSON syntax, duplicate and unknown fields first; whether the scenario
/// is valid on `mode` is for [`Scenario::from_json`] on the result to say.
///
/// # Errors
/// As [`Scenario::from_json`], for the checks made here.
pub fn with_flink(text: &str, mode: FlinkMode) -> Result<String, ScenarioError> {
    parse_raw(text)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError::new("scenario", format!("invalid JSON: {e}")))?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("flink".into(), serde_json::Value::String(mode.id().into()));
    }
    serde_json::to_string_pretty(&value).map_err(|e| ScenarioError::new("scenario", e.to_string()))
}

/// An edited copy of a preset, renamed so it is not taken for the preset: `name` gets `-edited`
/// and `title` ` (edited)` (pretty-printed, field order kept). The page's Export writes this for
/// a scenario edited from a preset and says so.
///
/// # Errors
/// As [`with_flink`].
pub fn as_edited_copy(text: &str) -> Result<String, ScenarioError> {
    parse_raw(text)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError::new("scenario", format!("invalid JSON: {e}")))?;
    if let Some(obj) = value.as_object_mut() {
        for (field, suffix) in [("name", "-edited"), ("title", " (edited)")] {
            if let Some(serde_json::Value::String(v)) = obj.get_mut(field) {
                v.push_str(suffix);
            }
        }
    }
    serde_json::to_string_pretty(&value).map_err(|e| ScenarioError::new("scenario", e.to_string()))
}

/// The written form of a scenario, straight from the text (not through `serde_json::Value`, so a
/// duplicate key is an error).
/// The longest scenario text read, in bytes: 4 MiB. The presets are under 6 KB; a scenario with
/// 50 000 explicit steps is about 2.5 MB (a workload generates millions of events from a few
/// lines). The page's editor, its file import ([`crate::link::MAX_IMPORT_BYTES`]) and the CLI
/// refuse a longer text before reading it.
pub const MAX_SCENARIO_BYTES: usize = 4 << 20;

fn parse_raw(text: &str) -> Result<raw::RawScenario, ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::new(
            "scenario",
            format!(
                "the text is {} bytes, more than the {} (4 MiB) a scenario may be; \
                 for many events, write a workload (`workload`) instead of explicit steps",
                crate::engine::digits::grouped(text.len()),
                crate::engine::digits::grouped(MAX_SCENARIO_BYTES)
            ),
        ));
    }
    // A UTF-8 byte-order mark (editors on Windows write one) is not part of the JSON text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !text.trim_start().starts_with('{') {
        return Err(ScenarioError::new("scenario", "expected a JSON object: { \"name\": ..., \"flink\": ..., ... }"));
    }
    // Fast path: no path tracking. Only a rejected text is read again, with the path of the
    // field at fault tracked for the message.
    if let Ok(raw) = serde_json::from_str::<raw::RawScenario>(text) {
        return Ok(raw);
    }
    // A text that is not whole JSON says so first: read as a scenario, `{"a":[` is refused for
    // its unknown field `a` before its end is reached (trial 24).
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        if e.is_eof() {
            return Err(ScenarioError::new("scenario", cut_short(&e)));
        }
        if e.is_syntax() {
            return Err(ScenarioError::new("scenario", format!("invalid JSON: {e}")));
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let raw: raw::RawScenario = serde_path_to_error::deserialize(&mut de).map_err(path_error)?;
    de.end().map_err(|e| ScenarioError::new("scenario", format!("invalid JSON: {e}")))?;
    Ok(raw)
}

/// A JSON text that ends too soon, said so (trial 26: serde's "EOF while parsing a list").
fn cut_short(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let inside = text.strip_prefix("EOF while parsing ").and_then(|t| t.split(" at line ").next()).unwrap_or("a value");
    format!(
        "invalid JSON: the text ends inside {inside}, at line {} column {} — is it cut short?",
        e.line(),
        e.column()
    )
}

/// A serde error with the path of the field it happened in; JSON syntax errors say so.
fn path_error(e: serde_path_to_error::Error<serde_json::Error>) -> ScenarioError {
    let path = serde_error_path(e.path(), e.inner()).unwrap_or_else(|| "scenario".to_string());
    let inner = e.into_inner();
    if inner.is_syntax() || inner.is_eof() {
        ScenarioError::new("scenario", format!("invalid JSON: {inner}"))
    } else {
        ScenarioError::new(path, serde_message(&inner))
    }
}

/// [`describe_retention`], then each operator with a TTL of its own:
/// `table.exec.state.ttl = 0 ms: state never expires; 'dau': STATE_TTL hint 2 d`.
pub fn describe_retentions(scenario: &Scenario) -> String {
    let mut text = describe_retention(&scenario.retention);
    for n in &scenario.operators {
        if let Some(own) = n.spec.describe_own_ttl() {
            text.push_str(&format!("; {}: {own}", super::error::quote(&n.id)));
        }
    }
    text
}

/// Describes the retention for people: `idle state retention min 1 d, max 2 d` or `table.exec.state.ttl = 1 h`.
pub fn describe_retention(r: &Retention) -> String {
    match r {
        Retention::IdleState(i) if i.min_ms == 0 && i.max_ms == 0 => "idle state retention 0/0: never cleaned".into(),
        Retention::IdleState(i) => format!(
            "idle state retention min {}, max {}{}{}",
            format_duration(i.min_ms),
            format_duration(i.max_ms),
            if i.test_harness { " (test harness: 5-minute gap rule skipped)" } else { "" },
            if i.state_cleaning_enabled() { "" } else { " — cleaning disabled (min is not > 1 ms)" }
        ),
        Retention::StateTtl(0) => "table.exec.state.ttl = 0 ms: state never expires".into(),
        Retention::StateTtl(ms) => format!("table.exec.state.ttl = {}", format_duration(*ms)),
    }
}
