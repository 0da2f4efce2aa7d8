//! `Rank`: `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` filtered to `rn <= N`, with or without
//! the rank column, and the Flink class Flink 2.3's planner picks for it (`StreamExecRank.
//! translateToPlanInternal`, read from the source):
//!
//! - a top-1 without the rank column ordered by a processing-time attribute alone, over an
//!   insert-only input, becomes a `Deduplicate` (`StreamPhysicalRank.translateToExecNode` when
//!   `RankUtil.canConvertToDeduplicate`; see [`deduplicate`](super::super::deduplicate::deduplicate));
//! - an append-only input gets `AppendFastStrategy`: top-1 runs [`FastTop1Function`], top-N
//!   [`AppendOnlyTopNFunction`] (`ORDER BY` a processing-time attribute ascending alone runs
//!   `AppendOnlyFirstNFunction`; a top-1 without rank column ordered by it alone is a
//!   `Deduplicate`; other Ranks ordered by a processing-time attribute are refused as not
//!   modelled yet);
//! - an update stream gets `RetractStrategy`, [`RetractableTopNFunction`], unless the planner can
//!   take `UpdateFastStrategy(primaryKeys)` (see `rank_process_strategy`): top-1 runs
//!   [`FastTop1Function`] (its rule needs no change: a row only replaces the top row when its
//!   sort key is strictly better), top-N [`UpdatableTopNFunction`] keyed by the input's unique key.
//!   The strategy requires `ONLY_UPDATE_AFTER` of its input (`FlinkChangelogModeInferenceProgram.
//!   visitRankStrategies`), so the planner makes the upstream drop `UPDATE_BEFORE`: a scenario
//!   whose input still carries them is refused with that reason (set the upstream's
//!   `generate_update_before` to `false`, as Flink's planner does).
//!
//! FLINK-39966 (not fixed in 2.3.0): the planner labels a top-1 ordered by one column ascending as
//! insert-only, as it would a keep-first deduplication; so no `UPDATE_BEFORE` is generated, and
//! the operators downstream take the `+U` a smaller value causes for an insert. The simulator
//! reproduces it: such a Rank emits no `-U` and its output does not count as retracting
//! (`shared/oracle/rank_top1_ts_asc_*`).

use super::{
    AppendOnlyTopNFunction, BlinkAppendOnlyTopNFunction, FastTop1Function, RetractableTopNFunction,
    UpdatableTopNFunction,
};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::aggregate::group_aggregate::column_index;
use crate::engine::operators::deduplicate::deduplicate::{self, Keep};
use crate::engine::operators::state_ttl::{OperatorStateTtl, RawOperatorTtl};
use crate::engine::operators::{monotonicity, CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType, Row, Value};
use schemars::JsonSchema;
use serde::Deserialize;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::rc::Rc;

/// The registration of `Rank` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawRank>("Rank", compile);

/// `ROW_NUMBER() OVER (PARTITION BY <partition_by> ORDER BY <order_by>) <= <rank_end>` (Top-N);
/// planned as a `Deduplicate` when Flink's planner would.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "Rank")]
#[serde(
    deny_unknown_fields,
    expecting = "a Rank object {\"operator\", \"id\", \"partition_by\", \"order_by\", \"rank_end\", \"rank_column\", \"generate_update_before\", \"state_ttl\"}"
)]
struct RawRank {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The `PARTITION BY` columns (empty: one partition).
    #[serde(default)]
    partition_by: Vec<String>,
    /// The sort columns, each `"ts"`, `"ts ASC"` or `"ts DESC"`.
    order_by: Vec<String>,
    /// N of the Top-N: rows with `rn <= rank_end` are emitted.
    rank_end: u64,
    /// Output the row number as a column of this name (`SELECT …, rn`).
    #[serde(default)]
    rank_column: Option<String>,
    /// Emit `-U` before an update. Default `true`; `false` only on the last operator.
    #[serde(default = "yes")]
    generate_update_before: bool,
    /// The compiled plan's `rankState` TTL (FLIP-292).
    #[serde(default)]
    state_ttl: Option<RawOperatorTtl>,
}

fn yes() -> bool {
    true
}

/// How the rows of a partition are ordered: each sort column with its direction. NULL sorts first
/// ascending and last descending (Flink's default null collation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortSpec {
    pub columns: Vec<(usize, bool)>,
}

/// A row's sort key, ordered by its [`SortSpec`]: the best row is the smallest key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    values: SmallVec<[(Value, bool); 2]>,
}

impl SortSpec {
    /// `sortKeySelector.getKey(row)`.
    pub fn key(&self, row: &Row) -> SortKey {
        SortKey {
            values: self.columns.iter().map(|&(i, desc)| (row.0.get(i).copied().unwrap_or_default(), desc)).collect(),
        }
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &SortKey) -> Ordering {
        for ((a, desc), (b, _)) in self.values.iter().zip(&other.values) {
            let o = if *desc { b.cmp(a) } else { a.cmp(b) };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &SortKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for SortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.values.iter().map(|(v, _)| v.to_string()).collect();
        write!(f, "[{}]", parts.join(", "))
    }
}

/// Which Flink class runs the Rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankFunction {
    FastTop1,
    AppendOnlyTopN,
    RetractableTopN,
    /// `UpdateFastStrategy` over more than one row.
    UpdatableTopN,
    /// Blink 1.10's `AppendOnlyTopNFunction` on cleanup timers (top-1 included).
    BlinkAppendOnlyTopN,
}

/// See [`RankSpec::modified_monotonicity`].
fn rank_monotonicity(
    partition_by: &[usize],
    sort: &[(usize, bool)],
    rank_column: bool,
    input: CompileInput,
) -> monotonicity::ModifiedMonotonicity {
    use monotonicity::SqlMonotonicity::{Constant, Decreasing, Increasing, NotMonotonic};
    let cols = input.monotonicity.as_ref()?;
    if partition_by.iter().any(|&p| cols[p] != Constant) {
        return None;
    }
    let mut out = vec![NotMonotonic; input.columns.len() + usize::from(rank_column)];
    for &p in partition_by {
        out[p] = Constant;
    }
    if rank_column {
        out[input.columns.len()] = Constant;
    }
    if let Some(&(i, desc)) = sort.first() {
        out[i] = match cols[i] {
            Increasing | Constant if desc => Increasing,
            Decreasing | Constant if !desc => Decreasing,
            _ => NotMonotonic,
        };
    }
    Some(out)
}

/// `RankProcessStrategy` (`flink-table-planner`, 2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RankProcessStrategy {
    AppendFast,
    Retract,
    UpdateFast,
}

/// `RankProcessStrategy.analyzeRankProcessStrategies` (Flink 2.3, read from the source): an
/// insert-only input is `AppendFastStrategy`; an update stream is `RetractStrategy` unless a
/// unique key of the input contains the partition key and every sort column is monotonic in the
/// direction it is sorted (`INCREASING` sorted `DESC`, `DECREASING` sorted `ASC`, or `CONSTANT`),
/// when the planner takes `UpdateFastStrategy` (the first strategy it lists, which the upstream
/// can always satisfy by dropping `UPDATE_BEFORE`).
fn rank_process_strategy(partition_by: &[usize], sort: &[(usize, bool)], input: CompileInput) -> RankProcessStrategy {
    use monotonicity::SqlMonotonicity::{Constant, Decreasing, Increasing};
    if !input.retracts {
        return RankProcessStrategy::AppendFast;
    }
    // The simulator knows one unique key per stream: its leading `unique_key_len` columns.
    let key_holds_partition = input.unique_key_len > 0 && partition_by.iter().all(|&p| p < input.unique_key_len);
    if !key_holds_partition {
        return RankProcessStrategy::Retract;
    }
    let monotonic = input.monotonicity.as_ref().is_some_and(|cols| {
        !sort.is_empty()
            && sort.iter().all(|&(i, desc)| match cols[i] {
                Decreasing => !desc,
                Increasing => desc,
                m => m == Constant,
            })
    });
    if monotonic {
        RankProcessStrategy::UpdateFast
    } else {
        RankProcessStrategy::Retract
    }
}

/// A validated Rank.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSpec {
    pub partition_by: Vec<usize>,
    pub sort: SortSpec,
    pub rank_end: u64,
    pub output_rank_number: bool,
    pub function: RankFunction,
    pub generate_update_before: bool,
    /// FLINK-39966: labelled insert-only by the planner.
    pub labelled_insert_only: bool,
    pub monotonicity: monotonicity::ModifiedMonotonicity,
    pub input_columns: Vec<Column>,
    pub output_columns: Vec<Column>,
    /// Its own TTL from a compiled plan's state metadata (`rankState`).
    pub state_ttl: Option<OperatorStateTtl>,
    /// `UpdateFastStrategy.primaryKeys`: the input's unique key (`None`: another strategy).
    pub update_fast_keys: Option<Vec<usize>>,
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawRank = parse_part(raw, input.path)?;
    let path = input.path;
    if input.flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "Top-N (ROW_NUMBER() OVER ... WHERE rn <= N) is supported by the Blink planner only: the {} cannot run \
                 a Rank (use \"flink\": \"2.3\")",
                input.flink.label()
            ),
        ));
    }
    if input.flink == FlinkMode::Flink1_12 {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            "the Top-N functions of Flink 1.12 – 1.18 (on cleanup timers with min = table.exec.state.ttl and \
             max = 1.5 × min until 1.14, on state TTL and without FastTop1Function after) are not modelled yet \
             (use \"flink\": \"2.3\" or \"1.10-blink\")",
        ));
    }
    let state_ttl = OperatorStateTtl::compiled_plan(op.state_ttl, &input, "Rank")?;
    let partition_by = op
        .partition_by
        .iter()
        .enumerate()
        .map(|(j, n)| column_index(input.columns, n, &format!("{path}.partition_by[{j}]"), input.input_name))
        .collect::<Result<Vec<_>, _>>()?;
    if op.order_by.is_empty() {
        return Err(ScenarioError::new(format!("{path}.order_by"), "ROW_NUMBER() needs an ORDER BY column"));
    }
    let mut sort = Vec::new();
    for (j, spec) in op.order_by.iter().enumerate() {
        let p = format!("{path}.order_by[{j}]");
        let mut words = spec.split_whitespace();
        let name = words.next().unwrap_or_default();
        let desc = match words.next().map(str::to_uppercase).as_deref() {
            None | Some("ASC") => false,
            Some("DESC") => true,
            Some(_) => return Err(ScenarioError::new(p, format!("{} is not `column [ASC|DESC]`", quote(spec)))),
        };
        if words.next().is_some() {
            return Err(ScenarioError::new(p, format!("{} is not `column [ASC|DESC]`", quote(spec))));
        }
        sort.push((column_index(input.columns, name, &p, input.input_name)?, desc));
    }
    if op.rank_end == 0 {
        return Err(ScenarioError::new(format!("{path}.rank_end"), "rn <= 0 selects nothing: rank_end starts at 1"));
    }
    let is_proctime = |i: usize| input.columns[i].data_type == DataType::ProcTime;
    if let Some(&(i, _)) = sort.iter().find(|&&(i, _)| is_proctime(i)) {
        // `RankUtil.canConvertToDeduplicate(StreamPhysicalRank)`: `isDeduplication` (top-1, no
        // rank column), `inputInsertOnly`, `sortOnTimeAttributeOnly`. A retracting input falls
        // through to the RetractStrategy refusal below.
        if op.rank_end == 1 && op.rank_column.is_none() && sort.len() == 1 && !input.retracts {
            let keep = if sort[0].1 { Keep::LastRow } else { Keep::FirstRow };
            return deduplicate::from_rank(input, partition_by, sort[0].0, keep, op.generate_update_before, state_ttl);
        }
        if !input.retracts {
            // `StreamExecRank` with `AppendFastStrategy`.
            let class = if sort.len() == 1 && !sort[0].1 {
                "AppendOnlyFirstNFunction"
            } else if op.rank_end == 1 {
                "FastTop1Function"
            } else {
                "AppendOnlyTopNFunction"
            };
            return Err(ScenarioError::new(
                format!("{path}.order_by"),
                deduplicate::top_n_on_proctime_refusal(&input.columns[i].name, class),
            ));
        }
    }
    let monotonicity = rank_monotonicity(&partition_by, &sort, op.rank_column.is_some(), input);
    let strategy = rank_process_strategy(&partition_by, &sort, input);
    let function = match strategy {
        RankProcessStrategy::AppendFast if input.flink == FlinkMode::Blink1_10 => RankFunction::BlinkAppendOnlyTopN,
        RankProcessStrategy::AppendFast if op.rank_end == 1 => RankFunction::FastTop1,
        RankProcessStrategy::AppendFast => RankFunction::AppendOnlyTopN,
        _ if input.flink == FlinkMode::Blink1_10 => {
            return Err(ScenarioError::new(
                path,
                format!(
                "{} is an update stream: Blink 1.10 ranks it with RetractableTopNFunction or UpdatableTopNFunction on \
                     cleanup timers, not modelled yet (use \"flink\": \"2.3\")",
                input.input_name
            ),
            ))
        }
        RankProcessStrategy::Retract => RankFunction::RetractableTopN,
        RankProcessStrategy::UpdateFast if input.update_before && !input.planned => {
            return Err(ScenarioError::new(
                path,
                format!(
                    "{} carries UPDATE_BEFORE, but Flink plans this Rank with UpdateFastStrategy ({}), which requires \
                     ONLY_UPDATE_AFTER of its input: the planner makes the upstream drop them (set \
                     \"generate_update_before\": false on the operator producing them)",
                    input.input_name,
                    if op.rank_end == 1 { "FastTop1Function" } else { "UpdatableTopNFunction" }
                ),
            ))
        }
        RankProcessStrategy::UpdateFast if op.rank_end == 1 => RankFunction::FastTop1,
        RankProcessStrategy::UpdateFast => RankFunction::UpdatableTopN,
    };
    let update_fast_keys = (strategy == RankProcessStrategy::UpdateFast).then(|| (0..input.unique_key_len).collect());
    let labelled_insert_only = function == RankFunction::FastTop1
        && strategy == RankProcessStrategy::AppendFast
        && sort.len() == 1
        && !sort[0].1
        && op.rank_column.is_none();
    let mut output_columns = input.columns.to_vec();
    if let Some(name) = &op.rank_column {
        if name.trim().is_empty() || output_columns.iter().any(|c| c.name == *name) {
            return Err(ScenarioError::new(
                format!("{path}.rank_column"),
                format!("{} cannot name the rank column: names must be non-empty and unique", quote(name)),
            ));
        }
        output_columns.push(Column { name: name.clone(), data_type: DataType::BigInt });
    }
    Ok(Rc::new(RankSpec {
        partition_by,
        sort: SortSpec { columns: sort },
        rank_end: op.rank_end,
        output_rank_number: op.rank_column.is_some(),
        function,
        generate_update_before: op.generate_update_before && !labelled_insert_only,
        labelled_insert_only,
        monotonicity,
        input_columns: input.columns.to_vec(),
        output_columns,
        state_ttl,
        update_fast_keys,
    }))
}

impl OperatorSpec for RankSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    /// The partition key when it leads the row (and, with a rank column, the rank).
    fn unique_key_len(&self) -> usize {
        let leading = self.partition_by.iter().enumerate().all(|(j, &i)| j == i);
        if leading && !self.output_rank_number && self.rank_end == 1 {
            self.partition_by.len()
        } else {
            0
        }
    }
    fn output_retracts(&self) -> bool {
        !self.labelled_insert_only
    }
    /// The partition key (the Rank's keyed state).
    fn state_key_columns(&self) -> Vec<usize> {
        self.partition_by.clone()
    }
    /// With a rank column, a partition's rows are told apart by their rank.
    fn upsert_key_extra(&self) -> Vec<usize> {
        if self.output_rank_number {
            vec![self.output_columns.len() - 1]
        } else {
            Vec::new()
        }
    }
    /// Without a rank column only top-1 and `UpdatableTopNFunction` emit updates; the other
    /// top-N functions emit `+I`/`-D`, which need no `UPDATE_BEFORE`.
    fn generates_update_before(&self) -> bool {
        self.generate_update_before
            || (!self.output_rank_number
                && !matches!(self.function, RankFunction::FastTop1 | RankFunction::UpdatableTopN))
    }
    /// `UpdateFastStrategy` requires `ONLY_UPDATE_AFTER` of its input.
    fn needs_update_before(&self) -> bool {
        self.update_fast_keys.is_none()
    }
    /// `getRelModifiedMonotonicity(Rank)`: `null` when the input has deletions or a partition
    /// column changes; else the partition columns and the rank column are `CONSTANT`, the first
    /// sort column `INCREASING` / `DECREASING` when its input monotonicity agrees with its
    /// direction, the rest `NOT_MONOTONIC`.
    fn modified_monotonicity(&self) -> monotonicity::ModifiedMonotonicity {
        self.monotonicity.clone()
    }
    /// `hash[partition keys]`, or `single` without `PARTITION BY`.
    fn distribution(&self) -> Option<Distribution> {
        Some(Distribution::by(self.partition_by.iter().map(|&i| self.input_columns[i].name.clone()).collect()))
    }
    fn plan(&self) -> String {
        let names: Vec<&str> = self.input_columns.iter().map(|c| c.name.as_str()).collect();
        let partition: Vec<&str> = self.partition_by.iter().map(|&i| names[i]).collect();
        let order: Vec<String> = self
            .sort
            .columns
            .iter()
            .map(|&(i, desc)| format!("{} {}", names[i], if desc { "DESC" } else { "ASC" }))
            .collect();
        format!(
            "Rank(strategy=[{}], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd={}], partitionBy=[{}], orderBy=[{}], select=[{}])",
            match (&self.update_fast_keys, self.function) {
                (Some(keys), _) => format!(
                    "UpdateFastStrategy[{}]",
                    keys.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
                ),
                (None, RankFunction::RetractableTopN) => "RetractStrategy".to_string(),
                (None, _) => "AppendFastStrategy".to_string(),
            },
            self.rank_end,
            partition.join(", "),
            order.join(", "),
            self.output_columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
        )
    }
    fn state_ttl(&self) -> Option<&OperatorStateTtl> {
        self.state_ttl.as_ref()
    }
    fn build(&self, _flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let ttl = match retention {
            Retention::StateTtl(ms) => ms,
            // Never reached: compile() refuses the legacy planner, the only one with idle state
            // retention.
            Retention::IdleState(_) => 0,
        };
        match self.function {
            RankFunction::FastTop1 => Box::new(FastTop1Function::new(self.clone(), ttl)),
            RankFunction::AppendOnlyTopN => Box::new(AppendOnlyTopNFunction::new(self.clone(), ttl)),
            RankFunction::RetractableTopN => Box::new(RetractableTopNFunction::new(self.clone(), ttl)),
            RankFunction::UpdatableTopN => Box::new(UpdatableTopNFunction::new(
                self.clone(),
                self.update_fast_keys.clone().unwrap_or_default(),
                ttl,
            )),
            RankFunction::BlinkAppendOnlyTopN => match retention {
                Retention::IdleState(r) => Box::new(BlinkAppendOnlyTopNFunction::new(self.clone(), r)),
                Retention::StateTtl(_) => {
                    Box::new(BlinkAppendOnlyTopNFunction::new(self.clone(), IdleStateRetention::NEVER))
                }
            },
        }
    }
}

impl RankSpec {
    /// The output row for `row` at `rank` (`createOutputRow`: the row, then the rank when output).
    pub fn output(&self, row: &Row, rank: u64) -> Row {
        let mut out = row.clone();
        if self.output_rank_number {
            out.0.push(Value::Int(rank as i64));
        }
        out
    }
}
