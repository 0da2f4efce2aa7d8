//! `Rank`: `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` filtered to `rn <= N`, with or without
//! the rank column, and the Flink class Flink 2.3's planner picks for it (`StreamExecRank.
//! translateToPlanInternal`, read from the source):
//!
//! - a top-1 without the rank column ordered by a processing-time attribute alone, over an
//!   insert-only input, becomes a `Deduplicate` (`StreamPhysicalRank.translateToExecNode` when
//!   `RankUtil.canConvertToDeduplicate`; see [`super::deduplicate`]);
//! - an append-only input gets `AppendFastStrategy`: top-1 runs [`FastTop1Function`], top-N
//!   [`AppendOnlyTopNFunction`] (`ORDER BY` a processing-time attribute ascending alone runs
//!   `AppendOnlyFirstNFunction`; other Ranks ordered by a processing-time attribute are refused as
//!   not modelled yet);
//! - an input with retractions gets `RetractStrategy` (`RetractableTopNFunction`, not modelled
//!   yet: such a scenario is refused with that reason).
//!
//! FLINK-39966 (not fixed in 2.3.0): the planner labels a top-1 ordered by one column ascending as
//! insert-only, as it would a keep-first deduplication; so no `UPDATE_BEFORE` is generated, and
//! the operators downstream take the `+U` a smaller value causes for an insert. The simulator
//! reproduces it: such a Rank emits no `-U` and its output does not count as retracting
//! (`shared/oracle/rank_top1_ts_asc_*`).

use super::deduplicate::{self, Keep};
use super::group_aggregate::column_index;
use super::{AppendOnlyTopNFunction, CompileInput, FastTop1Function, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::row::{Column, DataType, Row, Value};
use crate::engine::scenario::{parse_part, FlinkMode, Retention};
use serde::Deserialize;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::rc::Rc;

/// The registration of `Rank` in [`super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind { name: "Rank", compile };

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a Rank object {\"operator\", \"id\", \"partition_by\", \"order_by\", \"rank_end\", \"rank_column\", \"generate_update_before\"}"
)]
struct RawRank {
    #[allow(dead_code)]
    operator: String,
    #[allow(dead_code)]
    id: String,
    #[serde(default)]
    partition_by: Vec<String>,
    /// `"ts"`, `"ts ASC"` or `"ts DESC"`.
    order_by: Vec<String>,
    /// `rn <= rank_end`.
    rank_end: u64,
    /// Output the row number as a column of this name (`SELECT …, rn`).
    #[serde(default)]
    rank_column: Option<String>,
    #[serde(default = "yes")]
    generate_update_before: bool,
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
    pub input_columns: Vec<Column>,
    pub output_columns: Vec<Column>,
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawRank = parse_part(raw, input.path)?;
    let path = input.path;
    if input.flink == FlinkMode::Legacy1_10 {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            "Top-N (ROW_NUMBER() OVER ... WHERE rn <= N) is supported by the Blink planner only: Flink 1.10's legacy \
             planner cannot run a Rank (use \"flink\": \"2.3\")",
        ));
    }
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
            return deduplicate::from_rank(input, partition_by, keep, op.generate_update_before);
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
    if input.retracts {
        return Err(ScenarioError::new(
            path,
            format!(
                "{} carries retractions: Flink ranks it with RetractableTopNFunction (RetractStrategy), not modelled yet",
                input.input_name
            ),
        ));
    }
    let function = if op.rank_end == 1 { RankFunction::FastTop1 } else { RankFunction::AppendOnlyTopN };
    let labelled_insert_only = op.rank_end == 1 && sort.len() == 1 && !sort[0].1 && op.rank_column.is_none();
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
        input_columns: input.columns.to_vec(),
        output_columns,
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
    fn generates_update_before(&self) -> bool {
        self.generate_update_before
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
            "Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd={}], partitionBy=[{}], orderBy=[{}], select=[{}])",
            self.rank_end,
            partition.join(", "),
            order.join(", "),
            self.output_columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
        )
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
