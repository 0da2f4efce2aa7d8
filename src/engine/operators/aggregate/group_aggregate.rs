//! `GroupAggregate`: `SELECT <group_by>, <aggregates> FROM <input> GROUP BY <group_by>`, as the
//! scenario format writes it, and the Flink class each Flink version runs it with:
//! [`GroupAggProcessFunction`](super::GroupAggProcessFunction) on the 1.10 legacy planner,
//! [`GroupAggFunction`](super::GroupAggFunction) on Flink 2.3; with mini-batch on (Flink 2.3,
//! `StreamExecGroupAggregate` and `TwoStageOptimizedAggregateRule`),
//! [`MiniBatchGroupAggFunction`](super::MiniBatchGroupAggFunction), or the two-phase
//! [`MiniBatchLocalGlobalGroupAgg`](super::MiniBatchLocalGlobalGroupAgg) when
//! `table.optimizer.agg-phase-strategy` is not `ONE_PHASE` and every aggregate can merge. (The
//! rule's last condition, that the input is not already distributed by the grouping keys, always
//! holds here: sources and the operators modelled provide no hash distribution.)

use super::agg_plan;
use super::{
    BlinkGroupAggFunction, GroupAggFunction, GroupAggProcessFunction, MiniBatchGroupAggFunction,
    MiniBatchLocalGlobalGroupAgg,
};
use crate::engine::aggregate::min_max::Extreme;
use crate::engine::aggregate::{Accumulator, AggCall};
use crate::engine::error::{name_list, quote, ScenarioError};
use crate::engine::format::{alias, parse_part};
use crate::engine::operators::state_ttl::{OperatorStateTtl, RawOperatorTtl};
use crate::engine::operators::{monotonicity, CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{AggPhaseStrategy, FlinkMode, Retention};
use crate::engine::row::Row;
use crate::engine::row::{Column, DataType};
use schemars::{JsonSchema, Schema};
use serde::Deserialize;
use smallvec::SmallVec;
use std::collections::HashSet;
use std::rc::Rc;

/// The registration of `GroupAggregate` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawGroupAggregate>("GroupAggregate", compile);

/// `SELECT <group_by>, <aggregates> FROM <input> GROUP BY <group_by>`: the grouping columns, then
/// one column per aggregate.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a GroupAggregate object {\"operator\", \"id\", \"group_by\", \"aggregates\", \"generate_update_before\", \"state_ttl\", \"state_ttl_from\"}"
)]
#[schemars(rename = "GroupAggregate", transform = generate_retraction_alias)]
struct RawGroupAggregate {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The `GROUP BY` columns (empty: one global aggregation).
    #[serde(default)]
    group_by: Vec<String>,
    /// The aggregate calls, each an output column.
    #[serde(default)]
    aggregates: Vec<RawAggregate>,
    /// Emit `-U` (or `(false, prevRow)` on the legacy planner) before an update. Default `true`;
    /// `false` only on the last operator: the result table is then an upsert table on the
    /// grouping key.
    #[serde(default = "yes", alias = "generate_retraction")]
    generate_update_before: bool,
    /// `/*+ STATE_TTL('input' = '…') */` (Flink 1.19+), or the compiled plan's TTL.
    #[serde(default)]
    state_ttl: Option<RawOperatorTtl>,
    /// Where `state_ttl` comes from: `"hint"` (default) or `"compiled_plan"` (the `ttl` of the
    /// node's state metadata in a compiled plan, FLIP-292, which `EXPLAIN` does not show).
    #[serde(default)]
    state_ttl_from: Option<TtlFrom>,
}

/// `"hint"` or `"compiled_plan"`.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum TtlFrom {
    Hint,
    CompiledPlan,
}

fn generate_retraction_alias(schema: &mut Schema) {
    alias(schema, "generate_update_before", "generate_retraction");
}

fn yes() -> bool {
    true
}

/// An aggregate call, e.g. `{"function": "COUNT", "args": ["*"], "as": "cnt"}`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "an aggregate object {\"function\", \"args\", \"as\"}")]
#[schemars(rename = "Aggregate")]
pub(in crate::engine::operators) struct RawAggregate {
    /// `COUNT`, `SUM`, `MIN`, `MAX`, `COUNT_DISTINCT`, `LAST_VALUE` or `LATEST_BY_TIME` (any
    /// case).
    #[schemars(extend("examples" = ["COUNT", "SUM", "MIN", "MAX", "COUNT_DISTINCT", "LAST_VALUE", "LATEST_BY_TIME"]))]
    function: String,
    /// Its argument columns: `["*"]` for `COUNT(*)`, `["value", "time"]` for `LATEST_BY_TIME`.
    #[serde(default)]
    args: Vec<String>,
    /// The output column's name.
    #[serde(rename = "as")]
    pub(in crate::engine::operators) alias: String,
    /// `agg(x) FILTER (WHERE …)`: a BOOLEAN input column; the call takes only the rows where it is
    /// TRUE (the planner computes `IS TRUE(condition)` into it). Group aggregation on Flink 2.3.
    #[serde(default)]
    pub(in crate::engine::operators) filter: Option<String>,
}

/// A validated group aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupAggregateSpec {
    pub group_by: Vec<usize>,
    pub calls: Vec<AggCall>,
    /// Per call, the BOOLEAN input column of its `FILTER` (`AggregateCall.filterArg`).
    pub filters: Vec<Option<usize>>,
    pub input_columns: Vec<Column>,
    /// The grouping columns, then one column per aggregate (Flink's GroupAggregate output).
    pub output_columns: Vec<Column>,
    /// Whether the input can carry retractions (then every call needs `retract`, and Flink 2.3
    /// keeps a `COUNT(*)` to know when a key becomes empty).
    pub input_retracts: bool,
    /// `generateUpdateBefore` (Flink 2.3) / `generateRetraction` (legacy planner).
    pub generate_update_before: bool,
    pub monotonicity: monotonicity::ModifiedMonotonicity,
    /// How mini-batch runs it, when `table.exec.mini-batch.enabled` is on.
    pub mini_batch: Option<MiniBatchPlan>,
    /// The planner it is compiled for (its plan text differs).
    pub flink: FlinkMode,
    /// The `STATE_TTL` hint, replacing `table.exec.state.ttl` for this aggregation.
    pub state_ttl: Option<OperatorStateTtl>,
}

/// The planner's choice for a mini-batch group aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MiniBatchPlan {
    /// `table.exec.mini-batch.size`, the count trigger's size.
    pub size: u64,
    /// `LocalGroupAggregate` → `GlobalGroupAggregate` rather than one `GroupAggregate`.
    pub two_phase: bool,
}

impl GroupAggregateSpec {
    /// The calls the runtime runs: the spec's, plus a hidden `COUNT(*)` when the input retracts
    /// and the query has none ("We make sure there is a COUNT(*) if input stream contains
    /// retraction"), and the index of the `COUNT(*)` the record counter reads.
    pub fn calls_with_count_star(&self) -> (Vec<AggCall>, Option<usize>) {
        let mut calls = self.calls.clone();
        let index = self.input_retracts.then(|| {
            calls.iter().position(|c| *c == AggCall::CountStar).unwrap_or_else(|| {
                calls.push(AggCall::CountStar);
                calls.len() - 1
            })
        });
        (calls, index)
    }

    /// The types of the grouping columns (the key's `BinaryRowData` layout).
    pub fn key_types(&self) -> Vec<DataType> {
        self.group_by.iter().map(|&i| self.input_columns[i].data_type).collect()
    }

    /// The output row for a key: its values, then each aggregate's value (`getValue(acc)`).
    pub fn output(&self, key: &Row, accs: &[Accumulator]) -> Row {
        let mut out = SmallVec::with_capacity(key.0.len() + self.calls.len());
        for v in &key.0 {
            out.push(*v);
        }
        for (call, acc) in self.calls.iter().zip(accs) {
            out.push(call.get_value(acc));
        }
        Row(out)
    }
}

impl OperatorSpec for GroupAggregateSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    fn unique_key_len(&self) -> usize {
        self.group_by.len()
    }
    fn output_retracts(&self) -> bool {
        true
    }
    /// `FlinkChangelogModeInferenceProgram` (Flink 2.3): a group aggregate over an insert-only
    /// input emits `[I, U]` (a group never empties); over an updating one `[I, U, D]`.
    fn output_deletes(&self) -> bool {
        self.input_retracts
    }
    /// `hash[group keys]` (`single` for a global aggregate); a two-phase aggregation shuffles
    /// between its local and global nodes instead ([`OperatorSpec::plan`] prints that exchange).
    fn distribution(&self) -> Option<Distribution> {
        if matches!(self.mini_batch, Some(MiniBatchPlan { two_phase: true, .. })) {
            return None;
        }
        Some(Distribution::by(self.group_by.iter().map(|&i| self.input_columns[i].name.clone()).collect()))
    }
    fn generates_update_before(&self) -> bool {
        self.generate_update_before
    }
    fn modified_monotonicity(&self) -> monotonicity::ModifiedMonotonicity {
        self.monotonicity.clone()
    }
    fn state_ttl(&self) -> Option<&OperatorStateTtl> {
        self.state_ttl.as_ref()
    }

    fn plan_notes(&self) -> Vec<&'static str> {
        self.calls.iter().filter_map(AggCall::plan_note).collect()
    }

    /// `GroupAggregate(groupBy=[devId], select=[devId, LAST_VALUE(status) AS st])`, or for a
    /// two-phase aggregation the pair as Flink explains it (data flowing up).
    fn plan(&self) -> String {
        match self.mini_batch {
            Some(MiniBatchPlan { two_phase: true, .. }) => agg_plan::two_phase(self),
            _ => agg_plan::group_aggregate(self),
        }
    }

    /// Idle state retention is the legacy planner's mechanism (Flink 1.10), state TTL Flink 2.3's
    /// (scenario validation pairs each with its [`FlinkMode`]).
    fn build(&self, flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        match (retention, self.mini_batch) {
            // Before FLINK-17096 the mini-batch function ignores the retention: no timers, no TTL.
            (Retention::IdleState(_), Some(MiniBatchPlan { size, two_phase: false })) => {
                Box::new(MiniBatchGroupAggFunction::new(self.clone(), 0, size, flink))
            }
            (Retention::IdleState(r), _) if flink == FlinkMode::Blink1_10 => {
                Box::new(BlinkGroupAggFunction::new(self.clone(), r))
            }
            (Retention::IdleState(r), _) => Box::new(GroupAggProcessFunction::new(self.clone(), r, flink)),
            (Retention::StateTtl(ttl), None) => Box::new(GroupAggFunction::new(self.clone(), ttl)),
            (Retention::StateTtl(ttl), Some(MiniBatchPlan { size, two_phase: false })) => {
                Box::new(MiniBatchGroupAggFunction::new(self.clone(), ttl, size, flink))
            }
            (Retention::StateTtl(ttl), Some(MiniBatchPlan { size, two_phase: true })) => {
                Box::new(MiniBatchLocalGlobalGroupAgg::new(self.clone(), ttl, size))
            }
        }
    }
}

/// The index of column `name` in `columns`, or an error naming the field and the columns there are.
pub fn column_index(columns: &[Column], name: &str, path: &str, input: &str) -> Result<usize, ScenarioError> {
    columns.iter().position(|c| c.name == name).ok_or_else(|| {
        let names = name_list(columns.iter().map(|c| c.name.as_str()));
        ScenarioError::new(path, format!("no column {} in {input} (columns: {names})", quote(name)))
    })
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawGroupAggregate = parse_part(raw, input.path)?;
    let path = input.path;
    let group_by = op
        .group_by
        .iter()
        .enumerate()
        .map(|(j, name)| column_index(input.columns, name, &format!("{path}.group_by[{j}]"), input.input_name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut output_columns: Vec<Column> = group_by.iter().map(|&k| input.columns[k].clone()).collect();
    let mut names: HashSet<String> = output_columns.iter().map(|c| c.name.clone()).collect();
    let mut calls = Vec::new();
    let mut filters = Vec::new();
    for (j, agg) in op.aggregates.iter().enumerate() {
        let apath = format!("{path}.aggregates[{j}]");
        filters.push(match &agg.filter {
            None => None,
            Some(name) => {
                let fpath = format!("{apath}.filter");
                if !input.flink.has_2_3_operators() || input.mini_batch.is_some() {
                    return Err(ScenarioError::new(
                        fpath,
                        "an aggregate's FILTER is modelled for Flink 2.3's GroupAggFunction without mini-batch only",
                    ));
                }
                let i = column_index(input.columns, name, &fpath, input.input_name)?;
                if input.columns[i].data_type != DataType::Boolean {
                    return Err(ScenarioError::new(
                        fpath,
                        format!(
                            "the FILTER column {} is {}, not BOOLEAN",
                            quote(name),
                            input.columns[i].data_type.name()
                        ),
                    ));
                }
                Some(i)
            }
        });
        let (call, data_type) = compile_call(agg, input.columns, &apath, input.input_name, input.retracts)?;
        if input.retracts && !call.supports_retraction() {
            let names: Vec<String> = input.columns.iter().map(|c| c.name.clone()).collect();
            return Err(ScenarioError::new(
                format!("{apath}.function"),
                format!(
                    "{} cannot consume {}, which carries retractions: the function has no retract method \
                     here (Flink's planner requires one for a retracting input)",
                    call.display(&names),
                    input.input_name
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
    if output_columns.is_empty() {
        return Err(ScenarioError::new(
            path,
            "a GroupAggregate needs at least one group_by column or one aggregate (it would output empty rows)",
        ));
    }
    let state_ttl = match op.state_ttl_from {
        Some(TtlFrom::CompiledPlan) => OperatorStateTtl::compiled_plan(op.state_ttl, &input, "GroupAggregate")?,
        _ => OperatorStateTtl::hint(op.state_ttl, &input)?,
    };
    let mini_batch = match input.mini_batch {
        None => None,
        // `AggregateUtil.createMiniBatchTrigger`, when the aggregation is translated.
        Some(m) => Some(MiniBatchPlan {
            size: m.trigger_size()?,
            // `TwoStageOptimizedAggregateRule.matches` (`doAllSupportPartialMerge`).
            two_phase: input.agg_phase_strategy != AggPhaseStrategy::OnePhase
                && calls.iter().all(AggCall::supports_merge),
        }),
    };
    if matches!(mini_batch, Some(MiniBatchPlan { two_phase: true, .. })) && !input.flink.has_2_3_operators() {
        return Err(ScenarioError::new(
            input.path,
            format!(
                "the two-phase (local/global) mini-batch aggregation of the {} is not modelled; set \
                 agg_phase_strategy \"ONE_PHASE\" or use \"flink\": \"2.3\"",
                input.flink.label()
            ),
        ));
    }
    let monotonicity = monotonicity::of_aggregate(input.monotonicity, &group_by, &calls);
    if !input.flink.is_legacy_planner() {
        derive_agg_call_need_retractions(&mut calls, group_by.len(), &monotonicity);
    }
    Ok(Rc::new(GroupAggregateSpec {
        filters,
        monotonicity,
        group_by,
        calls,
        input_columns: input.columns.to_vec(),
        output_columns,
        input_retracts: input.retracts,
        generate_update_before: op.generate_update_before,
        mini_batch,
        flink: input.flink,
        state_ttl,
    }))
}

/// `AggregateUtil.deriveAggCallNeedRetractions` (Flink 2.3): over a retracting input, a `MIN`
/// whose output only decreases or a `MAX` whose output only increases
/// (`FlinkRelMdModifiedMonotonicity` of the aggregate) runs without retraction
/// (`MinAggFunction`/`MaxAggFunction`, which ignore retractions), as the plan shows (`MAX(score)`
/// beside `SUM_RETRACT(score)`).
fn derive_agg_call_need_retractions(calls: &mut [AggCall], group_count: usize, m: &monotonicity::ModifiedMonotonicity) {
    use crate::engine::aggregate::min_max::Extreme;
    use monotonicity::SqlMonotonicity::{Decreasing, Increasing};
    let Some(cols) = m else { return };
    for (i, call) in calls.iter_mut().enumerate() {
        if let AggCall::Extreme { which, retract, .. } = call {
            let harmless = match which {
                Extreme::Min => cols.get(group_count + i) == Some(&Decreasing),
                Extreme::Max => cols.get(group_count + i) == Some(&Increasing),
            };
            if harmless {
                *retract = false;
            }
        }
    }
}

/// Resolves one aggregate call; `retract` (the input carries retractions) picks the retracting
/// form of functions that have two (`MIN_RETRACT`, `COUNT_RETRACT(DISTINCT ..)`). Also used by
/// `OverAggregate`.
pub(in crate::engine::operators) fn compile_call(
    agg: &RawAggregate,
    input: &[Column],
    path: &str,
    input_name: &str,
    retract: bool,
) -> Result<(AggCall, DataType), ScenarioError> {
    let arg = |j: usize| column_index(input, &agg.args[j], &format!("{path}.args[{j}]"), input_name);
    let arity = |n: usize, usage: &str| {
        if agg.args.len() == n {
            Ok(())
        } else {
            Err(ScenarioError::new(
                format!("{path}.args"),
                format!("{usage} takes {n} argument(s), found {}", agg.args.len()),
            ))
        }
    };
    let numeric = |i: usize, j: usize| {
        let t = input[i].data_type;
        if matches!(t, DataType::Int | DataType::BigInt) {
            Ok(t)
        } else {
            Err(ScenarioError::new(
                format!("{path}.args[{j}]"),
                format!("expects INT or BIGINT, column {} is {}", quote(&input[i].name), t.name()),
            ))
        }
    };
    match agg.function.to_uppercase().as_str() {
        "COUNT" if agg.args.len() == 1 && agg.args[0] == "*" => Ok((AggCall::CountStar, DataType::BigInt)),
        "COUNT" => {
            arity(1, "COUNT(x) or COUNT(*)")?;
            Ok((AggCall::Count(arg(0)?), DataType::BigInt))
        }
        "SUM" => {
            arity(1, "SUM(x)")?;
            let i = arg(0)?;
            let t = numeric(i, 0)?;
            Ok((AggCall::Sum { arg: i, int32: t == DataType::Int, zero: false }, t))
        }
        "$SUM0" => {
            arity(1, "$SUM0(x)")?;
            let i = arg(0)?;
            let t = numeric(i, 0)?;
            Ok((AggCall::Sum { arg: i, int32: t == DataType::Int, zero: true }, t))
        }
        "LAST_VALUE" => {
            arity(1, "LAST_VALUE(x)")?;
            let i = arg(0)?;
            Ok((AggCall::LastValue(i), input[i].data_type))
        }
        "LATEST_BY_TIME" => {
            arity(2, "LATEST_BY_TIME(value, time)")?;
            let (value, time) = (arg(0)?, arg(1)?);
            numeric(time, 1)?;
            Ok((AggCall::LatestByTime { value, time }, input[value].data_type))
        }
        name @ ("MIN" | "MAX") => {
            arity(1, &format!("{name}(x)"))?;
            let i = arg(0)?;
            let which = if name == "MIN" { Extreme::Min } else { Extreme::Max };
            Ok((AggCall::Extreme { which, arg: i, retract }, input[i].data_type))
        }
        "COUNT_DISTINCT" => {
            arity(1, "COUNT_DISTINCT(x)")?;
            Ok((AggCall::CountDistinct { arg: arg(0)?, retract }, DataType::BigInt))
        }
        _ => Err(ScenarioError::new(
            format!("{path}.function"),
            format!(
                "unknown aggregate function {} (known: COUNT, COUNT_DISTINCT, SUM, MIN, MAX, LAST_VALUE, LATEST_BY_TIME)",
                quote(&agg.function.to_uppercase())
            ),
        )),
    }
}
