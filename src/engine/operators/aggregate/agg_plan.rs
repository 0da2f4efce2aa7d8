//! The plan texts of a group aggregation, as Flink 2.3's `EXPLAIN` prints them
//! (`RelExplainUtil.streamGroupAggregationToString` and its `stringifyAggregates`,
//! `stringifyLocalAggregates`, `stringifyGlobalAggregates`, `localAggOutputFieldNames`;
//! buffer names from `AggregateUtil`):
//!
//! - `GroupAggregate(groupBy=[k], select=[k, COUNT_RETRACT(*) AS cnt, SUM_RETRACT(v) AS s])`:
//!   a call consuming retractions gets `_RETRACT`; a distinct one `DISTINCT `.
//! - `LocalGroupAggregate(groupBy=[k], select=[k, COUNT_RETRACT(*) AS count1$0, SUM_RETRACT(v)
//!   AS (sum$1, count$2)])`: every call, the hidden `COUNT(*)` included, named by its
//!   accumulator fields (`name$i`, numbered across all calls; a declarative function with several
//!   buffers in parentheses); a distinct call reads `COUNT(distinct$0 v) AS count$3` and the
//!   distinct map is listed last as `DISTINCT(v) AS distinct$0`.
//! - `GlobalGroupAggregate(groupBy=[k], select=[k, COUNT_RETRACT(count1$0) AS cnt, ...])`: each
//!   call over the local accumulator fields, under the query's names (the hidden `COUNT(*)` is
//!   left out: the names run out first).
//!
//! On the 1.10 legacy planner the one-phase form is printed the same way without `_RETRACT`.
//!
//! A `STATE_TTL` hint is printed last on the node that keeps the state, the `GroupAggregate` or
//! the `GlobalGroupAggregate`: `…, stateTtlHints=[[[STATE_TTL options:[1d]]]])`
//! (`StateTtlHintTest.xml`, Flink 1.19+; see [`super::super::state_ttl`]).

use super::group_aggregate::GroupAggregateSpec;
use crate::engine::aggregate::AggCall;

/// `NAME` of a call (`COUNT`, `SUM`, `MIN`, ...), with `_RETRACT` when it consumes retractions.
fn call_name(call: &AggCall, retract: bool) -> String {
    let name = match call {
        AggCall::CountStar | AggCall::Count(_) | AggCall::CountDistinct { .. } => "COUNT",
        AggCall::Sum { zero: true, .. } => "$SUM0",
        AggCall::Sum { .. } => "SUM",
        AggCall::LastValue(_) => "LAST_VALUE",
        AggCall::LatestByTime { .. } => "LATEST_BY_TIME",
        AggCall::Extreme { which, .. } => which.name(),
    };
    // A MIN/MAX the planner runs without retraction (`deriveAggCallNeedRetractions`).
    let retract = retract && !matches!(call, AggCall::Extreme { retract: false, .. });
    if retract {
        format!("{name}_RETRACT")
    } else {
        name.to_string()
    }
}

/// The argument columns of a call.
fn args(call: &AggCall) -> Vec<usize> {
    match call {
        AggCall::CountStar => vec![],
        AggCall::Count(a) | AggCall::Sum { arg: a, .. } | AggCall::LastValue(a) => vec![*a],
        AggCall::Extreme { arg, .. } | AggCall::CountDistinct { arg, .. } => vec![*arg],
        AggCall::LatestByTime { value, time } => vec![*value, *time],
    }
}

fn input_names(spec: &GroupAggregateSpec) -> Vec<&str> {
    spec.input_columns.iter().map(|c| c.name.as_str()).collect()
}

/// `name(args)` or `name(*)`, with `prefix` before the arguments.
fn call_text(call: &AggCall, retract: bool, names: &[&str], prefix: &str) -> String {
    let a: Vec<&str> = args(call).into_iter().map(|i| names[i]).collect();
    let a = if a.is_empty() { "*".to_string() } else { a.join(", ") };
    format!("{}({prefix}{a})", call_name(call, retract))
}

/// `X AS y`, or `X` when both read the same.
fn alias(expr: String, name: &str) -> String {
    if expr == name {
        expr
    } else {
        format!("{expr} AS {name}")
    }
}

/// `op(groupBy=[..], select=[..])`, with the `STATE_TTL` hint when `stateful` (the node that
/// keeps the aggregation's state) and the aggregation has one.
fn operator(op: &str, spec: &GroupAggregateSpec, select: &[String], stateful: bool) -> String {
    let names = input_names(spec);
    let keys: Vec<&str> = spec.group_by.iter().map(|&i| names[i]).collect();
    let mut terms = Vec::with_capacity(3);
    if !keys.is_empty() {
        terms.push(format!("groupBy=[{}]", keys.join(", ")));
    }
    terms.push(format!("select=[{}]", select.join(", ")));
    if stateful {
        terms.extend(spec.state_ttl.as_ref().and_then(|t| t.explain()));
    }
    format!("{op}({})", terms.join(", "))
}

fn key_names(spec: &GroupAggregateSpec) -> Vec<String> {
    spec.group_by.iter().map(|&i| spec.input_columns[i].name.clone()).collect()
}

/// One-phase: `GroupAggregate(groupBy=[..], select=[..])`.
pub fn group_aggregate(spec: &GroupAggregateSpec) -> String {
    let names = input_names(spec);
    let retract = spec.input_retracts && spec.flink.has_2_3_operators();
    let mut select = key_names(spec);
    for (i, (call, out)) in spec.calls.iter().zip(&spec.output_columns[spec.group_by.len()..]).enumerate() {
        let distinct = if matches!(call, AggCall::CountDistinct { .. }) { "DISTINCT " } else { "" };
        let mut text = call_text(call, retract, &names, distinct);
        // `RelExplainUtil.stringifyAggregates`: `COUNT(*) FILTER $f1`.
        if let Some(Some(f)) = spec.filters.get(i) {
            text.push_str(&format!(" FILTER {}", names[*f]));
        }
        select.push(alias(text, &out.name));
    }
    operator("GroupAggregate", spec, &select, true)
}

/// The distinct map each call reads, `distinct$i` (calls on the same column share one).
fn distinct_fields(calls: &[AggCall]) -> (Vec<Option<usize>>, Vec<usize>) {
    let mut columns: Vec<usize> = Vec::new();
    let of_call = calls
        .iter()
        .map(|c| match c {
            AggCall::CountDistinct { arg, .. } => Some(columns.iter().position(|a| a == arg).unwrap_or_else(|| {
                columns.push(*arg);
                columns.len() - 1
            })),
            _ => None,
        })
        .collect();
    (of_call, columns)
}

/// Two-phase: the global operator over the exchange over the local one, as Flink explains it.
pub fn two_phase(spec: &GroupAggregateSpec) -> String {
    let names = input_names(spec);
    let retract = spec.input_retracts;
    let (calls, _) = spec.calls_with_count_star();
    let (distinct_of, distinct_columns) = distinct_fields(&calls);
    let mut next = 0;
    let buffers: Vec<String> = calls.iter().map(|c| c.buffer_names(retract, &mut next)).collect();
    let mut local = key_names(spec);
    for ((call, buffer), d) in calls.iter().zip(&buffers).zip(&distinct_of) {
        let prefix = d.map(|d| format!("distinct${d} ")).unwrap_or_default();
        local.push(alias(call_text(call, retract, &names, &prefix), buffer));
    }
    for (d, &column) in distinct_columns.iter().enumerate() {
        local.push(alias(format!("DISTINCT({})", names[column]), &format!("distinct${d}")));
    }
    let mut global = key_names(spec);
    for (((call, buffer), d), out) in
        calls.iter().zip(&buffers).zip(&distinct_of).zip(&spec.output_columns[spec.group_by.len()..])
    {
        let prefix = d.map(|d| format!("distinct${d} ")).unwrap_or_default();
        global.push(alias(format!("{}({prefix}{buffer})", call_name(call, retract)), &out.name));
    }
    let keys = key_names(spec);
    let distribution = if keys.is_empty() { "single".to_string() } else { format!("hash[{}]", keys.join(", ")) };
    format!(
        "{}\n+- Exchange(distribution=[{distribution}])\n   +- {}",
        operator("GlobalGroupAggregate", spec, &global, true),
        operator("LocalGroupAggregate", spec, &local, false)
    )
}
