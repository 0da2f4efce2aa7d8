//! `CountWindowAggregate`: a row-count group window of the legacy planner's Table API,
//! `table.window(Tumble over 3.rows on 'pt as 'w).groupBy('w, 'k).select('k, 'v.sum)` (or
//! `Slide over 3.rows every 2.rows`), as the scenario format writes it.
//!
//! Follows `DataStreamGroupWindowAggregate.translateToPlan` / `createKeyedWindowedStream` of the
//! legacy planner (`flink-table/flink-table-planner/.../plan/nodes/datastream/`, Flink 1.10, read
//! from the source; the same in `flink-libraries/flink-table` of 1.6 and 1.7):
//!
//! | window | DataStream program | operator |
//! |---|---|---|
//! | `Tumble over n.rows` | `countWindow(n).trigger(PurgingTrigger.of(StateCleaningCountTrigger.of(config, n)))` | `WindowOperator` with an incremental `AggregatingState` (`window-contents`) |
//! | `Slide over n.rows every m.rows` | `countWindow(n, m).trigger(StateCleaningCountTrigger.of(config, m))` (`CountEvictor.of(n)` stays) | `EvictingWindowOperator` with a `ListState` of the rows (`window-contents`) |
//!
//! An empty `group_by` is `countWindowAll` (one window for the whole stream). The output is
//! insert-only: the grouping columns, then one column per aggregate
//! (`IncrementalAggregateWindowFunction`); a row-count window has no start or end to select.
//!
//! Only the legacy planner runs a count window with `StateCleaningCountTrigger`. The Blink planner
//! (1.9+) and Flink 1.12 – 2.3 translate it (`StreamExecGroupWindowAggregate`,
//! `WindowOperatorBuilder.countWindow`) into the table runtime's `WindowOperator` with
//! `CountTumblingWindowAssigner` / `CountSlidingWindowAssigner` and `ElementTriggers.count`, which
//! is not modelled: those modes are refused.

use super::count_window_operator::CountWindowOperator;
use crate::engine::aggregate::{Accumulator, AggCall};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::aggregate::group_aggregate::{column_index, compile_call, RawAggregate};
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType, Row};
use schemars::JsonSchema;
use serde::Deserialize;
use smallvec::SmallVec;
use std::collections::HashSet;
use std::rc::Rc;

/// The registration of `CountWindowAggregate` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawCountWindowAggregate>("CountWindowAggregate", compile);

/// A row-count group window of the legacy planner's Table API (`Tumble over n.rows`, `Slide over
/// n.rows every m.rows`), cleaned by idle state retention's `StateCleaningCountTrigger`.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a CountWindowAggregate object {\"operator\", \"id\", \"group_by\", \"on\", \"size\", \"slide\", \"aggregates\"}"
)]
#[schemars(rename = "CountWindowAggregate")]
struct RawCountWindowAggregate {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The grouping columns (`groupBy('w, 'k)`, without the window).
    #[serde(default)]
    group_by: Vec<String>,
    /// The processing-time attribute the window is defined on (`on 'pt`).
    on: String,
    /// `over n.rows`.
    size: u64,
    /// `every m.rows`: a sliding window; absent, a tumbling one.
    slide: Option<u64>,
    /// The aggregate calls, each an output column.
    #[serde(default)]
    aggregates: Vec<RawAggregate>,
}

/// A validated count window aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct CountWindowAggregateSpec {
    pub group_by: Vec<usize>,
    /// The processing-time attribute it is defined on.
    pub on: usize,
    /// Rows per window.
    pub size: u64,
    /// `Some(m)`: a sliding window firing every `m` rows; `None`: tumbling.
    pub slide: Option<u64>,
    pub calls: Vec<AggCall>,
    pub input_columns: Vec<Column>,
    /// The grouping columns, then one column per aggregate.
    pub output_columns: Vec<Column>,
}

impl CountWindowAggregateSpec {
    /// The output row of a window of `key`: its values, then each aggregate's `getValue`.
    pub fn output(&self, key: &Row, accs: &[Accumulator]) -> Row {
        let mut out = SmallVec::with_capacity(key.0.len() + self.calls.len());
        out.extend(key.0.iter().copied());
        out.extend(self.calls.iter().zip(accs).map(|(c, a)| c.get_value(a)));
        Row(out)
    }

    /// The aggregate columns (for the page's state view).
    pub fn aggregate_columns(&self) -> &[Column] {
        &self.output_columns[self.group_by.len()..]
    }

    /// `TumblingGroupWindow('w, 'pt, 3)` / `SlidingGroupWindow('w, 'pt, 3, 2)`, as the legacy
    /// planner's `explain` prints the window (`GroupWindowTest`).
    fn window_text(&self) -> String {
        let on = &self.input_columns[self.on].name;
        match self.slide {
            None => format!("TumblingGroupWindow('w, '{on}, {})", self.size),
            Some(slide) => format!("SlidingGroupWindow('w, '{on}, {}, {slide})", self.size),
        }
    }
}

impl OperatorSpec for CountWindowAggregateSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    /// A key emits one row per window: the output has no unique key.
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

    /// `hash[group keys]`.
    fn distribution(&self) -> Option<Distribution> {
        Some(Distribution::by(self.group_by.iter().map(|&i| self.input_columns[i].name.clone()).collect()))
    }
    /// `DataStreamGroupWindowAggregate(groupBy=[k], window=[TumblingGroupWindow('w, 'pt, 3)],
    /// select=[k, SUM(v) AS s])` (the window is always named `'w` here).
    fn plan(&self) -> String {
        let names: Vec<String> = self.input_columns.iter().map(|c| c.name.clone()).collect();
        let keys: Vec<&str> = self.group_by.iter().map(|&i| names[i].as_str()).collect();
        let select: Vec<String> = keys
            .iter()
            .map(|k| k.to_string())
            .chain(
                self.calls
                    .iter()
                    .zip(self.aggregate_columns())
                    .map(|(c, col)| format!("{} AS {}", c.display(&names), col.name)),
            )
            .collect();
        let group_by = if keys.is_empty() { String::new() } else { format!("groupBy=[{}], ", keys.join(", ")) };
        format!(
            "DataStreamGroupWindowAggregate({group_by}window=[{}], select=[{}])",
            self.window_text(),
            select.join(", ")
        )
    }

    fn build(&self, flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let retention = match retention {
            Retention::IdleState(r) => r,
            // Not reached: `compile` refuses every mode without idle state retention.
            Retention::StateTtl(_) => IdleStateRetention::NEVER,
        };
        Box::new(CountWindowOperator::new(self.clone(), retention, flink))
    }
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawCountWindowAggregate = parse_part(raw, input.path)?;
    let path = input.path;
    if !input.flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "{}: a count window runs in the table runtime's WindowOperator (CountTumblingWindowAssigner / \
                 CountSlidingWindowAssigner, ElementTriggers.count), not with StateCleaningCountTrigger, and that \
                 operator is not modelled; the simulator models the legacy planner's count window (\"1.6-legacy\", \
                 \"1.7-legacy\", \"1.10-legacy\")",
                input.flink.label()
            ),
        ));
    }
    let group_by = op
        .group_by
        .iter()
        .enumerate()
        .map(|(j, name)| column_index(input.columns, name, &format!("{path}.group_by[{j}]"), input.input_name))
        .collect::<Result<Vec<_>, _>>()?;
    let on = column_index(input.columns, &op.on, &format!("{path}.on"), input.input_name)?;
    if input.columns[on].data_type != DataType::ProcTime {
        // AggregateOperationFactory.validateStreamTimeAttribute (Flink 1.10).
        return Err(ScenarioError::new(
            format!("{path}.on"),
            format!(
                "A group window expects a time attribute for grouping in a stream environment. (column {} is {}; \
                 declare the source's processing-time attribute with \"proctime\")",
                quote(&op.on),
                input.columns[on].data_type.name()
            ),
        ));
    }
    for (field, rows) in [("size", Some(op.size)), ("slide", op.slide)] {
        if rows == Some(0) {
            return Err(ScenarioError::new(
                format!("{path}.{field}"),
                "a count window of 0 rows is not modelled: give at least 1 row",
            ));
        }
    }
    if input.retracts {
        // DataStreamGroupWindowAggregate.translateToPlan.
        return Err(ScenarioError::new(
            path,
            format!(
                "Retraction on windowed GroupBy aggregation is not supported yet. Note: Windowed GroupBy aggregation \
                 should not follow a non-windowed GroupBy aggregation. ({} carries retractions)",
                input.input_name
            ),
        ));
    }
    let mut output_columns: Vec<Column> = group_by.iter().map(|&k| input.columns[k].clone()).collect();
    let mut names: HashSet<String> = output_columns.iter().map(|c| c.name.clone()).collect();
    let mut calls = Vec::new();
    for (j, agg) in op.aggregates.iter().enumerate() {
        let apath = format!("{path}.aggregates[{j}]");
        if agg.filter.is_some() {
            return Err(ScenarioError::new(
                format!("{apath}.filter"),
                "an aggregate's FILTER is modelled for GROUP BY only",
            ));
        }
        let (call, data_type) = compile_call(agg, input.columns, &apath, input.input_name, false)?;
        if agg.alias.trim().is_empty() || !names.insert(agg.alias.clone()) {
            return Err(ScenarioError::new(
                format!("{apath}.as"),
                format!("{} cannot name an output column: names must be non-empty and unique", quote(&agg.alias)),
            ));
        }
        output_columns.push(Column { name: agg.alias.clone(), data_type });
        calls.push(call);
    }
    if output_columns.is_empty() {
        return Err(ScenarioError::new(
            path,
            "a CountWindowAggregate needs at least one group_by column or one aggregate (it would output empty rows)",
        ));
    }
    Ok(Rc::new(CountWindowAggregateSpec {
        group_by,
        on,
        size: op.size,
        slide: op.slide,
        calls,
        input_columns: input.columns.to_vec(),
        output_columns,
    }))
}

#[cfg(test)]
mod tests {
    use crate::engine::Scenario;

    /// The plan as the legacy planner's `explain` prints it (`GroupWindowTest`), window named `'w`.
    #[test]
    fn plans_read_like_the_legacy_planners() {
        let scenario = |window: &str, group_by: &str| {
            let text = format!(
                r#"{{"name": "p", "flink": "1.10-legacy",
                    "source": {{"name": "s", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt"}},
                    "pipeline": [{{"operator": "CountWindowAggregate", "id": "w", "group_by": {group_by}, "on": "pt",
                                  {window}, "aggregates": [{{"function": "COUNT", "args": ["v"], "as": "n"}}]}}]}}"#
            );
            Scenario::from_json(&text).unwrap().operators[0].spec.plan()
        };
        assert_eq!(
            scenario(r#""size": 2"#, r#"["k"]"#),
            "DataStreamGroupWindowAggregate(groupBy=[k], window=[TumblingGroupWindow('w, 'pt, 2)], select=[k, COUNT(v) AS n])"
        );
        assert_eq!(
            scenario(r#""size": 2, "slide": 1"#, "[]"),
            "DataStreamGroupWindowAggregate(window=[SlidingGroupWindow('w, 'pt, 2, 1)], select=[COUNT(v) AS n])"
        );
    }
}
