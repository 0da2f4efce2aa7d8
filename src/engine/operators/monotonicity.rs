//! How each output column of an operator can change over time: Flink's "modified monotonicity"
//! (`FlinkRelMdModifiedMonotonicity`, `flink-table-planner`, the same rules from 1.9 to 2.3, read
//! from the source). The planner reads it to choose a Rank's strategy (`RankProcessStrategy.
//! analyzeRankProcessStrategies`): a Rank over an updating input whose sort columns only move
//! towards the top (a `COUNT` ordered `DESC`, a `MIN` ordered `ASC`) can use `UpdateFastStrategy`.
//!
//! `None` for a whole operator is Flink's `null`: the output can contain deletions.

use crate::engine::aggregate::min_max::Extreme;
use crate::engine::aggregate::AggCall;
use crate::engine::row::Column;

/// Calcite's `SqlMonotonicity`, as far as the planner's rules distinguish it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlMonotonicity {
    /// The column of a row never changes once emitted (append-only input, grouping keys).
    Constant,
    /// Updates only raise it (`COUNT`, `MAX`).
    Increasing,
    /// Updates only lower it (`MIN`).
    Decreasing,
    NotMonotonic,
}

/// The modified monotonicity of each column, or `None` when the stream contains deletions.
pub type ModifiedMonotonicity = Option<Vec<SqlMonotonicity>>;

/// A source table scan: an insert-only source is all `CONSTANT`; a changelog source
/// "can't produce CONSTANT ModifiedMonotonicity": all `NOT_MONOTONIC`.
pub fn of_source(columns: &[Column], insert_only: bool) -> ModifiedMonotonicity {
    let m = if insert_only { SqlMonotonicity::Constant } else { SqlMonotonicity::NotMonotonic };
    Some(vec![m; columns.len()])
}

/// `containsUpdate`: some column is not `CONSTANT` (and the stream has no deletions).
pub fn contains_update(m: &ModifiedMonotonicity) -> bool {
    m.as_ref().is_some_and(|cols| cols.iter().any(|&c| c != SqlMonotonicity::Constant))
}

/// `allAppend`: every column is `CONSTANT`.
pub fn all_append(m: &ModifiedMonotonicity) -> bool {
    m.as_ref().is_some_and(|cols| cols.iter().all(|&c| c == SqlMonotonicity::Constant))
}

/// `getProjectMonotonicity` for a projection of input columns (`Calc` of column references).
pub fn of_projection(input: &ModifiedMonotonicity, select: &[Option<usize>]) -> ModifiedMonotonicity {
    let cols = input.as_ref()?;
    if all_append(input) {
        return Some(vec![SqlMonotonicity::Constant; select.len()]);
    }
    Some(select.iter().map(|c| c.map_or(SqlMonotonicity::NotMonotonic, |i| cols[i])).collect())
}

/// `getRelModifiedMonotonicityOnAggregate` with `getMonotonicityOnAggCall`.
///
/// `SUM` is `INCREASING` in Flink when the planner knows its operand is never negative (a column
/// interval, e.g. from `WHERE v >= 0`); the simulator knows no column intervals, so `SUM` is
/// `NOT_MONOTONIC`, as Flink finds it for a plain column.
pub fn of_aggregate(input: &ModifiedMonotonicity, group_by: &[usize], calls: &[AggCall]) -> ModifiedMonotonicity {
    let cols = input.as_ref()?;
    if group_by.iter().any(|&g| cols[g] != SqlMonotonicity::Constant) {
        return None;
    }
    let mut out = vec![SqlMonotonicity::Constant; group_by.len()];
    let update = contains_update(input);
    for call in calls {
        let (is_count, own) = match call {
            AggCall::CountStar | AggCall::Count(_) | AggCall::CountDistinct { .. } => {
                (true, SqlMonotonicity::Increasing)
            }
            AggCall::Extreme { which: Extreme::Max, .. } => (false, SqlMonotonicity::Increasing),
            AggCall::Extreme { which: Extreme::Min, .. } => (false, SqlMonotonicity::Decreasing),
            AggCall::Sum { .. } | AggCall::LastValue(_) | AggCall::LatestByTime { .. } => {
                (false, SqlMonotonicity::NotMonotonic)
            }
        };
        let args = call.args();
        let m = if !update {
            own
        } else if args.len() > 1 {
            SqlMonotonicity::NotMonotonic
        } else if let [arg] = args.as_slice() {
            // "count will Increasing even child is NOT_MONOTONIC"
            if cols[*arg] != own && !is_count {
                SqlMonotonicity::NotMonotonic
            } else {
                own
            }
        } else {
            own
        };
        out.push(m);
    }
    Some(out)
}
