//! `"operator": "SinkUpsertMaterializer"`: the sink of a table with a `PRIMARY KEY`, materializing
//! the query's changelog per primary key before writing it (Flink 2.3.0's `StreamExecSink` with
//! `upsertMaterialize = true`, read from the 2.3.0 planner bytecode):
//!
//! - the state is keyed by the sink's primary key (`KeySelectorUtil.getRowDataSelector(pk)`),
//!   named `sinkMaterializeState` in the compiled plan's state metadata; its TTL is
//!   `StateMetadata.getStateTtlForOneInputOperator` (the compiled plan's `ttl`, else
//!   `table.exec.state.ttl`), turned into `StateConfigUtil.createTtlConfig(ttl)`;
//! - `inputUpsertKey` is the smallest upsert key of the input (`UpsertKeyUtil.getSmallestKey`):
//!   here the input's unique key (its leading [`OperatorSpec::unique_key_len`] columns), none for
//!   an input without one (then rows are matched on all their fields);
//! - the plan prints the `Sink` node: `Sink(table=[…], fields=[…], upsertMaterialize=[true],
//!   conflictStrategy=[DEDUPLICATE])` (`StreamPhysicalSink.explainTerms`: `upsertMaterialize` only
//!   when true, `conflictStrategy` only when an `ON CONFLICT` clause was given, as
//!   `InsertConflictStrategy.toString`, the behaviour's name). Its changelog mode in the physical
//!   plan is `NONE`: it is the sink.
//!
//! The SQL planner adds it where Flink's `analyzeUpsertMaterializeStrategy` decides to
//! ([`crate::engine::planner::sink`]); written by hand it must be the pipeline's last operator.

use super::SinkUpsertMaterializer;
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::operators::aggregate::group_aggregate::column_index;
use crate::engine::operators::state_ttl::{OperatorStateTtl, RawOperatorTtl};
use crate::engine::operators::{CompileInput, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, Row};
use schemars::JsonSchema;
use serde::Deserialize;
use std::rc::Rc;

/// The registration of `SinkUpsertMaterializer` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawSinkUpsertMaterializer>("SinkUpsertMaterializer", compile);

/// The sink of a table with a primary key that differs from the query's upsert key: every row
/// of each primary key is kept, the latest one is what the sink holds (Flink 2.3's
/// `SinkUpsertMaterializer`). The output columns are the input's, under the sink's names.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "SinkUpsertMaterializer")]
#[serde(
    deny_unknown_fields,
    expecting = "a SinkUpsertMaterializer object {\"operator\", \"id\", \"table\", \"fields\", \"primary_key\", \"conflict_strategy\", \"state_ttl\"}"
)]
struct RawSinkUpsertMaterializer {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    id: String,
    /// The sink table's name, as the plan prints it (`Sink(table=[default_catalog.default_database.<table>])`).
    /// Default: the operator's id.
    #[serde(default)]
    table: Option<String>,
    /// The sink table's columns, naming the input's columns in order. Default: the input's names.
    #[serde(default)]
    fields: Option<Vec<String>>,
    /// `PRIMARY KEY (…) NOT ENFORCED` of the sink table: the columns the state is keyed by.
    primary_key: Vec<String>,
    /// The `ON CONFLICT DO …` clause: `DEDUPLICATE` (what the materializer does anyway; the plan
    /// then prints it), or none. `NOTHING` and `ERROR` run `WatermarkCompactingSinkMaterializer`,
    /// which needs watermarks and is not modelled.
    #[serde(default)]
    conflict_strategy: Option<ConflictBehavior>,
    /// The compiled plan's `sinkMaterializeState` TTL (FLIP-292), replacing `table.exec.state.ttl`.
    #[serde(default)]
    state_ttl: Option<RawOperatorTtl>,
}

/// `ON CONFLICT DO DEDUPLICATE | NOTHING | ERROR` (Flink 2.3, `SqlInsertConflictBehavior` /
/// `InsertConflictStrategy.ConflictBehavior`), named as Flink prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum ConflictBehavior {
    /// Update to the latest record (keeps the entire history per key).
    Deduplicate,
    /// Keep the first record.
    Nothing,
    /// Fail on conflict.
    Error,
}

crate::string_enum!(
    ConflictBehavior,
    [
        ("DEDUPLICATE", ConflictBehavior::Deduplicate),
        ("NOTHING", ConflictBehavior::Nothing),
        ("ERROR", ConflictBehavior::Error)
    ]
);

impl ConflictBehavior {
    /// The name Flink prints (`ConflictBehavior.name()`).
    pub fn name(self) -> &'static str {
        match self {
            ConflictBehavior::Deduplicate => "DEDUPLICATE",
            ConflictBehavior::Nothing => "NOTHING",
            ConflictBehavior::Error => "ERROR",
        }
    }

    /// The behaviour written after `ON CONFLICT DO`, in any case.
    pub fn parse(word: &str) -> Option<ConflictBehavior> {
        [ConflictBehavior::Deduplicate, ConflictBehavior::Nothing, ConflictBehavior::Error]
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(word))
    }
}

/// A validated sink materializer.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkUpsertMaterializerSpec {
    /// The sink table (the plan's `table=[…]`).
    pub table: String,
    /// The input's columns under the sink's names.
    pub columns: Vec<Column>,
    /// The primary key's columns (the state's key).
    pub primary_key: Vec<usize>,
    /// `inputUpsertKey`: the input's unique key, empty when it has none.
    pub upsert_key: Vec<usize>,
    pub conflict_strategy: Option<ConflictBehavior>,
    /// Its own TTL from a compiled plan's state metadata (`sinkMaterializeState`).
    pub state_ttl: Option<OperatorStateTtl>,
}

impl SinkUpsertMaterializerSpec {
    /// `equalsIgnoreRowKind(a, b)`: with an upsert key, equal on it
    /// (`SinkMaterializeUpsertKeyEqualiser` over the projected key); else equal on every field
    /// (`SinkMaterializeEqualiser`).
    pub fn same_record(&self, a: &Row, b: &Row) -> bool {
        if self.upsert_key.is_empty() {
            a == b
        } else {
            self.upsert_key.iter().all(|&i| a.0.get(i) == b.0.get(i))
        }
    }
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawSinkUpsertMaterializer = parse_part(raw, input.path)?;
    let path = input.path;
    if !input.flink.has_2_3_operators() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "SinkUpsertMaterializer is modelled with Flink 2.3 (StreamExecSink.applyUpsertMaterialize); the {} \
                 does not run it here (use \"flink\": \"2.3\")",
                input.flink.label()
            ),
        ));
    }
    let names: Vec<String> = match op.fields {
        None => input.columns.iter().map(|c| c.name.clone()).collect(),
        Some(fields) if fields.len() == input.columns.len() => fields,
        Some(fields) => {
            return Err(ScenarioError::new(
                format!("{path}.fields"),
                format!(
                    "{} names, but {} has {} columns: the sink's fields name the input's columns in order",
                    fields.len(),
                    input.input_name,
                    input.columns.len()
                ),
            ))
        }
    };
    let columns: Vec<Column> =
        input.columns.iter().zip(names).map(|(c, name)| Column { name, data_type: c.data_type }).collect();
    let table = op.table.unwrap_or_else(|| op.id.clone());
    if op.primary_key.is_empty() {
        return Err(ScenarioError::new(
            format!("{path}.primary_key"),
            "is empty: a sink materializes per primary key (Flink adds no materializer to a sink without one)",
        ));
    }
    let sink_name = format!("sink {}", quote(&table));
    let primary_key = op
        .primary_key
        .iter()
        .enumerate()
        .map(|(j, n)| column_index(&columns, n, &format!("{path}.primary_key[{j}]"), &sink_name))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(strategy @ (ConflictBehavior::Nothing | ConflictBehavior::Error)) = op.conflict_strategy {
        return Err(ScenarioError::new(
            format!("{path}.conflict_strategy"),
            format!(
                "{}: ON CONFLICT DO {} runs WatermarkCompactingSinkMaterializer (Flink 2.3), which compacts on \
                 watermarks and is not modelled (the simulator's sources have no watermarks)",
                strategy.name(),
                strategy.name()
            ),
        ));
    }
    Ok(Rc::new(SinkUpsertMaterializerSpec {
        table,
        columns,
        primary_key,
        upsert_key: (0..input.unique_key_len).collect(),
        conflict_strategy: op.conflict_strategy,
        state_ttl: OperatorStateTtl::compiled_plan(op.state_ttl, &input, "SinkUpsertMaterializer")?,
    }))
}

impl OperatorSpec for SinkUpsertMaterializerSpec {
    fn output_columns(&self) -> &[Column] {
        &self.columns
    }
    /// Nothing reads its output but the sink: no unique key is passed on.
    fn unique_key_len(&self) -> usize {
        0
    }
    /// The primary key: the result table is an upsert table on it.
    fn state_key_columns(&self) -> Vec<usize> {
        self.primary_key.clone()
    }
    /// `+I`, `+U` and `-D` (`RowKind.INSERT`, `UPDATE_AFTER`, `DELETE`).
    fn output_retracts(&self) -> bool {
        true
    }
    fn generates_update_before(&self) -> bool {
        false
    }
    /// It retracts a stored row on `-U` / `-D` (`retractRow`), so the planner keeps
    /// `UPDATE_BEFORE` upstream (the fixtures' `GroupAggregate` emits `[I,UB,UA]`).
    fn needs_update_before(&self) -> bool {
        true
    }
    fn output_deletes(&self) -> bool {
        true
    }
    fn is_sink(&self) -> bool {
        true
    }
    fn plan(&self) -> String {
        let fields: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        let conflict = self.conflict_strategy.map(|c| format!(", conflictStrategy=[{}]", c.name())).unwrap_or_default();
        format!(
            "Sink(table=[default_catalog.default_database.{}], fields=[{}], upsertMaterialize=[true]{conflict})",
            self.table,
            fields.join(", ")
        )
    }
    fn state_ttl(&self) -> Option<&OperatorStateTtl> {
        self.state_ttl.as_ref()
    }
    /// `SinkUpsertMaterializer.create(StateConfigUtil.createTtlConfig(ttl), …)`: state TTL only
    /// (compile() refuses the versions with idle state retention).
    fn build(&self, _flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let ttl = match retention {
            Retention::StateTtl(ms) => ms,
            Retention::IdleState(_) => 0,
        };
        Box::new(SinkUpsertMaterializer::new(self.clone(), ttl))
    }
}
