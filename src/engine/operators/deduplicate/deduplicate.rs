//! `Deduplicate` on processing time: `ROW_NUMBER() OVER (PARTITION BY key ORDER BY proctime
//! ASC|DESC) = 1` without the rank column, and the Flink class that runs it (Flink 2.3.0, read
//! from the source):
//!
//! - the planner: `StreamPhysicalRank.translateToExecNode` turns a Rank into a
//!   `StreamExecDeduplicate` when `RankUtil.canConvertToDeduplicate(rank)`: `isDeduplication`
//!   (`ROW_NUMBER`, rank range 1..1, no rank column), `ChangelogPlanUtils.inputInsertOnly(rank)`
//!   and `sortOnTimeAttributeOnly` (one sort field, a time attribute). Ordered `ASC` it keeps the
//!   first row, `DESC` the last (`RankUtil.keepLastRow`). The plan then prints
//!   `Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME], outputInsertOnly=[true])`; keep-first
//!   is insert-only (`RankUtil.outputInsertOnlyInDeduplicate`: keep-first without mini-batch).
//!   [`rank`](super::super::rank::rank) calls [`from_rank`]; people who write the plan use `"operator": "Deduplicate"`.
//! - the runtime: `StreamExecDeduplicate.ProcTimeDeduplicateOperatorTranslator` builds
//!   [`ProcTimeDeduplicateKeepFirstRowFunction`] or [`ProcTimeDeduplicateKeepLastRowFunction`]
//!   (`inputInsertOnly = true`) with `stateRetentionTime` = `table.exec.state.ttl`,
//!   `generateInsert` = `table.exec.deduplicate.insert-update-after-sensitive-enabled` (default
//!   true) and the record equaliser `DeduplicateRowEqualiser` over the whole input row.
//!
//! - with `table.exec.mini-batch.enabled`, keep-first runs as
//!   [`MiniBatchDeduplicateKeepFirstRowFunction`] (`ProcTimeMiniBatchDeduplicateKeepFirstRowFunction`)
//!   in a `KeyedMapBundleOperator`, and the output is no longer labelled insert-only.
//! - Flink 1.9.0 – 1.10.0 (`1.10-blink`, `StreamExecDeduplicate.translateToPlanInternal` of 1.10,
//!   read from the source): keep-first runs as [`DeduplicateKeepFirstRowFunction`] on cleanup
//!   timers from the idle state retention, or with mini-batch as `MiniBatchDeduplicateKeepFirstRowFunction`
//!   without any retention (before FLINK-16581). The plan prints
//!   `Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME])`.
//!
//! Not modelled: keep-last with mini-batch (`ProcTimeMiniBatchDeduplicateKeepLastRowFunction`),
//! keep-last of 1.10 and the deduplication of 1.12 – 1.18, deduplication on event time
//! (`RowTimeDeduplicateFunction`) and the async-state variants: each refused with its reason.

use super::{
    DeduplicateKeepFirstRowFunction, MiniBatchDeduplicateKeepFirstRowFunction, ProcTimeDeduplicateKeepFirstRowFunction,
    ProcTimeDeduplicateKeepLastRowFunction,
};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::operators::aggregate::group_aggregate::column_index;
use crate::engine::operators::state_ttl::{OperatorStateTtl, RawOperatorTtl};
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention, StateBackend};
use crate::engine::row::{Column, DataType, Row};
use schemars::JsonSchema;
use serde::Deserialize;
use std::rc::Rc;

/// The registration of `Deduplicate` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawDeduplicate>("Deduplicate", compile);

/// Deduplication on processing time, `ROW_NUMBER() OVER (PARTITION BY <key> ORDER BY <proctime>
/// ASC|DESC) = 1` (Flink 2.3). The output columns are the input's.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "Deduplicate")]
#[serde(
    deny_unknown_fields,
    expecting = "a Deduplicate object {\"operator\", \"id\", \"key\", \"keep\", \"generate_update_before\", \"generate_insert\", \"state_ttl\"}"
)]
struct RawDeduplicate {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The `PARTITION BY` columns (empty: one key for all rows).
    key: Vec<String>,
    /// `FirstRow` (`ORDER BY proctime ASC`): the key's first row, later rows dropped. `LastRow`
    /// (`DESC`): each later row replaces the previous one (`-U` previous, `+U` new).
    keep: Keep,
    /// Keep-last only: emit `-U` before `+U`. Default `true`; `false` only on the last operator.
    #[serde(default = "yes")]
    generate_update_before: bool,
    /// Keep-last only: `table.exec.deduplicate.insert-update-after-sensitive-enabled` (default
    /// `true`). With it and `generate_update_before` both `false`, every row is emitted as `+U`.
    #[serde(default = "yes")]
    generate_insert: bool,
    /// The compiled plan's `deduplicateState` TTL (FLIP-292).
    #[serde(default)]
    state_ttl: Option<RawOperatorTtl>,
}

fn yes() -> bool {
    true
}

/// Which row of a key a Deduplicate keeps, as the plan prints it (`keep=[FirstRow]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum Keep {
    /// `ORDER BY proctime ASC`: the first row, then nothing.
    FirstRow,
    /// `ORDER BY proctime DESC`: every new row replaces the previous one.
    LastRow,
}

crate::string_enum!(Keep, [("FirstRow", Keep::FirstRow), ("LastRow", Keep::LastRow)]);

/// A validated processing-time Deduplicate.
#[derive(Debug, Clone, PartialEq)]
pub struct DeduplicateSpec {
    /// The key columns (`PARTITION BY`).
    pub key: Vec<usize>,
    pub keep: Keep,
    pub generate_update_before: bool,
    /// `generateInsert`: the first row of a key is `+I` (else every row is `+U`).
    pub generate_insert: bool,
    /// `state.backend.type`: the keep-last function's "identical row" check depends on it.
    pub state_backend: StateBackend,
    /// The input's (and output's) columns.
    pub columns: Vec<Column>,
    /// Its own TTL from a compiled plan's state metadata (`deduplicateState`).
    pub state_ttl: Option<OperatorStateTtl>,
    /// `table.exec.mini-batch.size` when mini-batch is on (a `KeyedMapBundleOperator`).
    pub mini_batch: Option<u64>,
    /// The Flink version whose classes and plan it follows.
    pub flink: FlinkMode,
    /// The physical plan's `Rank` node when it was planned from a `ROW_NUMBER()` top-1.
    pub rank_plan: Option<String>,
}

impl DeduplicateSpec {
    /// `DeduplicateRowEqualiser.equals(left, right)` on the values (the caller compares the
    /// `RowKind`s, which the generated equaliser compares too). A processing-time attribute is
    /// left out: Flink does not materialize it, every row carries NULL there (`ExprCodeGenerator`:
    /// "we use a null literal and generate a timestamp when we need it"), so it never tells two
    /// rows apart; the simulator's rows carry the processing time instead.
    pub fn equal_values(&self, a: &Row, b: &Row) -> bool {
        a.0.len() == b.0.len()
            && self
                .columns
                .iter()
                .zip(a.0.iter().zip(&b.0))
                .all(|(c, (x, y))| c.data_type == DataType::ProcTime || x == y)
    }
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawDeduplicate = parse_part(raw, input.path)?;
    let path = input.path;
    refuse_unmodelled(input, op.keep, &format!("{path}.operator"))?;
    let key = op
        .key
        .iter()
        .enumerate()
        .map(|(j, n)| column_index(input.columns, n, &format!("{path}.key[{j}]"), input.input_name))
        .collect::<Result<Vec<_>, _>>()?;
    if input.retracts && input.flink == FlinkMode::Blink1_10 {
        // 1.10's `StreamExecDeduplicate.translateToPlanInternal`.
        return Err(ScenarioError::new(
            path,
            format!(
                "{} carries retractions: TableException: Deduplicate doesn't support retraction input stream \
                 currently.",
                input.input_name
            ),
        ));
    }
    if input.retracts {
        return Err(ScenarioError::new(
            path,
            format!(
                "{} carries retractions: Flink plans a Deduplicate only over an insert-only input \
                 (RankUtil.canConvertToDeduplicate requires ChangelogPlanUtils.inputInsertOnly); over this \
                 input ROW_NUMBER() stays a Rank with RetractStrategy (RetractableTopNFunction): write it as a Rank",
                input.input_name
            ),
        ));
    }
    Ok(Rc::new(DeduplicateSpec {
        rank_plan: None,
        key,
        keep: op.keep,
        generate_update_before: op.generate_update_before,
        generate_insert: op.generate_insert,
        state_backend: input.state_backend,
        columns: input.columns.to_vec(),
        state_ttl: OperatorStateTtl::compiled_plan(op.state_ttl, &input, "Deduplicate")?,
        mini_batch: mini_batch_size(input)?,
        flink: input.flink,
    }))
}

/// `AggregateUtil.createMiniBatchTrigger`'s size when mini-batch is on.
fn mini_batch_size(input: CompileInput) -> Result<Option<u64>, ScenarioError> {
    input.mini_batch.map(|m| m.trigger_size()).transpose()
}

/// The legacy planner has no deduplication; of the Blink planner's before 2.3, keep-first of
/// 1.9 – 1.10 is modelled; keep-last with mini-batch is not.
fn refuse_unmodelled(input: CompileInput, keep: Keep, path: &str) -> Result<(), ScenarioError> {
    if input.flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            path,
            format!(
                "deduplication (ROW_NUMBER() OVER (... ORDER BY proctime) = 1) is supported by the Blink planner only: \
                 the {} cannot run a Deduplicate (use \"flink\": \"1.10-blink\" or \"2.3\")",
                input.flink.label()
            ),
        ));
    }
    let modelled = match input.flink {
        FlinkMode::Flink2_3 | FlinkMode::Main => true,
        FlinkMode::Blink1_10 => keep == Keep::FirstRow,
        _ => false,
    };
    if !modelled {
        return Err(ScenarioError::new(
            path,
            format!(
                "the keep-{} deduplication of the {} is not modelled yet; the simulator models Flink 2.3's and \
                 the keep-first of Flink 1.9 – 1.10 (\"1.10-blink\")",
                if keep == Keep::FirstRow { "first" } else { "last" },
                input.flink.label()
            ),
        ));
    }
    if keep == Keep::LastRow && input.mini_batch.is_some() {
        return Err(ScenarioError::new(
            path,
            "with mini-batch on, Flink runs a keep-last Deduplicate as ProcTimeMiniBatchDeduplicateKeepLastRowFunction, \
             which is not modelled yet: turn mini_batch off or keep FirstRow",
        ));
    }
    Ok(())
}

/// The Deduplicate Flink runs for a Rank that `RankUtil.canConvertToDeduplicate` accepts: the
/// caller ([`rank`](super::super::rank::rank)) has checked the rank range, the rank column, the sort field and that
/// the input is insert-only. `state_ttl` is the Rank's compiled-plan TTL, which the
/// `StreamExecDeduplicate` node carries.
pub fn from_rank(
    input: CompileInput,
    key: Vec<usize>,
    order: usize,
    keep: Keep,
    generate_update_before: bool,
    state_ttl: Option<OperatorStateTtl>,
) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    refuse_unmodelled(input, keep, &format!("{}.operator", input.path))?;
    let names: Vec<&str> = input.columns.iter().map(|c| c.name.as_str()).collect();
    // The physical plan still shows the `StreamPhysicalRank` that `StreamExecDeduplicate` is
    // translated from (`StreamPhysicalRank.translateToExecNode`, Flink 2.3).
    let rank_plan = format!(
        "Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=1], \
         partitionBy=[{}], orderBy=[{} {}], select=[{}])",
        key.iter().map(|&i| names[i]).collect::<Vec<_>>().join(", "),
        names[order],
        if keep == Keep::LastRow { "DESC" } else { "ASC" },
        names.join(", ")
    );
    Ok(Rc::new(DeduplicateSpec {
        rank_plan: Some(rank_plan),
        key,
        keep,
        generate_update_before,
        generate_insert: true,
        state_backend: input.state_backend,
        columns: input.columns.to_vec(),
        state_ttl,
        mini_batch: mini_batch_size(input)?,
        flink: input.flink,
    }))
}

impl OperatorSpec for DeduplicateSpec {
    fn key_types(&self) -> Vec<DataType> {
        self.key.iter().filter_map(|&i| self.columns.get(i)).map(|c| c.data_type).collect()
    }
    fn output_columns(&self) -> &[Column] {
        &self.columns
    }
    /// The key when it leads the row.
    fn unique_key_len(&self) -> usize {
        if self.key.iter().enumerate().all(|(j, &i)| j == i) {
            self.key.len()
        } else {
            0
        }
    }
    /// Keep-first is insert-only (`outputInsertOnly=[true]`); keep-last updates. In 2.3 with
    /// mini-batch on, keep-first is labelled updating too (`RankUtil.outputInsertOnlyInDeduplicate`
    /// = keep-first and mini-batch off) though it only emits `+I`; 1.10 labels it by
    /// `producesUpdates = keepLastRow`.
    fn output_retracts(&self) -> bool {
        self.keep == Keep::LastRow || (self.flink.has_2_3_operators() && self.mini_batch.is_some())
    }
    /// Keep-first never updates a row, so nothing downstream waits for an UPDATE_BEFORE from it
    /// (and its result is an append table, where a key re-emitted after its state expired shows
    /// twice).
    fn generates_update_before(&self) -> bool {
        match self.keep {
            Keep::FirstRow => true,
            Keep::LastRow => self.generate_update_before,
        }
    }
    /// `hash[key]`.
    fn distribution(&self) -> Option<Distribution> {
        Some(Distribution::by(self.key.iter().map(|&i| self.columns[i].name.clone()).collect()))
    }
    fn physical_plan(&self) -> String {
        self.rank_plan.clone().unwrap_or_else(|| self.plan())
    }
    fn plan(&self) -> String {
        let keep = match self.keep {
            Keep::FirstRow => "FirstRow",
            Keep::LastRow => "LastRow",
        };
        let key: Vec<&str> = self.key.iter().map(|&i| self.columns[i].name.as_str()).collect();
        if self.flink == FlinkMode::Blink1_10 {
            // 1.10's `StreamExecDeduplicate.explainTerms`.
            return format!("Deduplicate(keep=[{keep}], key=[{}], order=[PROCTIME])", key.join(", "));
        }
        format!(
            "Deduplicate(keep=[{keep}], key=[{}], order=[PROCTIME], outputInsertOnly=[{}])",
            key.join(", "),
            !self.output_retracts()
        )
    }
    fn state_ttl(&self) -> Option<&OperatorStateTtl> {
        self.state_ttl.as_ref()
    }
    /// `StreamExecDeduplicate`'s choice of function. Only `1.10-blink` has idle state retention
    /// (compile() refuses keep-last there); its mini-batch function ignores the retention.
    fn build(&self, flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let spec = self.clone();
        match (retention, self.mini_batch, self.keep) {
            (Retention::IdleState(_), Some(size), _) => {
                Box::new(MiniBatchDeduplicateKeepFirstRowFunction::new(spec, 0, size, flink))
            }
            (Retention::IdleState(r), None, _) => Box::new(DeduplicateKeepFirstRowFunction::new(spec, r)),
            (Retention::StateTtl(ttl), Some(size), _) => {
                Box::new(MiniBatchDeduplicateKeepFirstRowFunction::new(spec, ttl, size, flink))
            }
            (Retention::StateTtl(ttl), None, Keep::FirstRow) => {
                Box::new(ProcTimeDeduplicateKeepFirstRowFunction::new(spec, ttl))
            }
            (Retention::StateTtl(ttl), None, Keep::LastRow) => {
                Box::new(ProcTimeDeduplicateKeepLastRowFunction::new(spec, ttl))
            }
        }
    }
}

/// Why a Rank ordered by a processing-time attribute that is not a Deduplicate is refused:
/// `flink_class` is what `StreamExecRank` would run for it (`AppendFastStrategy`).
pub fn top_n_on_proctime_refusal(name: &str, flink_class: &str) -> String {
    format!(
        "{} is a processing-time attribute: ordered by it alone, ROW_NUMBER() = 1 without a rank column is \
         modelled (Flink runs it as a Deduplicate); Flink runs this Rank with {flink_class}, not modelled yet \
         for a processing-time sort key",
        quote(name)
    )
}
