//! `OverAggregate`: `SELECT *, agg(x) OVER (PARTITION BY … ORDER BY <proctime> <window>) FROM
//! <input>` on processing time, and the Flink class each Flink version runs it with
//! (`StreamExecOverAggregate.translateToPlanInternal`, Flink 2.x, read from the source; the
//! legacy planner's `DataStreamOverAggregate`, 1.10):
//!
//! | window | Flink 2.3 | Flink 1.12 – 1.18 (`1.12`) | 1.10 legacy planner |
//! |---|---|---|---|
//! | `ROWS BETWEEN n PRECEDING AND CURRENT ROW` | [`ProcTimeRowsBoundedPrecedingFunction`](super::ProcTimeRowsBoundedPrecedingFunction) (cleanup timers) | the same class and logic | `ProcTimeBoundedRowsOver` (cleanup timers) |
//! | `ROWS`/`RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW` | [`ProcTimeUnboundedPrecedingFunction`](super::ProcTimeUnboundedPrecedingFunction) (state TTL, FLINK-29349) | `ProcTimeUnboundedPrecedingFunction` on cleanup timers: not modelled, refused | `ProcTimeUnboundedOver` (cleanup timers) |
//! | `RANGE BETWEEN INTERVAL 'n' UNIT PRECEDING AND CURRENT ROW` | [`ProcTimeRangeBoundedPrecedingFunction`](super::ProcTimeRangeBoundedPrecedingFunction) (its own timers, no retention) | not modelled, refused | `ProcTimeBoundedRangeOver`: not modelled, refused |
//!
//! Flink 1.12's planner (`StreamExecOverAggregate.scala` of `flink-table-planner-blink`, read in
//! the 1.12.2 source) builds `ProcTimeRowsBoundedPrecedingFunction(tableConfig.getMinIdleStateRetentionTime,
//! tableConfig.getMaxIdleStateRetentionTime, ...)`, i.e. min = `table.exec.state.ttl` and max =
//! `min * 3 / 2` (`TableConfig.getMaxIdleStateRetentionTime`, 1.12), as Flink 2.3 does; the function's
//! logic in `flink-table-runtime-blink` (1.12.2) is the one modelled for 2.3.
//!
//! The output is the input row followed by the aggregates, insert-only. Only processing time is
//! modelled: the window must be ordered by the source's processing-time attribute (`proctime`).
//! Event time (watermarks, `RowTime*` functions) is not, and Flink 2.3's ordering by a non-time
//! column (`NonTime*UnboundedPrecedingFunction`, FLINK-19059) is not either.

use super::{
    ProcTimeRangeBoundedPrecedingFunction, ProcTimeRowsBoundedPrecedingFunction, ProcTimeUnboundedPrecedingFunction,
};
use crate::engine::aggregate::{Accumulator, AggCall};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::operators::aggregate::group_aggregate::{column_index, compile_call, RawAggregate};
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType, Row};
use crate::engine::time::Millis;
use schemars::JsonSchema;
use serde::Deserialize;
use smallvec::SmallVec;
use std::collections::HashSet;
use std::rc::Rc;

/// The registration of `OverAggregate` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawOverAggregate>("OverAggregate", compile);

/// `SELECT *, agg(x) OVER (PARTITION BY <partition_by> ORDER BY <proctime> <window>) FROM
/// <input>`, on processing time: the input's columns, then one per aggregate.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "OverAggregate")]
#[serde(
    deny_unknown_fields,
    expecting = "an OverAggregate object {\"operator\", \"id\", \"partition_by\", \"order_by\", \"window\", \"aggregates\"}"
)]
struct RawOverAggregate {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The `PARTITION BY` columns (empty: one partition).
    #[serde(default)]
    partition_by: Vec<String>,
    /// The source's processing-time attribute, ascending: `["pt"]` or `["pt ASC"]`.
    order_by: Vec<String>,
    /// The frame: `ROWS BETWEEN n PRECEDING AND CURRENT ROW`, `ROWS` or `RANGE BETWEEN UNBOUNDED
    /// PRECEDING AND CURRENT ROW`, or `RANGE BETWEEN INTERVAL 'n' SECOND|MINUTE|HOUR|DAY
    /// PRECEDING AND CURRENT ROW`.
    #[schemars(extend("examples" = ["ROWS BETWEEN 1 PRECEDING AND CURRENT ROW", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"]))]
    window: String,
    /// The aggregate calls, each an output column (a bounded window needs functions that
    /// retract).
    aggregates: Vec<RawAggregate>,
    /// Not supported: an OVER window always follows `table.exec.state.ttl` (read only to refuse
    /// it with the reason, [`super::super::state_ttl::over_refusal`]).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    state_ttl: Option<serde::de::IgnoredAny>,
}

/// The window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverWindow {
    /// `ROWS BETWEEN n PRECEDING AND CURRENT ROW`: `precedingOffset = n + 1` rows.
    RowsBounded { preceding: u64 },
    /// `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RowsUnbounded,
    /// `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`.
    RangeUnbounded,
    /// `RANGE BETWEEN INTERVAL 'n' UNIT PRECEDING AND CURRENT ROW`, in ms.
    RangeBounded { preceding_ms: Millis },
}

impl OverWindow {
    /// The frames the scenario format accepts, for error messages.
    const FORMS: &'static str = "ROWS BETWEEN n PRECEDING AND CURRENT ROW (n >= 1), \
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, \
        RANGE BETWEEN INTERVAL 'n' SECOND|MINUTE|HOUR|DAY PRECEDING AND CURRENT ROW";

    /// Parses the frame (keywords in any case, any spacing).
    fn parse(text: &str) -> Result<OverWindow, String> {
        let upper = text.to_uppercase();
        let words: Vec<&str> = upper.split_whitespace().collect();
        if words.contains(&"FOLLOWING") {
            // StreamExecOverAggregate: only `… PRECEDING AND CURRENT ROW` frames are translated.
            return Err("OVER RANGE FOLLOWING windows are not supported yet.".into());
        }
        let unknown = || format!("unknown window {} (known: {})", quote(text), OverWindow::FORMS);
        let frame = match words.as_slice() {
            [kind, "BETWEEN", rest @ .., "PRECEDING", "AND", "CURRENT", "ROW"] => (*kind, rest),
            _ => return Err(unknown()),
        };
        match frame {
            ("ROWS", ["UNBOUNDED"]) => Ok(OverWindow::RowsUnbounded),
            ("RANGE", ["UNBOUNDED"]) => Ok(OverWindow::RangeUnbounded),
            ("ROWS", [n]) => match n.parse::<u64>() {
                Ok(0) => {
                    Err(format!("{}: a frame of the current row alone (0 PRECEDING) is not modelled", quote(text)))
                }
                Ok(preceding) if preceding < i64::MAX as u64 => Ok(OverWindow::RowsBounded { preceding }),
                _ => Err(unknown()),
            },
            ("RANGE", ["INTERVAL", n, unit]) => {
                let n: Millis = n.trim_matches('\'').parse().map_err(|_| unknown())?;
                let ms = match *unit {
                    "SECOND" => 1_000,
                    "MINUTE" => 60_000,
                    "HOUR" => 3_600_000,
                    "DAY" => 86_400_000,
                    _ => return Err(unknown()),
                };
                match n.checked_mul(ms) {
                    Some(preceding_ms) if preceding_ms > 0 && preceding_ms <= crate::engine::time::MAX_RUNTIME_MS => {
                        Ok(OverWindow::RangeBounded { preceding_ms })
                    }
                    _ => Err(format!(
                        "{}: the interval must be positive and at most the simulator's runtime",
                        quote(text)
                    )),
                }
            }
            _ => Err(unknown()),
        }
    }

    /// Whether rows leave the window (its aggregates then need `retract`).
    pub fn is_bounded(self) -> bool {
        matches!(self, OverWindow::RowsBounded { .. } | OverWindow::RangeBounded { .. })
    }

    /// As Flink 2.3's plan prints it, leading space included (`RelExplainUtil.windowRangeToString`;
    /// its 2.0 source wrote `RANG`, real Flink 2.3.0 prints `RANGE`:
    /// `tests/conformance/recorded/over_range_1h_nottl.json`).
    fn plan(self) -> String {
        match self {
            OverWindow::RowsBounded { preceding } => format!(" ROWS BETWEEN {preceding} PRECEDING AND CURRENT ROW"),
            OverWindow::RowsUnbounded => " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into(),
            OverWindow::RangeUnbounded => " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into(),
            OverWindow::RangeBounded { preceding_ms } => {
                format!(" RANGE BETWEEN {preceding_ms} PRECEDING AND CURRENT ROW")
            }
        }
    }
}

/// A validated over aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct OverAggregateSpec {
    pub partition_by: Vec<usize>,
    /// The processing-time attribute it is ordered by.
    pub order_by: usize,
    pub window: OverWindow,
    pub calls: Vec<AggCall>,
    pub input_columns: Vec<Column>,
    /// The input columns, then one column per aggregate.
    pub output_columns: Vec<Column>,
}

impl OverAggregateSpec {
    /// `output.replace(input, function.getValue())`: the input row, then each aggregate's value.
    pub fn output(&self, input: &Row, accs: &[Accumulator]) -> Row {
        let mut out = SmallVec::with_capacity(input.0.len() + self.calls.len());
        out.extend(input.0.iter().copied());
        out.extend(self.calls.iter().zip(accs).map(|(c, a)| c.get_value(a)));
        Row(out)
    }

    /// The names of the aggregate columns (for the page's state view).
    pub fn aggregate_columns(&self) -> &[Column] {
        &self.output_columns[self.input_columns.len()..]
    }

    /// `precedingOffset` of a ROWS frame: `n PRECEDING` keeps `n + 1` rows.
    pub fn preceding_offset(&self) -> u64 {
        match self.window {
            OverWindow::RowsBounded { preceding } => preceding + 1,
            _ => 0,
        }
    }
}

/// Flink's plan name of an aggregate call: `MIN(t_date)` (the retracting variant is an
/// implementation detail the plan does not show).
fn plan_call(call: &AggCall, names: &[String]) -> String {
    let plain = match call {
        AggCall::Extreme { which, arg, .. } => AggCall::Extreme { which: *which, arg: *arg, retract: false },
        AggCall::CountDistinct { arg, .. } => AggCall::CountDistinct { arg: *arg, retract: false },
        other => other.clone(),
    };
    plain.display(names)
}

impl OperatorSpec for OverAggregateSpec {
    fn key_types(&self) -> Vec<DataType> {
        self.partition_by.iter().filter_map(|&i| self.input_columns.get(i)).map(|c| c.data_type).collect()
    }
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    fn unique_key_len(&self) -> usize {
        0
    }
    fn output_retracts(&self) -> bool {
        false
    }
    /// Insert-only: nothing to split. `true` makes a result table of it a multiset of rows.
    fn generates_update_before(&self) -> bool {
        true
    }

    /// `hash[partition keys]`, or `single` without `PARTITION BY`.
    fn distribution(&self) -> Option<Distribution> {
        Some(Distribution::by(self.partition_by.iter().map(|&i| self.input_columns[i].name.clone()).collect()))
    }
    /// `OverAggregate(partitionBy=[user_id], orderBy=[pt ASC], window=[ ROWS BETWEEN 1 PRECEDING
    /// AND CURRENT ROW], select=[t_date, user_id, pt, MIN(t_date) AS t_debut])`.
    fn plan(&self) -> String {
        let names: Vec<String> = self.input_columns.iter().map(|c| c.name.clone()).collect();
        let partition: Vec<&str> = self.partition_by.iter().map(|&i| names[i].as_str()).collect();
        let aggs = self.calls.iter().zip(self.aggregate_columns());
        let select: Vec<String> = names
            .iter()
            .cloned()
            .chain(aggs.map(|(c, col)| format!("{} AS {}", plan_call(c, &names), col.name)))
            .collect();
        let partition =
            if partition.is_empty() { String::new() } else { format!("partitionBy=[{}], ", partition.join(", ")) };
        format!(
            "OverAggregate({partition}orderBy=[{} ASC], window=[{}], select=[{}])",
            names[self.order_by],
            self.window.plan(),
            select.join(", ")
        )
    }

    fn build(&self, _flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let spec = self.clone();
        match (retention, self.window) {
            (Retention::StateTtl(ttl), OverWindow::RowsBounded { .. }) => {
                Box::new(ProcTimeRowsBoundedPrecedingFunction::new(spec, ttl))
            }
            (Retention::StateTtl(ttl), OverWindow::RowsUnbounded | OverWindow::RangeUnbounded) => {
                Box::new(ProcTimeUnboundedPrecedingFunction::new(spec, ttl))
            }
            (Retention::StateTtl(_), OverWindow::RangeBounded { preceding_ms }) => {
                Box::new(ProcTimeRangeBoundedPrecedingFunction::new(spec, preceding_ms))
            }
            (Retention::IdleState(r), OverWindow::RowsBounded { .. }) => {
                Box::new(ProcTimeRowsBoundedPrecedingFunction::legacy(spec, r))
            }
            // RangeBounded is refused on the legacy planner at compile time.
            (Retention::IdleState(r), _) => Box::new(ProcTimeUnboundedPrecedingFunction::legacy(spec, r)),
        }
    }
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawOverAggregate = parse_part(raw, input.path)?;
    let path = input.path;
    if !matches!(input.flink, FlinkMode::Legacy1_10 | FlinkMode::Flink1_12 | FlinkMode::Flink2_3 | FlinkMode::Main) {
        return Err(ScenarioError::new(
            path,
            format!(
                "the OVER aggregation of the {} is not modelled; the simulator models the 1.8–1.11 legacy \
                 planner's (\"1.10-legacy\"), Flink 1.12's ROWS BETWEEN n PRECEDING (\"1.12\") and Flink 2.3's (\"2.3\")",
                input.flink.label()
            ),
        ));
    }
    if op.state_ttl.is_some() {
        return Err(ScenarioError::new(format!("{path}.state_ttl"), super::super::state_ttl::over_refusal()));
    }
    let window = OverWindow::parse(&op.window).map_err(|m| ScenarioError::new(format!("{path}.window"), m))?;
    if input.flink == FlinkMode::Flink1_12 && !matches!(window, OverWindow::RowsBounded { .. }) {
        // Flink 1.12's ProcTimeUnboundedPrecedingFunction is on cleanup timers (state TTL came with
        // FLINK-29349); its ProcTimeRangeBoundedPrecedingFunction was not compared with 2.3's.
        return Err(ScenarioError::new(
            format!("{path}.window"),
            format!(
                "Flink 1.12 runs {}, which is not modelled; of Flink 1.12's OVER windows only \
                 ROWS BETWEEN n PRECEDING AND CURRENT ROW is (use \"flink\": \"2.3\" or \"1.10-legacy\")",
                if window.is_bounded() {
                    "a RANGE frame with an interval with ProcTimeRangeBoundedPrecedingFunction"
                } else {
                    "an UNBOUNDED PRECEDING frame with ProcTimeUnboundedPrecedingFunction on cleanup timers"
                }
            ),
        ));
    }
    let partition_by = op
        .partition_by
        .iter()
        .enumerate()
        .map(|(j, n)| column_index(input.columns, n, &format!("{path}.partition_by[{j}]"), input.input_name))
        .collect::<Result<Vec<_>, _>>()?;
    let order_by = compile_order_by(&op.order_by, &input, window)?;
    if input.retracts {
        // FlinkChangelogModeInferenceProgram: the over aggregation of a time attribute is
        // insert-only in and out.
        return Err(ScenarioError::new(
            path,
            format!(
                // FlinkChangelogModeInferenceProgram names the node as each planner calls it.
                "{} doesn't support consuming {} changes which is produced by node {}",
                if input.flink == FlinkMode::Flink1_12 {
                    "StreamExecOverAggregate"
                } else {
                    "StreamPhysicalOverAggregate"
                },
                if input.deletes { "update and delete" } else { "update" },
                input.changes_from
            ),
        ));
    }
    if input.flink == FlinkMode::Legacy1_10 && matches!(window, OverWindow::RangeBounded { .. }) {
        return Err(ScenarioError::new(
            format!("{path}.window"),
            "a RANGE frame with an interval runs the legacy planner's ProcTimeBoundedRangeOver, which is not \
             modelled (use \"flink\": \"2.3\")",
        ));
    }
    if op.aggregates.is_empty() {
        return Err(ScenarioError::new(format!("{path}.aggregates"), "an OverAggregate needs at least one aggregate"));
    }
    let mut output_columns = input.columns.to_vec();
    let mut names: HashSet<String> = output_columns.iter().map(|c| c.name.clone()).collect();
    let mut calls = Vec::new();
    let input_names: Vec<String> = input.columns.iter().map(|c| c.name.clone()).collect();
    for (j, agg) in op.aggregates.iter().enumerate() {
        let apath = format!("{path}.aggregates[{j}]");
        // A bounded window retracts the rows that leave it: every call needs `retract`
        // (`aggCallNeedRetractions` all true in `createBoundedOverProcessFunction`).
        let retract = window.is_bounded();
        if agg.filter.is_some() {
            return Err(ScenarioError::new(
                format!("{apath}.filter"),
                "an aggregate's FILTER is modelled for GROUP BY only",
            ));
        }
        let (call, data_type) = compile_call(agg, input.columns, &apath, input.input_name, retract)?;
        if retract && !call.supports_retraction() {
            return Err(ScenarioError::new(
                format!("{apath}.function"),
                format!(
                    "{} has no retract method here, which a bounded OVER window needs for the rows leaving it",
                    call.display(&input_names)
                ),
            ));
        }
        if agg.alias.trim().is_empty() || !names.insert(agg.alias.clone()) {
            return Err(ScenarioError::new(
                format!("{apath}.as"),
                format!("{} cannot name an output column: names must be non-empty and unique", quote(&agg.alias)),
            ));
        }
        output_columns.push(Column { name: agg.alias.clone(), data_type });
        calls.push(call);
    }
    Ok(Rc::new(OverAggregateSpec {
        partition_by,
        order_by,
        window,
        calls,
        input_columns: input.columns.to_vec(),
        output_columns,
    }))
}

/// The ORDER BY column, checked in `StreamExecOverAggregate`'s order: one column, ascending, a
/// time attribute.
fn compile_order_by(order_by: &[String], input: &CompileInput, window: OverWindow) -> Result<usize, ScenarioError> {
    let path = format!("{}.order_by", input.path);
    let [spec] = order_by else {
        return Err(ScenarioError::new(path, "The window can only be ordered by a single time column."));
    };
    let path = format!("{path}[0]");
    let words: Vec<&str> = spec.split_whitespace().collect();
    let name = match words.as_slice() {
        [name] => name,
        [name, dir] if dir.eq_ignore_ascii_case("ASC") => name,
        [_, dir] if dir.eq_ignore_ascii_case("DESC") => {
            return Err(ScenarioError::new(path, "The window can only be ordered in ASCENDING mode."))
        }
        _ => return Err(ScenarioError::new(path, format!("{} is not `column [ASC|DESC]`", quote(spec)))),
    };
    let i = column_index(input.columns, name, &path, input.input_name)?;
    if input.columns[i].data_type == DataType::ProcTime {
        return Ok(i);
    }
    let not_time = format!("column {} is {}, not a time attribute", quote(name), input.columns[i].data_type.name());
    let message = match (input.flink, window.is_bounded()) {
        // StreamExecOverAggregate.translateToPlan (1.12.2) has the legacy planner's message.
        (FlinkMode::Legacy1_10 | FlinkMode::Flink1_12, _) => {
            format!("OVER windows' ordering in stream mode must be defined on a time attribute. ({not_time})")
        }
        (_, true) => {
            format!("Non-time attribute sort is not supported for bounded OVER window. ({not_time})")
        }
        (_, false) => format!(
            "{not_time}: Flink 2.3 runs an unbounded OVER window ordered by a non-time column with \
             NonTimeRowsUnboundedPrecedingFunction / NonTimeRangeUnboundedPrecedingFunction (FLINK-19059), \
             which is not modelled; order by the source's processing-time attribute (\"proctime\")"
        ),
    };
    Err(ScenarioError::new(path, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Scenario;

    /// The plans of the seed-002 recording's OverAggregate and Calc, as Flink prints them (with
    /// `pt` for Flink's `$2`, the materialized `PROCTIME()`).
    #[test]
    fn plans_read_like_flinks() {
        let text = include_str!("../../../../tests/scenarios/oracle/dau_over_1preceding_nottl.json");
        let scenario = Scenario::from_json(text).unwrap();
        let plans: Vec<String> = scenario.operators.iter().map(|n| n.spec.plan()).collect();
        assert_eq!(
            plans[0],
            "OverAggregate(partitionBy=[user_id], orderBy=[pt ASC], window=[ ROWS BETWEEN 1 PRECEDING AND CURRENT ROW], \
             select=[t_date, user_id, pt, MIN(t_date) AS t_debut])"
        );
        // The physical plan's prefix form, and the execution plan's infix form.
        assert_eq!(
            scenario.operators[1].spec.physical_plan(),
            "Calc(select=[t_date, user_id, CASE(=(t_date, t_debut), user_id, null:VARCHAR(2147483647) CHARACTER SET \
             \"UTF-16LE\") AS $f2])"
        );
        assert_eq!(
            plans[1],
            "Calc(select=[t_date, user_id, CASE((t_date = t_debut), user_id, null:VARCHAR(2147483647)) AS $f2])"
        );
    }

    #[test]
    fn window_frames() {
        assert_eq!(
            OverWindow::parse("rows  between 3 preceding and current row"),
            Ok(OverWindow::RowsBounded { preceding: 3 })
        );
        assert_eq!(
            OverWindow::parse("RANGE BETWEEN INTERVAL '4' SECOND PRECEDING AND CURRENT ROW"),
            Ok(OverWindow::RangeBounded { preceding_ms: 4000 })
        );
        assert_eq!(OverWindow::RangeUnbounded.plan(), " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW");
        assert!(OverWindow::parse("ROWS BETWEEN 0 PRECEDING AND CURRENT ROW").unwrap_err().contains("not modelled"));
        assert!(OverWindow::parse("RANGE BETWEEN INTERVAL '4' WEEK PRECEDING AND CURRENT ROW").is_err());
    }
}
